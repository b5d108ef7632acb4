list(APPEND TILT_SOURCES src/wasm-io/reader_code.c src/wasm-io/reader_gc.c src/wasm-io/reader_check.c src/wasm-io/code_scan.c src/wasm-io/names.c)
