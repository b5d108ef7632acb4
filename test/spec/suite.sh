# suite.sh — sourced by the spec-suite scripts (test/spec/run.sh,
# test/spec/run_opt.sh, test/jit/spec.sh): where the suite is, and one run of
# the spec runner over the 2022 baseline's core and its tail-call,
# extended-const and threads proposals. The caller sets R (runner), REPO and
# OUT, then calls spec_find (sets TS, B, SKIP; false when the suite is absent)
# and spec_baseline RUNNER_ARGS... (false if any part failed). CORE, when
# set, is the list of core .wast files (default: all of them).

spec_find() {
  TS=${TILT_TESTSUITE:-$REPO/../shared/testsuite}
  if [ ! -d "$TS/baseline-2022-11/core" ]; then
    echo "spec suite not found at $TS (set TILT_TESTSUITE); skipping"
    return 1
  fi
  SKIP=$REPO/test/spec/skip.txt
  B=$TS/baseline-2022-11
  mkdir -p "$OUT"
}

# The 2022 baseline predates multi-memory and memory64: its tests read a
# memory index byte as a reserved zero, call several memories invalid and
# read memarg offsets as u32s. Its memory64 proposal runs with memory64.
spec_baseline() {
  ok=0
  # ... and GC, whose constant expressions may read defined globals (the
  # baseline says "unknown global")
  set -- "$@" --no-feature gc
  set -- "$@" --no-feature multimemory
  "$R" "$@" --out "$OUT/memory64" --flags --enable-memory64 --skip-list "$SKIP" "$B"/proposals/memory64/*.wast || ok=1
  set -- "$@" --no-feature memory64
  "$R" "$@" --out "$OUT/base-core" --skip-list "$SKIP" ${CORE:-"$B"/core/*.wast} || ok=1
  "$R" "$@" --out "$OUT/tail-call" --flags --enable-tail-call --skip-list "$SKIP" "$B"/proposals/tail-call/*.wast || ok=1
  "$R" "$@" --out "$OUT/extended-const" --flags --enable-extended-const --skip-list "$SKIP" "$B"/proposals/extended-const/*.wast || ok=1
  # The threads snapshot predates reference types ("multiple tables" is invalid there).
  "$R" "$@" --out "$OUT/threads" --flags --enable-threads --no-feature reference-types --skip-list "$SKIP" "$B"/proposals/threads/*.wast || ok=1
  return $ok
}
