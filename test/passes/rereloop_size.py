#!/usr/bin/env python3
"""The rereloop pass over the valid spec-suite modules: behaviour and size.
For each valid binary module of $TILT_TESTSUITE/baseline-2022-11/core/*.wast
(via wast2json; modules tilt-opt or wasm-validate reject are left out):
  tilt-opt -all M --debug --rereloop --fuzz-exec   must succeed (same
      behaviour, IR valid with fresh types) and its output pass wasm-validate;
  tilt-opt -all M --rereloop -O1           must be no larger than M.
A module that grows is also run through `-O1` alone, to tell whether the
growth is rereloop's or the core pipeline's.
Usage: rereloop_size.py BUILD_DIR [--stride K] [-v]
  --stride K (or env TILT_RERELOOP_STRIDE=K): every K-th module only
  (default 1: all of them, about 20 s on 2 cores, which ctest runs).
Exit 0: all clean; 1: failures; 77: skipped (no suite or no wabt)."""
import concurrent.futures, os, shutil, subprocess, sys, tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import specmods
from specmods import VALIDATE, modules


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def check(tiltopt, wasm):
    """None if the module is not valid input; else (status, detail, in, out)."""
    if run([tiltopt, '-all', '-q', wasm]).returncode or run(VALIDATE + [wasm]).returncode:
        return None
    out1, out2 = wasm + '.rr.wasm', wasm + '.rr-O1.wasm'
    r = run([tiltopt, '-all', '-q', '--debug', wasm, '--rereloop', '--fuzz-exec', '-o', out1])
    if r.returncode:
        return ('BAD', (r.stderr.strip() or r.stdout[-500:]).splitlines()[-1:], 0, 0)
    v = run(VALIDATE + [out1])
    if v.returncode:
        return ('INVALID', v.stderr.strip()[:300], 0, 0)
    r = run([tiltopt, '-all', '-q', wasm, '--rereloop', '-O1', '-o', out2])
    if r.returncode:
        return ('BAD', 'rereloop -O1: ' + r.stderr.strip()[-300:], 0, 0)
    a, b = os.path.getsize(wasm), os.path.getsize(out2)
    if b <= a:
        return ('OK', '', a, b)
    r = run([tiltopt, '-all', '-q', wasm, '-O1', '-o', out2])
    c = os.path.getsize(out2) if r.returncode == 0 else -1
    who = 'the core passes (-O1 alone: %d)' % c if c > a else 'rereloop (-O1 alone: %d)' % c
    return ('GREW', who, a, b)


def main():
    args = sys.argv[1:]
    verbose = '-v' in args
    args = [a for a in args if a != '-v']
    stride = int(os.environ.get('TILT_RERELOOP_STRIDE', '1'))
    if '--stride' in args:
        i = args.index('--stride')
        stride = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    tiltopt = os.path.join(args[0], 'tilt-opt')
    suite = specmods.find_suite()
    if not suite:
        print('spec test suite not found (TILT_TESTSUITE): skipped')
        return 77
    if not shutil.which('wast2json') or not shutil.which('wasm-validate'):
        print('wast2json or wasm-validate not installed: skipped')
        return 77
    stride = max(1, stride)
    with tempfile.TemporaryDirectory() as tmp:
        off = specmods.commit_seed() % stride  # a different sample per commit
        mods = modules(suite, tmp)[off::stride]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            results = list(zip(mods, ex.map(lambda w: check(tiltopt, w), mods)))
        counts = {'OK': 0, 'BAD': 0, 'INVALID': 0, 'GREW': 0}
        total_in = total_out = 0
        for wasm, res in results:
            if res is None:
                continue
            st, detail, a, b = res
            counts[st] += 1
            total_in += a
            total_out += b
            name = os.path.relpath(wasm, tmp)
            if st != 'OK':
                print('%s %s %s' % (st, name, ('%d -> %d bytes, ' % (a, b) if st == 'GREW' else '') + str(detail)))
            elif verbose and b < a:
                print('ok %s %d -> %d' % (name, a, b))
    n = sum(counts.values())
    print('rereloop over %d valid modules (stride %d, offset %d): %d ok, %d behaviour failures, %d invalid, %d grew;'
          ' total %d -> %d bytes' % (n, stride, off, counts['OK'], counts['BAD'], counts['INVALID'], counts['GREW'],
                                     total_in, total_out))
    return 0 if n == counts['OK'] else 1


if __name__ == '__main__':
    sys.exit(main())
