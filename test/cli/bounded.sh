#!/usr/bin/env bash
# bounded.sh — no single instruction runs unbounded work (issue 17): a
# memory grown one page at a time to 4 GiB grows in place (it was a copy of
# the whole memory per grow in the interpreter: quadratic, hours), and in
# both engines bulk memory and table instructions pay fuel for their length,
# so a --fuel run that loops over them stops in well under a second.
. "$(dirname "$0")/common.inc"
[ -n "${TILT_RUN:-}" ] || { echo "SKIP: tilt-run is not built"; exit 77; }
need wat2wasm
# run NAME ENGINE WAT EXPECTED [RUN-OPTIONS...]: tilt-run's output (stdout
# and stderr) on the export "f" of the module WAT must be EXPECTED, in 60 s.
run() {
  local name=$1 engine=$2 wat=$3 want=$4; shift 4
  if [ "$wat" != "$(cat m.wat 2>/dev/null)" ]; then   # both engines: one wat2wasm
    printf '%s' "$wat" > m.wat
    wat2wasm m.wat -o m.wasm 2>wat.err || { fail "$name: wat2wasm: $(head -c 300 wat.err)"; rm m.wat; return; }
  fi
  local got
  got=$(timeout 60 "$TILT_RUN" "$engine" "$@" --invoke f m.wasm 2>&1)
  if [ "$got" = "$want" ]; then pass "$name $engine"
  else fail "$name $engine $*: got '$(printf '%s' "$got" | head -c 300)', want '$want'"; fi
}

GROW='(module (memory 0)
  (func (export "f") (result i32)
    (block $done (loop $more
      (br_if $done (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
      (br $more)))
    (i32.store8 (i32.const -1) (i32.const 7))
    (i32.add (memory.size) (i32.load8_u (i32.const -1)))))'
for e in --interp --jit; do run memory.grow-to-4GiB $e "$GROW" i32:65543; done

# loop BODY: a function looping 100,000 times over BODY, with a 16 MiB
# memory, a 1,000,000-entry table, a 64 KiB passive data segment and a
# 10,000-entry passive element segment.
SEG=$(printf '%*s' 65536 '' | tr ' ' 'x')
ELEMS=$(printf '$g %.0s' $(seq 10000))
loop() {
  printf '%s' "(module (memory 256) (table \$t 1000000 funcref) (func \$g)
  (data \$d \"$SEG\") (elem \$e func $ELEMS)
  (func (export \"f\") (result i32) (local \$i i32)
    (loop \$l $1
      (local.set \$i (i32.add (local.get \$i) (i32.const 1)))
      (br_if \$l (i32.lt_u (local.get \$i) (i32.const 100000))))
    (local.get \$i)))"
}
# Charged one fuel each, these ran 100,000 x 16 MiB (or x 1,000,000
# entries) within the 1,000,000-instruction budget: minutes to hours. Paying
# for their length, each stops at "fuel exhausted" within a second.
STOP='error: fuel exhausted'
bulk() {   # NAME BODY EXPECTED FUEL
  for e in --interp --jit; do run "$1" $e "$(loop "$2")" "$3" --fuel "$4"; done
}
bulk memory.fill '(memory.fill (i32.const 0) (local.get $i) (i32.const 16777216))' "$STOP" 1000000
bulk memory.copy '(memory.copy (i32.const 1) (i32.const 0) (i32.const 16777215))' "$STOP" 1000000
bulk memory.init '(memory.init $d (i32.const 0) (i32.const 0) (i32.const 65536))' "$STOP" 1000000
bulk table.fill '(table.fill $t (i32.const 0) (ref.null func) (i32.const 1000000))' "$STOP" 1000000
bulk table.copy '(table.copy $t $t (i32.const 1) (i32.const 0) (i32.const 999999))' "$STOP" 1000000
bulk table.init '(table.init $t $e (i32.const 0) (i32.const 0) (i32.const 10000))' "$STOP" 1000000
# table.grow by one entry 100,000 times: realloc per grow copied the whole
# table under ASan (quadratic); capacity now doubles
bulk table.grow '(drop (table.grow $t (ref.null func) (i32.const 1)))' i32:100000 10000000
finish
