#!/bin/sh
# run_opt.sh RUNNER REPO OUTDIR PASSES — the spec suite against optimized
# modules: every module is run through PASSES ("all", "O2", "Oz", or a
# comma-separated list), written and read back before its assertions run
# (issue 4: optimized modules still pass their own spec assertions;
# assert_exhaustion is skipped, as an optimizer may remove the recursion).
# The baseline of suite.sh. Exit 77 (skipped) when the suite is absent.
R=$1; REPO=$2; OUT=$3; P=$4
. "$REPO/test/spec/suite.sh"
spec_find || exit 77
spec_baseline --passes="$P" || exit 1
exit 0
