#!/bin/sh
# run.sh TILT_OPT TILT_RUN OUTDIR — a real memory64 module (clang
# --target=wasm64, no sysroot) reads and writes back byte for byte, its
# -O2 output validates (wasm-validate --enable-memory64) and both engines
# give the same results before and after; --memory64-lowering makes it a
# wasm32 module (validates without memory64, same results on both engines;
# a -O2 after it too); then programs.c (below). Exit 77 without clang's
# wasm64 target or wabt.
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

# programs.c: a freestanding program (LZ77, SHA-256, quicksort, hashing,
# bignums over MBs of static data) as wasm64 at -O0 and -O2, through tilt
# -O2/-Os/-Oz and --memory64-lowering: every output validates (wabt, and
# wasm-opt 108 where installed) and run(2, 14) (16 KB of input) gives what
# the native build
# prints, on both engines.
if command -v gcc >/dev/null; then
  gcc -O2 -DNATIVE -w "$SRC/programs.c" -o "$OUT/programs"
  want="i64:$("$OUT/programs" 2 14)"
  for o in O0 O2; do
    clang --target=wasm64 -$o -nostdlib -Wl,--no-entry -Wl,--export=run -o "$OUT/p$o.wasm" "$SRC/programs.c"
    for l in O2 Os Oz lower; do
      if [ $l = lower ]; then "$OPT" --enable-memory64 "$OUT/p$o.wasm" --memory64-lowering -O2 -o "$OUT/p$o.$l.wasm"
      else "$OPT" --enable-memory64 -$l "$OUT/p$o.wasm" -o "$OUT/p$o.$l.wasm"; fi
      wasm-validate --enable-memory64 "$OUT/p$o.$l.wasm"
      if command -v wasm-opt >/dev/null; then wasm-opt -all "$OUT/p$o.$l.wasm" -o /dev/null; fi
      for e in interp jit; do
        for m in "p$o" "p$o.$l"; do
          got=$("$RUN" --$e --invoke run "$OUT/$m.wasm" 2 14)
          [ "$got" = "$want" ] || { echo "programs $m on $e: $got, native $want"; exit 1; }
        done
      done
    done
  done
  echo "memory64 programs: $want on both engines, -O0/-O2 inputs x -O2/-Os/-Oz/lowered outputs"
fi
echo "memory64.clang: ok"
