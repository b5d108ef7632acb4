/* once_reduction.c — remove calls to "once" functions that have certainly
 * run already (wasm-opt's once-reduction). A once function has no params
 * or results and starts with `if (global.get $g) (return)` then
 * `global.set $g K`; $g is a defined, unexported integer global with a
 * constant init, every write of it sets a positive constant, and nothing
 * else reads it. Such a global only goes from zero to non-zero, so once it
 * is known set, calls to its function and further writes of it are nops.
 * "Known set" follows execution order through the structured code: it
 * grows along straight-line code and after a call of a function that
 * certainly sets globals (a summary per function, iterated to a fixpoint);
 * if arms start from the state after the condition and the if ends there;
 * a block a branch targets ends with the state it started with (return and
 * tail calls target the function's block); a loop ends with its body's.
 * The candidates are found by scanning the bodies in parallel (read counts
 * and disqualified globals are atomic, so order-free).
 * Guarantees the same behaviour. */
#include "passes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NOT_ONCE UINT32_MAX

typedef struct {
  tl_expr *node;
  uint32_t len;      /* state length to restore to */
} frame;

typedef struct {
  tl_module *m;
  uint32_t *once_of;  /* function -> its global, or NOT_ONCE */
  uint8_t *is_once;   /* global -> candidate */
  tl_vec *summary;    /* function -> globals certainly set (uint32_t) */
  /* per-function walk state */
  uint8_t *inset;     /* global -> in the state */
  tl_vec state;       /* globals, in the order they became known */
  tl_vec frames;
  uint8_t *targeted;  /* label -> some branch targets it */
  bool changed;
} orx;

/* ---- finding once globals and functions ---------------------------- */
typedef struct {
  atomic_uint *reads;   /* global -> reads */
  atomic_uchar *bad;    /* global -> written other than a positive constant */
} scan_ctx;

static bool positive_const(const tl_expr *v) {
  return (v->op == TL_OP_I32_CONST && v->imm.i32 > 0) || (v->op == TL_OP_I64_CONST && v->imm.i64 > 0);
}

static void scan_visit(tl_walk *w, tl_expr **slot) {
  scan_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_GLOBAL_GET) atomic_fetch_add_explicit(&c->reads[e->imm.index], 1, memory_order_relaxed);
  else if (e->op == TL_OP_GLOBAL_SET && !positive_const(e->kid[0]))
    atomic_store_explicit(&c->bad[e->imm.index], 1, memory_order_relaxed);
}

static bool is_return(const tl_func *f, const tl_expr *e) {
  if (e->op == TL_OP_BLOCK && e->imm.block.label == TL_NO_LABEL && e->nkid == 1) e = e->kid[0];
  if (e->op == TL_OP_RETURN) return e->nkid == 0;
  return e->op == TL_OP_BR && e->nkid == 0 && e->imm.label == f->body->imm.block.label;
}

/* The global of the once pattern at the top of f, or NOT_ONCE. */
static uint32_t once_pattern(tl_module *m, tl_func *f) {
  tl_functype *ft = tl_func_type(m, f);
  tl_expr *b = f->body;
  if (ft->params != TL_NONE || ft->results != TL_NONE || b->nkid < 2) return NOT_ONCE;
  tl_expr *iff = b->kid[0], *set = b->kid[1];
  if (iff->op != TL_OP_IF || iff->nkid != 2 || iff->kid[0]->op != TL_OP_GLOBAL_GET) return NOT_ONCE;
  if (!is_return(f, iff->kid[1])) return NOT_ONCE;
  uint32_t g = iff->kid[0]->imm.index;
  if (set->op != TL_OP_GLOBAL_SET || set->imm.index != g) return NOT_ONCE;
  return g;
}

/* The scan sees only the nodes that read or write a global. */
#define GLOBAL_OPS (TL_F_READS_GLOBAL | TL_F_WRITES_GLOBAL)

static void scan_expr(tl_module *m, tl_expr **e, scan_ctx *c) {
  if (*e) tl_walk_post_only(m, NULL, e, scan_visit, c, GLOBAL_OPS);
}

typedef struct {
  orx *o;
  scan_ctx *c;
} find_job;

static void find_one(void *user, uint32_t k) {
  find_job *j = user;
  tl_module *m = j->o->m;
  uint32_t i = m->nimported_funcs + k;
  tl_func *f = TL_FUNC(m, i);
  tl_walk_post_only(m, f, &f->body, scan_visit, j->c, GLOBAL_OPS);
  j->o->once_of[i] = once_pattern(m, f);
}

/* c: ng + 1 zeroed counters and flags, the caller's scratch. */
static bool find_once(tl_pass_ctx *ctx, orx *o, scan_ctx *c) {
  tl_module *m = o->m;
  uint32_t ng = (uint32_t)m->globals.n;
  for (uint32_t i = m->nimported_globals; i < ng; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    o->is_once[i] = (g->type == TL_I32 || g->type == TL_I64) && g->init &&
                    (g->init->op == TL_OP_I32_CONST || g->init->op == TL_OP_I64_CONST);
  }
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_GLOBAL) o->is_once[TL_EXPORT(m, i)->index] = 0;
  find_job j = {o, c};
  tl_run_parallel(ctx, (uint32_t)m->funcs.n - m->nimported_funcs, find_one, &j);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    if (o->once_of[i] != NOT_ONCE) atomic_fetch_sub_explicit(&c->reads[o->once_of[i]], 1, memory_order_relaxed);
  for (uint32_t i = 0; i < ng; i++) scan_expr(m, &TL_GLOBAL(m, i)->init, c);
  for (size_t i = 0; i < m->elems.n; i++) {
    scan_expr(m, &TL_ELEM(m, i)->offset, c);
    for (uint32_t j = 0; j < TL_ELEM(m, i)->n; j++) scan_expr(m, &TL_ELEM(m, i)->item[j], c);
  }
  for (size_t i = 0; i < m->datas.n; i++) scan_expr(m, &TL_DATA(m, i)->offset, c);
  for (uint32_t i = 0; i < ng; i++)
    if (c->reads[i] || c->bad[i]) o->is_once[i] = 0;
  bool any = false;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    if (o->once_of[i] != NOT_ONCE && !o->is_once[o->once_of[i]]) o->once_of[i] = NOT_ONCE;
    any |= o->once_of[i] != NOT_ONCE;
  }
  return any;
}

/* ---- the optimizer walk --------------------------------------------- */
static void add(orx *o, uint32_t g) {
  if (o->inset[g]) return;
  o->inset[g] = 1;
  TL_VEC_PUSH(&o->state, uint32_t, g);
}

static void truncate(orx *o, uint32_t len) {
  while (o->state.n > len) o->inset[TL_VEC_AT(&o->state, uint32_t, --o->state.n)] = 0;
}

static void target_visit(tl_walk *w, tl_expr **slot) {
  orx *o = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) o->targeted[e->imm.label] = 1;
  else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++) o->targeted[e->imm.table->targets[i]] = 1;
    o->targeted[e->imm.table->def] = 1;
  } else if (e->op == TL_OP_RETURN || e->op == TL_OP_RETURN_CALL || e->op == TL_OP_RETURN_CALL_INDIRECT) {
    o->targeted[w->f->body->imm.block.label] = 1;
  }
}

static void pre(tl_walk *w, tl_expr **slot) {
  orx *o = w->ctx;
  tl_expr *e = *slot;
  if (o->frames.n) {
    frame *top = &TL_VEC_AT(&o->frames, frame, o->frames.n - 1);
    if (top->node->op == TL_OP_IF && top->node->nkid > 1 && e == top->node->kid[1]) top->len = (uint32_t)o->state.n;
    else if (top->node->op == TL_OP_IF && top->node->nkid > 2 && e == top->node->kid[2]) truncate(o, top->len);
  }
  if (tl_ops[e->op].flags & TL_F_CONTROL) TL_VEC_PUSH(&o->frames, frame, ((frame){e, (uint32_t)o->state.n}));
}

static void post_control(orx *o, tl_expr *e) {
  frame fr = TL_VEC_AT(&o->frames, frame, --o->frames.n);
  uint32_t l = e->imm.block.label;
  if (e->op == TL_OP_IF || (e->op == TL_OP_BLOCK && l != TL_NO_LABEL && o->targeted[l])) truncate(o, fr.len);
}

static void post(tl_walk *w, tl_expr **slot) {
  orx *o = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].flags & TL_F_CONTROL) {
    post_control(o, e);
  } else if (e->op == TL_OP_CALL) {
    uint32_t g = o->once_of[e->imm.index];
    if (g == NOT_ONCE) {
      tl_vec *s = &o->summary[e->imm.index];
      for (size_t i = 0; i < s->n; i++) add(o, TL_VEC_AT(s, uint32_t, i));
    } else if (o->inset[g]) {
      *slot = tl_make_nop(o->m);
      o->changed = true;
    } else {
      add(o, g);
    }
  } else if (e->op == TL_OP_GLOBAL_SET && o->is_once[e->imm.index]) {
    if (o->inset[e->imm.index]) {
      *slot = tl_make_nop(o->m);
      o->changed = true;
    } else {
      add(o, e->imm.index);
    }
  }
}

/* One pass over f; returns the globals certainly set when f returns.
 * o->targeted holds at least f->nlabel + 1 bytes. */
static void optimize_func(orx *o, uint32_t fi, tl_vec *out) {
  tl_func *f = TL_FUNC(o->m, fi);
  memset(o->targeted, 0, (size_t)f->nlabel + 1);
  tl_walk_post(o->m, f, &f->body, target_visit, o);
  tl_walk w = {0};
  w.m = o->m;
  w.f = f;
  w.ctx = o;
  w.pre = pre;
  w.post = post;
  tl_walk_run(&w, &f->body);
  out->n = 0;
  if (o->once_of[fi] != NOT_ONCE) TL_VEC_PUSH(out, uint32_t, o->once_of[fi]);
  for (size_t i = 0; i < o->state.n; i++)
    if (TL_VEC_AT(&o->state, uint32_t, i) != o->once_of[fi]) TL_VEC_PUSH(out, uint32_t, TL_VEC_AT(&o->state, uint32_t, i));
  truncate(o, 0);
  o->frames.n = 0;
}

tl_status tl_pass_once_reduction(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n, ng = (uint32_t)m->globals.n;
  if (!ng || nf == m->nimported_funcs) return TL_OK;
  uint32_t maxlab = 0;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (TL_FUNC(m, i)->nlabel > maxlab) maxlab = TL_FUNC(m, i)->nlabel;
  orx o = {m, tl_scratch_calloc(nf, 4), tl_scratch_calloc(ng, 1), tl_scratch_calloc(nf, sizeof(tl_vec)),
           tl_scratch_calloc(ng, 1), {0}, {0}, tl_scratch_calloc((size_t)maxlab + 1, 1), false};
  scan_ctx c = {tl_scratch_calloc((size_t)ng + 1, sizeof(atomic_uint)),
                tl_scratch_calloc((size_t)ng + 1, sizeof(atomic_uchar))};
  if (!o.once_of || !o.is_once || !o.summary || !o.inset || !o.targeted || !c.reads || !c.bad) {
    tl_free(o.once_of);
    tl_free(o.is_once);
    tl_free(o.summary);
    tl_free(o.inset);
    tl_free(o.targeted);
    tl_free(c.reads);
    tl_free(c.bad);
    return tl_nomem(ctx->err, "once-reduction");
  }
  for (uint32_t i = 0; i < nf; i++) o.once_of[i] = NOT_ONCE;
  bool found = find_once(ctx, &o, &c);
  tl_free(c.reads);
  tl_free(c.bad);
  if (found) {
    for (uint32_t i = 0; i < nf; i++)
      if (o.once_of[i] != NOT_ONCE) TL_VEC_PUSH(&o.summary[i], uint32_t, o.once_of[i]);
    tl_vec fresh = {0};
    for (int iter = 0; iter < 16; iter++) { /* while summaries grow */
      bool grew = false;
      for (uint32_t i = m->nimported_funcs; i < nf; i++) {
        optimize_func(&o, i, &fresh);
        if (fresh.n > o.summary[i].n) {
          tl_vec t = o.summary[i];
          o.summary[i] = fresh;
          fresh = t;
          grew = true;
        }
      }
      if (!grew) break;
    }
    tl_vec_free(&fresh);
  }
  for (uint32_t i = 0; i < nf; i++) tl_vec_free(&o.summary[i]);
  tl_vec_free(&o.state);
  tl_vec_free(&o.frames);
  tl_free(o.once_of);
  tl_free(o.is_once);
  tl_free(o.summary);
  tl_free(o.inset);
  tl_free(o.targeted);
  return TL_OK;
}
