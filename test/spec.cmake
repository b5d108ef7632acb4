# Spec round-trip test: every module of the spec suite through tilt-roundtrip
# (and wasm-validate on its output); skips with a message if the suite, wabt
# or python3 is missing. Suite path: $TILT_TESTSUITE or ../shared/testsuite.
find_program(TILT_PYTHON3 python3)
if(TILT_PYTHON3)
  add_test(NAME spec.roundtrip
           COMMAND ${TILT_PYTHON3} ${CMAKE_SOURCE_DIR}/test/spec/roundtrip.py
                   --tool $<TARGET_FILE:tilt-roundtrip>
                   --work ${CMAKE_BINARY_DIR}/spec-work
                   --failures ${CMAKE_BINARY_DIR}/spec-failures)
  set_tests_properties(spec.roundtrip PROPERTIES TIMEOUT 900 SKIP_REGULAR_EXPRESSION "^SKIP:")
endif()
