# programs.corpus (issue 17): the C programs of test/programs/ built for
# wasm32-wasi at -O0 -O1 -O2 -Os -Oz and with gcc; a per-commit sample of
# (configuration x program x level x engine) cases, covering every pass,
# pipeline and program, must keep stdout and exit status equal to native
# (test/programs/run.py; seed from git HEAD, printed with a reproduce
# command per failure). Skips (77) without gcc or a wasm32-wasi clang.
# The whole cross product: python3 test/programs/run.py --build BUILD --full
find_program(TILT_PYTHON3 python3)
if(TILT_PYTHON3)
  add_test(NAME programs.corpus
           COMMAND ${TILT_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/programs/run.py
                   --build $<TARGET_FILE_DIR:tilt-opt> --work ${CMAKE_BINARY_DIR}/programs)
  set_tests_properties(programs.corpus PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
endif()
