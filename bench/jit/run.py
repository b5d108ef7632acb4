#!/usr/bin/env python3
"""run.py — the JIT benchmark (issue 7; not a test). Compiles the C programs
here with clang --target=wasm32-wasi -O2 and gcc -O2, runs each under
tilt-run (JIT), node --liftoff-only --no-wasm-lazy-compilation (V8 Liftoff),
node --no-liftoff (TurboFan) and natively, checks the outputs agree, and
prints the median CPU time (user+sys of the child) of several runs and the
ratios. Then compile speed: tilt-run --compile-only vs new WebAssembly.Module
under Liftoff, in MB/s, for the programs and any large modules given with
--modules (e.g. the foundation issue's npm modules, esbuild-wasm).
usage: run.py [--tilt-run PATH] [--runs N] [--only NAME,...] [--modules F.wasm...]"""
import argparse, math, os, resource, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = ["fib", "sieve", "matmul", "nbody", "hash", "sort", "interp", "strings"]


def cpu_run(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return t, p.stdout, p.returncode


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilt-run", default=os.path.join(HERE, "../../build-jit/tilt-run"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--modules", nargs="*", default=[])
    a = ap.parse_args()
    progs = a.only.split(",") if a.only else PROGS
    out = tempfile.mkdtemp(prefix="tilt-bench-")
    node = ["node", "--experimental-wasi-unstable-preview1", "--no-warnings"]
    js = os.path.join(HERE, "wasi-run.mjs")
    engines = {
        "tilt": lambda w, n: [a.tilt_run, w],
        "liftoff": lambda w, n: node[:1] + ["--liftoff-only", "--no-wasm-lazy-compilation"] + node[1:] + [js, w],
        "turbofan": lambda w, n: node[:1] + ["--no-liftoff"] + node[1:] + [js, w],
        "native": lambda w, n: [n],
    }
    res = {}
    for p in progs:
        src = os.path.join(HERE, p + ".c")
        w, n = os.path.join(out, p + ".wasm"), os.path.join(out, p)
        subprocess.run(["clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2", src, "-o", w], check=True)
        subprocess.run(["gcc", "-O2", src, "-o", n, "-lm"], check=True)
        res[p] = {}
        want = None
        for e, mk in engines.items():
            times = []
            for _ in range(a.runs):
                t, o, rc = cpu_run(mk(w, n))
                if rc != 0:
                    print(f"{p} under {e}: exit {rc}", file=sys.stderr)
                if want is None:
                    want = o
                elif o != want:
                    print(f"{p} under {e}: output differs: {o!r} vs {want!r}", file=sys.stderr)
                times.append(t)
            res[p][e] = statistics.median(times)
        r = res[p]
        print(f"{p:8s} tilt {r['tilt']:6.2f}s  liftoff {r['liftoff']:6.2f}s  turbofan {r['turbofan']:6.2f}s"
              f"  native {r['native']:6.2f}s   tilt/liftoff {r['tilt']/r['liftoff']:.2f}  tilt/native {r['tilt']/r['native']:.2f}",
              flush=True)
    for e in ("tilt", "liftoff", "turbofan"):
        print(f"geomean {e}/native: {geomean([res[p][e]/res[p]['native'] for p in progs]):.2f}")
    print(f"geomean tilt/liftoff: {geomean([res[p]['tilt']/res[p]['liftoff'] for p in progs]):.2f}")
    print(f"compile speed (MB/s of wasm; CPU time on one core; {os.cpu_count()} cores: wall time):")
    mods = [os.path.join(out, p + ".wasm") for p in progs] + a.modules
    for m in mods:
        size = os.path.getsize(m) / 1e6
        tt, tw = [], []
        for _ in range(a.runs):
            t, o, rc = cpu_run([a.tilt_run, "--threads", "1", "--compile-only", m])
            try:
                tt.append(float(o.split(" in ")[1].split(" ms")[0]) / 1e3)
            except (IndexError, ValueError):
                tt.append(float("nan"))
            t, o, rc = cpu_run([a.tilt_run, "--compile-only", m])
            try:
                tw.append(float(o.split(" CPU, ")[1].split(" ms")[0]) / 1e3)
            except (IndexError, ValueError):
                tw.append(float("nan"))
        lt = []
        for _ in range(a.runs):
            _, o, rc = cpu_run(node[:1] + ["--liftoff-only", "--no-wasm-lazy-compilation", "--single-threaded"] + node[1:] + [js, "--compile-only", m])
            try:
                lt.append(float(o.strip().splitlines()[-1]))
            except (ValueError, IndexError):
                pass
        t1, w1 = statistics.median(tt), statistics.median(tw)
        l1 = statistics.median(lt) if lt else float("nan")
        print(f"  {os.path.basename(m):24s} {size:7.3f} MB  tilt {size/t1:7.1f} MB/s (all cores: {size/w1:7.1f} MB/s wall)"
              f"  liftoff {size/l1 if l1 == l1 and l1 > 0 else float('nan'):7.1f} MB/s")


if __name__ == "__main__":
    main()
