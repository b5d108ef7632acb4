#!/usr/bin/env bash
# text.sh — -S and --print write text that wat2wasm assembles into a module
# that validates; -S with -o writes the text to the file.
. "$(dirname "$0")/common.inc"
need wat2wasm
need wasm-validate

check_sh "-S prints to stdout" '"$TILT_OPT" "$HELLO" -S > s.wat && test -s s.wat'
check "wat2wasm assembles the -S output" wat2wasm s.wat -o s.wasm
check "the reassembled module validates" wasm-validate s.wasm
check_sh "--print prints the same text" '"$TILT_OPT" "$HELLO" --print > p.wat && cmp p.wat s.wat'
check_sh "-S -o writes text to the file" '"$TILT_OPT" "$HELLO" -S -o o.wat && cmp o.wat s.wat'
check_sh "-g -S text keeps names and assembles" \
  '"$TILT_OPT" "$HELLO" -g -S > g.wat && grep -q "\$fac" g.wat && wat2wasm g.wat -o g.wasm'
check "reassembled module reads back" "$TILT_OPT" s.wasm -o s2.wasm
finish
