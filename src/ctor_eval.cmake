list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/ctor_eval.c)
