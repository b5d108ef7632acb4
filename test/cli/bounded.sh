#!/usr/bin/env bash
# bounded.sh — no single instruction runs unbounded work (issue 17): a
# memory grown one page at a time to 4 GiB grows in place (it was a copy of
# the whole memory per grow in the interpreter: quadratic, hours), and in
# both engines bulk memory and table instructions pay fuel for their length,
# so a --fuel run that loops over them stops in well under a second.
. "$(dirname "$0")/common.inc"
[ -n "${TILT_RUN:-}" ] || { echo "SKIP: tilt-run is not built"; exit 77; }
need wat2wasm
# run ENGINE WAT EXPECTED [RUN-OPTIONS...]: tilt-run's output (stdout and
# stderr) on the export "f" of the module WAT must be EXPECTED, within 60 s.
run() {
  local engine=$1 wat=$2 want=$3; shift 3
  printf '%s\n' "$wat" > m.wat
  wat2wasm --enable-all m.wat -o m.wasm || { fail "wat2wasm: $wat"; return; }
  local got
  got=$(timeout 60 "$TILT_RUN" "$engine" "$@" --invoke f m.wasm 2>&1)
  if [ "$got" = "$want" ]; then pass "$engine $*: ${wat:0:70}"
  else fail "$engine $*: ${wat:0:70}: got '$got', want '$want'"; fi
}

GROW='(module (memory 0)
  (func (export "f") (result i32)
    (block $done (loop $more
      (br_if $done (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
      (br $more)))
    (i32.store8 (i32.const -1) (i32.const 7))
    (i32.add (memory.size) (i32.load8_u (i32.const -1)))))'
for e in --interp --jit; do run $e "$GROW" i32:65543; done
finish
