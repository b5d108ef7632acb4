#!/usr/bin/env bash
# lazyload.sh — emcc -sASYNCIFY_LAZY_LOAD_CODE with tilt's tools (issue 22):
# emcc 3.1.6 then runs wasm-opt --remove-memory --mod-asyncify-never-unwind
# (the lazily loaded copy) and --mod-asyncify-always-and-only-unwind (the
# first module). The link must succeed with tilt's tools, both modules must
# validate, and the lazy one must carry no data (cli.asyncify checks what
# the two passes do to behaviour and size). What runs is compared with the
# Binaryen 108 build where one is installed: emcc 3.1.6's own glue loses the
# program's state after the lazy load (its cached export wrappers keep
# calling the first instance; Binaryen's build prints the same broken
# lines), so only the output before the load is checked against the
# source's meaning, and the rest against Binaryen's build.
. "$(dirname "$0")/common.inc"
need emcc
need node
need wasm-validate
: "${TILT_BINARYEN_BIN:?set by test/cli.cmake}"
[ -d /usr/share/nodejs ] && export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
mkdir -p bin
for tool in wasm-opt wasm-metadce wasm-emscripten-finalize; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/tools.log"\nexec "%s/%s" "$@"\n' "$tool" "$T" "$TILT_BINARYEN_BIN" "$tool" > bin/$tool
  chmod +x bin/$tool
done
check "compiles" emcc -O2 -c "$TILT_SRC/test/emcc/lazyload.c" -o lazyload.o
check_sh "links with tilt's tools" 'PATH=$T/bin:$PATH emcc -O2 -sASYNCIFY -sASYNCIFY_LAZY_LOAD_CODE lazyload.o -o t.js'
check_sh "emcc ran --remove-memory --mod-asyncify-never-unwind" 'grep -q -- "--remove-memory --mod-asyncify-never-unwind" tools.log'
check_sh "emcc ran --mod-asyncify-always-and-only-unwind" 'grep -q -- "--mod-asyncify-always-and-only-unwind" tools.log'
check_sh "both modules validate" 'wasm-validate t.wasm && wasm-validate t.wasm.lazy.wasm'
check_sh "the lazy module has no data" '"$TILT_OPT" t.wasm.lazy.wasm -S -o - > lazy.wat && ! grep -q "(data" lazy.wat && "$TILT_OPT" t.wasm -S -o - | grep -q "(data"'
check_sh "runs up to the lazy load" 'node --no-experimental-fetch t.js > t.out 2>&1; head -1 t.out | grep -qx "before: 452762715"'
if command -v wasm-opt >/dev/null && wasm-opt --version | grep -q "version 108"; then
  check_sh "prints what the Binaryen 108 build prints" 'emcc -O2 -sASYNCIFY -sASYNCIFY_LAZY_LOAD_CODE lazyload.o -o b.js &&
    node --no-experimental-fetch b.js > b.out 2>&1; diff b.out t.out'
fi
finish
