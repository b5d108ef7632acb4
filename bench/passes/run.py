#!/usr/bin/env python3
"""bench/passes — runs each control-flow pass of issue 4 (and -O1/-O2) with
tilt-opt and with wasm-opt (Debian's 108 and npm binaryen@132 on node) in
the same run, on the real modules of test/npm and on C programs compiled with
clang -O0 for wasm32-wasi; reports output sizes, wall time and peak RSS, and
validates every output with wasm-validate. Not a test. See bench/README.md.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "npm"))
import npm_modules  # noqa: E402

PASSES = ["dce", "vacuum", "remove-unused-brs", "merge-blocks", "remove-unused-names",
          "precompute", "precompute-propagate", "remove-unused-module-elements", "O1", "O2"]
VALIDATE = ["wasm-validate", "--enable-threads", "--enable-tail-call", "--enable-extended-const"]


def flag(p):
    return "-" + p if p.startswith("O") else "--" + p


def build_tool(build):
    cfg = ["cmake", "-S", REPO, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DTILT_SANITIZE=OFF",
           "-DTILT_TESTS=OFF", "-DTILT_WERROR=OFF"]
    for cmd in (cfg, ["cmake", "--build", build, "-j2", "--target", "tilt-opt"]):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            sys.exit("bench: %s failed:\n%s" % (" ".join(cmd), p.stdout.decode()[-2000:]))
    return os.path.join(build, "tilt-opt")


def compile_c(out):
    """The C programs of bench/passes/c and bench/jit at -O0."""
    mods = []
    srcs = sorted(glob.glob(os.path.join(HERE, "c", "*.c")) + glob.glob(os.path.join(REPO, "bench", "jit", "*.c")))
    for src in srcs:
        w = os.path.join(out, "c-O0-" + os.path.basename(src)[:-2] + ".wasm")
        p = subprocess.run(["clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O0", src, "-o", w],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode == 0:
            mods.append(("c/" + os.path.basename(src), w))
        else:
            print("bench: %s does not compile, skipped" % src)
    return mods


def measure(cmd, reps):
    """Best-of-reps (wall s, peak RSS kB) under /usr/bin/time, or (None, why)."""
    best = None
    for _ in range(reps):
        p = subprocess.run(["/usr/bin/time", "-f", "@@ %e %M", *cmd],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.decode(errors="replace")
        if p.returncode:
            return None, " ".join(err.strip().splitlines()[-2:])[:100]
        e, m = err[err.rindex("@@"):].split()[1:3]
        r = (float(e), int(m))
        best = r if best is None else (min(best[0], r[0]), min(best[1], r[1]))
    return best, None


def stripped_size(path):
    """Size without custom sections (names, producers): wasm-opt drops the
    name section unless -g, so raw sizes would not compare the code."""
    s = path + ".strip"
    shutil.copyfile(path, s)
    p = subprocess.run(["wasm-strip", s], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    n = os.path.getsize(s) if p.returncode == 0 else os.path.getsize(path)
    os.unlink(s)
    return n


def valid(path):
    p = subprocess.run(VALIDATE + [path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode == 0, p.stdout.decode(errors="replace").strip().splitlines()[:1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", help="tilt-opt to use (default: build <repo>/build-bench2)")
    ap.add_argument("--cache", default=os.environ.get("TILT_NPM_CACHE",
                                                      os.path.join(REPO, "build-bench2", "npm-cache")))
    ap.add_argument("-n", "--reps", type=int, default=1, help="runs per tool (best of)")
    ap.add_argument("--filter", default="", help="only modules whose label contains this")
    ap.add_argument("--passes", default=",".join(PASSES), help="comma-separated pass list")
    ap.add_argument("--min-size", type=int, default=0, help="skip smaller npm modules (bytes)")
    ap.add_argument("--exclude", default="pkg.node/,pkg.web/",
                    help="comma-separated substrings of module labels to skip (duplicates)")
    ap.add_argument("--no-npm", action="store_true", help="skip the npm modules")
    ap.add_argument("--no-c", action="store_true", help="skip the C programs")
    ap.add_argument("--no-node", action="store_true", help="skip wasm-opt 132 (node)")
    a = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("bench: /usr/bin/time is needed (apt-get install time)")
    cache = os.path.abspath(a.cache)
    why = npm_modules.fetch(cache, npm_modules.PACKAGES + [npm_modules.BINARYEN])
    if why:
        sys.exit("bench: " + why)
    tool = a.tool or build_tool(os.path.join(REPO, "build-bench2"))
    out = os.path.join(cache, "bench-passes")
    os.makedirs(out, exist_ok=True)
    tools = [("tilt", lambda p, i, o: [tool, flag(p), "-all", i, "-o", o])]
    if shutil.which("wasm-opt"):
        tools.append(("wo108", lambda p, i, o: ["wasm-opt", "--all-features", flag(p), i, "-o", o]))
    npm_opt = os.path.join(cache, "node_modules", ".bin", "wasm-opt")
    if os.path.exists(npm_opt) and not a.no_node:
        tools.append(("wo132", lambda p, i, o: [npm_opt, "--all-features", flag(p), i, "-o", o]))
    mods = []
    if not a.no_npm:
        mods += [(l, p) for l, p, _ in npm_modules.collect(cache) if os.path.getsize(p) >= a.min_size]
    if not a.no_c:
        mods += compile_c(out)
    excl = [x for x in a.exclude.split(",") if x]
    mods = [(l, p) for l, p in mods if a.filter in l and not any(x in l for x in excl)]
    passes = a.passes.split(",")
    print("date %s; load average %.1f %.1f %.1f; best of %d; sizes in bytes after wasm-strip (no custom sections), wall s, RSS MB; "
          "ratio = tilt / wasm-opt (size: < 1 is smaller; time: < 1 is faster)"
          % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), *os.getloadavg(), a.reps))
    names = [n for n, _ in tools]
    invalid = []
    for ps in passes:
        print("\n## --%s\n" % ps)
        hdr = "| %-40s | %9s |" % ("module", "in")
        for n in names:
            hdr += " %s out | %s s | %s MB |" % (n, n, n)
        for n in names[1:]:
            hdr += " size t/%s | time t/%s |" % (n[2:], n[2:])
        print(hdr)
        print("|" + "---|" * hdr.count("|")[:-1] if False else "|" + "---|" * (hdr.count("|") - 1))
        tot = {n: [0, 0.0, 0] for n in names}
        tot_in = 0
        for label, path in mods:
            size = stripped_size(path)
            res = {}
            line = "| %-40s | %9d |" % (label[-40:], size)
            for n, cmd in tools:
                o = os.path.join(out, "%s-%s-%s" % (n, ps, label.replace("/", "_")))
                if os.path.exists(o):
                    os.unlink(o)
                r, err = measure(cmd(ps, path, o), a.reps)
                if r is None:
                    line += " FAILED: %s | | |" % err.replace("|", "/")
                    res[n] = None
                    continue
                ok, msg = valid(o)
                if not ok:
                    invalid.append((n, ps, label, msg))
                osz = stripped_size(o)
                res[n] = (osz, r[0], r[1])
                line += " %d%s | %.2f | %.0f |" % (osz, "" if ok else " INVALID", r[0], r[1] / 1024)
            for n in names[1:]:
                if res.get("tilt") and res.get(n):
                    line += " %.3f | %.2f |" % (res["tilt"][0] / max(res[n][0], 1),
                                               res["tilt"][1] / max(res[n][1], 0.01))
                else:
                    line += " - | - |"
            print(line, flush=True)
            if all(res.get(n) for n in names):
                tot_in += size
                for n in names:
                    tot[n][0] += res[n][0]
                    tot[n][1] += res[n][1]
                    tot[n][2] = max(tot[n][2], res[n][2])
        line = "| %-40s | %9d |" % ("**total** (all tools ok)", tot_in)
        for n in names:
            line += " %d | %.2f | %.0f |" % (tot[n][0], tot[n][1], tot[n][2] / 1024)
        for n in names[1:]:
            line += " %.3f | %.2f |" % (tot["tilt"][0] / max(tot[n][0], 1), tot["tilt"][1] / max(tot[n][1], 0.01))
        print(line, flush=True)
    if invalid:
        print("\nINVALID outputs (wasm-validate):")
        for n, ps, label, msg in invalid:
            print("  %s --%s %s: %s" % (n, ps, label, " ".join(msg)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
