#!/bin/sh
# simd.sh TILT_RUN TILT_OPT REPO OUTDIR — the SIMD kernels of bench/jit/simd
# (auto-vectorized loops and wasm_simd128.h intrinsics: blur, dot/saxpy,
# matmul, substring search, base64, a quantized neural net layer) built with
# clang --target=wasm32-wasi -O2 -msimd128 print what their gcc -O2 native
# build prints, on the JIT (lazy, eager, SSE-only with --no-avx), on the
# interpreter, and after tilt-opt -O2 on the JIT (ctest jit.simd). Small
# scale (argument 3).
# Exit 77 without clang's wasm32-wasi target or gcc.
R=$1; OPT=$2; REPO=$3; OUT=$4
K=$REPO/bench/jit/simd
mkdir -p "$OUT"
printf 'int main(void){return 0;}' > "$OUT/probe.c"
clang --target=wasm32-wasi --sysroot=/usr -O2 -msimd128 "$OUT/probe.c" -o "$OUT/probe.wasm" 2>/dev/null &&
  command -v gcc >/dev/null || { echo "clang wasm32-wasi or gcc missing; skipping"; exit 77; }
fail=0
for k in blur dot matmul search base64 nn; do
  clang --target=wasm32-wasi --sysroot=/usr -O2 -msimd128 "$K/$k.c" -o "$OUT/$k.wasm" || { fail=1; continue; }
  gcc -O2 "$K/$k.c" -o "$OUT/$k" || { fail=1; continue; }
  "$OPT" -O2 "$OUT/$k.wasm" -o "$OUT/$k.O2.wasm" || { echo "FAIL $k: tilt-opt -O2"; fail=1; continue; }
  n=$(wasm-objdump -d "$OUT/$k.wasm" 2>/dev/null | grep -c -E 'v128|i8x16|i16x8|i32x4|f32x4' || true)
  [ "${n:-0}" -gt 0 ] || echo "note: $k has no SIMD instructions (wasm-objdump missing?)"
  want=$("$OUT/$k" 3)
  for run in "--jit $OUT/$k.wasm" "--jit --eager $OUT/$k.wasm" "--jit --no-avx $OUT/$k.wasm" \
             "--interp $OUT/$k.wasm" "--jit $OUT/$k.O2.wasm"; do
    # shellcheck disable=SC2086
    got=$("$R" $run 3)
    if [ "$got" != "$want" ]; then echo "FAIL $k ($run): '$got', native '$want'"; fail=1; fi
  done
  echo "ok $k: $want"
done
exit $fail
