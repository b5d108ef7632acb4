#!/usr/bin/env python3
"""text_roundtrip.py — the binary round trip of spec modules that wabt 1.0.32
cannot convert (its wast2json predates the final relaxed SIMD names): each
top-level text (module ...) of the given .wast files is read by tilt's text
reader and written by tilt's writer (tilt-opt M.wat -o A.wasm); A must pass
`wasm-validate --enable-relaxed-simd`, and reading A back and writing it
again (tilt-opt A.wasm -o B.wasm) must give the same bytes.
Usage: text_roundtrip.py TILT_OPT FILE.wast...   (exit 77 without wasm-validate)
"""
import os, shutil, subprocess, sys, tempfile


def modules(text):
    """The top-level '(module ...)' forms that are text modules (not binary or quote)."""
    out, i, n = [], 0, len(text)
    depth, start = 0, None
    while i < n:
        c = text[i]
        if text.startswith(';;', i):
            i = text.find('\n', i)
            i = n if i < 0 else i
            continue
        if text.startswith('(;', i):
            i = text.find(';)', i) + 2
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == '\\' else 1
        elif c == '(':
            if depth == 0:
                start = i
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                form = text[start:i + 1]
                head = form[1:].split(None, 2)
                if head[0] == 'module' and not (len(head) > 1 and head[1] in ('binary', 'quote')) \
                        and not (len(head) > 2 and head[1].startswith('$') and
                                 head[2].split(None, 1)[0] in ('binary', 'quote')):
                    out.append(form)
        i += 1
    return out


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, (p.stdout + p.stderr).strip()


def main():
    tool, files = sys.argv[1], sys.argv[2:]
    if not shutil.which('wasm-validate'):
        print('SKIP: wasm-validate not found')
        return 77
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        print('SKIP: spec suite file not found: ' + missing[0])
        return 77
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            mods = modules(open(f).read())
            if not mods:
                print('FAIL %s: no text module found' % f)
                failed += 1
            for k, m in enumerate(mods):
                wat, a, b = (os.path.join(tmp, 'm%d.%s' % (k, s)) for s in ('wat', 'a.wasm', 'b.wasm'))
                open(wat, 'w').write(m)
                why = None
                rc, out = run([tool, '--all-features', wat, '-o', a])
                if rc:
                    why = 'tilt-opt on the text: ' + out
                if not why:
                    rc, out = run(['wasm-validate', '--enable-relaxed-simd', a])
                    if rc:
                        why = 'wasm-validate rejects tilt\'s binary: ' + out
                if not why:
                    rc, out = run([tool, '--all-features', a, '-o', b])
                    if rc:
                        why = 'tilt-opt on its own binary: ' + out
                    elif open(a, 'rb').read() != open(b, 'rb').read():
                        why = 'rewriting the binary changed it'
                if why:
                    print('FAIL %s module %d: %s' % (f, k, why.splitlines()[0][:300]))
                    failed += 1
                else:
                    passed += 1
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
