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
  tl_status s = tl_type_pass_run(ctx, false, NULL); /* closed world: the rebuild */
  if (s != TL_OK || !m->types.n || !tl_module_has_gc_types(m)) return s;
  return tl_types_compact(m, ctx->err);
}
