# The JIT (issue 7): the spec suite and the WASI programs on the JIT; the
# interpreter's WASI run is pinned to the interpreter (tilt-run's default
# engine is the JIT). Unit tests are test/unit/jit_*_test.c.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  add_test(NAME spec.jit
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/jit/spec.sh $<TARGET_FILE:spec-runner>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/spec-json-jit)
  set_tests_properties(spec.jit PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
  add_test(NAME wasi.jit
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/wasi/run.sh $<TARGET_FILE:tilt-run>
                   ${CMAKE_CURRENT_BINARY_DIR}/wasi-jit)
  set_tests_properties(wasi.jit PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT TILT_ENGINE=jit)
  if(TEST wasi.interp)
    set_tests_properties(wasi.interp PROPERTIES ENVIRONMENT TILT_ENGINE=interp)
  endif()
endif()
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  add_executable(jit-diff ${CMAKE_SOURCE_DIR}/test/jit/diff.c)
  target_link_libraries(jit-diff tilt_static)
  add_test(NAME jit.diff
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/jit/diff.sh $<TARGET_FILE:jit-diff>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/jit-diff-json)
  set_tests_properties(jit.diff PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
endif()
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  add_test(NAME jit.run
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/jit/run.sh $<TARGET_FILE:tilt-run>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/jit-run)
  set_tests_properties(jit.run PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # jit.simd: SIMD kernels (clang -msimd128) print what native builds print.
  add_test(NAME jit.simd
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/jit/simd.sh $<TARGET_FILE:tilt-run> $<TARGET_FILE:tilt-opt>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/jit-simd)
  set_tests_properties(jit.simd PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  # jit.emcc_eh: C++ exceptions (em++ -fwasm-exceptions) on the JIT.
  add_test(NAME jit.emcc_eh
           COMMAND sh ${CMAKE_SOURCE_DIR}/test/jit/emcc_eh.sh $<TARGET_FILE:tilt-run>
                   $<TARGET_FILE:tilt-opt> ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/jit-emcc-eh)
  set_tests_properties(jit.emcc_eh PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
