#!/bin/sh
# threads.sh TILT_OPT REPO — output bytes must not depend on the thread
# count: every valid module of a few spec files (and the example) through
# -O2 and through every registered pass, with 1, 2 and 7 threads.
# Each commit checks half the spec files (seed: $TILT_SAMPLE_SEED, else the
# first 8 hex digits of git HEAD; all nine within a few commits); the
# example always. Exit 77 (skipped) without the spec suite or wast2json.
T=$1; REPO=$2
TS=${TILT_TESTSUITE:-$REPO/../shared/testsuite}
command -v wast2json >/dev/null || { echo "wast2json not found; skipping"; exit 77; }
[ -d "$TS/baseline-2022-11/core" ] || { echo "spec suite not found at $TS; skipping"; exit 77; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
SEED=${TILT_SAMPLE_SEED:-$(git -C "$REPO" rev-parse HEAD 2>/dev/null | cut -c1-8)}
SEED=$(( 0x${SEED:-0} % 2 ))
echo "sample $SEED of 2 (TILT_SAMPLE_SEED picks another)"
i=0
for f in br_table call_indirect float_exprs i64 loop memory_grow block if select; do
  i=$((i+1)); [ $((i % 2)) -eq $SEED ] || continue
  wast2json --enable-all "$TS/baseline-2022-11/core/$f.wast" -o "$W/$f.json" >/dev/null 2>&1
done
cp "$REPO/examples/hello.wasm" "$W/"
ALL=$("$T" --help | sed -n 's/^  \(--[a-z-]*\)  .*/\1/p' | grep -v -e --skip-pass -e --pass-arg -e --threads \
  -e --output -e --emit-text -e --print -e --debuginfo -e --validate -e --no-validation -e --all-features \
  -e --mvp-features -e --detect-features -e --strip -e --quiet -e --help -e --version -e --converge \
  -e --debug -e --fuzz-exec -e --fpcast-emu -e --instrument- -e --log-execution | tr '\n' ' ')
# (fpcast-emu refuses by design a table function with several results or a
# v128/reference param, as call_indirect.wast has: lit and emcc.sh test it;
# the AUTODEBUG instrumentation would make every function call an import,
# and asyncify after it then refuses the functions with reference locals)
ALL="--low-memory-unused $ALL"   # optimize-added-constants needs it
checked=0; failed=0
for m in "$W"/*.wasm; do
  "$T" -all "$m" -q -o /dev/null 2>/dev/null || continue   # not a valid module
  for pl in "-O2" "$ALL"; do
    "$T" -all "$m" $pl --threads 1 -q -o "$W/t1" 2>/dev/null || { echo "FAIL (passes) $m $pl"; failed=$((failed+1)); continue; }
    for n in 2 7; do
      "$T" -all "$m" $pl --threads $n -q -o "$W/t$n" 2>/dev/null
      cmp -s "$W/t1" "$W/t$n" || { echo "FAIL: $m with $pl differs at $n threads"; failed=$((failed+1)); }
    done
    checked=$((checked+1))
  done
done
echo "$checked passed, $failed failed"
[ $failed -eq 0 ] && [ $checked -gt 0 ]
