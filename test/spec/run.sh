#!/bin/sh
# run.sh RUNNER REPO OUTDIR — the spec suite through the interpreter (ctest
# spec.interp). Exit 77 (skipped) when the suite is absent.
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
"$R" --out "$OUT/base-core" --skip-list "$SKIP" "$B"/core/*.wast || rc=1
"$R" --out "$OUT/tail-call" --flags --enable-tail-call --skip-list "$SKIP" "$B"/proposals/tail-call/*.wast || rc=1
"$R" --out "$OUT/extended-const" --flags --enable-extended-const --skip-list "$SKIP" "$B"/proposals/extended-const/*.wast || rc=1
# The threads snapshot predates reference types ("multiple tables" is invalid there).
"$R" --out "$OUT/threads" --flags --enable-threads --no-feature reference-types --skip-list "$SKIP" "$B"/proposals/threads/*.wast || rc=1
"$R" --out "$OUT/core" --allow-unconvertible --flags "--enable-tail-call --enable-extended-const" --skip-list "$SKIP" "$TS"/core/*.wast || rc=1
exit $rc
