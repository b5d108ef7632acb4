#!/usr/bin/env python3
"""run.py — what an access to a memory other than 0 costs on tilt's JIT,
beside V8. loop.wat runs its loads and stores on memory 1 ($b); a copy
rewritten to use memory 0 ($a) is the baseline. Each runs with tilt-run
--jit (best of R child CPU times, process start and compilation included)
and node (V8, where it has multi-memory: node 20 has not; its own timer around the
call). Prints the times and the memory1/memory0 ratios. Never a test.
  usage: bench/multi-memory/run.py [--build DIR] [-n N] [-r R]
"""
import argparse, os, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument('--build', default='build')
ap.add_argument('-n', type=int, default=300, help='passes over the 1 MB buffer')
ap.add_argument('-r', type=int, default=5, help='runs per variant (best is kept)')
a = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
tmp = tempfile.mkdtemp()
src = open(os.path.join(here, 'loop.wat')).read()
variants = {'memory1': src,
            'memory0': src.replace('i32.store $b', 'i32.store $a').replace('i32.load $b', 'i32.load $a')}
wasm = {}
for k, text in variants.items():
    wat, wasm[k] = os.path.join(tmp, k + '.wat'), os.path.join(tmp, k + '.wasm')
    open(wat, 'w').write(text)
    subprocess.run(['wat2wasm', '--enable-multi-memory', wat, '-o', wasm[k]], check=True)
js = os.path.join(tmp, 'run.js')
open(js, 'w').write("const fs=require('fs');const i=new WebAssembly.Instance(new WebAssembly.Module("
                    "fs.readFileSync(process.argv[2])));i.exports.run(1);const t0=process.hrtime.bigint();"
                    "const r=i.exports.run(+process.argv[3]);console.log(Number(process.hrtime.bigint()-t0)/1e9, r);\n")

def tilt(k):
    before = os.times()
    p = subprocess.run([os.path.join(a.build, 'tilt-run'), '--jit', '--invoke', 'run', wasm[k], str(a.n)],
                       capture_output=True, text=True)
    after = os.times()
    if p.returncode: sys.exit(p.stderr)
    return after.children_user - before.children_user + after.children_system - before.children_system, p.stdout.strip()

def v8(k):
    p = subprocess.run(['node', js, wasm[k], str(a.n)], capture_output=True, text=True)
    if p.returncode: return None, next((l for l in p.stderr.splitlines() if 'Error' in l), '?').strip()
    t, r = p.stdout.split()
    return float(t), r

res = {}
for eng, fn in (('tilt', tilt), ('v8', v8)):
    for k in wasm:
        runs = [fn(k) for _ in range(a.r)]
        ts = [t for t, _ in runs if t is not None]
        res[eng, k] = min(ts) if ts else None
        if not ts: print(f'{eng} {k}: {runs[0][1]}')
for eng in ('tilt', 'v8'):
    m0, m1 = res[eng, 'memory0'], res[eng, 'memory1']
    if m0 and m1:
        print(f'{eng:5} memory0 {m0:7.3f} s   memory1 {m1:7.3f} s   memory1/memory0 {m1 / m0:5.2f}x')
