#!/usr/bin/env bash
# ctor_eval.sh — tilt-ctor-eval, Binaryen's wasm-ctor-eval (emcc
# -sEVAL_CTORS): exports run at build time, their memory writes become data
# segments and their global writes initial values; an export that calls an
# import, traps, loops without end or takes params stops the evaluation
# there; of the export it stopped in, the statements before the failing one
# are kept as done (partial evaluation, as Binaryen's). test/cli/emcc.sh builds
# test/emcc/ctors.cpp with it through emcc.
. "$(dirname "$0")/common.inc"
: "${TILT_CTOR_EVAL:?set by test/cli.cmake}"
CE=$TILT_CTOR_EVAL

cat > m.wat <<'W'
(module
  (import "env" "log" (func $log (param i32)))
  (memory (export "memory") 1)
  (global $g (mut i32) (i32.const 1))
  (global $f (mut f64) (f64.const 0))
  (global $k i32 (i32.const 5))
  (data (i32.const 16) "abc")
  (func $init (export "init")
    (i32.store (i32.const 100) (i32.const 0x01020304))
    (i32.store8 (i32.const 5000) (i32.const 7))
    (i32.store8 (i32.const 17) (i32.const 0x5a))
    (global.set $g (i32.add (global.get $g) (i32.const 41)))
    (global.set $f (f64.const 2.5)))
  (func $second (export "second") (result i32)
    (i32.store (i32.const 200) (i32.const 9))
    (i32.add (global.get $k) (i32.const 72)))
  (func $calls (export "calls")
    (i32.store (i32.const 300) (i32.const 1))
    (call $log (i32.const 1))
    (i32.store (i32.const 301) (i32.const 2)))
  (func $calls_first (export "calls_first")
    (call $log (i32.const 1))
    (i32.store (i32.const 302) (i32.const 2)))
  (func (export "get") (result i32) (i32.add (global.get $g) (i32.load (i32.const 100))))
  (func (export "getf") (result f64) (global.get $f)))
W
cat > bad.wat <<'W'
(module
  (memory 1)
  (func $traps (export "traps") (i32.store (i32.const 400) (i32.const 1)) (unreachable))
  (func $spins (export "spins") (loop $l (br $l)))
  (func $param (export "param") (param i32) (i32.store (i32.const 500) (i32.add (local.get 0) (i32.const 3)))))
W
check "the modules" "$TILT_OPT" m.wat -o m.wasm
check "the modules" "$TILT_OPT" bad.wat -o bad.wasm

check_sh "two exports evaluated, one kept" \
  '"$CE" --ctors=init,second --kept-exports=second m.wasm -o a.wasm > a.log && cat a.log &&
   grep -qx "  ...success on init." a.log && grep -qx "  ...success on second." a.log'
"$TILT_OPT" a.wasm -S -o a.wat
check_sh "their memory writes are data" \
  'grep -qF "(offset (i32.const 16)) \"aZc\")" a.wat && grep -qF "(offset (i32.const 100)) \"\\04\\03\\02\\01\")" a.wat &&
   grep -qF "(offset (i32.const 200)) \"\\09\")" a.wat && grep -qF "(offset (i32.const 5000)) \"\\07\")" a.wat'
check_sh "their global writes are initial values" \
  'grep -qF "(global (;0;) (mut i32) (i32.const 42))" a.wat && grep -qF "(global (;1;) (mut f64) (f64.const 0x1.4p+1))" a.wat'
"$TILT_OPT" a.wasm --fuzz-exec -q > fx.log 2>&1
check_sh "the export of init is gone; second returns 77 and writes nothing" \
  '! grep -q "(export \"init\"" a.wat && grep -A1 "^\[export \"second\"\]" fx.log | grep -q "i32:77" &&
   [ $(grep -c "i32.const 200" a.wat) = 1 ]'
check_sh "get and getf read what init left" \
  'grep -A1 "^\[export \"get\"\]" fx.log | grep -q "i32:16909102" && grep -A1 "^\[export \"getf\"\]" fx.log | grep -q "f64:0x4004000000000000"'

check_sh "a ctor calling an import stops the evaluation there, keeping what came before" \
  '"$CE" --ctors=init,calls,second m.wasm -o b.wasm > b.log && grep -qx "  ...success on init." b.log &&
   grep -qx "  ...partial evalling successful, but stopping since could not eval: call import: env.log" b.log &&
   grep -qx "  ...stopping" b.log && ! grep -q "second" b.log'
"$TILT_OPT" b.wasm -S -o b.wat
check_sh "the stopped ctor's statements before the import call are done, later ctors are not run" \
  'grep -qF "(offset (i32.const 300))" b.wat && ! grep -qF "(offset (i32.const 200))" b.wat && grep -q "(export \"second\"" b.wat &&
   ! grep -q "(export \"init\"" b.wat'
check_sh "its export names what is left: the import call and what follows" \
  'sed -n "s/.*(export \"calls\" (func \([0-9]*\))).*/\1/p" b.wat > fi.txt && [ -s fi.txt ] &&
   grep -A3 "^  (func (;$(cat fi.txt);)" b.wat > rest.txt && grep -q "(call 0 (i32.const 1))" rest.txt &&
   grep -q "i32.const 301" rest.txt && ! grep -q "i32.const 300" rest.txt'
"$TILT_OPT" b.wasm --fuzz-exec -q > bfx.log 2>&1
"$TILT_OPT" m.wasm --fuzz-exec -q > mfx.log 2>&1
check_sh "a statement that fails first leaves the ctor whole" \
  '"$CE" --ctors=calls_first m.wasm -o f.wasm > f.log && grep -qx "  ...stopping (in block) since could not eval: call import: env.log" f.log &&
   "$TILT_OPT" f.wasm -S -o - > f.wat && grep -q "(export \"calls_first\"" f.wat && ! grep -qF "(offset (i32.const 302))" f.wat'
check_sh "a trap stops it (after the store before it)" '"$CE" --ctors=traps bad.wasm -o c.wasm | grep -qx "  ...partial evalling successful, but stopping since could not eval: unreachable"'
check_sh "so does an endless loop (fuel)" '"$CE" --ctors=spins bad.wasm -o c.wasm | grep -q "stopping since could not eval: fuel exhausted"'
check_sh "params stop it" '"$CE" --ctors=param bad.wasm -o c.wasm | grep -qx "  ...stopping due to params"'
check_sh "unless --ignore-external-input (zeros)" \
  '"$CE" --ctors=param --ignore-external-input bad.wasm -o c.wasm | grep -q "success on param" &&
   "$TILT_OPT" c.wasm -S | grep -qF "(offset (i32.const 500)) \"\\03\")"'
check_sh "an unknown export stops it" '"$CE" --ctors=nope m.wasm -o c.wasm | grep -q "stopping since could not find the export"'
check_sh "nothing evaluated: the same behaviour" \
  '"$CE" --ctors=nope m.wasm -o d.wasm > /dev/null && "$TILT_OPT" m.wasm --fuzz-exec -q > e1.log 2>&1;
   "$TILT_OPT" d.wasm --fuzz-exec -q > e2.log 2>&1; diff e1.log e2.log'
cat > imp.wat <<'W'
(module (import "env" "memory" (memory 1)) (func (export "init") (i32.store (i32.const 8) (i32.const 1))))
W
check_sh "an imported memory cannot be written back" \
  '"$TILT_OPT" imp.wat -o imp.wasm && "$CE" --ctors=init imp.wasm -o i2.wasm | grep -q "could not create module instance: imports a memory"'
check_sh "--version as wasm-ctor-eval" \
  '[ -z "${TILT_BINARYEN_BIN:-}" ] || "$TILT_BINARYEN_BIN/wasm-ctor-eval" --version | grep -Eq "^wasm-ctor-eval version [0-9]+ \(tilt "'
head -c 12 m.wasm > trunc.wasm
expect_error "a bad input" '^trunc\.wasm:0x[0-9a-f]+: error: ' "$CE" --ctors=init trunc.wasm -o x.wasm

# a module with no memory whose ctor evaluates (it once wrote memory 0's
# size into a memory that is not there)
cat > nomem.wat <<'W'
(module (global $g (mut i32) (i32.const 0))
  (func (export "init") (global.set $g (i32.const 3))) (func (export "get") (result i32) (global.get $g)))
W
check_sh "a module without memory" '"$TILT_OPT" nomem.wat -o nomem.wasm && "$CE" --ctors=init nomem.wasm -o nm.wasm &&
  "$TILT_OPT" nm.wasm --print | grep -q "i32.const 3"'

# -g: DWARF follows the code the evaluation changed (emcc -g -sEVAL_CTORS
# runs wasm-ctor-eval -g): a clang -g build whose ctors stop in part, at
# printf's first import call
DW="python3 $TILT_SRC/test/cli/dwarf.py"
cat > r.c <<'C'
#include <stdio.h>
static int table[64];
static int counter;
__attribute__((constructor)) static void fill(void) {
  for (int i = 0; i < 64; i++) table[i] = i * i + 3;
  counter = 7;
}
__attribute__((constructor(200))) static void greet(void) { printf("ready %d\n", counter); }
__attribute__((export_name("lookup"))) int lookup(int i) { return table[i & 63] + counter; }
C
CC="clang --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor"
if command -v clang >/dev/null && command -v llvm-dwarfdump >/dev/null && command -v wasm-objdump >/dev/null &&
   $CC -O1 -g -c r.c -o r.o 2>/dev/null && $CC r.o -o r.wasm -Wl,--export=__wasm_call_ctors 2>/dev/null; then
  check "-g: the input's DWARF fits its code" $DW check r.wasm
  check_sh "-g: evaluated in part" '"$CE" -g --ctors=__wasm_call_ctors r.wasm -o rg.wasm | grep -q "stopping (in block)"'
  check "-g: the output's DWARF fits its code" $DW check rg.wasm
  check_sh "-g: the code moved" '[ "$($DW extents rg.wasm | md5sum)" != "$($DW extents r.wasm | md5sum)" ]'
else
  echo "skipped the -g checks: no clang for wasm32-wasi, llvm-dwarfdump or wasm-objdump"
fi
finish
