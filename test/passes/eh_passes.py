#!/usr/bin/env python3
"""strip-eh and translate-to-exnref over the legacy exception-handling spec
modules ($TILT_TESTSUITE/legacy/*.wast and the 2022 exception-handling
proposal's, via wast2json): with --debug (validation after the pass) the
output must be valid, read back, and hold no legacy EH (translate) or no EH
at all (strip).
Usage: eh_passes.py BUILD_DIR            the checks above
       eh_passes.py BUILD_DIR fuzz-exec  tilt-opt --translate-to-exnref
         --fuzz-exec on every module: what the exports do must not change.
         Exits 77 (skip) while the interpreter refuses exception handling."""
import glob, json, os, re, subprocess, sys, tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import specmods

DIRS = ['legacy', 'proposals/exception-handling']
# legacy arms print as (catch N (local.set ..)..., (catch_all\n...) or empty;
# try_table clauses as (catch N $label) on the try_table's line
LEGACY = re.compile(r'\((try|delegate|rethrow)[ )\n]|\(catch(_all)?( \d+)?(\n| \(|\))')
ANY_EH = re.compile(r'\((try|try_table|delegate|rethrow|throw|throw_ref|tag)[ )\n]|\(catch')

def eh_modules(suite, tmp):
    mods = []
    # the suite may be a baseline inside the testsuite (legacy/ sits beside it)
    roots = [suite, os.path.dirname(suite)]
    for d in DIRS:
        for wast in sorted(set(w for r in roots for w in glob.glob(os.path.join(r, d, '*.wast')))):
            base = d.replace('/', '_') + '_' + os.path.splitext(os.path.basename(wast))[0]
            out = os.path.join(tmp, base)
            os.makedirs(out)
            js = os.path.join(out, base + '.json')
            if subprocess.run(['wast2json', '--enable-all', wast, '-o', js], capture_output=True).returncode:
                continue
            for cmd in json.load(open(js))['commands']:
                if cmd['type'] == 'module' and cmd.get('module_type', 'binary') == 'binary':
                    mods.append(os.path.join(out, cmd['filename']))
    return mods

def run(args):
    return subprocess.run(args, capture_output=True, text=True)

def main():
    build, fuzz = sys.argv[1], sys.argv[2:] == ['fuzz-exec']
    tiltopt = os.path.join(build, 'tilt-opt')
    suite = specmods.find_suite()
    if not suite:
        print('SKIP: spec test suite not found (TILT_TESTSUITE)')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        mods = [m for m in eh_modules(suite, tmp) if run([tiltopt, '--all-features', m]).returncode == 0]
        has_eh = [m for m in mods if ANY_EH.search(run([tiltopt, '--all-features', m, '-S', '-o', '-']).stdout)]
        if not has_eh:
            print('FAIL: no exception-handling module found under', suite)
            return 1
        fails, unsupported, runs = [], 0, 0
        out = os.path.join(tmp, 'out.wasm')
        for m in has_eh:
            if fuzz:
                r = run([tiltopt, '--all-features', m, '--translate-to-exnref', '--fuzz-exec', '-o', out])
                text = r.stdout + r.stderr
                if 'unsupported' in text or 'not supported' in text:
                    unsupported += 1
                elif r.returncode:
                    fails.append('%s: %s' % (m, text.strip()[-400:]))
                runs += 1
                continue
            for pas, bad in (('translate-to-exnref', LEGACY), ('strip-eh', ANY_EH)):
                runs += 1
                r = run([tiltopt, '--all-features', '-d', m, '--' + pas, '-o', out])
                if r.returncode:
                    fails.append('%s --%s: %s' % (m, pas, r.stderr.strip()))
                    continue
                p = run([tiltopt, '--all-features', out, '-S', '-o', '-'])
                if p.returncode:
                    fails.append('%s --%s: output does not read back: %s' % (m, pas, p.stderr.strip()))
                elif bad.search(p.stdout):
                    fails.append('%s --%s: output still has %s' % (m, pas, bad.search(p.stdout).group(0)))
        for f in fails:
            print('FAIL', f)
        if fuzz and unsupported == runs:
            print('SKIP: the interpreter does not run exception handling yet (%d modules: unsupported)' % runs)
            return 77
        print('%d modules with EH, %d runs, %d unsupported, %d failures' % (len(has_eh), runs, unsupported, len(fails)))
        return 1 if fails else 0

if __name__ == '__main__':
    sys.exit(main())
