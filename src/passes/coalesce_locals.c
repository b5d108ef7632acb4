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
/* Appends x to the vector c->v, whose first storage c->i_v is on the stack
 * of tl_pass_coalesce_locals (tl_vec_grow_inl). */
#define PUSH(c, v, T, x) do { \
    if ((c)->v.n == (c)->v.cap) tl_vec_grow_inl(&(c)->v, sizeof(T), (c)->v.n + 1, (c)->i_##v); \
    ((T *)(c)->v.p)[(c)->v.n++] = (x); } while (0)

typedef struct {
  uint32_t local, copy;  /* copy: source local of a copy set, NONE otherwise */
  bool set;
  tl_expr *e;
} action;

typedef struct {
  uint32_t start, end;   /* actions */
  uint32_t *live_in, nin, cap;
} bb;

typedef struct {
  uint64_t *k;
  size_t n, cap;
  bool nomem;           /* an add failed */
  const uint64_t *inl;  /* the first table when it is the caller's (not freed) */
} pairset;

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_vec bbs, acts, edges; /* bb, action, uint32 pairs (from, to) */
  tl_vec slots;            /* tl_expr **: every local.get/set/tee, post-order */
  tl_vec catches;          /* tl_expr *: catch arms storing a payload local */
  tl_vec handlers;         /* uint32: the blocks a throw inside the trys being
                              walked reaches (catch arm entries, try_table
                              clause targets), innermost try's last */
  tl_vec armbb;            /* uint32: the entry block of every catch arm, by try */
  const void *i_catches, *i_handlers, *i_armbb; /* their first storage */
  tl_vec order;            /* uint32: the blocks in the order they were entered */
  const void *i_bbs, *i_acts, *i_edges, *i_slots, *i_order; /* their first storage */
  uint32_t cur;
  uint32_t *label_bb;
  bool *skip;              /* per local: not analysed (tuple) */
  uint32_t *sstart, *succ, *pstart, *pred; /* CSR of the edges */
  uint32_t *work;          /* liveness work list (nb + 1) */
  bool *queued;            /* per block: on the work list (nb + 1, false) */
  bool nomem;              /* a scratch allocation failed: rewrite nothing */
  bool (*probe)(void *ctx, const tl_expr *e); /* tl_locals_live_after's points */
  void *probe_ctx;
} cl_ctx;

static uint32_t new_bb(cl_ctx *c) {
  bb b = {0};
  PUSH(c, bbs, bb, b);
  return (uint32_t)c->bbs.n - 1;
}
static void edge(cl_ctx *c, uint32_t from, uint32_t to) {
  PUSH(c, edges, uint32_t, from);
  PUSH(c, edges, uint32_t, to);
}
static void enter(cl_ctx *c, uint32_t b) {
  TL_VEC_AT(&c->bbs, bb, c->cur).end = (uint32_t)c->acts.n;
  c->cur = b;
  TL_VEC_AT(&c->bbs, bb, b).start = (uint32_t)c->acts.n;
  PUSH(c, order, uint32_t, b);
}
static void jump(cl_ctx *c, uint32_t label) { edge(c, c->cur, c->label_bb[label]); }

/* A construct being walked: cond is an if's condition block, or a try's
 * first arm entry in c->armbb; h0 is where a try's handlers start in
 * c->handlers (popped back to it after its body). */
typedef struct { tl_expr **slot; uint32_t next, cond, end, h0; } frame;

/* A local.get, set or tee at *slot: its slot and action. */
static inline void local_op(cl_ctx *c, tl_expr **slot) {
  tl_expr *e = *slot;
  e->aux = 0;
  PUSH(c, slots, tl_expr **, slot);
  if (c->skip[e->imm.index]) return;
  action a = {e->imm.index, NONE, e->op != TL_OP_LOCAL_GET, e};
  /* set x (get y) and set x (tee y V): x and y then hold the same value */
  tl_op vop = a.set ? e->kid[0]->op : TL_OP_NOP;
  if ((vop == TL_OP_LOCAL_GET || vop == TL_OP_LOCAL_TEE) && !c->skip[e->kid[0]->imm.index])
    a.copy = e->kid[0]->imm.index;
  PUSH(c, acts, action, a);
}

static void post_node(cl_ctx *c, frame *fr) {
  tl_expr *e = *fr->slot;
  switch (e->op) {
  case TL_OP_LOCAL_GET:
  case TL_OP_LOCAL_SET:
  case TL_OP_LOCAL_TEE:
    local_op(c, fr->slot);
    break;
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
  case TL_OP_BR_IF: /* and GC's conditional branches */
  case TL_OP_BR_ON_NULL: case TL_OP_BR_ON_NON_NULL: case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL: {
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
  case TL_OP_TRY:
  case TL_OP_TRY_TABLE:
    c->handlers.n = fr->h0; /* (a try with arms popped them before its first) */
    if (fr->end != NONE) {
      edge(c, c->cur, fr->end);
      enter(c, fr->end);
    }
    break;
  default: {
    uint32_t fl = tl_ops[e->op].flags;
    if (c->probe && c->probe(c->probe_ctx, e)) PUSH(c, acts, action, ((action){NONE, NONE, false, e}));
    /* a call or throw inside a try body may go to its handlers */
    if ((fl & (TL_F_CALL | TL_F_THROWS)) && c->handlers.n) {
      for (size_t i = 0; i < c->handlers.n; i++) edge(c, c->cur, TL_VEC_AT(&c->handlers, uint32_t, i));
      if (!(fl & TL_F_NORETURN)) {
        uint32_t n = new_bb(c);
        edge(c, c->cur, n);
        enter(c, n);
      }
    }
    if (fl & TL_F_NORETURN) enter(c, new_bb(c));
    break;
  }
  }
}

/* A try: its end, and its handlers pushed for the walk of its body: an
 * entry block per catch arm (a delegate pushes none: the enclosing trys'
 * handlers, already there, are where its body's exceptions can go), or a
 * try_table's clause targets. */
static void pre_try(cl_ctx *c, frame *fr) {
  tl_expr *e = *fr->slot;
  fr->end = new_bb(c);
  if (e->imm.block.label != TL_NO_LABEL) c->label_bb[e->imm.block.label] = fr->end;
  fr->h0 = (uint32_t)c->handlers.n;
  fr->cond = (uint32_t)c->armbb.n;
  for (uint32_t i = 1; i < e->nkid; i++) {
    tl_expr *arm = e->kid[i];
    if (arm->op == TL_OP_DELEGATE) continue;
    uint32_t h = e->op == TL_OP_TRY ? new_bb(c) : c->label_bb[arm->imm.label];
    if (e->op == TL_OP_TRY) PUSH(c, armbb, uint32_t, h);
    PUSH(c, handlers, uint32_t, h);
  }
}

static void pre_node(cl_ctx *c, frame *fr) {
  tl_expr *e = *fr->slot;
  fr->end = fr->cond = NONE;
  fr->h0 = (uint32_t)c->handlers.n;
  if (e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE) {
    pre_try(c, fr);
  } else if ((e->op == TL_OP_BLOCK && e->imm.block.label != TL_NO_LABEL) || e->op == TL_OP_IF) {
    fr->end = new_bb(c);
    if (e->imm.block.label != TL_NO_LABEL) c->label_bb[e->imm.block.label] = fr->end;
  } else if (e->op == TL_OP_LOOP) {
    uint32_t h = new_bb(c);
    edge(c, c->cur, h);
    enter(c, h);
    if (e->imm.block.label != TL_NO_LABEL) c->label_bb[e->imm.block.label] = h;
  }
}

/* Before arm k (k >= 1) of a legacy try: the body or the arm before
 * ends at the try's end; the arm starts at its handler block, where a
 * catch stores its payload. The try's handlers are popped first: they do
 * not cover its own arms. */
static void between_arms(cl_ctx *c, frame *fr, uint32_t k) {
  tl_expr *arm = (*fr->slot)->kid[k];
  if (k == 1) c->handlers.n = fr->h0;
  if (arm->op == TL_OP_DELEGATE) return;
  edge(c, c->cur, fr->end);
  uint32_t idx = 0; /* arm k's entry: after the arms before it that are not delegates */
  for (uint32_t i = 1; i < k; i++) idx += (*fr->slot)->kid[i]->op != TL_OP_DELEGATE;
  enter(c, TL_VEC_AT(&c->armbb, uint32_t, fr->cond + idx));
  if (arm->op == TL_OP_CATCH && arm->imm.idx2.a != TL_NO_INDEX) {
    PUSH(c, catches, tl_expr *, arm);
    arm->aux = 0;
    if (!c->skip[arm->imm.idx2.a]) PUSH(c, acts, action, ((action){arm->imm.idx2.a, NONE, true, arm}));
  }
}

/* Before kid k of an IF: split the arms. */
static void between(cl_ctx *c, frame *fr, uint32_t k) {
  if ((*fr->slot)->op == TL_OP_TRY) {
    if (k) between_arms(c, fr, k);
    return;
  }
  if ((*fr->slot)->op != TL_OP_IF || k == 0) return;
  if (k == 1) fr->cond = c->cur;
  else edge(c, c->cur, fr->end);
  uint32_t arm = new_bb(c);
  edge(c, fr->cond, arm);
  enter(c, arm);
}

/* Ops post_node does something for: local ops, blocks, ifs, branches and
 * what does not return (pre_node: blocks, loops and ifs only). */
static const uint32_t POST_FLAGS = TL_F_READS_LOCAL | TL_F_WRITES_LOCAL | TL_F_CONTROL | TL_F_BRANCH | TL_F_NORETURN |
                                   TL_F_CALL | TL_F_THROWS;

static void build(cl_ctx *c) {
  frame st0[64];
  struct { tl_vec st; const void *i_st; } w = {{st0, 0, 64}, st0};
  c->cur = new_bb(c);
  PUSH(c, order, uint32_t, c->cur);
  PUSH(&w, st, frame, ((frame){&c->f->body, 0, 0, 0, 0}));
  pre_node(c, &TL_VEC_AT(&w.st, frame, 0));
  /* e: the node of the top frame, k: its next kid */
  tl_expr *e = c->f->body;
  uint32_t k = 0;
  for (;;) {
    while (k < e->nkid) {
      tl_expr **ks = &e->kid[k++], *kid = *ks;
      if (!kid) continue;
      if ((e->op == TL_OP_IF || e->op == TL_OP_TRY) && k > 1) between(c, &TL_VEC_AT(&w.st, frame, w.st.n - 1), k - 1);
      uint32_t fl = tl_ops[kid->op].flags;
      if (!kid->nkid && !(fl & TL_F_CONTROL)) {
        /* a leaf gets no frame (pre_node does nothing for it); post_node
         * does nothing for one that is not a get and falls through */
        if (kid->op == TL_OP_LOCAL_GET) {
          kid->aux = 0;
          PUSH(c, slots, tl_expr **, ks);
          if (!c->skip[kid->imm.index]) PUSH(c, acts, action, ((action){kid->imm.index, NONE, false, kid}));
        } else if (fl & (TL_F_NORETURN | TL_F_CALL | TL_F_THROWS)) {
          frame leaf = {ks, 0, NONE, NONE, 0};
          post_node(c, &leaf);
        }
        continue;
      }
      TL_VEC_AT(&w.st, frame, w.st.n - 1).next = k;
      PUSH(&w, st, frame, ((frame){ks, 0, 0, 0, 0}));
      if (fl & TL_F_CONTROL) pre_node(c, &TL_VEC_AT(&w.st, frame, w.st.n - 1));
      e = kid, k = 0;
    }
    frame done = TL_VEC_AT(&w.st, frame, --w.st.n);
    uint32_t fl = tl_ops[e->op].flags;
    if (fl & TL_F_WRITES_LOCAL) local_op(c, done.slot);
    else if (fl & POST_FLAGS) post_node(c, &done);
    if (!w.st.n) break;
    frame *top = &TL_VEC_AT(&w.st, frame, w.st.n - 1);
    e = *top->slot, k = top->next;
  }
  TL_VEC_AT(&c->bbs, bb, c->cur).end = (uint32_t)c->acts.n;
  tl_vec_free_inl(&w.st, st0);
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
    if (p->k != p->inl) tl_free(p->k);
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
    if (a->local == NONE) continue; /* a probe (tl_locals_live_after) */
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
static void edges_csr(cl_ctx *c, uint32_t *buf, size_t nbuf) {
  uint32_t nb = (uint32_t)c->bbs.n, ne = (uint32_t)c->edges.n / 2;
  /* one allocation: pstart, sstart (nb + 2), pred, succ (ne + 1), work
   * (nb + 1), then queued (nb + 1 bytes) */
  size_t need = 3 * (size_t)nb + 2 * (size_t)ne + 7 + ((size_t)nb + 4) / 4;
  c->pstart = need <= nbuf ? memset(buf, 0, need * sizeof(uint32_t)) : tl_scratch_calloc(need, sizeof(uint32_t));
  if (!c->pstart) {
    c->nomem = true;
    return;
  }
  c->sstart = c->pstart + nb + 2;
  c->pred = c->sstart + nb + 2;
  c->succ = c->pred + ne + 1;
  c->work = c->succ + ne + 1;
  c->queued = (bool *)(c->work + nb + 1);
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
  uint32_t *work = c->work;
  bool *queued = c->queued;
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
      tl_free(b->live_in);
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
}

static uint64_t key(uint32_t a, uint32_t b) {
  return a < b ? ((uint64_t)a << 32 | b) + 1 : ((uint64_t)b << 32 | a) + 1;
}

typedef struct { uint32_t *start, *list; } adj;

/* start: the caller's n + 2 zeroed entries; fill: n scratch entries; no
 * pairs, no list. false when out of memory (the caller frees g->list). */
static bool adj_build(adj *g, const pairset *p, uint32_t n, uint32_t *start, uint32_t *fill) {
  g->start = start;
  g->list = NULL;
  if (!p->n) return true;
  g->list = tl_scratch_realloc(NULL, 2 * p->n + 1, sizeof(uint32_t));
  if (!g->list) return false;
  memset(fill, 0, (size_t)n * sizeof(uint32_t));
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
  return true;
}

/* ---- dense mode ------------------------------------------------------- */
/* For functions with few locals (most of them): live sets are bitsets, a
 * block's effect is precomputed as gen (read before written) and kill
 * (written), and interference is a bit matrix, symmetrized and turned into
 * the same adjacency lists the sparse mode builds. Same sets, same result. */
typedef uint64_t word;
enum { DENSE_LOCALS = 2048, DENSE_WORDS = 1 << 17 }; /* matrix <= 512 KiB, live sets <= 1 MiB */
enum { DENSE_STACK = 1024 };                         /* words of dense scratch kept on the stack */
enum { LOCALS_STACK = 512, CSR_STACK = 1024 };       /* words of per-local and CSR blocks on the stack */
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
  uint32_t *work = c->work, nw;
  bool *queued = c->queued;
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
}

/* igstart: n + 2 zeroed entries, ig's start */
static void dense_interfere(cl_ctx *c, uint32_t n, uint32_t np, bool *used, pairset *copies, adj *ig,
                            uint32_t *igstart) {
  const tl_type *lt = c->f->local;
  size_t nb = c->bbs.n;
  uint32_t W = (n + 63) / 64;
  /* one allocation (on the stack when small): in, gen, kill (per block),
   * live, mat (per local), tmask (per type) */
  word buf[DENSE_STACK];
  size_t nw = (3 * nb + 1 + n + TL_NBASIC) * W + 1;
  word *in = nw <= DENSE_STACK ? memset(buf, 0, nw * sizeof(word)) : zalloc(nw, sizeof(word));
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
    if (W == 1) { /* dense_out for up to 64 locals */
      live[0] = 0;
      for (uint32_t j = c->sstart[bi]; j < c->sstart[bi + 1]; j++) live[0] |= in[c->succ[j]];
    } else {
      dense_out(c, bi, in, W, live);
    }
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
  if (c->nomem) {
    if (in != buf) tl_free(in);
    return;
  }
  ig->start = igstart;
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
  ig->list = ig->start[n] ? zalloc(ig->start[n], sizeof(uint32_t)) : NULL;
  for (uint32_t i = 0, k = 0; i < n && ig->list; i++)
    for (uint32_t w = 0; w < W; w++)
      for (word v = mat[(size_t)i * W + w]; v; v &= v - 1) ig->list[k++] = w * 64 + (uint32_t)__builtin_ctzll(v);
  if (ig->start[n] && !ig->list) c->nomem = true;
  if (in != buf) tl_free(in);
}

/* The dense mode keeps an interference mask per basic type; locals of
 * other types (typed references: GC) go to the sparse mode, which
 * compares types directly. Tuples are skipped either way. */
static bool basic_typed(const tl_func *f) {
  for (uint32_t i = 0; i < f->nlocal; i++)
    if (f->local[i] >= TL_NBASIC && !tl_type_is_tuple(f->local[i])) return false;
  return true;
}

/* ---- sparse mode: liveness above, interference as a hash set of pairs --- */
static void sparse_interfere(cl_ctx *c, sset *s, uint32_t n, uint32_t np, bool *used, pairset *copies, adj *ig,
                             uint32_t *igstart, uint32_t *fill) {
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
  if (c->nomem || inter.nomem || !adj_build(ig, &inter, n, igstart, fill)) c->nomem = true;
  tl_free(inter.k);
}

static bool trivially_pure(const tl_expr *e) {
  return e->op == TL_OP_LOCAL_GET || e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST ||
         e->op == TL_OP_F32_CONST || e->op == TL_OP_F64_CONST || e->op == TL_OP_V128_CONST;
}

/* Renames the local ops to their colors and removes dead sets and self
 * copies, in post-order (so a removed set's value is final when it moves
 * into its slot). True if a node was replaced by one of another type (a
 * removed tee by an unreachable value, say): the types need refinalizing. */
static bool rewrite(cl_ctx *c, const uint32_t *color) {
  bool retype = false;
  for (size_t i = 0; i < c->catches.n; i++) { /* a payload nothing reads is not stored */
    tl_expr *arm = TL_VEC_AT(&c->catches, tl_expr *, i);
    arm->imm.idx2.a = arm->aux & DEAD ? TL_NO_INDEX : color[arm->imm.idx2.a];
  }
  for (size_t i = 0; i < c->slots.n; i++) {
    tl_expr **slot = TL_VEC_AT(&c->slots, tl_expr **, i), *e = *slot;
    e->imm.index = color[e->imm.index];
    if (e->op == TL_OP_LOCAL_GET) continue;
    tl_expr *v = e->kid[0];
    bool self_copy = v->op == TL_OP_LOCAL_GET && v->imm.index == e->imm.index;
    if (!(e->aux & DEAD) && v->op == TL_OP_LOCAL_TEE && v->imm.index == e->imm.index) {
      /* set x (tee x V) -> set x V; tee x (tee x V) -> tee x V */
      e->kid[0] = v->kid[0];
      retype |= v->kid[0]->type != v->type;
      continue;
    }
    if (!(e->aux & DEAD) && !self_copy) continue;
    if (e->op == TL_OP_LOCAL_TEE) *slot = v;
    else if (trivially_pure(v)) *slot = tl_make_nop(c->m);
    else *slot = tl_make_drop(c->m, v);
    retype |= (*slot)->type != e->type;
  }
  return retype;
}

/* ---- liveness at chosen points (asyncify's pausing calls) ----------------- */
bool tl_locals_live_after(tl_module *m, tl_func *f, bool (*probe)(void *ctx, const tl_expr *e), void *ctx,
                          uint8_t *live) {
  cl_ctx c = {0};
  c.m = m, c.f = f, c.probe = probe, c.probe_ctx = ctx;
  bb bbs0[16];
  action acts0[64];
  uint32_t edges0[64], order0[16], handlers0[4], armbb0[4];
  tl_expr **slots0[64], *catches0[4];
  c.bbs = (tl_vec){bbs0, 0, 16}, c.acts = (tl_vec){acts0, 0, 64}, c.edges = (tl_vec){edges0, 0, 64};
  c.slots = (tl_vec){slots0, 0, 64}, c.order = (tl_vec){order0, 0, 16};
  c.catches = (tl_vec){catches0, 0, 4}, c.handlers = (tl_vec){handlers0, 0, 4}, c.armbb = (tl_vec){armbb0, 0, 4};
  c.i_bbs = bbs0, c.i_acts = acts0, c.i_edges = edges0, c.i_slots = slots0, c.i_order = order0;
  c.i_catches = catches0, c.i_handlers = handlers0, c.i_armbb = armbb0;
  uint32_t n = f->nlocal;
  c.label_bb = tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t));
  c.skip = tl_scratch_calloc((size_t)n + 1, sizeof(bool));
  sset s = {tl_scratch_calloc((size_t)n + 1, sizeof(uint32_t)), tl_scratch_calloc((size_t)n + 1, sizeof(uint32_t)), 0};
  c.nomem = !c.label_bb || !c.skip || !s.mem || !s.pos;
  if (!c.nomem) {
    for (uint32_t i = 0; i < n; i++) c.skip[i] = tl_type_is_tuple(f->local[i]);
    build(&c);
    edges_csr(&c, NULL, 0);
  }
  if (!c.nomem) liveness(&c, &s);
  for (size_t bi = 0; !c.nomem && bi < c.bbs.n; bi++) {
    bb *b = &TL_VEC_AT(&c.bbs, bb, bi);
    live_out(&c, (uint32_t)bi, &s);
    for (uint32_t i = b->end; i-- > b->start;) {
      action *a = &TL_VEC_AT(&c.acts, action, i);
      if (a->local == NONE) {
        for (uint32_t j = 0; j < s.n; j++) live[s.mem[j]] = 1;
      } else if (a->set) {
        sset_del(&s, a->local);
      } else {
        sset_add(&s, a->local);
      }
    }
  }
  for (uint32_t i = 0; i < n && c.skip; i++) /* tuples are not analysed: live */
    if (c.skip[i]) live[i] = 1;
  for (size_t bi = 0; bi < c.bbs.n; bi++) tl_free(TL_VEC_AT(&c.bbs, bb, bi).live_in);
  tl_vec_free_inl(&c.bbs, bbs0), tl_vec_free_inl(&c.acts, acts0), tl_vec_free_inl(&c.edges, edges0);
  tl_vec_free_inl(&c.slots, slots0), tl_vec_free_inl(&c.order, order0);
  tl_vec_free_inl(&c.catches, catches0), tl_vec_free_inl(&c.handlers, handlers0), tl_vec_free_inl(&c.armbb, armbb0);
  tl_free(c.pstart), tl_free(c.label_bb), tl_free(c.skip), tl_free(s.mem), tl_free(s.pos);
  return !c.nomem;
}

/* The colors of one local type, oldest first, chained by next: the basic
 * types at their own index, the others (reference types: GC) after
 * TL_NBASIC, found by a linear search (a function has few distinct ones). */
typedef struct {
  tl_type t;
  uint32_t head, tail;
} tgroup;

static tgroup *group_of(tgroup *g, uint32_t *ng, tl_type t) {
  if (t < TL_NBASIC) return &g[t];
  for (uint32_t k = TL_NBASIC; k < *ng; k++)
    if (g[k].t == t) return &g[k];
  g[*ng] = (tgroup){t, NONE, NONE};
  return &g[(*ng)++];
}

tl_status tl_pass_coalesce_locals(tl_pass_ctx *ctx, tl_func *f) {
  tl_module *m = ctx->m;
  uint32_t n = f->nlocal, np = tl_func_nparams(m, f);
  cl_ctx c = {0};
  c.m = m, c.f = f;
  /* the vectors and the copies' table start on the stack */
  bb bbs0[64];
  action acts0[256];
  uint32_t edges0[256], order0[64];
  tl_expr **slots0[256], *catches0[16];
  uint32_t handlers0[16], armbb0[16];
  uint64_t copies0[64] = {0};
  c.bbs = (tl_vec){bbs0, 0, 64}, c.acts = (tl_vec){acts0, 0, 256}, c.edges = (tl_vec){edges0, 0, 256};
  c.slots = (tl_vec){slots0, 0, 256}, c.order = (tl_vec){order0, 0, 64};
  c.i_bbs = bbs0, c.i_acts = acts0, c.i_edges = edges0, c.i_slots = slots0, c.i_order = order0;
  c.catches = (tl_vec){catches0, 0, 16}, c.handlers = (tl_vec){handlers0, 0, 16}, c.armbb = (tl_vec){armbb0, 0, 16};
  c.i_catches = catches0, c.i_handlers = handlers0, c.i_armbb = armbb0;
  pairset copies = {copies0, 0, 64, false, copies0};
  /* all scratch first: out of memory anywhere before rewrite() changes
   * nothing but the local ops' aux marks */
  /* the per-local arrays in one allocation: cname, then the 4-byte ones
   * (s.mem, s.pos, color, stamp, ctype, next, the interference and copy
   * graphs' starts, label_bb), then the flags (skip, used) */
  size_t n1 = (size_t)n + 1, nl1 = (size_t)f->nlabel + 1;
  size_t need = n1 * (sizeof(char *) + 5 * sizeof(uint32_t) + sizeof(tl_type) + 2) + (2 * (n1 + 1) + nl1) * sizeof(uint32_t);
  uint64_t buf[LOCALS_STACK];     /* the per-local block when small */
  uint32_t csrbuf[CSR_STACK];     /* the CSR block when small */
  const char **cname = need <= sizeof buf ? memset(buf, 0, need) : tl_scratch_calloc(need, 1);
  uint32_t *u32 = cname ? (uint32_t *)(cname + n1) : NULL;
  sset s = {u32, u32 ? u32 + n1 : NULL, 0};
  uint32_t *color = u32 ? u32 + 2 * n1 : NULL, *stamp = u32 ? u32 + 3 * n1 : NULL;
  tl_type *ctype = u32 ? (tl_type *)(u32 + 4 * n1) : NULL;
  uint32_t *next = u32 ? u32 + 5 * n1 : NULL; /* per color: the next one of its type (by_type order) */
  uint32_t *igstart = u32 ? u32 + 6 * n1 : NULL, *cgstart = u32 ? igstart + n1 + 1 : NULL;
  c.label_bb = u32 ? cgstart + n1 + 1 : NULL;
  c.skip = u32 ? (bool *)(c.label_bb + nl1) : NULL;
  bool *used = c.skip ? c.skip + n1 : NULL;
  adj ig = {0}, cg = {0};
  tgroup *grp = tl_scratch_calloc((size_t)n + TL_NBASIC + 1, sizeof *grp); /* per type: its colors */
  uint32_t ngrp = TL_NBASIC;
  if (!cname || !grp) {
    c.nomem = true;
    goto out;
  }
  for (uint32_t i = 0; i < n; i++) c.skip[i] = tl_type_is_tuple(f->local[i]);
  build(&c);
  if (n == np) { /* no vars to merge or drop: without sets nothing can change */
    bool sets = false;
    for (size_t i = 0; i < c.slots.n && !sets; i++) sets = (*TL_VEC_AT(&c.slots, tl_expr **, i))->op != TL_OP_LOCAL_GET;
    if (!sets) goto out;
  }
  edges_csr(&c, csrbuf, CSR_STACK);
  if (c.nomem) goto out;
  /* interference: walk each block backwards from its live_out */
  if (dense_fits(n, c.bbs.n) && basic_typed(f)) dense_interfere(&c, n, np, used, &copies, &ig, igstart);
  else sparse_interfere(&c, &s, n, np, used, &copies, &ig, igstart, stamp);
  if (c.nomem || copies.nomem || !adj_build(&cg, &copies, n, cgstart, stamp)) {
    c.nomem = true;
    goto out;
  }
  /* greedy coloring in index order; params are their own colors */
  uint32_t ncolor = 0;
  for (uint32_t i = 0; i < n; i++) color[i] = NONE, stamp[i] = NONE;
  for (int t = 0; t < TL_NBASIC; t++) grp[t] = (tgroup){(tl_type)t, NONE, NONE};
  /* The reader's scratch locals (from scratch_base on; the writer elides a
   * set/get pair of one when the value can stay on the stack) keep a local
   * each, after the others: merged, they would become real sets and gets. */
  bool has_sb = f->has_scratch_base && f->scratch_base >= np && f->scratch_base <= n;
  uint32_t sb = has_sb ? f->scratch_base : n, new_sb = NONE;
  for (uint32_t i = 0; i < n; i++) {
    tl_type t = f->local[i];
    if (i >= np && !used[i] && !c.skip[i]) continue;
    tgroup *g = group_of(grp, &ngrp, t);
    if (i >= sb && new_sb == NONE) new_sb = ncolor;
    uint32_t pick = NONE;
    if (i >= np && !c.skip[i] && i < sb) {
      for (uint32_t k = ig.start[i]; k < ig.start[i + 1]; k++)
        if (color[ig.list[k]] != NONE) stamp[color[ig.list[k]]] = i;
      for (uint32_t k = cg.start[i]; k < cg.start[i + 1] && pick == NONE; k++) {
        uint32_t col = color[cg.list[k]];
        if (col != NONE && stamp[col] != i && ctype[col] == t) pick = col;
      }
      for (uint32_t col = g->head; col != NONE && pick == NONE; col = next[col])
        if (stamp[col] != i) pick = col;
    }
    if (pick == NONE) {
      pick = ncolor++;
      ctype[pick] = t;
      cname[pick] = f->local_name ? f->local_name[i] : NULL;
      if (!c.skip[i]) {
        next[pick] = NONE;
        if (g->tail == NONE) g->head = pick;
        else next[g->tail] = pick;
        g->tail = pick;
      }
    }
    color[i] = pick;
  }
  bool retype = rewrite(&c, color);
  for (uint32_t i = 0; i < ncolor; i++) {
    f->local[i] = ctype[i];
    if (f->local_name) f->local_name[i] = cname[i];
  }
  f->nlocal = ncolor;
  f->locals_unmapped = true; /* merged: DWARF's local indices cannot follow */
  if (has_sb) f->scratch_base = new_sb == NONE ? ncolor : new_sb;
  /* removed sets mostly keep their types (a set and the drop or nop for it
   * are none, or unreachable with the value; a tee and its value share
   * it); when one did not, its parents may change too */
  if (retype) tl_func_refinalize(m, f);
out:
  for (size_t bi = 0; bi < c.bbs.n; bi++) /* the sparse mode's (NULL in the dense one) */
    if (TL_VEC_AT(&c.bbs, bb, bi).live_in) tl_free(TL_VEC_AT(&c.bbs, bb, bi).live_in);
  tl_vec_free_inl(&c.bbs, bbs0), tl_vec_free_inl(&c.acts, acts0), tl_vec_free_inl(&c.edges, edges0);
  tl_vec_free_inl(&c.slots, slots0), tl_vec_free_inl(&c.order, order0);
  tl_vec_free_inl(&c.catches, catches0), tl_vec_free_inl(&c.handlers, handlers0), tl_vec_free_inl(&c.armbb, armbb0);
  if (copies.k != copies0) tl_free(copies.k);
  if (c.pstart != csrbuf) tl_free(c.pstart); /* with sstart, pred, succ, work and queued */
  tl_free(ig.list), tl_free(cg.list), tl_free(grp);
  if ((void *)cname != buf) tl_free((void *)cname);
  return c.nomem ? tl_nomem(ctx->err, "coalesce-locals") : TL_OK;
}
