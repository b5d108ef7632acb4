#!/usr/bin/env python3
"""run.py — what a 64-bit memory costs on tilt's JIT, beside V8.

Builds kernel.c with clang as wasm32 and as wasm64 (memory64: every load
and store takes an i64 address; the JIT tests whether it is below 4 GiB,
where the guard-page reservation covers it as for wasm32, and checks higher
ones explicitly), runs the export `run`
with tilt-run --jit (best of R child CPU times, rounds interleaved) and
with node (V8's optimizing tier, --experimental-wasm-memory64; its own
timer around the call), and prints each time and the wasm64/wasm32 ratios.
Never part of the tests.
  usage: bench/memory64/run.py [--build DIR] [-n N] [-r R]
"""
import argparse, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument('--build', default='build')
ap.add_argument('-n', type=int, default=4000, help='passes over the 1 MiB buffer')
ap.add_argument('-r', type=int, default=5, help='runs per variant (best is kept)')
a = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
run = os.path.join(a.build, 'tilt-run')
tmp = tempfile.mkdtemp()
wasm = {}
for t in ('wasm32', 'wasm64'):
    wasm[t] = os.path.join(tmp, t + '.wasm')
    r = subprocess.run(['clang', '--target=' + t, '-O2', '-nostdlib', '-Wl,--no-entry', '-Wl,--export-all',
                        '-o', wasm[t], os.path.join(here, 'kernel.c')], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f'clang --target={t} failed (no wasm64 target?): {r.stderr}')
js = os.path.join(tmp, 'run.js')
with open(js, 'w') as f:
    f.write("const fs=require('fs');const i=new WebAssembly.Instance(new WebAssembly.Module("
            "fs.readFileSync(process.argv[2])));const n=process.argv[3]==='wasm64'?BigInt(process.argv[4]):"
            "+process.argv[4];i.exports.run(n);const t0=process.hrtime.bigint();i.exports.run(n);"
            "console.log(Number(process.hrtime.bigint()-t0)/1e9);\n")

def tilt(t):
    before = os.times()
    p = subprocess.run([run, '--jit', '--invoke', 'run', wasm[t], str(a.n)], capture_output=True, text=True)
    after = os.times()
    if p.returncode:
        sys.exit(f'tilt-run {t}: status {p.returncode}: {p.stderr}')
    return after.children_user + after.children_system - before.children_user - before.children_system

def v8(t):
    if not shutil.which('node'):
        return float('nan')
    p = subprocess.run(['node', '--experimental-wasm-memory64', js, wasm[t], t, str(a.n)],
                       capture_output=True, text=True)
    return float(p.stdout) if p.returncode == 0 else float('nan')

best = {}
for _ in range(a.r):
    for eng, fn in (('tilt', tilt), ('v8', v8)):
        for t in ('wasm32', 'wasm64'):
            best[eng, t] = min(best.get((eng, t), float('inf')), fn(t))
for eng in ('tilt', 'v8'):
    w32, w64 = best[eng, 'wasm32'], best[eng, 'wasm64']
    print(f'{eng:5} wasm32 {w32:7.3f} s   wasm64 {w64:7.3f} s   wasm64/wasm32 {w64 / w32:5.2f}x')
print(f'tilt/v8 wasm64 {best["tilt", "wasm64"] / best["v8", "wasm64"]:5.2f}x '
      f'(tilt counts process start and compilation, V8 only the call)')
