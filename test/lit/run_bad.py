#!/usr/bin/env python3
"""run_bad.py — runs the bad-input cases in test/lit/bad/*.txt.

A case is a module written as hex byte pairs; ';;' starts a comment. Two
directives live in comments:
  ;; ERROR: 0x19: <a substring of the message>     (required, exactly one)
  ;; FLAGS: --enable-simd ...                       (optional; replaces the
                                                     default --all-features)
The runner writes the bytes to a .wasm in a scratch dir, runs
  TOOL FLAGS FILE.wasm -o /dev/null
and checks the exit status is 1 and stderr contains both
'FILE.wasm:0x19: error:' and the substring.

usage: run_bad.py --tool PATH [--show] CASE.txt...
  --show   print each case's actual stderr (to write or update ERROR lines)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ERROR_RE = re.compile(r'^\s*;;\s*ERROR:\s*(0x[0-9a-f]+):\s*(.+?)\s*$')
FLAGS_RE = re.compile(r'^\s*;;\s*FLAGS:(.*)$')


def parse(path):
    """Returns (bytes, offset, message, flags) or raises ValueError."""
    data, errors, flags = bytearray(), [], ['--all-features']
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        m = ERROR_RE.match(line)
        if m:
            errors.append((m.group(1), m.group(2)))
        m = FLAGS_RE.match(line)
        if m:
            flags = m.group(1).split()
        code = line.split(';;', 1)[0]
        for tok in code.split():
            if not re.fullmatch(r'[0-9a-fA-F]{2}', tok):
                raise ValueError(f'{path}:{n}: not a hex byte: {tok!r}')
            data.append(int(tok, 16))
    if len(errors) != 1:
        raise ValueError(f'{path}: want exactly one ";; ERROR: 0xOFFSET: message" line')
    return bytes(data), errors[0][0], errors[0][1], flags


def run_case(tool, path, tmp, show):
    name = os.path.splitext(os.path.basename(path))[0]
    try:
        data, offset, msg, flags = parse(path)
    except ValueError as e:
        print(f'FAIL {name}: {e}')
        return False
    wasm = os.path.join(tmp, name + '.wasm')
    with open(wasm, 'wb') as f:
        f.write(data)
    p = subprocess.run([tool] + flags + [wasm, '-o', os.devnull],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       errors='replace')
    if show:
        print(f'{name}: status {p.returncode}: {p.stderr.strip()}')
    want = f'{wasm}:{offset}: error:'
    ok = p.returncode == 1 and want in p.stderr and msg in p.stderr
    if not ok:
        print(f'FAIL {name}: want status 1 and "{want}" and "{msg}" on stderr;\n'
              f'     got status {p.returncode}, stderr: {p.stderr.strip()}')
    elif not show:
        print(f'ok   {name}')
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tool', required=True)
    ap.add_argument('--show', action='store_true')
    ap.add_argument('cases', nargs='+')
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = [run_case(a.tool, c, tmp, a.show) for c in a.cases]
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
