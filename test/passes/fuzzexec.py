#!/usr/bin/env python3
"""Fuzz-exec of every registered pass over the spec-suite modules.
For each valid module of $TILT_TESTSUITE/core/*.wast and legacy/*.wast
(legacy exception handling: try/catch/delegate/rethrow) (via wast2json) and
each pass listed by `tilt-opt --help`, runs
  tilt-opt --all-features --debug --fuzz-exec --<pass> in.wasm -o out.wasm
(--debug validates after every pass; --fuzz-exec compares what the exports
do before and after, up to a "[stop" line) and then wasm-validate on out.wasm.
Usage: fuzzexec.py BUILD_DIR [PASS...]   (no passes: all registered ones;
O1..O4, Os, Oz: that -O pipeline)"""
import concurrent.futures, os, re, subprocess, sys, tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import specmods
from specmods import VALIDATE, commit_seed, modules, stride_from_env

def passes(tiltopt):
    out = subprocess.run([tiltopt, '--help'], capture_output=True, text=True).stdout
    sec = out.split('optimization passes', 1)[1].split('\n\n', 1)[0] if 'optimization passes' in out else ''
    return re.findall(r'^  --([a-z0-9-]+)', sec, re.M)

def run_one(tiltopt, pas, wasm, tmp):
    out = os.path.join(tmp, 'out', pas + '.' + os.path.basename(os.path.dirname(wasm)) + '.' + os.path.basename(wasm))
    flag = '-' + pas if re.fullmatch(r'O[0-4sz]?', pas) else '--' + pas  # O2, Os: a pipeline
    lmu = ['--low-memory-unused'] if pas.startswith('optimize-added-constants') else []  # required, as in wasm-opt
    r = subprocess.run([tiltopt, '--all-features', '--debug', '--fuzz-exec'] + lmu + [flag, wasm, '-o', out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        if 'error' in r.stderr and ('invalid' in r.stderr or 'malformed' in r.stderr) and 'fuzz-exec' not in r.stderr \
                and subprocess.run([tiltopt, '--all-features', wasm], capture_output=True).returncode:
            return None  # the input itself is rejected: not this pass's business
        return '%s %s: %s' % (pas, wasm, (r.stderr.strip() or r.stdout[-2000:]).splitlines()[-1:])
    v = subprocess.run(VALIDATE + [out], capture_output=True, text=True)
    os.unlink(out)
    if v.returncode:
        plain = out + '.plain.wasm'
        subprocess.run([tiltopt, '--all-features', wasm, '-o', plain], capture_output=True)
        bad = subprocess.run(VALIDATE + [plain], capture_output=True).returncode
        os.unlink(plain)
        if bad:
            return None  # the writer's round trip alone fails: not this pass's business
        return '%s %s: wasm-validate: %s' % (pas, wasm, v.stderr.strip()[:500])
    return None

def main():
    build = sys.argv[1]
    tiltopt = os.path.join(build, 'tilt-opt')
    suite = specmods.find_suite()
    if not suite:
        print('spec test suite not found (TILT_TESTSUITE): skipped')
        return 0
    names = sys.argv[2:] or passes(tiltopt)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, 'out'))
        mods = modules(suite, tmp, ('core', 'legacy'))
        # keep only modules tilt-opt accepts as they are
        ok = [w for w in mods if subprocess.run([tiltopt, '--all-features', w], capture_output=True).returncode == 0
              and subprocess.run(VALIDATE + [w], capture_output=True).returncode == 0]
        fails = []
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
            # TILT_FUZZEXEC_STRIDE=k: pass i sees every k-th module, from
            # offset (i + seed) mod k, the seed changing per commit
            # (specmods.commit_seed), so every (pass, module) pair comes up
            # within k commits; 1 runs everything.
            k = stride_from_env('TILT_FUZZEXEC_STRIDE', 3)
            seed = commit_seed()
            print('stride %d, seed %d (TILT_SAMPLE_SEED=%d repeats this sample)' % (k, seed, seed), flush=True)
            jobs = [ex.submit(run_one, tiltopt, p, w, tmp)
                    for i, p in enumerate(names) for w in ok[(i + seed) % k::k]]
            for j in jobs:
                r = j.result()
                if r:
                    fails.append(r)
        for f in fails:
            print('FAIL', f)
        print('%d passes x %d modules, %d runs (stride %d, seed %d), %d failures'
              % (len(names), len(ok), len(jobs), k, seed, len(fails)))
        return 1 if fails else 0

if __name__ == '__main__':
    sys.exit(main())
