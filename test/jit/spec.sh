#!/bin/sh
# spec.sh RUNNER REPO OUTDIR — the spec suite on the JIT (ctest spec.jit):
# baseline-2022-11/core without the SIMD files, and the tail-call,
# extended-const and threads proposals. Exit 77 when the suite is absent.
R=$1; REPO=$2; OUT=$3
TS=${TILT_TESTSUITE:-$REPO/../shared/testsuite}
if [ ! -d "$TS/baseline-2022-11/core" ]; then
  echo "spec suite not found at $TS (set TILT_TESTSUITE); skipping"
  exit 77
fi
SKIP=$REPO/test/spec/skip.txt
B=$TS/baseline-2022-11
rc=0
mkdir -p "$OUT"
CORE=$(ls "$B"/core/*.wast | grep -v '/simd_')
"$R" --engine=jit --out "$OUT/base-core" --skip-list "$SKIP" $CORE || rc=1
"$R" --engine=jit --out "$OUT/tail-call" --flags --enable-tail-call --skip-list "$SKIP" "$B"/proposals/tail-call/*.wast || rc=1
"$R" --engine=jit --out "$OUT/extended-const" --flags --enable-extended-const --skip-list "$SKIP" "$B"/proposals/extended-const/*.wast || rc=1
"$R" --engine=jit --out "$OUT/threads" --flags --enable-threads --no-feature reference-types --skip-list "$SKIP" "$B"/proposals/threads/*.wast || rc=1
exit $rc
