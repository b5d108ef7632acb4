list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/fuzz/gen.c ${CMAKE_SOURCE_DIR}/src/fuzz/reduce.c
  ${CMAKE_SOURCE_DIR}/src/fuzz/denan.c ${CMAKE_SOURCE_DIR}/src/fuzz/textcheck.c)
