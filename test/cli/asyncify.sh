#!/usr/bin/env bash
# asyncify.sh — tilt-opt --asyncify (issue 22) where it matters: the
# instrumented module pauses and resumes under a host. test/asyncify/
# program.wat is instrumented at each level (and with the pass-args emcc
# uses), then test/asyncify/driver.mjs runs it under node: env.sleep unwinds
# the stack, the driver rewinds it; every env.log line must equal the run
# of the uninstrumented program, and the stack must really have unwound
# (the count the driver prints). Refusals are checked in cli.errors.
. "$(dirname "$0")/common.inc"
need node
need wat2wasm
D=$TILT_SRC/test/asyncify
# wat2wasm keeps the function names the lists match (tilt's text reader
# does not write a name section yet)
check "program.wat assembles with names" wat2wasm --enable-all --debug-names "$D/program.wat" -o plain.wasm
check_sh "the uninstrumented program runs" 'node "$D/driver.mjs" plain.wasm --plain > plain.txt'
want_unwinds=29   # env.sleep calls the program makes

# variant NAME ARGS...: instrument with ARGS, run, compare.
variant() {
  local name=$1; shift
  check "$name: tilt-opt $*" "$TILT_OPT" -all plain.wasm "$@" -o "$name.wasm"
  check_sh "$name: validates (wasm-validate)" '! command -v wasm-validate >/dev/null || wasm-validate --enable-all '"$name"'.wasm'
  check_sh "$name: same output as the uninstrumented run, state back to normal" \
    'node "$D/driver.mjs" '"$name"'.wasm > '"$name"'.txt 2> '"$name"'.err && grep -q "^state 0$" '"$name"'.txt &&
     grep -v "^state" '"$name"'.txt | diff plain.txt -'
  check_sh "$name: the stack unwound at every sleep ($want_unwinds)" 'grep -qx "unwinds $want_unwinds" '"$name"'.err'
}
IMPORTS=--pass-arg=asyncify-imports@env.sleep
for lv in -O0 -O1 -O2 -O3 -Os -Oz; do variant "after$lv" $lv --asyncify $IMPORTS; done
# the level the pass itself optimizes at, with no pipeline after it
for lv in 1 2 3 4; do variant "inside-ol$lv" -ol $lv --asyncify $IMPORTS; done
variant "then-O3" -ol 3 --asyncify $IMPORTS -O3
variant "every-import" --asyncify
variant "prefix" --asyncify --pass-arg=asyncify-imports@env.sl*
variant "asserts" --asyncify $IMPORTS --pass-arg=asyncify-asserts -O2
variant "onlylist" --asyncify --pass-arg=asyncify-onlylist@depth,twice,pair,floats,branchy,main
variant "removelist-other" --asyncify $IMPORTS --pass-arg=asyncify-removelist@plus
variant "export-globals" --asyncify $IMPORTS --pass-arg=asyncify-export-globals
check_sh "export-globals: __asyncify_state and __asyncify_data exported" \
  '"$TILT_OPT" -all export-globals.wasm --print | grep -q "export \"__asyncify_data\""'
# ignore-indirect: twice is reached only through the table, so it is left
# uninstrumented unless an add-list names it
check_sh "ignore-indirect leaves the indirect pause out" \
  '"$TILT_OPT" -all plain.wasm --asyncify $IMPORTS --pass-arg=asyncify-ignore-indirect --pass-arg=asyncify-verbose -o ii.wasm > ii.log && grep -qx "\[asyncify\] sleep is an import that can change the state" ii.log &&
   grep -qx "\[asyncify\] depth can change the state due to sleep" ii.log && ! grep -q "^\[asyncify\] main can change the state due to twice" ii.log'
variant "ignore-indirect+addlist" --asyncify $IMPORTS --pass-arg=asyncify-ignore-indirect --pass-arg=asyncify-addlist@main,twice,branchy
# --mod-asyncify-*: emcc's ASYNCIFY_LAZY_LOAD_CODE optimizes an instrumented
# module again under an assumption; where it holds the output is the same,
# and the module is smaller (the tests the assumption decides are folded)
check "base for mod-asyncify" "$TILT_OPT" -all plain.wasm -O2 --asyncify $IMPORTS -O2 -o base.wasm
check_sh "never-unwind: tilt-opt --mod-asyncify-never-unwind -O2" \
  '"$TILT_OPT" -all base.wasm --mod-asyncify-never-unwind -O2 -o never.wasm && { ! command -v wasm-validate >/dev/null || wasm-validate --enable-all never.wasm; }'
check_sh "never-unwind: sleeping never unwinds, same output as the uninstrumented run" \
  'node "$D/driver.mjs" never.wasm --never-unwind > never.txt 2>/dev/null && grep -qx "state 0" never.txt && grep -v "^state" never.txt | diff plain.txt -'
check_sh "never-unwind: smaller than the instrumented module" '[ $(wc -c < never.wasm) -lt $(wc -c < base.wasm) ]'
check_sh "always-and-only-unwind: tilt-opt --mod-asyncify-always-and-only-unwind -O2" \
  '"$TILT_OPT" -all base.wasm --mod-asyncify-always-and-only-unwind -O2 -o always.wasm && { ! command -v wasm-validate >/dev/null || wasm-validate --enable-all always.wasm; }'
check_sh "always-and-only-unwind: up to the first sleep as the instrumented module, then unwinding" \
  'node "$D/driver.mjs" base.wasm --first-unwind > first-base.txt 2>/dev/null && node "$D/driver.mjs" always.wasm --first-unwind > first-always.txt 2> first-always.err &&
   grep -qx "state 1" first-always.txt && grep -qx "unwinds 1" first-always.err && diff first-base.txt first-always.txt'
check_sh "always-and-only-unwind: smaller than the instrumented module" '[ $(wc -c < always.wasm) -lt $(wc -c < base.wasm) ]'
expect_error "mod-asyncify on a module asyncify did not instrument" \
  'mod-asyncify-never-unwind: the module has no exported asyncify_stop_unwind' "$TILT_OPT" -all plain.wasm --mod-asyncify-never-unwind -o x.wasm
# a response file for a list
printf 'env.sleep\n' > imports.txt
variant "response-file" --asyncify --pass-arg=asyncify-imports@@imports.txt
# nothing may pause: no function is instrumented (only asyncify_get_state
# reads the state)
check_sh "ignore-imports and ignore-indirect instrument nothing" \
  '"$TILT_OPT" -all plain.wasm --asyncify --pass-arg=asyncify-ignore-imports --pass-arg=asyncify-ignore-indirect --print > none.txt &&
   [ "$(grep -c "global.get \$__asyncify_state" none.txt)" = 1 ]'
# a function of reference result that pauses: flatten gives the value a
# reference-typed local, which cannot be saved (every local is saved), so
# it is refused with an error rather than miscompiled (tilt-fuzz opt-valid
# seeds 13400010245, 13400019184 gave it a v128 zero and v128 loads)
cat > ref.wat <<'W'
(module (import "env" "sleep" (func $sleep (param i32))) (memory 1)
  (func $r (export "r") (result externref) (call $sleep (i32.const 1)) (ref.null extern)))
W
expect_error "a reference-typed value across a pause is refused" \
  'asyncify: function 1 \(r\) would be instrumented but has a local of reference type' \
  "$TILT_OPT" -all ref.wat --asyncify -o ref.wasm
finish
