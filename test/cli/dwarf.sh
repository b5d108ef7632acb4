#!/usr/bin/env bash
# dwarf.sh — tilt-opt -g and tilt-emscripten-finalize --dwarf keep DWARF
# right (src/wasm-io/dwarf.c) on a module with hand-made DWARF
# (dwarfgen.py): each instruction keeps its line after passes remove code
# and functions, subprograms, ranges and location lists follow their code,
# broken DWARF is an error at its offset, and mutated DWARF never crashes.
. "$(dirname "$0")/common.inc"
need python3
GEN="python3 $TILT_SRC/test/cli/dwarfgen.py"
DW="python3 $TILT_SRC/test/cli/dwarf.py"
$GEN good g.wasm || { fail "dwarfgen.py"; finish; }

# broken DWARF: an error naming the section, at the byte's offset in the file
for v in $($GEN names); do
  want=$($GEN bad $v b-$v.wasm)
  expect_error "broken DWARF ($v): $want" "b-$v.wasm:$want" "$TILT_OPT" -g -O2 b-$v.wasm -o x.wasm
  check "broken DWARF ($v) without -g: DWARF is copied as it is" "$TILT_OPT" b-$v.wasm -o x.wasm
done

# mutated DWARF (bytes of the .debug_* sections changed at random, seeded):
# tilt-opt -g -O2 either writes a module or fails with an error; it never
# crashes, and the sanitizers (in an ASan build) stay quiet
mutate() {
  python3 - "$1" "$2" "$3" <<'PY'
import random, sys
b = bytearray(open(sys.argv[1], "rb").read())
start = b.index(b".debug_line") - 2
r = random.Random(int(sys.argv[3]))
for _ in range(r.choice([1, 1, 2, 3, 8])):
    i = r.randrange(start, len(b))
    b[i] = r.choice([0, 0xff, 0x80, 0x7f, r.randrange(256), b[i] ^ (1 << r.randrange(8))])
open(sys.argv[2], "wb").write(b)
PY
}
# 60 seeds a commit (TILT_DWARF_MUTATIONS) of 1,200
mutation_sweep "mutated DWARF" g.wasm ${TILT_DWARF_MUTATIONS:-60} 20 -g -O2

# the -O pipelines leave out what Binaryen's leave out to keep DWARF
# (invalidatesDWARF); named, such a pass runs, with wasm-opt's warning
check_sh "-g -O2 with DWARF: no coalesce-locals, dae, inlining, duplicate-function-elimination" \
  '"$TILT_OPT" -g -O3 --debug g.wasm -o x.wasm 2> d.txt && grep -q "^\[pass\] vacuum" d.txt &&
   ! grep -Eq "^\[pass\] (coalesce-locals|dae-optimizing|inlining-optimizing|duplicate-function-elimination|local-cse|merge-locals|ssa-nomerge) " d.txt'
check_sh "-O2 without -g: they run" \
  '"$TILT_OPT" -O2 --debug g.wasm -o x.wasm 2> d.txt && grep -q "^\[pass\] coalesce-locals " d.txt && grep -q "^\[pass\] inlining-optimizing " d.txt'
check_sh "-g --inlining with DWARF: it runs, with a warning" \
  '"$TILT_OPT" -g --inlining g.wasm -o x.wasm 2> d.txt && grep -q "warning: running pass .inlining. which is not fully compatible with DWARF" d.txt'

if ! command -v llvm-dwarfdump >/dev/null || ! command -v wasm-objdump >/dev/null; then
  echo "SKIP: the line table checks need llvm-dwarfdump and wasm-objdump"
  finish
fi
check "the input's DWARF fits its code" $DW check g.wasm
# lines of each function's instructions, without the addresses
lines() { $DW lines "$1" | sed 's/^0x[0-9a-f]* //'; }
check "tilt-opt -g: the nops go, dead goes" "$TILT_OPT" -g --vacuum --remove-unused-module-elements g.wasm -o o.wasm
check_sh "tilt-opt -g: every instruction left keeps its line" \
  'diff <(lines g.wasm | grep -v "^dead " | grep -v " nop ") <(lines o.wasm)'
check "tilt-opt -g: rows at instructions, sequences and subprograms span functions" $DW check o.wasm
check_sh "tilt-opt -g: the code moved" '[ "$($DW lines o.wasm | head -1 | cut -d" " -f1)" != "$($DW lines g.wasm | head -1 | cut -d" " -f1)" ] ||
  [ "$($DW lines o.wasm | sed -n 2p | cut -d" " -f1)" != "$($DW lines g.wasm | sed -n 2p | cut -d" " -f1)" ]'
# dead's subprogram is at 0 (its code is gone); the unit's ranges and
# main's variable's location list follow the code
check_sh "tilt-opt -g: the gone function's subprogram is at 0, its range empty" \
  'llvm-dwarfdump --debug-info o.wasm > info.txt &&
   grep -A1 "DW_TAG_subprogram" info.txt | grep -c "DW_AT_low_pc.*(0x00000000)" | grep -qx 1 &&
   [ "$(grep -cE "^ +\[0x[0-9a-f]+, 0x[0-9a-f]+\)\)?$" info.txt)" = 3 ]'
check_sh "tilt-opt -g: the unit's ranges are main's and helper's new extents" \
  '$DW lines o.wasm > l.txt; python3 - <<PY
import re
info = open("info.txt").read()
rng = [tuple(int(x, 16) for x in m) for m in re.findall(r"^ +\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)\)?$", info, re.M)]
import subprocess
fs = subprocess.run(["python3", "$TILT_SRC/test/cli/dwarf.py", "extents", "o.wasm"], capture_output=True, text=True, check=True).stdout.split()
ext = [(int(fs[i + 1], 16), int(fs[i + 2], 16)) for i in range(0, len(fs), 3)]
assert rng[0] == ext[0] and rng[1] == ext[1], (rng, ext)
assert rng[2][0] == rng[2][1], rng
PY'
check_sh "tilt-opt -g: the location list starts at main's const (its first instruction left, as nops went)" \
  'grep -A1 "DW_AT_location" info.txt | grep -oE "\[0x[0-9a-f]+, 0x[0-9a-f]+\)" > loc.txt &&
   [ $(($(cut -d, -f1 loc.txt | tr -d "["))) = $(($($DW lines o.wasm | grep "^0x[0-9a-f]* main i32.const" | cut -d" " -f1))) ]'
check "tilt-opt -g -O2" "$TILT_OPT" -g -O2 g.wasm -o o2.wasm
check "tilt-opt -g -O2: rows at instructions, sequences and subprograms span functions" $DW check o2.wasm
check_sh "tilt-opt without -g: DWARF is copied as it is (stale; wasm-opt strips or updates it only with -g)" \
  '"$TILT_OPT" --vacuum g.wasm -o n.wasm && diff <(llvm-dwarfdump --debug-line g.wasm | grep "^0x") <(llvm-dwarfdump --debug-line n.wasm | grep "^0x")'
if [ -n "${TILT_FINALIZE:-}" ]; then
  check "finalize --dwarf" "$TILT_FINALIZE" --minimize-wasm-changes -g --dyncalls-i64 --dwarf g.wasm -o f.wasm
  check "finalize --dwarf: rows at instructions, sequences and subprograms span functions" $DW check f.wasm
  check_sh "finalize --dwarf: every instruction keeps its line" \
    'diff <(lines g.wasm) <(lines f.wasm | grep -E "^(main|helper|dead) ")'
  check_sh "finalize without --dwarf drops DWARF" \
    '"$TILT_FINALIZE" --minimize-wasm-changes -g g.wasm -o f2.wasm && ! customs f2.wasm | grep -q "^\.debug_"'
fi
finish
