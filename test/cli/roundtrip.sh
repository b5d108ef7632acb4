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
finish
