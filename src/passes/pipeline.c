/* pipeline.c — the -O0..-O4, -Os, -Oz pipelines as ordered pass lists, in
 * the shape of wasm-opt's default function and module pipelines. Only
 * passes tilt has are listed; each level's list grows as passes land. */
#include "passes.h"

#include <string.h>

/* Function passes, in order; shared by every level above 0. */
static const char *const func_passes[] = {
  "dce", "remove-unused-names", "remove-unused-brs", "remove-unused-names",
  "optimize-instructions", "precompute", "vacuum", "merge-blocks", "remove-unused-brs",
  "remove-unused-names", "merge-blocks", "optimize-instructions", "precompute", "vacuum",
};
/* At -O2 and above precompute also propagates through locals. */
static const char *const func_passes_o2[] = {
  "dce", "remove-unused-names", "remove-unused-brs", "remove-unused-names",
  "optimize-instructions", "precompute-propagate", "vacuum", "merge-blocks", "remove-unused-brs",
  "remove-unused-names", "merge-blocks", "optimize-instructions", "precompute", "vacuum", "dce",
};
static const char *const module_passes[] = {"duplicate-function-elimination",
                                             "remove-unused-module-elements"};

/* Fills names (capacity cap) with the pipeline; returns the count. */
uint32_t tl_pipeline(uint32_t opt_level, uint32_t shrink_level, const char **names, uint32_t cap) {
  (void)shrink_level;
  uint32_t n = 0;
  if (opt_level == 0 && shrink_level == 0) return 0;
  const char *const *fp = opt_level >= 2 || shrink_level ? func_passes_o2 : func_passes;
  size_t nfp = opt_level >= 2 || shrink_level ? sizeof func_passes_o2 / sizeof *fp
                                              : sizeof func_passes / sizeof *fp;
  for (size_t i = 0; i < nfp && n < cap; i++) names[n++] = fp[i];
  for (size_t i = 0; i < sizeof module_passes / sizeof *module_passes && n < cap; i++)
    names[n++] = module_passes[i];
  return n;
}

uint32_t tl_pipeline_for(const tl_pass_options *o, const char **names, uint32_t cap) {
  return tl_pipeline(o->optimize_level, o->shrink_level, names, cap);
}

tl_status tl_module_optimize(tl_module *m, uint32_t opt_level, uint32_t shrink_level,
                             const tl_pass_options *opt, tl_error *err) {
  tl_pass_options po = opt ? *opt : (tl_pass_options){0};
  po.optimize_level = opt_level;
  po.shrink_level = shrink_level;
  const char *names[128];
  uint32_t n = tl_pipeline_for(&po, names, 128);
  return tl_module_run_passes(m, names, n, &po, err);
}
