#!/usr/bin/env bash
# fuzzexec.sh — tilt-opt --fuzz-exec and tilt-fuzz tell the truth about
# what they compared. An export that runs out of fuel or call stack before
# (or after) the passes is "inconclusive", the exports after it are not
# run, and a run that compared nothing never says "the same"; tilt-fuzz
# counts such iterations apart. A WASI command gets a sandboxed WASI and
# enough fuel to print: its stdout is in the log and compared.
. "$(dirname "$0")/common.inc"
need wat2wasm

cat > m.wat <<'WAT'
(module
  (func (export "first") (result i32) (i32.const 7))
  (func (export "spin") (loop (br 0)))
  (func (export "never") (result i32) (i32.const 1)))
WAT
cat > only.wat <<'WAT'
(module (func (export "spin") (loop (br 0))))
WAT
cat > deep.wat <<'WAT'
(module (func $r (export "r") (call $r)))
WAT
cat > work.wat <<'WAT'
(module
  (func (export "sum") (result i32) (local i32 i32)
    (loop $l
      (local.set 1 (i32.add (local.get 1) (local.get 0)))
      (br_if $l (i32.lt_u (local.tee 0 (i32.add (local.get 0) (i32.const 1))) (i32.const 1000))))
    (local.get 1)))
WAT
for w in m only deep work; do wat2wasm $w.wat -o $w.wasm || { fail "wat2wasm $w.wat"; finish; }; done

# fx FILE ARGS...: tilt-opt --fuzz-exec, stdout in fx.out, stderr in fx.err
fx() { local f=$1; shift; "$TILT_OPT" --fuzz-exec "$@" "$f" -o out.wasm >fx.out 2>fx.err; }
verdict_same() { grep -Eq '^\[fuzz-exec\] the same after the passes( \(|$)' fx.out; }

fx m.wasm --vacuum; rc=$?
check_sh "a later export that spins: exit 0" "test $rc = 0"
check_sh "it is inconclusive, with the reason" \
  "grep -q '^\[fuzz-exec\] export \"spin\": inconclusive, not compared: fuel exhausted before the passes and after them' fx.out"
check_sh "the export before it was compared" \
  "grep -q 'the same after the passes for the 1 export before it; none after it ran' fx.out"
check_sh "the export after it did not run" "! grep -q 'never' fx.out"
check_sh "no plain 'the same' verdict" "! verdict_same"
check_sh "a warning on stderr" "grep -q 'warning: fuzz-exec: .*spin.* was cut short (fuel exhausted)' fx.err"

fx only.wasm --vacuum
check_sh "only a spinning export: nothing was compared" \
  "grep -q '^\[fuzz-exec\] inconclusive: nothing was compared' fx.out && ! verdict_same"
check_sh "... and stderr says so" "grep -q 'nothing compared' fx.err"

fx deep.wasm --vacuum
check_sh "endless recursion: call stack exhausted, inconclusive" \
  "grep -q 'export \"r\": inconclusive, not compared: call stack exhausted' fx.out && ! verdict_same"

fx work.wasm -O2
check_sh "a loop of 1000 iterations is compared with the default fuel" \
  "grep -q '^\[fuzz-exec\] the same after the passes (1 export compared)' fx.out"
fx work.wasm -O2 --fuzz-exec-fuel 100
check_sh "--fuzz-exec-fuel 100 cuts it short and says how to give more" \
  "grep -q 'each call may run 100 instructions: --fuzz-exec-fuel N gives more' fx.out && ! verdict_same"

# A WASI command: its output is logged and compared. fib(25) at -O0 runs
# about 16M instructions: more than an export call gets (10M), within what
# a WASI command's _start gets. (Before, stub imports made printf's
# fd_write loop until the fuel ran out, and that was called "the same".)
if command -v clang >/dev/null && [ -n "${TILT_RUN:-}" ]; then
  cat > fib.c <<'C'
#include <stdio.h>
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { printf("fib=%d\n", fib(25)); return 3; }
C
  if clang --target=wasm32-wasi --sysroot=/usr -O0 fib.c -o fib.wasm 2>cc.log; then
    want=$("$TILT_RUN" --interp fib.wasm)
    fx fib.wasm -O2
    check_sh "WASI -O0 fib(25): compared for real" "grep -q '^\[fuzz-exec\] the same after the passes (1 export compared)' fx.out"
    got=$(python3 -c '
import re, sys
log = open("fx.out").read().split("[fuzz-exec] the same")[0]
out = "".join(eval(s) for s in re.findall(r"^\[stdout (\".*\")\]$", log, re.M))
sys.stdout.write(out)')
    check_sh "its stdout in the log is what tilt-run prints" 'test -n "$want" && test "$got" = "$want"'
    check_sh "its exit status is in the log" "grep -q '^\[exit 3\]' fx.out"
    fx fib.wasm -O2 --fuzz-exec-fuel 100000
    check_sh "with too little fuel it is inconclusive, not the same" \
      "grep -q 'export \"_start\": inconclusive' fx.out && ! verdict_same"
  else
    echo "skip: cannot compile C for wasm32-wasi: $(head -c 200 cc.log)"
  fi
fi

# tilt-fuzz: with one instruction of fuel nothing can be compared; those
# iterations are counted as inconclusive, not as passes.
if [ -n "${TILT_FUZZ:-}" ]; then
  for mode in opt jit cfg; do
    "$TILT_FUZZ" $mode --seed 1 --iterations 4 --fuel 1 -q --out-dir fz >fz.out 2>fz.err; rc=$?
    n=$(sed -n 's/.* failures, \([0-9]*\) inconclusive.*/\1/p' fz.err)
    check_sh "tilt-fuzz $mode --fuel 1: iterations counted inconclusive (got ${n:-none})" \
      "test $rc = 0 && test -n '$n' && test '$n' -gt 0"
  done
fi

# flatten keeps an operand that never completes before the operands after
# it: inside inlining-optimizing at -O4 it hoisted the inlined throw of
# (throw 0 (unreachable) (f32.load (call 1))) before the bare unreachable, so
# the trap became an uncaught exception (lit flatten/unreachable-first)
if [ -n "${TILT_FUZZ:-}" ]; then
  check "tilt-fuzz opt seed 23120877220 (-O4 over EH) agrees" \
    "$TILT_FUZZ" opt --seed 23120877220 --iterations 1 -q --out-dir fz
fi
finish
