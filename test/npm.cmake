# npm round-trip test: the wasm modules of pinned npm packages (fetched into
# <build>/npm-cache, or $TILT_NPM_CACHE) through tilt-roundtrip and
# wasm-validate; skips with a message when npm or the network is unavailable.
find_program(TILT_PYTHON3 python3)
if(TILT_PYTHON3)
  add_test(NAME npm.roundtrip
           COMMAND ${TILT_PYTHON3} ${CMAKE_SOURCE_DIR}/test/npm/roundtrip.py
                   --tool $<TARGET_FILE:tilt-roundtrip>
                   --cache ${CMAKE_BINARY_DIR}/npm-cache
                   --failures ${CMAKE_BINARY_DIR}/npm-failures)
  set_tests_properties(npm.roundtrip PROPERTIES TIMEOUT 1800 SKIP_REGULAR_EXPRESSION "^SKIP:"
                       RESOURCE_LOCK npm_cache)
  # esbuild-wasm's Go module after tilt-opt -O2 / -Os runs under node as the original does
  add_test(NAME npm.esbuild_run
           COMMAND ${TILT_PYTHON3} ${CMAKE_SOURCE_DIR}/test/npm/esbuild_run.py
                   --tool $<TARGET_FILE:tilt-opt>
                   --cache ${CMAKE_BINARY_DIR}/npm-cache)
  set_tests_properties(npm.esbuild_run PROPERTIES TIMEOUT 1800 SKIP_REGULAR_EXPRESSION "^SKIP:"
                       RESOURCE_LOCK npm_cache)
endif()
