#!/bin/sh
# fuzzgen.sh — ctest driver for tilt-fuzz (issue 8). Usage: fuzzgen.sh BUILD_DIR WHAT
#   validate  the generator's output across 10,000 seeds passes wasm-validate
#             (tilt-fuzz gen already checks tl_module_validate for each)
#   reduce    the reducer (in process: --pass planted) shrinks a module showing
#             the planted bug to at most 10 IR nodes that still show it
#   reduce-command  the same through an external command (--command)
#   reduce-gc the reducer shrinks a generated GC module (--gc) whose run
#             traps on a failed cast to at most 10 IR nodes still trapping so
#   gc-validate  10,000 GC seeds: tilt-fuzz gen --gc (tl_module_validate)
set -eu
B=$1
WHAT=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
case $WHAT in
validate)
  if ! command -v wasm-validate >/dev/null; then echo "skip: no wasm-validate"; exit 0; fi
  # wabt 1.0.32 reads no 64-bit table and no memarg offset over 32 bits:
  # these modules leave memory64 out (tilt-fuzz roundtrip's --validate-every
  # checks the 64-bit memories wabt can read), and no exception handling
  # (wabt reads no try_table or exnref; V8 checks the generator's legacy EH
  # in tilt-fuzz v8, tl_module_validate all of it in gen)
  "$B/tilt-fuzz" gen --seed 1 --count 10000 --disable memory64 --no-eh -o "$T"
  ls "$T"/*.wasm | xargs -P 4 -n 50 sh -c 'for f; do wasm-validate --enable-threads --enable-tail-call --enable-extended-const --enable-relaxed-simd --enable-multi-memory "$f" || { echo "INVALID $f"; exit 1; }; done' sh
  echo "10000 generated modules validate"
  ;;
reduce|reduce-command)
  # the first seed whose module shows the planted bug (i64.clz computed as
  # i64.ctz by a test-only pass: `tilt-fuzz planted` exits 1)
  s=1
  while :; do
    "$B/tilt-fuzz" gen --seed $s --no-eh -o "$T/in.wasm"   # wabt validates the output
    if ! "$B/tilt-fuzz" planted "$T/in.wasm"; then break; fi
    s=$((s + 1))
    if [ $s -gt 500 ]; then echo "no seed shows the planted bug"; exit 1; fi
  done
  before=$("$B/tilt-fuzz" count "$T/in.wasm")
  if [ "$WHAT" = reduce ]; then
    "$B/tilt-fuzz" reduce "$T/in.wasm" --pass planted -q -o "$T/out.wasm"
  else
    "$B/tilt-fuzz" reduce "$T/in.wasm" --command "$B/tilt-fuzz planted {}" -q -o "$T/out.wasm"
  fi
  "$B/tilt-fuzz" planted "$T/out.wasm" && { echo "reduced module lost the bug"; exit 1; }
  after=$("$B/tilt-fuzz" count "$T/out.wasm")
  echo "seed $s: $before nodes -> $after nodes"
  [ "$after" -le 10 ] || { echo "not reduced enough"; exit 1; }
  if command -v wasm-validate >/dev/null; then
    wasm-validate --enable-threads --enable-tail-call --enable-extended-const --enable-relaxed-simd "$T/out.wasm" ||
      { echo "the reduced module does not validate"; exit 1; }
  fi
  ;;
reduce-gc)
  s=1
  while :; do
    "$B/tilt-fuzz" gen --gc --seed $s -o "$T/in.wasm"
    if "$B/tilt-fuzz" exec "$T/in.wasm" | grep -q "trap: cast failure"; then break; fi
    s=$((s + 1))
    if [ $s -gt 500 ]; then echo "no GC seed traps on a cast"; exit 1; fi
  done
  before=$("$B/tilt-fuzz" count "$T/in.wasm")
  "$B/tilt-fuzz" reduce "$T/in.wasm" --command "sh -c '! $B/tilt-fuzz exec {} | grep -q \"trap: cast failure\"'" \
    --seconds 120 -q -o "$T/out.wasm"
  "$B/tilt-fuzz" exec "$T/out.wasm" | grep -q "trap: cast failure" || { echo "reduced module lost the trap"; exit 1; }
  after=$("$B/tilt-fuzz" count "$T/out.wasm")
  echo "seed $s: $before nodes -> $after nodes"
  [ "$after" -le 10 ] || { echo "not reduced enough"; exit 1; }
  ;;
gc-validate)
  "$B/tilt-fuzz" gen --gc --seed 1 --count 10000 -o "$T"
  echo "10000 generated GC modules validate"
  ;;
esac
