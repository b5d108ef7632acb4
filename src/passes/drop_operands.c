/* drop_operands.c — removing operands from a node (gto's struct.new,
 * signature-pruning's calls) while their effects still happen in order:
 * what is removed with effects is dropped before the node, the kept
 * operands before it go through fresh locals (constants stay). A node
 * with a diverging operand becomes the drops of all its operands. */
#include "passes.h"

static bool removable(tl_module *m, tl_func *f, tl_expr *e) {
  tl_effects fx;
  tl_effects_of(m, f, e, &fx);
  return tl_effects_removable(&fx);
}

static bool is_const_leaf(const tl_expr *e) {
  return e->nkid == 0 && e->type != TL_UNREACHABLE && (tl_ops[e->op].flags & ~TL_F_TRAPS) == 0;
}

/* e's operands dropped in order, as a block (unreachable when one diverges). */
static tl_expr *drop_all(tl_module *m, tl_expr *e) {
  for (uint32_t i = 0; i < e->nkid; i++) e->kid[i] = tl_make_drop(m, e->kid[i]);
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, e->kid, e->nkid);
}

static bool diverges(const tl_expr *e) {
  for (uint32_t i = 0; i < e->nkid; i++)
    if (e->kid[i]->type == TL_UNREACHABLE) return true;
  return false;
}

tl_expr *tl_expr_remove_operands(tl_module *m, tl_func *f, tl_expr *e, const uint8_t *remove) {
  uint32_t n = e->nkid, nk = 0, last = UINT32_MAX;
  if (diverges(e)) return drop_all(m, e);
  for (uint32_t i = 0; i < n; i++)
    if (remove[i] && !removable(m, f, e->kid[i])) last = i;
  if (last != UINT32_MAX && !f) return NULL;
  tl_vec pre = {0};
  for (uint32_t i = 0; i < n; i++) {
    tl_expr *k = e->kid[i];
    bool before = last != UINT32_MAX && i <= last;
    if (remove[i]) {
      if (before && !removable(m, f, k)) TL_VEC_PUSH(&pre, tl_expr *, tl_make_drop(m, k));
      continue;
    }
    if (before && !is_const_leaf(k)) {
      uint32_t tmp = tl_func_add_var(m, f, k->type);
      TL_VEC_PUSH(&pre, tl_expr *, tl_make_local_set(m, f, tmp, k, false));
      k = tl_make_local_get(m, f, tmp);
    }
    e->kid[nk++] = k;
  }
  e->nkid = nk;
  tl_expr_finalize(m, f, e);
  if (last == UINT32_MAX) return e;
  TL_VEC_PUSH(&pre, tl_expr *, e);
  tl_expr *b = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, pre.p, (uint32_t)pre.n);
  tl_vec_free(&pre);
  return b;
}
