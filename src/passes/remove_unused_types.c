/* remove_unused_types.c — remove-unused-types (closed world): the types
 * section rebuilt through the type rewriter with no edits, which keeps the
 * public rec groups and puts the private types still named anywhere in one
 * new rec group; unused private types and duplicate groups go. Modules
 * without GC, or in an open world, are left alone. */
#include "passes.h"

tl_status tl_pass_remove_unused_types(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  if (!ctx->opt->closed_world || !tl_module_uses_gc(m) || !m->types.n) return TL_OK;
  tl_type_rewrite rw;
  tl_type_rewrite_begin(m, &rw);
  tl_status s = tl_type_rewrite_apply(m, &rw, ctx->err);
  tl_type_rewrite_free(&rw);
  return s;
}
