# Spec suite through the interpreter (issue 3): test/spec/runner converts each
# .wast with wast2json and runs it. Suite path: $TILT_TESTSUITE, default
# <repo>/../shared/testsuite; the test skips with a message if it is absent.
add_executable(spec-runner ${CMAKE_SOURCE_DIR}/test/spec/runner.c)
target_include_directories(spec-runner PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/src/ir
                                               ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(spec-runner tilt_static)
add_test(NAME spec.interp
         COMMAND sh ${CMAKE_SOURCE_DIR}/test/spec/run.sh $<TARGET_FILE:spec-runner>
                 ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/spec-json)
set_tests_properties(spec.interp PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)

# The same assertions against optimized modules (issues 4 and 5): every pass
# in the registry, and the -O2 pipeline (-Os and -Oz run the same passes).
foreach(p all O2)
  add_test(NAME spec.passes.${p}
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/spec/run_opt.sh $<TARGET_FILE:spec-runner>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/spec-json-${p} ${p})
  set_tests_properties(spec.passes.${p} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
endforeach()
