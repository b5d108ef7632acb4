#!/usr/bin/env bash
# run.sh — the example still works after tilt-opt: run by tilt-run (and by
# node's WASI, when node is installed), output and results unchanged.
. "$(dirname "$0")/common.inc"
[ -n "${TILT_RUN:-}" ] || { echo "SKIP: tilt-run is not built"; exit 77; }

"$TILT_OPT" "$HELLO" -o out.wasm
# Both engines: the default (the JIT) and the reference interpreter.
for engine in "" --interp; do
  E=$engine
  check_sh "tilt-run ${E:-(default engine)}: hello, world" 'test "$("$TILT_RUN" $E out.wasm)" = "hello, world"'
  check_sh "tilt-run ${E:-(default engine)}: fac 10" 'test "$("$TILT_RUN" $E --invoke fac out.wasm 10)" = "i64:3628800"'
done
# An uncaught wasm exception: "uncaught exception" naming the tag, status 1,
# on the interpreter and on the JIT (the default engine).
printf '(module (tag $e (export "boom") (param i32)) (func (export "f") (throw $e (i32.const 1))))' > eh.wat
"$TILT_OPT" --all-features eh.wat -o eh.wasm
expect_error "tilt-run --interp: uncaught exception" '^error: uncaught exception: tag boom$' \
  "$TILT_RUN" --interp --invoke f eh.wasm
expect_error "tilt-run --jit: uncaught exception" '^error: uncaught exception: tag boom$' \
  "$TILT_RUN" --jit --invoke f eh.wasm
if command -v node >/dev/null; then
  cat > run.mjs <<'JS'
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';
const wasi = new WASI({ version: 'preview1' });
const mod = await WebAssembly.compile(readFileSync(process.argv[2]));
const inst = await WebAssembly.instantiate(mod, wasi.getImportObject());
wasi.start(inst);
console.log(String(inst.exports.fac(10n)));
JS
  check_sh "node: same output" \
    'test "$(node --no-warnings run.mjs out.wasm)" = "$(printf "hello, world\n3628800")"'
fi
finish
