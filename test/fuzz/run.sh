#!/usr/bin/env bash
# run.sh — builds the libFuzzer targets (clang, -DTILT_FUZZ=ON, ASan+UBSan) in
# their own build dir and runs each for a bounded time: fuzz_read (tilt's
# reader/validator/writer/printer, seeded with every module of the spec suite,
# wast2json output) for a third of FUZZ_SECONDS, fuzz_text (the text reader,
# and print -> parse agreement, seeded with the modules of the spec suite's
# .wast scripts) for a third, then gen_modes (bytes -> the tilt-fuzz
# generator -> round trip, a pass, a pipeline, interpreter vs JIT) for the
# rest. Fails (exit 1) on any crash, leak, sanitizer report,
# divergence, OOM or timeout finding; reproducers are left in
# $FUZZ_BUILD/artifacts/ and artifacts-gen/. Exit 77: skipped (no clang with
# libFuzzer); without wast2json fuzz_read runs unseeded. Environment:
#   FUZZ_SECONDS  total run time (default 120)  FUZZ_BUILD  build dir (default <repo>/build-fuzz)
#   TILT_TESTSUITE  spec suite (default <repo>/../shared/testsuite)   JOBS  build jobs
#   FUZZ_SEED  libFuzzer's -seed (default: from the first 8 hex digits of git
#              HEAD, so each commit explores anew and a log reproduces)
#   TILT_FUZZ_ORACLE=0  do not require the writer's output to read back (crashes only)
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$src/build-fuzz}
suite=${TILT_TESTSUITE:-$src/../shared/testsuite}
seconds=${FUZZ_SECONDS:-120}
cc=${FUZZ_CC:-$(command -v clang || command -v clang-14 || true)}

if [ -z "$cc" ]; then echo "SKIP: clang not found"; exit 77; fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
     "$cc" -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
  echo "SKIP: $cc has no libFuzzer"; exit 77
fi

cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$cc" -DTILT_FUZZ=ON -DTILT_SANITIZE=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
  cmake --build "$build" -j "${JOBS:-2}" --target fuzz_read fuzz_text gen_modes >/dev/null || {
  echo "FAILED: building the fuzz targets"; cmake --build "$build" --target fuzz_read fuzz_text gen_modes 2>&1 | tail -20; exit 1; }
hex=$(git -C "$src" rev-parse HEAD 2>/dev/null | cut -c1-8)
fseed=${FUZZ_SEED:-$(( (16#${hex:-0} % 2147483646) + 1 ))}
echo "libFuzzer seed: $fseed (reproduce a run with FUZZ_SEED=$fseed)"
read_seconds=$((seconds / 3))
text_seconds=$((seconds / 3))
gen_seconds=$((seconds - read_seconds - text_seconds))

# Seeds: every binary module wast2json makes of the 2022 core suite (valid and
# invalid ones alike), made once and kept in the build dir.
seeds=$build/seeds
if [ ! -f "$seeds/.done" ]; then
  if command -v wast2json >/dev/null && [ -d "$suite/baseline-2022-11/core" ]; then
    rm -rf "$seeds" "$build/seeds-json"; mkdir -p "$seeds" "$build/seeds-json"
    for w in "$suite"/baseline-2022-11/core/*.wast "$suite"/baseline-2022-11/proposals/{tail-call,extended-const,threads}/*.wast; do
      d=$build/seeds-json/$(basename "$(dirname "$w")")-$(basename "$w" .wast)
      mkdir -p "$d" && wast2json --enable-threads --enable-tail-call --enable-extended-const \
        "$w" -o "$d/m.json" >/dev/null 2>&1 || true
    done
    find "$build/seeds-json" -name '*.wasm' -size -64k | while read -r f; do
      cp "$f" "$seeds/$(sha1sum "$f" | cut -c1-16).wasm"; done
    touch "$seeds/.done"
  else
    echo "note: no spec suite or wast2json: fuzzing without seeds"; mkdir -p "$seeds"
  fi
fi
echo "fuzz_read: $(ls "$seeds" | wc -l) seeds, ${read_seconds}s"

# fuzz TARGET SECONDS MAX_LEN CORPUS ARTIFACTS LOG SEEDS: runs one libFuzzer
# target of the build for a bounded time; on a finding, lists the
# reproducers and exits 1.
fuzz() {
  local name=$1 secs=$2 max_len=$3 corpus=$4 artifacts=$5 log=$6 seeds=$7 rc
  mkdir -p "$corpus" "$artifacts"
  # libFuzzer's default error exit code is 77, which CI reads as "skipped".
  "$build/test/$name" -seed="$fseed" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 \
    -max_len="$max_len" -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$corpus" "$seeds" 2>&1 | tee "$log" | grep -v '^#' | tail -40
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then
    echo "FAILED: $name found a problem (exit $rc); reproducers:"
    ls -1 "$artifacts"
    echo "reproduce: $build/test/$name ${artifacts}<file>"
    exit 1
  fi
  echo "$name: no findings in ${secs}s"
}

fuzz fuzz_read "$read_seconds" 65536 "$build/corpus" "$build/artifacts/" "$build/fuzz.log" "$seeds"

# fuzz_text seeds: every text module of the current core suite's scripts
# (each "(module ...)" command that is not binary or quote), made once.
tseeds=$build/seeds-text
if [ ! -f "$tseeds/.done" ]; then
  rm -rf "$tseeds"; mkdir -p "$tseeds"
  if [ -d "$suite/core" ]; then
    python3 - "$suite/core" "$tseeds" <<'PY'
import glob, hashlib, os, sys
def commands(s):
    """The top-level parenthesized forms of a script (strings, ;; and (; ;) skipped)."""
    i, n, depth, start = 0, len(s), 0, 0
    while i < n:
        c = s[i]
        if c == '"':
            i += 1
            while i < n and s[i] != '"':
                i += 2 if s[i] == '\\' else 1
        elif s.startswith(';;', i):
            i = s.find('\n', i)
            if i < 0: return
        elif s.startswith('(;', i):
            d = 1; i += 2
            while i < n and d:
                if s.startswith('(;', i): d += 1; i += 2
                elif s.startswith(';)', i): d -= 1; i += 2
                else: i += 1
            continue
        elif c == '(':
            if depth == 0: start = i
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0: yield s[start:i + 1]
        i += 1
for w in sorted(glob.glob(os.path.join(sys.argv[1], '*.wast'))):
    for cmd in commands(open(w, encoding='utf-8', errors='replace').read()):
        head = cmd[:80].split()
        if head[0] != '(module' or any(k in ('binary', 'quote', 'definition', 'instance') for k in head[1:3]):
            continue
        if len(cmd) < 65536:
            b = cmd.encode()
            open(os.path.join(sys.argv[2], hashlib.sha1(b).hexdigest()[:16] + '.wat'), 'wb').write(b)
PY
  fi
  touch "$tseeds/.done"
fi
echo "fuzz_text: $(ls "$tseeds" | wc -l) seeds, ${text_seconds}s"
fuzz fuzz_text "$text_seconds" 65536 "$build/corpus-text" "$build/artifacts-text/" "$build/fuzz-text.log" "$tseeds"

# gen_modes: the first byte picks the mode, so seed a few inputs per mode
# (fixed pseudo-random bytes) and let coverage take it from there.
gseeds=$build/seeds-gen
if [ ! -f "$gseeds/.done" ]; then
  mkdir -p "$gseeds"
  python3 -c '
import random, sys
r = random.Random(1)
for k in range(32):
    open("%s/%02d" % (sys.argv[1], k), "wb").write(bytes([k % 4]) + bytes(r.getrandbits(8) for _ in range(2048)))
' "$gseeds" && touch "$gseeds/.done"
fi
echo "gen_modes: ${gen_seconds}s"
gartifacts=$build/artifacts-gen/
rm -f "$gartifacts"crash-* "$gartifacts"leak-* "$gartifacts"timeout-* "$gartifacts"oom-*
fuzz gen_modes "$gen_seconds" 8192 "$build/corpus-gen" "$gartifacts" "$build/fuzz-gen.log" "$gseeds"
