#!/usr/bin/env python3
"""bench/large — issue 21's targets on modules of 10 MB and more (Go, Rust,
Emscripten builds from npm): tilt-opt beside Debian's wasm-opt (108) and npm
binaryen@132's (on node, for output size), 2 threads each, in one run.

Per module and job it prints wall time, peak RSS and output bytes of each
tool, then tilt's ratios: time and memory to wasm-opt 108's, size to 132's;
for the read + write jobs also tilt's MB/s and peak memory over the input
size. Jobs: rw (no passes), strip (--strip-debug --strip-producers), O2, Os.
Not a test. See bench/README.md.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "npm"))
sys.path.insert(0, os.path.join(REPO, "bench", "passes"))
import npm_modules  # noqa: E402
from run import FEATS  # noqa: E402  (wasm-opt's feature flags, as bench/passes gives them)

# pinned: esbuild (Go), swc and biome (Rust, wasm-bindgen), ffmpeg (Emscripten)
PACKAGES = ["esbuild-wasm@0.28.2", "@swc/wasm@1.15.3", "@biomejs/wasm-nodejs@2.3.8", "@ffmpeg/core@0.12.10"]
JOBS = {"rw": [], "strip": ["--strip-debug", "--strip-producers"], "O2": ["-O2"], "Os": ["-Os"]}


def build_tilt(build):
    cfg = ["cmake", "-S", REPO, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DTILT_SANITIZE=OFF",
           "-DTILT_TESTS=OFF", "-DTILT_WERROR=OFF"]
    for cmd in (cfg, ["cmake", "--build", build, "-j2", "--target", "tilt-opt"]):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            sys.exit("bench: %s failed:\n%s" % (" ".join(cmd), p.stdout.decode()[-2000:]))
    return os.path.join(build, "tilt-opt")


def measure(cmd, env=None):
    """(wall s, peak RSS kB) of cmd, or None if it fails."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "@@ %M", *cmd], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - t0
    err = p.stderr.decode(errors="replace")
    if p.returncode or "@@" not in err:
        print("  failed: %s: %s" % (" ".join(cmd[:3]), " | ".join(err.strip().splitlines()[-2:])))
        return None
    return wall, int(err[err.rindex("@@"):].split()[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", help="tilt-opt (default: a Release build in <repo>/build-bench)")
    ap.add_argument("--cache", default=os.path.join(REPO, "build-bench", "npm-cache-large"))
    ap.add_argument("--jobs", default="rw,strip,O2,Os", help="comma-separated: rw,strip,O2,Os")
    ap.add_argument("--filter", default="", help="only modules whose label contains this")
    ap.add_argument("-n", "--reps", type=int, default=1, help="runs per tool (best of)")
    ap.add_argument("--no-node", action="store_true", help="skip binaryen 132 (slow: it runs on node)")
    ap.add_argument("--wasm-opt", default="wasm-opt", help="Debian's wasm-opt ('' to skip)")
    a = ap.parse_args()
    tool = a.tool or build_tilt(os.path.join(REPO, "build-bench"))
    cache = os.path.abspath(a.cache)
    why = npm_modules.fetch(cache, PACKAGES + ([] if a.no_node else ["binaryen@132.0.0"]))
    if why:
        sys.exit("bench: " + why)
    npm_opt = os.path.join(cache, "node_modules", ".bin", "wasm-opt")
    mods = [m for m in npm_modules.collect(cache, PACKAGES)
            if os.path.getsize(m[1]) >= 10 << 20 and a.filter in m[0]]
    out = os.path.join(cache, "out")
    os.makedirs(out, exist_ok=True)
    env2 = dict(os.environ, BINARYEN_CORES="2")
    tools = [("tilt", lambda i, o, f: [tool, "--threads", "2", "-all", *f, i, "-o", o], None)]
    if a.wasm_opt:
        tools.append(("wo108", lambda i, o, f: [a.wasm_opt, *FEATS, *f, i, "-o", o], env2))
    if not a.no_node:
        tools.append(("wo132", lambda i, o, f: [npm_opt, *FEATS, "--enable-bulk-memory-opt", *f, i, "-o", o], env2))
    print("load %.1f; tools: %s" % (os.getloadavg()[0], ", ".join(t[0] for t in tools)))
    worst = {}
    for label, path, _ in mods:
        size = os.path.getsize(path)
        with open(path, "rb") as f:  # into the page cache: every tool reads it warm
            f.read()
        print("%s (%.1f MB)" % (label, size / 1e6))
        for job in a.jobs.split(","):
            res = {}
            for name, cmd, env in tools:
                if name == "wo132" and job in ("rw", "strip"):
                    continue  # size only: nothing to compare without passes
                o = os.path.join(out, "%s.%s.wasm" % (name, job))
                best = None
                for _ in range(a.reps):
                    r = measure(cmd(path, o, JOBS[job]), env)
                    best = r if best is None or r is None else (min(best[0], r[0]), min(best[1], r[1]))
                if best:
                    res[name] = (best[0], best[1], os.path.getsize(o))
            cols = "  ".join("%s %.2f s %.0f MB %d B" % (n, w, m / 1024, s) for n, (w, m, s) in res.items())
            print("  %-5s %s" % (job, cols))
            t = res.get("tilt")
            if not t:
                continue
            notes = []
            if "wo108" in res:
                notes.append("time x%.3f mem x%.3f of 108" % (t[0] / res["wo108"][0], t[1] / res["wo108"][1]))
            if "wo132" in res:
                notes.append("size x%.4f of 132" % (t[2] / res["wo132"][2]))
            if job in ("rw", "strip"):
                notes.append("%.0f MB/s, peak %.2fx input" % (size / 1e6 / t[0], t[1] * 1024 / size))
            print("        tilt: " + ", ".join(notes))
            for k, v in (("time", t[0] / res["wo108"][0] if "wo108" in res else None),
                         ("mem", t[1] / res["wo108"][1] if "wo108" in res else None),
                         ("size", t[2] / res["wo132"][2] if "wo132" in res else None)):
                if v is not None:
                    worst[(job, k)] = max(worst.get((job, k), 0), v)
    if worst:
        print("worst over modules: " + ", ".join("%s %s x%.3f" % (j, k, v) for (j, k), v in sorted(worst.items())))


if __name__ == "__main__":
    main()
