list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/text/lex.c ${CMAKE_SOURCE_DIR}/src/text/parse.c ${CMAKE_SOURCE_DIR}/src/text/api.c)
