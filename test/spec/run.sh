#!/bin/sh
# run.sh RUNNER REPO OUTDIR — the spec suite through the interpreter (ctest
# spec.interp): the baseline (suite.sh) and the suite's current core. Exit 77
# (skipped) when the suite is absent.
R=$1; REPO=$2; OUT=$3
. "$REPO/test/spec/suite.sh"
spec_find || exit 77
rc=0
spec_baseline || rc=1
"$R" --out "$OUT/core" --allow-unconvertible --flags "--enable-tail-call --enable-extended-const --enable-memory64" --skip-list "$SKIP" "$TS"/core/*.wast || rc=1
exit $rc
