# tilt-metadce: Binaryen's wasm-metadce on libtilt (issue 22), and the
# Binaryen names Emscripten calls the tools by.
set(TILT_BINARYEN_VERSION 106 CACHE STRING
    "the Binaryen version wasm-* names report in --version (emcc 3.1.6 expects 105 or 106)")
add_executable(tilt-metadce ${CMAKE_SOURCE_DIR}/tools/tilt-metadce.c ${CMAKE_SOURCE_DIR}/tools/cli.c)
target_link_libraries(tilt-metadce tilt_static)
install(TARGETS tilt-metadce RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
target_compile_definitions(tilt-metadce PRIVATE TILT_VERSION="${PROJECT_VERSION}")
add_executable(tilt-emscripten-finalize ${CMAKE_SOURCE_DIR}/tools/tilt-emscripten-finalize.c ${CMAKE_SOURCE_DIR}/tools/cli.c)
target_link_libraries(tilt-emscripten-finalize tilt_static)
install(TARGETS tilt-emscripten-finalize RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
target_compile_definitions(tilt-emscripten-finalize PRIVATE TILT_VERSION="${PROJECT_VERSION}")
add_executable(tilt-ctor-eval ${CMAKE_SOURCE_DIR}/tools/tilt-ctor-eval.c ${CMAKE_SOURCE_DIR}/tools/cli.c)
target_link_libraries(tilt-ctor-eval tilt_static)
install(TARGETS tilt-ctor-eval RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
target_compile_definitions(tilt-ctor-eval PRIVATE TILT_VERSION="${PROJECT_VERSION}")
foreach(tool tilt-opt tilt-metadce tilt-emscripten-finalize tilt-ctor-eval)
  target_compile_definitions(${tool} PRIVATE TILT_BINARYEN_VERSION=${TILT_BINARYEN_VERSION})
endforeach()

# The same tools under Binaryen's names, for emcc: BINARYEN_ROOT (or
# EM_BINARYEN_ROOT) names a prefix whose bin/ holds them (emsdk's emcc), or
# that bin/ goes first on PATH (Debian's emcc runs bare wasm-opt). In the
# build tree always (build/binaryen/bin, for the tests); installed with
# -DTILT_BINARYEN_NAMES=ON.
option(TILT_BINARYEN_NAMES "Install bin/wasm-opt, bin/wasm-metadce, bin/wasm-emscripten-finalize and bin/wasm-ctor-eval (links to tilt-opt, tilt-metadce, tilt-emscripten-finalize, tilt-ctor-eval)" OFF)
set(TILT_BINARYEN_TOOLS "wasm-opt:tilt-opt" "wasm-metadce:tilt-metadce" "wasm-emscripten-finalize:tilt-emscripten-finalize" "wasm-ctor-eval:tilt-ctor-eval")
foreach(pair ${TILT_BINARYEN_TOOLS})
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 alias)
  list(GET pair 1 tool)
  add_custom_command(TARGET ${tool} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/binaryen/bin
    COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE:${tool}> ${CMAKE_BINARY_DIR}/binaryen/bin/${alias})
  if(TILT_BINARYEN_NAMES)
    install(CODE "execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink ${tool}
                  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${alias}\")
                  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${alias} -> ${tool}\")")
  endif()
endforeach()
