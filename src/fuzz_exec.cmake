list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/fuzz_exec.c)
