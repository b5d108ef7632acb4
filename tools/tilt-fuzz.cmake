# tilt-fuzz: random modules, differential fuzzing modes and a reducer (issue 8).
add_executable(tilt-fuzz ${CMAKE_SOURCE_DIR}/tools/tilt-fuzz.c ${CMAKE_SOURCE_DIR}/tools/cli.c)
target_include_directories(tilt-fuzz PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tools)
target_link_libraries(tilt-fuzz tilt_static)
