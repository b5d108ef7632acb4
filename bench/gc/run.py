#!/usr/bin/env python3
"""run.py — GC modules through the -O pipelines, tilt-opt vs binaryen 132.

Modules: the GC corpus (test/gc/*.wat, small hand-written programs) and
programs made by gen_classes.py (Java-like class hierarchies: -n classes,
default 2000 and 8000). For each module and configuration (-O2, -O3,
-O2 --closed-world) it runs `tilt-opt` and npm binaryen 132's `wasm-opt`
(a wasm build run by node; `-all --disable-custom-descriptors`, so that its
output stays within WebAssembly 3.0 as tilt's does), best wall time of
-r runs and peak RSS (/usr/bin/time), output size, and prints the ratios
tilt / binaryen. The generated programs' outputs are run (`tilt-run
--invoke run`) and must return what the input returns. Never part of the
tests.

usage: bench/gc/run.py [--build DIR] [--binaryen WASM_OPT] [-r N]
                       [--classes 2000,8000] [--no-corpus]
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "gc"))
import corpus  # noqa: E402

CONFIGS = [("O2", ["-O2"]), ("O3", ["-O3"]), ("O2cw", ["-O2", "--closed-world"])]


def timed(cmd):
    """(wall s, peak KB) of one run; exits on failure."""
    with tempfile.NamedTemporaryFile("r") as tf:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tf.name] + cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr[-2000:]))
        wall, kb = tf.read().split()[-2:]
        return float(wall), int(kb)


def best(cmd, runs):
    res = [timed(cmd) for _ in range(runs)]
    return min(r[0] for r in res), max(r[1] for r in res)


def result_of(run, wasm):
    p = subprocess.run([run, "--invoke", "run", wasm], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600)
    return p.returncode, p.stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--binaryen")
    ap.add_argument("-r", type=int, default=3, help="runs per tool (best wall time kept)")
    ap.add_argument("--classes", default="2000,8000", help="gen_classes.py sizes ('' for none)")
    ap.add_argument("--no-corpus", action="store_true")
    a = ap.parse_args()
    wo = corpus.find_binaryen(a.binaryen, a.build)
    if not wo:
        sys.exit("binaryen 132 not found (python3 test/gc/run.py BUILD --fetch, or --binaryen)")
    topt, trun = os.path.join(a.build, "tilt-opt"), os.path.join(a.build, "tilt-run")
    tmp = tempfile.mkdtemp(prefix="bench-gc-")
    mods = []  # (label, wasm, generated)
    if not a.no_corpus:
        for wat in corpus.files():
            w = os.path.join(tmp, os.path.basename(wat)[:-4] + ".wasm")
            subprocess.run([topt, "-all", wat, "-o", w], check=True)
            mods.append((os.path.basename(wat)[:-4], w, False))
    for n in filter(None, a.classes.split(",")):
        wat = os.path.join(tmp, "classes%s.wat" % n)
        w = wat[:-4] + ".wasm"
        subprocess.run([sys.executable, os.path.join(HERE, "gen_classes.py"), "-n", n, "-o", wat],
                       check=True)
        subprocess.run([topt, "-all", wat, "-o", w], check=True)
        mods.append(("classes%s" % n, w, True))
    print("binaryen: %s (%s)" % (corpus.binaryen_version(wo), wo))
    print("%-16s %-5s %9s %10s %10s %7s %8s %8s %6s %9s %9s %6s" % (
        "module", "cfg", "in B", "tilt B", "b132 B", "size", "tilt s", "b132 s", "time",
        "tilt MB", "b132 MB", "mem"))
    tot = {c: [0, 0] for c, _ in CONFIGS}
    for label, w, generated in mods:
        want = result_of(trun, w) if generated else None
        for cfg, flags in CONFIGS:
            to, bo = os.path.join(tmp, "t.wasm"), os.path.join(tmp, "b.wasm")
            tt, tm = best([topt, "-all", w] + flags + ["-o", to], a.r)
            bt, bm = best([wo, "-all", "--disable-custom-descriptors", w] + flags + ["-o", bo], a.r)
            ts, bs = os.path.getsize(to), os.path.getsize(bo)
            tot[cfg][0] += ts
            tot[cfg][1] += bs
            note = ""
            if generated:
                for who, out in (("tilt", to), ("binaryen", bo)):
                    got = result_of(trun, out)
                    if got != want:
                        note += "  %s's output returns %s, input %s" % (who, got, want)
            print("%-16s %-5s %9d %10d %10d %7.3f %8.3f %8.3f %6.3f %9.1f %9.1f %6.3f%s" % (
                label, cfg, os.path.getsize(w), ts, bs, ts / bs, tt, bt, tt / bt, tm / 1024,
                bm / 1024, tm / bm, note), flush=True)
    print("\ntotals (tilt / binaryen 132 bytes):")
    for cfg, _ in CONFIGS:
        t, b = tot[cfg]
        print("  %-5s %10d / %10d = %.3f" % (cfg, t, b, t / b))


if __name__ == "__main__":
    main()
