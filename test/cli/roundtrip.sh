#!/usr/bin/env bash
# roundtrip.sh — tilt-opt reads the example and writes a module that
# wasm-validate accepts; writing its own output again changes nothing.
. "$(dirname "$0")/common.inc"
need wasm-validate

check "hello.wasm -o out.wasm" "$TILT_OPT" "$HELLO" -o out.wasm
check "output validates" wasm-validate out.wasm
check "output reads back" "$TILT_OPT" out.wasm -o again.wasm
check "second write is byte-identical" cmp out.wasm again.wasm
check_sh "-g output validates" '"$TILT_OPT" "$HELLO" -g -o g.wasm && wasm-validate g.wasm'
check_sh "--all-features output validates" '"$TILT_OPT" "$HELLO" --all-features -o all.wasm && wasm-validate all.wasm'
check_sh "--no-validation output validates" '"$TILT_OPT" "$HELLO" -n -o nv.wasm && wasm-validate nv.wasm'
check_sh "--output=FILE" '"$TILT_OPT" "$HELLO" --output=eq.wasm && cmp eq.wasm out.wasm'

# Declared locals are grouped by type (one declaration entry per type, as
# Binaryen writes them), uses and local names follow, the program is the same.
# (Encoded by the writer once a pass decoded the body: with no pass, a body
# is copied as read, here as the text reader encoded it.)
printf '(module (func (export "f") (param i32) (result f64) (local $a i32) (local $b f64) (local $c i32) (local $d f64)\n (local.set $a (i32.const 1)) (local.set $c (i32.const 2)) (local.set $b (f64.const 3)) (local.set $d (f64.const 4))\n (f64.add (local.get $d) (f64.add (local.get $b) (f64.convert_i32_s (i32.add (local.get $c) (i32.add (local.get 0) (local.get $a))))))))\n' > group.wat
check_sh "locals interleaved by type are written as two runs" \
  '"$TILT_OPT" group.wat --remove-unused-names -g -o group.wasm && [ "$(wasm-objdump -d group.wasm | grep -c " type=")" = 2 ]'
check_sh "their names follow them" 'wasm-objdump -x group.wasm | grep -q "local\[2\] <c>"'
if [ -n "${TILT_RUN:-}" ]; then
  check_sh "and the function computes the same" '"$TILT_RUN" --invoke f group.wasm 5 | grep -qx "f64:15"'
fi
finish
