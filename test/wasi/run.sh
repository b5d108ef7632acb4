#!/bin/sh
# run.sh TILT_RUN OUTDIR — WASI programs compiled at test time with
# clang --target=wasm32-wasi (Debian: clang, lld, wasi-libc,
# libclang-rt-14-dev-wasm32) and run under tilt-run. Exit 77 = skipped.
RUN=$1; OUT=$2; SRC=$(dirname "$0")
CC=${WASI_CC:-clang}
mkdir -p "$OUT"
for p in hello cat args exit trap; do
  if ! $CC --target=wasm32-wasi --sysroot=/usr -O1 "$SRC/$p.c" -o "$OUT/$p.wasm" 2>"$OUT/$p.cc.log"; then
    echo "cannot compile for wasm32-wasi (need clang, lld, wasi-libc, libclang-rt-14-dev-wasm32); skipping"
    cat "$OUT/$p.cc.log"
    exit 77
  fi
done
fail=0
check() { # name expected actual
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected [$2] got [$3]"; fail=1; fi
}
out=$("$RUN" "$OUT/hello.wasm"); check "hello stdout" "hello, world" "$out"
"$RUN" "$OUT/hello.wasm" >/dev/null; check "hello status" 0 $?
out=$(printf 'abc\nxyz' | "$RUN" "$OUT/cat.wasm" 2>"$OUT/cat.err"); check "cat stdout" "ABC
XYZ" "$out"
check "cat stderr" "7 bytes" "$(cat "$OUT/cat.err")"
out=$(TILT_WASI_TEST=tilt "$RUN" "$OUT/args.wasm" one "two words"); check "args" "arg1=one
arg2=two words
env=tilt" "$out"
"$RUN" "$OUT/exit.wasm"; check "exit from main" 5 $?
"$RUN" "$OUT/exit.wasm" 42; check "exit() deep" 42 $?
out=$("$RUN" "$OUT/trap.wasm" 2>"$OUT/trap.err"); rc=$?
check "trap stdout" "before" "$out"
check "trap message" "error: trap: integer divide by zero" "$(cat "$OUT/trap.err")"
[ $rc -ne 0 ]; check "trap status nonzero" 0 $?
"$RUN" "$OUT/trap.wasm" x 2>"$OUT/trap2.err" >/dev/null
check "unreachable message" "error: trap: unreachable" "$(cat "$OUT/trap2.err")"
exit $fail
