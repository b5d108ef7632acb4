# tilt-writer-fuzz: writer stress tool (random unreachable nodes), used by test/spec/writer_fuzz.sh.
add_executable(tilt-writer-fuzz ${CMAKE_SOURCE_DIR}/tools/tilt-writer-fuzz.c)
target_include_directories(tilt-writer-fuzz PRIVATE ${CMAKE_SOURCE_DIR}/src/ir ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(tilt-writer-fuzz tilt_static)
