/* heap2local.c — heap2local: an allocation (struct.new, struct.new_default;
 * array.new_fixed, array.new, array.new_default of a small constant size)
 * whose reference never leaves the function and is the only value wherever
 * it is used becomes one local per field: the allocation sets them, field
 * reads and writes use them, ref.eq/ref.test/ref.cast/ref.is_null on it get
 * their known answers. Assumes valid IR. Guarantees the same behaviour
 * (operands run in order, packed reads extend as the heap would). */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_ARRAY = 20, MAX_ROUNDS = 4, WORK_BUDGET = 1 << 22 };
enum { NOID = UINT32_MAX };
/* How a reached node treats the allocation (Binaryen's interactions). */
enum { I_NONE, I_FLOWS, I_CONSUMES, I_ESCAPES, I_EQ_TRUE, I_EQ_FALSE };

typedef struct { uint32_t child, parent; } pair;

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_vec nodes;       /* tl_expr *: by id, pre-order */
  uint32_t *parent;   /* by id: the parent's id, NOID at the root */
  uint32_t *hash, hcap; /* open addressing: id + 1 by node pointer */
  uint32_t *next;     /* by id: next get (or write) of the same local */
  uint32_t *gets, *writes; /* by local: first get / write id */
  uint8_t *foreign;   /* by local: a catch arm writes it */
  uint8_t *uncovered; /* by local: a read may see the entry value */
  uint32_t *def, *nbr; /* by label: defining node id, branches to it */
  uint32_t *seen, *sent, *ins; /* by id: stamps (pair queued, branch queued, in S) */
  uint32_t *queued;   /* by id: stamp, queued as a kid flowing to its parent */
  uint8_t *inter;     /* by id: interaction in the current analysis */
  uint8_t *cinter;    /* by id: interaction with its owner */
  uint32_t *owner;    /* by id: the claimed allocation (index into allocs) */
  tl_vec allocs;      /* uint32_t ids */
  tl_vec fields;      /* uint32_t: first field local per claimed allocation */
  tl_vec claimed;     /* uint32_t: the claimed allocations' ids */
  tl_vec queue, reached, sets; /* pair; uint32_t; uint32_t */
  uint32_t stamp, budget;
} h2l;

/* ---- the node table ----------------------------------------------------- */
static uint32_t hslot(const h2l *h, const tl_expr *e) {
  uintptr_t k = (uintptr_t)e;
  return (uint32_t)((k >> 2) * 2654435761u) & (h->hcap - 1);
}

static uint32_t id_of(const h2l *h, const tl_expr *e) {
  for (uint32_t i = hslot(h, e);; i = (i + 1) & (h->hcap - 1)) {
    uint32_t v = h->hash[i];
    if (!v) return NOID;
    if (TL_VEC_AT(&h->nodes, tl_expr *, v - 1) == e) return v - 1;
  }
}

static void hash_put(h2l *h, const tl_expr *e, uint32_t id) {
  uint32_t i = hslot(h, e);
  while (h->hash[i]) i = (i + 1) & (h->hcap - 1);
  h->hash[i] = id + 1;
}

static tl_expr *node(const h2l *h, uint32_t id) { return TL_VEC_AT(&h->nodes, tl_expr *, id); }

static bool is_alloc(const h2l *h, const tl_expr *e) {
  if (e->type == TL_UNREACHABLE) return false;
  switch (e->op) {
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: return true;
  case TL_OP_ARRAY_NEW_FIXED: return e->imm.idx2.b <= MAX_ARRAY;
  case TL_OP_ARRAY_NEW: case TL_OP_ARRAY_NEW_DEFAULT: {
    const tl_expr *n = e->kid[e->nkid - 1];
    return n->op == TL_OP_I32_CONST && (uint32_t)n->imm.i32 <= MAX_ARRAY;
  }
  default: (void)h; return false;
  }
}

static void note_label_use(h2l *h, uint32_t label) {
  if (label < h->f->nlabel) h->nbr[label]++;
}

static void note_node(h2l *h, tl_expr *e, uint32_t id) {
  uint8_t k = tl_ops[e->op].imm;
  if ((k == TL_IMM_BLOCK || k == TL_IMM_TRY_TABLE) && e->imm.block.label < h->f->nlabel)
    h->def[e->imm.block.label] = id;
  if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++) note_label_use(h, e->imm.table->targets[i]);
    note_label_use(h, e->imm.table->def);
  } else if (tl_ops[e->op].flags & TL_F_BRANCH) {
    note_label_use(h, e->imm.label);
  }
  if (e->op == TL_OP_LOCAL_GET) h->next[id] = h->gets[e->imm.index], h->gets[e->imm.index] = id;
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE)
    h->next[id] = h->writes[e->imm.index], h->writes[e->imm.index] = id;
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX) h->foreign[e->imm.idx2.a] = 1;
  if (is_alloc(h, e)) TL_VEC_PUSH(&h->allocs, uint32_t, id);
}

static void *zalloc(size_t n, size_t size) {
  void *p = tl_scratch_calloc(n ? n : 1, size);
  if (!p) tl_oom_fail();
  return p;
}

/* Numbers every node (pre-order, explicit stack) and fills the tables. */
static void build(h2l *h) {
  tl_func *f = h->f;
  h->nodes.n = h->allocs.n = 0;
  TL_VEC_PUSH(&h->nodes, tl_expr *, f->body);
  for (uint32_t i = 0; i < h->nodes.n; i++) {
    tl_expr *e = node(h, i);
    for (uint32_t k = 0; k < e->nkid; k++)
      if (e->kid[k]) TL_VEC_PUSH(&h->nodes, tl_expr *, e->kid[k]);
  }
  uint32_t n = (uint32_t)h->nodes.n, nl = f->nlocal, nlab = f->nlabel;
  for (h->hcap = 16; h->hcap < 2 * n; h->hcap *= 2) {}
  h->hash = zalloc(h->hcap, sizeof *h->hash);
  h->parent = zalloc(n, sizeof(uint32_t));
  h->next = zalloc(n, sizeof(uint32_t));
  h->seen = zalloc(n, sizeof(uint32_t));
  h->sent = zalloc(n, sizeof(uint32_t));
  h->ins = zalloc(n, sizeof(uint32_t));
  h->owner = zalloc(n, sizeof(uint32_t));
  h->queued = zalloc(n, sizeof(uint32_t));
  h->inter = zalloc(n, 1);
  h->cinter = zalloc(n, 1);
  h->gets = zalloc(nl, sizeof(uint32_t));
  h->writes = zalloc(nl, sizeof(uint32_t));
  h->foreign = zalloc(nl, 1);
  h->uncovered = zalloc(nl, 1);
  h->def = zalloc(nlab, sizeof(uint32_t));
  h->nbr = zalloc(nlab, sizeof(uint32_t));
  memset(h->gets, 0xff, nl * sizeof(uint32_t));
  memset(h->writes, 0xff, nl * sizeof(uint32_t));
  memset(h->def, 0xff, nlab * sizeof(uint32_t));
  memset(h->owner, 0xff, n * sizeof(uint32_t));
  h->parent[0] = NOID;
  for (uint32_t i = 0, next = 1; i < n; i++) {
    tl_expr *e = node(h, i);
    hash_put(h, e, i);
    for (uint32_t k = 0; k < e->nkid; k++)
      if (e->kid[k]) h->parent[next++] = i;
    note_node(h, e, i);
  }
  tl_func_uncovered_locals(h->m, f, false, h->uncovered);
}

static void unbuild(h2l *h) {
  void *all[] = {h->hash, h->parent, h->next, h->seen, h->sent, h->ins, h->owner, h->inter, h->cinter, h->queued,
                 h->gets, h->writes, h->foreign, h->uncovered, h->def, h->nbr};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) tl_free(all[i]);
}

/* ---- escape analysis ---------------------------------------------------- */
static tl_type alloc_type(const h2l *h, uint32_t a) { return node(h, a)->type; }

/* A block or loop that child (a kid of it, or a value a branch sends it)
 * leaves as the only value it can have. */
static int block_interaction(h2l *h, uint32_t child, uint32_t parent) {
  tl_expr *p = node(h, parent), *c = node(h, child);
  uint32_t l = p->imm.block.label, nb = l < h->f->nlabel ? h->nbr[l] : 0;
  bool direct = h->parent[child] == parent;
  if (direct && p->nkid && p->kid[p->nkid - 1] == c && (p->op == TL_OP_LOOP || nb == 0)) return I_FLOWS;
  if (!direct && p->op == TL_OP_BLOCK && nb == 1 && p->nkid && p->kid[p->nkid - 1]->type == TL_UNREACHABLE)
    return I_FLOWS;
  return I_ESCAPES;
}

static uint32_t nfields_of(const tl_module *m, const tl_expr *e);

/* An array access at a constant index in bounds (an access out of bounds
 * keeps the array: the trap's kind is observable). */
static bool const_index(const h2l *h, uint32_t a, const tl_expr *e) {
  return e->kid[1]->op == TL_OP_I32_CONST && (uint32_t)e->kid[1]->imm.i32 < nfields_of(h->m, node(h, a));
}

/* The raw interaction of parent with the allocation arriving from child. */
static int interaction(h2l *h, uint32_t a, uint32_t child, uint32_t parent) {
  if (parent == NOID) return I_ESCAPES;
  tl_expr *p = node(h, parent), *c = node(h, child);
  bool ref0 = p->nkid && p->kid[0] == c;
  switch (p->op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: return block_interaction(h, child, parent);
  case TL_OP_DROP: case TL_OP_LOCAL_SET: case TL_OP_REF_IS_NULL: case TL_OP_REF_EQ: case TL_OP_REF_TEST:
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U: case TL_OP_ARRAY_LEN:
    return I_CONSUMES;
  case TL_OP_LOCAL_TEE: case TL_OP_REF_AS_NON_NULL: return I_FLOWS;
  case TL_OP_BR: return p->nkid == 1 ? I_CONSUMES : I_ESCAPES;
  case TL_OP_BR_IF: return p->nkid == 2 && ref0 ? I_FLOWS : I_ESCAPES;
  case TL_OP_REF_CAST:
    return tl_type_sub(h->m, alloc_type(h, a), p->imm.index) ? I_FLOWS : I_CONSUMES;
  case TL_OP_STRUCT_SET: return ref0 ? I_CONSUMES : I_ESCAPES;
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U:
    return const_index(h, a, p) ? I_CONSUMES : I_ESCAPES;
  case TL_OP_ARRAY_SET: return ref0 && const_index(h, a, p) ? I_CONSUMES : I_ESCAPES;
  default: return I_ESCAPES;
  }
}

/* Queue the flow of child's value into its parent (once). */
static void push(h2l *h, uint32_t child) {
  if (h->queued[child] == h->stamp) return;
  h->queued[child] = h->stamp;
  TL_VEC_PUSH(&h->queue, pair, ((pair){child, h->parent[child]}));
}

static void mark(h2l *h, uint32_t id, int how) {
  if (h->seen[id] != h->stamp) {
    h->seen[id] = h->stamp;
    h->inter[id] = (uint8_t)how;
    TL_VEC_PUSH(&h->reached, uint32_t, id);
  } else if (how == I_FLOWS) {
    h->inter[id] = I_FLOWS;
  }
}

/* A local.set or tee the allocation reaches: all the local's gets see it. */
static void reach_set(h2l *h, uint32_t set) {
  if (h->ins[set] == h->stamp) return;
  h->ins[set] = h->stamp;
  TL_VEC_PUSH(&h->sets, uint32_t, set);
  for (uint32_t g = h->gets[node(h, set)->imm.index]; g != NOID; g = h->next[g]) push(h, g);
}

/* One flow; false when the allocation escapes there. */
static bool step(h2l *h, uint32_t a, pair fl) {
  int it = interaction(h, a, fl.child, fl.parent);
  if (it == I_ESCAPES) return false;
  tl_expr *p = node(h, fl.parent);
  if (it == I_FLOWS && !tl_type_is_ref(p->type)) it = I_CONSUMES;
  mark(h, fl.child, I_FLOWS);
  mark(h, fl.parent, it);
  if (it == I_FLOWS) push(h, fl.parent);
  if (p->op == TL_OP_LOCAL_SET || p->op == TL_OP_LOCAL_TEE) reach_set(h, fl.parent);
  bool direct = h->parent[fl.child] == fl.parent;
  if (direct && (p->op == TL_OP_BR || p->op == TL_OP_BR_IF) && h->sent[fl.child] != h->stamp) {
    h->sent[fl.child] = h->stamp;
    uint32_t t = p->imm.label < h->f->nlabel ? h->def[p->imm.label] : NOID;
    if (t == NOID) return false;
    TL_VEC_PUSH(&h->queue, pair, ((pair){fl.child, t}));
  }
  return true;
}

/* Every local the allocation is stored in holds only it wherever read. */
static bool exclusive(h2l *h) {
  for (size_t i = 0; i < h->sets.n; i++) {
    uint32_t l = node(h, TL_VEC_AT(&h->sets, uint32_t, i))->imm.index;
    if (h->foreign[l] || h->uncovered[l] || tl_type_is_tuple(h->f->local[l])) return false;
    for (uint32_t w = h->writes[l]; w != NOID; w = h->next[w])
      if (h->ins[w] != h->stamp) return false;
  }
  return true;
}

static bool escapes(h2l *h, uint32_t a) {
  h->stamp++;
  h->queue.n = h->reached.n = h->sets.n = 0;
  mark(h, a, I_FLOWS);
  push(h, a);
  for (size_t q = 0; q < h->queue.n; q++) {
    if (!h->budget) return true;
    h->budget--;
    if (!step(h, a, TL_VEC_AT(&h->queue, pair, q))) return true;
  }
  return !exclusive(h);
}

/* ref.eq answers, decided while the operands are still the original ones. */
static void settle_eq(h2l *h) {
  for (size_t i = 0; i < h->reached.n; i++) {
    uint32_t id = TL_VEC_AT(&h->reached, uint32_t, i);
    tl_expr *e = node(h, id);
    if (e->op != TL_OP_REF_EQ) continue;
    uint32_t x = id_of(h, e->kid[0]), y = id_of(h, e->kid[1]);
    bool both = x != NOID && y != NOID && h->seen[x] == h->stamp && h->seen[y] == h->stamp &&
                h->inter[x] == I_FLOWS && h->inter[y] == I_FLOWS;
    h->inter[id] = both ? I_EQ_TRUE : I_EQ_FALSE;
  }
}

/* The field count and the field (element) of allocation e. */
static const tl_deftype *alloc_def(const tl_module *m, const tl_expr *e) {
  return tl_heap_def(m, tl_ref_heap(e->type));
}

static uint32_t nfields_of(const tl_module *m, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: return alloc_def(m, e)->nfields;
  case TL_OP_ARRAY_NEW_FIXED: return e->imm.idx2.b;
  default: return (uint32_t)e->kid[e->nkid - 1]->imm.i32;
  }
}

static const tl_field *field_of(const tl_module *m, const tl_expr *e, uint32_t i) {
  const tl_deftype *d = alloc_def(m, e);
  return d->kind == TL_DT_STRUCT ? &d->fields[i] : &d->fields[0];
}

/* Claims the reached nodes for allocation a unless another owns one. */
static bool claim(h2l *h, uint32_t a) {
  for (size_t i = 0; i < h->reached.n; i++)
    if (h->owner[TL_VEC_AT(&h->reached, uint32_t, i)] != NOID) return false;
  settle_eq(h);
  uint32_t k = (uint32_t)h->fields.n, first = h->f->nlocal;
  tl_expr *e = node(h, a);
  for (uint32_t i = 0, n = nfields_of(h->m, e); i < n; i++)
    tl_func_add_var(h->m, h->f, tl_gc_unpacked(field_of(h->m, e, i)));
  TL_VEC_PUSH(&h->fields, uint32_t, first);
  for (size_t i = 0; i < h->reached.n; i++) {
    uint32_t id = TL_VEC_AT(&h->reached, uint32_t, i);
    h->owner[id] = k;
    h->cinter[id] = h->inter[id];
  }
  TL_VEC_PUSH(&h->claimed, uint32_t, a);
  return true;
}

/* ---- the rewrite -------------------------------------------------------- */
static tl_expr *seq(tl_module *m, tl_expr **kids, uint32_t n) {
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, n);
}

static tl_expr *null_ref(tl_module *m) {
  tl_expr *e = tl_expr_new(m, TL_OP_REF_NULL, 0);
  e->imm.index = tl_ref(TL_HT_NONE, true);
  tl_expr_finalize(m, NULL, e);
  return e;
}

static bool is_const(const tl_expr *e) {
  return e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
         e->op == TL_OP_F64_CONST || e->op == TL_OP_REF_NULL;
}

/* The value of operand v for a field of type t: v itself when constant,
 * else a temp set now (in operand order) and read later. */
static tl_expr *stash(tl_module *m, tl_func *f, tl_vec *out, tl_expr *v, tl_type t) {
  if (is_const(v)) return v;
  uint32_t tmp = tl_func_add_var(m, f, t);
  TL_VEC_PUSH(out, tl_expr *, tl_make_local_set(m, f, tmp, v, false));
  return tl_make_local_get(m, f, tmp);
}

/* The allocation becomes: operands into temps, temps into the field
 * locals, then a null standing for the reference (nothing reads it). */
static tl_expr *lower_alloc(h2l *h, tl_expr *e, uint32_t first) {
  tl_module *m = h->m;
  tl_func *f = h->f;
  uint32_t n = nfields_of(m, e);
  tl_vec out = {0};
  tl_expr *shared = NULL;
  if (e->op == TL_OP_ARRAY_NEW && !n) TL_VEC_PUSH(&out, tl_expr *, tl_make_drop(m, e->kid[0]));
  else if (e->op == TL_OP_ARRAY_NEW) shared = stash(m, f, &out, e->kid[0], f->local[first]);
  tl_expr **vals = tl_scratch_calloc(n ? n : 1, sizeof *vals);
  if (!vals) tl_oom_fail();
  for (uint32_t i = 0; i < n; i++) {
    tl_type t = f->local[first + i];
    if (e->op == TL_OP_STRUCT_NEW || e->op == TL_OP_ARRAY_NEW_FIXED) vals[i] = stash(m, f, &out, e->kid[i], t);
    else if (shared) vals[i] = i ? tl_expr_copy(m, f, shared) : shared;
    else vals[i] = tl_make_zero(m, t);
  }
  for (uint32_t i = 0; i < n; i++) TL_VEC_PUSH(&out, tl_expr *, tl_make_local_set(m, f, first + i, vals[i], false));
  TL_VEC_PUSH(&out, tl_expr *, null_ref(m));
  tl_expr *b = seq(m, out.p, (uint32_t)out.n);
  tl_free(vals);
  tl_vec_free(&out);
  return b;
}

/* A read of a field local as struct.get_s/_u (array.get_s/_u) sees it. */
static tl_expr *packed_read(tl_module *m, tl_expr *v, const tl_field *fd, int op) {
  if (fd->pack == TL_PACK_NONE) return v;
  bool i8 = fd->pack == TL_PACK_I8;
  if (op == TL_OP_STRUCT_GET_U || op == TL_OP_ARRAY_GET_U)
    return tl_make_binary(m, TL_OP_I32_AND, v, tl_make_const_i32(m, i8 ? 0xff : 0xffff));
  if (m->features & TL_FEAT_SIGN_EXT) return tl_make_unary(m, i8 ? TL_OP_I32_EXTEND8_S : TL_OP_I32_EXTEND16_S, v);
  int32_t sh = i8 ? 24 : 16;
  tl_expr *up = tl_make_binary(m, TL_OP_I32_SHL, v, tl_make_const_i32(m, sh));
  return tl_make_binary(m, TL_OP_I32_SHR_S, up, tl_make_const_i32(m, sh));
}

static tl_expr *drop_then(tl_module *m, tl_expr *a, tl_expr *b, tl_expr *last) {
  tl_expr *k[3] = {tl_make_drop(m, a), b ? tl_make_drop(m, b) : NULL, last};
  if (!b) k[1] = last;
  return seq(m, k, b ? 3 : 2);
}

/* A field access on the allocation (an array index is in bounds). */
static tl_expr *lower_access(h2l *h, tl_expr *e, tl_expr *alloc, uint32_t first) {
  tl_module *m = h->m;
  bool array = e->op == TL_OP_ARRAY_GET || e->op == TL_OP_ARRAY_GET_S || e->op == TL_OP_ARRAY_GET_U ||
               e->op == TL_OP_ARRAY_SET;
  uint32_t i = array ? (uint32_t)e->kid[1]->imm.i32 : e->imm.idx2.b;
  tl_expr *idx = array ? e->kid[1] : NULL;
  bool set = e->op == TL_OP_STRUCT_SET || e->op == TL_OP_ARRAY_SET;
  tl_expr *last = set ? tl_make_local_set(m, h->f, first + i, e->kid[e->nkid - 1], false)
                      : packed_read(m, tl_make_local_get(m, h->f, first + i), field_of(m, alloc, i), e->op);
  return drop_then(m, e->kid[0], idx, last);
}

/* A cast the allocation fails: it still fails (a cast failure, not another
 * trap), now on a null, non-nullable target. */
static tl_expr *failing_cast(tl_module *m, tl_expr *e) {
  tl_expr *k[2] = {tl_make_drop(m, e->kid[0]), null_ref(m)};
  e->kid[0] = seq(m, k, 2);
  e->imm.index = tl_ref_with_null(e->imm.index, false);
  tl_expr_finalize(m, NULL, e);
  return e;
}

static tl_expr *lower(h2l *h, tl_expr *e, int it, tl_expr *alloc, uint32_t first) {
  tl_module *m = h->m;
  switch (e->op) {
  case TL_OP_LOCAL_GET: return null_ref(m);
  case TL_OP_LOCAL_SET: return tl_make_drop(m, e->kid[0]);
  case TL_OP_LOCAL_TEE: case TL_OP_REF_AS_NON_NULL: return e->kid[0];
  case TL_OP_REF_CAST: return it == I_FLOWS ? e->kid[0] : failing_cast(m, e);
  case TL_OP_REF_IS_NULL: return drop_then(m, e->kid[0], NULL, tl_make_const_i32(m, 0));
  case TL_OP_REF_TEST:
    return drop_then(m, e->kid[0], NULL, tl_make_const_i32(m, tl_type_sub(m, alloc->type, e->imm.index)));
  case TL_OP_REF_EQ: return drop_then(m, e->kid[0], e->kid[1], tl_make_const_i32(m, it == I_EQ_TRUE));
  case TL_OP_ARRAY_LEN: return drop_then(m, e->kid[0], NULL, tl_make_const_i32(m, (int32_t)nfields_of(m, alloc)));
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U: case TL_OP_STRUCT_SET:
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U: case TL_OP_ARRAY_SET:
    return lower_access(h, e, alloc, first);
  default: return e; /* blocks, loops, branches, drops: the types follow */
  }
}

static void rewrite_visit(tl_walk *w, tl_expr **slot) {
  h2l *h = w->ctx;
  uint32_t id = id_of(h, *slot);
  if (id == NOID || h->owner[id] == NOID) return;
  uint32_t k = h->owner[id], first = TL_VEC_AT(&h->fields, uint32_t, k);
  tl_expr *alloc = node(h, TL_VEC_AT(&h->claimed, uint32_t, k));
  *slot = *slot == alloc ? lower_alloc(h, alloc, first) : lower(h, *slot, h->cinter[id], alloc, first);
}

static void count_alloc(tl_walk *w, tl_expr **slot) {
  if (is_alloc(w->ctx, *slot)) ((h2l *)w->ctx)->budget++;
}

/* One round: analyse every allocation, lower the ones that do not escape
 * and share no node with another; whether a deferred one may go next. */
static bool round_once(h2l *h, bool *changed) {
  build(h);
  bool more = false;
  h->fields.n = h->claimed.n = 0;
  for (size_t i = 0; i < h->allocs.n; i++) {
    uint32_t a = TL_VEC_AT(&h->allocs, uint32_t, i);
    if (!escapes(h, a) && !claim(h, a)) more = true;
  }
  if (h->claimed.n) {
    tl_walk_post(h->m, h->f, &h->f->body, rewrite_visit, h);
    tl_func_refinalize(h->m, h->f);
    *changed = true;
  }
  unbuild(h);
  return more && h->claimed.n;
}

/* ---- splitting locals whose writes are all in one list ------------------ */
/* A local whose every write (set or tee) sits in a kid of one block or
 * loop list B with no other construct between, one of them storing an
 * allocation, and whose every read is inside B: each write starts a new
 * local, read by the gets that follow it in execution order up to the
 * next write (control enters a list only at its start, and within a kid
 * everything after the write in post-order runs after it). Gets before
 * the first write keep the old local: allowed when B runs at most once
 * (no loop is B or around it), as they then see only the entry value.
 * Exclusivity is then per write, as Binaryen's local graph has it. */
enum { S_BAD = 1, S_ALLOC = 2, S_LOOP = 4, MAX_UP = 64 };

typedef struct {
  uint32_t n;         /* locals before the split */
  tl_expr **wb;       /* by local: the list holding its writes */
  uint32_t *nw, *ng, *inb, *before, *cur;
  uint8_t *fl;        /* by local: S_* */
  uint32_t loops;     /* loops around the current node */
  uint32_t budget;    /* nodes the counting walks may still visit */
  tl_vec lists;       /* tl_expr *: the lists to split in */
  tl_vec cand;        /* uint32_t: the locals with a list */
  tl_expr *b;         /* the list being walked */
  bool rename;        /* renaming (else counting) */
} splitter;

static void sp_pre(tl_walk *w, tl_expr **slot) {
  if ((*slot)->op == TL_OP_LOOP) ((splitter *)w->ctx)->loops++;
}

/* The block or loop list whose kid holds the current node with no other
 * construct between (NULL: none, or too deep to tell). */
static tl_expr *sp_list_of(tl_walk *w) {
  for (uint32_t up = 1; up <= MAX_UP; up++) {
    tl_expr *p = tl_walk_parent(w, up);
    if (!p) return NULL;
    if (p->op == TL_OP_BLOCK || p->op == TL_OP_LOOP) return p;
    if (tl_ops[p->op].flags & (TL_F_CONTROL | TL_F_EH)) return NULL;
  }
  return NULL;
}

static void sp_write(splitter *s, tl_walk *w, tl_expr *e) {
  uint32_t l = e->imm.index;
  tl_expr *p = sp_list_of(w);
  s->nw[l]++;
  if (!p || (s->wb[l] && s->wb[l] != p)) {
    s->fl[l] |= S_BAD;
    return;
  }
  if (!s->wb[l]) {
    TL_VEC_PUSH(&s->cand, uint32_t, l);
    TL_VEC_PUSH(&s->lists, tl_expr *, p);
  }
  s->wb[l] = p;
  if (is_alloc(NULL, e->kid[0])) s->fl[l] |= S_ALLOC;
  if (s->loops) s->fl[l] |= S_LOOP;
}

static void sp_post(tl_walk *w, tl_expr **slot) {
  splitter *s = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOOP) s->loops--;
  if (e->op == TL_OP_LOCAL_GET) s->ng[e->imm.index]++;
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) sp_write(s, w, e);
  if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX) s->fl[e->imm.idx2.a] |= S_BAD;
}

static bool sp_mine(const splitter *s, const tl_expr *e) {
  if (e->op != TL_OP_LOCAL_GET && e->op != TL_OP_LOCAL_SET && e->op != TL_OP_LOCAL_TEE) return false;
  uint32_t l = e->imm.index;
  return l < s->n && s->wb[l] == s->b && !(s->fl[l] & S_BAD) && (s->fl[l] & S_ALLOC);
}

/* In execution order over the list: counts the reads (before: no write
 * yet), or renames reads and writes to the current piece's local. */
static void sp_visit(tl_walk *w, tl_expr **slot) {
  splitter *s = w->ctx;
  tl_expr *e = *slot;
  if (!s->rename && !s->budget) return;
  if (!s->rename) s->budget--;
  if (!sp_mine(s, e)) return;
  uint32_t l = e->imm.index;
  if (e->op == TL_OP_LOCAL_GET && !s->rename) s->inb[l]++, s->before[l] += s->cur[l] == l;
  else if (e->op == TL_OP_LOCAL_GET) e->imm.index = s->cur[l];
  else if (!s->rename) s->cur[l] = TL_NO_INDEX; /* a write seen */
  else e->imm.index = s->cur[l] = tl_func_add_var(w->m, w->f, w->f->local[l]);
}

static void sp_lists(splitter *s, tl_module *m, tl_func *f, bool rename) {
  s->rename = rename;
  for (size_t i = 0; i < s->lists.n; i++) {
    s->b = TL_VEC_AT(&s->lists, tl_expr *, i);
    for (uint32_t k = 0; k < s->b->nkid; k++) tl_walk_post(m, f, &s->b->kid[k], sp_visit, s);
  }
}

/* Which locals to split: every read inside the list, and the reads before
 * the first write only where the list runs once; it must separate something. */
static void sp_choose(splitter *s) {
  for (size_t i = 0; i < s->cand.n; i++) {
    uint32_t l = TL_VEC_AT(&s->cand, uint32_t, i);
    bool ok = s->inb[l] == s->ng[l] && (!(s->fl[l] & S_LOOP) || !s->before[l]) && (s->nw[l] > 1 || s->before[l]);
    if (!ok) s->fl[l] |= S_BAD;
    s->cur[l] = l;
  }
}

static int by_address(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (tl_expr *const *)a, y = (uintptr_t) * (tl_expr *const *)b;
  return (x > y) - (x < y);
}

/* Each list once (the walks count reads, so twice would double them). */
static void unique(tl_vec *v) {
  size_t k = 0;
  if (v->n) qsort(v->p, v->n, sizeof(tl_expr *), by_address);
  for (size_t i = 0; i < v->n; i++)
    if (!k || TL_VEC_AT(v, tl_expr *, i) != TL_VEC_AT(v, tl_expr *, k - 1))
      TL_VEC_AT(v, tl_expr *, k++) = TL_VEC_AT(v, tl_expr *, i);
  v->n = k;
}

static void split_locals(tl_module *m, tl_func *f) {
  uint32_t n = f->nlocal;
  splitter s = {.n = n, .budget = WORK_BUDGET};
  s.wb = zalloc(n, sizeof *s.wb);
  uint32_t **arr[] = {&s.nw, &s.ng, &s.inb, &s.before, &s.cur};
  for (size_t i = 0; i < sizeof arr / sizeof *arr; i++) *arr[i] = zalloc(n, sizeof(uint32_t));
  s.fl = zalloc(n, 1);
  tl_walk w = {.m = m, .f = f, .ctx = &s, .pre = sp_pre, .post = sp_post};
  tl_walk_run(&w, &f->body);
  unique(&s.lists);
  for (uint32_t l = 0; l < n; l++) s.cur[l] = l;
  sp_lists(&s, m, f, false);
  if (s.budget) { /* else counted only in part: nothing is split */
    sp_choose(&s);
    sp_lists(&s, m, f, true);
  }
  for (size_t i = 0; i < sizeof arr / sizeof *arr; i++) tl_free(*arr[i]);
  tl_free(s.wb);
  tl_free(s.fl);
  tl_vec_free(&s.lists);
  tl_vec_free(&s.cand);
}

tl_status tl_pass_heap2local(tl_pass_ctx *ctx, tl_func *f) {
  h2l h = {.m = ctx->m, .f = f};
  if (!f->body) return TL_OK;
  tl_walk_post_only(ctx->m, f, &f->body, count_alloc, &h, TL_F_GC_ALLOC);
  if (!h.budget) return TL_OK;
  h.budget = WORK_BUDGET;
  split_locals(ctx->m, f);
  bool changed = false;
  for (int r = 0; r < MAX_ROUNDS && round_once(&h, &changed); r++) {}
  tl_vec *vs[] = {&h.nodes, &h.allocs, &h.fields, &h.claimed, &h.queue, &h.reached, &h.sets};
  for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) tl_vec_free(vs[i]);
  return TL_OK;
}
