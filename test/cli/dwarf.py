#!/usr/bin/env python3
"""dwarf.py — reads a module's DWARF line table and subprograms (through
llvm-dwarfdump) and its code (through wasm-objdump -d) for the cli tests.
Addresses are DWARF's: offsets in the code section's payload.

  dwarf.py at WASM OFFSET   prints FILE:LINE the line table gives the
                            instruction at file offset OFFSET (a trap's
                            wasm-function[N]:0xOFFSET in node)
  dwarf.py check WASM       the DWARF fits the code: every row sits at an
                            instruction or a function's local declarations,
                            every sequence spans one function exactly, every
                            subprogram with code spans a function exactly;
                            prints the counts
  dwarf.py lines WASM       each instruction: ADDRESS FUNCTION TEXT FILE:LINE
  dwarf.py extents WASM     each function: NAME START END
  dwarf.py same W1 W2       W2's line table gives the same FILE:LINE as W1's
                            for the instructions of the functions whose
                            code is (nearly) the same in both, and for the
                            call sites (callee by callee) of the others
  dwarf.py same3 IN B T     T's call sites map to B's lines, but where B's
                            differ from IN's (the module both were made
                            from) T's must be IN's
"""
import bisect
import difflib
import re
import subprocess
import sys


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def code_start(wasm):
    b = open(wasm, "rb").read()

    def leb(i):
        v = s = 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7f) << s
            s += 7
            if c < 0x80:
                return v, i
    i = 8
    while i < len(b):
        size, j = leb(i + 1)
        if b[i] == 10:
            return j
        i = j + size
    sys.exit("%s: no code section" % wasm)


def functions(wasm):
    """name -> (start, end, [(address, instruction text)]); start is the
    local declarations, end one past the final end. A name several
    functions have (C++ constructor and destructor variants) is NAME@K
    for the K-th of them after the first"""
    base = code_start(wasm)
    funcs, cur, seen = {}, None, {}
    for line in run("wasm-objdump", "-d", wasm).splitlines():
        m = re.match(r"([0-9a-f]+) func\[(\d+)\](?: <(.*)>)?:", line)
        if m:
            name = m.group(3) or "func%s" % m.group(2)
            k = seen[name] = seen.get(name, -1) + 1
            cur = funcs[name + ("@%d" % k if k else "")] = [int(m.group(1), 16) - base, 0, []]
            continue
        m = re.match(r"\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*\|\s*(.*)", line)
        if m and cur is not None:
            addr = int(m.group(1), 16) - base
            text = m.group(3).strip()
            cur[1] = addr + len(m.group(2).split())
            if not text.startswith("local["):   # indices that name something may differ
                cur[2].append((addr, re.sub(r"\b\d+ (<[^>]*>)", r"\1", text)))
    return {k: tuple(v) for k, v in funcs.items()}


def line_table(wasm):
    """sequences: [(start, end, [(address, file, line)])], sorted"""
    seqs, rows, files, prog_files, name = [], [], {}, {}, None
    for line in run("llvm-dwarfdump", "--debug-line", wasm).splitlines():
        if line.startswith("debug_line["):
            files = {}
            continue
        m = re.match(r"file_names\[\s*(\d+)\]:", line)
        if m:
            name = int(m.group(1))
            continue
        m = re.match(r'\s+name: "(.*)"', line)
        if m and name is not None:
            files[name] = m.group(1).split("/")[-1]
            name = None
            continue
        m = re.match(r"0x([0-9a-f]{16})\s+(\d+)\s+(\d+)\s+(\d+)\s.*?(end_sequence)?\s*$", line)
        if not m:
            continue
        addr, ln, f = int(m.group(1), 16), int(m.group(2)), int(m.group(4))
        if m.group(5):
            if rows:
                seqs.append((rows[0][0], addr, rows))
            rows = []
        else:
            rows.append((addr, files.get(f, "?"), ln))
    seqs.sort(key=lambda s: s[0])
    return seqs


class Lines:
    """a module's line table, looked up as a debugger would: in the
    sequence that spans the function an address is in exactly (the linker
    keeps one copy of a C++ inline function; each unit that had one has a
    sequence at its address, of its own copy's length), else in the last
    sequence starting at or before it"""

    def __init__(self, wasm, funcs=None):
        self.seqs = line_table(wasm)
        self.starts = [s[0] for s in self.seqs]
        exact = {(s[0], s[1]): s for s in self.seqs}
        ext = sorted((f[0], f[1]) for f in (funcs or functions(wasm)).values())
        self.ext_starts = [e[0] for e in ext]
        self.ext = [(e, exact.get(e)) for e in ext]

    def seq(self, addr):
        i = bisect.bisect_right(self.ext_starts, addr) - 1
        if i >= 0 and addr < self.ext[i][0][1] and self.ext[i][1]:
            return self.ext[i][1]
        i = bisect.bisect_right(self.starts, addr) - 1
        return self.seqs[i] if i >= 0 and addr < self.seqs[i][1] else None

    def at(self, addr):
        s = self.seq(addr)
        if not s:
            return "?"
        rows = s[2]
        j = bisect.bisect_right([r[0] for r in rows], addr) - 1
        return "%s:%d" % (rows[j][1], rows[j][2]) if j >= 0 else "?"


def subprograms(wasm):
    """(name, low_pc, high_pc) of each subprogram with code"""
    out, cur = [], None
    for line in run("llvm-dwarfdump", "--debug-info", "--show-form", wasm).splitlines():
        if re.search(r"DW_TAG_", line):
            if cur and "low" in cur and "high" in cur and "name" in cur:
                out.append(cur)
            cur = {} if "DW_TAG_subprogram" in line else None
            continue
        if cur is None:
            continue
        m = re.search(r"DW_AT_(low_pc|high_pc|name)\s+\[DW_FORM_(\w+)\]\s+\((.*)\)", line)
        if m:
            at, form, v = m.groups()
            if at == "name":
                cur["name"] = v.strip('"')
            elif re.match(r"0x[0-9a-f]+$", v):
                cur[at.split("_")[0]] = (form, int(v, 16))
    if cur and "low" in cur and "high" in cur and "name" in cur:
        out.append(cur)
    res = []
    for c in out:
        low = c["low"][1]
        high = c["high"][1] if c["high"][0] == "addr" else low + c["high"][1]
        res.append((c["name"], low, high))
    return res


def check(wasm):
    funcs = functions(wasm)
    starts = {f[0]: f for f in funcs.values()}
    insns = {a for f in funcs.values() for a, _ in f[2]} | set(starts)
    seqs, bad, nrows = line_table(wasm), [], 0
    for s, e, rows in seqs:
        f = starts.get(s)
        if not f or f[1] != e:
            bad.append("sequence [%#x, %#x) is no function" % (s, e))
        for a, fl, ln in rows:
            nrows += 1
            if a not in insns:
                bad.append("row at %#x (%s:%d) is at no instruction" % (a, fl, ln))
    nsub = 0
    extents = {(f[0], f[1]) for f in funcs.values()}
    for name, low, high in subprograms(wasm):
        if low == 0:   # its code is gone (or was never linked in)
            continue
        nsub += 1
        if (low, high) not in extents:
            bad.append("subprogram %s is [%#x, %#x), no function's extent" % (name, low, high))
    if bad:
        sys.exit("\n".join(bad[:40]))
    if not seqs or not nsub:
        sys.exit("no sequences or no subprograms to check")
    print("%d sequences, %d rows, %d subprograms fit the code" % (len(seqs), nrows, nsub))


def calls(f):
    return [x for x in f if x[1].startswith("call ")]


def pairs(f1, f2, only_calls=False):
    """(function, x, y, kind): instructions of W1 and W2 that stand for
    the same code. In a function whose code is nearly the same in both
    (the writer may add an unreachable, pick another encoding), the runs
    of 4 or more instructions that are the same (but end and else); else
    its call sites, if it calls the same functions in the same order"""
    for name in sorted(set(f1) & set(f2)):
        a, b = f1[name][2], f2[name][2]
        ta, tb = [x[1] for x in a], [x[1] for x in b]
        sm = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
        if not only_calls and (ta == tb or sm.ratio() >= 0.9):
            for i, j, n in sm.get_matching_blocks():
                for k in range(n if n >= 4 or ta == tb else 0):
                    if ta[i + k] not in ("end", "else"):
                        yield name, a[i + k], b[j + k], "insn"
            continue
        ca, cb = calls(a), calls(b)
        if [x[1] for x in ca] == [x[1] for x in cb]:
            for x, y in zip(ca, cb):
                yield name, x, y, "call"


def same(w1, w2):
    f1, f2 = functions(w1), functions(w2)
    t1, t2 = Lines(w1, f1), Lines(w2, f2)
    n = {"insn": 0, "call": 0}
    bad = []
    for name, x, y, kind in pairs(f1, f2):
        n[kind] += 1
        la, lb = t1.at(x[0]), t2.at(y[0])
        if la != lb:
            bad.append("%s: %s at %#x: %s, then %#x: %s" % (name, x[1], x[0], la, y[0], lb))
    if bad:
        sys.exit("%d differ:\n" % len(bad) + "\n".join(bad[:40]))
    if not n["insn"] and not n["call"]:
        sys.exit("nothing to compare")
    print("%d instructions of same functions and %d call sites map to the same lines" % (n["insn"], n["call"]))


def same3(win, wb, wt):
    """the call sites of wt map to the lines of wb's, but where wb's
    differ from win's (the module both were made from) and wt's are
    win's"""
    fi, fb, ft = functions(win), functions(wb), functions(wt)
    ti, tb, tt = Lines(win, fi), Lines(wb, fb), Lines(wt, ft)
    truth = {y[0]: ti.at(x[0]) for _, x, y, _ in pairs(fi, ft, True)}
    agree = fixed = 0
    bad = []
    for name, x, y, _ in pairs(fb, ft, True):
        lb, lt = tb.at(x[0]), tt.at(y[0])
        if lb == lt:
            agree += 1
        elif truth.get(y[0]) == lt:
            fixed += 1
        else:
            bad.append("%s: %s: Binaryen %#x %s, tilt %#x %s, input %s" %
                       (name, y[1], x[0], lb, y[0], lt, truth.get(y[0], "(not matched)")))
    if bad:
        sys.exit("%d differ:\n" % len(bad) + "\n".join(bad[:40]))
    if not agree:
        sys.exit("nothing to compare")
    print("%d call sites map to Binaryen's lines; %d to the input's where Binaryen's differ" % (agree, fixed))


def main():
    cmd = sys.argv[1]
    if cmd == "at":
        wasm = sys.argv[2]
        print(Lines(wasm).at(int(sys.argv[3], 0) - code_start(wasm)))
    elif cmd == "check":
        check(sys.argv[2])
    elif cmd == "same":
        same(sys.argv[2], sys.argv[3])
    elif cmd == "lines":
        wasm = sys.argv[2]
        funcs = functions(wasm)
        t = Lines(wasm, funcs)
        for name, (start, end, ins) in sorted(funcs.items(), key=lambda f: f[1][0]):
            for a, text in ins:
                print("%#x %s %s %s" % (a, name, text, t.at(a)))
    elif cmd == "extents":
        for name, (start, end, _) in sorted(functions(sys.argv[2]).items(), key=lambda f: f[1][0]):
            print("%s %#x %#x" % (name, start, end))
    elif cmd == "same3":
        same3(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


main()
