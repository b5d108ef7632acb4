# Fuzz-exec of every registered pass over the spec-suite modules, then
# wasm-validate of the output (test/passes/fuzzexec.py).
find_program(WAST2JSON wast2json)
find_program(WASM_VALIDATE wasm-validate)
if(WAST2JSON AND WASM_VALIDATE)
  add_test(NAME passes.fuzzexec COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/passes/fuzzexec.py ${CMAKE_BINARY_DIR})
  # CI runs a per-commit sample (every (pass, module) pair within 72 commits;
  # TILT_FUZZEXEC_STRIDE=1 runs all, TILT_SAMPLE_SEED repeats a sample).
  set_tests_properties(passes.fuzzexec PROPERTIES TIMEOUT 3600 ENVIRONMENT TILT_FUZZEXEC_STRIDE=72)
  # The same for every -O pipeline (issue 5), each over every module.
  add_test(NAME passes.fuzzexec.pipelines
           COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/passes/fuzzexec.py ${CMAKE_BINARY_DIR} O1 O2 O3 O4 Os Oz)
  set_tests_properties(passes.fuzzexec.pipelines PROPERTIES TIMEOUT 3600 ENVIRONMENT TILT_FUZZEXEC_STRIDE=24)
else()
  message(STATUS "wast2json or wasm-validate not found: passes.fuzzexec disabled")
endif()

# Output bytes do not depend on the thread count (issue 4).
add_test(NAME passes.threads
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/passes/threads.sh $<TARGET_FILE:tilt-opt> ${CMAKE_SOURCE_DIR})
set_tests_properties(passes.threads PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200)
