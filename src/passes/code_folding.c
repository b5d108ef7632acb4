/* code_folding.c — code-folding: identical code at the end of paths that
 * meet is kept once, where they meet (wasm-opt's CodeFolding).
 *  - if arms: `if c (A; S) (B; S)` -> `(if c A B); S` (S: the longest equal
 *    suffix of the arms' lists; equal arms leave `drop c; S`).
 *  - block ends: the paths into the end of a none-typed block $b are its
 *    value-less `br $b`s that end a list (and `return`s of a function
 *    without results, for its body) and its own fallthrough. A group of them
 *    ending in the same S keeps one copy of S after an inner block the
 *    group branches to: `$b: [block $i [...(fallthrough: br $b)], S]`; when
 *    the group is every path into $b, S simply follows $b instead.
 *  - terminating tails: lists anywhere ending in the same code and then
 *    `unreachable` or `return` keep one copy at the function's end.
 * Moved code stays in scope: S may only branch to labels still enclosing it
 * at its new place (equality maps the labels S defines itself). With
 * exception handling, code moving to a block's or the function's end may
 * leave a try: then S holds nothing that may throw and no EH node (the same
 * handlers catch the same things); try_table clauses are paths into their
 * labels. Order of
 * execution is unchanged on every path, so effects need no check.
 * Assumes: valid IR. Guarantees: the same behaviour; no growth by the byte
 * estimate (opcodes and immediates). Rounds of linear walks (MAX_ROUNDS,
 * then MAX_TERM for terminating tails);
 * subtree hashes (in e->aux) filter the deep, budgeted compares. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_ROUNDS = 3, MAX_TERM = 4, MAX_PASSES = 8, BLOCK_COST = 3, BR_COST = 2 };

typedef struct {
  uint32_t label;
  tl_expr *list, *br;   /* a list ending in br (or return) to label */
} tail;

typedef struct {
  tl_expr **slot;       /* where the IF or BLOCK sits */
  uint32_t lo, hi;      /* preorder interval of its subtree */
  bool in_list;         /* its parent is a block: a wrapper block merges away */
} cand;

typedef struct {
  tl_module *m;
  tl_func *f;
  uint32_t nlab, body_label;
  uint32_t *lo, *hi;    /* preorder interval of each label's construct */
  uint32_t *cnt;        /* branches per label */
  uint32_t num;         /* preorder counter */
  tl_vec tails;         /* tail */
  tl_vec cands;         /* cand, in post order */
  tl_vec pre;           /* uint32_t: preorder numbers of the walk's ancestors */
  tl_vec terms;         /* tl_expr *: lists ending in unreachable or return */
  /* compare state */
  uint32_t *map, *stamp, mapcap, gen;
  tl_vec st;            /* tl_expr * pairs */
  uint64_t budget;
  bool changed;
  bool nomem;           /* a scratch allocation failed: fold nothing more */
  bool eh;              /* f has exception handling (tl_expr_has_eh) */
} cf;

/* ---- hashing and equality ---------------------------------------------- */
static uint64_t imm_key(const tl_expr *e) {
  const tl_imm imm = e->imm, *im = &imm; /* a copy: e is packed */
  switch (tl_ops[e->op].imm) {
  case TL_IMM_BLOCK: return im->block.bt;
  case TL_IMM_LABEL: case TL_IMM_BR_TABLE: case TL_IMM_NONE: case TL_IMM_FENCE: return 0;
  case TL_IMM_I32: case TL_IMM_F32: return (uint32_t)im->i32;
  case TL_IMM_I64: case TL_IMM_F64: return (uint64_t)im->i64;
  case TL_IMM_CALL_INDIRECT: case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT:
  case TL_IMM_TABLE_INIT: case TL_IMM_TABLE_COPY:
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: case TL_IMM_TYPE_DATA: case TL_IMM_TYPE_ELEM:
  case TL_IMM_TYPE_TYPE: /* GC: a type and a field, count, segment or second type */
    return (uint64_t)im->idx2.a << 32 | im->idx2.b;
  case TL_IMM_BR_CAST: return im->idx2.b; /* the label goes through label_eq */
  case TL_IMM_V128: case TL_IMM_SHUFFLE: {
    uint64_t a, b;
    memcpy(&a, im->v128, 8);
    memcpy(&b, im->v128 + 8, 8);
    return a * 31 + b;
  }
  case TL_IMM_MEMARG: case TL_IMM_LANE: case TL_IMM_MEMARG_LANE:
    return im->mem.offset * 131 + im->mem.align * 17 + im->mem.mem * 7 + im->mem.lane;
  default: return im->index;
  }
}

static bool imm_eq(cf *c, const tl_expr *a, const tl_expr *b);

static void hash_node(tl_expr *e) {
  uint64_t h = (uint64_t)e->op * 0x9E3779B97F4A7C15u + e->type * 977u + e->nkid;
  h ^= imm_key(e) * 0xC2B2AE3D27D4EB4Fu;
  for (uint32_t i = 0; i < e->nkid; i++) h = (h ^ (e->kid[i] ? e->kid[i]->aux : 7)) * 1000003u;
  e->aux = (uint16_t)(h ^ h >> 16 ^ h >> 32 ^ h >> 48);
}

static void map_grow(cf *c) {
  if (c->mapcap >= c->f->nlabel) return;
  uint32_t n = c->f->nlabel + 16;
  uint32_t *map = tl_scratch_realloc(c->map, n, sizeof *c->map);
  if (map) c->map = map;
  uint32_t *stamp = map ? tl_scratch_realloc(c->stamp, n, sizeof *c->stamp) : NULL;
  if (stamp) c->stamp = stamp;
  if (!map || !stamp) { /* mapcap stays what both hold: compares stay sound */
    c->nomem = true;
    return;
  }
  memset(c->stamp + c->mapcap, 0, (n - c->mapcap) * sizeof *c->stamp);
  c->mapcap = n;
}

/* Label la in a's copy corresponds to lb in b's: defined by the copies at
 * the same place, or the same label outside both. */
static bool label_eq(cf *c, uint32_t la, uint32_t lb) {
  if (la < c->mapcap && c->stamp[la] == c->gen) return c->map[la] == lb;
  return la == lb && !(lb < c->mapcap && c->stamp[lb] == c->gen);
}

static bool imm_eq(cf *c, const tl_expr *a, const tl_expr *b) {
  switch (tl_ops[a->op].imm) {
  case TL_IMM_BLOCK: {
    uint32_t la = a->imm.block.label, lb = b->imm.block.label;
    if (a->imm.block.bt != b->imm.block.bt || (la == TL_NO_LABEL) != (lb == TL_NO_LABEL)) return false;
    if (la != TL_NO_LABEL) {
      if (la >= c->mapcap || lb >= c->mapcap) return false;
      c->stamp[la] = c->gen;
      c->map[la] = lb;
    }
    return true;
  }
  case TL_IMM_LABEL: return label_eq(c, a->imm.label, b->imm.label);
  case TL_IMM_BR_CAST: return label_eq(c, a->imm.idx2.a, b->imm.idx2.a) && a->imm.idx2.b == b->imm.idx2.b;
  case TL_IMM_BR_TABLE:
    if (a->imm.table->n != b->imm.table->n || !label_eq(c, a->imm.table->def, b->imm.table->def))
      return false;
    for (uint32_t i = 0; i < a->imm.table->n; i++)
      if (!label_eq(c, a->imm.table->targets[i], b->imm.table->targets[i])) return false;
    return true;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: return !memcmp(a->imm.v128, b->imm.v128, 16);
  case TL_IMM_MEMARG: case TL_IMM_LANE: case TL_IMM_MEMARG_LANE:
    return a->imm.mem.offset == b->imm.mem.offset && a->imm.mem.big == b->imm.mem.big && a->imm.mem.align == b->imm.mem.align &&
           a->imm.mem.mem == b->imm.mem.mem && a->imm.mem.lane == b->imm.mem.lane;
  default: return imm_key(a) == imm_key(b);
  }
}

/* Deep structural equality (iterative, budgeted: out of budget = unequal).
 * Calls in a sequence of items share one label map (start_seq). */
static void start_seq(cf *c) {
  map_grow(c);
  c->gen++;
}

static bool deep_eq(cf *c, tl_expr *a, tl_expr *b) {
  if (a == b) return false; /* the same node is not two copies */
  if (a->aux != b->aux) return false;
  c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, a);
  TL_VEC_PUSH(&c->st, tl_expr *, b);
  while (c->st.n) {
    tl_expr *y = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    tl_expr *x = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    if (!x || !y) {
      if (x != y) return false;
      continue;
    }
    if (!c->budget) return false;
    c->budget--;
    if (x->op != y->op || x->type != y->type || x->nkid != y->nkid || !imm_eq(c, x, y)) return false;
    for (uint32_t i = x->nkid; i-- > 0;) { /* pushed reversed: popped in preorder */
      TL_VEC_PUSH(&c->st, tl_expr *, x->kid[i]);
      TL_VEC_PUSH(&c->st, tl_expr *, y->kid[i]);
    }
  }
  return true;
}

/* ---- scope checks ------------------------------------------------------ */
/* Is label l defined inside the subtree numbered [lo, hi) (or unknown)? */
static bool inside(cf *c, uint32_t l, uint32_t lo, uint32_t hi) {
  if (l >= c->nlab || c->lo[l] == UINT32_MAX) return true;
  return c->lo[l] >= lo && c->hi[l] <= hi;
}

/* Every branch in e that leaves e goes to a label not defined inside
 * [lo, hi), or to `allow` (TL_NO_LABEL: none). With leaves_try (code
 * moving to a block's or the function's end in a function with exception
 * handling: it may leave a try body or catch arm), nothing in e may throw
 * or be an EH node, so which handler catches what stays the same. */
static bool targets_ok(cf *c, tl_expr *e, uint32_t lo, uint32_t hi, uint32_t allow, bool leaves_try) {
  start_seq(c);
  c->st.n = 0;
  TL_VEC_PUSH(&c->st, tl_expr *, e);
  while (c->st.n) {
    tl_expr *x = TL_VEC_AT(&c->st, tl_expr *, --c->st.n);
    if (!x) continue;
    uint32_t fl = tl_ops[x->op].flags;
    if (leaves_try && (fl & (TL_F_CALL | TL_F_THROWS | TL_F_EH | TL_F_LABEL_USE))) return false;
    if ((fl & TL_F_CONTROL) && x->imm.block.label != TL_NO_LABEL && x->imm.block.label < c->mapcap)
      c->stamp[x->imm.block.label] = c->gen;
    if (fl & TL_F_BRANCH) {
      uint32_t n = x->op == TL_OP_BR_TABLE ? x->imm.table->n + 1 : 1;
      for (uint32_t i = 0; i < n; i++) {
        uint32_t l = x->op != TL_OP_BR_TABLE ? x->imm.label
                     : i < x->imm.table->n    ? x->imm.table->targets[i]
                                             : x->imm.table->def;
        if (l < c->mapcap && c->stamp[l] == c->gen) continue; /* defined in e */
        if (l != allow && inside(c, l, lo, hi)) return false;
      }
    }
    for (uint32_t i = 0; i < x->nkid; i++) TL_VEC_PUSH(&c->st, tl_expr *, x->kid[i]);
  }
  return true;
}

/* ---- the analysis walk ------------------------------------------------- */
static void an_pre(tl_walk *w, tl_expr **slot) {
  cf *c = w->ctx;
  tl_expr *e = *slot;
  c->num++;
  TL_VEC_PUSH(&c->pre, uint32_t, c->num);
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->imm.block.label < c->nlab)
    c->lo[e->imm.block.label] = c->num;
}

static void count_branch(cf *c, tl_expr *e) {
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || tl_op_is_br_on(e->op)) {
    if (e->imm.label < c->nlab) c->cnt[e->imm.label]++;
  } else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      if (e->imm.table->targets[i] < c->nlab) c->cnt[e->imm.table->targets[i]]++;
    if (e->imm.table->def < c->nlab) c->cnt[e->imm.table->def]++;
  } else if (tl_ops[e->op].imm == TL_IMM_CLAUSE) { /* a try_table clause: a path into its label */
    if (e->imm.idx2.a < c->nlab) c->cnt[e->imm.idx2.a]++;
  } else if (e->op == TL_OP_RETURN || e->op == TL_OP_RETURN_CALL ||
             e->op == TL_OP_RETURN_CALL_INDIRECT || e->op == TL_OP_RETURN_CALL_REF) {
    if (c->body_label < c->nlab) c->cnt[c->body_label]++;
  }
}

static void an_post(tl_walk *w, tl_expr **slot) {
  cf *c = w->ctx;
  tl_expr *e = *slot;
  uint32_t lo = TL_VEC_AT(&c->pre, uint32_t, --c->pre.n);
  hash_node(e);
  count_branch(c, e);
  uint32_t fl = tl_ops[e->op].flags;
  if ((fl & TL_F_CONTROL) && e->imm.block.label < c->nlab) c->hi[e->imm.block.label] = c->num + 1;
  if ((e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) && e->nkid >= 2 &&
      (e->kid[e->nkid - 1]->op == TL_OP_UNREACHABLE || e->kid[e->nkid - 1]->op == TL_OP_RETURN))
    TL_VEC_PUSH(&c->terms, tl_expr *, e);
  if ((e->op == TL_OP_BR && e->nkid == 0) || (e->op == TL_OP_RETURN && e->nkid == 0)) {
    tl_expr *p = tl_walk_parent(w, 1);
    uint32_t l = e->op == TL_OP_BR ? e->imm.label : c->body_label;
    if (p && (p->op == TL_OP_BLOCK || p->op == TL_OP_LOOP) && p->nkid >= 2 && p->kid[p->nkid - 1] == e)
      TL_VEC_PUSH(&c->tails, tail, ((tail){l, p, e}));
  }
  if ((e->op == TL_OP_IF && e->nkid == 3 && e->kid[0]->type != TL_UNREACHABLE) ||
      (e->op == TL_OP_BLOCK && e->type == TL_NONE && e->imm.block.label < c->nlab)) {
    tl_expr *p = tl_walk_parent(w, 1);
    TL_VEC_PUSH(&c->cands, cand, ((cand){slot, lo, c->num + 1, p && p->op == TL_OP_BLOCK}));
  }
}

/* ---- if arms ----------------------------------------------------------- */
static tl_expr **arm_items(tl_expr **arm, uint32_t *n) {
  if ((*arm)->op == TL_OP_BLOCK && (*arm)->imm.block.label == TL_NO_LABEL) {
    *n = (*arm)->nkid;
    return (*arm)->kid;
  }
  *n = 1;
  return arm;
}

/* The arm without its last k items: a nop, the one item left, or the list. */
static tl_expr *arm_prefix(cf *c, tl_expr *arm, uint32_t n, uint32_t k) {
  if (n == k) return tl_make_nop(c->m);
  if (arm->op != TL_OP_BLOCK || arm->imm.block.label != TL_NO_LABEL) return arm;
  if (n - k == 1) return arm->kid[0];
  arm->nkid = n - k;
  tl_expr_finalize(c->m, c->f, arm);
  return arm;
}

/* Estimated bytes of items: an opcode per node, a byte per immediate
 * (constants two). */
static uint64_t size_of(tl_expr **items, uint32_t k) {
  uint64_t s = 0;
  tl_vec st = {0};
  for (uint32_t i = 0; i < k; i++) TL_VEC_PUSH(&st, tl_expr *, items[i]);
  while (st.n) {
    tl_expr *e = TL_VEC_AT(&st, tl_expr *, --st.n);
    if (!e) continue;
    uint8_t im = tl_ops[e->op].imm;
    s += 1 + (im != TL_IMM_NONE) + (im >= TL_IMM_I32 && im <= TL_IMM_F64);
    for (uint32_t j = 0; j < e->nkid; j++) TL_VEC_PUSH(&st, tl_expr *, e->kid[j]);
  }
  tl_vec_free(&st);
  return s;
}

static void fold_if(cf *c, cand *cd) {
  tl_expr *e = *cd->slot;
  uint32_t l = e->imm.block.label;
  if (c->nomem) return;
  if (e->op != TL_OP_IF || e->nkid != 3 || (l != TL_NO_LABEL && (l >= c->nlab || c->cnt[l])))
    return;
  uint32_t na, nb;
  tl_expr **a = arm_items(&e->kid[1], &na), **b = arm_items(&e->kid[2], &nb);
  uint32_t k = 0;
  start_seq(c);
  while (k < na && k < nb && deep_eq(c, a[na - 1 - k], b[nb - 1 - k])) k++;
  /* Only the items that stay in scope after the if (a contiguous suffix). */
  uint32_t kk = 0;
  while (kk < k && targets_ok(c, a[na - 1 - kk], cd->lo, cd->hi, TL_NO_LABEL, false)) kk++;
  k = kk;
  if (!k || (int64_t)size_of(a + (na - k), k) <= (cd->in_list ? 0 : BLOCK_COST) + (na == k && nb == k))
    return;
  tl_expr **kids = tl_scratch_realloc(NULL, (size_t)k + 1, sizeof *kids);
  if (!kids) {
    c->nomem = true;
    return;
  }
  memcpy(kids + 1, a + (na - k), k * sizeof *kids);
  tl_expr *pa = arm_prefix(c, e->kid[1], na, k), *pb = arm_prefix(c, e->kid[2], nb, k);
  if (na == k && nb == k) {
    kids[0] = tl_make_drop(c->m, e->kid[0]);
  } else {
    e->kid[1] = pa;
    e->kid[2] = pb;
    if (nb == k) e->nkid = 2;
    e->imm.block.bt = TL_NO_INDEX; /* its results moved out with S */
    tl_expr_finalize(c->m, c->f, e);
    kids[0] = e;
  }
  *cd->slot = tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, kids, k + 1);
  tl_free(kids);
  c->changed = true;
}

/* ---- block ends -------------------------------------------------------- */
typedef struct {
  tl_expr *list;   /* the list the path's code ends in */
  uint32_t end;    /* items before this index are the path's code */
  tl_expr *br;     /* NULL for the fallthrough */
  uint32_t group;  /* representative's index, UINT32_MAX: none yet */
  uint32_t key;    /* hash of the last item (sort key), then position */
  uint32_t pos;
} path;

static int path_cmp(const void *x, const void *y) {
  const path *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static tl_expr *item_at(path *p, uint32_t back) { return p->list->kid[p->end - 1 - back]; }

/* Paths j equal to the representative r on its last k items join r's group. */
static uint32_t regroup(cf *c, path *p, uint32_t np, uint32_t r, uint32_t k) {
  uint32_t members = 0;
  for (uint32_t j = 0; j < np; j++) {
    bool in = j == r;
    if (!in && p[j].end >= k && p[j].group == r) {
      in = true;
      start_seq(c);
      for (uint32_t i = k; i-- > 0 && in;) in = deep_eq(c, item_at(&p[r], i), item_at(&p[j], i));
    }
    p[j].group = in ? r : p[j].group == r ? UINT32_MAX - 1 : p[j].group;
    members += in;
  }
  return members;
}

/* What keeping one copy saves, by the node-count estimate; `all`: the group
 * is every path into $b (S just follows $b), else an inner block takes the
 * group's branches, returns become brs and a fallthrough outside the group
 * needs a br over S. */
static int64_t saving(path *p, uint32_t np, uint32_t r, uint32_t k, bool all, bool falls, bool in_list) {
  uint32_t members = 0, rets = 0;
  bool fall_in = false;
  for (uint32_t j = 0; j < np; j++) {
    if (p[j].group != r) continue;
    members++;
    rets += p[j].br && p[j].br->op == TL_OP_RETURN;
    fall_in |= !p[j].br;
  }
  int64_t s = (int64_t)size_of(&p[r].list->kid[p[r].end - k], k) * (members - 1);
  if (!all) s -= BLOCK_COST + rets + (falls && !fall_in ? BR_COST : 0);
  else if (!in_list) s -= BLOCK_COST;
  return s;
}

static void fold_block(cf *c, cand *cd, tail *t, uint32_t nt) {
  tl_expr *b = *cd->slot;
  if (c->nomem || b->op != TL_OP_BLOCK || b->type != TL_NONE) return;
  uint32_t lab = b->imm.block.label;
  bool is_body = cd->slot == &c->f->body;
  tl_vec ps = {0};
  for (uint32_t i = 0; i < nt; i++) {
    tl_expr *l = t[i].list;
    if (l->nkid < 2 || l->kid[l->nkid - 1] != t[i].br) continue; /* changed since */
    if (t[i].br->op == TL_OP_RETURN && !is_body) continue;
    TL_VEC_PUSH(&ps, path, ((path){l, l->nkid - 1, t[i].br, UINT32_MAX, 0, 0}));
  }
  bool falls = b->nkid && b->kid[b->nkid - 1]->type != TL_UNREACHABLE;
  if (falls) TL_VEC_PUSH(&ps, path, ((path){b, b->nkid, NULL, UINT32_MAX, 0, 0}));
  path *p = ps.p;
  uint32_t np = (uint32_t)ps.n, best_k = 0, best_r = 0;
  for (uint32_t i = 0; i < np; i++) {
    p[i].key = p[i].end ? item_at(&p[i], 0)->aux : UINT32_MAX;
    p[i].pos = i;
  }
  if (np) qsort(p, np, sizeof *p, path_cmp); /* equal last items are neighbours */
  bool best_all = false;
  int64_t best = 0;
  /* Greedy groups by the last item (equality is transitive); per group the
   * common suffix with its representative, cut to what stays in scope. */
  for (uint32_t r = 0; r < np; r++) {
    if (p[r].group != UINT32_MAX || !p[r].end) continue;
    p[r].group = r;
    uint32_t members = 1, k = UINT32_MAX;
    for (uint32_t j = r + 1; j < np && p[j].key == p[r].key; j++) {
      if (p[j].group != UINT32_MAX) continue;
      start_seq(c);
      if (!deep_eq(c, item_at(&p[r], 0), item_at(&p[j], 0))) continue;
      uint32_t kk = 1;
      while (kk < p[r].end && kk < p[j].end && kk < k &&
             deep_eq(c, item_at(&p[r], kk), item_at(&p[j], kk)))
        kk++;
      k = kk < k ? kk : k;
      members++;
      p[j].group = r;
    }
    if (members < 2) continue;
    bool all = !is_body && members == c->cnt[lab] + (falls ? 1u : 0u);
    uint32_t kk = 0;
    while (kk < k && targets_ok(c, item_at(&p[r], kk), cd->lo, cd->hi, all ? TL_NO_LABEL : lab, c->eh)) kk++;
    if (!kk) continue;
    int64_t s = saving(p, np, r, kk, all, falls, cd->in_list);
    if (s > best) best = s, best_k = kk, best_r = r, best_all = all;
  }
  if (!best_k) {
    tl_vec_free(&ps);
    return;
  }
  uint32_t r = best_r, k = best_k;
  if (regroup(c, p, np, r, k) < 2) {
    tl_vec_free(&ps);
    return;
  }
  bool all = best_all, fall_in = false;
  for (uint32_t j = 0; j < np; j++) fall_in |= p[j].group == r && !p[j].br;
  tl_expr **moved = tl_scratch_realloc(NULL, (size_t)k + 1, sizeof *moved);
  if (!moved) {
    c->nomem = true;
    tl_vec_free(&ps);
    return;
  }
  memcpy(moved + 1, &p[r].list->kid[p[r].end - k], k * sizeof *moved);
  uint32_t inner = all ? TL_NO_LABEL : tl_func_new_label(c->m, c->f);
  for (uint32_t j = 0; j < np; j++) {
    if (p[j].group != r) continue;
    tl_expr *l = p[j].list;
    if (p[j].br) {
      l->kid[p[j].end - k] = p[j].br;
      l->nkid = p[j].end - k + 1;
      if (!all) {
        p[j].br->op = TL_OP_BR;
        p[j].br->imm.label = inner;
      }
    } else {
      l->nkid = p[j].end - k;
    }
    if (l != b) tl_expr_finalize(c->m, c->f, l);
  }
  if (all) {
    tl_expr_finalize(c->m, c->f, b);
    moved[0] = b;
    *cd->slot = tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, moved, k + 1);
  } else {
    tl_expr *in = tl_make_block(c->m, TL_OP_BLOCK, inner, b->kid, b->nkid);
    if (falls && !fall_in) { /* the fallthrough skips S */
      tl_expr *br = tl_expr_new(c->m, TL_OP_BR, 0);
      br->imm.label = lab;
      br->type = TL_UNREACHABLE;
      tl_expr_push_kid(c->m, in, br);
    }
    tl_expr_finalize(c->m, c->f, in);
    moved[0] = in;
    b->kid = TL_NEWN(&c->m->arena, tl_expr *, k + 1);
    memcpy(b->kid, moved, (k + 1) * sizeof *moved);
    b->nkid = k + 1, b->kcap = 0;
    tl_expr_finalize(c->m, c->f, b);
  }
  tl_free(moved);
  tl_vec_free(&ps);
  c->changed = true;
}

/* ---- terminating tails ------------------------------------------------- */
/* Lists anywhere in the function that end in the same code and then
 * `unreachable` or `return` keep one copy at the function's end, reached
 * by `br $i` from each: `$fn: [block $i [body; return], S]`. The body's own
 * fallthrough returns (its value, if any) so it never reaches S. One group
 * per call. */
static bool fold_terminating(cf *c) {
  tl_func *f = c->f;
  tl_expr *body = f->body;
  uint32_t np = (uint32_t)c->terms.n, best_k = 0, best_r = 0;
  if (np < 2 || c->nomem) return false;
  path *p = tl_scratch_realloc(NULL, np, sizeof *p);
  if (!p) {
    c->nomem = true;
    return false;
  }
  for (uint32_t i = 0; i < np; i++) {
    tl_expr *l = TL_VEC_AT(&c->terms, tl_expr *, i);
    p[i] = (path){l, l->nkid, NULL, UINT32_MAX, 0, i};
    /* the terminator is the same everywhere: key on the item before it too */
    p[i].key = (uint32_t)item_at(&p[i], 0)->aux << 16 | item_at(&p[i], 1)->aux;
  }
  qsort(p, np, sizeof *p, path_cmp);
  int64_t best = 0;
  for (uint32_t r = 0; r < np; r++) {
    if (p[r].group != UINT32_MAX) continue;
    p[r].group = r;
    uint32_t members = 1, k = UINT32_MAX;
    for (uint32_t j = r + 1; j < np && p[j].key == p[r].key; j++) {
      if (p[j].group != UINT32_MAX) continue;
      start_seq(c);
      uint32_t kk = 0;
      while (kk < p[r].end && kk < p[j].end && kk < k && deep_eq(c, item_at(&p[r], kk), item_at(&p[j], kk)))
        kk++;
      if (kk < 2) continue;
      k = kk < k ? kk : k;
      members++;
      p[j].group = r;
    }
    if (members < 2) continue;
    uint32_t kk = 0;
    while (kk < k && targets_ok(c, item_at(&p[r], kk), 0, UINT32_MAX, c->body_label, c->eh)) kk++;
    if (kk < 2) continue;
    int64_t s = (int64_t)size_of(&p[r].list->kid[p[r].end - kk], kk) * (members - 1) -
                (int64_t)members * BR_COST - BLOCK_COST - 1;
    if (s > best) best = s, best_k = kk, best_r = r;
  }
  uint32_t r = best_r, k = best_k;
  if (!k || regroup(c, p, np, r, k) < 2) {
    tl_free(p);
    return false;
  }
  tl_expr **moved = tl_scratch_realloc(NULL, (size_t)k + 1, sizeof *moved);
  if (!moved) {
    c->nomem = true;
    tl_free(p);
    return false;
  }
  memcpy(moved + 1, &p[r].list->kid[p[r].end - k], k * sizeof *moved);
  uint32_t inner = tl_func_new_label(c->m, f);
  for (uint32_t j = 0; j < np; j++) {
    if (p[j].group != r) continue;
    tl_expr *l = p[j].list, *br = tl_expr_new(c->m, TL_OP_BR, 0);
    br->imm.label = inner;
    br->type = TL_UNREACHABLE;
    l->kid[p[j].end - k] = br;
    l->nkid = p[j].end - k + 1;
    if (l != body) tl_expr_finalize(c->m, f, l);
  }
  tl_expr *in = tl_make_block(c->m, TL_OP_BLOCK, inner, body->kid, body->nkid);
  tl_expr *last = in->nkid ? in->kid[in->nkid - 1] : NULL;
  if (!last || last->type != TL_UNREACHABLE) { /* the fallthrough returns */
    tl_expr *ret = tl_expr_new(c->m, TL_OP_RETURN, 0);
    if (last && tl_type_is_concrete(last->type)) {
      tl_expr_push_kid(c->m, ret, last);
      in->nkid--;
    }
    ret->type = TL_UNREACHABLE;
    tl_expr_push_kid(c->m, in, ret);
  }
  tl_expr_finalize(c->m, f, in);
  moved[0] = in;
  body->kid = TL_NEWN(&c->m->arena, tl_expr *, k + 1);
  memcpy(body->kid, moved, (k + 1) * sizeof *moved);
  body->nkid = k + 1, body->kcap = 0;
  tl_expr_finalize(c->m, f, body);
  tl_free(moved);
  tl_free(p);
  return true;
}

/* ---- driver ------------------------------------------------------------ */
static int tail_cmp(const void *x, const void *y) {
  const tail *a = x, *b = y;
  return a->label < b->label ? -1 : a->label > b->label;
}

/* Out of memory: c->nomem, nothing listed (unanalyse frees what is held). */
static void analyse(cf *c) {
  tl_func *f = c->f;
  c->nlab = f->nlabel;
  c->body_label = f->body->imm.block.label;
  c->lo = tl_scratch_realloc(NULL, (size_t)c->nlab + 1, sizeof *c->lo);
  c->hi = tl_scratch_calloc((size_t)c->nlab + 1, sizeof *c->hi);
  c->cnt = tl_scratch_calloc((size_t)c->nlab + 1, sizeof *c->cnt);
  c->num = 0;
  c->pre.n = 0;
  c->tails.n = c->cands.n = c->terms.n = 0;
  c->changed = false;
  if (!c->lo || !c->hi || !c->cnt) c->nomem = true;
  else map_grow(c);
  if (c->nomem) return;
  memset(c->lo, 0xff, (c->nlab + 1) * sizeof *c->lo);
  tl_walk w = {0};
  w.m = c->m;
  w.f = f;
  w.ctx = c;
  w.pre = an_pre;
  w.post = an_post;
  tl_walk_run(&w, &f->body);
}

static void unanalyse(cf *c) {
  tl_free(c->lo);
  tl_free(c->hi);
  tl_free(c->cnt);
}

/* One round over an analysed body; the analysis still describes the body
 * when this returns false. */
static bool round_once(cf *c) {
  /* tails by label (the order within a label only picks which copy stays) */
  if (c->tails.n) qsort(c->tails.p, c->tails.n, sizeof(tail), tail_cmp);
  tail *t = c->tails.p;
  for (size_t i = 0; i < c->cands.n; i++) {
    cand *cd = &TL_VEC_AT(&c->cands, cand, i);
    tl_expr *e = *cd->slot;
    if (e->op == TL_OP_IF) {
      fold_if(c, cd);
      continue;
    }
    uint32_t lab = e->imm.block.label;
    /* binary search the label's tails */
    size_t lo = 0, hi = c->tails.n;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (t[mid].label < lab) lo = mid + 1;
      else hi = mid;
    }
    size_t end = lo;
    while (end < c->tails.n && t[end].label == lab) end++;
    if (end > lo || (e->nkid && e->kid[e->nkid - 1]->type != TL_UNREACHABLE && c->cnt[lab]))
      fold_block(c, cd, t ? t + lo : NULL, (uint32_t)(end - lo));  /* no tails: NULL, not NULL + 0 */
  }
  return c->changed;
}

/* Rounds of block-tail folding until one changes nothing; *fresh: the
 * last analysis still describes the body. */
static void block_rounds(cf *c, uint64_t n, bool *fresh) {
  for (int r = 0; r < MAX_ROUNDS && !c->nomem; r++) {
    c->budget = 64 * n + 4096;
    analyse(c);
    if (!round_once(c)) {
      *fresh = true;
      break;
    }
    unanalyse(c);
    tl_func_refinalize(c->m, c->f); /* the next round reads types */
  }
}

/* Rounds of folding terminating tails (return, unreachable) likewise. */
static bool terminating_rounds(cf *c, uint64_t n, bool *fresh) {
  bool any = false;
  for (int r = 0; r < MAX_TERM && !c->nomem; r++) {
    c->budget = 64 * n + 4096;
    if (!*fresh) analyse(c);
    *fresh = false;
    bool changed = fold_terminating(c);
    unanalyse(c);
    if (!changed) break;
    any = true;
    tl_func_refinalize(c->m, c->f);
  }
  return any;
}

/* Block tails, then terminating ones, and again while folding terminating
 * tails changed the body (up to MAX_PASSES): a folded return epilogue
 * leaves block tails that now end alike (Go's returns: esbuild -Os, 39 KB). */
tl_status tl_pass_code_folding(tl_pass_ctx *ctx, tl_func *f) {
  cf c = {0};
  c.m = ctx->m;
  c.f = f;
  c.eh = tl_expr_has_eh(f->body);
  uint64_t n = tl_expr_count(f->body);
  bool fresh = false;   /* the last analysis still describes the body */
  for (int p = 0; p < MAX_PASSES && !c.nomem; p++) {
    block_rounds(&c, n, &fresh);
    if (!terminating_rounds(&c, n, &fresh)) break;
  }
  if (fresh) unanalyse(&c);
  tl_free(c.map);
  tl_free(c.stamp);
  tl_vec_free(&c.st);
  tl_vec_free(&c.tails);
  tl_vec_free(&c.cands);
  tl_vec_free(&c.pre);
  tl_vec_free(&c.terms);
  return c.nomem ? tl_nomem(ctx->err, "code-folding") : TL_OK;
}
