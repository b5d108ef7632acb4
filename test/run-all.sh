#!/usr/bin/env bash
# run-all.sh — the whole test suite, as CI runs it (.ci/run calls this):
#   1. configure and build with ASan+UBSan (gcc), run ctest;
#   2. every test/ci.d/*.sh step, in name order, each run as `bash STEP`
#      with TILT_SRC, TILT_BUILD (the sanitizer build dir), TILT_TESTSUITE
#      and JOBS in the environment;
#   3. build everything again with gcc without sanitizers (the README's
#      build: optimizer warnings such as -Wmaybe-uninitialized differ) and
#      with clang, to prove -Werror cleanliness under both compilers.
# To add a step (a fuzz run, ...), drop a script into test/ci.d/; exit 77
# from it means "skipped". Every step runs even if an earlier one failed;
# the exit status is non-zero if any failed. Build dirs: build-ci*, kept
# between runs (delete them for a clean build).
set -uo pipefail
export TILT_SRC=$(cd "$(dirname "$0")/.." && pwd)
export TILT_BUILD=${TILT_BUILD:-$TILT_SRC/build-ci}
export TILT_TESTSUITE=${TILT_TESTSUITE:-$TILT_SRC/../shared/testsuite}
export JOBS=${JOBS:-$(nproc)}
clang_build=${TILT_BUILD}-clang
plain_build=${TILT_BUILD}-gcc
failed=()

# step NAME CMD...: runs CMD, records a failure, never stops the script.
step() {
  local name=$1 start=$SECONDS rc; shift
  echo "=== $name"
  "$@"
  rc=$?
  if [ $rc -eq 0 ]; then echo "=== $name: ok ($((SECONDS - start))s)"
  elif [ $rc -eq 77 ]; then echo "=== $name: skipped"
  else echo "=== $name: FAILED (status $rc)"; failed+=("$name"); fi
}

sanitized() {
  cmake -S "$TILT_SRC" -B "$TILT_BUILD" -DTILT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build "$TILT_BUILD" -j "$JOBS"
}
tests() { (cd "$TILT_BUILD" && ctest --output-on-failure -j "$JOBS"); }
plain_gcc() {
  CC=gcc cmake -S "$TILT_SRC" -B "$plain_build" -DTILT_SANITIZE=OFF &&
    cmake --build "$plain_build" -j "$JOBS"
}
with_clang() {
  CC=clang cmake -S "$TILT_SRC" -B "$clang_build" -DTILT_SANITIZE=OFF -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$clang_build" -j "$JOBS"
}

step "build (gcc, sanitizers)" sanitized
if [ ${#failed[@]} -eq 0 ]; then
  step "ctest" tests
  for s in "$TILT_SRC"/test/ci.d/*.sh; do
    [ -e "$s" ] && step "$(basename "$s" .sh)" bash "$s"
  done
fi
step "build (gcc, no sanitizers)" plain_gcc
step "build (clang)" with_clang

if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all steps passed"
