#!/usr/bin/env bash
# bench/emcc/run.sh BUILD_DIR — every program of test/emcc built by emcc at
# -O2, -O3, -Os and -Oz with tilt's tools (BUILD_DIR/binaryen/bin first on
# PATH) and with Binaryen's: both outputs compared, then one line per build
# with the .wasm and .js sizes and the emcc link times. Not part of ctest
# (about 25 links); test/cli/emcc.sh does the work.
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
TILT_EMCC_ALL=1 TILT_OPT=$build/tilt-opt TILT_DIS=$build/tilt-dis TILT_SRC=$src \
  TILT_METADCE=$build/tilt-metadce TILT_BINARYEN_BIN=$build/binaryen/bin \
  exec bash "$src/test/cli/emcc.sh"
