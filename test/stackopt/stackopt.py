#!/usr/bin/env python3
"""Write-time stack optimization (tl_write_options.optimize_stack) over the
spec-suite modules. For each valid module of $TILT_TESTSUITE/core/*.wast
(via wast2json), in two modes:
  plain: tilt-opt --optimize-stack-ir in.wasm -o out.wasm
  O2:    tilt-opt -O2 in.wasm, written with and without the optimization
the output must pass wasm-validate, and the exports must do the same
(tilt-opt --fuzz-exec logs of the two modules read back, up to a "[stop"
line) as the module written without it.
Usage: stackopt.py BUILD_DIR [plain|O2...]; env TILT_STACKOPT_STRIDE=k runs
every k-th module (default 1)."""
import concurrent.futures, os, subprocess, sys, tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import specmods
from specmods import VALIDATE, modules

def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=300)

def log(tiltopt, wasm):
    r = run([tiltopt, '--all-features', '--fuzz-exec', wasm])
    out = r.stdout.split('[fuzz-exec] before the passes:\n', 1)[-1]
    return out.split('[fuzz-exec] the same after the passes', 1)[0]

def same(a, b):
    sa, sb = a.find('[stop'), b.find('[stop')
    if sa < 0 and sb < 0:
        return a == b
    n = min(sa if sa >= 0 else len(a), sb if sb >= 0 else len(b))
    return a[:n] == b[:n]

def check(tiltopt, mode, wasm, tmp):
    stem = os.path.join(tmp, 'out', mode + '.' + os.path.basename(os.path.dirname(wasm)) + '.' + os.path.basename(wasm))
    ref, opt = stem + '.ref.wasm', stem + '.opt.wasm'
    pre = [tiltopt, '--all-features'] + (['-O2'] if mode == 'O2' else []) + [wasm, '-o']
    r1 = run(pre + [ref, '--no-optimize-stack-ir'])
    r2 = run(pre + [opt, '--optimize-stack-ir'])
    try:
        if r1.returncode or run(VALIDATE + [ref]).returncode:
            return None, 0, 0   # not this feature's business
        if r2.returncode:
            return '%s %s: %s' % (mode, wasm, r2.stderr.strip()[-300:]), 0, 0
        v = run(VALIDATE + [opt])
        if v.returncode:
            return '%s %s: wasm-validate: %s' % (mode, wasm, v.stderr.strip()[:500]), 0, 0
        a, b = log(tiltopt, ref), log(tiltopt, opt)
        if not same(a, b):
            return '%s %s: fuzz-exec differs:\n--- without\n%s--- with\n%s' % (mode, wasm, a[-800:], b[-800:]), 0, 0
        return None, os.path.getsize(ref), os.path.getsize(opt)
    finally:
        for f in (ref, opt):
            if os.path.exists(f):
                os.unlink(f)

def main():
    build = sys.argv[1]
    tiltopt = os.path.join(build, 'tilt-opt')
    suite = specmods.find_suite()
    if not suite:
        print('spec test suite not found (TILT_TESTSUITE): skipped')
        return 0
    modes = sys.argv[2:] or ['plain', 'O2']
    k = max(1, int(os.environ.get('TILT_STACKOPT_STRIDE', '1')))
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'out'))
        off = specmods.commit_seed() % k  # a different sample per commit
        mods = modules(suite, tmp)[off::k]
        print('stride %d, offset %d' % (k, off))
        fails, sizes = [], {m: [0, 0] for m in modes}
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            jobs = [(m, ex.submit(check, tiltopt, m, w, tmp)) for m in modes for w in mods]
            for m, j in jobs:
                f, a, b = j.result()
                if f:
                    fails.append(f)
                sizes[m][0] += a
                sizes[m][1] += b
        for f in fails:
            print('FAIL', f)
        for m in modes:
            print('%s: %d bytes without, %d with the stack optimization' % (m, sizes[m][0], sizes[m][1]))
        print('%d modules x %d modes, %d failures' % (len(mods), len(modes), len(fails)))
        return 1 if fails else 0

if __name__ == '__main__':
    sys.exit(main())
