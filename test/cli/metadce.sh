#!/usr/bin/env bash
# metadce.sh — tilt-metadce (Binaryen's wasm-metadce, as emcc runs it): the
# "unused:" lines for a graph with roots, exports, imports (GOT.mem read as
# env), a JS-only node and a dangling reach; what the module keeps; graph
# errors with byte offsets; --version under the Binaryen names. The
# expected lines are what wasm-metadce 108 prints for the same input (also
# compared directly when it is installed).
. "$(dirname "$0")/common.inc"
need wat2wasm
: "${TILT_METADCE:?set by test/cli.cmake}"

cat > m.wat <<'WAT'
(module
  (import "env" "js_log" (func $log (param i32)))
  (import "env" "unused_js" (func $unused_js))
  (import "env" "base" (global $base i32))
  (import "GOT.mem" "got" (global $got i32))
  (global $g (mut i32) (i32.const 0))
  (global $h i32 (global.get $base))
  (table 1 funcref)
  (elem (i32.const 0) $in_table)
  (func $main (export "main") (call $helper) (call $log (global.get $g)))
  (func $helper (global.set $g (global.get $got)))
  (func $dead (export "dead") (call $unused_js))
  (func $in_table)
  (func $orphan)
  (export "h" (global $h))
  (export "memory" (memory 0))
  (memory 1)
)
WAT
cat > g.json <<'JSON'
[
 {"name": "js$main", "reaches": ["wasm$main"], "root": true},
 {"name": "wasm$main", "export": "main"},
 {"name": "wasm$dead", "export": "dead"},
 {"name": "js$log", "import": ["env", "js_log"]},
 {"name": "js$unused", "import": ["env", "unused_js"]},
 {"name": "js$got", "import": ["env", "got"]},
 {"name": "js$never", "reaches": ["js$log", "nowhere"]}
]
JSON
cat > want.txt <<'TXT'
unused: export$h$8
unused: export$memory$9
unused: func$2$2
unused: func$4$4
unused: global$global$1$6
unused: js$never
unused: js$unused
unused: wasm$dead
TXT
wat2wasm m.wat -o m.wasm
wat2wasm --debug-names m.wat -o named.wasm
sed -e 's/func\$2\$2/func$dead$2/' -e 's/func\$4\$4/func$orphan$4/' -e 's/global\$global\$1\$6/global$h$6/' \
  want.txt | sort > want-named.txt

check "runs as emcc runs it" "$TILT_METADCE" --graph-file=g.json m.wasm -o out.wasm --mvp-features
check_sh "unused: lines (default names)" '"$TILT_METADCE" -f g.json m.wasm -o out.wasm > got.txt && diff want.txt got.txt'
check_sh "unused: lines (name-section names)" '"$TILT_METADCE" -f g.json named.wasm -o n.wasm > got.txt && diff want-named.txt got.txt'
# (the table nothing reads goes with its segment and in_table: Binaryen 108
# drops the table and segment too but keeps in_table, 3 functions)
check_sh "keeps main, js_log, got; drops dead, orphan, the unused exports and the unread table" \
  '"$TILT_OPT" out.wasm -S -o - > out.wat && grep -q "(export \"main\"" out.wat &&
   ! grep -q "\"dead\"\|\"h\"\|\"memory\"\|unused_js\|(table" out.wat && grep -q "js_log" out.wat &&
   [ "$(grep -c "^  (func " out.wat)" = 2 ]'
check_sh "-g keeps names" '"$TILT_METADCE" -f g.json named.wasm -g -o ng.wasm >/dev/null && customs ng.wasm | grep -qx name'
check_sh "-S writes text" '"$TILT_METADCE" -f g.json m.wasm -S -o o.wat >/dev/null && grep -q "^(module" o.wat'

if command -v wasm-metadce >/dev/null && wasm-metadce --version | grep -q "version 10[5-8]"; then
  check_sh "same lines as Binaryen's wasm-metadce" \
    'wasm-metadce -f g.json m.wasm -o b.wasm > b.txt && "$TILT_METADCE" -f g.json m.wasm -o t.wasm > t.txt && diff b.txt t.txt'
fi

printf '[{"name": "a", "root": false}]' > bad1.json
printf '[{"reaches": []}]' > bad2.json
printf '[{"name": "a", "reaches": ["b"' > bad3.json
printf '{"name": "a"}' > bad4.json
expect_error "root must be true" '^bad1\.json:0x[0-9a-f]+: error: graph: node.root' "$TILT_METADCE" -f bad1.json m.wasm
expect_error "a node needs a name" '^bad2\.json:0x1: error: graph: a node must have a name' "$TILT_METADCE" -f bad2.json m.wasm
expect_error "truncated graph" '^bad3\.json:0x1e: error: graph: ' "$TILT_METADCE" -f bad3.json m.wasm
expect_error "not an array" '^bad4\.json:0x0: error: graph: the graph must be a JSON array' "$TILT_METADCE" -f bad4.json m.wasm
expect_error "no graph file" 'no graph file provided' "$TILT_METADCE" m.wasm -o x.wasm

check_sh "--version as tilt-metadce" '"$TILT_METADCE" --version | grep -q "^tilt-metadce version [0-9]"'
if [ -n "${TILT_BINARYEN_BIN:-}" ]; then
  # emcc reads the third word as Binaryen's version number.
  check_sh "--version as wasm-metadce" '"$TILT_BINARYEN_BIN/wasm-metadce" --version | grep -Eq "^wasm-metadce version [0-9]+ \(tilt "'
  check_sh "--version as wasm-opt" '"$TILT_BINARYEN_BIN/wasm-opt" --version | grep -Eq "^wasm-opt version [0-9]+ \(tilt "'
fi
finish
