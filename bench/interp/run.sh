#!/bin/sh
# bench/interp/run.sh [TILT_RUN] — times small C kernels (freestanding wasm32,
# one exported `run`) under tilt-run (reference interpreter, --invoke run)
# and wabt's wasm-interp (--run-all-exports) in the same run, and prints the
# ratio tilt/wabt (below 1 means tilt is faster). Not a test. Build tilt-run
# without sanitizers first, e.g.
#   cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=Release && cmake --build build-rel --target tilt-run
RUN=${1:-$(dirname "$0")/../../build-rel/tilt-run}
DIR=$(dirname "$0"); OUT=${TMPDIR:-/tmp}/tilt-bench-interp
mkdir -p "$OUT"
t() { s=$(date +%s.%N); "$@" >"$OUT/out.txt" 2>&1 || { cat "$OUT/out.txt"; exit 1; }; e=$(date +%s.%N); echo "$e - $s" | bc; }
printf "%-8s %9s %9s %7s\n" kernel tilt wabt ratio
for k in fib sieve matmul hash; do
  clang --target=wasm32 -O2 -fno-builtin -nostdlib -Wl,--no-entry -Wl,--export=run \
    "$DIR/$k.c" -o "$OUT/$k.wasm" || exit 1
  a=$(t "$RUN" --invoke run "$OUT/$k.wasm")
  b=$(t wasm-interp "$OUT/$k.wasm" --run-all-exports)
  printf "%-8s %8.2fs %8.2fs %7.2f\n" $k $a $b $(echo "$a / $b" | bc -l)
done
