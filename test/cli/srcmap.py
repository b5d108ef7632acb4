#!/usr/bin/env python3
"""srcmap.py — reads a wasm source map (version 3, one generated line whose
columns are byte offsets in the module) for the cli tests.

  srcmap.py at MAP OFFSET      prints FILE:LINE of the last mapping at or
                               before OFFSET (as a debugger resolves it)
  srcmap.py check WASM MAP     every mapping must sit at the start of an
                               instruction of WASM or of a function's
                               locals (by wasm-objdump -d);
                               prints the number of mappings and of lines
  srcmap.py same W1 M1 W2 M2   W2 has W1's instructions: each must map to
                               the same FILE:LINE in M2 as in M1 (but end
                               and else, which have no node of their own,
                               and unreachable, which the writer adds and
                               drops after code that never falls through)
  srcmap.py lines MAP          prints the FILE:LINE set, one a line
  srcmap.py make WASM          prints a map for WASM: each instruction at a
                               line of its own (its number in the module),
                               functions' locals at line 1000 + index, in
                               two sources a.c and b.c (odd functions)
"""
import json
import re
import subprocess
import sys

B64 = {c: i for i, c in enumerate(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def vlqs(seg):
    out, v, shift = [], 0, 0
    for c in seg:
        d = B64[c]
        v |= (d & 31) << shift
        shift += 5
        if not d & 32:
            out.append(-(v >> 1) if v & 1 else v >> 1)
            v, shift = 0, 0
    if shift:
        raise ValueError("truncated VLQ in %r" % seg)
    return out


def read(path):
    m = json.load(open(path))
    if m.get("version") != 3:
        raise ValueError("%s: version is not 3" % path)
    if ";" in m["mappings"]:
        raise ValueError("%s: more than one generated line" % path)
    entries, off, src, line, col = [], 0, 0, 1, 0
    for seg in filter(None, m["mappings"].split(",")):
        f = vlqs(seg)
        off += f[0]
        if len(f) >= 4:
            src, line, col = src + f[1], line + f[2], col + f[3]
            entries.append((off, m["sources"][src], line))
        else:
            entries.append((off, None, None))
    for a, b in zip(entries, entries[1:]):
        if b[0] < a[0]:
            raise ValueError("%s: offsets go back (%d after %d)" % (path, b[0], a[0]))
    return entries


def at(entries, offset):
    best = None
    for e in entries:
        if e[0] > offset:
            break
        best = e
    if not best or best[1] is None:
        return "?"
    return "%s:%d" % (best[1].split("/")[-1], best[2])


def disassembly(wasm):
    """(offset, function index or mnemonic) in order: each function at its
    local declarations, then its instructions."""
    dis = subprocess.run(["wasm-objdump", "-d", wasm], check=True,
                         capture_output=True, text=True).stdout
    out = []
    for line in dis.splitlines():
        m = re.match(r"([0-9a-f]+) func\[(\d+)\]", line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2))))
        m = re.match(r"\s*([0-9a-f]+):\s+[0-9a-f]{2}[ 0-9a-f]*\|\s*(?!local\[)(\S+)", line)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def put_vlq(v):
    u = (-v << 1) | 1 if v < 0 else v << 1
    digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    s = ""
    while True:
        d, u = u & 31, u >> 5
        s += digits[d | (32 if u else 0)]
        if not u:
            return s


def make(wasm):
    segs, last, func, n = [], (0, 0, 1, 0), 0, 0
    for off, fi in disassembly(wasm):
        if isinstance(fi, int):
            func, line = fi, 1000 + fi
        else:
            n += 1
            line = n
        cur = (off, func % 2, line, 0)
        segs.append("".join(put_vlq(c - p) for c, p in zip(cur, last)))
        last = cur
    return json.dumps({"version": 3, "sources": ["a.c", "b.c"], "names": [],
                       "mappings": ",".join(segs)})


def instruction_starts(wasm):
    """instructions, and functions' local declarations (where LLVM maps
    the function's own line, Binaryen's prolog location)"""
    return {off for off, _ in disassembly(wasm)}


def main():
    cmd = sys.argv[1]
    if cmd == "at":
        print(at(read(sys.argv[2]), int(sys.argv[3], 0)))
    elif cmd == "same":
        a, b = disassembly(sys.argv[2]), disassembly(sys.argv[4])
        if [x[1] for x in a] != [x[1] for x in b]:
            sys.exit("the two modules have different code")
        ma, mb = read(sys.argv[3]), read(sys.argv[5])
        bad = ["%#x %s: %s, then %s" % (x[0], x[1], at(ma, x[0]), at(mb, y[0]))
               for x, y in zip(a, b) if x[1] not in ("end", "else", "unreachable") and
               at(ma, x[0]) != at(mb, y[0])]
        if bad:
            sys.exit("\n".join(bad))
        print("%d instructions map as before" % len(a))
    elif cmd == "make":
        print(make(sys.argv[2]))
    elif cmd == "lines":
        for fl in sorted({"%s:%d" % (e[1], e[2]) for e in read(sys.argv[2]) if e[1]}):
            print(fl)
    elif cmd == "check":
        entries, starts = read(sys.argv[3]), instruction_starts(sys.argv[2])
        bad = [e[0] for e in entries if e[0] not in starts]
        if bad:
            sys.exit("%d of %d mappings are not at an instruction start: %s" %
                     (len(bad), len(entries), ", ".join(hex(b) for b in bad[:10])))
        print("%d mappings, %d lines" % (len(entries), len({e[1:] for e in entries if e[1]})))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
