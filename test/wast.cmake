# wast.cmake — spec.wast: tilt-run --wast (tilt's own .wat/.wast reader and
# script runner, issue 18) over the spec suite, failing when a file passes
# fewer commands than test/wast/expected.txt records or the runner crashes.
# Suite: $TILT_TESTSUITE, default <src>/../shared/testsuite (skips if absent);
# TILT_WAST_STRIDE=S runs one file in S (chosen by the git HEAD seed).
if(TARGET tilt-run)
  add_test(NAME spec.wast
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/wast/run.sh $<TARGET_FILE:tilt-run> ${CMAKE_SOURCE_DIR})
  set_tests_properties(spec.wast PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# spec.print: every module of the 3.0 suite (core, legacy, custom) is read
# back from its printed text before the script's commands run on it; the
# totals must be the plain run's (test/wast/print_check.sh).
if(TARGET tilt-run)
  add_test(NAME spec.print
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/wast/print_check.sh $<TARGET_FILE:tilt-run> ${CMAKE_SOURCE_DIR})
  set_tests_properties(spec.print PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# spec.opt_O2, spec.opt_O3: every module of the 3.0 suite (core, legacy,
# custom) is optimized at -O2 / -O3 before the script's commands run on it;
# the totals must be the plain run's (test/wast/opt_check.sh). The
# strongest oracle for the function passes, GC ones included (issue 24).
if(TARGET tilt-run)
  foreach(_lvl 2 3)
    add_test(NAME spec.opt_O${_lvl}
             COMMAND bash ${CMAKE_SOURCE_DIR}/test/wast/opt_check.sh $<TARGET_FILE:tilt-run> ${CMAKE_SOURCE_DIR} ${_lvl})
    set_tests_properties(spec.opt_O${_lvl} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()

# wast.relaxed_roundtrip: the relaxed SIMD modules of the 3.0 suite through
# tilt's text reader and writer, validated by wabt (test/wast/text_roundtrip.py).
if(TARGET tilt-opt)
  set(_rx ${CMAKE_SOURCE_DIR}/../shared/testsuite/core)
  if(DEFINED ENV{TILT_TESTSUITE})
    set(_rx $ENV{TILT_TESTSUITE}/core)
  endif()
  add_test(NAME wast.relaxed_roundtrip
           COMMAND python3 ${CMAKE_SOURCE_DIR}/test/wast/text_roundtrip.py $<TARGET_FILE:tilt-opt>
                   ${_rx}/relaxed_dot_product.wast ${_rx}/relaxed_laneselect.wast
                   ${_rx}/relaxed_madd_nmadd.wast ${_rx}/relaxed_min_max.wast
                   ${_rx}/i8x16_relaxed_swizzle.wast ${_rx}/i32x4_relaxed_trunc.wast
                   ${_rx}/i16x8_relaxed_q15mulr_s.wast)
  set_tests_properties(wast.relaxed_roundtrip PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# wast.relaxed_deterministic: the interpreter's relaxed SIMD results are the
# spec's deterministic profile (test/wast/relaxed_deterministic.wast). The
# JIT's choices (x86's, which the spec allows) are checked by spec.wast on
# the suite's relaxed files, whose assertions list every allowed result.
if(TARGET tilt-run)
  add_test(NAME wast.relaxed_deterministic
           COMMAND $<TARGET_FILE:tilt-run> --wast --interp ${CMAKE_SOURCE_DIR}/test/wast/relaxed_deterministic.wast)
endif()

# wast.memory64_high: a memory64 memory above 4 GiB, at its edges, on both
# engines (the JIT checks addresses from 4 GiB explicitly and leaves lower
# ones to its guard pages).
if(TARGET tilt-run)
  foreach(e interp jit)
    add_test(NAME wast.memory64_high_${e}
             COMMAND $<TARGET_FILE:tilt-run> --wast --${e} ${CMAKE_SOURCE_DIR}/test/wast/memory64_high.wast)
    set_tests_properties(wast.memory64_high_${e} PROPERTIES PASS_REGULAR_EXPRESSION " 24 passed, 0 failed")
  endforeach()
endif()

# wast.eh_v128_*: exceptions carrying v128 payloads across frames, through
# legacy catch, try_table catch and catch_ref/throw_ref (test/wast/eh_v128.wast).
if(TARGET tilt-run)
  foreach(_eng jit interp)
    add_test(NAME wast.eh_v128_${_eng}
             COMMAND $<TARGET_FILE:tilt-run> --wast --${_eng} ${CMAKE_SOURCE_DIR}/test/wast/eh_v128.wast)
    set_tests_properties(wast.eh_v128_${_eng} PROPERTIES PASS_REGULAR_EXPRESSION " 6 passed, 0 failed")
  endforeach()
endif()

# wast.simd_sse: the SIMD and relaxed SIMD spec files on the JIT's SSE-only
# encodings (--no-avx), which machines without AVX run.
if(TARGET tilt-run)
  add_test(NAME wast.simd_sse
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/wast/simd_sse.sh $<TARGET_FILE:tilt-run> ${CMAKE_SOURCE_DIR})
  set_tests_properties(wast.simd_sse PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# wast.relaxed_native_*: relaxed SIMD's native profile (test/wast/relaxed_native.wast)
# on the JIT in VEX and SSE forms and on the interpreter with --relaxed-native.
if(TARGET tilt-run)
  foreach(_run "jit;--jit" "jit_sse;--jit;--no-avx" "interp;--interp;--relaxed-native")
    list(GET _run 0 _name)
    list(REMOVE_AT _run 0)
    add_test(NAME wast.relaxed_native_${_name}
             COMMAND $<TARGET_FILE:tilt-run> ${_run} --wast ${CMAKE_SOURCE_DIR}/test/wast/relaxed_native.wast)
    set_tests_properties(wast.relaxed_native_${_name} PROPERTIES PASS_REGULAR_EXPRESSION " 10 passed, 0 failed")
  endforeach()
endif()

# wast.type_compact_*: imports and call_indirect across modules after the
# -O pipelines' type compaction (remove-unused-types): rec groups kept whole,
# duplicates the same type, a lone func type another (test/wast/type_compact.wast).
if(TARGET tilt-run)
  foreach(_o O0 O2 O3)
    add_test(NAME wast.type_compact_${_o}
             COMMAND $<TARGET_FILE:tilt-run> --wast --interp -${_o} ${CMAKE_SOURCE_DIR}/test/wast/type_compact.wast)
    set_tests_properties(wast.type_compact_${_o} PROPERTIES PASS_REGULAR_EXPRESSION " 9 passed, 0 failed")
  endforeach()
endif()
