/* local_cse.c — local-cse: after `local.set $x E` in a block/loop list,
 * where E is pure (no writes, calls, traps, branches or memory/table
 * reads) and not trivial, later copies of E are replaced by `local.get $x`
 * while nothing has written $x or a local or global E reads.
 * The scan goes forward through the following siblings in evaluation
 * order; it replaces copies outside loops only (inside a loop a later
 * write could run before an earlier-placed copy on the next iteration),
 * and stops at the first write of $x, of a local E reads (a catch arm's
 * payload too), or of a global (or a call) when E reads globals.
 * Assumes: valid IR with up-to-date types. Guarantees: the same behaviour;
 * budgeted scans (linear). */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { SCAN_BUDGET = 1024, MAX_EXPR = 64 };

typedef struct { tl_expr **slot; uint32_t next; bool in_loop; } frame;

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_vec st, frames, reads;
  bool reads_global;
  uint32_t size;
  bool changed;
} cse_ctx;

static const uint32_t IMPURE = TL_F_TRAPS | TL_F_READS_MEM | TL_F_WRITES_MEM | TL_F_READS_TABLE |
                               TL_F_WRITES_TABLE | TL_F_WRITES_LOCAL | TL_F_WRITES_GLOBAL | TL_F_CALL |
                               TL_F_BRANCH | TL_F_NORETURN | TL_F_CONTROL | TL_F_ATOMIC | TL_F_GC_READ |
                               TL_F_GC_WRITE | TL_F_GC_ALLOC | TL_F_GC_SEG;

/* Pure, small, not a bare get/const; collects the locals it reads. */
static bool candidate(cse_ctx *c, tl_expr *v) {
  if (v->nkid == 0 || !tl_type_is_concrete(v->type) || tl_type_is_tuple(v->type)) return false;
  c->reads.n = 0, c->reads_global = false, c->size = 0;
  tl_vec *st = &c->st;
  st->n = 0;
  TL_VEC_PUSH(st, tl_expr *, v);
  while (st->n) {
    tl_expr *e = TL_VEC_AT(st, tl_expr *, --st->n);
    if (++c->size > MAX_EXPR) return false;
    if ((tl_ops[e->op].flags & IMPURE) || e->op == TL_OP_RETURN || e->op == TL_OP_TUPLE_MAKE ||
        e->op == TL_OP_TUPLE_EXTRACT || e->op == TL_OP_DROP)
      return false;
    if (e->op == TL_OP_LOCAL_GET) TL_VEC_PUSH(&c->reads, uint32_t, e->imm.index);
    if (tl_ops[e->op].flags & TL_F_READS_GLOBAL) c->reads_global = true;
    for (uint32_t i = 0; i < e->nkid; i++) {
      if (!e->kid[i]) return false;
      TL_VEC_PUSH(st, tl_expr *, e->kid[i]);
    }
  }
  return true;
}

static bool same_imm(const tl_expr *a, const tl_expr *b) {
  switch (tl_ops[a->op].imm) {
  case TL_IMM_NONE: case TL_IMM_FENCE: return true;
  case TL_IMM_I32: return a->imm.i32 == b->imm.i32;
  case TL_IMM_I64: return a->imm.i64 == b->imm.i64;
  case TL_IMM_F32: return a->imm.f32 == b->imm.f32;
  case TL_IMM_F64: return a->imm.f64 == b->imm.f64;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: return !memcmp(a->imm.v128, b->imm.v128, 16);
  case TL_IMM_LANE: return a->imm.mem.lane == b->imm.mem.lane;
  case TL_IMM_LOCAL: case TL_IMM_GLOBAL: case TL_IMM_FUNC: case TL_IMM_REFTYPE: case TL_IMM_TYPE:
  case TL_IMM_SELECT_T: case TL_IMM_TUPLE_INDEX: case TL_IMM_MEM: case TL_IMM_TABLE: case TL_IMM_CAST:
    return a->imm.index == b->imm.index;
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE:
    return a->imm.mem.offset == b->imm.mem.offset && a->imm.mem.big == b->imm.mem.big && a->imm.mem.mem == b->imm.mem.mem &&
           a->imm.mem.align == b->imm.mem.align && a->imm.mem.lane == b->imm.mem.lane;
  default: return false;
  }
}

/* Structural equality of two small pure trees (size-bounded by the caller). */
static bool equal(const tl_expr *a, const tl_expr *b, uint32_t depth) {
  if (a->op != b->op || a->type != b->type || a->nkid != b->nkid || !same_imm(a, b)) return false;
  if (depth > MAX_EXPR) return false;
  for (uint32_t i = 0; i < a->nkid; i++)
    if (!equal(a->kid[i], b->kid[i], depth + 1)) return false; /* depth-bounded by MAX_EXPR */
  return true;
}

static bool in_reads(cse_ctx *c, uint32_t x) {
  for (size_t i = 0; i < c->reads.n; i++)
    if (TL_VEC_AT(&c->reads, uint32_t, i) == x) return true;
  return false;
}

static void scan(cse_ctx *c, tl_expr *list, uint32_t i, uint32_t x, tl_expr *v) {
  uint32_t budget = SCAN_BUDGET;
  tl_vec *st = &c->frames;
  for (uint32_t j = i + 1; j < list->nkid; j++) {
    st->n = 0;
    TL_VEC_PUSH(st, frame, ((frame){&list->kid[j], 0, false}));
    while (st->n) {
      frame *fr = &TL_VEC_AT(st, frame, st->n - 1);
      tl_expr *e = *fr->slot;
      /* a catch arm stores its payload before its code runs */
      if (fr->next == 0 && e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX &&
          (e->imm.idx2.a == x || in_reads(c, e->imm.idx2.a)))
        return;
      if (fr->next == 0 && !fr->in_loop && e->op == v->op && equal(e, v, 0)) {
        *fr->slot = tl_make_local_get(c->m, c->f, x);
        c->changed = true;
        st->n--;
        continue;
      }
      if (fr->next < e->nkid) {
        uint32_t k = fr->next++;
        bool in_loop = fr->in_loop || e->op == TL_OP_LOOP; /* before the push moves fr */
        if (e->kid[k]) TL_VEC_PUSH(st, frame, ((frame){&e->kid[k], 0, in_loop}));
        continue;
      }
      st->n--;
      if (!budget--) return;
      if ((e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) &&
          (e->imm.index == x || in_reads(c, e->imm.index)))
        return;
      if (c->reads_global && (tl_ops[e->op].flags & (TL_F_WRITES_GLOBAL | TL_F_CALL))) return;
    }
  }
}

static void do_list(cse_ctx *c, tl_expr *list) {
  for (uint32_t i = 0; i + 1 < list->nkid; i++) {
    tl_expr *s = list->kid[i];
    if (s->op != TL_OP_LOCAL_SET || tl_type_is_tuple(c->f->local[s->imm.index])) continue;
    tl_expr *v = s->kid[0];
    if (!candidate(c, v) || in_reads(c, s->imm.index) || v->type != c->f->local[s->imm.index]) continue;
    scan(c, list, i, s->imm.index, v);
  }
}

static void visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) do_list(w->ctx, e);
}

/* ---- Phase 2, as Binaryen's LocalCSE: in each stretch of linear code
 * (cleared at loop entry, else arms, the end of a labeled block or if, and
 * after br/br_table/returns/unreachable), a pure expression (reads and traps
 * allowed; no writes, calls, branches, atomics) of at least 2 nodes seen
 * again (Binaryen wants 3 when shrinking; 2 was never larger here: c-O0
 * -Os 0..-7 B, tsjson -399) becomes `local.tee $new` at its first copy and
 * `local.get $new` at the later ones, unless something in between writes
 * what it reads. A repeated parent takes over its children's requests. */

typedef struct {
  tl_expr **slot;
  int32_t orig;      /* record of the earlier equal expression, -1: none */
  uint32_t requests; /* repeats that will read this original's local */
  uint32_t flags;    /* subtree effects (reads) */
} rec;

typedef struct { uint64_t hash; uint32_t size, flags; int32_t rec; bool bad; } sub;
typedef struct { uint64_t hash; uint32_t rec, epoch; } slotent;

typedef struct {
  tl_module *m;
  tl_func *f;
  uint32_t min_size;
  tl_vec recs;   /* rec */
  tl_vec subs;   /* sub: summaries of the finished kids of open nodes */
  tl_vec frames; /* wframe: the walk's open nodes */
  tl_vec table;  /* slotent, open addressing, valid when epoch matches */
  const slotent *table0; /* the caller's first table (not freed) */
  const void *inl_frames, *inl_subs, *inl_recs; /* their first storage, on the caller's stack */
  uint32_t epoch, live;
  tl_vec active; /* uint32_t: originals still valid (check phase) */
  tl_vec reads;  /* scratch */
  uint32_t cursor;
} lcse;

static const uint32_t NOT_PURE = TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_LOCAL |
                                 TL_F_WRITES_GLOBAL | TL_F_CALL | TL_F_BRANCH | TL_F_NORETURN |
                                 TL_F_CONTROL | TL_F_ATOMIC | TL_F_GC_WRITE | TL_F_GC_ALLOC;

static void clear_region(lcse *c) { c->epoch++, c->live = 0, c->active.n = 0; }

/* Linear-execution boundaries before e (pre; p: its parent, NULL at the
 * top) and after it (post). Adjacent blocks connect (Binaryen's
 * connectAdjacentBlocks): an if's condition runs right before its then
 * arm, and the code after a br_if runs right after it, so what they
 * computed dominates there; the else arm is cut. */
static bool nonlinear_pre(const tl_expr *e, const tl_expr *p, tl_expr *const *slot) {
  /* (of the control ops, a loop is the one that starts a region; a catch
   * arm starts one too: the body may have thrown anywhere) */
  return e->op == TL_OP_LOOP || (p && p->op == TL_OP_IF && slot == &p->kid[2]) ||
         (p && p->op == TL_OP_TRY && slot != &p->kid[0]);
}

static bool nonlinear_post(const tl_expr *e, uint32_t flags) {
  if (!(flags & (TL_F_CONTROL | TL_F_BRANCH | TL_F_NORETURN))) return false;
  if (e->op == TL_OP_BLOCK) return e->imm.block.label != TL_NO_LABEL;
  return e->op != TL_OP_LOOP && e->op != TL_OP_BR_IF;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

static uint64_t imm_hash(const tl_expr *e) {
  switch (tl_ops[e->op].imm) {
  case TL_IMM_I32: return (uint32_t)e->imm.i32;
  case TL_IMM_I64: return (uint64_t)e->imm.i64;
  case TL_IMM_F32: return e->imm.f32;
  case TL_IMM_F64: return e->imm.f64;
  case TL_IMM_LOCAL: case TL_IMM_GLOBAL: case TL_IMM_FUNC: case TL_IMM_REFTYPE: case TL_IMM_TYPE:
  case TL_IMM_SELECT_T: case TL_IMM_TUPLE_INDEX: case TL_IMM_MEM: case TL_IMM_TABLE: case TL_IMM_CAST:
    return e->imm.index;
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE:
    return mix(e->imm.mem.offset, ((uint64_t)e->imm.mem.mem << 16) | ((uint64_t)e->imm.mem.align << 8) |
                                      e->imm.mem.lane);
  default: return 0;
  }
}

/* Finds or inserts (hash -> record r); returns the record already there, or -1. */
static int32_t lookup(lcse *c, uint64_t hash, uint32_t r, tl_expr *e) {
  tl_vec *t = &c->table;
  if ((c->live + 1) * 2 > t->cap || t->n == 0) {
    size_t cap = t->cap < 64 ? 64 : t->cap * 2;
    slotent *old = t->p;
    size_t ocap = t->n;
    slotent *neu = tl_scratch_calloc(cap, sizeof(slotent));
    if (!neu) return -1; /* no table: no CSE here */
    for (size_t i = 0; i < ocap; i++)
      if (old[i].epoch == c->epoch) {
        size_t j = old[i].hash & (cap - 1);
        while (neu[j].epoch == c->epoch) j = (j + 1) & (cap - 1);
        neu[j] = old[i];
      }
    if (old != c->table0) tl_free(old);
    t->p = neu, t->n = t->cap = cap;
  }
  slotent *tab = t->p;
  size_t mask = t->cap - 1, j = hash & mask;
  for (; tab[j].epoch == c->epoch; j = (j + 1) & mask) {
    if (tab[j].hash != hash) continue;
    tl_expr *o = *TL_VEC_AT(&c->recs, rec, tab[j].rec).slot;
    if (o->op == e->op && equal(o, e, 0)) return (int32_t)tab[j].rec;
  }
  tab[j] = (slotent){hash, r, c->epoch};
  c->live++;
  return -1;
}

/* After node *slot, whose kids' summaries are subs[mark..]. A node that
 * cannot be part of a candidate (bad) needs no hash: its parent is bad too. */
static inline __attribute__((always_inline)) void post_scan(lcse *c, tl_expr **slot, uint32_t mark) {
  tl_expr *e = *slot;
  uint32_t fl = tl_ops[e->op].flags;
  sub s = {0, 1, fl, -1, false};
  s.bad = (fl & NOT_PURE) || e->op == TL_OP_RETURN || e->op == TL_OP_TUPLE_MAKE ||
          e->op == TL_OP_TUPLE_EXTRACT || e->op == TL_OP_DROP || !tl_type_is_concrete(e->type) ||
          tl_type_is_tuple(e->type);
  for (size_t i = mark; i < c->subs.n && !s.bad; i++) s.bad = TL_VEC_AT(&c->subs, sub, i).bad;
  if (!s.bad) {
    s.hash = mix((uint64_t)e->op << 32 | e->type, imm_hash(e)); /* any structural hash */
    for (size_t i = mark; i < c->subs.n; i++) {
      sub *k = &TL_VEC_AT(&c->subs, sub, i);
      s.hash = mix(s.hash, k->hash), s.size += k->size, s.flags |= k->flags;
    }
  }
  if (!s.bad && s.size >= c->min_size && e->op != TL_OP_LOCAL_GET) {
    uint32_t r = (uint32_t)c->recs.n;
    if (c->recs.n == c->recs.cap) tl_vec_grow_inl(&c->recs, sizeof(rec), c->recs.n + 1, c->inl_recs);
    TL_VEC_AT(&c->recs, rec, c->recs.n++) = (rec){slot, -1, 0, s.flags};
    int32_t o = lookup(c, s.hash, r, e);
    if (o >= 0) {
      rec *rr = &TL_VEC_AT(&c->recs, rec, r);
      rr->orig = o;
      TL_VEC_AT(&c->recs, rec, o).requests++;
      /* The parent covers its kids: drop their requests. */
      for (size_t i = mark; i < c->subs.n; i++) {
        int32_t kr = TL_VEC_AT(&c->subs, sub, i).rec;
        if (kr < 0) continue;
        rec *k = &TL_VEC_AT(&c->recs, rec, kr);
        if (k->orig >= 0) TL_VEC_AT(&c->recs, rec, k->orig).requests--, k->orig = -1;
      }
    }
    s.rec = (int32_t)r;
  }
  c->subs.n = mark;
  if (c->subs.n == c->subs.cap) tl_vec_grow_inl(&c->subs, sizeof(sub), c->subs.n + 1, c->inl_subs);
  TL_VEC_AT(&c->subs, sub, c->subs.n++) = s;
  if (nonlinear_post(e, fl)) clear_region(c);
}

/* Does evaluating node x (its own effect) change what original o reads? */
static bool invalidates(lcse *c, const tl_expr *x, uint32_t o) {
  uint32_t xf = tl_ops[x->op].flags;
  rec *r = &TL_VEC_AT(&c->recs, rec, o);
  if (xf & (TL_F_CALL | TL_F_ATOMIC)) {
    if (r->flags & (TL_F_READS_MEM | TL_F_READS_TABLE | TL_F_READS_GLOBAL)) return true;
  }
  if ((xf & TL_F_WRITES_MEM) && (r->flags & TL_F_READS_MEM)) return true;
  if ((xf & TL_F_WRITES_TABLE) && (r->flags & TL_F_READS_TABLE)) return true;
  if (!(xf & (TL_F_WRITES_LOCAL | TL_F_WRITES_GLOBAL))) return false;
  bool loc = x->op == TL_OP_LOCAL_SET || x->op == TL_OP_LOCAL_TEE;
  bool glob = x->op == TL_OP_GLOBAL_SET;
  if (!loc && !glob) return true; /* some other writer: be safe */
  if (glob && !(r->flags & TL_F_READS_GLOBAL)) return false;
  if (loc && !(r->flags & TL_F_READS_LOCAL)) return false;
  /* Look for a read of that index in the original. */
  tl_vec *st = &c->reads;
  st->n = 0;
  TL_VEC_PUSH(st, tl_expr *, *r->slot);
  while (st->n) {
    tl_expr *e = TL_VEC_AT(st, tl_expr *, --st->n);
    if (e->imm.index == x->imm.index &&
        ((loc && e->op == TL_OP_LOCAL_GET) || (glob && e->op == TL_OP_GLOBAL_GET)))
      return true;
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) TL_VEC_PUSH(st, tl_expr *, e->kid[i]);
  }
  return false;
}

static inline __attribute__((always_inline)) void post_check(lcse *c, tl_expr **slot) {
  tl_expr *e = *slot;
  uint32_t fl = tl_ops[e->op].flags;
  if ((fl & NOT_PURE) && c->active.n) {
    for (size_t i = 0; i < c->active.n;) {
      if (invalidates(c, e, TL_VEC_AT(&c->active, uint32_t, i)))
        TL_VEC_AT(&c->active, uint32_t, i) = TL_VEC_AT(&c->active, uint32_t, c->active.n - 1), c->active.n--;
      else
        i++;
    }
  }
  if (c->cursor < c->recs.n && TL_VEC_AT(&c->recs, rec, c->cursor).slot == slot) {
    uint32_t ri = c->cursor++;
    rec *r = &TL_VEC_AT(&c->recs, rec, ri);
    if (r->orig >= 0) {
      bool live = false;
      for (size_t i = 0; i < c->active.n && !live; i++) live = TL_VEC_AT(&c->active, uint32_t, i) == (uint32_t)r->orig;
      if (!live) TL_VEC_AT(&c->recs, rec, r->orig).requests--, r->orig = -1;
    } else if (r->requests) {
      TL_VEC_PUSH(&c->active, uint32_t, ri);
    }
  }
  if (nonlinear_post(e, fl)) clear_region(c);
}

/* The scan (check: false) or check walk over the body: at each node the
 * region cut before it, its kids (NULL ones skipped) in order, then its
 * post. Neither changes the tree. A leaf gets no frame; a frame keeps
 * subs.n at the node's entry (its kids' summaries start there). */
typedef struct { tl_expr **slot; uint32_t next, mark; } wframe;

static inline __attribute__((always_inline)) void walk(lcse *c, tl_expr **root, bool check) {
  tl_vec *st = &c->frames;
  st->n = 0;
  if (nonlinear_pre(*root, NULL, root)) clear_region(c);
  if (!(*root)->nkid) {
    if (check) post_check(c, root);
    else post_scan(c, root, (uint32_t)c->subs.n);
    return;
  }
  /* e: the innermost open node (its frame is the top), k: its next kid */
  TL_VEC_AT(st, wframe, st->n++) = (wframe){root, 0, (uint32_t)c->subs.n};
  tl_expr *e = *root;
  uint32_t k = 0;
  for (;;) {
    while (k < e->nkid) {
      tl_expr **ks = &e->kid[k++], *x = *ks;
      if (!x) continue;
      if (x->op == TL_OP_LOOP || (k == 3 && e->op == TL_OP_IF) || (k >= 2 && e->op == TL_OP_TRY))
        clear_region(c); /* nonlinear_pre */
      if (x->nkid) { /* descend */
        TL_VEC_AT(st, wframe, st->n - 1).next = k;
        if (st->n == st->cap) tl_vec_grow_inl(st, sizeof(wframe), st->n + 1, c->inl_frames);
        TL_VEC_AT(st, wframe, st->n++) = (wframe){ks, 0, (uint32_t)c->subs.n};
        e = x, k = 0;
        continue;
      }
      if (check) post_check(c, ks);
      else post_scan(c, ks, (uint32_t)c->subs.n);
    }
    /* e's kids are done: close it, resume its parent */
    wframe *fr = &TL_VEC_AT(st, wframe, --st->n);
    if (check) post_check(c, fr->slot);
    else post_scan(c, fr->slot, fr->mark);
    if (!st->n) return;
    fr = &TL_VEC_AT(st, wframe, st->n - 1);
    e = *fr->slot, k = fr->next;
  }
}
static void scan_walk(lcse *c, tl_expr **root) { walk(c, root, false); }
static void check_walk(lcse *c, tl_expr **root) { walk(c, root, true); }

/* Estimated encoded bytes of e: opcodes (2 when prefixed) and immediates. */
static uint64_t encoded_bytes(tl_expr *root) {
  uint64_t s = 0;
  tl_vec st = {0};
  TL_VEC_PUSH(&st, tl_expr *, root);
  while (st.n) {
    tl_expr *e = TL_VEC_AT(&st, tl_expr *, --st.n);
    if (!e) continue;
    s += tl_ops[e->op].pfx ? 2 : 1;
    switch (tl_ops[e->op].imm) {
    case TL_IMM_NONE: break;
    case TL_IMM_I32: s += tl_sleb_size(e->imm.i32); break;
    case TL_IMM_I64: s += tl_sleb_size(e->imm.i64); break;
    case TL_IMM_F32: s += 4; break;
    case TL_IMM_F64: s += 8; break;
    case TL_IMM_V128: s += 16; break;
    case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: s += 1 + tl_uleb_size(e->imm.mem.offset); break;
    case TL_IMM_LOCAL: case TL_IMM_GLOBAL: case TL_IMM_FUNC: s += tl_uleb_size(e->imm.index); break;
    default: s += 1; break;
    }
    for (uint32_t j = 0; j < e->nkid; j++) TL_VEC_PUSH(&st, tl_expr *, e->kid[j]);
  }
  tl_vec_free(&st);
  return s;
}

/* Shrinking (-Os/-Oz): reuse pays when the local.gets (2 bytes each) and
 * the tee (2 more) cost less than the repeats they replace. */
static bool worth_reusing(tl_pass_ctx *ctx, rec *r) {
  if (!ctx->opt->shrink_level) return true;
  int64_t e = (int64_t)encoded_bytes(*r->slot);
  return (int64_t)r->requests * (e - 2) - 2 > 0;
}

static bool phase2(tl_pass_ctx *ctx, tl_func *f) {
  lcse c = {.m = ctx->m, .f = f, .min_size = 2, .epoch = 1};
  slotent tab0[64] = {{0}}; /* the first table: no allocation for small functions */
  c.table.p = tab0, c.table.n = c.table.cap = 64, c.table0 = tab0;
  /* the first vectors on the stack too */
  wframe frames0[64];
  sub subs0[64];
  rec recs0[64];
  c.frames = (tl_vec){frames0, 0, 64}, c.subs = (tl_vec){subs0, 0, 64}, c.recs = (tl_vec){recs0, 0, 64};
  c.inl_frames = frames0, c.inl_subs = subs0, c.inl_recs = recs0;
  scan_walk(&c, &f->body);
  bool any = false;
  for (size_t i = 0; i < c.recs.n && !any; i++) any = TL_VEC_AT(&c.recs, rec, i).requests > 0;
  if (any) {
    clear_region(&c);
    check_walk(&c, &f->body);
    /* Repeats first: they may sit inside an original, whose slot stays put. */
    uint32_t *local = tl_scratch_calloc(c.recs.n ? c.recs.n : 1, sizeof(uint32_t));
    if (local) {
      any = false;
      for (size_t i = 0; i < c.recs.n; i++) {
        rec *r = &TL_VEC_AT(&c.recs, rec, i);
        if (r->orig < 0 && r->requests && !worth_reusing(ctx, r)) r->requests = 0;
        if (r->orig < 0 && r->requests) {
          local[i] = tl_func_add_var(ctx->m, f, (*r->slot)->type);
          any = true;
        }
      }
      for (size_t i = 0; i < c.recs.n; i++) {
        rec *r = &TL_VEC_AT(&c.recs, rec, i);
        if (r->orig >= 0 && TL_VEC_AT(&c.recs, rec, r->orig).requests)
          *r->slot = tl_make_local_get(ctx->m, f, local[r->orig]);
      }
      for (size_t i = 0; i < c.recs.n; i++) {
        rec *r = &TL_VEC_AT(&c.recs, rec, i);
        if (r->orig < 0 && r->requests) *r->slot = tl_make_local_set(ctx->m, f, local[i], *r->slot, true);
      }
      tl_free(local);
    } else {
      any = false;
    }
  }
  tl_vec_free_inl(&c.recs, recs0), tl_vec_free_inl(&c.subs, subs0), tl_vec_free_inl(&c.frames, frames0);
  if (c.table.p != c.table0) tl_free(c.table.p);
  tl_vec_free(&c.active), tl_vec_free(&c.reads);
  return any;
}

tl_status tl_pass_local_cse(tl_pass_ctx *ctx, tl_func *f) {
  cse_ctx c = {ctx->m, f, {0}, {0}, {0}, false, 0, false};
  tl_walk_post_only(ctx->m, f, &f->body, visit, &c, TL_F_CONTROL); /* blocks and loops */
  tl_vec_free(&c.st), tl_vec_free(&c.frames), tl_vec_free(&c.reads);
  if (c.changed) tl_func_refinalize(ctx->m, f);
  phase2(ctx, f); /* tee/get of the value's own type: no types change */
  return TL_OK;
}
