/* pipeline.c — the -O1..-O4, -Os, -Oz pipelines: Binaryen's default global
 * pre passes, function passes and global post passes (pass.cpp,
 * addDefault*OptimizationPasses) as one table, in Binaryen's order, each row
 * gated by the same optimize/shrink level condition. A row whose pass is not
 * in the registry (passes.def) yet is skipped, so a pass joins its pipelines
 * the moment it is registered. Level 0 (and 0 shrink) is the empty list. */
#include "passes.h"

#include <string.h>

/* When a row runs, as Binaryen writes it (O = optimize level, S = shrink
 * level, LM = --low-memory-unused). */
typedef enum {
  ALWAYS,
  O2_OR_S1,    /* O >= 2 || S >= 1 */
  O2_OR_S2,    /* O >= 2 || S >= 2 */
  O3_OR_S1,    /* O >= 3 || S >= 1 */
  O3_OR_S2,    /* O >= 3 || S >= 2 */
  NOT_O3_OR_S2,
  NOT_O2_OR_S2,
  O2_ONLY,     /* O >= 2 */
  O4_ONLY,     /* O >= 4 */
  S2_ONLY,     /* S >= 2 */
  LM_O3_OR_S1, /* LM && (O >= 3 || S >= 1) */
  LM_ELSE,     /* LM && !(O >= 3 || S >= 1) */
  GC,          /* the module uses GC (Binaryen: features.hasGC()) */
  GC_O2,       /* GC && O >= 2 */
  GC_O2_CW,    /* GC && O >= 2 && --closed-world */
  GC_O3_CW,    /* GC && O >= 3 && --closed-world */
  GC_NOT_O3_CW, /* GC && O == 2 && --closed-world */
} when;

typedef enum { PRE, FUNC, POST } stage;

typedef struct {
  stage st;
  when w;
  const char *name;
} row;

/* Binaryen's rows that need features tilt does not have (strings:
 * string-gathering) and tuple-optimization are left out. The GC rows wait
 * for their passes (a row is skipped until its pass is registered). -O4 runs flatten, simplify-locals-notee-nostructure and
 * local-cse first, as Binaryen does. Stack IR (Binaryen's
 * generate/optimize-stack-ir at O2 || S1) is done by the writer.
 * reorder-functions is not in Binaryen's default pipelines, so not here. */
static const row rows[] = {
  /* addDefaultGlobalOptimizationPrePasses */
  {PRE, ALWAYS, "duplicate-function-elimination"},
  {PRE, O2_ONLY, "remove-unused-module-elements"},
  {PRE, ALWAYS, "memory-packing"},
  {PRE, O2_ONLY, "once-reduction"},
  {PRE, GC_O2_CW, "type-refining"},
  {PRE, GC_O2_CW, "signature-pruning"},
  {PRE, GC_O2_CW, "signature-refining"},
  {PRE, GC_O2, "global-refining"},
  {PRE, GC_O2_CW, "gto"},
  {PRE, GC_O2, "remove-unused-module-elements"},
  {PRE, GC_O2_CW, "remove-unused-types"},
  {PRE, GC_O3_CW, "cfp-reftest"},
  {PRE, GC_NOT_O3_CW, "cfp"},
  {PRE, GC_O2, "gsi"},
  {PRE, GC_O2_CW, "abstract-type-refining"},
  {PRE, GC_O2_CW, "unsubtyping"},
  /* addDefaultFunctionOptimizationPasses */
  {FUNC, O3_OR_S1, "ssa-nomerge"},
  {FUNC, O4_ONLY, "flatten"},
  {FUNC, O4_ONLY, "simplify-locals-notee-nostructure"},
  {FUNC, O4_ONLY, "local-cse"},
  {FUNC, ALWAYS, "dce"},
  {FUNC, ALWAYS, "remove-unused-names"},
  {FUNC, ALWAYS, "remove-unused-brs"},
  {FUNC, ALWAYS, "remove-unused-names"},
  {FUNC, ALWAYS, "optimize-instructions"},
  {FUNC, GC, "heap-store-optimization"},
  {FUNC, O2_OR_S2, "pick-load-signs"},
  {FUNC, O3_OR_S2, "precompute-propagate"},
  {FUNC, NOT_O3_OR_S2, "precompute"},
  {FUNC, LM_O3_OR_S1, "optimize-added-constants-propagate"},
  {FUNC, LM_ELSE, "optimize-added-constants"},
  {FUNC, O2_OR_S2, "code-pushing"},
  {FUNC, ALWAYS, "simplify-locals-nostructure"},
  {FUNC, ALWAYS, "vacuum"},
  {FUNC, ALWAYS, "reorder-locals"},
  {FUNC, ALWAYS, "remove-unused-brs"},
  {FUNC, GC_O2, "heap2local"},
  {FUNC, O3_OR_S2, "merge-locals"},
  {FUNC, GC_O2, "optimize-casts"},
  {FUNC, GC_O2, "local-subtyping"},
  {FUNC, ALWAYS, "coalesce-locals"},
  {FUNC, O3_OR_S1, "local-cse"},
  {FUNC, ALWAYS, "simplify-locals"},
  {FUNC, ALWAYS, "vacuum"},
  {FUNC, ALWAYS, "reorder-locals"},
  {FUNC, ALWAYS, "coalesce-locals"},
  {FUNC, ALWAYS, "reorder-locals"},
  {FUNC, ALWAYS, "vacuum"},
  {FUNC, O3_OR_S1, "code-folding"},
  {FUNC, ALWAYS, "merge-blocks"},
  {FUNC, ALWAYS, "remove-unused-brs"},
  {FUNC, ALWAYS, "remove-unused-names"},
  {FUNC, ALWAYS, "merge-blocks"},
  {FUNC, O3_OR_S2, "precompute-propagate"},
  {FUNC, NOT_O3_OR_S2, "precompute"},
  {FUNC, ALWAYS, "optimize-instructions"},
  {FUNC, GC, "heap-store-optimization"},
  {FUNC, O2_OR_S1, "rse"},
  {FUNC, ALWAYS, "vacuum"},
  /* addDefaultGlobalOptimizationPostPasses */
  {POST, O2_OR_S1, "dae-optimizing"},
  {POST, O2_OR_S2, "inlining-optimizing"},
  {POST, ALWAYS, "duplicate-function-elimination"},
  {POST, ALWAYS, "duplicate-import-elimination"},
  {POST, S2_ONLY, "merge-similar-functions"},
  {POST, O2_OR_S2, "simplify-globals-optimizing"},
  {POST, NOT_O2_OR_S2, "simplify-globals"},
  {POST, ALWAYS, "remove-unused-module-elements"},
  {POST, O2_OR_S1, "reorder-globals"},
  {POST, ALWAYS, "directize"},
  /* Binaryen's writer drops unused types and orders the rest by use on
   * every write; tilt's writer keeps the section (round trips give the
   * input back), so the pipelines end with that compaction instead. It
   * does nothing to modules whose types are all plain function types. */
  {POST, ALWAYS, "remove-unused-types"},
};

static bool applies(when w, const tl_pass_options *po) {
  uint32_t o = po->optimize_level, s = po->shrink_level;
  bool lm = po->low_memory_unused, gc = po->gc, cw = po->closed_world;
  switch (w) {
  case ALWAYS: return true;
  case O2_OR_S1: return o >= 2 || s >= 1;
  case O2_OR_S2: return o >= 2 || s >= 2;
  case O3_OR_S1: return o >= 3 || s >= 1;
  case O3_OR_S2: return o >= 3 || s >= 2;
  case NOT_O3_OR_S2: return !(o >= 3 || s >= 2);
  case NOT_O2_OR_S2: return !(o >= 2 || s >= 2);
  case O2_ONLY: return o >= 2;
  case O4_ONLY: return o >= 4;
  case S2_ONLY: return s >= 2;
  case LM_O3_OR_S1: return lm && (o >= 3 || s >= 1);
  case LM_ELSE: return lm && !(o >= 3 || s >= 1);
  case GC: return gc;
  case GC_O2: return gc && o >= 2;
  case GC_O2_CW: return gc && o >= 2 && cw;
  case GC_O3_CW: return gc && o >= 3 && cw;
  case GC_NOT_O3_CW: return gc && o == 2 && cw;
  }
  return false;
}

/* Binaryen's passes whose invalidatesDWARF() is true (pass.h): they
 * change locals, parameters or which functions exist, which DWARF's
 * variable locations and subprograms describe. Code addresses are kept
 * right after any pass (dwarf.c); these would still leave the rest wrong. */
static const char *const breaks_dwarf[] = {
  "coalesce-locals", "coalesce-locals-learning", "dae", "dae-optimizing",
  "duplicate-function-elimination", "flatten", "inlining", "inlining-optimizing",
  "local-cse", "merge-locals", "merge-similar-functions", "ssa", "ssa-nomerge",
};

bool tl_pass_invalidates_dwarf(const char *name) {
  for (size_t i = 0; i < sizeof breaks_dwarf / sizeof *breaks_dwarf; i++)
    if (!strcmp(name, breaks_dwarf[i])) return true;
  return false;
}

/* The registered rows of the stages in [from, to] that apply; with
 * DWARF to keep, not those that would break it (Binaryen's
 * addIfNoDWARFIssues). */
static uint32_t collect(stage from, stage to, const tl_pass_options *po, const char **names,
                        uint32_t cap) {
  uint32_t n = 0;
  if (po->optimize_level == 0 && po->shrink_level == 0) return 0;
  for (size_t i = 0; i < sizeof rows / sizeof *rows && n < cap; i++)
    if (rows[i].st >= from && rows[i].st <= to && applies(rows[i].w, po) &&
        tl_pass_find(rows[i].name) && !(po->preserve_dwarf && tl_pass_invalidates_dwarf(rows[i].name)))
      names[n++] = rows[i].name;
  return n;
}

uint32_t tl_pipeline(uint32_t opt_level, uint32_t shrink_level, const char **names, uint32_t cap) {
  tl_pass_options po = {.optimize_level = opt_level, .shrink_level = shrink_level};
  return collect(PRE, POST, &po, names, cap);
}

uint32_t tl_pipeline_for(const tl_pass_options *o, const char **names, uint32_t cap) {
  return collect(PRE, POST, o, names, cap);
}

uint32_t tl_pipeline_function(const tl_pass_options *o, const char **names, uint32_t cap) {
  return collect(FUNC, FUNC, o, names, cap);
}

tl_status tl_module_optimize(tl_module *m, uint32_t opt_level, uint32_t shrink_level,
                             const tl_pass_options *opt, tl_error *err) {
  tl_pass_options po = opt ? *opt : (tl_pass_options){0};
  po.optimize_level = opt_level;
  po.shrink_level = shrink_level;
  po.gc = tl_module_uses_gc(m);
  const char *names[128];
  uint32_t n = tl_pipeline_for(&po, names, 128);
  return tl_module_run_passes(m, names, n, &po, err);
}
