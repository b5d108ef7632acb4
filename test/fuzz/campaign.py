#!/usr/bin/env python3
"""Wrong-code campaign over tilt-opt configurations (pipelines or single passes).

usage: campaign.py BUILD_DIR FIRST_SEED SECONDS OUT_DIR 'CFG;CFG;...'
  e.g. campaign.py build 71000000 3600 /tmp/camp '-O2;-Os;--simplify-locals;--optimize-stack-ir'
For each seed, `tilt-fuzz gen --seed S` makes a module; for each configuration
(tilt-opt flags; '--optimize-stack-ir' alone = the writer's stack optimization)
it checks: tilt-opt exits 0 with --fuzz-exec (no crash, interpreter before =
after the passes), wasm-validate accepts the output, the written output behaves
as the input (`tilt-fuzz exec`, which covers the writer), and --threads 1 and
--threads 2 write the same bytes. Failing inputs go to OUT_DIR as
fail-SEED-CFG.wasm with a .txt saying what went wrong. Run it under nice."""
import subprocess, sys, os, time, shutil
B = sys.argv[1]; seed0 = int(sys.argv[2]); secs = float(sys.argv[3]); out = sys.argv[4]
configs = [c.split() for c in sys.argv[5].split(';')]
OPT = B + '/tilt-opt'; FZ = B + '/tilt-fuzz'
VAL = ['wasm-validate', '--enable-threads', '--enable-tail-call', '--enable-extended-const',
       '--enable-relaxed-simd']
os.makedirs(out, exist_ok=True)
work = out + '/work'; os.makedirs(work, exist_ok=True)
t0 = time.time(); s = seed0; fails = 0; n = 0
def run(cmd, t=40):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=t)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return 'timeout', b'', b''
def fail(seed, cfg, why, detail=b''):
    global fails
    fails += 1
    tag = '%d-%s' % (seed, '_'.join(c.strip('-') for c in cfg) or 'write')
    shutil.copy(work + '/in.wasm', '%s/fail-%s.wasm' % (out, tag))
    with open('%s/fail-%s.txt' % (out, tag), 'wb') as f:
        f.write(('seed %d config %s: %s\n' % (seed, ' '.join(cfg), why)).encode()); f.write(detail[-4000:])
    print('FAIL', tag, why, flush=True)
while time.time() - t0 < secs:
    rc, _, _ = run([FZ, 'gen', '--seed', str(s), '-o', work + '/in.wasm'])
    if rc != 0: s += 1; continue
    rc, base, _ = run([FZ, 'exec', work + '/in.wasm'])
    for cfg in configs:
        if not cfg: continue
        rc, o, e = run([OPT, '-all', '--threads', '1', '--fuzz-exec'] + cfg + [work + '/in.wasm', '-o', work + '/o1.wasm'])
        if rc != 0:
            fail(s, cfg, 'tilt-opt rc=%s' % rc, o[-2000:] + e); continue
        rc, _, e = run(VAL + [work + '/o1.wasm'])
        if rc != 0: fail(s, cfg, 'invalid output', e); continue
        rc, after, e = run([FZ, 'exec', work + '/o1.wasm'])
        if after != base:
            fail(s, cfg, 'written output behaves differently', b'--- before\n' + base[-1500:] + b'\n--- after\n' + after[-1500:] + e)
            continue
        rc, o, e = run([OPT, '-all', '--threads', '2'] + cfg + [work + '/in.wasm', '-o', work + '/o2.wasm'])
        if rc != 0 or open(work + '/o1.wasm', 'rb').read() != open(work + '/o2.wasm', 'rb').read():
            fail(s, cfg, 'non-deterministic (threads 1 vs 2) rc=%s' % rc, e)
    n += 1; s += 1
    if n % 50 == 0: print('%d modules, %d failures, %.0fs' % (n, fails, time.time() - t0), flush=True)
print('done: %d modules (seeds %d..%d), %d failures' % (n, seed0, s - 1, fails), flush=True)
