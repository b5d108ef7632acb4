#!/bin/sh
# run_opt.sh RUNNER REPO OUTDIR PASSES — the spec suite against optimized
# modules: every module is run through PASSES ("all", "O2", "Oz", or a
# comma-separated list), written and read back before its assertions run
# (issue 4: optimized modules still pass their own spec assertions;
# assert_exhaustion is skipped, as an optimizer may remove the recursion).
# Exit 77 (skipped) when the suite is absent.
R=$1; REPO=$2; OUT=$3; P=$4
TS=${TILT_TESTSUITE:-$REPO/../shared/testsuite}
if [ ! -d "$TS/baseline-2022-11/core" ]; then
  echo "spec suite not found at $TS (set TILT_TESTSUITE); skipping"
  exit 77
fi
SKIP=$REPO/test/spec/skip.txt
B=$TS/baseline-2022-11
rc=0
mkdir -p "$OUT"
"$R" --passes="$P" --out "$OUT/base-core" --skip-list "$SKIP" "$B"/core/*.wast || rc=1
"$R" --passes="$P" --out "$OUT/tail-call" --flags --enable-tail-call --skip-list "$SKIP" "$B"/proposals/tail-call/*.wast || rc=1
"$R" --passes="$P" --out "$OUT/extended-const" --flags --enable-extended-const --skip-list "$SKIP" "$B"/proposals/extended-const/*.wast || rc=1
"$R" --passes="$P" --out "$OUT/threads" --flags --enable-threads --no-feature reference-types --skip-list "$SKIP" "$B"/proposals/threads/*.wast || rc=1
exit $rc
