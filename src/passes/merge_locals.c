/* merge_locals.c — merge-locals: after a copy `local.set $x (local.get $y)`
 * in a block/loop list, gets of $x in the following siblings read $y
 * instead, up to the first sibling that may write $x or $y (a catch arm
 * writes its payload local). The copy often
 * becomes dead (simplify-locals / coalesce-locals then remove it).
 * Control cannot enter a list in the middle, and no sibling in the range
 * writes either local, so both hold the same value at every rewritten get.
 * Assumes: valid IR. Guarantees: the same behaviour; types unchanged
 * (both locals have the same type). Scans are budgeted (linear). */
#include "passes.h"

enum { SCAN_BUDGET = 1 << 14 };

typedef struct {
  uint32_t x, y, budget;
  bool writes;
  tl_vec st;
} ml_ctx;

static bool is_set(const tl_expr *e) { return e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE; }

/* Does the subtree write x or y (or is it too big to tell)? */
static bool writes(ml_ctx *c, tl_expr *root) {
  c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, root);
  while (c->st.n) {
    tl_expr *e = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    if (!c->budget--) return true;
    uint32_t w = tl_written_local(e); /* a set, a tee, a catch arm's payload */
    if (w != TL_NO_INDEX && (w == c->x || w == c->y)) return true;
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) TL_VEC_PUSH(&c->st, tl_expr *, e->kid[i]);
  }
  return false;
}

static void rename(ml_ctx *c, tl_expr *root) {
  c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, root);
  while (c->st.n) {
    tl_expr *e = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    if (e->op == TL_OP_LOCAL_GET && e->imm.index == c->x) e->imm.index = c->y;
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) TL_VEC_PUSH(&c->st, tl_expr *, e->kid[i]);
  }
}

static void do_list(ml_ctx *c, tl_module *m, tl_func *f, tl_expr *list) {
  for (uint32_t i = 0; i + 1 < list->nkid; i++) {
    tl_expr *s = list->kid[i];
    if (s->op != TL_OP_LOCAL_SET || s->kid[0]->op != TL_OP_LOCAL_GET) continue;
    c->x = s->imm.index, c->y = s->kid[0]->imm.index;
    if (c->x == c->y || f->local[c->x] != f->local[c->y] || tl_type_is_tuple(f->local[c->x])) continue;
    c->budget = SCAN_BUDGET;
    for (uint32_t j = i + 1; j < list->nkid; j++) {
      tl_expr *k = list->kid[j];
      /* a set of x whose value is evaluated first: its gets still see y */
      if (is_set(k) && k->imm.index == c->x && !writes(c, k->kid[0])) {
        rename(c, k->kid[0]);
        break;
      }
      if (writes(c, k)) break;
      rename(c, k);
    }
  }
  (void)m;
}

static void visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) do_list(w->ctx, w->m, w->f, e);
}

tl_status tl_pass_merge_locals(tl_pass_ctx *ctx, tl_func *f) {
  ml_ctx c = {0};
  tl_walk_post(ctx->m, f, &f->body, visit, &c);
  tl_vec_free(&c.st);
  return TL_OK;
}
