# tilt-run: run wasm in the reference interpreter (issue 3).
add_executable(tilt-run ${CMAKE_SOURCE_DIR}/tools/tilt-run.c ${CMAKE_SOURCE_DIR}/tools/cli.c
               ${CMAKE_SOURCE_DIR}/tools/wast.c)
target_include_directories(tilt-run PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/tools)
target_link_libraries(tilt-run tilt_static)
install(TARGETS tilt-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
