#!/usr/bin/env python3
"""bench/relooper/run.py — tilt's Relooper (C API) side by side with
Binaryen's (npm binaryen@132, JS API) on the same random graphs (gen.py):
CPU time to structure (best of N), written module size, label-variable sets
(local.set/tee of the label local 0) and br_table dispatches counted in the
wasm2wat text of both outputs. Not a test. See bench/README.md.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "npm"))
import npm_modules  # noqa: E402


def sh(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    if p.returncode:
        sys.exit("bench: %s failed:\n%s" % (" ".join(cmd), p.stdout.decode()[-2000:]))
    return p.stdout.decode()


def counts(path):
    """(label sets, br_tables, valid) from the wasm2wat text of path."""
    txt = sh(["wasm2wat", path])
    sets = br = 0
    for line in txt.splitlines():
        t = line.strip()
        if t in ("local.set 0", "local.tee 0"):
            sets += 1
        elif t.startswith("br_table"):
            br += 1
    ok = subprocess.run(["wasm-validate", path], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode == 0
    return sets, br, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build-bench2"), help="tilt build dir (libtilt.a)")
    ap.add_argument("--cache", default=os.environ.get("TILT_NPM_CACHE",
                                                      os.path.join(REPO, "build-bench2", "npm-cache")))
    ap.add_argument("-n", "--reps", type=int, default=3, help="best of")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binaryen-json", help="reuse the JSON a previous driver.mjs run printed")
    a = ap.parse_args()
    why = npm_modules.fetch(os.path.abspath(a.cache), [npm_modules.BINARYEN])
    if why:
        sys.exit("bench: " + why)
    out = os.path.join(a.build, "relooper-bench")
    os.makedirs(out, exist_ok=True)
    if not os.path.exists(os.path.join(a.build, "libtilt.a")):
        sh(["cmake", "-S", REPO, "-B", a.build, "-DCMAKE_BUILD_TYPE=Release", "-DTILT_SANITIZE=OFF",
            "-DTILT_TESTS=OFF", "-DTILT_WERROR=OFF"])
        sh(["cmake", "--build", a.build, "-j2", "--target", "tilt"])
    drv = os.path.join(out, "driver")
    sh(["cc", "-O2", "-std=c11", "-Wall", "-Wextra", "-I", os.path.join(REPO, "include"),
        os.path.join(HERE, "driver.c"), os.path.join(a.build, "libtilt.a"), "-lxxhash", "-lpthread",
        "-lm", "-o", drv])
    graphs = os.path.join(out, "graphs.json")
    print(sh([sys.executable, os.path.join(HERE, "gen.py"), graphs, str(a.seed)]), end="")
    tilt = json.loads(sh([drv, graphs + ".txt", out, str(a.reps)]))
    if a.binaryen_json:
        with open(a.binaryen_json) as f:
            bin_ = json.load(f)
    else:
        bin_ = json.loads(sh(["node", os.path.join(HERE, "driver.mjs"),
                              os.path.join(a.cache, "node_modules", "binaryen"), graphs, out, str(a.reps)]))
    print("\ndate %s; load average %.1f %.1f %.1f; CPU seconds, best of %d; t/b = tilt / Binaryen "
          "(< 1: tilt smaller / fewer / faster)\n" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                                      *os.getloadavg(), a.reps))
    print("| family | tilt render s | binaryen render s | time t/b | tilt bytes | binaryen bytes | "
          "size t/b | tilt label sets | binaryen label sets | tilt br_table | binaryen br_table | "
          "tilt split blocks | valid |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for fam, t in tilt.items():
        b = bin_[fam]
        ts, tb, tok = counts(os.path.join(out, "tilt-%s.wasm" % fam))
        bs, bb, bok = counts(os.path.join(out, "binaryen-%s.wasm" % fam))
        print("| %s | %.4f | %.4f | %.3f | %d | %d | %.3f | %d | %d | %d | %d | %d | %s |" % (
            fam, t["render_s"], b["render_s"], t["render_s"] / max(b["render_s"], 1e-6), t["bytes"],
            b["bytes"], t["bytes"] / b["bytes"], ts, bs, tb, bb, t["split_blocks"],
            "yes" if tok and bok else "tilt %s binaryen %s" % (tok, bok)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
