#!/bin/bash
# simd_sse.sh TILT_RUN SRC — the spec suite's SIMD and relaxed SIMD files on
# the JIT with --no-avx (SSE4.1/4.2 encodings only; spec.wast runs them with
# AVX where the CPU has it): the same commands must pass as with AVX
# (ctest wast.simd_sse).
# Suite: $TILT_TESTSUITE, default SRC/../shared/testsuite (exit 77 if absent).
R=$1; SRC=$2
S=${TILT_TESTSUITE:-$SRC/../shared/testsuite}
[ -d "$S/core" ] || { echo "SKIP: no spec suite at $S"; exit 77; }
files=$(ls "$S"/core/simd_*.wast "$S"/core/*relaxed*.wast "$S"/baseline-2022-11/core/simd_*.wast \
           "$S"/baseline-2022-11/proposals/relaxed-simd/*.wast 2>/dev/null)
# shellcheck disable=SC2086
sse=$("$R" --no-avx --wast --jit $files 2>&1)
# shellcheck disable=SC2086
dflt=$("$R" --wast --jit $files 2>&1)
echo "$sse" | tail -1
# the same commands pass file by file (the 2022 files' known failures too)
if [ "$(echo "$sse" | grep ' passed, ')" != "$(echo "$dflt" | grep ' passed, ')" ]; then
  echo "--no-avx and the default encodings pass different commands:"
  diff <(echo "$dflt" | grep ' passed, ') <(echo "$sse" | grep ' passed, ') 2>/dev/null | head -20
  exit 1
fi
n=$(echo "$sse" | tail -1 | sed -n 's/.* \([0-9]*\) passed.*/\1/p')
[ "${n:-0}" -gt 50000 ] || { echo "only ${n:-0} commands passed"; exit 1; }
