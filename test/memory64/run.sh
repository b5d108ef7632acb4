#!/bin/sh
# run.sh TILT_OPT TILT_RUN OUTDIR — a real memory64 module (clang
# --target=wasm64, no sysroot) reads and writes back byte for byte, its
# -O2 output validates (wasm-validate --enable-memory64) and both engines
# give the same results before and after; --memory64-lowering makes it a
# wasm32 module (validates without memory64, same results on both engines;
# a -O2 after it too). Exit 77 without clang's wasm64 target or wabt.
OPT=$1 RUN=$2 OUT=$3
SRC=$(dirname "$0")
mkdir -p "$OUT"
command -v clang >/dev/null && command -v wasm-validate >/dev/null || { echo "SKIP: no clang or wabt"; exit 77; }
clang --target=wasm64 -O2 -nostdlib -Wl,--no-entry -Wl,--export-all -o "$OUT/sum.wasm" "$SRC/sum.c" 2>"$OUT/clang.log" ||
  { echo "SKIP: clang has no wasm64 target"; cat "$OUT/clang.log"; exit 77; }
set -e
"$OPT" --enable-memory64 "$OUT/sum.wasm" -o "$OUT/rt.wasm"
cmp "$OUT/sum.wasm" "$OUT/rt.wasm"
"$OPT" --enable-memory64 "$OUT/sum.wasm" -O2 -o "$OUT/o2.wasm"
wasm-validate --enable-memory64 "$OUT/o2.wasm"
"$OPT" --enable-memory64 "$OUT/sum.wasm" --memory64-lowering -o "$OUT/low.wasm"
"$OPT" --enable-memory64 "$OUT/o2.wasm" --memory64-lowering -O2 -o "$OUT/lowo2.wasm"
for m in low lowo2; do
  wasm-validate "$OUT/$m.wasm"
done
for e in interp jit; do
  for m in sum o2 low lowo2; do
    [ "$("$RUN" --$e --invoke sum "$OUT/$m.wasm" 1024 3)" = "i64:0" ]
    [ "$("$RUN" --$e --invoke get "$OUT/$m.wasm" 5)" = "i64:1029" ]
  done
done
echo "memory64.clang: ok"
