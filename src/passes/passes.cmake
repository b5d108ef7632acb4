list(APPEND TILT_SOURCES
  ${CMAKE_SOURCE_DIR}/src/passes/registry.c
  ${CMAKE_SOURCE_DIR}/src/passes/effects.c
  ${CMAKE_SOURCE_DIR}/src/passes/labels.c
  ${CMAKE_SOURCE_DIR}/src/passes/dce.c
  ${CMAKE_SOURCE_DIR}/src/passes/vacuum.c
  ${CMAKE_SOURCE_DIR}/src/passes/remove_unused_names.c
  ${CMAKE_SOURCE_DIR}/src/passes/merge_blocks.c
  ${CMAKE_SOURCE_DIR}/src/passes/remove_unused_brs.c
  ${CMAKE_SOURCE_DIR}/src/passes/remove_unused_module_elements.c
  ${CMAKE_SOURCE_DIR}/src/passes/precompute.c
  ${CMAKE_SOURCE_DIR}/src/passes/rereloop.c
  ${CMAKE_SOURCE_DIR}/src/passes/pipeline.c
)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/optimize_instructions.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/simplify_locals.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/coalesce_locals.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/reorder_locals.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/untee.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/strip_eh.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/translate_to_exnref.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/duplicate_function_elimination.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/rse.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/merge_locals.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/local_cse.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/heap2local.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/local_subtyping.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/heap_store_optimization.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/optimize_casts.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/ssa_nomerge.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/code_pushing.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/simplify_globals.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/directize.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/no_exit_runtime.c ${CMAKE_SOURCE_DIR}/src/passes/post_emscripten.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/memory_packing.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/inlining.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/dae.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/reorder_functions.c ${CMAKE_SOURCE_DIR}/src/passes/reorder_globals.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/pick_load_signs.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/optimize_added_constants.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/duplicate_import_elimination.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/once_reduction.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/merge_similar_functions.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/code_folding.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/flatten.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/minify_imports_and_exports.c ${CMAKE_SOURCE_DIR}/src/passes/print_function_map.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/metadce.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/remove_relaxed_simd.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/memory64_lowering.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/safe_heap.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/fpcast_emu.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/asyncify.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/func_edit.c ${CMAKE_SOURCE_DIR}/src/passes/legalize_js_interface.c
     ${CMAKE_SOURCE_DIR}/src/passes/generate_dyncalls.c ${CMAKE_SOURCE_DIR}/src/passes/emscripten_finalize.c
     ${CMAKE_SOURCE_DIR}/src/passes/stack_check.c
     ${CMAKE_SOURCE_DIR}/src/passes/multi_memory_lowering.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/instrument_locals.c
  ${CMAKE_SOURCE_DIR}/src/passes/instrument_memory.c ${CMAKE_SOURCE_DIR}/src/passes/log_execution.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/remove_memory.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/mod_asyncify.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/remove_unused_types.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/type_refining.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/type_pass.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/signature_refining.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/gto.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/abstract_type_refining.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/unsubtyping.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/drop_operands.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/signature_pruning.c)
list(APPEND TILT_SOURCES ${CMAKE_SOURCE_DIR}/src/passes/struct_values.c
  ${CMAKE_SOURCE_DIR}/src/passes/global_refining.c ${CMAKE_SOURCE_DIR}/src/passes/gsi.c
  ${CMAKE_SOURCE_DIR}/src/passes/cfp.c)
