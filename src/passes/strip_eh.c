/* strip_eh.c — remove exception handling (wasm-opt's --strip-eh): a try or
 * try_table becomes a block (same label, same result) around its body, its
 * catch arms and clauses gone; throw becomes its operands dropped, then
 * unreachable; rethrow and throw_ref likewise (throw_ref's exnref dropped).
 * Tags, their imports and their exports are removed.
 * Assumes: valid IR.
 * Guarantees: valid IR with no EH node and no tag. Behaviour: the same for
 * every run that throws nothing; a throw traps instead. So the fuzzers and
 * differential tests must not draw it (registered MODULE_IFACE: it also
 * removes tag imports and exports, which changes the interface). */
#include "passes.h"

/* The throw family's operands, dropped, then unreachable. */
static tl_expr *trap_instead(tl_walk *w, tl_expr *e) {
  if (!e->nkid) return tl_make_unreachable(w->m);
  tl_expr *b = tl_expr_new(w->m, TL_OP_BLOCK, 0);
  for (uint32_t i = 0; i < e->nkid; i++) tl_expr_push_kid(w->m, b, tl_make_drop(w->m, e->kid[i]));
  tl_expr_push_kid(w->m, b, tl_make_unreachable(w->m));
  return b;
}

static void strip_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  switch (e->op) {
  case TL_OP_TRY: case TL_OP_TRY_TABLE: {
    uint32_t bt = e->imm.block.bt;
    tl_expr *b = tl_make_block(w->m, TL_OP_BLOCK, e->imm.block.label, &e->kid[0], 1);
    b->imm.block.bt = bt;
    b->type = e->type;
    *slot = b;
    break;
  }
  case TL_OP_THROW: case TL_OP_RETHROW: case TL_OP_THROW_REF:
    *slot = trap_instead(w, e);
    break;
  default: break;
  }
}

static void drop_tag_exports(tl_module *m) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export x = TL_VEC_AT(&m->exports, tl_export, i);
    if (x.kind != TL_EXTERN_TAG) TL_VEC_AT(&m->exports, tl_export, k++) = x;
  }
  m->exports.n = k;
}

tl_status tl_pass_strip_eh(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (!f->body || !tl_expr_has_eh(f->body)) continue;
    tl_walk_post(m, f, &f->body, strip_visit, NULL);
    tl_func_refinalize(m, f);
  }
  drop_tag_exports(m);
  m->tags.n = 0;
  m->nimported_tags = 0;
  return TL_OK;
}
