# tilt-roundtrip: the round-trip test tool used by test/spec, test/npm and bench.
add_executable(tilt-roundtrip ${CMAKE_SOURCE_DIR}/tools/tilt-roundtrip.c ${CMAKE_SOURCE_DIR}/tools/cli.c)
target_link_libraries(tilt-roundtrip tilt_static)
