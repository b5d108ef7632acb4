#!/usr/bin/env bash
# gc.sh — GC instructions through every layer but the engines: each
# test/lit/gc/*.tilt.wat (and the GC corpus in $TILT_GC_CORPUS, if set)
# reads, writes, prints; the printed text reads back to the same bytes; the
# binary reads back; -O2 and -O3 output reads back and prints. With
# $BINARYEN_WASM_OPT (a wasm-opt command line, e.g. "node .../wasm-opt")
# the written and optimized modules also pass binaryen's validator.
. "$(dirname "$0")/common.inc"
files=("$TILT_SRC"/test/lit/gc/*.tilt.wat)
[ -n "${TILT_GC_CORPUS:-}" ] && files+=("$TILT_GC_CORPUS"/*.wat)
# Exact round trips, but for: a dead br_on_cast prints as its operand
# (unreachable); a block of several values reads back through scratch
# tuple locals, one more set per round (br-on-values).
exact() { [ "$1" != unreachable.tilt ] && [ "$1" != br-on-values.tilt ]; }
for f in "${files[@]}"; do
  n=$(basename "$f" .wat)
  check "$n: writes" "$TILT_OPT" -all "$f" -o "$n.wasm"
  check "$n: prints" "$TILT_OPT" -all "$f" -S -o "$n.p.wat"
  check "$n: printed text reads back" "$TILT_OPT" -all "$n.p.wat" -o "$n.p.wasm"
  check "$n: printed again" "$TILT_OPT" -all "$n.p.wat" -S -o "$n.pp.wat"
  if [ "$n" != br-on-values.tilt ]; then
    check "$n: prints the same" cmp "$n.p.wat" "$n.pp.wat"
  fi
  if exact "$n"; then
    check "$n: to the same bytes" cmp "$n.wasm" "$n.p.wasm"
  fi
  check "$n: binary reads back" "$TILT_OPT" -all "$n.wasm" -o "$n.b.wasm"
  check "$n: its binary prints" "$TILT_OPT" -all "$n.wasm" -S -o "$n.b.wat"
  check "$n: and that reads back to it" "$TILT_OPT" -all "$n.b.wat" -o "$n.b2.wasm"
  if exact "$n"; then
    check "$n: byte for byte" cmp "$n.wasm" "$n.b2.wasm"
  fi
  for o in -O2 -O3; do
    check "$n: $o" "$TILT_OPT" -all "$n.wasm" $o -o "$n$o.wasm"
    check "$n: $o output reads back" "$TILT_OPT" -all "$n$o.wasm" -S -o "$n$o.wat"
    if [ -n "${BINARYEN_WASM_OPT:-}" ]; then
      check "$n: $o output passes wasm-opt" $BINARYEN_WASM_OPT -all "$n$o.wasm" -o /dev/null
    fi
  done
  if [ -n "${BINARYEN_WASM_OPT:-}" ]; then
    check "$n: passes wasm-opt" $BINARYEN_WASM_OPT -all "$n.wasm" -o /dev/null
  fi
done
finish
