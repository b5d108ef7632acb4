# File tests of the passes (test/lit/<pass>/*.wat); see test/lit/run_lit.py.
find_program(WAT2WASM wat2wasm)
if(WAT2WASM)
  add_test(NAME lit COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/lit/run_lit.py ${CMAKE_BINARY_DIR})
else()
  message(STATUS "wat2wasm not found: lit tests disabled")
endif()
