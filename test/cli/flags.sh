#!/usr/bin/env bash
# flags.sh — --help, --version, -q, features and the strip flags.
. "$(dirname "$0")/common.inc"
need wat2wasm

check_sh "--help lists flags" '"$TILT_OPT" --help > h && grep -q -- --enable-simd h && grep -q -- --strip-producers h'
check_sh "--version" '"$TILT_OPT" --version | grep -q "^tilt-opt version [0-9]"'
check_sh "no -o: a warning and no output" '"$TILT_OPT" "$HELLO" 2>&1 >/dev/null | grep -q "no output file"'
check_sh "-q hides the warning" 'test -z "$("$TILT_OPT" "$HELLO" -q 2>&1)"'

# sign-ext is on by default, off with --mvp-features or --disable-sign-ext.
printf '(module (func (param i32) (result i32) (i32.extend8_s (local.get 0))))' > se.wat
wat2wasm se.wat -o se.wasm
check "sign-ext is a default feature" "$TILT_OPT" se.wasm -o /dev/null
expect_error "--mvp-features rejects sign-ext and names the flag" \
  '^se\.wasm:0x[0-9a-f]+: error: .*--enable-sign-ext' "$TILT_OPT" --mvp-features se.wasm -o /dev/null
expect_error "--disable-sign-ext" '--enable-sign-ext' "$TILT_OPT" --disable-sign-ext se.wasm -o /dev/null
check "-mvp then --enable-sign-ext" "$TILT_OPT" -mvp --enable-sign-ext se.wasm -o /dev/null
check "--detect-features" "$TILT_OPT" --mvp-features --detect-features se.wasm -o /dev/null

# Names: dropped by default, kept by -g, dropped by -g --strip-debug.
"$TILT_OPT" "$HELLO" -o plain.wasm
"$TILT_OPT" "$HELLO" -g -o g.wasm
"$TILT_OPT" "$HELLO" -g --strip-debug -o gs.wasm
check_sh "no name section by default" '! customs plain.wasm | grep -qx name'
check_sh "-g keeps the name section" 'customs g.wasm | grep -qx name'
check_sh "--strip-debug drops it" '! customs gs.wasm | grep -qx name'

# Other custom sections are kept unless a strip flag removes them.
add_custom "$HELLO" c1.wasm producers 00
add_custom c1.wasm c2.wasm .debug_info 78797a
add_custom c2.wasm c3.wasm mydata 616263
"$TILT_OPT" c3.wasm -o keep.wasm
"$TILT_OPT" c3.wasm --strip-producers -o np.wasm
"$TILT_OPT" c3.wasm --strip-debug -o nd.wasm
"$TILT_OPT" c3.wasm --strip-dwarf --strip-producers --strip-target-features -o all.wasm
check_sh "custom sections are kept" 'customs keep.wasm > k && grep -qx producers k && grep -qx mydata k && grep -qx .debug_info k'
check_sh "--strip-producers" 'customs np.wasm > k && ! grep -qx producers k && grep -qx .debug_info k'
check_sh "--strip-debug drops DWARF" 'customs nd.wasm > k && ! grep -qx .debug_info k && grep -qx producers k'
check_sh "strip flags keep other sections" \
  'customs all.wasm > k && grep -qx mydata k && ! grep -Eqx "producers|\.debug_info|target_features" k'
# The flags Emscripten and wasm-pack pass to wasm-opt are understood.
check "Emscripten's flags" "$TILT_OPT" "$HELLO" -O2 --low-memory-unused --zero-filled-memory \
  --post-emscripten --no-exit-runtime --strip-debug --strip-producers -o /dev/null
check "-lmu -ufm spellings" "$TILT_OPT" "$HELLO" -lmu -ufm -Oz -o /dev/null
# -O expands where it stands; --skip-pass drops a pass from it; -O after
# a flag still sees the flag.
check_sh "-O2 runs vacuum" '"$TILT_OPT" "$HELLO" -O2 -d -o /dev/null 2>&1 | grep -q "pass. vacuum"'
check_sh "--skip-pass vacuum" '! "$TILT_OPT" "$HELLO" -O2 --skip-pass vacuum -d -o /dev/null 2>&1 | grep -q "pass. vacuum"'
# --debug-ir prints the IR after each pass, the passes -optimizing passes run included.
check_sh "--debug-ir" '"$TILT_OPT" "$HELLO" --vacuum --simplify-globals-optimizing --debug-ir -o /dev/null 2>ir.txt && grep -q "^;; IR after pass vacuum" ir.txt && grep -q "^;; IR after pass simplify-globals-optimizing" ir.txt && grep -q "^(module" ir.txt'
# --debug validates after each pass an -optimizing pass runs inside, on the
# functions it ran on: the callee inlining moved its body out of is not
# "invalid" mid-way, and is gone from the output.
cat > inl.wat <<'WAT'
(module
  (func $helper (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func (export "f") (param i32) (result i32) (call $helper (local.get 0))))
WAT
wat2wasm inl.wat -o inl.wasm
check_sh "--debug -O2 through inlining-optimizing" \
  '"$TILT_OPT" inl.wasm --debug -O2 -o inl.o.wasm 2>dbg.txt && grep -q "pass. inlining-optimizing/precompute-propagate" dbg.txt && wasm-objdump -x inl.o.wasm | grep -q "Function\[1\]"'
# The passes that rename imports/exports are listed apart from the
# optimization passes (fuzzers and differential tests take only those).
check_sh "--help lists minify-imports as an interface pass" \
  '"$TILT_OPT" --help > h && sed -n "/^optimization passes/,/^\$/p" h > opt.txt && grep -q -- "--vacuum " opt.txt && ! grep -q minify opt.txt && sed -n "/^interface passes/,\$p" h | grep -q -- "--minify-imports-and-exports "'
expect_error "an unknown flag is an error" "unknown option '--no-such-flag'" "$TILT_OPT" "$HELLO" --no-such-flag
finish
