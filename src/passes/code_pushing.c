/* code_pushing.c — code-pushing: a `local.set $x V` in a block/loop list,
 * with V pure (no writes, calls, traps or branches), moves forward past
 * siblings that may leave the list early (branches, returns), so V is not
 * computed on the paths that leave. It goes to just before the first
 * sibling that reads $x (or writes $x or a local V reads, or a global /
 * memory V reads).
 * Only when $x is set once in the function (a catch arm's payload is a
 * set), is not a param, and all its
 * gets are in the later siblings past the new position: then every get is
 * still reached only through the set, and no other code observes $x.
 * Assumes: valid IR. Guarantees: the same behaviour; budgeted scans. */
#include "passes.h"

#include <stdlib.h>

enum { SCAN_BUDGET = 1 << 14 };

typedef struct {
  tl_module *m;
  tl_func *f;
  uint32_t *nget, *nset;
  uint32_t np;
  tl_vec st, reads;
  tl_vec lists;   /* tl_expr *: lists with a local.set before their last kid, in post-order */
  uint32_t budget;
} cp_ctx;

static const uint32_t IMPURE = TL_F_TRAPS | TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_LOCAL |
                               TL_F_WRITES_GLOBAL | TL_F_CALL | TL_F_BRANCH | TL_F_NORETURN |
                               TL_F_CONTROL | TL_F_ATOMIC;

static bool in_reads(cp_ctx *c, uint32_t x) {
  for (size_t i = 0; i < c->reads.n; i++)
    if (TL_VEC_AT(&c->reads, uint32_t, i) == x) return true;
  return false;
}

/* Flags of V, or UINT32_MAX if V cannot move. */
static uint32_t value_flags(cp_ctx *c, tl_expr *v) {
  uint32_t fl = 0, budget = 256;
  c->reads.n = c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, v);
  while (c->st.n) {
    tl_expr *e = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    if (!budget-- || (tl_ops[e->op].flags & IMPURE) || e->op == TL_OP_RETURN) return UINT32_MAX;
    fl |= tl_ops[e->op].flags;
    if (e->op == TL_OP_LOCAL_GET) TL_VEC_PUSH(&c->reads, uint32_t, e->imm.index);
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) TL_VEC_PUSH(&c->st, tl_expr *, e->kid[i]);
  }
  return fl;
}

typedef struct { uint32_t gets; bool blocks, exits; } sib;

/* What a sibling does relative to the set being pushed. */
static sib look(cp_ctx *c, tl_expr *root, uint32_t x, uint32_t vfl) {
  sib s = {0, false, false};
  c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, root);
  while (c->st.n) {
    tl_expr *e = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    uint32_t fl = tl_ops[e->op].flags;
    if (!c->budget) s.blocks = true;
    else c->budget--;
    if (e->op == TL_OP_LOCAL_GET && e->imm.index == x) s.gets++, s.blocks = true;
    uint32_t w = tl_written_local(e);
    if (w != TL_NO_INDEX && (w == x || in_reads(c, w))) s.blocks = true;
    if ((vfl & (TL_F_READS_GLOBAL)) && (fl & (TL_F_WRITES_GLOBAL | TL_F_CALL))) s.blocks = true;
    if ((vfl & (TL_F_READS_MEM)) && (fl & (TL_F_WRITES_MEM | TL_F_CALL | TL_F_ATOMIC))) s.blocks = true;
    if ((vfl & (TL_F_READS_TABLE)) && (fl & (TL_F_WRITES_TABLE | TL_F_CALL))) s.blocks = true;
    if (fl & (TL_F_BRANCH | TL_F_NORETURN)) s.exits = true;
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) TL_VEC_PUSH(&c->st, tl_expr *, e->kid[i]);
  }
  return s;
}

static void do_list(cp_ctx *c, tl_expr *list) {
  for (uint32_t i = 0; i + 1 < list->nkid; i++) {
    tl_expr *s = list->kid[i];
    if (s->op != TL_OP_LOCAL_SET) continue;
    uint32_t x = s->imm.index;
    if (x < c->np || c->nset[x] != 1 || tl_type_is_tuple(c->f->local[x])) continue;
    uint32_t vfl = value_flags(c, s->kid[0]);
    if (vfl == UINT32_MAX) continue;
    c->budget = SCAN_BUDGET;
    uint32_t j = i + 1, later_gets = 0;
    bool exits = false;
    /* never past the last kid: it may be the list's value */
    for (; j + 1 < list->nkid; j++) {
      sib k = look(c, list->kid[j], x, vfl);
      if (k.blocks) break;
      exits |= k.exits;
    }
    if (!exits || j == i + 1) continue;
    c->budget = SCAN_BUDGET;
    for (uint32_t k = j; k < list->nkid && c->budget; k++) later_gets += look(c, list->kid[k], x, 0).gets;
    if (!c->budget || later_gets != c->nget[x]) continue;
    /* move kid[i] to just before kid[j] */
    for (uint32_t k = i; k + 1 < j; k++) list->kid[k] = list->kid[k + 1];
    list->kid[j - 1] = s;
    i = j - 1;
  }
}

/* Counts gets and sets, and notes the lists do_list may change: it only
 * permutes a list's own kids, so running it over the noted lists in the
 * walk's order afterwards is a walk over them. */
static void count_visit(tl_walk *w, tl_expr **slot) {
  cp_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOCAL_GET) c->nget[e->imm.index]++;
  else if (tl_written_local(e) != TL_NO_INDEX) c->nset[tl_written_local(e)]++;
  else if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP)
    for (uint32_t i = 0; i + 1 < e->nkid; i++)
      if (e->kid[i]->op == TL_OP_LOCAL_SET && e->kid[i]->imm.index >= c->np) {
        TL_VEC_PUSH(&c->lists, tl_expr *, e);
        break;
      }
}

tl_status tl_pass_code_pushing(tl_pass_ctx *ctx, tl_func *f) {
  cp_ctx c = {ctx->m, f, tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(uint32_t)),
              tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(uint32_t)), tl_func_nparams(ctx->m, f), {0}, {0}, {0}, 0};
  if (!c.nget || !c.nset) {
    tl_free(c.nget), tl_free(c.nset);
    return tl_nomem(ctx->err, "code-pushing");
  }
  tl_walk_post(ctx->m, f, &f->body, count_visit, &c);
  for (size_t i = 0; i < c.lists.n; i++) do_list(&c, TL_VEC_AT(&c.lists, tl_expr *, i));
  tl_free(c.nget), tl_free(c.nset);
  tl_vec_free(&c.st), tl_vec_free(&c.reads), tl_vec_free(&c.lists);
  return TL_OK;
}
