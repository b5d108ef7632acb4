#!/usr/bin/env python3
"""run.py — the execution corpus: C programs (test/programs/*.c) built for
wasm32-wasi at -O0 -O1 -O2 -Os -Oz and natively with gcc; every optimizer
configuration must keep each program's stdout and exit status equal to the
native build's, under the interpreter (tilt-run --interp) and the JIT
(tilt-run), and its output must pass wasm-validate.

Configurations: none (the clang output as it is), every pass tilt-opt --help
lists, alone; every -O pipeline; --rereloop -O2; --converge -O3.
A case is (configuration, program, level, engine). The cross product is a
few thousand tilt-opt runs; by default (CI) a sample runs, different per
commit: every configuration gets --per-config (program, level) pairs, drawn
so that every program and every level comes up too, each pair runs under one
engine (both for every --both-every'th pair). The sample is seeded from
`git rev-parse HEAD` (or --seed); --full runs everything.

  run.py --build BUILD_DIR [--work DIR] [--jobs N] [--seed S | --full]
         [--programs a,b] [--levels O0,O2] [--engines interp,jit]
         [--configs 'CFG;CFG'] [--known FILE] [--timeout SEC]

Known failures (--known, default test/programs/known-failures.txt): a case
matching an entry is expected to fail; it is reported as XFAIL, and as XPASS
(counted as a failure: remove the entry) when it passes.
Exit status: 0 all passed, 1 failures, 77 skipped (no gcc, or clang cannot
build for wasm32-wasi)."""
import argparse, concurrent.futures, fnmatch, os, random, re, shlex, shutil, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LEVELS = ['O0', 'O1', 'O2', 'Os', 'Oz']
ENGINES = ['interp', 'jit']
PIPELINES = ['-O0', '-O1', '-O2', '-O3', '-O4', '-Os', '-Oz']
EXTRA = ['--rereloop -O2', '--converge -O3']
WASI_CC = ['clang', '--target=wasm32-wasi', '--sysroot=/usr']
NATIVE_CC = ['gcc', '-std=gnu11', '-ffp-contract=off']
VALIDATE = ['wasm-validate']


def passes(tiltopt):
    """The optimization passes tilt-opt --help lists (the registry, src/passes/passes.def),
    not the interface passes after them (they rename imports/exports)."""
    out = subprocess.run([tiltopt, '--help'], capture_output=True, text=True).stdout
    sec = out.split('optimization passes', 1)[1].split('\n\n', 1)[0] if 'optimization passes' in out else ''
    return re.findall(r'^  --([a-z0-9-]+)', sec, re.M)


def opt_args(cfg):
    """tilt-opt arguments for a configuration ('' = none: no tilt-opt run)."""
    args = shlex.split(cfg)
    if any(a.startswith('--optimize-added-constants') for a in args):
        args = ['--low-memory-unused'] + args  # required, as in wasm-opt
    return args


def rel(path):
    """path relative to the current directory when it is below it."""
    r = os.path.relpath(path)
    return path if r.startswith('..') else r


def slug(cfg):
    return re.sub(r'[^A-Za-z0-9]+', '_', cfg).strip('_') or 'none'


class Known:
    """known-failures.txt: ISSUE CONFIG PROGRAM LEVEL ENGINE per line, the
    last four fnmatch patterns (CONFIG quoted when it has spaces)."""

    def __init__(self, path):
        self.entries = []
        if path and os.path.exists(path):
            for n, line in enumerate(open(path), 1):
                line = line.split('#', 1)[0].strip()
                if not line:
                    continue
                f = shlex.split(line)
                if len(f) != 5:
                    raise SystemExit('%s:%d: want ISSUE CONFIG PROGRAM LEVEL ENGINE' % (path, n))
                self.entries.append(f)

    def match(self, cfg, prog, level, engine):
        for issue, c, p, l, e in self.entries:
            if fnmatch.fnmatchcase(cfg, c) and fnmatch.fnmatchcase(prog, p) and \
                    fnmatch.fnmatchcase(level, l) and fnmatch.fnmatchcase(engine, e):
                return issue
        return None


def run(cmd, timeout, stdin=subprocess.DEVNULL):
    """(returncode, stdout bytes, stderr text); returncode None on timeout."""
    try:
        r = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=timeout)
        return r.returncode, r.stdout, r.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        return None, b'', 'timeout after %ss' % timeout
    except OSError as e:  # e.g. a tool being rebuilt under the run
        return -1, b'', 'cannot run %s: %s' % (cmd[0], e)


def fresh(out, srcs):
    return os.path.exists(out) and all(os.path.getmtime(out) >= os.path.getmtime(s) for s in srcs)


def build(args, progs, pairs, work):
    """Native binaries and their expected output; wasm for the (program,
    level) pairs given. Returns {prog: (rc, stdout)} or a list of errors."""
    os.makedirs(os.path.join(work, 'native'), exist_ok=True)
    os.makedirs(os.path.join(work, 'wasm'), exist_ok=True)
    common = os.path.join(HERE, 'common.h')

    def one(job):
        prog, level = job
        src = os.path.join(HERE, prog + '.c')
        if level is None:
            out = os.path.join(work, 'native', prog)
            cmd = NATIVE_CC + ['-O1', '-w', src, '-o', out, '-lm']
        else:
            out = os.path.join(work, 'wasm', '%s.%s.wasm' % (prog, level))
            cmd = WASI_CC + ['-' + level, '-w', src, '-o', out]
        if fresh(out, [src, common]):
            return None
        rc, _, err = run(cmd, 300)
        return None if rc == 0 else '%s: %s' % (' '.join(cmd), err.strip()[-2000:])

    jobs = [(p, None) for p in progs] + sorted(pairs)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        errs = [e for e in ex.map(one, jobs) if e]
    if errs:
        return errs
    expected = {}
    for p in progs:
        rc, out, err = run([os.path.join(work, 'native', p)], args.timeout)
        if rc is None or rc < 0:
            return ['native %s: %s (status %s)' % (p, err.strip()[-500:], rc)]
        expected[p] = (rc, out)
    return expected


def choose(args, configs, progs, rng):
    """The (config, prog, level, engines) jobs to run."""
    if args.full:
        return [(c, p, l, list(args.engines)) for c in configs for p in progs for l in args.levels]
    jobs = []
    # programs and levels are dealt out in shuffled rounds, so each comes up
    # about equally often and every one at least once when there are enough slots
    pdeck, ldeck, edeck = [], [], []
    n = 0
    for c in configs:
        for _ in range(args.per_config):
            if not pdeck:
                pdeck = list(progs)
                rng.shuffle(pdeck)
            if not ldeck:
                ldeck = list(args.levels)
                rng.shuffle(ldeck)
            if not edeck:
                edeck = list(args.engines)
                rng.shuffle(edeck)
            n += 1
            engines = list(args.engines) if args.both_every and n % args.both_every == 0 else [edeck.pop()]
            jobs.append((c, pdeck.pop(), ldeck.pop(), engines))
    # programs the deal did not reach (fewer slots than programs) still run once
    seen = {j[1] for j in jobs}
    for p in progs:
        if p not in seen:
            jobs.append((rng.choice(configs), p, rng.choice(args.levels), [rng.choice(args.engines)]))
    # one job per (configuration, program, level): they share the output file
    merged = {}
    for c, p, l, engines in jobs:
        e = merged.setdefault((c, p, l), [])
        e += [x for x in engines if x not in e]
    return [(c, p, l, [x for x in args.engines if x in e]) for (c, p, l), e in merged.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', required=True, help='build dir holding tilt-opt and tilt-run')
    ap.add_argument('--work', help='where wasm, native binaries and outputs go (default BUILD/programs)')
    ap.add_argument('--jobs', type=int, default=int(os.environ.get('JOBS', '2')))
    ap.add_argument('--seed', type=lambda s: int(s, 0))
    ap.add_argument('--full', action='store_true', help='the whole cross product')
    ap.add_argument('--per-config', type=int, default=3, help='sampled (program, level) pairs per configuration')
    ap.add_argument('--both-every', type=int, default=3, help='every Nth sampled pair runs under both engines')
    ap.add_argument('--programs', help='comma-separated program names (default: every .c here)')
    ap.add_argument('--levels', default=','.join(LEVELS))
    ap.add_argument('--engines', default=','.join(ENGINES))
    ap.add_argument('--configs', help="';'-separated configurations, e.g. '--dce;-O2;none'")
    ap.add_argument('--known', default=os.path.join(HERE, 'known-failures.txt'))
    ap.add_argument('--timeout', type=float, default=120, help='seconds per tilt-opt or tilt-run run')
    ap.add_argument('--keep', action='store_true', help='keep every optimized module (default: failures only)')
    args = ap.parse_args()
    args.levels = args.levels.split(',')
    args.engines = args.engines.split(',')
    build_dir = os.path.abspath(args.build)
    tiltopt, tiltrun = os.path.join(build_dir, 'tilt-opt'), os.path.join(build_dir, 'tilt-run')
    work = os.path.abspath(args.work or os.path.join(build_dir, 'programs'))
    for t in (tiltopt, tiltrun):
        if not os.access(t, os.X_OK):
            print('SKIP: %s not built' % t)
            return 77
    for tool in ('gcc', 'clang'):
        if not shutil.which(tool):
            print('SKIP: %s not found' % tool)
            return 77
    have_validate = shutil.which('wasm-validate') is not None
    if not have_validate:
        print('note: wasm-validate not found: outputs are not validated')

    allprogs = sorted(f[:-2] for f in os.listdir(HERE) if f.endswith('.c'))
    progs = args.programs.split(',') if args.programs else allprogs
    configs = args.configs.split(';') if args.configs else \
        ['none'] + ['--' + p for p in passes(tiltopt)] + PIPELINES + EXTRA
    configs = ['' if c == 'none' else c for c in configs]
    if not args.configs and len(configs) == 1 + len(PIPELINES) + len(EXTRA):
        print('FAIL: no passes in %s --help' % tiltopt)
        return 1
    known = Known(args.known)

    seed = args.seed
    if seed is None:
        head = subprocess.run(['git', '-C', ROOT, 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout.strip()
        seed = int(head[:8], 16) if head else int(time.time())
    rng = random.Random(seed)

    jobs = choose(args, configs, progs, rng)
    t0 = time.time()
    os.makedirs(work, exist_ok=True)
    probe = os.path.join(work, 'probe.c')
    open(probe, 'w').write('#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n')
    rc, _, err = run(WASI_CC + [probe, '-o', probe + '.wasm'], 300)
    if rc != 0:
        print('SKIP: cannot build for wasm32-wasi (need clang, lld, wasi-libc, libclang-rt-*-dev-wasm32):\n' + err)
        return 77
    expected = build(args, progs, {(j[1], j[2]) for j in jobs}, work)
    if isinstance(expected, list):
        print('FAIL: building the corpus:\n' + '\n'.join(expected))
        return 1
    t_build = time.time() - t0

    ncases = sum(len(j[3]) for j in jobs)
    print('programs: %d, levels: %s, configurations: %d, engines: %s' %
          (len(progs), ' '.join(args.levels), len(configs), ' '.join(args.engines)))
    print('seed %d (%s): %d tilt-opt runs, %d cases' % (seed, 'full cross product' if args.full else
                                                        '%d per configuration' % args.per_config, len(jobs), ncases))
    me = rel(__file__)
    base_cmd = 'python3 %s --build %s --work %s' % (me, rel(build_dir), rel(work))

    lock = threading.Lock()
    results = []  # (status, cfg, prog, level, engine, detail)
    done = [0]

    def repro(cfg, prog, level, engine):
        src = os.path.join(HERE, prog + '.c')
        wasm = os.path.join(work, 'wasm', '%s.%s.wasm' % (prog, level))
        out = os.path.join(work, 'fail', slug(cfg), '%s.%s.wasm' % (prog, level))
        lines = ['  %s -%s %s -o %s' % (' '.join(WASI_CC), level, rel(src), rel(wasm))]
        runs = wasm
        if cfg:
            lines.append('  %s %s %s -o %s' % (rel(tiltopt), ' '.join(opt_args(cfg)),
                                                rel(wasm), rel(out)))
            runs = out
        lines.append('  %s%s %s' % (rel(tiltrun), ' --interp' if engine == 'interp' else '',
                                    rel(runs)))
        lines.append("  or: %s --configs='%s' --programs %s --levels %s --engines %s" %
                     (base_cmd, cfg or 'none', prog, level, engine))
        return '\n'.join(lines)

    def one(job):
        cfg, prog, level, engines = job
        wasm = os.path.join(work, 'wasm', '%s.%s.wasm' % (prog, level))
        outcome = {}
        target = wasm
        problem = None
        if cfg:
            odir = os.path.join(work, 'opt', slug(cfg))
            os.makedirs(odir, exist_ok=True)
            target = os.path.join(odir, '%s.%s.wasm' % (prog, level))
            rc, _, err = run([tiltopt] + opt_args(cfg) + [wasm, '-o', target], args.timeout)
            if rc != 0:
                problem = 'tilt-opt failed (status %s): %s' % (rc, err.strip()[-300:])
            elif have_validate:
                rc, _, err = run(VALIDATE + [target], args.timeout)
                if rc != 0:
                    problem = 'wasm-validate: %s' % err.strip()[:300]
        want_rc, want_out = expected[prog]
        for e in engines:
            if problem:
                outcome[e] = problem
                continue
            cmd = [tiltrun] + (['--interp'] if e == 'interp' else []) + [target]
            rc, out, err = run(cmd, args.timeout)
            if rc == want_rc and out == want_out:
                outcome[e] = None
            else:
                got = out.decode(errors='replace').splitlines()
                want = want_out.decode(errors='replace').splitlines()
                diff = next((i for i in range(max(len(got), len(want)))
                             if i >= len(got) or i >= len(want) or got[i] != want[i]), None)
                what = 'status %s (want %s)' % (rc, want_rc)
                if diff is not None:
                    what += ', stdout differs at line %d: got %r want %r (%d lines, want %d)' % (
                        diff + 1, got[diff] if diff < len(got) else '<end>',
                        want[diff] if diff < len(want) else '<end>', len(got), len(want))
                if err.strip():
                    what += '; stderr: ' + err.strip()[-200:]
                outcome[e] = what
        keep = False
        with lock:
            for e in engines:
                issue = known.match(cfg or 'none', prog, level, e)
                bad = outcome[e]
                if bad and issue:
                    status, detail = 'XFAIL', '%s (known: %s)' % (bad, issue)
                elif bad:
                    status, detail, keep = 'FAIL', bad, True
                elif issue:
                    status, detail = 'XPASS', 'passes but known-failures.txt lists it (%s): remove the entry' % issue
                else:
                    status, detail = 'ok', ''
                results.append((status, cfg or 'none', prog, level, e, detail))
                if status in ('FAIL', 'XPASS'):
                    print('%s: [%s] %s %s %s: %s\n  reproduce (seed %d):\n%s' %
                          (status, cfg or 'none', prog, level, e, detail, seed, repro(cfg, prog, level, e)), flush=True)
            done[0] += 1
            if done[0] % 100 == 0:
                print('... %d/%d tilt-opt runs, %.0fs' % (done[0], len(jobs), time.time() - t0), flush=True)
        if cfg and target != wasm:
            if keep:
                fdir = os.path.join(work, 'fail', slug(cfg))
                os.makedirs(fdir, exist_ok=True)
                os.replace(target, os.path.join(fdir, os.path.basename(target)))
            elif not args.keep:
                os.unlink(target) if os.path.exists(target) else None

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        list(ex.map(one, jobs))

    count = {}
    for r in results:
        count[r[0]] = count.get(r[0], 0) + 1
    # coverage: every configuration and every program ran at least once
    ran_cfg = {r[1] for r in results}
    ran_prog = {r[2] for r in results}
    missing = [c or 'none' for c in configs if (c or 'none') not in ran_cfg] + [p for p in progs if p not in ran_prog]
    by_cfg = {}
    for r in results:
        if r[0] in ('FAIL', 'XPASS'):
            by_cfg.setdefault(r[1], []).append('%s.%s.%s' % (r[2], r[3], r[4]))
    if by_cfg:
        print('failures by configuration:')
        for c in sorted(by_cfg):
            print('  [%s] %d: %s' % (c, len(by_cfg[c]), ' '.join(sorted(by_cfg[c])[:12])))
    print('%d cases: %d ok, %d FAIL, %d XFAIL, %d XPASS; build %.0fs, total %.0fs (seed %d%s)' %
          (len(results), count.get('ok', 0), count.get('FAIL', 0), count.get('XFAIL', 0), count.get('XPASS', 0),
           t_build, time.time() - t0, seed, ', full' if args.full else ''))
    if missing:
        print('NOT COVERED: ' + ' '.join(missing))
    return 1 if count.get('FAIL') or count.get('XPASS') or missing else 0


if __name__ == '__main__':
    sys.exit(main())
