#!/usr/bin/env python3
"""run.py — the cost of a try that does not throw, on tilt's JIT.

Runs each export of eh.wat (assembled by tilt-opt) with tilt-run --jit
--invoke NAME eh.wasm N, best of R child CPU times (rounds interleaved), and prints each variant's
time, its ratio to "plain" (no try) and to its block-structured twin
("try" and "try-table" vs "block", "callee-try" vs "callee-block"): the
latter is what exception handling itself costs. Never part of the tests.
  usage: bench/eh/run.py [--build DIR] [-n N] [-r R]
"""
import argparse, os, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument('--build', default='build')
ap.add_argument('-n', type=int, default=300_000_000, help='loop iterations')
ap.add_argument('-r', type=int, default=5, help='runs per variant (best is kept)')
a = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
opt, run = os.path.join(a.build, 'tilt-opt'), os.path.join(a.build, 'tilt-run')
wasm = os.path.join(tempfile.mkdtemp(), 'eh.wasm')
subprocess.run([opt, '--all-features', os.path.join(here, 'eh.wat'), '-o', wasm], check=True)

def once(name):
    """One run; its output."""
    p = subprocess.Popen([run, '--jit', '--invoke', name, wasm, str(a.n)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    if p.returncode:
        sys.exit(f'{name}: status {p.returncode}: {err}')
    return out.strip()

VARIANTS = ('plain', 'block', 'try', 'try-table', 'callee-block', 'callee-try')
twin = {'try': 'block', 'try-table': 'block', 'callee-try': 'callee-block'}
times = {v: float('inf') for v in VARIANTS}
res = {}
for _ in range(a.r):                     # interleaved rounds: load drifts hit every variant
    for v in VARIANTS:
        before = os.times()
        res[v] = once(v)
        after = os.times()
        cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
        times[v] = min(times[v], cpu)
print(f'{"variant":12} {"cpu s":>8} {"/plain":>7} {"/twin":>6}  result   (n = {a.n}, best of {a.r}, child CPU time)')
for v in VARIANTS:
    t = times[v]
    tw = f'{t / times[twin[v]]:6.3f}' if v in twin else '     -'
    print(f'{v:12} {t:8.3f} {t / times["plain"]:7.3f} {tw}  {res[v]}')
