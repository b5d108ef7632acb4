# Write-time stack optimization over the spec-suite modules, plain and
# after -O2: outputs validate and fuzz-exec the same as without it
# (test/stackopt/stackopt.py; every 6th module, a different sixth per
# commit, to stay in the CI budget; TILT_STACKOPT_STRIDE=1 runs all).
find_program(WAST2JSON wast2json)
find_program(WASM_VALIDATE wasm-validate)
if(WAST2JSON AND WASM_VALIDATE)
  add_test(NAME stackopt.spec COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/stackopt/stackopt.py ${CMAKE_BINARY_DIR})
  set_tests_properties(stackopt.spec PROPERTIES TIMEOUT 1800 ENVIRONMENT TILT_STACKOPT_STRIDE=6)
else()
  message(STATUS "wast2json or wasm-validate not found: stackopt.spec disabled")
endif()
