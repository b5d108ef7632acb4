#!/usr/bin/env bash
# run.sh — the spec.wast test: tilt-run --wast (tilt's own text reader and
# script runner) over the spec suite, compared with test/wast/expected.txt
# (per file, the number of commands that passed). Fails when a file passes
# fewer commands than expected, or the runner crashes, hangs or reports a
# sanitizer error on it; prints per-file counts and totals.
#   usage: run.sh TILT_RUN SRC_DIR [--update]
# Suite: $TILT_TESTSUITE, default SRC_DIR/../shared/testsuite (exit 77 if
# absent). Sampling: every file when TILT_WAST_STRIDE is 1 (the default);
# with stride S only the files whose index is congruent to the seed modulo S
# run (seed: $TILT_SAMPLE_SEED, else the first 8 hex digits of git HEAD).
# --update rewrites expected.txt from this run (run it with stride 1).
set -u
RUN=$1 SRC=$2 UPDATE=${3:-}
EXP=$SRC/test/wast/expected.txt
SUITE=${TILT_TESTSUITE:-$SRC/../shared/testsuite}
[ -d "$SUITE" ] || { echo "SKIP: no spec suite at $SUITE (set TILT_TESTSUITE)"; exit 77; }
SUITE=$(cd "$SUITE" && pwd)
STRIDE=${TILT_WAST_STRIDE:-1}
SEED=${TILT_SAMPLE_SEED:-$(git -C "$SRC" rev-parse HEAD 2>/dev/null | cut -c1-8)}
SEED=${SEED:-0}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# A sanitizer report is a crash, whatever the runner's own status.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=86"

cd "$SUITE" || exit 1
find . -name '*.wast' | sed 's|^\./||' | LC_ALL=C sort > "$T/all"
if [ "$STRIDE" -gt 1 ]; then
  pick=$(( 16#$SEED % STRIDE ))
  awk -v s="$STRIDE" -v p="$pick" '(NR - 1) % s == p' "$T/all" > "$T/files"
  echo "sample: seed $SEED, stride $STRIDE, files with index = $pick mod $STRIDE"
else
  cp "$T/all" "$T/files"
fi

# One process over all files; if it dies (signal, sanitizer, timeout), run
# the files one by one to name the culprits.
: > "$T/crashed"
timeout 120 "$RUN" --wast $(cat "$T/files") > "$T/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
  echo "runner exited with status $rc on the whole set; rerunning file by file"
  : > "$T/out"
  while read -r f; do
    timeout 30 "$RUN" --wast "$f" > "$T/one" 2>&1
    r=$?
    if [ $r -ne 0 ] && [ $r -ne 1 ]; then
      echo "$f $r" >> "$T/crashed"
      tail -5 "$T/one" | sed 's/^/    /'
    else
      cat "$T/one" >> "$T/out"
    fi
  done < "$T/files"
fi

# Per-file counts: "FILE: N passed, ..." lines of the runner.
sed -n 's/^\(.*\.wast\): \([0-9]*\) passed.*/\1 \2/p' "$T/out" > "$T/got"
if [ "$UPDATE" = --update ]; then
  { echo "# test/wast/expected.txt: per spec-suite file, the commands tilt-run --wast"
    echo "# passes; spec.wast fails below these. Regenerate: test/wast/run.sh RUN SRC --update"
    cat "$T/got"; } > "$EXP"
  echo "wrote $EXP ($(wc -l < "$T/got") files)"
  exit 0
fi

awk -v crashed="$T/crashed" -v got="$T/got" -v files="$T/files" '
  FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF == 2) want[$1] = $2; next }
  END {
    while ((getline l < got) > 0) { split(l, a, " "); have[a[1]] = a[2] }
    while ((getline l < crashed) > 0) { split(l, a, " "); dead[a[1]] = a[2] }
    bad = 0
    while ((getline f < files) > 0) {
      e = (f in want) ? want[f] : 0; n++; te += e
      if (f in dead) { printf "CRASH %s (status %s), expected %d passed\n", f, dead[f], e; bad++; continue }
      if (!(f in have)) { printf "FAIL  %s: no count from the runner\n", f; bad++; continue }
      g = have[f]; tg += g
      if (g < e) { printf "FAIL  %s: %d passed, expected %d\n", f, g, e; bad++ }
      else if (g > e) { printf "up    %s: %d passed, expected %d (raise expected.txt)\n", f, g, e; up++ }
      else printf "ok    %s: %d passed\n", f, g
    }
    printf "total: %d files, %d passed, %d expected; %d below expectation or crashed, %d above\n", n, tg, te, bad, up
    exit bad ? 1 : 0
  }' "$EXP"
