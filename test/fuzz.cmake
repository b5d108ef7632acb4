# libFuzzer targets, only with -DTILT_FUZZ=ON under clang (use a separate
# build dir; test/fuzz/run.sh does it all). The library gets coverage
# instrumentation; ASan/UBSan come from TILT_SANITIZE (run.sh turns it on).
if(TILT_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TILT_FUZZ needs clang (configure with CC=clang)")
  endif()
  target_compile_options(tilt_obj PRIVATE -fsanitize=fuzzer-no-link)
  add_executable(fuzz_read ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_read.c)
  target_compile_options(fuzz_read PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_read PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_read tilt_static)
  add_executable(fuzz_text ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_text.c)
  target_compile_options(fuzz_text PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_text PRIVATE -fsanitize=fuzzer)
  target_include_directories(fuzz_text PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(fuzz_text tilt_static)
endif()
