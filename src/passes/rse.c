/* rse.c — redundant set elimination: a local.set that writes the value the
 * local already holds is removed (a tee becomes its value).
 * Known values are tracked along each block/loop list in order: after
 * `local.set $x (CONST)` $x holds CONST, after `local.set $x (local.get $y)`
 * $x holds $y's current value; at the function's entry every declared
 * (non-param) local holds zero. A sibling that may write a local forgets
 * what was known about it (and about every local known to copy it; a
 * catch arm writes its payload local). A try's body and arms start knowing
 * nothing (what throws there may come from anywhere in the body). A
 * first pass scans every list alone (a loop or nested list knowing
 * nothing); a second, top-down, lets the lists of structured code start
 * from what their parent list knew before them (an if's arms after its
 * condition; a loop's body minus what the loop writes).
 * Assumes: valid IR. Guarantees: the same behaviour; only sets whose value
 * is a constant or a local.get (pure) are removed. Linear: sibling scans are
 * budgeted, and a sibling too big to scan forgets everything; the first
 * pass notes each subtree's size and whether it writes a local, so a scan
 * enters only subtrees that write and an oversized one costs nothing; a
 * list that knows nothing scans nothing, and a scan stops once nothing is
 * known. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_FACTS = 64, SCAN_BUDGET = 4096 };

typedef struct {
  uint32_t local;
  const tl_expr *val;   /* a constant or a local.get */
} fact;

typedef struct {
  fact f[MAX_FACTS];
  uint32_t n;
  uint64_t mask; /* bit (l & 63) for each local a fact names (either side) */
} rse_ctx;

static bool is_const(const tl_expr *e) {
  return e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
         e->op == TL_OP_F64_CONST || e->op == TL_OP_V128_CONST;
}

static bool same_value(const tl_expr *a, const tl_expr *b) {
  if (a->op != b->op || a->type != b->type) return false;
  switch (a->op) {
  case TL_OP_I32_CONST: return a->imm.i32 == b->imm.i32;
  case TL_OP_I64_CONST: return a->imm.i64 == b->imm.i64;
  case TL_OP_F32_CONST: return a->imm.f32 == b->imm.f32; /* bits */
  case TL_OP_F64_CONST: return a->imm.f64 == b->imm.f64;
  case TL_OP_V128_CONST: return !memcmp(a->imm.v128, b->imm.v128, 16);
  case TL_OP_LOCAL_GET: return a->imm.index == b->imm.index;
  default: return false;
  }
}

static uint64_t bit(uint32_t x) { return (uint64_t)1 << (x & 63); }

static uint64_t fact_bits(const fact *k) {
  return bit(k->local) | (k->val->op == TL_OP_LOCAL_GET ? bit(k->val->imm.index) : 0);
}

static void forget(rse_ctx *c, uint32_t x) {
  if (!(c->mask & bit(x))) return; /* no fact names x */
  uint32_t out = 0;
  uint64_t mask = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    fact *k = &c->f[i];
    if (k->local == x || (k->val->op == TL_OP_LOCAL_GET && k->val->imm.index == x)) continue;
    mask |= fact_bits(k);
    c->f[out++] = *k;
  }
  c->n = out;
  c->mask = mask;
}

static void add_fact(rse_ctx *c, uint32_t x, const tl_expr *v) {
  c->f[c->n++] = (fact){x, v};
  c->mask |= fact_bits(&c->f[c->n - 1]);
}

static void clear(rse_ctx *c) {
  c->n = 0;
  c->mask = 0;
}

/* *to = *from, without the unused part of the fact array. */
static void copy(rse_ctx *to, const rse_ctx *from) {
  to->n = from->n;
  to->mask = from->mask;
  memcpy(to->f, from->f, from->n * sizeof(fact));
}

static const tl_expr *known(rse_ctx *c, uint32_t x) {
  for (uint32_t i = 0; i < c->n; i++)
    if (c->f[i].local == x) return c->f[i].val;
  return NULL;
}

static void learn(rse_ctx *c, uint32_t x, const tl_expr *v) {
  forget(c, x);
  if (v->op == TL_OP_LOCAL_GET && v->imm.index == x) return;
  if (c->n < MAX_FACTS && (is_const(v) || v->op == TL_OP_LOCAL_GET)) add_fact(c, x, v);
}

/* e->aux, set by the first pass (post-order, after the node's own list is
 * rewritten): bit 15 = the subtree writes a local, bits 0..14 = its node
 * count, capped past SCAN_BUDGET. A subtree only changes after that
 * through its own lists' rewrites, and the top-down pass rewrites a list
 * only after every scan of a subtree holding it. */
enum { WRITES = 0x8000, SIZE_CAP = SCAN_BUDGET + 1 };

static void summarize(tl_expr *e) {
  uint32_t size = 1, w = tl_written_local(e) != TL_NO_INDEX ? WRITES : 0;
  for (uint32_t i = 0; i < e->nkid; i++) {
    if (!e->kid[i]) continue;
    size += e->kid[i]->aux & ~WRITES;
    w |= e->kid[i]->aux & WRITES;
  }
  e->aux = (uint16_t)(w | (size < SIZE_CAP ? size : SIZE_CAP));
}

/* Forget every local a subtree may write; false if it is too big (more
 * than SCAN_BUDGET nodes). With `exact` false the caller forgets
 * everything on false anyway, so the scan stops as soon as nothing is
 * known. Only subtrees that write are entered. */
static bool forget_writes(rse_ctx *c, tl_expr *root, tl_vec *st, bool exact) {
  if (!c->n && !exact) return true;
  if ((root->aux & ~WRITES) > SCAN_BUDGET) return false;
  if (!(root->aux & WRITES)) return true;
  st->n = 0;
  TL_VEC_PUSH(st, tl_expr *, root);
  while (st->n) {
    tl_expr *e = TL_VEC_AT(st, tl_expr *, --st->n);
    if (tl_written_local(e) != TL_NO_INDEX) {
      forget(c, tl_written_local(e));
      if (!c->n && !exact) return true;
    }
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i] && (e->kid[i]->aux & WRITES)) TL_VEC_PUSH(st, tl_expr *, e->kid[i]);
  }
  return true;
}

/* A set whose value is what the local holds: nop (or its value, for a tee). */
static bool redundant(rse_ctx *c, const tl_expr *set) {
  const tl_expr *v = set->kid[0], *k = known(c, set->imm.index);
  if (v->op == TL_OP_LOCAL_GET && v->imm.index == set->imm.index) return true;
  if (!k) return false;
  if (same_value(k, v)) return true;
  /* x holds y's value and we set x to y's value */
  if (v->op == TL_OP_LOCAL_GET) {
    const tl_expr *kv = known(c, v->imm.index);
    if (kv && same_value(kv, k)) return true;
  }
  return false;
}

typedef struct {
  tl_expr *list;   /* a block or loop whose list is scanned */
  uint32_t nfacts; /* its starting facts: the last nfacts of rse_walk.facts */
} item;

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_vec st, items, facts;
  bool changed, topdown;
} rse_walk;

/* What a declared local holds at entry: only compared, never placed. */
static const uint8_t zero16[16]; /* v128.const's bytes are out of line */
static const tl_expr zeros[TL_NBASIC] = {
    [TL_I32] = {.op = TL_OP_I32_CONST, .type = TL_I32}, [TL_I64] = {.op = TL_OP_I64_CONST, .type = TL_I64},
    [TL_F32] = {.op = TL_OP_F32_CONST, .type = TL_F32}, [TL_F64] = {.op = TL_OP_F64_CONST, .type = TL_F64},
    [TL_V128] = {.op = TL_OP_V128_CONST, .type = TL_V128, .imm = {.v128 = (uint8_t *)zero16}}};

enum { FACT_CAP = 1 << 16 }; /* facts queued at once; past it lists start empty */

static void entry_facts(rse_walk *r, rse_ctx *c) {
  uint32_t np = tl_func_nparams(r->m, r->f);
  for (uint32_t i = np; i < r->f->nlocal && c->n < MAX_FACTS; i++) {
    tl_type t = r->f->local[i];
    if (t < TL_NBASIC && is_const(&zeros[t])) add_fact(c, i, &zeros[t]);
  }
}

/* Queues a block's or loop's list to start from c; a loop's starts without
 * what the loop writes (its back edge), wherever the loop is: a list's
 * element, an if's arm, the body. */
static void push_list(rse_walk *r, tl_expr *list, const rse_ctx *c) {
  if ((list->op != TL_OP_BLOCK && list->op != TL_OP_LOOP) || !list->nkid) return;
  rse_ctx in;
  if (list->op == TL_OP_LOOP) {
    copy(&in, c);
    if (!forget_writes(&in, list, &r->st, true)) return;
    c = &in;
  }
  uint32_t n = r->facts.n + c->n <= FACT_CAP ? c->n : 0u;
  for (uint32_t i = 0; i < n; i++) TL_VEC_PUSH(&r->facts, fact, c->f[i]);
  TL_VEC_PUSH(&r->items, item, ((item){list, n}));
}

/* Top-down pass: the lists of a structured kid start from what is known
 * before it; an if's arms after its condition (push_list takes a loop's
 * back edge into account). */
static void push_nested(rse_walk *r, tl_expr *k, const rse_ctx *c) {
  if (!r->topdown || !c->n) return;
  if (k->op != TL_OP_IF) {
    push_list(r, k, c);
    return;
  }
  rse_ctx in;
  copy(&in, c);
  if (!forget_writes(&in, k->kid[0], &r->st, true)) return;
  for (uint32_t a = 1; a < k->nkid; a++) push_list(r, k->kid[a], &in);
}

static void do_list(rse_walk *r, tl_expr *list, const rse_ctx *start) {
  rse_ctx c;
  copy(&c, start);
  for (uint32_t i = 0; i < list->nkid; i++) {
    tl_expr *k = list->kid[i];
    if ((k->op == TL_OP_LOCAL_SET) && redundant(&c, k) && k->kid[0]->type != TL_UNREACHABLE) {
      list->kid[i] = tl_make_nop(r->m);
      r->changed = true;
      continue;
    }
    if (k->op == TL_OP_LOCAL_SET) {
      if (!forget_writes(&c, k->kid[0], &r->st, false)) clear(&c);
      learn(&c, k->imm.index, k->kid[0]);
      continue;
    }
    push_nested(r, k, &c);
    if (!forget_writes(&c, k, &r->st, false)) clear(&c);
  }
  uint32_t out = 0;
  for (uint32_t i = 0; i < list->nkid; i++)
    if (list->kid[i]->op != TL_OP_NOP) list->kid[out++] = list->kid[i];
  list->nkid = out;
}

/* First pass: every list on its own. The body is left to the top-down
 * pass, which scans it from the zero-init facts after these (scanning it
 * here too would find nothing more: facts a removed set leaves are the
 * same). */
static void visit(tl_walk *w, tl_expr **slot) {
  rse_walk *r = w->ctx;
  tl_expr *e = *slot;
  rse_ctx c;
  clear(&c);
  if (slot != &w->f->body && (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP)) do_list(r, e, &c);
  summarize(e);
}

static void topdown(rse_walk *r) {
  rse_ctx c;
  clear(&c);
  entry_facts(r, &c);
  r->topdown = true;
  push_list(r, r->f->body, &c);
  while (r->items.n) {
    item it = TL_VEC_AT(&r->items, item, --r->items.n);
    r->facts.n -= it.nfacts;
    clear(&c);
    for (uint32_t i = 0; i < it.nfacts; i++) add_fact(&c, TL_VEC_AT(&r->facts, fact, r->facts.n + i).local,
                                                   TL_VEC_AT(&r->facts, fact, r->facts.n + i).val);
    do_list(r, it.list, &c);
  }
}

tl_status tl_pass_rse(tl_pass_ctx *ctx, tl_func *f) {
  rse_walk r = {ctx->m, f, {0}, {0}, {0}, false, false};
  tl_walk_post(ctx->m, f, &f->body, visit, &r);
  topdown(&r);
  tl_vec_free(&r.st);
  tl_vec_free(&r.items);
  tl_vec_free(&r.facts);
  if (r.changed) tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
