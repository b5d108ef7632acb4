# tilt-fuzz's differential modes at seeds taken from the commit, so every
# commit fuzzes ground no earlier run covered and a failure reproduces from
# the log: seed = the first 8 hex digits of HEAD as a number (or
# $TILT_FUZZ_SEED). Each mode runs for FUZZ_MODE_SECONDS (default 15) on the
# sanitizer build: roundtrip, opt (one pass, a pipeline, a random pass list,
# compared by fuzz-exec), jit (interpreter vs JIT), cfg, opt-valid with EH.
# Failing modules land in $TILT_BUILD/fuzz-seeded/; each failure prints the
# command that reproduces it.
set -u
F=$TILT_BUILD/tilt-fuzz
[ -x "$F" ] || { echo "SKIP: no $F"; exit 77; }
hex=$(git -C "$TILT_SRC" rev-parse HEAD 2>/dev/null | cut -c1-8)
seed=${TILT_FUZZ_SEED:-$((16#${hex:-0}))}
secs=${FUZZ_MODE_SECONDS:-15}
out=$TILT_BUILD/fuzz-seeded
rm -rf "$out"; mkdir -p "$out"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
failed=0
# Modes get disjoint seed ranges (a mode runs far fewer than 10^8 in secs).
k=0
for mode in roundtrip opt jit cfg opt-valid; do
  s=$((seed + k * 100000000)); k=$((k + 1))
  echo "--- tilt-fuzz $mode --seed $s --seconds $secs"
  if ! "$F" $mode --seed $s --seconds "$secs" --timeout 60 -q --out-dir "$out/$mode" 2>&1; then
    echo "FAILED: tilt-fuzz $mode from seed $s (modules in $out/$mode)"; failed=1
  fi
done
exit $failed
