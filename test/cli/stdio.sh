#!/usr/bin/env bash
# stdio.sh — '-' reads stdin and writes stdout.
. "$(dirname "$0")/common.inc"
need wasm-validate

check_sh "stdin to stdout" '"$TILT_OPT" - -o - < "$HELLO" > out.wasm'
check "output validates" wasm-validate out.wasm
check_sh "same bytes as from a file" '"$TILT_OPT" "$HELLO" -o f.wasm && cmp f.wasm out.wasm'
check_sh "piped through twice" 'cat "$HELLO" | "$TILT_OPT" - -o - | "$TILT_OPT" - -o - | cmp - out.wasm'
check_sh "-S from stdin" '"$TILT_OPT" - -S < "$HELLO" | grep -q "(module"'
head -c 9 "$HELLO" > trunc.wasm
expect_error "errors on stdin say <stdin>" '^<stdin>:0x[0-9a-f]+: error: .' \
  sh -c '"$0" - -o - < trunc.wasm' "$TILT_OPT"
finish
