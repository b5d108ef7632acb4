/* expr.c — node memory, node constructors and deep copy.
 * Node memory: nodes, kid arrays and out-of-line immediates (br_table's
 * tl_brtable, v128 bytes: see imm_alloc). A function's body
 * is built in a scratch arena of the thread building it (tl_nodes_begin:
 * the reader, and the pass runner around each function's pass stack), then
 * moved into an exact-size malloc'd block of its own (tl_nodes_end), which
 * frees the blocks the last tl_nodes_sweep found only this body using.
 * Nodes built elsewhere (module passes, initializers) go to m->nodes; a
 * sweep (between pass runs) frees the blocks and m->nodes chunks that no
 * body or initializer uses. So the garbage passes leave lasts one function
 * (or one module pass), not the module's life. Builders finalize the node
 * they make, so callers always hold correctly typed nodes. */
#include "ir.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The function this thread builds nodes for (tl_nodes_begin), if any. */
static _Thread_local struct {
  tl_module *m;
  uint32_t func;
  tl_arena scratch;
} cur;

static __attribute__((noinline)) void *node_alloc_slow(tl_module *m, size_t n, size_t align) {
  if (cur.m == m) return tl_arena_alloc(&cur.scratch, n, align);
  pthread_mutex_t *lock = m->arena.lock;
  if (lock) pthread_mutex_lock(lock);
  void *p = tl_arena_try_alloc(&m->nodes, n, align);
  if (lock) pthread_mutex_unlock(lock);
  if (!p) {
    if (m->arena.oom) longjmp(*m->arena.oom, 1);
    tl_oom_fail();
  }
  return p;
}

/* Inlined into the builders below, so that a node's size is a constant
 * there: the common case (this thread's scratch has room) is a bump and a
 * few stores. */
static inline __attribute__((always_inline)) void *node_alloc(tl_module *m, size_t n, size_t align) {
  void *p;
  uintptr_t a = ((uintptr_t)cur.scratch.p + (align - 1)) & ~(uintptr_t)(align - 1);
  if (cur.m == m && cur.scratch.p && n && a <= (uintptr_t)cur.scratch.end &&
      n <= (uintptr_t)cur.scratch.end - a) {
    cur.scratch.p = (uint8_t *)(a + n);
    p = (void *)a;
  } else {
    p = node_alloc_slow(m, n, align);
  }
  memset(p, 0, n);
  return p;
}

void *tl_node_alloc(tl_module *m, size_t n, size_t align) { return node_alloc(m, n, align); }

#define NODE_NEWN(m, T, n) ((T *)node_alloc((m), sizeof(T) * (size_t)(n), _Alignof(T)))

uint8_t *tl_expr_v128(tl_module *m, tl_expr *e, const uint8_t *v) {
  e->imm.v128 = tl_node_alloc(m, 16, 8);
  if (v) memcpy(e->imm.v128, v, 16);
  return e->imm.v128;
}

tl_brtable *tl_brtable_new(tl_module *m, uint32_t n) {
  tl_brtable *t = tl_node_alloc(m, tl_brtable_size(n), _Alignof(tl_brtable));
  t->n = n;
  return t;
}

/* The out-of-line immediate of e, if any: its address and size. Called on
 * every node a sweep or move visits, so it tests the three opcodes whose
 * immediate kinds (BR_TABLE, V128, SHUFFLE) have one opcode each rather
 * than load the opcode's row. */
_Static_assert(TL_OP_I8X16_SHUFFLE == TL_OP_V128_CONST + 1, "v128.const, i8x16.shuffle adjacent");
static const void *imm_alloc(const tl_expr *e, size_t *n) {
  if (e->op == TL_OP_BR_TABLE && e->imm.table) {
    *n = tl_brtable_size(e->imm.table->n);
    return e->imm.table;
  }
  if ((unsigned)(e->op - TL_OP_V128_CONST) <= 1 && e->imm.v128) { /* v128.const, i8x16.shuffle */
    *n = 16;
    return e->imm.v128;
  }
  return NULL;
}

tl_expr *tl_expr_new(tl_module *m, tl_op op, uint32_t nkid) {
  tl_expr *e = NODE_NEWN(m, tl_expr, 1);
  e->op = (uint16_t)op;
  e->type = TL_NONE;
  e->nkid = nkid;
  e->kid = nkid ? NODE_NEWN(m, tl_expr *, nkid) : NULL;
  if (tl_ops[op].imm == TL_IMM_V128 || tl_ops[op].imm == TL_IMM_SHUFFLE) tl_expr_v128(m, e, NULL);
  if (tl_ops[op].flags & TL_F_CONTROL) {
    e->imm.block.label = TL_NO_LABEL;
    e->imm.block.bt = TL_NO_INDEX;
  }
  return e;
}

void tl_expr_push_kid(tl_module *m, tl_expr *e, tl_expr *kid) {
  if (e->nkid == tl_expr_kid_cap(e)) { /* full: double (at least 4) */
    uint32_t log2 = e->kcap ? e->kcap + 1u : 2u;
    while ((1u << log2) <= e->nkid) log2++;
    if (log2 > 31) tl_arena_oom(&m->arena);
    tl_expr **k = NODE_NEWN(m, tl_expr *, 1u << log2);
    if (e->nkid) memcpy(k, e->kid, e->nkid * sizeof *k);
    e->kid = k;
    e->kcap = log2 & 63u; /* log2 <= 31 */
  }
  e->kid[e->nkid++] = kid;
}

tl_expr *tl_make_const_i32(tl_module *m, int32_t v) {
  tl_expr *e = tl_expr_new(m, TL_OP_I32_CONST, 0);
  e->imm.i32 = v;
  e->type = TL_I32;
  return e;
}

tl_expr *tl_make_const_i64(tl_module *m, int64_t v) {
  tl_expr *e = tl_expr_new(m, TL_OP_I64_CONST, 0);
  e->imm.i64 = v;
  e->type = TL_I64;
  return e;
}

tl_expr *tl_make_unary(tl_module *m, tl_op op, tl_expr *a) {
  tl_expr *e = tl_expr_new(m, op, 1);
  e->kid[0] = a;
  tl_expr_finalize(m, NULL, e);
  return e;
}

tl_expr *tl_make_binary(tl_module *m, tl_op op, tl_expr *a, tl_expr *b) {
  tl_expr *e = tl_expr_new(m, op, 2);
  e->kid[0] = a;
  e->kid[1] = b;
  tl_expr_finalize(m, NULL, e);
  return e;
}

bool tl_const_imm_eq(int op, tl_imm a, tl_imm b) {
  switch (op) {
  case TL_OP_I32_CONST: return a.i32 == b.i32;
  case TL_OP_I64_CONST: return a.i64 == b.i64;
  case TL_OP_F32_CONST: return a.f32 == b.f32;
  case TL_OP_F64_CONST: return a.f64 == b.f64;
  case TL_OP_V128_CONST: return !memcmp(a.v128, b.v128, 16);
  case TL_OP_REF_NULL: return a.index == b.index;
  default: return false;
  }
}

tl_expr *tl_make_select(tl_module *m, tl_func *f, tl_expr *a, tl_expr *b, tl_expr *cond, tl_type t) {
  if (t == TL_NONE) t = tl_type_lub(m, a->type, b->type);
  tl_expr *s = tl_expr_new(m, tl_type_is_ref(t) ? TL_OP_SELECT_T : TL_OP_SELECT, 3);
  s->kid[0] = a, s->kid[1] = b, s->kid[2] = cond;
  if (s->op == TL_OP_SELECT_T) s->imm.index = t;
  tl_expr_finalize(m, f, s);
  return s;
}

tl_expr *tl_make_nop(tl_module *m) { return tl_expr_new(m, TL_OP_NOP, 0); }

tl_expr *tl_make_unreachable(tl_module *m) {
  tl_expr *e = tl_expr_new(m, TL_OP_UNREACHABLE, 0);
  e->type = TL_UNREACHABLE;
  return e;
}

tl_expr *tl_make_local_get(tl_module *m, tl_func *f, uint32_t idx) {
  tl_expr *e = tl_expr_new(m, TL_OP_LOCAL_GET, 0);
  e->imm.index = idx;
  e->type = f->local[idx];
  return e;
}

tl_expr *tl_make_local_set(tl_module *m, tl_func *f, uint32_t idx, tl_expr *v, bool tee) {
  tl_expr *e = tl_expr_new(m, tee ? TL_OP_LOCAL_TEE : TL_OP_LOCAL_SET, 1);
  e->imm.index = idx;
  e->kid[0] = v;
  tl_expr_finalize(m, f, e);
  return e;
}

tl_expr *tl_make_drop(tl_module *m, tl_expr *v) { return tl_make_unary(m, TL_OP_DROP, v); }

tl_expr *tl_make_block(tl_module *m, tl_op op, uint32_t label, tl_expr **kids, uint32_t n) {
  tl_expr *e = tl_expr_new(m, op, n);
  e->imm.block.label = label;
  if (n) memcpy(e->kid, kids, n * sizeof *kids);
  tl_expr_finalize(m, NULL, e);
  return e;
}

/* ---- deep copy ---------------------------------------------------------- */
typedef struct {
  tl_module *m;
  tl_func *f;
  uint32_t *map;   /* old label -> new label, for labels defined in the copy */
  uint32_t nmap;   /* labels that existed when the copy started */
  const tl_func *from; /* whose debug locations the source nodes have (or NULL) */
  tl_func *to;     /* which gets them for the copies (or NULL) */
} copy_ctx;

static uint32_t map_label(copy_ctx *c, uint32_t l) {
  return l < c->nmap && c->map[l] != TL_NO_LABEL ? c->map[l] : l;
}

static tl_expr *copy_node(copy_ctx *c, const tl_expr *e) {
  tl_expr *n = NODE_NEWN(c->m, tl_expr, 1);
  *n = *e;
  n->kcap = 0;
  n->kid = e->nkid ? NODE_NEWN(c->m, tl_expr *, e->nkid) : NULL;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL && c->f) {
    uint32_t fresh = tl_func_new_label(c->m, c->f);
    if (e->imm.block.label < c->nmap) c->map[e->imm.block.label] = fresh;
    n->imm.block.label = fresh;
  } else if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || tl_ops[e->op].imm == TL_IMM_CLAUSE ||
             tl_op_is_br_on(e->op) || (tl_ops[e->op].flags & TL_F_LABEL_USE)) {
    n->imm.label = map_label(c, e->imm.label);
  } else if (e->op == TL_OP_BR_TABLE && e->imm.table) {
    n->imm.table = tl_brtable_new(c->m, e->imm.table->n);
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      n->imm.table->targets[i] = map_label(c, e->imm.table->targets[i]);
    n->imm.table->def = map_label(c, e->imm.table->def);
  } else {
    size_t in;
    const void *ip = imm_alloc(e, &in);
    if (ip) tl_expr_v128(c->m, n, ip); /* v128 bytes */
  }
  const tl_debugloc *l = c->to ? tl_loc_get(c->from, e) : NULL;
  if (l) tl_loc_set(c->to, n, *l);
  return n;
}

/* Pre-order with an explicit stack: a node is copied before its children,
 * so label definitions are mapped before the branches inside them. */
typedef struct { const tl_expr *src; tl_expr **dst; } copy_item;

tl_expr *tl_expr_copy(tl_module *m, tl_func *f, const tl_expr *e) {
  return tl_expr_copy_from(m, f, f, f, e);
}

tl_expr *tl_expr_copy_from(tl_module *m, tl_func *f, const tl_func *from, tl_func *to,
                           const tl_expr *e) {
  if (!e) return NULL;
  copy_ctx c = {m, f, NULL, f ? f->nlabel : 0, from, from && from->locs ? to : NULL};
  c.map = tl_malloc((c.nmap + 1) * sizeof *c.map);
  if (!c.map) tl_arena_oom(&m->arena); /* the entry point's longjmp (aborts if none) */
  for (uint32_t i = 0; i < c.nmap; i++) c.map[i] = TL_NO_LABEL;
  tl_vec todo = {0};
  tl_expr *root = NULL;
  copy_item first = {e, &root};
  TL_VEC_PUSH(&todo, copy_item, first);
  while (todo.n) {
    copy_item it = TL_VEC_AT(&todo, copy_item, --todo.n);
    tl_expr *n = copy_node(&c, it.src);
    *it.dst = n;
    for (uint32_t i = it.src->nkid; i-- > 0;) {
      copy_item k = {it.src->kid[i], &n->kid[i]};
      if (k.src) TL_VEC_PUSH(&todo, copy_item, k);
      else n->kid[i] = NULL;
    }
  }
  tl_vec_free(&todo);
  tl_free(c.map);
  return root;
}


/* ---- where bodies live ---------------------------------------------------- */
/* A span of node memory: a body block or an m->nodes chunk, with the one
 * function whose body uses it (or SHARED: several, or an initializer). */
enum { OWNER_NONE = UINT32_MAX, OWNER_SHARED = UINT32_MAX - 1 };
typedef struct {
  uintptr_t lo, hi;
  uint32_t owner;
  bool block;              /* a body block (else an m->nodes chunk) */
  size_t slot;             /* block: its index in m->blocks; chunk: in the list */
} span;

struct tl_node_index {
  span *s;                 /* sorted by lo */
  size_t n;
};

static span *find_span(const struct tl_node_index *x, const void *p) {
  uintptr_t a = (uintptr_t)p;
  size_t lo = 0, hi = x->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a < x->s[mid].lo) hi = mid;
    else if (a >= x->s[mid].hi) lo = mid + 1;
    else return &x->s[mid];
  }
  return NULL;
}

/* The span holding address a: *last when a lies in it (a body's nodes and
 * kid arrays mostly lie in one block, one after the other), else a binary
 * search, whose find becomes *last. */
static inline span *span_at(const struct tl_node_index *x, span **last, uintptr_t a) {
  span *s = *last;
  if (s && a >= s->lo && a < s->hi) return s;
  s = find_span(x, (const void *)a);
  if (s) *last = s;
  return s;
}

/* Calls visit on every allocation of the tree at root: nodes, kid arrays,
 * out-of-line immediates (explicit stack). Inlined, so that each caller's
 * visit is inlined into its loop. */
typedef void (*alloc_fn)(void *ctx, const void *p, size_t n, bool node);

static inline __attribute__((always_inline)) void each_alloc(tl_vec *todo, const tl_expr *root,
                                                             alloc_fn visit, void *ctx) {
  if (!root) return;
  TL_VEC_PUSH(todo, const tl_expr *, root);
  while (todo->n) {
    const tl_expr *e = TL_VEC_AT(todo, const tl_expr *, --todo->n);
    visit(ctx, e, sizeof *e, true);
    if (e->nkid) {
      visit(ctx, e->kid, e->nkid * sizeof *e->kid, false);
      if (todo->n + e->nkid > todo->cap) tl_vec_grow(todo, sizeof(const tl_expr *), todo->n + e->nkid);
      const tl_expr **st = todo->p;
      size_t n = todo->n;
      for (uint32_t i = e->nkid; i-- > 0;)
        if (e->kid[i]) st[n++] = e->kid[i];
      todo->n = n;
    }
    size_t in;
    const void *ip = imm_alloc(e, &in);
    if (ip) visit(ctx, ip, in, false);
  }
}

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

/* ---- body blocks ---------------------------------------------------------- */
/* Each block is an allocation of its own, so that a freed block's memory is
 * reused for the next ones (cut in order from bigger chunks, the space of
 * a freed block would stay resident until every block beside it went).
 * Small blocks come from malloc; big ones (the size glibc maps) from the
 * module's chunk cache, where a pass stack's old blocks wait for the next
 * functions' new ones instead of being unmapped and mapped afresh. */
typedef struct {           /* precedes each block's nodes */
  size_t size;             /* bytes after the header */
  max_align_t align[];
} bhdr;

enum { BIG_BLOCK = 128 * 1024 };

static bool is_big(size_t bytes) { return sizeof(bhdr) + round8(bytes) >= BIG_BLOCK; }

/* A block is written whole as soon as it is made: a malloc'd one of a few
 * pages or more has its fresh pages put in place in one call (big ones are
 * mapped so). */
enum { PREFAULT_MIN = 16 * 1024 };

static bhdr *block_alloc(tl_module *m, size_t bytes) {
  size_t n = sizeof(bhdr) + round8(bytes);
  bool big = is_big(bytes);
  bhdr *b = big ? tl_chunk_alloc(m->chunks, n) : tl_mod_malloc(n);
  if (!b) return NULL;
  if (!big && n >= PREFAULT_MIN) tl_prefault(b, n);
  b->size = bytes;
  return b;
}

/* keep: into the cache for the next block (else back to the system). */
static void block_free(tl_module *m, bhdr *b, bool keep) {
  if (!b) return;
  if (is_big(b->size)) tl_chunk_free(keep ? m->chunks : NULL, b);
  else tl_free(b);
}

/* ---- moving a body into its own block ------------------------------------- */
typedef struct {
  struct tl_node_index *x;
  uint32_t func;
  size_t bytes;            /* the block's size but its nodes: kid arrays and
                              immediates, 8-aligned each */
  size_t nodes;            /* its nodes (after the rest, 4-aligned) */
  tl_vec mine;             /* size_t: index spans only func used, to free */
  span *last;              /* the span found last (span_at) */
} measure_ctx;

static inline void measure(void *ctx, const void *p, size_t n, bool node) {
  measure_ctx *c = ctx;
  if (node) c->nodes++;
  else c->bytes += round8(n);
  if (!c->x) return;
  span *prev = c->last, *s = span_at(c->x, &c->last, (uintptr_t)p);
  if (!s || s == prev || !s->block || s->owner != c->func) return; /* prev: seen */
  s->owner = OWNER_NONE; /* counted once; only this thread looks at it */
  TL_VEC_PUSH(&c->mine, size_t, (size_t)(s - c->x->s));
}

typedef struct { const tl_expr *src; tl_expr **dst; } move_item;

static void *bump(uint8_t **p, size_t n) {
  void *r = *p;
  *p += round8(n);
  return r;
}

/* Copies the tree into block (exactly measured), keeping everything but
 * the memory: kid arrays and immediates from block on, the nodes (which
 * need only 4-byte alignment) from `node` on. */
static tl_expr *move_tree(tl_vec *todo, uint8_t *block, tl_expr *node, const tl_expr *root,
                          tl_func *f) {
  tl_locmap *locs;
  tl_loc_move_begin(&locs, f);
  tl_expr *out = NULL;
  move_item first = {root, &out};
  TL_VEC_PUSH(todo, move_item, first);
  while (todo->n) {
    move_item it = TL_VEC_AT(todo, move_item, --todo->n);
    const tl_expr *e = it.src;
    tl_expr *n = node++;
    *n = *e;
    n->kcap = 0;
    n->kid = e->nkid ? bump(&block, e->nkid * sizeof *n->kid) : NULL;
    size_t in;
    const void *ip = imm_alloc(e, &in);
    if (ip) {
      void *q = bump(&block, in);
      memcpy(q, ip, in);
      if (e->op == TL_OP_BR_TABLE) n->imm.table = q;
      else n->imm.v128 = q;
    }
    *it.dst = n;
    if (locs) tl_loc_moved(locs, f, e, n);
    if (!e->nkid) continue;
    if (todo->n + e->nkid > todo->cap) tl_vec_grow(todo, sizeof(move_item), todo->n + e->nkid);
    move_item *st = todo->p;
    size_t k = todo->n;
    for (uint32_t i = e->nkid; i-- > 0;) {
      n->kid[i] = NULL;
      if (e->kid[i]) st[k++] = (move_item){e->kid[i], &n->kid[i]};
    }
    todo->n = k;
  }
  tl_loc_move_end(locs, f);
  return out;
}

void tl_nodes_begin(tl_module *m, uint32_t func) {
  tl_arena_init(&cur.scratch);
  cur.scratch.cache = m->chunks; /* the last function's scratch, reused */
  cur.scratch.oom = m->arena.oom;
  cur.m = m;
  cur.func = func;
}

/* A worker thread's own out-of-memory jump for the nodes it builds (after
 * tl_nodes_begin, which takes m->arena.oom): the reader's parallel decode. */
void tl_nodes_set_oom(jmp_buf *oom) { cur.scratch.oom = oom; }

bool tl_nodes_active(void) { return cur.m != NULL; }

void tl_nodes_abandon(void) {
  cur.m = NULL;
  tl_arena_free(&cur.scratch); /* nothing after tl_nodes_end */
}

/* b into m->blocks (before it is filled: the module frees it whatever
 * happens next); false when out of memory. */
static bool push_block(tl_module *m, pthread_mutex_t *lock, bhdr *b) {
  if (lock) pthread_mutex_lock(lock);
  bool ok = tl_vec_try_grow(&m->blocks, sizeof(void *), m->blocks.n + 1);
  if (ok) TL_VEC_AT(&m->blocks, bhdr *, m->blocks.n++) = b;
  if (lock) pthread_mutex_unlock(lock);
  return ok;
}

/* func TL_NO_INDEX: only drop the scratch (the reader, out of memory). */
void tl_nodes_end(tl_module *m, uint32_t func) {
  if (cur.m != m) return;
  bool built = cur.scratch.total != 0;
  cur.m = NULL;
  tl_func *f = func == TL_NO_INDEX ? NULL : TL_FUNC(m, func);
  if (built && f && f->body) {
    measure_ctx c = {m->node_index, func, 0, 0, {0}, NULL};
    tl_vec todo = {0};
    each_alloc(&todo, f->body, measure, &c);
    tl_vec_free(&todo); /* move_tree stacks items of another size */
    pthread_mutex_t *lock = m->arena.lock;
    bhdr *block = block_alloc(m, c.bytes + c.nodes * sizeof(tl_expr));
    if (!block || !push_block(m, lock, block)) {
      block_free(m, block, false);
      tl_vec_free(&todo);
      tl_vec_free(&c.mine);
      jmp_buf *oom = cur.scratch.oom; /* m->arena.oom, or tl_nodes_set_oom's */
      tl_arena_free(&cur.scratch);
      if (oom) longjmp(*oom, 1);
      tl_oom_fail();
    }
    uint8_t *start = (uint8_t *)(block + 1);
    f->body = move_tree(&todo, start, (tl_expr *)(start + c.bytes), f->body, f);
    tl_vec_free(&todo);
    if (lock) pthread_mutex_lock(lock);
    for (size_t i = 0; i < c.mine.n; i++) {
      span *s = &m->node_index->s[TL_VEC_AT(&c.mine, size_t, i)];
      block_free(m, TL_VEC_AT(&m->blocks, bhdr *, s->slot), true);
      TL_VEC_AT(&m->blocks, void *, s->slot) = NULL;
    }
    if (lock) pthread_mutex_unlock(lock);
    tl_vec_free(&c.mine);
  }
  tl_arena_free(&cur.scratch);
}

/* ---- sweeping --------------------------------------------------------- */
typedef struct {
  struct tl_node_index *x;
  uint32_t owner;
  span *last;              /* the span found last (span_at) */
} mark_ctx;

/* Bodies are marked in parallel (tl_nodes_sweep_mark): a span's owner goes
 * from NONE to the first body that marks it, and to SHARED when a second
 * one does, whatever the order. */
static inline void mark(void *ctx, const void *p, size_t n, bool node) {
  (void)n, (void)node;
  mark_ctx *c = ctx;
  span *prev = c->last, *s = span_at(c->x, &c->last, (uintptr_t)p);
  if (!s || s == prev) return; /* m->arena (a pass allocated it there): lives on; prev: marked */
  uint32_t was = OWNER_NONE;
  if (!__atomic_compare_exchange_n(&s->owner, &was, c->owner, false, __ATOMIC_RELAXED,
                                   __ATOMIC_RELAXED) &&
      was != c->owner && was != OWNER_SHARED)
    __atomic_store_n(&s->owner, OWNER_SHARED, __ATOMIC_RELAXED);
}

/* The chunk cache's chunks go back to the system between pass runs. Freed
 * small blocks stay holes in malloc's heap, which the next run's blocks
 * fill: trimming the heap here (malloc_trim, a walk of the whole process's
 * heap and an madvise per free range, each a TLB shootdown across the pass
 * threads) cost more system time than the pages it returned saved, and is
 * the embedder's call (tilt-opt makes it once, before the output). */
static void give_back(tl_module *m) { tl_chunk_cache_trim(m->chunks); }

static int by_lo(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void free_node_index(struct tl_node_index *x) {
  if (!x) return;
  tl_free(x->s);
  tl_free(x);
}

static void free_index(tl_module *m) {
  free_node_index(m->node_index);
  m->node_index = NULL;
}

/* The sweep in three steps, so that bodies can be marked in parallel:
 * begin indexes the live blocks and m->nodes chunks (false: no sweep now),
 * mark records which spans func's body uses (any thread, each function
 * once), end marks the initializers, frees what nothing uses and keeps
 * the index. */
bool tl_nodes_sweep_begin(tl_module *m) {
  if (m->arena.lock) return false; /* other threads are at work */
  free_index(m);
  if (m->capi) return false;
  size_t nb = 0;
  for (size_t i = 0; i < m->blocks.n; i++)
    if (TL_VEC_AT(&m->blocks, void *, i)) TL_VEC_AT(&m->blocks, void *, nb++) = TL_VEC_AT(&m->blocks, void *, i);
  m->blocks.n = nb;
  size_t nc = tl_arena_chunks(&m->nodes, NULL, NULL, 0);
  const void **clo = tl_malloc((nc + 1) * sizeof *clo);
  size_t *csz = tl_malloc((nc + 1) * sizeof *csz);
  struct tl_node_index *x = tl_mod_malloc(sizeof *x);
  span *sp = tl_mod_malloc((nb + nc + 1) * sizeof *sp);
  if (!clo || !csz || !x || !sp) { /* out of memory: sweep another time */
    tl_free(clo);
    tl_free(csz);
    tl_free(x);
    tl_free(sp);
    return false;
  }
  tl_arena_chunks(&m->nodes, clo, csz, nc);
  size_t n = 0;
  for (size_t i = 0; i < nb; i++) {
    const bhdr *b = TL_VEC_AT(&m->blocks, bhdr *, i);
    sp[n++] = (span){(uintptr_t)(b + 1), (uintptr_t)(b + 1) + b->size, OWNER_NONE, true, i};
  }
  for (size_t i = 0; i < nc; i++)
    sp[n++] = (span){(uintptr_t)clo[i], (uintptr_t)clo[i] + csz[i], OWNER_NONE, false, i};
  tl_free(clo);
  tl_free(csz);
  qsort(sp, n, sizeof *sp, by_lo);
  x->s = sp;
  x->n = n;
  m->sweeping = x;
  return true;
}

void tl_nodes_sweep_mark(tl_module *m, uint32_t func) {
  tl_vec todo = {0};
  mark_ctx c = {m->sweeping, func, NULL};
  each_alloc(&todo, TL_FUNC(m, func)->body, mark, &c);
  tl_vec_free(&todo);
}

void tl_nodes_sweep_end(tl_module *m) {
  struct tl_node_index *x = m->sweeping; /* stays there until kept (out of memory) */
  tl_vec todo = {0};
  mark_ctx mc = {x, OWNER_SHARED, NULL};
  for (size_t i = 0; i < m->globals.n; i++) each_alloc(&todo, TL_GLOBAL(m, i)->init, mark, &mc);
  for (size_t i = 0; i < m->tables.n; i++) each_alloc(&todo, TL_TABLE(m, i)->init, mark, &mc);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    each_alloc(&todo, el->offset, mark, &mc);
    for (uint32_t j = 0; j < el->n; j++) each_alloc(&todo, el->item[j], mark, &mc);
  }
  for (size_t i = 0; i < m->datas.n; i++) each_alloc(&todo, TL_DATA(m, i)->offset, mark, &mc);
  tl_vec_free(&todo);
  /* free what nothing uses; keep the index of the rest */
  size_t nc = tl_arena_chunks(&m->nodes, NULL, NULL, 0);
  uint8_t *drop = tl_calloc(nc + 1, 1);
  span *sp = x->s;
  size_t kept = 0;
  for (size_t i = 0; i < x->n; i++) {
    if (sp[i].owner != OWNER_NONE) {
      sp[kept++] = sp[i];
    } else if (sp[i].block) {
      block_free(m, TL_VEC_AT(&m->blocks, bhdr *, sp[i].slot), false);
      TL_VEC_AT(&m->blocks, void *, sp[i].slot) = NULL;
    } else if (drop) {
      drop[sp[i].slot] = 1;
    } else {
      sp[kept++] = sp[i]; /* out of memory: the chunk stays, as if used */
    }
  }
  if (drop) tl_arena_drop_chunks(&m->nodes, drop);
  /* dropped chunks shift the slots of the rest; only blocks use slots */
  x->n = kept;
  tl_free(drop);
  m->node_index = x;
  m->sweeping = NULL;
  give_back(m);
}

void tl_nodes_sweep(tl_module *m) {
  if (!tl_nodes_sweep_begin(m)) return;
  for (uint32_t i = 0; i < m->funcs.n; i++) tl_nodes_sweep_mark(m, i);
  tl_nodes_sweep_end(m);
}

void tl_nodes_destroy(tl_module *m) {
  for (size_t i = 0; i < m->blocks.n; i++) block_free(m, TL_VEC_AT(&m->blocks, bhdr *, i), false);
  tl_vec_free(&m->blocks);
  free_index(m);
  free_node_index(m->sweeping); /* a sweep that ran out of memory */
  m->sweeping = NULL;
  tl_arena_free(&m->nodes);
}

/* ---- consuming writes ------------------------------------------------------ */
size_t tl_nodes_free_body(tl_module *m, uint32_t func) {
  tl_func *f = TL_FUNC(m, func);
  const tl_expr *root = f->body;
  f->body = NULL;
  span *s = root && m->node_index && !m->capi ? find_span(m->node_index, root) : NULL;
  if (!s || !s->block || s->owner != func) return 0;
  bhdr *b = TL_VEC_AT(&m->blocks, bhdr *, s->slot);
  size_t n = b->size;
  s->owner = OWNER_NONE;
  TL_VEC_AT(&m->blocks, void *, s->slot) = NULL;
  block_free(m, b, false); /* the writer builds no blocks */
  return n;
}

/* The zero of t: a constant 0, ref.null of a reference type, tuple.make of zeros. */
tl_expr *tl_make_zero(tl_module *m, tl_type t) {
  tl_expr *e;
  if (tl_type_is_tuple(t)) {
    uint32_t n = tl_type_arity(m, t);
    e = tl_expr_new(m, TL_OP_TUPLE_MAKE, n);
    for (uint32_t i = 0; i < n; i++) e->kid[i] = tl_make_zero(m, tl_type_at(m, t, i));
  } else if (tl_type_is_ref(t)) {
    e = tl_expr_new(m, TL_OP_REF_NULL, 0);
    memset(&e->imm, 0, sizeof e->imm);
    e->imm.index = tl_ref_with_null(t, true);
  } else {
    static const uint16_t op[TL_NBASIC] = {
      [TL_I32] = TL_OP_I32_CONST, [TL_I64] = TL_OP_I64_CONST, [TL_F32] = TL_OP_F32_CONST,
      [TL_F64] = TL_OP_F64_CONST, [TL_V128] = TL_OP_V128_CONST, [TL_FUNCREF] = TL_OP_REF_NULL,
      [TL_EXTERNREF] = TL_OP_REF_NULL, [TL_EXNREF] = TL_OP_REF_NULL};
    e = tl_expr_new(m, (tl_op)op[t], 0);
    if (t != TL_V128) memset(&e->imm, 0, sizeof e->imm); /* v128: zeroed bytes */
    if (tl_type_is_ref(t)) e->imm.index = t;
  }
  tl_expr_finalize(m, NULL, e);
  return e;
}
