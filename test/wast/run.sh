#!/usr/bin/env bash
# run.sh — the spec.wast test: tilt-run --wast (tilt's own text reader and
# script runner) over the spec suite on the JIT and on the interpreter (which
# runs the SIMD modules the JIT leaves unsupported), compared with
# test/wast/expected.txt (per file and engine, the commands that passed). Fails when a file passes
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

# Each engine: one process over each set of files; if it dies (signal, sanitizer,
# timeout), the files one by one to name the culprits. Counts per file:
# "FILE: N passed, ..." lines of the runner, in $T/got.ENGINE.
: > "$T/crashed"
# The 2.0 suite (baseline-2022-11, but for its multi-memory and memory64
# proposals) runs without multi-memory and memory64: its binary tests read a
# memory index byte as a reserved zero byte and a memarg offset as a u32
# (5-byte LEBs with high bits are malformed there). Its multi-memory
# proposal runs without memory64 (group mm), its memory64 one without
# multi-memory (group m64). Everything else runs with every feature.
grep '^baseline-2022-11/' "$T/files" | grep -v '/multi-memory/\|/memory64/' > "$T/files.mvp"
grep '^baseline-2022-11/proposals/multi-memory/' "$T/files" > "$T/files.mm"
grep '^baseline-2022-11/proposals/memory64/' "$T/files" > "$T/files.m64"
cat "$T/files.mvp" "$T/files.mm" "$T/files.m64" | grep -v -x -F -f - "$T/files" > "$T/files.all"
: > "$T/got"
for eng in jit interp; do
  for grp in mvp mm m64 all; do
    : > "$T/out.$grp"
    [ -s "$T/files.$grp" ] || continue
    flags=""
    [ $grp = mvp ] && flags="--no-feature multimemory --no-feature memory64"
    [ $grp = mm ] && flags="--no-feature memory64"
    [ $grp = m64 ] && flags="--no-feature multimemory"
    timeout 120 "$RUN" --wast --$eng $flags $(cat "$T/files.$grp") > "$T/out.$grp" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
      echo "runner --$eng exited with status $rc on the $grp set; rerunning file by file"
      : > "$T/out.$grp"
      while read -r f; do
        timeout 30 "$RUN" --wast --$eng $flags "$f" > "$T/one" 2>&1
        r=$?
        if [ $r -ne 0 ] && [ $r -ne 1 ]; then
          echo "$eng:$f $r" >> "$T/crashed"
          tail -5 "$T/one" | sed 's/^/    /'
        else
          cat "$T/one" >> "$T/out.$grp"
        fi
      done < "$T/files.$grp"
    fi
  done
  cat "$T/out.mvp" "$T/out.mm" "$T/out.m64" "$T/out.all" > "$T/out"
  sed -n 's/^\(.*\.wast\): \([0-9]*\) passed.*/\1 \2/p' "$T/out" | sed "s/^/$eng:/" >> "$T/got"
done

if [ "$UPDATE" = --update ]; then
  { echo "# test/wast/expected.txt: per spec-suite file, the commands tilt-run --wast"
    echo "# passes; spec.wast fails below these. Regenerate: test/wast/run.sh RUN SRC --update"
    echo "# columns: file, commands passed on the JIT (--jit), on the interpreter (--interp)"
    awk '{ split($1, a, ":"); n[a[2]] = 1; c[a[1] ":" a[2]] = $2 }
         END { for (f in n) printf "%s %d %d\n", f, c["jit:" f], c["interp:" f] }' "$T/got" | LC_ALL=C sort
  } > "$EXP"
  echo "wrote $EXP"
  exit 0
fi

awk -v crashed="$T/crashed" -v got="$T/got" -v files="$T/files" '
  FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF == 3) { want["jit:" $1] = $2; want["interp:" $1] = $3 }; next }
  END {
    while ((getline l < got) > 0) { split(l, a, " "); have[a[1]] = a[2] }
    while ((getline l < crashed) > 0) { split(l, a, " "); dead[a[1]] = a[2] }
    bad = 0
    while ((getline f < files) > 0) {
      n++; line = ""; st = "ok   "
      for (k = 0; k < 2; k++) {
        eng = k ? "interp" : "jit"; key = eng ":" f
        e = (key in want) ? want[key] : 0; te[eng] += e
        if (key in dead) { line = line sprintf(" %s CRASH (status %s, expected %d)", eng, dead[key], e); st = "FAIL "; bad++; continue }
        if (!(key in have)) { line = line sprintf(" %s: no count from the runner", eng); st = "FAIL "; bad++; continue }
        g = have[key]; tg[eng] += g
        line = line sprintf(" %s %d", eng, g)
        if (g < e) { line = line sprintf(" (expected %d)", e); st = "FAIL "; bad++ }
        else if (g > e) { line = line sprintf(" (expected %d: raise expected.txt)", e); if (st == "ok   ") st = "up   "; up++ }
      }
      printf "%s %s:%s\n", st, f, line
    }
    printf "total: %d files; passed: jit %d (expected %d), interp %d (expected %d); %d below expectation or crashed, %d above\n", n, tg["jit"], te["jit"], tg["interp"], te["interp"], bad, up
    exit bad ? 1 : 0
  }' "$EXP"
