#!/usr/bin/env python3
"""bench/stackopt — the size the write-time stack optimization saves: for
each module, `tilt-opt -O2` with --no-optimize-stack-ir and without it (the
default at -O2), and `wasm-opt -O2 --all-features` (which includes Binaryen's
Stack IR), sizes after wasm-strip; every output is checked with
wasm-validate. Modules: the C programs of bench/jit at clang -O0 and -O2
(wasm32-wasi), plus any .wasm paths given. Not a test.
Usage: run.py --tool BUILD/tilt-opt [--no-wasm-opt] [MODULE.wasm...]"""
import argparse, glob, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VALIDATE = ['wasm-validate', '--enable-threads', '--enable-tail-call', '--enable-extended-const',
            '--enable-relaxed-simd']


def stripped_size(path):
    s = path + '.strip'
    subprocess.run(['wasm-strip', path, '-o', s], check=True)
    n = os.path.getsize(s)
    os.unlink(s)
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--tool', required=True)
    ap.add_argument('--no-wasm-opt', action='store_true')
    ap.add_argument('modules', nargs='*')
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mods = []
        for src in sorted(glob.glob(os.path.join(REPO, 'bench', 'jit', '*.c'))):
            for lvl in ('-O0', '-O2'):
                w = os.path.join(tmp, 'c%s-%s.wasm' % (lvl, os.path.basename(src)[:-2]))
                if subprocess.run(['clang', '--target=wasm32-wasi', '--sysroot=/usr', lvl, src, '-o', w],
                                  capture_output=True).returncode == 0:
                    mods.append(w)
        mods += a.modules
        runs = [[a.tool, '-O2', '--no-optimize-stack-ir'], [a.tool, '-O2']]
        if not a.no_wasm_opt:
            runs.append(['wasm-opt', '-O2', '--all-features'])
        tot = [0] * len(runs)
        print('%-28s %10s %10s %10s %8s %8s' % ('module', 'without', 'with', 'wasm-opt', 'with/wo', 'with/w-o'))
        for w in mods:
            sizes = []
            for cmd in runs:
                out = os.path.join(tmp, 'out.wasm')
                p = subprocess.run(cmd + [w, '-o', out], capture_output=True, text=True)
                if p.returncode:
                    print('FAIL %s %s: %s' % (' '.join(cmd), w, p.stderr[-300:]))
                    sizes.append(0)
                    continue
                if subprocess.run(VALIDATE + [out], capture_output=True).returncode:
                    print('INVALID %s %s' % (' '.join(cmd), w))
                sizes.append(stripped_size(out))
            tot = [t + s for t, s in zip(tot, sizes)]
            wo = sizes[2] if len(sizes) > 2 else 0
            print('%-28s %10d %10d %10s %8.4f %8s' % (os.path.basename(w), sizes[0], sizes[1], wo or '-',
                  sizes[1] / max(sizes[0], 1), '%.4f' % (sizes[1] / wo) if wo else '-'))
        wo = tot[2] if len(tot) > 2 else 0
        print('%-28s %10d %10d %10s %8.4f %8s' % ('total', tot[0], tot[1], wo or '-', tot[1] / max(tot[0], 1),
              '%.4f' % (tot[1] / wo) if wo else '-'))


if __name__ == '__main__':
    sys.exit(main())
