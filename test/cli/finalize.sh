#!/usr/bin/env bash
# finalize.sh — tilt-emscripten-finalize (Binaryen's wasm-emscripten-finalize,
# as emcc 3.1.6 runs it on every link). test/finalize holds modules emcc
# 3.1.6 linked (before finalize) and cases.txt the command lines emcc gave
# for them; for each case the metadata JSON must be byte for byte NAME.json
# (what wasm-emscripten-finalize 108 printed), the module must validate and
# keep no i64 at the JS boundary. With Binaryen 108 installed, its output
# is compared live too, and both modules must behave the same under
# tilt-opt --fuzz-exec (exports called, import calls logged). Then
# --separate-data-segments, tilt-opt --legalize-js-interface against
# wasm-opt's, --check-stack-overflow, the flags tilt does not implement (errors naming them), and
# --version.
. "$(dirname "$0")/common.inc"
: "${TILT_FINALIZE:?set by test/cli.cmake}"
D=$TILT_SRC/test/finalize
ref=""
if command -v wasm-emscripten-finalize >/dev/null && wasm-emscripten-finalize --version | grep -q "version 108"; then
  ref=wasm-emscripten-finalize
else
  echo "note: Binaryen 108's wasm-emscripten-finalize is missing: no live comparison"
fi

# imports_exports FILE: the import and export lines of FILE's text.
imports_exports() { "$TILT_OPT" "$1" -S -o - | grep -E '^  \((import|export) '; }

while read -r name input flags; do
  case $name in ''|'#'*) continue ;; esac
  out=()
  case " $flags " in *" -o "*) flags=${flags% -o}; out=(-o t-$name.wasm) ;; esac
  check_sh "$name: metadata as Binaryen 108's" \
    '"$TILT_FINALIZE" $flags "$D/$input" ${out[@]+"${out[@]}"} > t-$name.json && diff "$D/$name.json" t-$name.json'
  [ ${#out[@]} = 0 ] && continue
  # (tilt-emscripten-finalize validates what it writes)
  "$TILT_OPT" t-$name.wasm -S -o t-$name.wat 2>/dev/null
  case " $flags " in *" --bigint "*|*" --no-legalize-javascript-ffi "*) ;; *)
    check_sh "$name: no i64 in the signatures of imports and exports" \
      'grep -E "^  \((import|export) " t-$name.wat > ie.txt && ! grep -q i64 ie.txt' ;;
  esac
  if [ -n "$ref" ]; then
    check_sh "$name: Binaryen 108 prints the same" \
      '$ref $flags "$D/$input" -o b-$name.wasm > b-$name.json && diff b-$name.json t-$name.json'
    case $name in asm|invoke|main-module|hello-standalone|hello-stack)
      check_sh "$name: behaves as Binaryen's module (--fuzz-exec)" \
        '"$TILT_OPT" b-$name.wasm --fuzz-exec -q > b.log 2>&1; "$TILT_OPT" t-$name.wasm --fuzz-exec -q > t.log 2>&1; diff b.log t.log' ;;
    esac
  fi
  if command -v wasm-validate >/dev/null; then
    check "$name: wasm-validate accepts it" wasm-validate --enable-all t-$name.wasm
  fi
  # Binaryen 108's finalize writes no target_features section (main-module
  # and side have one as input): the features are in the metadata
  check_sh "$name: no target_features section written" '! grep -q target_features t-$name.wasm'
done < "$D/cases.txt"

# What the legalization and dynCalls look like, without Binaryen.
# func_of WAT EXPORT: the header line of the function EXPORT names.
func_of() {
  local k
  k=$(grep -o "(export \"$2\" (func [0-9]*" "$1" | grep -o '[0-9]*$') && grep "^  (func (;$k;)" "$1"
}
check_sh "asm: twice64 (i64) -> a stub (i32 i32) -> i32, the high half via setTempRet0" \
  'func_of t-asm.wat twice64 | grep -q "(param i32) (param i32) (result i32)" &&
   grep -q "(import \"env\" \"setTempRet0\" (func (;[0-9]*;) (type [0-9]*) (param i32)))" t-asm.wat &&
   func_of t-asm.wat dynCall_jiji | grep -q "(param i32) (param i32) (param i32) (param i32) (param i32) (result i32)"'
check_sh "asm: EM_ASM/EM_JS exports gone, __main_argc_argv exported as main" \
  '! grep -q "__start_em_asm\|__stop_em_asm\|__em_js__\|__main_argc_argv" t-asm.wat && grep -q "(export \"main\"" t-asm.wat'
check_sh "asm-dyncalls: dynCalls for the table's signatures, not only i64 ones" \
  'grep -q "(export \"dynCall_ii\"" t-asm-dyncalls.wat && ! grep -q "(export \"dynCall_ii\"" t-asm.wat'
check_sh "asm-bigint: twice64 keeps its i64" 'func_of t-asm-bigint.wat twice64 | grep -q "(param i64) (result i64)"'
check_sh "invoke: invoke_jj imported as (i32 i32 i32) -> i32, getTempRet0 kept" \
  'grep -q "\"invoke_jj\" (func (;[0-9]*;) (type [0-9]*) (param i32) (param i32) (param i32) (result i32)" t-invoke.wat &&
   grep -q "\"getTempRet0\"" t-invoke.wat'
check_sh "main-module: the original of a legalized export as orig\$NAME" 'grep -q "(export \"orig\\$" t-main-module.wat'

# --separate-data-segments: one memory image from the global base.
check_sh "--separate-data-segments writes the data and drops the segments" \
  '"$TILT_FINALIZE" --dyncalls-i64 --separate-data-segments=mem.bin --global-base=1024 "$D/hello.wasm" -o sep.wasm > /dev/null &&
   grep -q "hello, world" mem.bin && ! "$TILT_OPT" sep.wasm -S -o - | grep -q "^  (data "'
if [ -n "$ref" ]; then
  check_sh "--separate-data-segments: the same image as Binaryen's" \
    '$ref --dyncalls-i64 --separate-data-segments=bmem.bin --global-base=1024 "$D/hello.wasm" -o bsep.wasm > /dev/null && cmp bmem.bin mem.bin'
fi

# tilt-opt --legalize-js-interface (emcc runs it after instrumentation).
if command -v wat2wasm >/dev/null; then
  cat > l.wat <<'WAT'
(module
  (import "env" "imp" (func $imp (param i32 i64) (result i64)))
  (import "env" "invoke_vj" (func $inv (param i32 i64)))
  (table 2 funcref)
  (elem (i32.const 0) $imp $f)
  (func $f (export "f") (param $a i64) (param $b f64) (result i64)
    (call $inv (i32.const 1) (local.get $a))
    (i64.add (call $imp (i32.const 7) (local.get $a)) (i64.const 0x100000001)))
  (func (export "dynCall_jj") (param i32 i64) (result i64)
    (call_indirect (param i64 f64) (result i64) (local.get 1) (f64.const 1) (local.get 0)))
)
WAT
  wat2wasm --debug-names l.wat -o l.wasm
  for p in --legalize-js-interface --legalize-js-interface-minimally; do
    check_sh "tilt-opt $p: valid" '"$TILT_OPT" l.wasm '"$p"' -o tl.wasm'
    if command -v wasm-opt >/dev/null && wasm-opt --version | grep -q "version 10[5-8]"; then
      check_sh "tilt-opt $p: behaves as wasm-opt's" \
        'wasm-opt l.wasm '"$p"' -o bl.wasm && "$TILT_OPT" bl.wasm --fuzz-exec -q > b.log 2>&1;
         "$TILT_OPT" tl.wasm --fuzz-exec -q > t.log 2>&1; diff b.log t.log'
    fi
  done
  check_sh "tilt-opt --legalize-js-interface: f takes (i32 i32 f64), imp is imported legal" \
    '"$TILT_OPT" l.wasm --legalize-js-interface -S -o l.txt &&
     grep -q "(import \"env\" \"imp\" (func \$legalimport\$imp (;[0-9]*;) (type [0-9]*) (param i32) (param i32) (param i32) (result i32)" l.txt &&
     grep -q "(func \$legalstub\$f (;[0-9]*;) (type [0-9]*) (param i32) (param i32) (param f64) (result i32)" l.txt'
  check_sh "--pass-arg legalize-js-interface-export-originals" \
    '"$TILT_OPT" l.wasm --legalize-js-interface --pass-arg=legalize-js-interface-export-originals -S -o - |
     grep -q "(export \"orig\$f\" (func \$f))"'
fi

check_sh "hello-stack: stack pointer writes checked, __set_stack_limits exported" \
  'grep -q "(import \"env\" \"__handle_stack_overflow\"" t-hello-stack.wat && grep -q "(export \"__set_stack_limits\"" t-hello-stack.wat &&
   [ "$(grep -c "i32.gt_u (local.tee" t-hello-stack.wat)" -gt 1 ]'

expect_error "--all-features is an error naming it" "error: --all-features is not supported" \
  "$TILT_FINALIZE" --all-features "$D/hello.wasm" -o x.wasm
check "--dwarf on a module without DWARF (test/cli/dwarf.sh has DWARF)" "$TILT_FINALIZE" --dwarf "$D/hello.wasm" -o x.wasm
# emcc -gsource-map: -g --dwarf and the maps (the map carries the lines)
if command -v wasm-objdump >/dev/null; then
  SM="python3 $TILT_SRC/test/cli/srcmap.py"
  add_custom "$D/hello.wasm" hd.wasm .debug_line 00010203   # DWARF the map stands in for
  $SM make hd.wasm > h.map
  check_sh "source maps: the input has DWARF" 'customs hd.wasm | grep -q "^\.debug_line$"'
  check "source maps: finalize as emcc -gsource-map runs it" "$TILT_FINALIZE" --minimize-wasm-changes \
    --output-source-map-url=h2.map -g --dyncalls-i64 --dwarf hd.wasm -o h2.wasm \
    --detect-features --input-source-map=h.map --output-source-map=h2.map
  check "source maps: the map is sound" $SM check h2.wasm h2.map
  check_sh "source maps: no line made up" '[ -z "$(comm -23 <($SM lines h2.map) <($SM lines h.map))" ]'
  check_sh "source maps: no DWARF left" '! customs h2.wasm | grep -q "^\.debug_"'
fi
expect_error "an unknown option" "unknown option '--frobnicate'" "$TILT_FINALIZE" --frobnicate "$D/hello.wasm"
expect_error "an unknown --pass-arg" "only legalize-js-interface-export-originals" \
  "$TILT_FINALIZE" --pass-arg=foo@1 "$D/hello.wasm"
expect_error "--separate-data-segments needs --global-base" "needs --global-base" \
  "$TILT_FINALIZE" --separate-data-segments=m.bin "$D/hello.wasm" -o x.wasm
check_sh "--version as tilt-emscripten-finalize" '"$TILT_FINALIZE" --version | grep -q "^tilt-emscripten-finalize version [0-9]"'
if [ -n "${TILT_BINARYEN_BIN:-}" ]; then
  check_sh "--version as wasm-emscripten-finalize" \
    '"$TILT_BINARYEN_BIN/wasm-emscripten-finalize" --version | grep -Eq "^wasm-emscripten-finalize version [0-9]+ \(tilt "'
fi
finish
