#!/usr/bin/env bash
# errors.sh — bad input and bad flags: exit status 1 and an error line;
# input errors are FILE:0xOFFSET: error: MESSAGE.
. "$(dirname "$0")/common.inc"

head -c 20 "$HELLO" > trunc.wasm
expect_error "truncated file" '^trunc\.wasm:0x[0-9a-f]+: error: .' "$TILT_OPT" trunc.wasm -o out.wasm
head -c 1048576 /dev/zero > zeros.wasm
expect_error "1 MB of zeroes" '^zeros\.wasm:0x0: error: .' "$TILT_OPT" zeros.wasm -o out.wasm
: > empty.wasm
expect_error "empty file" '^empty\.wasm:0x0: error: .' "$TILT_OPT" empty.wasm -o out.wasm
expect_error "missing file" '^missing\.wasm: error: .' "$TILT_OPT" missing.wasm -o out.wasm
expect_error "unknown flag" "^tilt-opt: error: unknown option '--foo'$" "$TILT_OPT" --foo "$HELLO"
expect_error "unknown pass" "unknown option '--no-such-pass'" "$TILT_OPT" --no-such-pass "$HELLO"
expect_error "unknown -O level" "unknown option '-O9'" "$TILT_OPT" -O9 "$HELLO"
expect_error "unknown feature" "unknown or unsupported feature in option '--enable-strings'" \
  "$TILT_OPT" --enable-strings "$HELLO"
expect_error "-o without a file" "option '-o' needs an argument" "$TILT_OPT" "$HELLO" -o
expect_error "no input" "no input file" "$TILT_OPT"
expect_error "two inputs" "more than one input file" "$TILT_OPT" "$HELLO" "$HELLO"
expect_error "unwritable output" '^nodir/out\.wasm: error: cannot write' "$TILT_OPT" "$HELLO" -o nodir/out.wasm
check "no output written on error" test ! -e out.wasm
# passes that refuse a module say why and change nothing
cat > casts.wat <<'W'
(module (table 1 funcref) (elem (i32.const 0) func $f) (func $f (param i32 i32)))
W
expect_error "fpcast-emu over max-func-params" 'fpcast-emu: function 0 in a table has more params than max-func-params' \
  "$TILT_OPT" casts.wat --fpcast-emu --pass-arg=max-func-params@1 -o out.wasm
expect_error "fpcast-emu with a bad max-func-params" 'max-func-params@x is not a count' \
  "$TILT_OPT" casts.wat --fpcast-emu --pass-arg=max-func-params@x -o out.wasm
cat > sbrk.wat <<'W'
(module (import "env" "emscripten_get_sbrk_ptr" (func (param i32) (result f32))) (memory 1)
  (func (param i32) (result i32) (i32.load (local.get 0))))
W
expect_error "safe-heap with an odd sbrk function" 'safe-heap: function 0 \(emscripten_get_sbrk_ptr\) has another type' \
  "$TILT_OPT" sbrk.wat --safe-heap -o out.wasm
cat > big64.wat <<'W'
(module (memory i64 65537))
W
expect_error "memory64-lowering of a memory over 4 GiB" 'memory64-lowering: memory 0 has more than 65536 pages' \
  "$TILT_OPT" --enable-memory64 big64.wat --memory64-lowering -o out.wasm
cat > async.wat <<'W'
(module (import "env" "sleep" (func $sleep (param i32))) (memory 1)
  (tag $e)
  (func $eh (export "eh") (try (do (call $sleep (i32.const 1))) (catch $e)))
  (func $tail (export "tail") (return_call $eh))
  (func $ref (export "ref") (local externref) (call $sleep (i32.const 2))))
W
expect_error "asyncify of a function with exception handling" \
  'asyncify: function 1 \(eh\) would be instrumented but has exception handling' \
  "$TILT_OPT" -all async.wat --asyncify --pass-arg=asyncify-onlylist@eh -o out.wasm
cat > asyncgc.wat <<'W'
(module (import "env" "sleep" (func $sleep (param i32))) (memory 1)
  (type $s (struct (field i32)))
  (func $gc (export "gc") (call $sleep (struct.get $s 0 (struct.new $s (i32.const 1))))))
W
expect_error "asyncify of a function with GC instructions" \
  'asyncify: function 1 \(gc\) would be instrumented but uses GC types or instructions' \
  "$TILT_OPT" -all asyncgc.wat --asyncify -o out.wasm
expect_error "asyncify of a function making a tail call" 'asyncify: function 2 \(tail\) would be instrumented but makes a tail call' \
  "$TILT_OPT" -all async.wat --asyncify --pass-arg=asyncify-onlylist@tail -o out.wasm
expect_error "asyncify of a function with a reference local" 'asyncify: function 3 \(ref\) would be instrumented but has a local of reference type' \
  "$TILT_OPT" -all async.wat --asyncify --pass-arg=asyncify-onlylist@ref -o out.wasm
expect_error "asyncify with an only-list and an add-list" 'asyncify: an only-list cannot be used together with an add- or remove-list' \
  "$TILT_OPT" -all async.wat --asyncify --pass-arg=asyncify-onlylist@ref --pass-arg=asyncify-addlist@eh -o out.wasm
expect_error "asyncify with a missing list file" "asyncify: cannot read asyncify-imports's list file 'no-such-file'" \
  "$TILT_OPT" -all async.wat --asyncify --pass-arg=asyncify-imports@@no-such-file -o out.wasm
"$TILT_OPT" -all async.wat --asyncify --pass-arg=asyncify-onlylist@nothing -o once.wasm
expect_error "asyncify run twice" 'asyncify: the module exports asyncify_start_unwind already' \
  "$TILT_OPT" -all once.wasm --asyncify -o out.wasm
check "no output written on a refusal" test ! -e out.wasm
finish
