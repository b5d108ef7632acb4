"""specmods.py — the spec-suite modules the Python test scripts share
(test/passes/fuzzexec.py, test/passes/rereloop_size.py,
test/stackopt/stackopt.py): where the suite is, and its binary modules
written out by wast2json. Import it after putting test/ on sys.path."""
import glob, json, os, subprocess, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALIDATE = ['wasm-validate', '--enable-threads', '--enable-tail-call', '--enable-extended-const',
            '--enable-relaxed-simd']


def find_suite():
    """The suite's directory holding core/ ($TILT_TESTSUITE, default
    <repo>/../shared/testsuite; its baseline-2022-11 if present), or None."""
    suite = os.environ.get('TILT_TESTSUITE', os.path.join(ROOT, '..', 'shared', 'testsuite'))
    for d in (os.path.join(suite, 'baseline-2022-11'), suite):
        if os.path.isdir(os.path.join(d, 'core')):
            return d
    return None


def modules(suite, tmp, dirs=('core',)):
    """Paths of the binary modules of suite/DIR/*.wast for each DIR of dirs,
    written by wast2json under tmp/<wast name>/ (a .wast wast2json rejects
    is left out; a DIR other than core prefixes the name with DIR-)."""
    mods = []
    for wast in sorted(w for d in dirs for w in glob.glob(os.path.join(suite, d, '*.wast'))):
        base = os.path.splitext(os.path.basename(wast))[0]
        sub = os.path.basename(os.path.dirname(wast))
        if sub != 'core':
            base = sub + '-' + base
        d = os.path.join(tmp, base)
        os.makedirs(d)
        js = os.path.join(d, base + '.json')
        if subprocess.run(['wast2json', '--enable-all', wast, '-o', js], capture_output=True).returncode:
            continue
        for cmd in json.load(open(js))['commands']:
            if cmd['type'] == 'module' and cmd.get('module_type', 'binary') == 'binary':
                mods.append(os.path.join(d, cmd['filename']))
    return mods


def commit_seed():
    """The per-commit sampling seed: $TILT_SAMPLE_SEED if set (to repeat a
    run), else the first 8 hex digits of git HEAD, else the time. CI runs a
    different sample per commit; every item comes up over a few commits."""
    env = os.environ.get('TILT_SAMPLE_SEED')
    if env:
        return int(env, 0)
    head = subprocess.run(['git', '-C', ROOT, 'rev-parse', 'HEAD'], capture_output=True, text=True).stdout.strip()
    return int(head[:8], 16) if head else int(time.time())


def stride_from_env(name, default):
    """A sampling stride k >= 1 from $name (1 runs everything)."""
    return max(1, int(os.environ.get(name, str(default))))
