/* ssa_nomerge.c — ssa-nomerge: give a set of a local that is set more than
 * once its own fresh local, when every get that can read that set is
 * known (no merges are created: locals whose sets meet at a get keep them).
 * A set `local.set $x V` in a block/loop list owns the gets of $x in the
 * following siblings up to the first sibling that writes $x. Those gets read
 * only this set (control cannot enter a list in the middle). The set and its
 * gets move to a new local when no other get can read the set: either all of
 * $x's gets are owned, or the range ends in a sibling `local.set $x ...`
 * (whose value is owned too) and no branch in the range can leave it (nor,
 * in a function with exception handling, a call or throw: a catch outside
 * the range may read $x). A catch arm's payload is a write of its local.
 * Assumes: valid IR. Tuple locals are left alone.
 * Guarantees: the same behaviour; budgeted scans (linear). */
#include "passes.h"

#include <stdlib.h>

enum { SCAN_BUDGET = 1 << 14 };

typedef struct {
  tl_module *m;
  tl_func *f;
  uint32_t *nget, *nset, n; /* counts for the original locals 0..n-1 */
  tl_vec st, owned;   /* tl_expr * */
  uint32_t budget;
  bool branches;
  bool eh;            /* f has exception handling: a call or throw may leave the range too */
} ssa_ctx;

static bool is_set(const tl_expr *e) { return e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE; }

/* Collect gets of x in root; false if root writes x or is too big. */
static bool collect(ssa_ctx *c, tl_expr *root, uint32_t x) {
  size_t mark = c->owned.n;
  c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, root);
  while (c->st.n) {
    tl_expr *e = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    if (!c->budget--) goto fail;
    if (tl_written_local(e) == x) goto fail; /* a set, a tee, a catch arm's payload */
    if (e->op == TL_OP_LOCAL_GET && e->imm.index == x) TL_VEC_PUSH(&c->owned, tl_expr *, e);
    uint32_t fl = tl_ops[e->op].flags;
    if ((fl & TL_F_BRANCH) || (c->eh && (fl & (TL_F_CALL | TL_F_THROWS)))) c->branches = true;
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) TL_VEC_PUSH(&c->st, tl_expr *, e->kid[i]);
  }
  return true;
fail:
  c->owned.n = mark;
  return false;
}

static void do_list(ssa_ctx *c, tl_expr *list) {
  for (uint32_t i = 0; i < list->nkid; i++) {
    tl_expr *s = list->kid[i];
    if (s->op != TL_OP_LOCAL_SET) continue;
    uint32_t x = s->imm.index;
    if (x >= c->n || tl_type_is_tuple(c->f->local[x]) || c->nset[x] < 2) continue;
    c->owned.n = 0, c->budget = SCAN_BUDGET, c->branches = false;
    bool ended_by_set = false;
    for (uint32_t j = i + 1; j < list->nkid; j++) {
      tl_expr *k = list->kid[j];
      if (k->op == TL_OP_LOCAL_SET && k->imm.index == x) {
        ended_by_set = collect(c, k->kid[0], x);
        break;
      }
      if (!collect(c, k, x)) break;
    }
    bool all = c->owned.n == c->nget[x];
    if (!all && !(ended_by_set && !c->branches)) continue;
    uint32_t nx = tl_func_add_local(c->m, c->f, c->f->local[x]);
    s->imm.index = nx;
    for (size_t k = 0; k < c->owned.n; k++) TL_VEC_AT(&c->owned, tl_expr *, k)->imm.index = nx;
    c->nset[x]--, c->nget[x] -= (uint32_t)c->owned.n;
  }
}

static void count_visit(tl_walk *w, tl_expr **slot) {
  ssa_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOCAL_GET) c->nget[e->imm.index]++;
  else if (is_set(e)) c->nset[e->imm.index]++;
}

static void visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) do_list(w->ctx, e);
}

tl_status tl_pass_ssa_nomerge(tl_pass_ctx *ctx, tl_func *f) {
  ssa_ctx c = {ctx->m, f, tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(uint32_t)),
               tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(uint32_t)), f->nlocal, {0}, {0}, 0, false,
               f->body && tl_expr_has_eh(f->body)};
  if (!c.nget || !c.nset) {
    tl_free(c.nget), tl_free(c.nset);
    return tl_nomem(ctx->err, "ssa-nomerge");
  }
  tl_walk_post_only(ctx->m, f, &f->body, count_visit, &c, TL_F_READS_LOCAL | TL_F_WRITES_LOCAL);
  tl_walk_post(ctx->m, f, &f->body, visit, &c);
  tl_free(c.nget), tl_free(c.nset);
  tl_vec_free(&c.st), tl_vec_free(&c.owned);
  return TL_OK;
}
