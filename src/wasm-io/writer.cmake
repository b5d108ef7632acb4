# writer: function bodies and constant expressions live beside writer.c.
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/wasm-io/writer_code.c)
# write-time stack optimization (tl_write_options.optimize_stack)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/wasm-io/stackopt.c)
