/* untee.c — replace every local.tee by a local.set followed by a local.get
 * of the same local, in an unlabeled block (wasm-opt's untee).
 * Assumes: valid IR with up-to-date types.
 * Guarantees: the same behaviour; no LOCAL_TEE remains (a tee whose value
 * is unreachable becomes a plain set, which is unreachable as well). */
#include "passes.h"

static void untee_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op != TL_OP_LOCAL_TEE) return;
  e->op = TL_OP_LOCAL_SET;
  tl_expr_finalize(w->m, w->f, e);
  if (e->kid[0]->type == TL_UNREACHABLE) return;
  tl_expr *kids[2] = {e, tl_make_local_get(w->m, w->f, e->imm.index)};
  *slot = tl_make_block(w->m, TL_OP_BLOCK, TL_NO_LABEL, kids, 2);
}

tl_status tl_pass_untee(tl_pass_ctx *ctx, tl_func *f) {
  tl_walk_post(ctx->m, f, &f->body, untee_visit, NULL);
  tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
