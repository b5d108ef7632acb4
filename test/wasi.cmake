# WASI programs compiled at test time and run under tilt-run (issue 3).
add_test(NAME wasi.interp
         COMMAND sh ${CMAKE_SOURCE_DIR}/test/wasi/run.sh $<TARGET_FILE:tilt-run>
                 ${CMAKE_CURRENT_BINARY_DIR}/wasi)
set_tests_properties(wasi.interp PROPERTIES SKIP_RETURN_CODE 77)
