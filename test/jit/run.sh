#!/bin/sh
# run.sh TILT_RUN REPO OUTDIR — tilt-run on the JIT (ctest jit.run): lazy
# compilation compiles only the functions called (--stats), --eager all of
# them; --fuel on the JIT stops a loop with the interpreter's message and
# exit status, and with enough fuel the result is the interpreter's.
# Exit 77 when wat2wasm is missing.
R=$1; REPO=$2; OUT=$3
command -v wat2wasm >/dev/null 2>&1 || { echo "wat2wasm not found; skipping"; exit 77; }
mkdir -p "$OUT"
W=$OUT/lazy.wasm
wat2wasm --enable-tail-call "$REPO/test/jit/lazy.wat" -o "$W" || exit 1
fail=0
check() {  # check WHAT GOT WANT
  if [ "$2" != "$3" ]; then echo "FAIL $1: got '$2', want '$3'"; fail=1; fi
}
got=$("$R" --stats --invoke fact "$W" 10 2>"$OUT/err")
check "fact" "$got" "i32:3628800"
check "lazy stats" "$(cut -d, -f1 "$OUT/err")" "jit: 1 of 10 functions compiled"
"$R" --stats --invoke ind "$W" 3 7 >/dev/null 2>"$OUT/err"
check "call_indirect stats" "$(cut -d, -f1 "$OUT/err")" "jit: 2 of 10 functions compiled"
"$R" --eager --stats --invoke even "$W" 10 >/dev/null 2>"$OUT/err"
check "eager stats" "$(cut -d, -f1 "$OUT/err")" "jit: 10 of 10 functions compiled"
for e in --jit --interp; do
  "$R" $e --fuel 100000 --invoke forever "$W" >/dev/null 2>"$OUT/err"
  check "$e fuel status" "$?" "134"
  check "$e fuel message" "$(cat "$OUT/err")" "error: fuel exhausted"
  check "$e fuel result" "$("$R" $e --fuel 100000000 --invoke spin "$W" 100000)" "i32:100000"
done
"$R" --eager --fuel 1000 --invoke spin "$W" 100000000 >/dev/null 2>"$OUT/err"
check "eager fuel" "$(cat "$OUT/err")" "error: fuel exhausted"
exit $fail
