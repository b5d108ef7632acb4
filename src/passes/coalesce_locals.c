/* coalesce_locals.c — coalesce-locals: liveness over the function's
 * control flow, a sparse interference graph, and a greedy merge of locals
 * that are never live at the same time (copies merged first, so
 * `local.set $a (local.get $b)` disappears), plus removal of sets nothing
 * reads.
 * The CFG is built in one iterative walk in evaluation order. Functions
 * with few locals use bitsets (live sets, gen/kill per block, an
 * interference bit matrix); larger ones use unsorted live arrays per block
 * and a hash set of interference pairs (no nlocal^2 matrix, no sorting);
 * both give the same graph. A copy does not make its two locals
 * interfere. At the entry, params hold arguments and the other locals hold
 * zero: every param interferes with every other local live at the entry,
 * while two zero-initialized locals live at the entry hold the same value.
 * Params keep their indices and never merge with each other; tuple-typed
 * locals are left as they are (own slot, never merged, sets kept).
 * The reader's scratch locals are not merged (own local each, kept last,
 * scratch_base updated) so the writer can still elide them.
 * Assumes: valid IR. Guarantees: the same behaviour; locals renumbered
 * (params, then merged locals); unreferenced locals dropped.
 * A set of a tee's value (set x (tee y V)) is a copy of y too. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { DEAD = 1 };
#define NONE UINT32_MAX
/* TL_VEC_PUSH that calls tl_vec_grow only when the vector is full */
#define PUSH(v, T, x) do { if ((v)->n == (v)->cap) tl_vec_grow((v), sizeof(T), (v)->n + 1); \
    ((T *)(v)->p)[(v)->n++] = (x); } while (0)

typedef struct {
  uint32_t local, copy;  /* copy: source local of a copy set, NONE otherwise */
  bool set;
  tl_expr *e;
} action;

typedef struct {
  uint32_t start, end;   /* actions */
  uint32_t *live_in, nin, cap;
} bb;

typedef struct { uint64_t *k; size_t n, cap; bool nomem; } pairset; /* nomem: an add failed */

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_vec bbs, acts, edges; /* bb, action, uint32 pairs (from, to) */
  tl_vec slots;            /* tl_expr **: every local.get/set/tee, post-order */
  tl_vec order;            /* uint32: the blocks in the order they were entered */
  uint32_t cur;
  uint32_t *label_bb;
  bool *skip;              /* per local: not analysed (tuple) */
  uint32_t *sstart, *succ, *pstart, *pred; /* CSR of the edges */
  bool nomem;              /* a scratch allocation failed: rewrite nothing */
} cl_ctx;

static uint32_t new_bb(cl_ctx *c) {
  bb b = {0};
  PUSH(&c->bbs, bb, b);
  return (uint32_t)c->bbs.n - 1;
}
static void edge(cl_ctx *c, uint32_t from, uint32_t to) {
  PUSH(&c->edges, uint32_t, from);
  PUSH(&c->edges, uint32_t, to);
}
static void enter(cl_ctx *c, uint32_t b) {
  TL_VEC_AT(&c->bbs, bb, c->cur).end = (uint32_t)c->acts.n;
  c->cur = b;
  TL_VEC_AT(&c->bbs, bb, b).start = (uint32_t)c->acts.n;
  PUSH(&c->order, uint32_t, b);
}
static void jump(cl_ctx *c, uint32_t label) { edge(c, c->cur, c->label_bb[label]); }

typedef struct { tl_expr **slot; uint32_t next, cond, end; } frame;

static void post_node(cl_ctx *c, frame *fr) {
  tl_expr *e = *fr->slot;
  switch (e->op) {
  case TL_OP_LOCAL_GET:
  case TL_OP_LOCAL_SET:
  case TL_OP_LOCAL_TEE: {
    e->aux = 0;
    PUSH(&c->slots, tl_expr **, fr->slot);
    if (c->skip[e->imm.index]) break;
    action a = {e->imm.index, NONE, e->op != TL_OP_LOCAL_GET, e};
    /* set x (get y) and set x (tee y V): x and y then hold the same value */
    tl_op vop = a.set ? e->kid[0]->op : TL_OP_NOP;
    if ((vop == TL_OP_LOCAL_GET || vop == TL_OP_LOCAL_TEE) && !c->skip[e->kid[0]->imm.index])
      a.copy = e->kid[0]->imm.index;
    e->aux = 0;
    PUSH(&c->acts, action, a);
    break;
  }
  case TL_OP_BLOCK:
    if (fr->end != NONE) {
      edge(c, c->cur, fr->end);
      enter(c, fr->end);
    }
    break;
  case TL_OP_IF:
    edge(c, c->cur, fr->end);
    if (e->nkid == 2) edge(c, fr->cond, fr->end);
    enter(c, fr->end);
    break;
  case TL_OP_BR: jump(c, e->imm.label); enter(c, new_bb(c)); break;
  case TL_OP_BR_IF: {
    jump(c, e->imm.label);
    uint32_t n = new_bb(c);
    edge(c, c->cur, n);
    enter(c, n);
    break;
  }
  case TL_OP_BR_TABLE:
    for (uint32_t i = 0; i < e->imm.table->n; i++) jump(c, e->imm.table->targets[i]);
    jump(c, e->imm.table->def);
    enter(c, new_bb(c));
    break;
  default:
    if (tl_ops[e->op].flags & TL_F_NORETURN) enter(c, new_bb(c));
    break;
  }
}

static void pre_node(cl_ctx *c, frame *fr) {
  tl_expr *e = *fr->slot;
  fr->end = fr->cond = NONE;
  if ((e->op == TL_OP_BLOCK && e->imm.block.label != TL_NO_LABEL) || e->op == TL_OP_IF) {
    fr->end = new_bb(c);
    if (e->imm.block.label != TL_NO_LABEL) c->label_bb[e->imm.block.label] = fr->end;
  } else if (e->op == TL_OP_LOOP) {
    uint32_t h = new_bb(c);
    edge(c, c->cur, h);
    enter(c, h);
    if (e->imm.block.label != TL_NO_LABEL) c->label_bb[e->imm.block.label] = h;
  }
}

/* Before kid k of an IF: split the arms. */
static void between(cl_ctx *c, frame *fr, uint32_t k) {
  if ((*fr->slot)->op != TL_OP_IF || k == 0) return;
  if (k == 1) fr->cond = c->cur;
  else edge(c, c->cur, fr->end);
  uint32_t arm = new_bb(c);
  edge(c, fr->cond, arm);
  enter(c, arm);
}

static void build(cl_ctx *c) {
  tl_vec st = {0};
  c->cur = new_bb(c);
  PUSH(&c->order, uint32_t, c->cur);
  TL_VEC_PUSH(&st, frame, ((frame){&c->f->body, 0, 0, 0}));
  pre_node(c, &TL_VEC_AT(&st, frame, 0));
  while (st.n) {
    frame *fr = &TL_VEC_AT(&st, frame, st.n - 1);
    tl_expr *e = *fr->slot;
    if (fr->next < e->nkid) {
      uint32_t k = fr->next++;
      tl_expr *kid = e->kid[k];
      if (!kid) continue;
      if (e->op == TL_OP_IF && k) between(c, fr, k);
      if (!kid->nkid && kid->op != TL_OP_BLOCK && kid->op != TL_OP_LOOP && kid->op != TL_OP_IF) {
        /* a leaf gets no frame (pre_node does nothing for it); post_node
         * does nothing for one that is not a get and falls through */
        if (kid->op == TL_OP_LOCAL_GET || (tl_ops[kid->op].flags & TL_F_NORETURN)) {
          frame leaf = {&e->kid[k], 0, NONE, NONE};
          post_node(c, &leaf);
        }
        continue;
      }
      PUSH(&st, frame, ((frame){&e->kid[k], 0, 0, 0}));
      pre_node(c, &TL_VEC_AT(&st, frame, st.n - 1));
      continue;
    }
    frame done = *fr;
    st.n--;
    post_node(c, &done);
  }
  TL_VEC_AT(&c->bbs, bb, c->cur).end = (uint32_t)c->acts.n;
  tl_vec_free(&st);
}

/* ---- sparse sets ------------------------------------------------------- */
typedef struct { uint32_t *mem, *pos, n; } sset; /* pos[x] < n && mem[pos[x]] == x */
static bool sset_has(const sset *s, uint32_t x) { return s->pos[x] < s->n && s->mem[s->pos[x]] == x; }
static void sset_add(sset *s, uint32_t x) {
  if (sset_has(s, x)) return;
  s->pos[x] = s->n;
  s->mem[s->n++] = x;
}
static void sset_del(sset *s, uint32_t x) {
  if (!sset_has(s, x)) return;
  uint32_t last = s->mem[--s->n];
  s->mem[s->pos[x]] = last;
  s->pos[last] = s->pos[x];
}

static uint64_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}
/* Adds k (never 0); true if it was new. Out of memory: p->nomem. */
static bool pairset_add(pairset *p, uint64_t k) {
  if (2 * (p->n + 1) > p->cap) {
    size_t ncap = p->cap ? 2 * p->cap : 64;
    uint64_t *nk = tl_scratch_calloc(ncap, sizeof *nk);
    if (!nk) {
      p->nomem = true;
      return false;
    }
    for (size_t i = 0; i < p->cap; i++)
      if (p->k[i]) {
        size_t h = mix(p->k[i]) & (ncap - 1);
        while (nk[h]) h = (h + 1) & (ncap - 1);
        nk[h] = p->k[i];
      }
    free(p->k);
    p->k = nk, p->cap = ncap;
  }
  size_t h = mix(k) & (p->cap - 1);
  while (p->k[h]) {
    if (p->k[h] == k) return false;
    h = (h + 1) & (p->cap - 1);
  }
  p->k[h] = k;
  p->n++;
  return true;
}

/* live_in = uses + (live_out - defs), computed backwards through the block
 * from s = live_out. */
static void transfer(cl_ctx *c, bb *b, sset *s) {
  for (uint32_t i = b->end; i-- > b->start;) {
    action *a = &TL_VEC_AT(&c->acts, action, i);
    if (a->set) sset_del(s, a->local);
    else sset_add(s, a->local);
  }
}

/* s = live_out of block bi: the union of its successors' live_in. */
static void live_out(cl_ctx *c, uint32_t bi, sset *s) {
  s->n = 0;
  for (uint32_t k = c->sstart[bi]; k < c->sstart[bi + 1]; k++) {
    bb *t = &TL_VEC_AT(&c->bbs, bb, c->succ[k]);
    for (uint32_t j = 0; j < t->nin; j++) sset_add(s, t->live_in[j]);
  }
}

/* Successor and predecessor lists (CSR) from the edge pairs. Out of
 * memory: c->nomem (the caller frees what is held). */
static void edges_csr(cl_ctx *c) {
  uint32_t nb = (uint32_t)c->bbs.n, ne = (uint32_t)c->edges.n / 2;
  c->pstart = tl_scratch_calloc((size_t)nb + 2, sizeof(uint32_t));
  c->pred = tl_scratch_realloc(NULL, (size_t)ne + 1, sizeof(uint32_t));
  c->sstart = tl_scratch_calloc((size_t)nb + 2, sizeof(uint32_t));
  c->succ = tl_scratch_realloc(NULL, (size_t)ne + 1, sizeof(uint32_t));
  if (!c->pstart || !c->pred || !c->sstart || !c->succ) {
    c->nomem = true;
    return;
  }
  const uint32_t *E = c->edges.p;
  /* counts at [i + 2], prefix sums leave the start of i at [i + 1]; filling
   * advances it to the end of i, which is the start of i + 1 */
  for (uint32_t i = 0; i < ne; i++) c->pstart[E[2 * i + 1] + 2]++, c->sstart[E[2 * i] + 2]++;
  for (uint32_t i = 0; i < nb; i++) c->pstart[i + 2] += c->pstart[i + 1], c->sstart[i + 2] += c->sstart[i + 1];
  for (uint32_t i = 0; i < ne; i++) {
    uint32_t from = E[2 * i], to = E[2 * i + 1];
    c->pred[c->pstart[to + 1]++] = from;
    c->succ[c->sstart[from + 1]++] = to;
  }
}

/* The first work list of the liveness: every block, the last one entered
 * on top, so successors mostly come first (a block's end is numbered
 * before the blocks inside it but entered after them). Any order reaches
 * the same fixed point. Returns the count. */
static uint32_t first_work(const cl_ctx *c, uint32_t *work, bool *queued) {
  uint32_t nb = (uint32_t)c->bbs.n, nw = 0;
  const uint32_t *ord = c->order.p;
  for (size_t i = 0; i < c->order.n; i++) queued[ord[i]] = true;
  for (uint32_t i = 0; i < nb; i++)
    if (!queued[i]) work[nw++] = i, queued[i] = true;
  for (size_t i = 0; i < c->order.n && nw < nb; i++) work[nw++] = ord[i];
  return nw;
}

/* Backward liveness to a fixed point. The work list is a stack that starts
 * as first_work leaves it. Live sets are unsorted: a new live_in
 * equals the old one when the sizes match and s holds every old member. */
static void liveness(cl_ctx *c, sset *s) {
  uint32_t nb = (uint32_t)c->bbs.n;
  uint32_t *work = tl_scratch_realloc(NULL, (size_t)nb + 1, sizeof(uint32_t));
  bool *queued = tl_scratch_calloc((size_t)nb + 1, 1);
  if (!work || !queued) {
    free(work), free(queued);
    c->nomem = true;
    return;
  }
  uint32_t nw = first_work(c, work, queued);
  while (nw) {
    uint32_t bi = work[--nw];
    queued[bi] = false;
    bb *b = &TL_VEC_AT(&c->bbs, bb, bi);
    live_out(c, bi, s);
    transfer(c, b, s);
    bool same = s->n == b->nin;
    for (uint32_t j = 0; same && j < b->nin; j++) same = sset_has(s, b->live_in[j]);
    if (same) continue;
    if (s->n > b->cap) {
      b->cap = s->n + s->n / 2;
      free(b->live_in);
      b->live_in = tl_scratch_realloc(NULL, b->cap, sizeof(uint32_t));
      if (!b->live_in) {
        b->cap = b->nin = 0;
        c->nomem = true;
        break;
      }
    }
    b->nin = s->n;
    memcpy(b->live_in, s->mem, s->n * sizeof(uint32_t));
    for (uint32_t k = c->pstart[bi]; k < c->pstart[bi + 1]; k++)
      if (!queued[c->pred[k]]) queued[c->pred[k]] = true, work[nw++] = c->pred[k];
  }
  s->n = 0;
  free(work), free(queued);
}

static uint64_t key(uint32_t a, uint32_t b) {
  return a < b ? ((uint64_t)a << 32 | b) + 1 : ((uint64_t)b << 32 | a) + 1;
}

typedef struct { uint32_t *start, *list; } adj;

/* false when out of memory (the caller frees g). */
static bool adj_build(adj *g, const pairset *p, uint32_t n) {
  g->start = tl_scratch_calloc((size_t)n + 2, sizeof(uint32_t));
  g->list = tl_scratch_realloc(NULL, 2 * p->n + 1, sizeof(uint32_t));
  uint32_t *fill = tl_scratch_calloc((size_t)n + 1, sizeof(uint32_t));
  if (!g->start || !g->list || !fill) {
    free(fill);
    return false;
  }
  for (size_t i = 0; i < p->cap; i++)
    if (p->k[i]) {
      uint64_t k = p->k[i] - 1;
      g->start[(k >> 32) + 1]++, g->start[(uint32_t)k + 1]++;
    }
  for (uint32_t i = 0; i < n; i++) g->start[i + 1] += g->start[i];
  for (size_t i = 0; i < p->cap; i++)
    if (p->k[i]) {
      uint64_t k = p->k[i] - 1;
      uint32_t a = (uint32_t)(k >> 32), b = (uint32_t)k;
      g->list[g->start[a] + fill[a]++] = b;
      g->list[g->start[b] + fill[b]++] = a;
    }
  free(fill);
  return true;
}

/* ---- dense mode ------------------------------------------------------- */
/* For functions with few locals (most of them): live sets are bitsets, a
 * block's effect is precomputed as gen (read before written) and kill
 * (written), and interference is a bit matrix, symmetrized and turned into
 * the same adjacency lists the sparse mode builds. Same sets, same result. */
typedef uint64_t word;
enum { DENSE_LOCALS = 2048, DENSE_WORDS = 1 << 17 }; /* matrix <= 512 KiB, live sets <= 1 MiB */
#define BIT(x) ((word)1 << ((x) & 63))

static bool dense_fits(uint32_t n, size_t nb) {
  size_t w = (n + 63) / 64;
  return n <= DENSE_LOCALS && nb * w <= DENSE_WORDS;
}

/* NULL when out of memory */
static void *zalloc(size_t n, size_t size) { return tl_scratch_calloc(n + 1, size); }

/* live = union of the successors' live_in */
static void dense_out(cl_ctx *c, uint32_t bi, const word *in, uint32_t W, word *live) {
  uint32_t k = c->sstart[bi], end = c->sstart[bi + 1];
  if (k == end) {
    for (uint32_t w = 0; w < W; w++) live[w] = 0;
    return;
  }
  const word *t = in + (size_t)c->succ[k] * W;
  for (uint32_t w = 0; w < W; w++) live[w] = t[w];
  for (k++; k < end; k++) {
    t = in + (size_t)c->succ[k] * W;
    for (uint32_t w = 0; w < W; w++) live[w] |= t[w];
  }
}

/* row |= add & mask, except bit `except` (NONE: none) */
static void row_or(word *row, const word *add, const word *mask, uint32_t W, uint32_t except) {
  word keep = except != NONE ? row[except / 64] & BIT(except) : 0;
  for (uint32_t w = 0; w < W; w++) row[w] |= add[w] & mask[w];
  if (except != NONE) row[except / 64] = (row[except / 64] & ~BIT(except)) | keep;
}

static void dense_liveness(cl_ctx *c, uint32_t W, word *in, word *gen, word *kill, word *tmp) {
  uint32_t nb = (uint32_t)c->bbs.n;
  for (uint32_t bi = 0; bi < nb; bi++) {
    bb *b = &TL_VEC_AT(&c->bbs, bb, bi);
    word *g = gen + (size_t)bi * W, *k = kill + (size_t)bi * W;
    for (uint32_t i = b->end; i-- > b->start;) {
      action *a = &TL_VEC_AT(&c->acts, action, i);
      if (a->set) k[a->local / 64] |= BIT(a->local), g[a->local / 64] &= ~BIT(a->local);
      else g[a->local / 64] |= BIT(a->local);
    }
  }
  uint32_t *work = zalloc(nb, sizeof(uint32_t)), nw = 0;
  bool *queued = zalloc(nb, 1);
  if (!work || !queued) {
    free(work), free(queued);
    c->nomem = true;
    return;
  }
  nw = first_work(c, work, queued);
  while (nw) {
    uint32_t bi = work[--nw];
    queued[bi] = false;
    word *old = in + (size_t)bi * W, *g = gen + (size_t)bi * W, *k = kill + (size_t)bi * W;
    bool same = true;
    if (W == 1) { /* up to 64 locals, most functions: no call, no loop */
      word out = 0;
      for (uint32_t j = c->sstart[bi]; j < c->sstart[bi + 1]; j++) out |= in[c->succ[j]];
      word v = g[0] | (out & ~k[0]);
      same = v == old[0];
      old[0] = v;
    } else {
      dense_out(c, bi, in, W, tmp);
      for (uint32_t w = 0; w < W; w++) {
        word v = g[w] | (tmp[w] & ~k[w]);
        same &= v == old[w];
        old[w] = v;
      }
    }
    if (same) continue;
    for (uint32_t j = c->pstart[bi]; j < c->pstart[bi + 1]; j++)
      if (!queued[c->pred[j]]) queued[c->pred[j]] = true, work[nw++] = c->pred[j];
  }
  free(work), free(queued);
}

static void dense_interfere(cl_ctx *c, uint32_t n, uint32_t np, bool *used, pairset *copies, adj *ig) {
  const tl_type *lt = c->f->local;
  size_t nb = c->bbs.n;
  uint32_t W = (n + 63) / 64;
  /* one allocation: in, gen, kill (per block), live, mat (per local), tmask (per type) */
  word *in = zalloc((3 * nb + 1 + n + TL_NBASIC) * W, sizeof(word));
  word *gen = in ? in + nb * W : NULL, *kill = in ? gen + nb * W : NULL, *live = in ? kill + nb * W : NULL;
  word *mat = in ? live + W : NULL, *tmask = in ? mat + (size_t)n * W : NULL;
  if (in) {
    for (uint32_t l = 0; l < n; l++)
      if (lt[l] < TL_NBASIC) tmask[(size_t)lt[l] * W + l / 64] |= BIT(l);
    dense_liveness(c, W, in, gen, kill, live);
  } else {
    c->nomem = true;
  }
  for (uint32_t bi = 0; bi < nb && !c->nomem; bi++) {
    bb *b = &TL_VEC_AT(&c->bbs, bb, bi);
    dense_out(c, bi, in, W, live);
    for (uint32_t i = b->end; i-- > b->start;) {
      action *a = &TL_VEC_AT(&c->acts, action, i);
      uint32_t x = a->local;
      used[x] = true;
      if (!a->set) {
        live[x / 64] |= BIT(x);
        continue;
      }
      if (!(live[x / 64] & BIT(x))) {
        a->e->aux |= DEAD;
        continue;
      }
      live[x / 64] &= ~BIT(x);
      row_or(mat + (size_t)x * W, live, tmask + (size_t)lt[x] * W, W, a->copy);
      if (a->copy != NONE && a->copy != x && lt[a->copy] == lt[x]) pairset_add(copies, key(a->copy, x));
    }
  }
  ig->start = c->nomem ? NULL : zalloc(n + 1, sizeof(uint32_t));
  if (!ig->start) {
    c->nomem = true;
    free(in);
    return;
  }
  for (uint32_t p = 0; p < np && nb; p++)
    if (lt[p] < TL_NBASIC) row_or(mat + (size_t)p * W, in, tmask + (size_t)lt[p] * W, W, p);
  /* symmetric, then adjacency lists */
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t w = 0; w < W; w++)
      for (word v = mat[(size_t)i * W + w]; v; v &= v - 1) {
        uint32_t j = w * 64 + (uint32_t)__builtin_ctzll(v);
        mat[(size_t)j * W + i / 64] |= BIT(i);
      }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t d = 0;
    for (uint32_t w = 0; w < W; w++) d += (uint32_t)__builtin_popcountll(mat[(size_t)i * W + w]);
    ig->start[i + 1] = ig->start[i] + d;
  }
  ig->list = zalloc(ig->start[n], sizeof(uint32_t));
  for (uint32_t i = 0, k = 0; i < n && ig->list; i++)
    for (uint32_t w = 0; w < W; w++)
      for (word v = mat[(size_t)i * W + w]; v; v &= v - 1) ig->list[k++] = w * 64 + (uint32_t)__builtin_ctzll(v);
  if (!ig->list) c->nomem = true;
  free(in);
}

/* ---- sparse mode: liveness above, interference as a hash set of pairs --- */
static void sparse_interfere(cl_ctx *c, sset *s, uint32_t n, uint32_t np, bool *used, pairset *copies, adj *ig) {
  const tl_type *lt = c->f->local;
  pairset inter = {0};
  liveness(c, s);
  for (size_t bi = 0; bi < c->bbs.n && !c->nomem; bi++) {
    bb *b = &TL_VEC_AT(&c->bbs, bb, bi);
    live_out(c, (uint32_t)bi, s);
    for (uint32_t i = b->end; i-- > b->start;) {
      action *a = &TL_VEC_AT(&c->acts, action, i);
      used[a->local] = true;
      if (!a->set) {
        sset_add(s, a->local);
        continue;
      }
      if (!sset_has(s, a->local)) {
        a->e->aux |= DEAD;
        continue;
      }
      sset_del(s, a->local);
      for (uint32_t j = 0; j < s->n; j++) {
        uint32_t l = s->mem[j];
        if (l != a->copy && lt[l] == lt[a->local]) pairset_add(&inter, key(l, a->local));
      }
      if (a->copy != NONE && a->copy != a->local && lt[a->copy] == lt[a->local])
        pairset_add(copies, key(a->copy, a->local));
    }
  }
  bb *entry = &TL_VEC_AT(&c->bbs, bb, 0);
  for (uint32_t p = 0; p < np; p++)
    for (uint32_t j = 0; j < entry->nin; j++) {
      uint32_t l = entry->live_in[j];
      if (l != p && lt[l] == lt[p]) pairset_add(&inter, key(l, p));
    }
  if (c->nomem || inter.nomem || !adj_build(ig, &inter, n)) c->nomem = true;
  free(inter.k);
}

static bool trivially_pure(const tl_expr *e) {
  return e->op == TL_OP_LOCAL_GET || e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST ||
         e->op == TL_OP_F32_CONST || e->op == TL_OP_F64_CONST || e->op == TL_OP_V128_CONST;
}

/* Renames the local ops to their colors and removes dead sets and self
 * copies, in post-order (so a removed set's value is final when it moves
 * into its slot). True if something was removed. */
static bool rewrite(cl_ctx *c, const uint32_t *color) {
  bool changed = false;
  for (size_t i = 0; i < c->slots.n; i++) {
    tl_expr **slot = TL_VEC_AT(&c->slots, tl_expr **, i), *e = *slot;
    e->imm.index = color[e->imm.index];
    if (e->op == TL_OP_LOCAL_GET) continue;
    tl_expr *v = e->kid[0];
    bool self_copy = v->op == TL_OP_LOCAL_GET && v->imm.index == e->imm.index;
    if (!(e->aux & DEAD) && v->op == TL_OP_LOCAL_TEE && v->imm.index == e->imm.index) {
      /* set x (tee x V) -> set x V; tee x (tee x V) -> tee x V */
      e->kid[0] = v->kid[0];
      changed = true;
      continue;
    }
    if (!(e->aux & DEAD) && !self_copy) continue;
    changed = true;
    if (e->op == TL_OP_LOCAL_TEE) *slot = v;
    else if (trivially_pure(v)) *slot = tl_make_nop(c->m);
    else *slot = tl_make_drop(c->m, v);
  }
  return changed;
}

tl_status tl_pass_coalesce_locals(tl_pass_ctx *ctx, tl_func *f) {
  tl_module *m = ctx->m;
  uint32_t n = f->nlocal, np = tl_func_nparams(m, f);
  cl_ctx c = {0};
  c.m = m, c.f = f;
  /* all scratch first: out of memory anywhere before rewrite() changes
   * nothing but the local ops' aux marks */
  /* the per-local arrays in one allocation: cname, then the 4-byte ones
   * (s.mem, s.pos, color, stamp, ctype), then the flags (skip, used) */
  size_t n1 = (size_t)n + 1;
  const char **cname = tl_scratch_calloc(n1, sizeof(char *) + 4 * sizeof(uint32_t) + sizeof(tl_type) + 2);
  uint32_t *u32 = cname ? (uint32_t *)(cname + n1) : NULL;
  sset s = {u32, u32 ? u32 + n1 : NULL, 0};
  uint32_t *color = u32 ? u32 + 2 * n1 : NULL, *stamp = u32 ? u32 + 3 * n1 : NULL;
  tl_type *ctype = u32 ? (tl_type *)(u32 + 4 * n1) : NULL;
  c.skip = ctype ? (bool *)(ctype + n1) : NULL;
  bool *used = c.skip ? c.skip + n1 : NULL;
  c.label_bb = tl_scratch_realloc(NULL, (size_t)f->nlabel + 1, sizeof(uint32_t));
  pairset copies = {0};
  adj ig = {0}, cg = {0};
  tl_vec by_type[TL_NBASIC] = {{0}};
  if (!c.label_bb || !cname) {
    c.nomem = true;
    goto out;
  }
  for (uint32_t i = 0; i < n; i++) c.skip[i] = tl_type_is_tuple(f->local[i]);
  build(&c);
  edges_csr(&c);
  if (c.nomem) goto out;
  /* interference: walk each block backwards from its live_out */
  if (dense_fits(n, c.bbs.n)) dense_interfere(&c, n, np, used, &copies, &ig);
  else sparse_interfere(&c, &s, n, np, used, &copies, &ig);
  if (c.nomem || copies.nomem || !adj_build(&cg, &copies, n)) {
    c.nomem = true;
    goto out;
  }
  /* greedy coloring in index order; params are their own colors */
  uint32_t ncolor = 0;
  for (uint32_t i = 0; i < n; i++) color[i] = NONE, stamp[i] = NONE;
  /* The reader's scratch locals (from scratch_base on; the writer elides a
   * set/get pair of one when the value can stay on the stack) keep a local
   * each, after the others: merged, they would become real sets and gets. */
  bool has_sb = f->has_scratch_base && f->scratch_base >= np && f->scratch_base <= n;
  uint32_t sb = has_sb ? f->scratch_base : n, new_sb = NONE;
  for (uint32_t i = 0; i < n; i++) {
    tl_type t = f->local[i];
    if (i >= np && !used[i] && !c.skip[i]) continue;
    if (i >= sb && new_sb == NONE) new_sb = ncolor;
    uint32_t pick = NONE;
    if (i >= np && !c.skip[i] && i < sb) {
      for (uint32_t k = ig.start[i]; k < ig.start[i + 1]; k++)
        if (color[ig.list[k]] != NONE) stamp[color[ig.list[k]]] = i;
      for (uint32_t k = cg.start[i]; k < cg.start[i + 1] && pick == NONE; k++) {
        uint32_t col = color[cg.list[k]];
        if (col != NONE && stamp[col] != i && ctype[col] == t) pick = col;
      }
      for (size_t k = 0; k < by_type[t].n && pick == NONE; k++) {
        uint32_t col = TL_VEC_AT(&by_type[t], uint32_t, k);
        if (stamp[col] != i) pick = col;
      }
    }
    if (pick == NONE) {
      pick = ncolor++;
      ctype[pick] = t;
      cname[pick] = f->local_name ? f->local_name[i] : NULL;
      if (!c.skip[i]) TL_VEC_PUSH(&by_type[t], uint32_t, pick);
    }
    color[i] = pick;
  }
  bool changed = rewrite(&c, color);
  for (uint32_t i = 0; i < ncolor; i++) {
    f->local[i] = ctype[i];
    if (f->local_name) f->local_name[i] = cname[i];
  }
  f->nlocal = ncolor;
  if (has_sb) f->scratch_base = new_sb == NONE ? ncolor : new_sb;
  /* removed sets keep their types (a set and the drop or nop for it are
   * none, or unreachable with the value; a tee and its value share it), so
   * this is a safety net only when something was removed */
  if (changed) tl_func_refinalize(m, f);
out:
  for (size_t bi = 0; bi < c.bbs.n; bi++) /* the sparse mode's (NULL in the dense one) */
    if (TL_VEC_AT(&c.bbs, bb, bi).live_in) free(TL_VEC_AT(&c.bbs, bb, bi).live_in);
  for (int t = 0; t < TL_NBASIC; t++) tl_vec_free(&by_type[t]);
  tl_vec_free(&c.bbs), tl_vec_free(&c.acts), tl_vec_free(&c.edges), tl_vec_free(&c.slots), tl_vec_free(&c.order);
  free(c.label_bb), free(copies.k);
  free(c.sstart), free(c.succ), free(c.pstart), free(c.pred);
  free(ig.start), free(ig.list), free(cg.start), free(cg.list);
  free((void *)cname);
  return c.nomem ? tl_nomem(ctx->err, "coalesce-locals") : TL_OK;
}
