/* inlining.c — inlining(-optimizing) with wasm-opt's heuristics: inline a
 * defined function at its live direct calls when tiny (<= 2 nodes), or its
 * single reference (not exported/start), or (-O3, no shrinking) small and
 * loop- and call-free; rounds repeat while inlining. The body becomes a
 * labeled block: params are locals set from the operands, read locals are
 * re-zeroed (not non-nullable ones, GC: valid code sets them before any
 * read), return(_call)s (_ref too) leave the block. Fully inlined functions go;
 * -optimizing re-optimizes the callers. wasm-opt's size flags are pass args.
 * Guarantees the same behaviour (stack depth aside). */
#include "passes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
  ALWAYS_MAX = 2,        /* alwaysInlineMaxSize */
  FLEXIBLE_MAX = 20,     /* flexibleInlineMaxSize */
  MAX_ROUNDS_INTO = 5,   /* MaxIterationsForFunc */
  MAX_COMBINED = 400 * 1024 / 3, /* combined nodes (3 bytes each) under 400 KiB */
};

/* refs: references outside dead code (what wasm-opt, whose reader drops
 * code after an unreachable, would see); all_refs: every reference (a
 * function is removed only when all of them were inlined). Bodies are
 * scanned in parallel: the counts are atomic sums (order-free), the rest
 * is written only by the function's own scan. */
typedef struct {
  atomic_uint refs, all_refs;
  uint32_t size;
  bool calls, loops, global, worth;
} finfo;

typedef struct {
  tl_expr *e;
  bool dead;  /* after an unreachable child of a block or loop */
} scan_item;

/* What scan_expr found in a body, kept from round to round while the body
 * stays as it was (fresh): a round rescans only the bodies it inlined into
 * (and re-optimized); remove_funcs renumbers the lists. */
typedef struct {
  uint32_t size;
  bool calls, loops, fresh;
  tl_vec callees;   /* uint32_t: see scan_expr */
  tl_vec refs;      /* uint32_t: target << 1 | live, each reference the body makes */
} fscan;

static bool reachable_call(const tl_expr *e) {
  if (e->op == TL_OP_CALL) return e->type != TL_UNREACHABLE;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (e->kid[i]->type == TL_UNREACHABLE) return false;
  return true;
}

/* A body's size, calls and loops outside dead code, its references and
 * callees (the targets of its live direct calls that could be inlined
 * whatever the target's size: reachable operands, no tuple operand), into
 * *me; module code (me NULL) adds its references to info's counts. */
static void scan_expr(tl_module *m, finfo *info, tl_expr *root, fscan *me) {
  tl_vec st = {0};
  if (root) TL_VEC_PUSH(&st, scan_item, ((scan_item){root, false}));
  while (st.n) {
    scan_item it = TL_VEC_AT(&st, scan_item, --st.n);
    tl_expr *e = it.e;
    bool live = !it.dead;
    if (me && live) me->size++;
    if (e->op == TL_OP_CALL || e->op == TL_OP_RETURN_CALL || e->op == TL_OP_REF_FUNC) {
      if (me) TL_VEC_PUSH(&me->refs, uint32_t, e->imm.index << 1 | live);
      else atomic_fetch_add_explicit(&info[e->imm.index].all_refs, 1, memory_order_relaxed);
      if (!me && live) atomic_fetch_add_explicit(&info[e->imm.index].refs, 1, memory_order_relaxed);
      if (me && live && e->op != TL_OP_REF_FUNC) {
        me->calls = true;
        if (reachable_call(e) && e->nkid == tl_func_nparams(m, TL_FUNC(m, e->imm.index)))
          TL_VEC_PUSH(&me->callees, uint32_t, e->imm.index);
      }
    } else if (e->op == TL_OP_LOOP && me && live) {
      me->loops = true;
    }
    bool list = e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP, dead = it.dead;
    for (uint32_t i = 0; i < e->nkid; i++) {
      if (!e->kid[i]) continue;
      TL_VEC_PUSH(&st, scan_item, ((scan_item){e->kid[i], dead}));
      if (list && e->kid[i]->type == TL_UNREACHABLE) dead = true;
    }
  }
  tl_vec_free(&st);
}

static void levels(const tl_pass_ctx *ctx, uint32_t *o, uint32_t *s) {
  *o = ctx->opt ? ctx->opt->optimize_level : 0;
  *s = ctx->opt ? ctx->opt->shrink_level : 0;
}

/* wasm-opt's inlining options (its flags --always-inline-max-function-size
 * and friends), here as --pass-arg KEY@VALUE. */
typedef struct {
  uint32_t always, flexible, one_caller;
  bool loops;
} limits;

static uint32_t arg_u32(const tl_pass_ctx *ctx, const char *key, uint32_t dflt) {
  const char *v = tl_pass_arg_get(ctx, key);
  if (!v || *v < '0' || *v > '9') return dflt;
  unsigned long n = strtoul(v, NULL, 10);
  return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static limits get_limits(const tl_pass_ctx *ctx) {
  limits l = {arg_u32(ctx, "always-inline-max-function-size", ALWAYS_MAX),
              arg_u32(ctx, "flexible-inline-max-function-size", FLEXIBLE_MAX),
              arg_u32(ctx, "one-caller-inline-max-function-size", UINT32_MAX),
              tl_pass_arg_get(ctx, "inline-functions-with-loops") != NULL};
  return l;
}

/* gc: the callee has GC types or instructions; until the GC passes that
 * clean up after inlining exist (heap2local, optimize-casts, ...), -O3's
 * small-function rule leaves those out of line (it grew the GC corpus's
 * -O3 output by 15%), so only tiny ones and only-callers inline. */
static bool worth(const finfo *fi, const limits *l, uint32_t o, uint32_t s, bool gc) {
  if (fi->size <= l->always) return true;
  if (fi->refs == 1 && !fi->global && fi->size <= l->one_caller) return true;
  if (gc || fi->size > l->flexible || fi->calls || (fi->loops && !l->loops)) return false;
  return o >= 3 && s == 0;
}

/* Kids of a block up to its first unreachable one. */
static uint32_t live_kids(const tl_expr *b) {
  uint32_t n = 0;
  while (n < b->nkid && b->kid[n]->type != TL_UNREACHABLE) n++;
  return n < b->nkid ? n + 1 : n;
}

typedef struct {
  tl_module *m;
  fscan *sc;
  const uint32_t *stale;   /* the bodies to scan */
} scan_job;

static void scan_one(void *user, uint32_t k) {
  scan_job *j = user;
  uint32_t i = j->stale[k];
  tl_func *f = TL_FUNC(j->m, i);
  fscan *s = &j->sc[i];
  s->size = 0;
  s->calls = s->loops = false;
  s->callees.n = s->refs.n = 0;
  scan_expr(j->m, NULL, f->body, s);
  if (live_kids(f->body) == 1) s->size--;
  s->fresh = true;
}

/* Sizes (nodes, the body block counted only when it holds several), refs,
 * exported/start, and the decision for each function, from sc (the bodies
 * no longer fresh scanned again first). false: out of memory. */
static bool compute_info(tl_pass_ctx *ctx, finfo *info, fscan *sc) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n, o, s, nstale = 0;
  memset(info, 0, nf * sizeof *info);
  uint32_t *stale = tl_scratch_realloc(NULL, (size_t)nf + 1, sizeof *stale);
  if (!stale) return false;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (!sc[i].fresh) stale[nstale++] = i;
  scan_job j = {m, sc, stale};
  tl_run_parallel(ctx, nstale, scan_one, &j);
  tl_free(stale);
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    info[i].size = sc[i].size;
    info[i].calls = sc[i].calls;
    info[i].loops = sc[i].loops;
    for (size_t k = 0; k < sc[i].refs.n; k++) {
      uint32_t r = TL_VEC_AT(&sc[i].refs, uint32_t, k);
      atomic_fetch_add_explicit(&info[r >> 1].all_refs, 1, memory_order_relaxed);
      if (r & 1) atomic_fetch_add_explicit(&info[r >> 1].refs, 1, memory_order_relaxed);
    }
  }
  for (size_t i = 0; i < m->globals.n; i++) scan_expr(m, info, TL_GLOBAL(m, i)->init, NULL);
  for (size_t i = 0; i < m->tables.n; i++) scan_expr(m, info, TL_TABLE(m, i)->init, NULL);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    scan_expr(m, info, el->offset, NULL);
    for (uint32_t k = 0; k < el->n; k++) scan_expr(m, info, el->item[k], NULL);
  }
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) info[TL_EXPORT(m, i)->index].global = true;
  if (m->has_start) info[m->start].global = true;
  levels(ctx, &o, &s);
  limits l = get_limits(ctx);
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    info[i].worth = worth(&info[i], &l, o, s, tl_func_has_gc(m, TL_FUNC(m, i)));
  return true;
}

/* ---- copying a callee into a caller ------------------------------------- */
typedef struct {
  tl_module *m;
  tl_func *into;
  uint32_t base;    /* caller local of callee local 0 */
  uint32_t *lmap;   /* callee label -> caller label */
  uint32_t ret;     /* the inlined block's label */
  uint8_t *read;    /* callee locals read */
  const tl_func *moved_from; /* the callee whose body moves in, if it has debug locations */
} copy_ctx;

static void copy_pre(tl_walk *w, tl_expr **slot) {
  copy_ctx *c = w->ctx;
  tl_expr *e = *slot;
  const tl_debugloc *l = c->moved_from ? tl_loc_get(c->moved_from, e) : NULL;
  if (l) tl_loc_set(c->into, e, *l);
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL) {
    uint32_t l = tl_func_new_label(c->m, c->into);
    c->lmap[e->imm.block.label] = l;
    e->imm.block.label = l;
  }
}

static tl_expr *make_br(tl_module *m, uint32_t label, tl_expr *value) {
  tl_expr *br = tl_expr_new(m, TL_OP_BR, value ? 1 : 0);
  br->imm.label = label;
  if (value) br->kid[0] = value;
  tl_expr_finalize(m, NULL, br);
  return br;
}

/* return_call f(args) -> br $ret (call f(args)), or {call; br $ret}; the
 * same for return_call_indirect and return_call_ref. */
static tl_expr *untail(copy_ctx *c, tl_expr *e) {
  e->op = e->op == TL_OP_RETURN_CALL       ? TL_OP_CALL
        : e->op == TL_OP_RETURN_CALL_REF ? TL_OP_CALL_REF
                                         : TL_OP_CALL_INDIRECT;
  tl_expr_finalize(c->m, NULL, e);
  tl_type t = tl_expr_natural_type(c->m, NULL, e);
  if (tl_type_is_concrete(t)) return make_br(c->m, c->ret, e);
  tl_expr *kids[2] = {e, make_br(c->m, c->ret, NULL)};
  return tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, kids, 2);
}

static void copy_post(tl_walk *w, tl_expr **slot) {
  copy_ctx *c = w->ctx;
  tl_expr *e = *slot;
  switch (e->op) {
  case TL_OP_LOCAL_GET: c->read[e->imm.index] = 1; /* fall through */
  case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: e->imm.index += c->base; break;
  case TL_OP_BR: case TL_OP_BR_IF: case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL: case TL_OP_BR_ON_NULL:
  case TL_OP_BR_ON_NON_NULL:
    e->imm.label = c->lmap[e->imm.label];
    break;
  case TL_OP_BR_TABLE: {
    tl_brtable *t = tl_brtable_new(c->m, e->imm.table->n);
    for (uint32_t i = 0; i < e->imm.table->n; i++) t->targets[i] = c->lmap[e->imm.table->targets[i]];
    t->def = c->lmap[e->imm.table->def];
    e->imm.table = t;
    break;
  }
  case TL_OP_RETURN: e->op = TL_OP_BR; e->imm.label = c->ret; break;
  /* tail calls become calls: in a caller's try body a return_call would
   * leave the try's handlers (wasm-opt's inlining does the same) */
  case TL_OP_RETURN_CALL: case TL_OP_RETURN_CALL_INDIRECT: case TL_OP_RETURN_CALL_REF:
    *slot = untail(c, e);
    break;
  /* exception handling: payload locals move with the callee's locals; a
   * delegate to the callee's own label (its caller) names the inlined
   * block, whose position is the call site's */
  case TL_OP_CATCH: if (e->imm.idx2.a != TL_NO_INDEX) e->imm.idx2.a += c->base; break;
  case TL_OP_RETHROW: case TL_OP_DELEGATE: e->imm.label = c->lmap[e->imm.label]; break;
  case TL_OP_TT_CATCH: case TL_OP_TT_CATCH_REF: case TL_OP_TT_CATCH_ALL: case TL_OP_TT_CATCH_ALL_REF:
    e->imm.idx2.a = c->lmap[e->imm.idx2.a];
    break;
  default: break;
  }
}

/* Whether t has a default value (every part of a tuple nullable or not a
 * reference). */
static bool has_zero(const tl_module *m, tl_type t) {
  uint32_t n = tl_type_is_tuple(t) ? tl_type_arity(m, t) : 1;
  for (uint32_t i = 0; i < n; i++)
    if (!tl_type_defaultable(n > 1 || tl_type_is_tuple(t) ? tl_type_at(m, t, i) : t)) return false;
  return true;
}

/* The block that replaces `call` (a call or return_call of `from` in `into`).
 * move: this is the callee's only reference, and it goes after the round,
 * so its body moves into the caller instead of being copied (its nodes are
 * rewritten in place; from->body is left NULL). */
static tl_expr *inline_call(tl_module *m, tl_func *into, tl_func *from, tl_expr *call, bool move,
                            uint32_t *lmap, uint8_t *read) {
  uint32_t np = tl_func_nparams(m, from), base = into->nlocal;
  for (uint32_t i = 0; i < from->nlocal; i++) tl_func_add_var(m, into, from->local[i]);
  memset(read, 0, (size_t)from->nlocal + 1);
  copy_ctx c = {m, into, base, lmap, 0, read, move && from->locs ? from : NULL};
  tl_expr *body = move ? from->body : tl_expr_copy_from(m, NULL, from, into, from->body);
  if (move) from->body = NULL;
  c.ret = tl_func_new_label(m, into);
  if (body->imm.block.label != TL_NO_LABEL) c.lmap[body->imm.block.label] = c.ret;
  body->imm.block.label = TL_NO_LABEL; /* copy_pre must not relabel the root */
  tl_walk w = {0};
  w.m = m;
  w.f = into;
  w.ctx = &c;
  w.pre = copy_pre;
  w.post = copy_post;
  tl_walk_run(&w, &body);
  tl_vec kids = {0};
  for (uint32_t i = 0; i < np; i++)
    TL_VEC_PUSH(&kids, tl_expr *, tl_make_local_set(m, into, base + i, call->kid[i], false));
  /* the vars it reads start at zero each call; a non-nullable one (GC,
   * or a tuple holding one) has no zero, and valid code sets it before any
   * read anyway */
  for (uint32_t i = np; i < from->nlocal; i++)
    if (c.read[i] && has_zero(m, from->local[i]))
      TL_VEC_PUSH(&kids, tl_expr *, tl_make_local_set(m, into, base + i, tl_make_zero(m, from->local[i]), false));
  for (uint32_t i = 0; i < body->nkid; i++) TL_VEC_PUSH(&kids, tl_expr *, body->kid[i]);
  tl_expr *blk = tl_make_block(m, TL_OP_BLOCK, c.ret, kids.p, (uint32_t)kids.n);
  blk->imm.block.bt = TL_NO_INDEX;
  /* the call's location stays with what stands for it: the block and the
   * stores of the arguments */
  const tl_debugloc *got = tl_loc_get(into, call);
  tl_debugloc at = got ? *got : (tl_debugloc){0};
  for (uint32_t i = 0; at.line && i < np; i++) tl_loc_set(into, blk->kid[i], at);
  if (at.line) tl_loc_set(into, blk, at);
  tl_vec_free(&kids);
  if (call->op == TL_OP_CALL) return blk;
  tl_expr *ret = tl_expr_new(m, TL_OP_RETURN, 0);
  if (at.line) tl_loc_set(into, ret, at);
  if (tl_type_is_concrete(tl_func_type(m, from)->results)) {
    tl_expr_push_kid(m, ret, blk);
    tl_expr_finalize(m, NULL, ret);
    return ret;
  }
  tl_expr_finalize(m, NULL, ret);
  tl_expr *seq[2] = {blk, ret};
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, seq, 2);
}

/* ---- one round ---------------------------------------------------------- */
typedef struct {
  tl_module *m;
  finfo *info;
  uint32_t *uses;    /* inlined call sites per callee this round */
  uint8_t *into;     /* inlined into this round */
  uint32_t caller;
  /* inline_call's scratch, sized for the most labels and locals of any
   * function at the round's start (a callee is never changed in its round) */
  uint32_t *lmap;
  uint8_t *read;
  const fscan *sc;   /* per function: its scan (callees) */
} round_ctx;

/* A call the caller could inline this round, but for callees already
 * inlined into (r->into changes as the round goes; nothing else does). */
static bool may_inline(const round_ctx *r, uint32_t caller, const tl_expr *e) {
  if (e->op != TL_OP_CALL && e->op != TL_OP_RETURN_CALL) return false;
  uint32_t t = e->imm.index;
  const finfo *fi = &r->info[t];
  if (!fi->worth || t == caller || !reachable_call(e)) return false;
  if (e->nkid != tl_func_nparams(r->m, TL_FUNC(r->m, t))) return false; /* a tuple operand */
  return (uint64_t)r->info[caller].size + fi->size < MAX_COMBINED;
}

/* The live slots of f (caller) holding a call may_inline accepts of a
 * callee not inlined into this round, in pre-order, right to left (skipping
 * code after an unreachable child of a block or loop). A return_call in a
 * try or try_table body stays: its callee runs after the caller's frame (and
 * handlers) are gone, so what it throws must not meet those handlers. */
static void find_calls(const round_ctx *r, tl_func *f, uint32_t caller, tl_vec *found) {
  tl_vec st = {0}, in_try = {0};   /* slots to visit; whether each is in a try body */
  TL_VEC_PUSH(&st, tl_expr **, &f->body);
  TL_VEC_PUSH(&in_try, uint8_t, 0);
  while (st.n) {
    tl_expr **slot = TL_VEC_AT(&st, tl_expr **, --st.n), *e = *slot;
    uint8_t guarded = TL_VEC_AT(&in_try, uint8_t, --in_try.n);
    if (may_inline(r, caller, e) && !r->into[e->imm.index] && !(guarded && e->op == TL_OP_RETURN_CALL))
      TL_VEC_PUSH(found, tl_expr **, slot);
    uint32_t n = e->nkid;
    if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP)
      for (uint32_t i = 0; i < e->nkid; i++)
        if (e->kid[i] && e->kid[i]->type == TL_UNREACHABLE) {
          n = i + 1;
          break;
        }
    for (uint32_t i = 0; i < n; i++) /* popped right to left: reversed, left to right */
      if (e->kid[i]) {
        TL_VEC_PUSH(&st, tl_expr **, &e->kid[i]);
        uint8_t g = guarded || (i == 0 && (e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE));
        TL_VEC_PUSH(&in_try, uint8_t, g);
      }
  }
  tl_vec_free(&st);
  tl_vec_free(&in_try);
}

/* Inlines the live candidate calls of the caller (find_calls' slots),
 * replaced in reverse (post-order, left to right), so operands are inlined
 * before their call and no slot is visited twice. */
static void inline_into(round_ctx *r, tl_func *f) {
  tl_vec found = {0};
  find_calls(r, f, r->caller, &found);
  for (size_t k = found.n; k-- > 0;) {
    tl_expr **slot = TL_VEC_AT(&found, tl_expr **, k);
    uint32_t t = (*slot)->imm.index;
    const finfo *fi = &r->info[t];
    bool move = fi->all_refs == 1 && !fi->global;
    *slot = inline_call(r->m, f, TL_FUNC(r->m, t), *slot, move, r->lmap, r->read);
    r->uses[t]++;
    r->into[r->caller] = 1;
  }
  tl_vec_free(&found);
}

/* Whether the caller has a call may_inline accepts (from its callees as
 * scanned: the rest have nothing to inline this round whatever the order). */
static bool has_candidate(const round_ctx *r, uint32_t caller) {
  const tl_vec *v = &r->sc[caller].callees;
  for (size_t k = 0; k < v->n; k++) {
    uint32_t t = TL_VEC_AT(v, uint32_t, k);
    if (r->info[t].worth && t != caller && (uint64_t)r->info[caller].size + r->info[t].size < MAX_COMBINED)
      return true;
  }
  return false;
}

static void remap_visit(tl_walk *w, tl_expr **slot) {
  const uint32_t *remap = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].imm == TL_IMM_FUNC) e->imm.index = remap[e->imm.index];
}

static void remap_expr(tl_module *m, tl_func *f, tl_expr **e, uint32_t *remap) {
  if (*e) tl_walk_post(m, f, e, remap_visit, remap);
}

typedef struct {
  tl_module *m;
  const uint8_t *gone;
  uint32_t *remap;
} remap_job;

static void remap_one(void *user, uint32_t k) {
  remap_job *j = user;
  uint32_t i = j->m->nimported_funcs + k;
  if (!j->gone[i]) remap_expr(j->m, TL_FUNC(j->m, i), &TL_FUNC(j->m, i)->body, j->remap);
}

/* Drops the functions with gone[i] set (nothing references them); remap
 * is scratch for m->funcs.n + 1 indices. Bodies are renumbered in
 * parallel. */
static void remove_funcs(tl_pass_ctx *ctx, const uint8_t *gone, uint32_t *remap) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n, n = 0;
  for (uint32_t i = 0; i < nf; i++) remap[i] = gone[i] ? TL_NO_INDEX : n++;
  remap_job j = {m, gone, remap};
  tl_run_parallel(ctx, nf - m->nimported_funcs, remap_one, &j);
  for (size_t i = 0; i < m->globals.n; i++) remap_expr(m, NULL, &TL_GLOBAL(m, i)->init, remap);
  for (size_t i = 0; i < m->tables.n; i++) remap_expr(m, NULL, &TL_TABLE(m, i)->init, remap);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    remap_expr(m, NULL, &el->offset, remap);
    for (uint32_t j = 0; j < el->n; j++) remap_expr(m, NULL, &el->item[j], remap);
  }
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) TL_EXPORT(m, i)->index = remap[TL_EXPORT(m, i)->index];
  if (m->has_start) m->start = remap[m->start];
  for (uint32_t i = 0; i < nf; i++) {
    if (gone[i]) tl_func_forget_locs(TL_FUNC(m, i));
    else if (remap[i] != i) *TL_FUNC(m, remap[i]) = *TL_FUNC(m, i);
  }
  m->funcs.n = n;
}

static tl_status optimize_funcs(tl_pass_ctx *ctx, const uint8_t *which) {
  tl_pass_options po = ctx->opt ? *ctx->opt : (tl_pass_options){0};
  levels(ctx, &po.optimize_level, &po.shrink_level);
  /* A lone pass (levels 0) gets the passes every level runs, as wasm-opt's
   * level-0 function pipeline does. */
  if (!po.optimize_level && !po.shrink_level) po.optimize_level = 1;
  /* as wasm-opt's optimizeAfterInlining: propagate the constants the
   * operands brought in, then the function pipeline */
  const char *names[129] = {"precompute-propagate"};
  uint32_t n = 1 + tl_pipeline_function(&po, names + 1, 128);
  return tl_run_func_passes_on(ctx, names, n, which);
}

static void free_round(round_ctx *r, uint8_t *gone, uint32_t *remap) {
  tl_free(r->info);
  tl_free(r->uses);
  tl_free(r->into);
  tl_free(r->lmap);
  tl_free(r->read);
  tl_free(gone);
  tl_free(remap);
}

/* The scans follow remove_funcs' renumbering (those of removed bodies go). */
static void remap_scans(fscan *sc, uint32_t nf, const uint8_t *gone, const uint32_t *remap) {
  for (uint32_t i = 0; i < nf; i++) {
    fscan *s = &sc[i];
    if (gone[i]) {
      tl_vec_free(&s->callees);
      tl_vec_free(&s->refs);
      *s = (fscan){0};
      continue;
    }
    /* a fresh body references no removed function (every reference to one
     * was inlined, into bodies no longer fresh); if it did, it is rescanned */
    for (size_t k = 0; s->fresh && k < s->callees.n; k++) {
      uint32_t *t = &TL_VEC_AT(&s->callees, uint32_t, k);
      s->fresh = remap[*t] != TL_NO_INDEX;
      *t = remap[*t];
    }
    for (size_t k = 0; s->fresh && k < s->refs.n; k++) {
      uint32_t *r = &TL_VEC_AT(&s->refs, uint32_t, k);
      s->fresh = remap[*r >> 1] != TL_NO_INDEX;
      *r = remap[*r >> 1] << 1 | (*r & 1);
    }
    if (remap[i] != i) {
      sc[remap[i]] = *s;
      *s = (fscan){0};
    }
  }
}

/* One round; *progress says whether anything was inlined. rounds_into
 * counts, per function, the rounds that inlined into it; sc holds the
 * bodies' scans. */
static tl_status one_round(tl_pass_ctx *ctx, bool optimize, uint32_t *rounds_into, fscan *sc, bool *progress) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n;
  uint32_t maxlabel = 0, maxlocal = 0;
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (f->nlabel > maxlabel) maxlabel = f->nlabel;
    if (f->nlocal > maxlocal) maxlocal = f->nlocal;
  }
  round_ctx r = {m, tl_scratch_calloc((size_t)nf + 1, sizeof(finfo)),
                 tl_scratch_calloc((size_t)nf + 1, sizeof(uint32_t)), tl_scratch_calloc((size_t)nf + 1, 1), 0,
                 tl_scratch_realloc(NULL, (size_t)maxlabel + 1, sizeof(uint32_t)),
                 tl_scratch_realloc(NULL, (size_t)maxlocal + 1, 1), sc};
  uint8_t *gone = tl_scratch_calloc((size_t)nf + 1, 1);
  uint32_t *remap = tl_scratch_realloc(NULL, (size_t)nf + 1, sizeof(uint32_t));
  if (!r.info || !r.uses || !r.into || !r.lmap || !r.read || !gone || !remap ||
      !compute_info(ctx, r.info, sc)) {
    free_round(&r, gone, remap);
    return tl_nomem(ctx->err, "inlining");
  }
  *progress = false;
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    tl_func *f = TL_FUNC(m, i);
    /* no live call to inline (scan_expr and inline_into skip the same dead
     * code, and a body changes this round only through its own inline_into) */
    if (r.uses[i] || !f->body || !has_candidate(&r, i)) continue;
    r.caller = i;
    inline_into(&r, f);
    if (r.into[i]) {
      tl_func_refinalize(m, f);
      sc[i].fresh = false;
    }
  }
  tl_status st = TL_OK;
  bool stop = false;
  for (uint32_t i = 0; i < nf; i++) {
    if (!r.into[i]) continue;
    *progress = true;
    stop |= ++rounds_into[i] >= MAX_ROUNDS_INTO;
  }
  if (stop) *progress = false;
  if (optimize) st = optimize_funcs(ctx, r.into);
  bool any = false;
  for (uint32_t i = m->nimported_funcs; i < nf; i++) {
    gone[i] = r.uses[i] && r.uses[i] == r.info[i].all_refs && !r.info[i].global;
    any |= gone[i];
  }
  if (any) {
    remove_funcs(ctx, gone, remap);
    remap_scans(sc, nf, gone, remap);
    uint32_t n = 0;
    for (uint32_t i = 0; i < nf; i++)
      if (!gone[i]) rounds_into[n++] = rounds_into[i];
  }
  free_round(&r, gone, remap);
  return st;
}

static tl_status run(tl_pass_ctx *ctx, bool optimize) {
  uint32_t nf = (uint32_t)ctx->m->funcs.n;
  uint32_t *rounds_into = tl_scratch_calloc((size_t)nf + 1, sizeof(uint32_t));
  fscan *sc = tl_scratch_calloc((size_t)nf + 1, sizeof *sc);
  tl_status st = rounds_into && sc ? TL_OK : tl_nomem(ctx->err, "inlining");
  bool progress = true;
  for (uint32_t it = 0; it <= nf && progress && st == TL_OK; it++)
    st = one_round(ctx, optimize, rounds_into, sc, &progress);
  for (uint32_t i = 0; sc && i < nf; i++) {
    tl_vec_free(&sc[i].callees);
    tl_vec_free(&sc[i].refs);
  }
  tl_free(sc);
  tl_free(rounds_into);
  return st;
}

tl_status tl_pass_inlining(tl_pass_ctx *ctx) { return run(ctx, false); }
tl_status tl_pass_inlining_optimizing(tl_pass_ctx *ctx) { return run(ctx, true); }
