#!/usr/bin/env python3
"""Code section size before/after for each locals pass, tilt-opt vs wasm-opt (same single
pass), on the modules given; WASI programs (those importing
wasi_snapshot_preview1 with a _start export) are also run with tilt-run
before and after, and their output compared. Every output goes through
wasm-validate.  Usage: measure.py BUILD_DIR MODULE.wasm..."""
import os, subprocess, sys, tempfile, time

PASSES = ['', 'simplify-locals', 'simplify-locals-notee', 'simplify-locals-nostructure',
          'simplify-locals-notee-nostructure', 'simplify-locals-nonesting', 'coalesce-locals',
          'reorder-locals', 'merge-locals', 'local-cse', 'rse', 'ssa-nomerge', 'code-pushing', 'untee']
VALIDATE = ['wasm-validate', '--enable-threads', '--enable-tail-call', '--enable-extended-const',
            '--enable-relaxed-simd']

def code_size(path):
    """Bytes of the code section (what these passes change)."""
    d = open(path, 'rb').read()
    i = 8
    while i < len(d):
        sid = d[i]; i += 1
        n = shift = 0
        while True:
            b = d[i]; i += 1
            n |= (b & 0x7f) << shift; shift += 7
            if b < 0x80: break
        if sid == 10:
            return n
        i += n
    return 0

def run(cmd):
    t = time.time()
    r = subprocess.run(cmd, capture_output=True)
    return r, time.time() - t

def wasi_out(build, wasm):
    r = subprocess.run([os.path.join(build, 'tilt-run'), wasm], capture_output=True, timeout=600)
    return r.returncode, r.stdout

def main():
    build, mods = sys.argv[1], sys.argv[2:]
    help_ = subprocess.run([os.path.join(build, 'tilt-opt'), '--help'], capture_output=True, text=True).stdout
    passes = [p for p in PASSES if not p or '--' + p + ' ' in help_]
    tot = {p: [0, 0, 0] for p in passes}
    with tempfile.TemporaryDirectory() as tmp:
        for m in mods:
            base = code_size(m)
            is_wasi = b'wasi_snapshot_preview1' in open(m, 'rb').read()
            ref = wasi_out(build, m) if is_wasi else None
            print('%s (code section: %d bytes)' % (os.path.basename(m), base))
            for p in passes:
                a, b = os.path.join(tmp, 't.wasm'), os.path.join(tmp, 'w.wasm')
                flag = ['--' + p] if p else []
                rt, tt = run([os.path.join(build, 'tilt-opt'), '--all-features'] + flag + [m, '-o', a])
                rw, tw = run(['wasm-opt', '--all-features'] + flag + [m, '-o', b])
                st = code_size(a) if rt.returncode == 0 else -1
                sw = code_size(b) if rw.returncode == 0 else -1
                note = ''
                if rt.returncode:
                    note = 'TILT FAILED ' + rt.stderr.decode()[-200:]
                elif subprocess.run(VALIDATE + [a], capture_output=True).returncode:
                    note = 'INVALID OUTPUT'
                elif is_wasi and wasi_out(build, a) != ref:
                    note = 'WASI OUTPUT DIFFERS'
                print('  %-36s tilt %9d (%5.1f%%) %6.2fs   wasm-opt %9d (%5.1f%%) %6.2fs  %s' % (
                    p or '(no pass: write only)', st, 100.0 * st / base, tt, sw, 100.0 * sw / base if sw > 0 else 0, tw, note))
                tot[p][0] += base; tot[p][1] += st; tot[p][2] += sw
        print('total')
        for p in passes:
            b, t, w = tot[p]
            print('  %-36s before %9d  tilt %9d  wasm-opt %9d  tilt/wasm-opt %.3f' % (p or '(no pass: write only)', b, t, w, t / w if w else 0))

if __name__ == '__main__':
    main()
