# The GC corpus (test/gc/*.wat, real-world-shaped GC programs) against
# binaryen 132's --fuzz-exec: tilt's results, and its -O2/-O3/--closed-world
# outputs (valid under binaryen, the same results under both) on the
# interpreter (the JIT refuses gc modules). Fetches npm's binaryen 132 into
# <build>/npm-binaryen when no other copy is found; skips without npm.
find_program(TILT_PYTHON3_GC python3)
if(TILT_PYTHON3_GC)
  add_test(NAME gc.corpus
           COMMAND ${TILT_PYTHON3_GC} ${CMAKE_SOURCE_DIR}/test/gc/run.py ${CMAKE_BINARY_DIR}
                   --engines interp -j 2 --out ${CMAKE_BINARY_DIR}/gc-corpus
                   --fetch ${CMAKE_BINARY_DIR}/npm-binaryen)
  set_tests_properties(gc.corpus PROPERTIES TIMEOUT 1200 SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "^SKIP:")
endif()
