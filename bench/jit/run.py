#!/usr/bin/env python3
"""run.py — the JIT benchmark (issue 7; not a test). Compiles the C programs
here with clang --target=wasm32-wasi -O2 and gcc -O2, runs each under
tilt-run (JIT), node --liftoff-only --no-wasm-lazy-compilation (V8 Liftoff),
node --no-liftoff (TurboFan) and natively, checks the outputs agree, and
prints the median CPU time (user+sys of the child) of several runs and the
ratios. Then compile speed: tilt-run --compile-only vs new WebAssembly.Module
under Liftoff, in MB/s, for the programs and any large modules given with
--modules (e.g. the foundation issue's npm modules, esbuild-wasm).
--simd runs the SIMD kernels of simd/ instead (clang -O2 -msimd128; their
native builds are the kernels' scalar twins at gcc -O2).
usage: run.py [--tilt-run PATH] [--runs N] [--only NAME,...] [--simd] [--compile-only]
              [--modules F.wasm...]"""
import argparse, math, os, resource, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = ["fib", "sieve", "matmul", "nbody", "hash", "sort", "interp", "strings"]
SIMD_PROGS = ["blur", "dot", "matmul", "search", "base64", "nn"]


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
    ap.add_argument("--compile-only", action="store_true", help="only the compile-speed part")
    ap.add_argument("--simd", action="store_true", help="the SIMD kernels (simd/*.c, -msimd128)")
    a = ap.parse_args()
    if a.compile_only:
        compile_speed(a, a.modules)
        return
    progs = a.only.split(",") if a.only else SIMD_PROGS if a.simd else PROGS
    srcdir, simd = (os.path.join(HERE, "simd"), ["-msimd128"]) if a.simd else (HERE, [])
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
        src = os.path.join(srcdir, p + ".c")
        w, n = os.path.join(out, p + ".wasm"), os.path.join(out, p)
        subprocess.run(["clang", "--target=wasm32-wasi", "--sysroot=/usr", "-O2"] + simd + [src, "-o", w], check=True)
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
    compile_speed(a, [os.path.join(out, p + ".wasm") for p in progs] + a.modules)


def compile_speed(a, mods):
    """tilt-run --compile-only on 1 thread and on all cores, and
    new WebAssembly.Module under Liftoff single-threaded and with its
    background threads. MB/s of wasm: CPU time on one thread; on all cores
    the wall time, and tilt's critical path (its busiest thread's CPU time
    plus the serial part: the wall time on idle cores, which a shared
    machine's wall clock does not show)."""
    node = ["node", "--no-warnings"]
    js = os.path.join(HERE, "wasi-run.mjs")
    cores = os.cpu_count()
    print(f"compile speed (MB/s of wasm; median of {a.runs}; {cores} cores):")
    print(f"  {'module':30s} {'MB':>7s}  {'tilt 1T cpu':>11s}  {'tilt NT wall':>12s}  {'tilt NT crit':>12s}"
          f"  {'liftoff 1T cpu':>14s}  {'liftoff NT wall':>15s}")

    def tilt(m, threads):
        cpu, wall, crit = [], [], []
        for _ in range(a.runs):
            o = subprocess.run([a.tilt_run, "--threads", str(threads), "--compile-only", m],
                               stdout=subprocess.PIPE, text=True).stdout
            try:
                cpu.append(float(o.split(" in ")[1].split(" ms")[0]) / 1e3)
                wall.append(float(o.split(" CPU, ")[1].split(" ms")[0]) / 1e3)
                crit.append(float(o.split(" (")[1].split(" ms")[0]) / 1e3)
            except (IndexError, ValueError):
                pass
        med = lambda xs: statistics.median(xs) if xs else float("nan")
        return med(cpu), med(wall), med(crit)

    def liftoff(m, single):
        cpu, wall = [], []
        for _ in range(a.runs):
            flags = ["--liftoff-only", "--no-wasm-lazy-compilation"] + (["--single-threaded"] if single else [])
            o = subprocess.run(node[:1] + flags + node[1:] + [js, "--compile-only", m],
                               stdout=subprocess.PIPE, text=True).stdout
            try:
                c, w = o.strip().splitlines()[-1].split()
                cpu.append(float(c))
                wall.append(float(w))
            except (ValueError, IndexError):
                pass
        med = lambda xs: statistics.median(xs) if xs else float("nan")
        return med(cpu), med(wall)

    for m in mods:
        size = os.path.getsize(m) / 1e6
        c1, _, _ = tilt(m, 1)
        _, wn, cn = tilt(m, cores)
        l1, _ = liftoff(m, True)
        _, lw = liftoff(m, False)
        mbs = lambda t: size / t if t == t and t > 0 else float("nan")
        print(f"  {os.path.basename(m):30s} {size:7.3f}  {mbs(c1):11.1f}  {mbs(wn):12.1f}  {mbs(cn):12.1f}"
              f"  {mbs(l1):14.1f}  {mbs(lw):15.1f}", flush=True)


if __name__ == "__main__":
    main()
