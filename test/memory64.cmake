# A clang --target=wasm64 module through tilt-opt and both engines (issue 20).
add_test(NAME memory64.clang
         COMMAND sh ${CMAKE_SOURCE_DIR}/test/memory64/run.sh $<TARGET_FILE:tilt-opt>
                 $<TARGET_FILE:tilt-run> ${CMAKE_CURRENT_BINARY_DIR}/memory64)
set_tests_properties(memory64.clang PROPERTIES SKIP_RETURN_CODE 77)
