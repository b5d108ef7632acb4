/* local_subtyping.c — local-subtyping: each reference-typed var (params keep
 * their types) gets the least upper bound of the values its sets write,
 * non-nullable when that bound is and every read comes after a set that
 * covers it (the 3.0 local-initialization rule); the reads then carry the
 * new type. Repeats while a refined read refines another local's sets.
 * Assumes valid IR. Guarantees the same behaviour; locals only narrow. */
#include "passes.h"

#include <string.h>

enum { MAX_ROUNDS = 16 };

typedef struct {
  tl_vec sets;       /* tl_expr *: local.set and local.tee nodes */
  uint8_t *pinned;   /* by local: not refined (a catch arm writes it) */
} ls_ctx;

static void collect(tl_walk *w, tl_expr **slot) {
  ls_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) TL_VEC_PUSH(&c->sets, tl_expr *, e);
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX) c->pinned[e->imm.idx2.a] = 1;
}

static bool refinable(const tl_module *m, const tl_func *f, uint32_t i) {
  (void)m;
  return tl_type_is_ref(f->local[i]);
}

/* The new type of local i, from the lub of its sets' values. */
static tl_type better(const tl_module *m, const tl_func *f, uint32_t i, tl_type lub, bool uncovered) {
  tl_type old = f->local[i];
  if (!tl_type_is_ref(lub)) return old; /* no reachable set */
  if (uncovered && !tl_ref_nullable(lub)) lub = tl_ref_with_null(lub, true);
  return lub != old && tl_type_sub(m, lub, old) ? lub : old;
}

/* One round over the vars; whether a type changed. */
static bool refine(tl_module *m, tl_func *f, ls_ctx *c, const uint8_t *uncovered, tl_type *lub) {
  uint32_t np = tl_func_nparams(m, f), n = f->nlocal;
  for (uint32_t i = 0; i < n; i++) lub[i] = TL_UNREACHABLE;
  for (size_t k = 0; k < c->sets.n; k++) {
    tl_expr *s = TL_VEC_AT(&c->sets, tl_expr *, k);
    lub[s->imm.index] = tl_type_lub(m, lub[s->imm.index], s->kid[0]->type);
  }
  bool changed = false;
  for (uint32_t i = np; i < n; i++) {
    if (c->pinned[i] || !refinable(m, f, i)) continue;
    tl_type t = better(m, f, i, lub[i], uncovered[i]);
    if (t != f->local[i]) f->local[i] = t, changed = true;
  }
  return changed;
}

static bool has_ref_var(const tl_module *m, const tl_func *f) {
  for (uint32_t i = tl_func_nparams(m, f); i < f->nlocal; i++)
    if (refinable(m, f, i)) return true;
  return false;
}

tl_status tl_pass_local_subtyping(tl_pass_ctx *ctx, tl_func *f) {
  tl_module *m = ctx->m;
  if (!f->body || !has_ref_var(m, f)) return TL_OK;
  uint32_t n = f->nlocal;
  ls_ctx c = {0};
  c.pinned = tl_scratch_calloc(2 * (size_t)n, 1);
  tl_type *lub = tl_scratch_calloc(n, sizeof *lub);
  if (!c.pinned || !lub) tl_oom_fail();
  uint8_t *uncovered = c.pinned + n;
  tl_walk_post(m, f, &f->body, collect, &c);
  tl_func_uncovered_locals(m, f, true, uncovered);
  for (int r = 0; r < MAX_ROUNDS && refine(m, f, &c, uncovered, lub); r++) tl_func_refinalize(m, f);
  tl_vec_free(&c.sets);
  tl_free(c.pinned);
  tl_free(lub);
  return TL_OK;
}
