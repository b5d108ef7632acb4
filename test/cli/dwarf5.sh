#!/usr/bin/env bash
# dwarf5.sh — tilt-opt -g keeps DWARF 5 right (src/wasm-io/dwarf.c) on a
# real clang build: test/cli/dwarf5/prog.c at -O2 -gdwarf-5 (its unit is
# DWARF 5: addrx, rnglistx, loclistx, .debug_addr/rnglists/loclists;
# wasi-libc's units are DWARF 4), linked keeping unused functions so that
# removing them moves the code after them. Every address of the DWARF 5
# unit (low_pc, high_pc, range and location list entries) must follow its
# code, the line table too, llvm-dwarfdump --verify must accept the output,
# broken DWARF 5 must be an error at its offset, mutated DWARF 5 never a
# crash.
. "$(dirname "$0")/common.inc"
need python3
need clang
need llvm-dwarfdump
need wasm-objdump
DW="python3 $TILT_SRC/test/cli/dwarf.py"
CC="clang --target=wasm32-wasi --sysroot=/usr"
if ! $CC -O2 -gdwarf-5 -c "$TILT_SRC/test/cli/dwarf5/prog.c" -o p.o 2>cc.err ||
   ! $CC p.o -o p.wasm -Wl,--no-gc-sections 2>>cc.err; then
  echo "SKIP: clang cannot build for wasm32-wasi here: $(head -c 300 cc.err)"; exit 77
fi
check_sh "the input has a DWARF 5 unit and DWARF 4 ones" \
  'llvm-dwarfdump --debug-info p.wasm > in.txt && grep -q "version = 0x0005" in.txt && grep -q "version = 0x0004" in.txt &&
   customs p.wasm | grep -qx .debug_addr && customs p.wasm | grep -qx .debug_rnglists && customs p.wasm | grep -qx .debug_loclists'
check "the input's DWARF fits its code" $DW check p.wasm

# the DWARF 5 unit's addresses by DIE: "DIE: a b c ..." (low_pc, high_pc,
# list entries in order; "-" for a dead or empty one)
cat > addrs.py <<'PY'
import re, sys
out, die, in5 = {}, None, False
for line in open(sys.argv[1]):
    m = re.match(r"^0x[0-9a-f]+: Compile Unit: .*version = 0x000(\d)", line)
    if m:
        in5 = m.group(1) == "5"
        continue
    if not in5:
        continue
    m = re.match(r"^(0x[0-9a-f]+):\s+DW_TAG", line)
    if m:
        die = m.group(1)
        continue
    m = re.search(r"DW_AT_(low_pc|high_pc)\s+\((0x[0-9a-f]+|dead code)\)", line)
    if m and die:
        out.setdefault(die, []).append(("pc", m.group(2)))
    m = re.match(r"^\s+\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)", line)
    if m and die:
        out.setdefault(die, []).append(("range", m.group(1), m.group(2)))
for d, v in out.items():
    print(d, v)
PY
# compare.py IN.txt OUT.txt IN.wasm OUT.wasm DWARF.PY...: each address of
# IN's DWARF 5 unit in a function OUT still has follows its code: a
# function's start and end to its new start and end, the k-th instruction's
# address to the new k-th instruction's (the writer re-encodes wasm-ld's
# padded LEBs, so code moves within functions too); an `end` or `else` is
# no node of the IR, so an address there maps to the next instruction's
cat > compare.py <<'PY'
import ast, subprocess, sys
def addrs(f):
    r = {}
    for line in subprocess.run(["python3", "addrs.py", f], capture_output=True, text=True, check=True).stdout.splitlines():
        d, v = line.split(" ", 1)
        r[d] = ast.literal_eval(v)
    return r
def dw(mode, w):
    return subprocess.run(sys.argv[5:] + [mode, w], capture_output=True, text=True, check=True).stdout
def extents(w):
    fs = dw("extents", w).split()
    return {fs[i]: (int(fs[i + 1], 16), int(fs[i + 2], 16)) for i in range(0, len(fs), 3)}
def insts(w):
    r, t = {}, {}
    for line in dw("lines", w).splitlines():
        a, name, op = line.split()[:3]
        r.setdefault(name, []).append(int(a, 16))
        t.setdefault(name, []).append(op)
    return r, t
a, b = addrs(sys.argv[1]), addrs(sys.argv[2])
ea, eb = extents(sys.argv[3]), extents(sys.argv[4])
(ia, ta), (ib, _) = insts(sys.argv[3]), insts(sys.argv[4])
def moved(x):
    for name, (s, e) in ea.items():
        if s <= x <= e and name in eb:
            if x == s or x == e:
                return eb[name][0] if x == s else eb[name][1]
            assert len(ia[name]) == len(ib[name]), name
            k = ia[name].index(x)
            while ta[name][k] in ("end", "else") and k + 1 < len(ia[name]):
                k += 1
            return ib[name][k] if ta[name][k] not in ("end", "else") else eb[name][1]
    return None
checked = 0
assert a.keys() == b.keys(), "the DIEs with addresses differ"
for die in a:
    for va, vb in zip(a[die], b[die]):
        vals = [int(x, 16) for x in va[1:] if x != "dead code"]
        if len(vals) != len(va) - 1 or any(x >= 0xffffffff or x == 0 for x in vals):
            continue
        want = [moved(x) for x in vals]
        if None in want:
            continue
        got = [int(x, 16) for x in vb[1:]]
        assert got == want, (die, va, vb, want)
        checked += 1
assert checked >= 20, checked
print(checked, "addresses followed their code")
PY
check "tilt-opt -g --remove-unused-module-elements" "$TILT_OPT" -g --remove-unused-module-elements p.wasm -o r.wasm
check_sh "the unused functions went, so the code moved" \
  '[ "$($DW extents r.wasm | grep -c .)" -lt "$($DW extents p.wasm | grep -c .)" ] &&
   [ "$($DW extents r.wasm | grep -w main | cut -d" " -f2)" != "$($DW extents p.wasm | grep -w main | cut -d" " -f2)" ]'
check_sh "DWARF 5 addresses, ranges and location lists follow their code" \
  'llvm-dwarfdump --debug-info r.wasm > out.txt && python3 compare.py in.txt out.txt p.wasm r.wasm $DW'
check_sh "llvm-dwarfdump --verify accepts the output" 'llvm-dwarfdump --verify r.wasm | grep -q "^No errors"'
# (end and else are no nodes: they get no row of their own)
lines() { $DW lines "$1" | sed 's/^0x[0-9a-f]* //' | grep "^main " | grep -Ev "^main (end|else) "; }
check_sh "every instruction of main keeps its line" '[ "$(lines p.wasm | wc -l)" -gt 50 ] && diff <(lines p.wasm) <(lines r.wasm)'
check "tilt-opt -g -O2" "$TILT_OPT" -g -O2 p.wasm -o o2.wasm
check "tilt-opt -g -O2: rows at instructions, sequences and subprograms span functions" $DW check o2.wasm
check_sh "tilt-opt -g -O2: the DWARF 5 unit's list entries are ordered ranges inside main" \
  'llvm-dwarfdump --debug-info o2.wasm > o2.txt && python3 addrs.py o2.txt > o2a.txt && python3 - <<PY
import ast, subprocess
fs = subprocess.run("$DW extents o2.wasm".split(), capture_output=True, text=True, check=True).stdout.split()
ext = {fs[i]: (int(fs[i + 1], 16), int(fs[i + 2], 16)) for i in range(0, len(fs), 3)}
s, e = ext["main"]
n = 0
for line in open("o2a.txt"):
    for v in ast.literal_eval(line.split(" ", 1)[1]):
        if v[0] == "range" and int(v[1], 16) < 0xffffffff and int(v[1], 16) != int(v[2], 16):
            a, b = int(v[1], 16), int(v[2], 16)
            assert s <= a < b <= e, (line, ext["main"])
            n += 1
assert n >= 5, n
PY'
# reorder-locals renumbers locals: every DW_OP_WASM_location of a local in
# a DIE of main or helper (their subprograms, variables and location lists)
# names the local's new index; the permutation is read off the code
check "tilt-opt -g --reorder-locals" "$TILT_OPT" -g --reorder-locals p.wasm -o ro.wasm
cat > locals.py <<'PY'
import re, subprocess, sys
dw = sys.argv[3:]
def perm(a, b):
    def rows(w):
        ls = subprocess.run(dw + ["lines", w], capture_output=True, text=True, check=True).stdout.splitlines()
        return [l.split() for l in ls if l.split()[1] in ("main", "helper")]
    la, lb = rows(a), rows(b)
    assert len(la) == len(lb) > 50, (len(la), len(lb))
    p = {}
    for x, y in zip(la, lb):
        assert x[1] == y[1] and x[2] == y[2], (x, y)
        if x[2] in ("local.get", "local.set", "local.tee"):
            assert p.setdefault((x[1], int(x[3])), int(y[3])) == int(y[3]), (x, y)
    return p
def locs(w):
    txt = subprocess.run(["llvm-dwarfdump", "--debug-info", w], capture_output=True, text=True, check=True).stdout
    out, fn, in5 = [], None, False
    for block in re.split(r"\n(?=0x[0-9a-f]+:)", txt):
        m = re.match(r"0x[0-9a-f]+: Compile Unit: .*version = 0x000(\d)", block)
        if m:
            in5 = m.group(1) == "5"
            continue
        if not in5:
            continue
        if "DW_TAG_subprogram" in block:
            n = re.search(r'DW_AT_(?:name|abstract_origin)\s+\((?:0x[0-9a-f]+ )?"([^"]+)"\)', block)
            fn = n.group(1) if n and "DW_AT_low_pc" in block and "dead code" not in block else None
        for lst in re.findall(r"DW_AT_(?:location|frame_base)\s+\((.*?)\)\n(?=\s+DW_AT|\s*$)", block + "\n", re.S):
            out.append((fn, lst))
    return out
p = perm(sys.argv[1], sys.argv[2])
assert any(k[1] != v for k, v in p.items()), "reorder-locals moved no local"
a, b = locs(sys.argv[1]), locs(sys.argv[2])
assert len(a) == len(b)
checked = 0
for (fn, ea), (_, eb) in zip(a, b):
    if fn not in ("main", "helper"):
        continue
    ia = re.findall(r"DW_OP_WASM_location 0x0 (0x[0-9a-f]+)", ea)
    ib = re.findall(r"DW_OP_WASM_location 0x0 (0x[0-9a-f]+)", eb)
    if (fn, 0) not in p:
        continue
    for x, y in zip(ia, ib):
        want = p.get((fn, int(x, 16)))
        if want is None:     # a local the code never names: dropped, no location
            continue
        assert int(y, 16) == want, (fn, ea, eb, x, y, want)
        checked += 1
    assert len(ia) == len(ib) or not ib, (fn, ea, eb)
assert checked >= 10, checked
print(checked, "local indices renumbered")
PY
check "-g --reorder-locals: DWARF's local indices follow the locals" python3 locals.py p.wasm ro.wasm $DW
if [ -n "${TILT_RUN:-}" ]; then
  check_sh "the -O2 build prints what the input prints" '[ "$("$TILT_RUN" o2.wasm)" = "$("$TILT_RUN" p.wasm)" ]'
fi

# broken DWARF 5: an unknown unit type, at its byte
check_sh "broken DWARF 5 (unit type 9): an error at the byte" 'python3 - <<PY
import re, subprocess
b = bytearray(open("p.wasm", "rb").read())
info = b.index(b".debug_info") + len(".debug_info")
txt = open("in.txt").read()
unit = int(re.search(r"^(0x[0-9a-f]+): Compile Unit: .*version = 0x0005", txt, re.M).group(1), 16)
b[info + unit + 6] = 9
open("bad.wasm", "wb").write(b)
r = subprocess.run(["$TILT_OPT", "-g", "-O2", "bad.wasm", "-o", "x.wasm"], capture_output=True, text=True)
want = "bad.wasm:0x%x: error: .debug_info: unknown unit type" % (info + unit + 6)
assert r.returncode == 1 and want in r.stderr, (r.returncode, r.stderr, want)
PY'

# mutated DWARF 5 sections: written or an error, never a crash
mutate() {
  python3 - "$1" "$2" "$3" <<'PY'
import random, sys
b = bytearray(open(sys.argv[1], "rb").read())
spans = []
for name in (b".debug_addr", b".debug_rnglists", b".debug_loclists", b".debug_info"):
    i = b.index(name) + len(name)
    spans.append((i, min(len(b), i + 600)))
r = random.Random(int(sys.argv[3]))
for _ in range(r.choice([1, 1, 2, 3, 8])):
    s, e = r.choice(spans)
    i = r.randrange(s, e)
    b[i] = r.choice([0, 0xff, 0x80, 0x7f, r.randrange(256), b[i] ^ (1 << r.randrange(8))])
open(sys.argv[2], "wb").write(b)
PY
}
# (30 seeds a commit of 600)
mutation_sweep "mutated DWARF 5" p.wasm ${TILT_DWARF_MUTATIONS:-30} 20 -g --vacuum
finish
