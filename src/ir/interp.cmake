# The reference interpreter (issue 3) and the runtime both engines share.
list(APPEND TILT_SOURCES src/ir/interp.c src/ir/interp_compile.c src/ir/interp_exec.c src/ir/interp_simd.c src/ir/interp_gc.c
                         src/runtime/store.c src/runtime/link.c src/runtime/memory.c src/runtime/num.c src/runtime/gc_heap.c)
