/* remove_unused_types.c — remove-unused-types: the type section compacted.
 * Open world: the rec groups something in the module names are kept whole
 * and unchanged (an import or an export may share them with other
 * modules), each canonical group once (a duplicate is the same type, so
 * its users move to the kept one), ordered by use so the most named get
 * the shortest indices (tl_types_compact). Closed world: first the private
 * types are rebuilt into one rec group (the type rewriter with no edits),
 * then the same compaction orders the groups.
 * Binaryen does this on every write; tilt's writer keeps the section as it
 * is, so that plain round trips give back the input's bytes, and the -O
 * pipelines instead end with this pass (pipeline.c). The compaction
 * leaves modules whose types are all plain function types alone (the
 * closed-world rebuild runs whenever the module uses GC, as before). */
#include "passes.h"

tl_status tl_pass_remove_unused_types(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  if (!m->types.n) return TL_OK;
  if (ctx->opt->closed_world && tl_module_uses_gc(m)) {
    tl_type_rewrite rw;
    tl_type_rewrite_begin(m, &rw);
    tl_status s = tl_type_rewrite_apply(m, &rw, ctx->err);
    tl_type_rewrite_free(&rw);
    if (s != TL_OK) return s;
  }
  return tl_module_has_gc_types(m) ? tl_types_compact(m, ctx->err) : TL_OK;
}
