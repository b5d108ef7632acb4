#!/usr/bin/env bash
# wat.sh — the tools read .wat text (issue 18): tilt-opt turns text into a
# module wasm-validate accepts and that matches wat2wasm's reading (compared
# through tilt-dis); a syntax error is FILE:LINE:COL: error: and status 1;
# 100,000-deep folded nesting reads without a crash; tilt-dis reads text.
. "$(dirname "$0")/common.inc"
need wat2wasm
need wasm-validate
need python3

cat > in.wat <<'WAT'
(module
  (type $bin (func (param i32 i32) (result i32)))
  (import "env" "log" (func $log (param i32)))
  (memory (export "mem") 1 2)
  (data (i32.const 16) "hi\00\ff")
  (table 2 funcref)
  (elem (i32.const 0) $add $fac)
  (global $g (mut i64) (i64.const -7))
  (func $add (type $bin) (i32.add (local.get 0) (local.get 1)))
  (func $fac (export "fac") (param $n i32) (result i32)
    (local $acc i32)
    (local.set $acc (i32.const 1))
    (block $done
      (loop $top
        (br_if $done (i32.le_s (local.get $n) (i32.const 1)))
        (local.set $acc (i32.mul (local.get $acc) (local.get $n)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $top)))
    (local.get $acc))
  (func (export "mix") (param f64) (result f64)
    (if (result f64) (f64.lt (local.get 0) (f64.const 0x1.8p1))
      (then (f64.mul (local.get 0) (f64.const -nan:0x8)))
      (else (f64.sqrt (local.get 0)))))
  (func (export "ind") (param i32 i32) (result i32)
    local.get 0
    local.get 1
    i32.const 0
    call_indirect (type $bin)
    i32.load8_u offset=16
    call $log
    global.get $g
    i32.wrap_i64))
WAT

check "tilt-opt in.wat -o a.wasm" "$TILT_OPT" in.wat -o a.wasm
check "wasm-validate accepts a.wasm" wasm-validate a.wasm
check "wat2wasm in.wat" wat2wasm in.wat -o w.wasm
check "tilt-opt w.wasm -o b.wasm" "$TILT_OPT" w.wasm -o b.wasm
check_sh "tilt-dis prints the same for both" '"$TILT_DIS" a.wasm > a.txt && "$TILT_DIS" b.wasm > b.txt && diff a.txt b.txt'
check_sh "-O2 too" '"$TILT_OPT" -O2 in.wat -o a2.wasm && "$TILT_OPT" -O2 w.wasm -o b2.wasm && "$TILT_DIS" a2.wasm > a2.txt && "$TILT_DIS" b2.wasm > b2.txt && diff a2.txt b2.txt'
check_sh "tilt-dis reads text, function ids kept as names (wasm-opt and wat2wasm --debug-names do)" \
  '"$TILT_DIS" in.wat > t.txt && grep -q "(import \"env\" \"log\" (func \$log" t.txt && grep -q "(call \$log" t.txt'

# An inline segment ((memory (data ...)), (table t (elem ...))) takes the
# next index of its space: $d and $e below are segment 1, as wat2wasm reads.
cat > seg.wat <<'WAT'
(module
  (memory (data "a")) (data $d "b")
  (table funcref (elem $f)) (elem $e func $f)
  (func $f data.drop $d elem.drop $e))
WAT
check_sh "ids after inline segments index as wat2wasm's do" \
  '"$TILT_OPT" seg.wat -o s1.wasm && wat2wasm seg.wat -o s2.wasm && "$TILT_OPT" s2.wasm -o s3.wasm && "$TILT_DIS" s1.wasm > s1.txt && "$TILT_DIS" s3.wasm > s3.txt && diff s1.txt s3.txt'

# Every $id written in the text is kept in the name section (as wat2wasm
# --debug-names and wasm-opt keep them), not only function ids: params and
# locals, tables, memories, globals, elem and data segments, tags; imports
# count in the index spaces; unnamed items get no name.
cat > ids.wat <<'WAT'
(module
  (type $unary (func (param i32) (result i32)))
  (import "env" "g" (global $gi i32))
  (import "env" "m" (memory $mi 1))
  (table $tab 1 funcref)
  (memory $mem 1)
  (global $g (mut i32) (i32.const 0))
  (global i32 (i32.const 1))
  (tag $e (param i32))
  (elem $el (i32.const 0) $add)
  (data $dat (memory $mem) (i32.const 0) "x")
  (data "y")
  (data $d2 "z")
  (func $add (type $unary) (param $a i32) (result i32) (local $l i32) (local i64) (local $m f32)
    (local.set $l (local.get $a))
    (global.set $g (local.get $l))
    (local.get $l))
  (func (param i32) (param $y i32) (local $z i32))
  (func (export "throw") (throw $e (i32.const 1))))
WAT
check_sh "-S prints the ids of types, params, locals, tables, memories, globals and segments" \
  '"$TILT_OPT" --all-features ids.wat -S > ids.txt && grep -qF "(type \$unary (;0;) (func (param i32) (result i32)))" ids.txt &&
   grep -qF "(param \$a i32) (result i32)" ids.txt && grep -qF "(local \$l i32) (local i64) (local \$m f32)" ids.txt &&
   grep -qF "(local.set \$l (local.get \$a))" ids.txt && grep -qF "(param i32) (param \$y i32)" ids.txt &&
   grep -qF "(local \$z i32)" ids.txt && grep -qF "(table \$tab (;0;)" ids.txt &&
   grep -qF "(memory \$mi (;0;)" ids.txt && grep -qF "(memory \$mem (;1;)" ids.txt &&
   grep -qF "(global \$gi (;0;)" ids.txt && grep -qF "(global.set \$g " ids.txt && grep -qF "(global (;2;) i32" ids.txt &&
   grep -qF "(elem \$el (;0;) (table \$tab)" ids.txt && grep -qF "(data \$dat (;0;) (memory \$mem)" ids.txt &&
   grep -qF "(data (;1;) \"y\")" ids.txt && grep -qF "(data \$d2 (;2;)" ids.txt'
cat > ids.expect <<'TXT'
 - func[0] <add>
 - func[0] local[0] <a>
 - func[0] local[1] <l>
 - func[0] local[3] <m>
 - func[1] local[1] <y>
 - func[1] local[2] <z>
 - type[0] <unary>
 - table[0] <tab>
 - memory[0] <mi>
 - memory[1] <mem>
 - global[0] <gi>
 - global[1] <g>
 - elemseg[0] <el>
 - dataseg[0] <dat>
 - dataseg[2] <d2>
TXT
# wabt 1.0.32 reads tag names from subsection 10 (the spec's, and tilt's, is 11).
check "-g writes them" "$TILT_OPT" --all-features ids.wat -g -o ids.wasm
if command -v wasm-objdump >/dev/null; then
  check_sh "wasm-objdump sees the name map of each space" \
    'wasm-objdump -x -j name ids.wasm | grep "^ - [a-z]*\[" > ids.got && diff ids.expect ids.got'
fi
check_sh "the name subsections are in increasing id order: 1 2 4 5 6 7 8 9 11" \
  'test "$(python3 "$TILT_SRC/test/cli/name_subsections.py" ids.wasm)" = "1 2 4 5 6 7 8 9 11"'
check_sh "and read back from the binary, they print the same" \
  '"$TILT_OPT" --all-features ids.wasm -S > ids2.txt && diff ids.txt ids2.txt'
if [ -n "${TILT_RUN:-}" ]; then
  printf '(module (tag $e (param i32)) (func (export "throw") (throw $e (i32.const 1))))' > tag.wat
  "$TILT_OPT" --all-features tag.wat -g -o tag.wasm
  expect_error "a tag id is kept through -g: an uncaught exception names it" '^error: uncaught exception: tag [$]e$' \
    "$TILT_RUN" --interp --invoke throw tag.wasm
fi

printf '(module\n  (func\n    (i32.add (i32.const 1) (i32.const 2) )))\n  (func $x (result i32) i32.const 0x)\n' > bad.wat
expect_error "a syntax error is FILE:LINE:COL: error:" '^bad\.wat:4:[0-9]+: error: ' "$TILT_OPT" bad.wat -o x.wasm
printf '(module (func (result i32) (i32.const 1)\n  (i32.bogus)))\n' > op.wat
expect_error "an unknown operator is located" '^op\.wat:2:4: error: unknown operator' "$TILT_OPT" op.wat -o x.wasm
printf '(module (func (block' > trunc.wat
# A bad local type after good ones (fuzz_text: the local's type buffer
# leaked on this error; ASan's leak check fails the test).
printf '(module\n  (func (local $x i32) (local $y (ref t $p))))\n' > badlocal.wat
expect_error "a bad local type is located, nothing leaks" '^badlocal\.wat:2:[0-9]+: error: ' "$TILT_OPT" badlocal.wat -o x.wasm
# An id inside an annotation names no token (fuzz_text: it renamed the
# token before the annotation, and at the start of a file wrote through a
# null pointer, which UBSan reports).
printf '(module (func $f (@x $g) (result i32) (i32.const 1)) (export "f" (func $f)))\n' > annid.wat
check "an id inside an annotation leaves the one before it alone" "$TILT_OPT" annid.wat -o x.wasm
printf '(@x $g)\n(module (func $f))\n' > annfirst.wat
check "an id inside a leading annotation" "$TILT_OPT" annfirst.wat -o x.wasm
# An atom among a table's inline element expressions (fuzz_text: the item
# count jumped back to token 1 and looped forever).
printf '(module (func $f) (table $t funcref (elem (ref.func $f) f)))\n' > elematom.wat
expect_error "an atom among inline element expressions is an error, not a hang" \
  '^elematom\.wat:1:[0-9]+: error: ' timeout 20 "$TILT_OPT" elematom.wat -o x.wasm
expect_error "truncated text is an error, not a crash" '^trunc\.wat:[0-9]+:[0-9]+: error: ' "$TILT_OPT" trunc.wat -o x.wasm

# Input with a NUL byte is binary, so it gets the binary reader's error at
# offset 0 (as wat2wasm and wasm-opt reject it). The lexer notes the NULs it
# accepts (in comments, after a backslash) and stops at any other; after a
# text error before the NUL, the input is searched for one.
printf '(module) ;; \000\n' > nulcomment.wat
expect_error "a NUL in a line comment makes the input binary" '^nulcomment\.wat:0x0: error: ' "$TILT_OPT" nulcomment.wat -o x.wasm
printf '(module (; \000 ;))' > nulblock.wat
expect_error "a NUL in a block comment too" '^nulblock\.wat:0x0: error: ' "$TILT_OPT" nulblock.wat -o x.wasm
printf '(module (memory 1) (data (i32.const 0) "\\\000"))' > nulesc.wat
expect_error "a NUL after a backslash in a string too" '^nulesc\.wat:0x0: error: ' "$TILT_OPT" nulesc.wat -o x.wasm
printf '(module (func nop \000))' > nultok.wat
expect_error "a NUL between tokens too" '^nultok\.wat:0x0: error: ' "$TILT_OPT" nultok.wat -o x.wasm
printf '(module (func "\n))\n\000' > nullate.wat
expect_error "a NUL after a text error too" '^nullate\.wat:0x0: error: ' "$TILT_OPT" nullate.wat -o x.wasm

# Errors the validator finds in the bytes made from the text are located
# at the instruction they are about (found again by a second parse that
# keeps where each instruction came from), in folded and flat code, in a
# later function, at a block's end and in a constant expression.
printf '(module\n  (func (result i32) (i32.const 1))\n  (func (result i32)\n    (i32.add (i64.const 1) (i32.const 2))))\n' > vfold.wat
expect_error "a folded instruction's type error is located" '^vfold\.wat:4:6: error: type mismatch in i32\.add' "$TILT_OPT" vfold.wat -o x.wasm
printf '(module (memory 1)\n  (func (param i32)\n    local.get 0\n    f32.load\n    i32.eqz\n    drop))\n' > vflat.wat
expect_error "a flat instruction's type error is located" '^vflat\.wat:5:5: error: type mismatch in i32\.eqz' "$TILT_OPT" vflat.wat -o x.wasm
printf '(module\n  (func (param $x i32) (result i32)\n    (if (result i32) (local.get $x)\n      (then (i32.const 1))\n      (else (f32.const 2)))))\n' > vend.wat
expect_error "a block end's type error is at its parenthesis" '^vend\.wat:5:26: error: type mismatch in end' "$TILT_OPT" vend.wat -o x.wasm
printf '(module\n  (global $g i32 (i64.const 3)))\n' > vglob.wat
expect_error "a constant expression's type error is located" '^vglob\.wat:2:31: error: type mismatch in constant' "$TILT_OPT" vglob.wat -o x.wasm
printf '(module\n  (func (call 7)))\n' > vcall.wat
expect_error "an unknown index is located" '^vcall\.wat:2:10: error: unknown function 7' "$TILT_OPT" vcall.wat -o x.wasm

# 100,000 folded blocks inside one function: read without recursion.
python3 -c 'n = 100000; print("(module (func (export \"f\") (result i32) " + "(block (result i32) " * n + "(i32.const 7)" + ")" * n + "))")' > deep.wat
check_sh "100,000-deep folded nesting reads" '"$TILT_OPT" deep.wat -o deep.wasm && wasm-validate deep.wasm'
if [ -n "${TILT_RUN:-}" ]; then
  check_sh "and runs" '"$TILT_RUN" --interp --invoke f deep.wasm | grep -qx i32:7'
fi
python3 -c 'n = 100000; print("(module (func " + "(nop " * n + ")" * n + "))")' > deepnop.wat
check "100,000-deep folded plain instructions read" "$TILT_OPT" deepnop.wat -o x.wasm
python3 -c 'n = 100000; print("(module (func " + "(block " * n)' > open.wat
expect_error "100,000 unclosed blocks are an error, not a crash" '^open\.wat:[0-9]+:[0-9]+: error: ' "$TILT_OPT" open.wat -o x.wasm

# The relaxed dot products under the names wabt 1.0.32's wasm2wat writes
# (texts of real relaxed-SIMD modules carry them) mean the final ops.
dots='(func (param v128 v128 v128) (result v128 v128) (OP16 (local.get 0) (local.get 1)) (OP32 (local.get 0) (local.get 1) (local.get 2)))'
echo "(module ${dots})" | sed 's/OP16/i16x8.dot_i8x16_i7x16_s/; s/OP32/i32x4.dot_i8x16_i7x16_add_s/' > olddot.wat
echo "(module ${dots})" | sed 's/OP16/i16x8.relaxed_dot_i8x16_i7x16_s/; s/OP32/i32x4.relaxed_dot_i8x16_i7x16_add_s/' > newdot.wat
check_sh "wabt's names of the relaxed dot products read" '"$TILT_OPT" -all olddot.wat -o olddot.wasm'
check_sh "as the final names do" '"$TILT_OPT" -all newdot.wat -o newdot.wasm && cmp olddot.wasm newdot.wasm'
finish
