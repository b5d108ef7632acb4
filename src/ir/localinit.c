/* localinit.c — keeps a function valid under WebAssembly 3.0's local
 * initialization rule after passes moved its code: a local without a
 * default value (a non-nullable reference) may be read only after a set
 * that comes first in the same block or an enclosing one. A pass that
 * sinks, hoists or merges sets can break that; the fix-up (what Binaryen
 * does too) makes each offending local nullable and its reads
 * ref.as_non_null, which keeps every value and trap. A tuple local with
 * such parts gets those parts nullable, and its reads are rebuilt from
 * their parts (tuple.extract, ref.as_non_null, tuple.make): a pass may move
 * the set of a legacy catch's tuple payload into a block of its own
 * (translate-to-exnref; tilt-fuzz opt-valid --gc --seed 763246799). */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_expr *e;
  uint32_t next;           /* the next kid to enter */
  uint32_t mark;           /* sets.n when its scope began, or UINT32_MAX */
} lframe;

typedef struct {
  tl_vec stack;            /* lframe */
  tl_vec sets;             /* uint32_t: locals set in the open scopes */
  uint8_t *set;            /* per local: set in an open scope (or defaultable) */
  uint8_t *bad;            /* per local: read before any set that covers it */
  bool any_bad;
} lscan;

static bool tracked(const tl_module *m, const tl_func *f, uint32_t i) {
  tl_type t = f->local[i];
  for (uint32_t k = 0, n = tl_type_arity(m, t); k < n; k++)
    if (!tl_type_defaultable(tl_type_at(m, t, k))) return true;
  return false;
}

/* t with its non-nullable reference parts nullable. */
static tl_type relaxed(tl_module *m, tl_type t) {
  if (!tl_type_is_tuple(t)) return tl_ref_with_null(t, true);
  uint32_t n = tl_type_arity(m, t);
  tl_type *c = TL_NEWN(&m->arena, tl_type, n);
  for (uint32_t k = 0; k < n; k++) {
    c[k] = tl_type_at(m, t, k);
    if (!tl_type_defaultable(c[k])) c[k] = tl_ref_with_null(c[k], true);
  }
  return tl_type_tuple(m, c, n);
}

/* Whether kid i of e runs in a scope of its own (if arms, try bodies and
 * handlers; block and loop bodies scope themselves). */
static bool kid_scope(const tl_expr *e, uint32_t i) {
  switch (e->op) {
  case TL_OP_IF: return i > 0;
  case TL_OP_TRY: case TL_OP_CATCH: case TL_OP_CATCH_ALL: case TL_OP_TRY_TABLE: return true;
  default: return false;
  }
}

static bool own_scope(const tl_expr *e) { return e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP; }

static void enter(lscan *s, tl_expr *e, bool scope) {
  uint32_t mark = scope || own_scope(e) ? (uint32_t)s->sets.n : UINT32_MAX;
  TL_VEC_PUSH(&s->stack, lframe, ((lframe){e, 0, mark}));
  uint32_t p = e->op == TL_OP_CATCH ? e->imm.idx2.a : TL_NO_INDEX;
  if (p != TL_NO_INDEX && !s->set[p]) { /* the payload local: set as the handler starts */
    s->set[p] = 1;
    TL_VEC_PUSH(&s->sets, uint32_t, p);
  }
}

static void leave_scope(lscan *s, uint32_t mark) {
  if (mark == UINT32_MAX) return;
  while (s->sets.n > mark) s->set[TL_VEC_AT(&s->sets, uint32_t, --s->sets.n)] = 0;
}

/* A node whose kids have all run. */
static void visit(lscan *s, const tl_expr *e) {
  if (e->op == TL_OP_LOCAL_GET && !s->set[e->imm.index]) {
    s->bad[e->imm.index] = 1;
    s->any_bad = true;
  }
  if ((e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) && !s->set[e->imm.index]) {
    s->set[e->imm.index] = 1;
    TL_VEC_PUSH(&s->sets, uint32_t, e->imm.index);
  }
}

/* Finds the locals read outside the reach of their sets (execution
 * order, an explicit stack). */
static void scan_body(lscan *s, tl_expr *body) {
  enter(s, body, true);
  while (s->stack.n) {
    lframe *fr = &TL_VEC_AT(&s->stack, lframe, s->stack.n - 1);
    tl_expr *e = fr->e;
    while (fr->next < e->nkid && !e->kid[fr->next]) fr->next++;
    if (fr->next < e->nkid) {
      uint32_t i = fr->next++;
      enter(s, e->kid[i], kid_scope(e, i));
      continue;
    }
    uint32_t mark = fr->mark;
    s->stack.n--;
    visit(s, e);
    leave_scope(s, mark);
  }
}

typedef struct { const uint8_t *bad; const tl_type *old; } wrap_ctx;

static tl_expr *non_null(tl_module *m, tl_func *f, tl_expr *e) {
  tl_expr *nn = tl_expr_new(m, TL_OP_REF_AS_NON_NULL, 1);
  nn->kid[0] = e;
  tl_expr_finalize(m, f, nn);
  return nn;
}

/* The value of tuple local i (of old type t) from its relaxed parts. */
static tl_expr *tuple_read(tl_module *m, tl_func *f, uint32_t i, tl_type t) {
  uint32_t n = tl_type_arity(m, t);
  tl_expr *mk = tl_expr_new(m, TL_OP_TUPLE_MAKE, n);
  for (uint32_t k = 0; k < n; k++) {
    tl_expr *x = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 1);
    x->imm.index = k;
    x->kid[0] = tl_make_local_get(m, f, i);
    tl_expr_finalize(m, f, x);
    mk->kid[k] = tl_type_defaultable(tl_type_at(m, t, k)) ? x : non_null(m, f, x);
  }
  tl_expr_finalize(m, f, mk);
  return mk;
}

static void wrap_visit(tl_walk *w, tl_expr **slot) {
  const wrap_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_LOCAL_GET && e->op != TL_OP_LOCAL_TEE) return;
  if (!c->bad[e->imm.index] || e->type == TL_UNREACHABLE) return;
  tl_expr_finalize(w->m, w->f, e); /* its local's type is nullable now */
  tl_type t = c->old[e->imm.index];
  if (!tl_type_is_tuple(t)) {
    *slot = non_null(w->m, w->f, e);
    return;
  }
  tl_expr *get = tuple_read(w->m, w->f, e->imm.index, t);
  if (e->op == TL_OP_LOCAL_GET) {
    *slot = get;
    return;
  }
  e->op = TL_OP_LOCAL_SET; /* a tee: the set, then the read */
  tl_expr_finalize(w->m, w->f, e);
  tl_expr *b = tl_expr_new(w->m, TL_OP_BLOCK, 2);
  b->imm.block.label = TL_NO_LABEL;
  b->kid[0] = e, b->kid[1] = get;
  tl_expr_finalize(w->m, w->f, b);
  *slot = b;
}

void tl_func_uncovered_locals(tl_module *m, tl_func *f, bool params_set, uint8_t *out) {
  uint32_t np = tl_func_nparams(m, f), n = f->nlocal;
  memset(out, 0, n);
  if (!f->body) return;
  lscan s = {0};
  s.set = tl_calloc(n ? n : 1, 1);
  if (!s.set) tl_arena_oom(&m->arena);
  s.bad = out;
  for (uint32_t i = 0; i < np && params_set; i++) s.set[i] = 1;
  scan_body(&s, f->body);
  tl_vec_free(&s.stack);
  tl_vec_free(&s.sets);
  tl_free(s.set);
}

bool tl_func_fix_local_init(tl_module *m, tl_func *f) {
  uint32_t np = tl_func_nparams(m, f), n = f->nlocal;
  bool any = false;
  for (uint32_t i = np; i < n && !any; i++) any = tracked(m, f, i);
  if (!any || !f->body) return false;
  lscan s = {0};
  s.set = tl_calloc(2 * (size_t)n, 1);
  if (!s.set) tl_arena_oom(&m->arena);
  s.bad = s.set + n;
  for (uint32_t i = 0; i < n; i++) s.set[i] = i < np || !tracked(m, f, i);
  scan_body(&s, f->body);
  bool changed = s.any_bad;
  if (changed) {
    tl_type *old = tl_malloc(n * sizeof *old);
    if (!old) tl_free(s.set), tl_arena_oom(&m->arena);
    memcpy(old, f->local, n * sizeof *old);
    for (uint32_t i = 0; i < n; i++)
      if (s.bad[i]) f->local[i] = relaxed(m, f->local[i]);
    wrap_ctx c = {s.bad, old};
    tl_walk_post(m, f, &f->body, wrap_visit, &c);
    tl_free(old);
    tl_func_refinalize(m, f);
  }
  tl_vec_free(&s.stack);
  tl_vec_free(&s.sets);
  tl_free(s.set);
  return changed;
}
