# cli.cmake — the command-line tests: each test/cli/*.sh is one ctest
# (cli.<name>), run with TILT_OPT, TILT_DIS, TILT_RUN and TILT_FUZZ (if built)
# and TILT_SRC set; exit 77 means skipped (a tool such as wabt is missing).
file(GLOB TILT_CLI_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cli/*.sh)
set(TILT_CLI_ENV "TILT_OPT=$<TARGET_FILE:tilt-opt>;TILT_DIS=$<TARGET_FILE:tilt-dis>;TILT_SRC=${CMAKE_SOURCE_DIR}")
if(TARGET tilt-run)
  list(APPEND TILT_CLI_ENV "TILT_RUN=$<TARGET_FILE:tilt-run>")
endif()
if(TARGET tilt-metadce)
  list(APPEND TILT_CLI_ENV "TILT_METADCE=$<TARGET_FILE:tilt-metadce>" "TILT_BINARYEN_BIN=${CMAKE_BINARY_DIR}/binaryen/bin")
endif()
if(TARGET tilt-emscripten-finalize)
  list(APPEND TILT_CLI_ENV "TILT_FINALIZE=$<TARGET_FILE:tilt-emscripten-finalize>")
endif()
if(TARGET tilt-ctor-eval)
  list(APPEND TILT_CLI_ENV "TILT_CTOR_EVAL=$<TARGET_FILE:tilt-ctor-eval>")
endif()
if(TARGET tilt-fuzz)
  list(APPEND TILT_CLI_ENV "TILT_FUZZ=$<TARGET_FILE:tilt-fuzz>")
endif()
foreach(script ${TILT_CLI_TESTS})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME cli.${name} COMMAND bash ${script})
  set_tests_properties(cli.${name} PROPERTIES
    ENVIRONMENT "${TILT_CLI_ENV}"
    SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
# Long under the sanitizers on a loaded machine (cli.dwarf took 101 s of a
# quiet CI run, and timed out at 300 s beside other work).
set_tests_properties(cli.dwarf cli.dwarf5 cli.emcc PROPERTIES TIMEOUT 900)
