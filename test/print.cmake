# print.cmake — the printer's spec round trip: print, assemble with wabt,
# print again, compare (test/print_roundtrip.sh). Skips (exit 77) without
# the spec suite or wabt.
add_test(NAME print.roundtrip
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/print_roundtrip.sh $<TARGET_FILE:tilt-dis>)
set_tests_properties(print.roundtrip PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 3600 ENVIRONMENT TILT_PRINT_STRIDE=6)
