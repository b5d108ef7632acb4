/* type_pass.c — the common entry of the closed-world type passes
 * (type-refining, gto, signature-*, remove-unused-types): when they may
 * act at all, and the type rewriter's begin/edit/apply/free around them. */
#include "passes.h"

/* A table that is imported or exported: code outside may call through it
 * with any signature, so function types must keep theirs. */
static bool has_public_table(const tl_module *m) {
  if (m->nimported_tables) return true;
  for (uint32_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_TABLE) return true;
  return false;
}

tl_status tl_type_pass_run(tl_pass_ctx *ctx, bool keeps_signatures, tl_type_edit_fn edit) {
  tl_module *m = ctx->m;
  if (!ctx->opt->closed_world || !tl_module_uses_gc(m) || !m->types.n) return TL_OK;
  if (keeps_signatures && has_public_table(m)) return TL_OK;
  tl_type_rewrite rw;
  tl_type_rewrite_begin(m, &rw);
  tl_status s = edit ? edit(ctx, &rw) : tl_type_rewrite_apply(m, &rw, ctx->err);
  tl_type_rewrite_free(&rw);
  return s;
}
