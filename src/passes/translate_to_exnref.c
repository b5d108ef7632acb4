/* translate_to_exnref.c — legacy exception handling to the standard form
 * (wasm-opt's --translate-to-exnref): try/catch/catch_all/delegate/rethrow
 * become try_table/throw_ref/exnref.
 *   try $l (T) body (catch $e1 h1) ... (catch_all hN)
 * becomes
 *   block $l (T)                        ;; branches to $l still land here
 *     consumeN (block $hN (exnref)      ;; one handler block per arm
 *       ... consume1 (block $h1 (P1 [exnref])
 *             (br $l (try_table (T) (catch[_ref] $e1 $h1) ... body))) ; br $l h1
 *     ...) ; hN
 * where consume_i stores the payload in the arm's payload local (and the
 * exnref in the try's exnref local when a rethrow names the try: catch_ref
 * then; rethrow $l becomes throw_ref of that local). `delegate L` sends
 * the exception by branch (an exnref) to a block $d wrapped around L's
 * body (L a try whose body holds the delegating try) or around L itself
 * (any other label; the function's label 0: its body), whose value is
 * thrown again with throw_ref there, past every handler in between.
 * Assumes: valid IR. Guarantees: valid IR without TRY, CATCH, CATCH_ALL,
 * DELEGATE or RETHROW; the same behaviour. */
#include "passes.h"

#include <stdlib.h>
#ifdef EHDBG
#include <stdio.h>
#endif

typedef struct {
  uint32_t n;        /* labels when the pass began */
  uint32_t *d_in;    /* per label: $d around a try's body, or TL_NO_LABEL */
  uint32_t *d_out;   /* per label: $d around the labeled node itself */
  uint32_t *exn;     /* per try label: its exnref local (rethrows), or TL_NO_INDEX */
} xctx;

static tl_expr *mk(tl_module *m, tl_op op, uint32_t label) {
  tl_expr *e = tl_expr_new(m, op, 0);
  if (tl_ops[op].flags & TL_F_CONTROL) e->imm.block.label = label;
  else e->imm.label = label;
  return e;
}

static tl_expr *br_to(tl_module *m, uint32_t label, tl_expr *v) {
  tl_expr *b = mk(m, TL_OP_BR, label);
  if (v) tl_expr_push_kid(m, b, v);
  return b;
}

/* [v; br l] when v (of type t: nodes made here are not typed yet) has
 * no value, [br l (v)] when it has one, [v] when it never ends, pushed
 * onto block b. */
static void push_exit(tl_module *m, tl_expr *b, tl_expr *v, tl_type t, uint32_t l) {
  bool value = t != TL_NONE && t != TL_UNREACHABLE;
  tl_expr_push_kid(m, b, value ? br_to(m, l, v) : v);
  if (t == TL_NONE) tl_expr_push_kid(m, b, br_to(m, l, NULL)); /* unreachable v: no exit */
}

/* Pre: note each delegate's target and where its $d block goes: around
 * the body of the try it names when the delegating try is in that body
 * (aux = 1), else around the labeled node (aux = 0). */
static void find_delegates(tl_walk *w, tl_expr **slot) {
  xctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_DELEGATE) return;
  uint32_t l = e->imm.label;
  e->aux = 0;
  if (l >= c->n) return;
  tl_expr *child = tl_walk_parent(w, 1);
  for (uint32_t up = 2;; up++) {
    tl_expr *a = tl_walk_parent(w, up);
    if (!a) break; /* the function's label outside its body block */
    if ((tl_ops[a->op].flags & TL_F_CONTROL) && a->imm.block.label == l) {
      if (a->op == TL_OP_TRY && a->kid[0] == child) {
        if (c->d_in[l] == TL_NO_LABEL) c->d_in[l] = tl_func_new_label(w->m, w->f);
        e->aux = 1;
        return;
      }
      break;
    }
    child = a;
  }
  if (c->d_out[l] == TL_NO_LABEL) c->d_out[l] = tl_func_new_label(w->m, w->f);
}

/* block $ret (e's type) [throw_ref (block $d (exnref) [br $ret e])]. */
static tl_expr *wrap_rethrow_point(tl_module *m, tl_func *f, tl_expr *e, tl_type t, uint32_t d) {
  uint32_t ret = tl_func_new_label(m, f);
  tl_expr *db = mk(m, TL_OP_BLOCK, d);
  push_exit(m, db, e, t, ret);
  tl_expr *tr = tl_expr_new(m, TL_OP_THROW_REF, 1);
  tr->kid[0] = db;
  tl_expr *outer = mk(m, TL_OP_BLOCK, ret);
  tl_expr_push_kid(m, outer, tr);
  outer->type = t; /* what an enclosing translation asks (refinalized at the end) */
  return outer;
}

/* consume (hb's values) for arm a of a try whose exnref local is exn. */
static tl_expr *consume(tl_module *m, tl_func *f, tl_expr *arm, tl_expr *hb, uint32_t exn) {
  uint32_t payload = arm->op == TL_OP_CATCH ? arm->imm.idx2.a : TL_NO_INDEX;
  tl_type p = arm->op == TL_OP_CATCH ? tl_tag_params(m, arm->imm.idx2.b) : TL_NONE;
  uint32_t np = tl_type_arity(m, p);
  if (exn == TL_NO_INDEX) {
    if (payload != TL_NO_INDEX) return tl_make_local_set(m, f, payload, hb, false);
    return np ? tl_make_drop(m, hb) : hb;
  }
  if (!np) return tl_make_local_set(m, f, exn, hb, false);
  tl_type *parts = TL_NEWN(&m->arena, tl_type, np + 1);
  for (uint32_t i = 0; i < np; i++) parts[i] = tl_type_at(m, p, i);
  parts[np] = TL_EXNREF;
  uint32_t tmp = tl_func_add_local(m, f, tl_type_tuple(m, parts, np + 1));
  tl_expr *b = tl_expr_new(m, TL_OP_BLOCK, 0);
  tl_expr_push_kid(m, b, tl_make_local_set(m, f, tmp, hb, false));
  if (payload != TL_NO_INDEX) {
    tl_expr *v = np > 1 ? tl_expr_new(m, TL_OP_TUPLE_MAKE, 0) : NULL;
    for (uint32_t i = 0; i < np; i++) {
      tl_expr *x = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 0);
      tl_expr_push_kid(m, x, tl_make_local_get(m, f, tmp));
      x->imm.index = i;
      if (v) tl_expr_push_kid(m, v, x);
      else v = x;
    }
    tl_expr_push_kid(m, b, tl_make_local_set(m, f, payload, v, false));
  }
  tl_expr *x = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 0);
  tl_expr_push_kid(m, x, tl_make_local_get(m, f, tmp));
  x->imm.index = np;
  tl_expr_push_kid(m, b, tl_make_local_set(m, f, exn, x, false));
  return b;
}

/* The label the block replacing try e ends: its own, or a new one for a
 * try without (passes drop the labels nothing names). */
static uint32_t try_label(tl_module *m, tl_func *f, const tl_expr *e) {
  return e->imm.block.label != TL_NO_LABEL ? e->imm.block.label : tl_func_new_label(m, f);
}

/* try with catch arms (or none). */
static tl_expr *translate_catches(tl_walk *w, tl_expr *e, uint32_t exn) {
  tl_module *m = w->m;
  tl_func *f = w->f;
  uint32_t l = try_label(m, f, e), narm = e->nkid - 1;
  tl_expr *tt = mk(m, TL_OP_TRY_TABLE, tl_func_new_label(m, f));
  tt->imm.block.bt = e->imm.block.bt;
  tl_expr_push_kid(m, tt, e->kid[0]);
  tl_expr *inner = tt; /* what the innermost handler block exits with */
  tl_expr *cur = NULL;
  for (uint32_t i = 0; i < narm; i++) {
    tl_expr *arm = e->kid[i + 1];
    bool ref = exn != TL_NO_INDEX, all = arm->op == TL_OP_CATCH_ALL;
    tl_expr *clause = tl_expr_new(m, (tl_op)(TL_OP_TT_CATCH + (all ? 2 : 0) + (ref ? 1 : 0)), 0);
    uint32_t h = tl_func_new_label(m, f);
    clause->imm.idx2.a = h;
    clause->imm.idx2.b = all ? 0 : arm->imm.idx2.b;
    tl_expr_push_kid(m, tt, clause);
    tl_expr *hb = mk(m, TL_OP_BLOCK, h);
    if (i == 0) push_exit(m, hb, inner, e->type, l);
    else {
      for (uint32_t k = 0; k < cur->nkid; k++) tl_expr_push_kid(m, hb, cur->kid[k]);
    }
    cur = tl_expr_new(m, TL_OP_BLOCK, 0);
    tl_expr_push_kid(m, cur, consume(m, f, arm, hb, exn));
    if (i + 1 < narm) push_exit(m, cur, arm->kid[0], arm->kid[0]->type, l);
    else tl_expr_push_kid(m, cur, arm->kid[0]);
  }
  tl_expr *outer = mk(m, TL_OP_BLOCK, l);
  outer->imm.block.bt = e->imm.block.bt;
  if (!narm) tl_expr_push_kid(m, outer, tt);
  else for (uint32_t k = 0; k < cur->nkid; k++) tl_expr_push_kid(m, outer, cur->kid[k]);
  return outer;
}

/* try ... delegate L: the exnref goes by branch to L's $d. */
static tl_expr *translate_delegate(tl_walk *w, tl_expr *e, uint32_t d) {
  tl_module *m = w->m;
  uint32_t l = try_label(m, w->f, e), h = tl_func_new_label(m, w->f);
  tl_expr *tt = mk(m, TL_OP_TRY_TABLE, tl_func_new_label(m, w->f));
  tt->imm.block.bt = e->imm.block.bt;
  tl_expr_push_kid(m, tt, e->kid[0]);
  tl_expr *clause = tl_expr_new(m, TL_OP_TT_CATCH_ALL_REF, 0);
  clause->imm.idx2.a = h;
  tl_expr_push_kid(m, tt, clause);
  tl_expr *hb = mk(m, TL_OP_BLOCK, h);
  push_exit(m, hb, tt, e->type, l);
  tl_expr *outer = mk(m, TL_OP_BLOCK, l);
  outer->imm.block.bt = e->imm.block.bt;
  tl_expr_push_kid(m, outer, br_to(m, d, hb));
  return outer;
}

static void translate(tl_walk *w, tl_expr **slot) {
  xctx *c = w->ctx;
  tl_module *m = w->m;
  tl_expr *e = *slot;
  if (e->op == TL_OP_RETHROW) {
    uint32_t l = e->imm.label < c->n ? e->imm.label : c->n;
    if (c->exn[l] == TL_NO_INDEX) c->exn[l] = tl_func_add_local(m, w->f, TL_EXNREF);
    tl_expr *tr = tl_expr_new(m, TL_OP_THROW_REF, 1);
    tr->kid[0] = tl_make_local_get(m, w->f, c->exn[l]);
    tl_expr_finalize(m, w->f, tr); /* unreachable: a catch arm it ends needs no exit branch */
    *slot = tr;
    return;
  }
  if (!(tl_ops[e->op].flags & TL_F_CONTROL)) return;
  uint32_t l = e->imm.block.label < c->n ? e->imm.block.label : c->n; /* c->n: a slot that stays empty */
  tl_type t = e->type;
  if (e->op == TL_OP_TRY) {
    if (c->d_in[l] != TL_NO_LABEL) e->kid[0] = wrap_rethrow_point(m, w->f, e->kid[0], e->kid[0]->type, c->d_in[l]);
    tl_expr *last = e->kid[e->nkid - 1];
    if (e->nkid == 2 && last->op == TL_OP_DELEGATE) {
      uint32_t tl = last->imm.label < c->n ? last->imm.label : 0;
      e = translate_delegate(w, e, last->aux ? c->d_in[tl] : c->d_out[tl]);
    } else {
      e = translate_catches(w, e, c->exn[l]);
    }
    e->type = t; /* what an enclosing translation asks (refinalized at the end) */
  }
  if (c->d_out[l] != TL_NO_LABEL) e = wrap_rethrow_point(m, w->f, e, t, c->d_out[l]);
  *slot = e;
}

static tl_status translate_func(tl_module *m, tl_func *f) {
  xctx c = {f->nlabel, NULL, NULL, NULL};
  c.d_in = tl_malloc(sizeof *c.d_in * (c.n + 1));
  c.d_out = tl_malloc(sizeof *c.d_out * (c.n + 1));
  c.exn = tl_malloc(sizeof *c.exn * (c.n + 1));
  if (!c.d_in || !c.d_out || !c.exn) {
    tl_free(c.d_in); tl_free(c.d_out); tl_free(c.exn);
    return TL_E_NOMEM;
  }
  for (uint32_t i = 0; i <= c.n; i++) c.d_in[i] = c.d_out[i] = TL_NO_LABEL, c.exn[i] = TL_NO_INDEX;
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = &c;
  w.pre = find_delegates;
  tl_walk_run(&w, &f->body);
  /* a delegate to the function's label when the body block has another */
  bool body_has_0 = f->body->op == TL_OP_BLOCK && f->body->imm.block.label == 0;
  tl_walk w2 = {0};
  w2.m = m;
  w2.f = f;
  w2.ctx = &c;
  w2.post = translate;
  tl_walk_run(&w2, &f->body);
  if (!body_has_0 && c.n && c.d_out[0] != TL_NO_LABEL) f->body = wrap_rethrow_point(m, f, f->body, f->body->type, c.d_out[0]);
  tl_free(c.d_in); tl_free(c.d_out); tl_free(c.exn);
  tl_func_refinalize(m, f);
#ifdef EHDBG
  { tl_expr *st[256]; uint32_t d[256]; uint32_t n = 0; st[n] = f->body; d[n++] = 0;
    while (n) { n--; tl_expr *e = st[n]; uint32_t dd = d[n];
      fprintf(stderr, "%*s%s type=%u label=%u\n", (int)dd*2, "", tl_ops[e->op].text, e->type, (tl_ops[e->op].flags & TL_F_CONTROL) ? e->imm.block.label : e->imm.label);
      for (uint32_t i = e->nkid; i-- > 0;) if (e->kid[i] && n < 255) { st[n] = e->kid[i]; d[n++] = dd + 1; } } }
#endif
  return TL_OK;
}

tl_status tl_pass_translate_to_exnref(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (!f->body || !tl_expr_has_eh(f->body)) continue;
    tl_status s = translate_func(m, f);
    if (s != TL_OK) return s;
  }
  return TL_OK;
}
