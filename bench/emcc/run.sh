#!/usr/bin/env bash
# bench/emcc/run.sh BUILD_DIR — every program of test/emcc built by emcc at
# -O0, -O1, -O2, -O3, -Os and -Oz with tilt's tools (BUILD_DIR/binaryen/bin
# first on PATH) and with Binaryen's: both outputs compared, then one line
# per build with the .wasm and .js sizes and the emcc link times, and per
# level the set's totals with their ratios (tilt / Binaryen). Not part of
# ctest (about 110 links); test/cli/emcc.sh does the work.
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
TILT_EMCC_ALL=1 TILT_OPT=$build/tilt-opt TILT_DIS=$build/tilt-dis TILT_SRC=$src \
  TILT_METADCE=$build/tilt-metadce TILT_BINARYEN_BIN=$build/binaryen/bin TILT_CTOR_EVAL=$build/tilt-ctor-eval \
  exec bash "$src/test/cli/emcc.sh"
