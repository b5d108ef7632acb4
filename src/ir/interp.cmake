# The reference interpreter (issue 3).
list(APPEND TILT_SOURCES src/ir/interp.c src/ir/interp_compile.c src/ir/interp_exec.c src/ir/interp_mem.c
                         src/ir/interp_num.c src/ir/interp_simd.c)
