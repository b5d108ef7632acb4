#!/bin/sh
# spec.sh RUNNER REPO OUTDIR — the spec suite on the JIT (ctest spec.jit):
# the baseline of test/spec/suite.sh (SIMD files included). Exit 77
# when the suite is absent.
R=$1; REPO=$2; OUT=$3
. "$REPO/test/spec/suite.sh"
spec_find || exit 77
spec_baseline --engine=jit || exit 1
exit 0
