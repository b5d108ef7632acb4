# The x86-64 JIT (issue 7): encoder, single-pass compiler, runtime.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
  list(APPEND TILT_SOURCES src/jit/x64.c src/jit/compile.c src/jit/simd.c src/jit/runtime.c src/jit/eh.c)
endif()
