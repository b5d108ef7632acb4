/* writer_code.c — function bodies and constant expressions to stack code,
 * with an explicit stack of frames (no recursion on nesting depth). Block
 * types are reified (seed 002: an unreachable construct is `block` ... `end`
 * `unreachable`); what follows an unreachable child is dead and dropped;
 * tuple locals become their components, tuple.make/extract plain stack code.
 * Guarantees: output that wasm-validate accepts for IR that validates. */
#include "writer.h"
#include "../passes/passes.h"   /* tl_run_parallel: bodies on the pass pool */

#include <stdatomic.h>
#include <string.h>

enum { K_NODE, K_BLOCK, K_IF, K_LIST, K_TRY, K_TRY_TABLE };

typedef struct {
  tl_expr *e;          /* the node (K_NODE, K_BLOCK, K_IF) */
  tl_expr **items;     /* K_LIST: the instructions */
  uint32_t n, i;       /* K_LIST: count; every kind: next child / item */
  uint8_t kind;
  uint32_t state;      /* K_BLOCK, K_IF: step; K_TRY: the next arm */
  tl_type want;        /* K_LIST: the result type of the enclosing construct */
} frame;

typedef struct { uint32_t label, prev; tl_type type; } lab; /* type: what a branch to it carries */

tl_status wr_fail(wr *w, tl_status code) {
  if (w->err) w->err->func_index = w->fi;
  return code;
}

/* An opcode byte (0: none) and a u32 LEB, written in place when there is
 * room (the common case: no call per byte). */
static void put_op_u32(tl_buf *b, int code, uint32_t v) {
  if (b->cap - b->n < 6) {
    if (code) tl_buf_byte(b, (uint8_t)code);
    wr_u32(b, v);
    return;
  }
  uint8_t *p = b->p + b->n;
  if (code) *p++ = (uint8_t)code;
  for (; v >= 0x80; v >>= 7) *p++ = (uint8_t)(v | 0x80);
  *p++ = (uint8_t)v;
  b->n = (size_t)(p - b->p);
}

/* ---- labels ------------------------------------------------------------------ */
static tl_status push_label(wr *w, uint32_t l, tl_type t) {
  lab e = {l, TL_NO_INDEX, t};
  if (l != TL_NO_LABEL) {
    if (l >= w->npos) return WR_FAIL(w, TL_E_INVALID, "label %u out of range", l);
    e.prev = w->pos[l];
    w->pos[l] = (uint32_t)w->labels.n;
  }
  TL_VEC_PUSH(&w->labels, lab, e);
  return TL_OK;
}

static void pop_label(wr *w) {
  lab e = TL_VEC_AT(&w->labels, lab, --w->labels.n);
  if (e.label != TL_NO_LABEL) w->pos[e.label] = e.prev;
}

static tl_status put_depth(wr *w, tl_buf *b, uint32_t l) {
  if (l >= w->npos || w->pos[l] == TL_NO_INDEX)
    return WR_FAIL(w, TL_E_INVALID, "branch to label %u, which is not in scope", l);
  put_op_u32(b, 0, (uint32_t)w->labels.n - 1 - w->pos[l]);
  return TL_OK;
}

/* ---- block types ------------------------------------------------------------------ */
/* A type index for a []->results block type: the one the input used if it
 * fits, else the first such type of the module, else one added after it. */
static uint32_t tuple_type_index(wr *w, const tl_expr *e) {
  tl_module *m = w->m;
  tl_type t = e->type;
  uint32_t bt = e->imm.block.bt;
  if (bt < m->types.n && TL_FTYPE(m, bt)->params == TL_NONE && TL_FTYPE(m, bt)->results == t)
    return bt;
  for (size_t i = 0; i + 1 < w->tcache.n; i += 2)
    if (TL_VEC_AT(&w->tcache, uint32_t, i) == t) return TL_VEC_AT(&w->tcache, uint32_t, i + 1);
  uint32_t idx = TL_NO_INDEX;
  for (size_t i = 0; i < m->types.n && idx == TL_NO_INDEX; i++)
    if (TL_FTYPE(m, i)->params == TL_NONE && TL_FTYPE(m, i)->results == t) idx = (uint32_t)i;
  if (idx == TL_NO_INDEX && w->frozen) { /* the index depends on earlier functions */
    w->need_serial = true;
    return 0;
  }
  if (idx == TL_NO_INDEX) {
    idx = (uint32_t)(m->types.n + w->extra.n);
    TL_VEC_PUSH(&w->extra, tl_type, t);
  }
  TL_VEC_PUSH(&w->tcache, uint32_t, t);
  TL_VEC_PUSH(&w->tcache, uint32_t, idx);
  return idx;
}

static bool in_set(const tl_vec *v, const tl_expr *e);

static tl_status put_blocktype(wr *w, tl_buf *b, const tl_expr *e) {
  if (!tl_type_is_concrete(e->type) || in_set(&w->cut, e)) tl_buf_byte(b, 0x40);
  else if (tl_type_is_tuple(e->type)) wr_s64(b, tuple_type_index(w, e));
  else return wr_valtype(w, b, e->type);
  return TL_OK;
}

/* The opcode of a block, loop or if and its block type; counts it for the
 * label names subsection. */
static tl_status put_clauses(wr *w, tl_buf *b, const tl_expr *e);

/* With an output source map: e's location, at the offset its instruction
 * starts, unless the one noted last is the same. */
static void note_location(wr *w, const tl_buf *b, const tl_expr *e) {
  const tl_debugloc *l = tl_loc_get(w->f, e);
  if (!l) return;
  if (w->locs.n && tl_loc_eq(&TL_VEC_AT(&w->locs, tl_srcmap_entry, w->locs.n - 1).loc, l)) return;
  tl_srcmap_entry x = {(uint32_t)b->n, true, *l};
  TL_VEC_PUSH(&w->locs, tl_srcmap_entry, x);
}

static tl_status open_construct(wr *w, tl_buf *b, const tl_expr *e) {
  if (w->want_locs) note_location(w, b, e);
  tl_buf_byte(b, (uint8_t)tl_ops[e->op].code);
  TRY(put_blocktype(w, b, e));
  if (e->op == TL_OP_TRY_TABLE) TRY(put_clauses(w, b, e));
  uint32_t l = e->imm.block.label, idx = w->nblk++;
  tl_func *f = w->f;
  if (w->opt->debug_names && f && f->label_name && l < f->nlabel && f->label_name[l]) {
    wr_lname ln = {w->fi, idx, f->label_name[l]};
    TL_VEC_PUSH(&w->lnames, wr_lname, ln);
  }
  return push_label(w, l, e->op == TL_OP_LOOP ? TL_NONE : e->type);
}

/* A try_table's clauses: kind, tag, depth (outside the try_table). */
static tl_status put_clauses(wr *w, tl_buf *b, const tl_expr *e) {
  wr_u32(b, e->nkid ? e->nkid - 1 : 0);
  for (uint32_t i = 1; i < e->nkid; i++) {
    const tl_expr *c = e->kid[i];
    if (!c || tl_ops[c->op].imm != TL_IMM_CLAUSE)
      return WR_FAIL(w, TL_E_INVALID, "try_table: kid %u is not a catch clause", i);
    uint32_t kind = (uint32_t)(c->op - TL_OP_TT_CATCH);
    tl_buf_byte(b, (uint8_t)kind);
    if (kind < 2) wr_u32(b, c->imm.idx2.b);
    TRY(put_depth(w, b, c->imm.idx2.a));
  }
  return TL_OK;
}

static void close_construct(wr *w, tl_buf *b, const tl_expr *e) {
  tl_buf_byte(b, 0x0b);
  pop_label(w);
  if (e->type == TL_UNREACHABLE || in_set(&w->cut, e)) tl_buf_byte(b, 0x00);
}

/* ---- locals and tuples --------------------------------------------------------------- */
static void drops(tl_buf *b, uint32_t n) {
  while (n--) tl_buf_byte(b, 0x1a);
}

static void local_op(tl_buf *b, uint8_t code, uint32_t idx) {
  put_op_u32(b, code, idx);
}

static uint32_t scratch_local(wr *w, tl_type t) {
  if (t >= TL_NBASIC) { /* a typed reference: its scratch by a search (rare) */
    for (size_t i = 0; i < w->stypes.n; i++)
      if (TL_VEC_AT(&w->stypes, tl_type, i) == t) return w->base[w->f->nlocal] + (uint32_t)i;
    TL_VEC_PUSH(&w->stypes, tl_type, t);
    return w->base[w->f->nlocal] + (uint32_t)w->stypes.n - 1;
  }
  if (!w->scratch[t]) {
    TL_VEC_PUSH(&w->stypes, tl_type, t);
    w->scratch[t] = (uint32_t)w->stypes.n;
  }
  return w->base[w->f->nlocal] + w->scratch[t] - 1;
}

static tl_status check_local(wr *w, uint32_t l) {
  if (!w->f) return WR_FAIL(w, TL_E_INVALID, "local access in a constant expression");
  if (l >= w->f->nlocal) return WR_FAIL(w, TL_E_INVALID, "local %u out of range", l);
  return TL_OK;
}

/* local.get/set/tee; a tuple local is its components, the last on top. */
static tl_status emit_local(wr *w, tl_buf *b, const tl_expr *e) {
  uint32_t l = e->imm.index;
  TRY(check_local(w, l));
  uint32_t base = w->base[l], n = w->width[l];
  if (e->op == TL_OP_LOCAL_GET || (e->op == TL_OP_LOCAL_TEE && n == 1)) {
    uint8_t code = e->op == TL_OP_LOCAL_GET ? 0x20 : 0x22;
    for (uint32_t i = 0; i < n; i++) local_op(b, code, base + i);
    return TL_OK;
  }
  for (uint32_t i = n; i-- > 0;) local_op(b, 0x21, base + i);
  if (e->op == TL_OP_LOCAL_TEE)
    for (uint32_t i = 0; i < n; i++) local_op(b, 0x20, base + i);
  return TL_OK;
}

static bool is_tuple_local_get(wr *w, const tl_expr *e) {
  return e->op == TL_OP_LOCAL_GET && w->f && e->imm.index < w->f->nlocal &&
         tl_type_is_tuple(w->f->local[e->imm.index]);
}

/* tuple.extract of a value on the stack: drop what is above component i,
 * park it in a scratch local, drop what is below, get it back. */
static tl_status emit_extract(wr *w, tl_buf *b, const tl_expr *e) {
  tl_type t = e->kid[0]->type;
  uint32_t n = tl_type_arity(w->m, t), i = e->imm.index;
  if (i >= n) return WR_FAIL(w, TL_E_INVALID, "tuple.extract %u of a %u-tuple", i, n);
  drops(b, n - 1 - i);
  if (i == 0) return TL_OK;
  if (!w->f) return WR_FAIL(w, TL_E_INVALID, "tuple.extract in a constant expression");
  uint32_t s = scratch_local(w, tl_type_at(w->m, t, i));
  local_op(b, 0x21, s);
  drops(b, i);
  local_op(b, 0x20, s);
  return TL_OK;
}

/* ---- instructions ------------------------------------------------------------------ */
/* align (bit 6 set when a memory index other than 0 follows), offset. */
static void put_memarg(const wr *w, tl_buf *b, const tl_memarg *ma) {
  if (ma->mem) {
    put_op_u32(b, 0, ma->align | 0x40u);
    put_op_u32(b, 0, ma->mem);
  } else {
    put_op_u32(b, 0, ma->align);
  }
  if (ma->big) wr_u64(b, tl_memarg_offset(w->m, ma)); /* memory64: above UINT32_MAX */
  else put_op_u32(b, 0, ma->offset);
}

static void put_le(tl_buf *b, uint64_t v, int n) {
  for (int i = 0; i < n; i++) tl_buf_byte(b, (uint8_t)(v >> (8 * i)));
}

static tl_status put_imm(wr *w, tl_buf *b, const tl_expr *e) {
  const tl_imm imm = e->imm, *im = &imm; /* a copy: e is packed */
  switch (tl_ops[e->op].imm) {
  case TL_IMM_NONE: return TL_OK;
  case TL_IMM_LABEL: return put_depth(w, b, im->label);
  case TL_IMM_BR_TABLE:
    wr_u32(b, im->table->n);
    for (uint32_t i = 0; i < im->table->n; i++) TRY(put_depth(w, b, im->table->targets[i]));
    return put_depth(w, b, im->table->def);
  case TL_IMM_FUNC: case TL_IMM_GLOBAL: case TL_IMM_TABLE: case TL_IMM_MEM:
  case TL_IMM_ELEM: case TL_IMM_TAG: case TL_IMM_TYPE:
    put_op_u32(b, 0, im->index);
    return TL_OK;
  case TL_IMM_DATA:
    w->uses_data = true;
    wr_u32(b, im->index);
    return TL_OK;
  case TL_IMM_MEM_INIT:
    w->uses_data = true;
    /* fall through */
  case TL_IMM_CALL_INDIRECT: case TL_IMM_MEM_COPY: case TL_IMM_TABLE_INIT:
  case TL_IMM_TABLE_COPY:
    wr_u32(b, im->idx2.a);
    wr_u32(b, im->idx2.b);
    return TL_OK;
  case TL_IMM_TYPE_DATA:
    w->uses_data = true;
    /* fall through */
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: case TL_IMM_TYPE_ELEM: case TL_IMM_TYPE_TYPE:
    put_op_u32(b, 0, im->idx2.a);
    put_op_u32(b, 0, im->idx2.b);
    return TL_OK;
  case TL_IMM_MEMARG: put_memarg(w, b, &im->mem); return TL_OK;
  case TL_IMM_MEMARG_LANE: put_memarg(w, b, &im->mem); /* fall through */
  case TL_IMM_LANE: tl_buf_byte(b, im->mem.lane); return TL_OK;
  case TL_IMM_I32:   /* one byte for -64..63 */
    if (im->i32 >= -64 && im->i32 < 64) tl_buf_byte(b, (uint8_t)(im->i32 & 0x7f));
    else wr_s64(b, im->i32);
    return TL_OK;
  case TL_IMM_I64: wr_s64(b, im->i64); return TL_OK;
  case TL_IMM_F32: put_le(b, im->f32, 4); return TL_OK;
  case TL_IMM_F64: put_le(b, im->f64, 8); return TL_OK;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: tl_buf_put(b, im->v128, 16); return TL_OK;
  case TL_IMM_REFTYPE:
    if (!tl_type_is_ref(im->index) || !tl_type_valid(w->m, im->index))
      return WR_FAIL(w, TL_E_INVALID, "ref.null of a non-reference type");
    wr_heaptype(b, w->m->features & TL_FEAT_GC ? tl_ref_heap(im->index) : tl_heap_top(w->m, tl_ref_heap(im->index)));
    return TL_OK;
  case TL_IMM_SELECT_T: wr_u32(b, 1); return wr_valtype(w, b, im->index);
  case TL_IMM_FENCE: tl_buf_byte(b, 0x00); return TL_OK;
  default: return WR_FAIL(w, TL_E_INVALID, "%s cannot be written here", tl_ops[e->op].text);
  }
}

static tl_status emit_plain(wr *w, tl_buf *b, const tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  if (oi->pfx == 0xFF || (oi->flags & (TL_F_CONTROL | TL_F_MARKER)))
    return WR_FAIL(w, TL_E_INVALID, "%s cannot be written here", oi->text);
  if (oi->pfx) {
    tl_buf_byte(b, oi->pfx);
    wr_u32(b, oi->code);
  } else {
    tl_buf_byte(b, (uint8_t)oi->code);
  }
  return put_imm(w, b, e);
}

static tl_status emit_op_bytes(wr *w, tl_buf *b, const tl_expr *e);

/* A node whose children are all on the stack. */
static tl_status emit_op(wr *w, tl_buf *b, const tl_expr *e) {
  if (!w->want_locs || !w->f) return emit_op_bytes(w, b, e);
  size_t n = w->locs.n, at = b->n;
  note_location(w, b, e);
  TRY(emit_op_bytes(w, b, e));
  if (b->n == at) w->locs.n = n;   /* nothing written (tuple.make) */
  return TL_OK;
}

/* ref.test/ref.cast: the nullable form's code is the plain one's + 1. */
static tl_status emit_cast(wr *w, tl_buf *b, const tl_expr *e) {
  tl_type t = e->imm.index;
  if (!tl_type_is_ref(t) || !tl_type_valid(w->m, t))
    return WR_FAIL(w, TL_E_INVALID, "%s of a non-reference type", tl_ops[e->op].text);
  tl_buf_byte(b, 0xFB);
  wr_u32(b, tl_ops[e->op].code + tl_ref_nullable(t));
  wr_heaptype(b, tl_ref_heap(t));
  return TL_OK;
}

/* br_on_cast(_fail) flags label rt1 rt2: rt1 is the operand's type (its
 * hierarchy's top when it is unreachable), rt2 the target narrowed to a
 * subtype of rt1 (their glb: what passes the cast is in both anyway, and
 * the label and fallthrough types stay those the IR gives). */
static tl_status emit_br_cast(wr *w, tl_buf *b, const tl_expr *e) {
  tl_type t = e->imm.idx2.b, in = e->nkid ? e->kid[0]->type : TL_UNREACHABLE;
  if (!tl_type_is_ref(t) || !tl_type_valid(w->m, t))
    return WR_FAIL(w, TL_E_INVALID, "%s to a non-reference type", tl_ops[e->op].text);
  if (!tl_type_is_ref(in)) in = tl_ref(tl_heap_top(w->m, tl_ref_heap(t)), true);
  else t = tl_type_glb(w->m, t, in);
  tl_buf_byte(b, 0xFB);
  wr_u32(b, tl_ops[e->op].code);
  tl_buf_byte(b, (uint8_t)(tl_ref_nullable(in) | tl_ref_nullable(t) << 1));
  TRY(put_depth(w, b, e->imm.label));
  wr_heaptype(b, tl_ref_heap(in));
  wr_heaptype(b, tl_ref_heap(t));
  return TL_OK;
}

/* br_if gives its label's type in wasm, the IR gives its value's: when
 * the value's reference type is more precise (the IR may rely on it, say
 * in a block typed from it), a ref.cast to it follows (it cannot fail).
 * The reader drops that cast again (reader_gc.c do_cast). */
static tl_status emit_br_if(wr *w, tl_buf *b, const tl_expr *e) {
  TRY(emit_plain(w, b, e));
  uint32_t l = e->imm.label;
  if (e->nkid != 2 || !tl_type_is_ref(e->type) || l >= w->npos || w->pos[l] == TL_NO_INDEX) return TL_OK;
  tl_type lt = TL_VEC_AT(&w->labels, lab, w->pos[l]).type;
  if (lt == e->type || !tl_type_is_ref(lt)) return TL_OK;
  tl_buf_byte(b, 0xFB);
  wr_u32(b, tl_ops[TL_OP_REF_CAST].code + tl_ref_nullable(e->type));
  wr_heaptype(b, tl_ref_heap(e->type));
  return TL_OK;
}

static tl_status emit_op_bytes(wr *w, tl_buf *b, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_REF_TEST: case TL_OP_REF_CAST: return emit_cast(w, b, e);
  case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL: return emit_br_cast(w, b, e);
  case TL_OP_BR_IF: return emit_br_if(w, b, e);
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: return emit_local(w, b, e);
  case TL_OP_DROP: drops(b, tl_type_arity(w->m, e->kid[0]->type)); return TL_OK;
  case TL_OP_TUPLE_MAKE: return TL_OK;
  case TL_OP_TUPLE_EXTRACT: return emit_extract(w, b, e);
  case TL_OP_SELECT:
    if (tl_type_is_tuple(e->type))
      return WR_FAIL(w, TL_E_UNSUPPORTED, "select of a tuple");
    if (tl_type_is_ref(e->type)) {   /* references need the typed form */
      tl_buf_byte(b, 0x1c);
      wr_u32(b, 1);
      return wr_valtype(w, b, e->type);
    }
    tl_buf_byte(b, 0x1b);
    return TL_OK;
  default: return emit_plain(w, b, e);
  }
}

/* ---- tuple-local elision --------------------------------------------------------------- */
/* The reader keeps a multi-value result that is consumed piecewise in a
 * scratch tuple local: `local.set T (x)`, then tuple.extracts of T. When the
 * next statements take the last components from the top (`local.set L` or
 * `drop` of extract n-1, n-2, ...) and the statement after them reads the
 * rest in order before it emits anything else, and nothing else reads T,
 * the set and the reads cancel: x is written
 * alone and the statement takes its values from the stack. T is then not
 * declared at all (when that set was its only one), so read-write round
 * trips of multi-value code reach a fixed point. */
typedef struct { uint32_t *gets, *sets; tl_vec lists, catches; } scan_ctx;

static void scan_visit(tl_walk *w, tl_expr **slot) {
  scan_ctx *c = w->ctx;
  tl_expr *e = *slot;
  bool in = e->imm.index < w->f->nlocal;
  if (e->op == TL_OP_LOCAL_GET && in) c->gets[e->imm.index]++;
  else if ((e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) && in) c->sets[e->imm.index]++;
  else if ((e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) && e->nkid > 1)
    TL_VEC_PUSH(&c->lists, tl_expr *, e);
  else if (e->op == TL_OP_CATCH && e->imm.idx2.a < w->f->nlocal)
    TL_VEC_PUSH(&c->catches, tl_expr *, e);
}

static bool is_extract_of_local(const tl_expr *e) {
  return e->op == TL_OP_TUPLE_EXTRACT && e->nkid == 1 && e->kid[0] &&
         e->kid[0]->op == TL_OP_LOCAL_GET;
}

/* True if the first n instructions s emits are tuple.extract i of local l,
 * i = 0..n-1 (filling out[]): a post-order walk that gives up at the first
 * construct or other instruction. */
static bool leading_extracts(tl_expr *s, uint32_t l, uint32_t n, tl_expr **out) {
  typedef struct { tl_expr *e; uint32_t i; } it;
  tl_vec st = {0};
  uint32_t got = 0;
  bool ok = true;
  it first = {s, 0};
  TL_VEC_PUSH(&st, it, first);
  while (ok && got < n && st.n) {
    it *t = &TL_VEC_AT(&st, it, st.n - 1);
    tl_expr *e = t->e;
    if (tl_ops[e->op].flags & TL_F_CONTROL) {
      ok = false;
    } else if (is_extract_of_local(e)) {
      ok = e->kid[0]->imm.index == l && e->imm.index == got;
      out[got++] = e;
      st.n--;
    } else {
      while (t->i < e->nkid && !e->kid[t->i]) t->i++;
      if (t->i < e->nkid) {
        it k = {e->kid[t->i++], 0};
        TL_VEC_PUSH(&st, it, k);
      } else {
        ok = false;          /* something else is emitted first */
      }
    }
  }
  tl_vec_free(&st);
  return ok && got == n;
}

/* True if s is `local.set L (tuple.extract i (local.get l))` or `drop` of
 * that extract: it takes component i from the top of the stack. */
static bool top_taker(const tl_expr *s, uint32_t l, uint32_t i) {
  if (!s || s->nkid != 1 || !s->kid[0]) return false;
  if (s->op != TL_OP_DROP && s->op != TL_OP_LOCAL_SET) return false;
  const tl_expr *x = s->kid[0];
  return is_extract_of_local(x) && x->kid[0]->imm.index == l && x->imm.index == i;
}

static int ptr_cmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;
  return x < y ? -1 : x > y;
}

static bool in_set(const tl_vec *v, const tl_expr *e) {
  return v->n && bsearch(&e, v->p, v->n, sizeof(tl_expr *), ptr_cmp) != NULL;
}

/* ---- dead code as written ------------------------------------------------------------- */
/* The writer cuts what follows a dead child, with the branches in it. A
 * construct whose end is unreachable and that only such branches target
 * reads back as unreachable, so it is written as one (void, `end`
 * `unreachable`) and cuts its parent in turn: one write is a fixed point.
 * mark_cut walks as the writer will (children up to and including the first
 * dead one; an if's arms only when its condition is live) and lists in
 * w->cut the nodes dead as written whose type is not unreachable. */
enum { D_NODE, D_LIST, D_IF, D_TRY };
typedef struct {
  tl_expr *e;        /* the node; NULL for an if arm or the function body */
  tl_expr **items;   /* its children, or the list's items */
  uint32_t n, i;
  uint8_t kind;
  bool dead;         /* a dead child or item (D_IF: its condition) */
  bool arms;         /* D_IF, D_TRY: the arms so far are all dead */
} dfr;

static void count_branches(const tl_expr *e, uint32_t *live, uint32_t nl) {
  const tl_imm imm = e->imm, *im = &imm; /* a copy: e is packed */
  if (!(tl_ops[e->op].flags & TL_F_BRANCH)) return; /* rethrow, delegate: no branch */
  uint8_t k = tl_ops[e->op].imm;
  if (k == TL_IMM_LABEL || k == TL_IMM_CLAUSE || k == TL_IMM_BR_CAST) {
    if (im->label < nl) live[im->label]++;
  } else if (tl_ops[e->op].imm == TL_IMM_BR_TABLE) {
    for (uint32_t i = 0; i < im->table->n; i++)
      if (im->table->targets[i] < nl) live[im->table->targets[i]]++;
    if (im->table->def < nl) live[im->table->def]++;
  }
}

static void dpush(tl_vec *st, tl_expr *e, uint8_t kind, tl_expr **items, uint32_t n) {
  dfr d = {e, items, n, 0, kind, false, true};
  TL_VEC_PUSH(st, dfr, d);
}

/* Starts x: a leaf is done at once (true, *dead set), the rest get a frame. */
static void dpush_arm_of(tl_vec *st, tl_expr *e, tl_expr **slot);

static bool dstart(tl_vec *st, tl_expr *x, uint32_t *live, uint32_t nl, bool *dead) {
  if (x->op == TL_OP_BLOCK || x->op == TL_OP_LOOP) dpush(st, x, D_LIST, x->kid, x->nkid);
  else if (x->op == TL_OP_IF) dpush(st, x, D_IF, x->kid, x->nkid);
  else if (x->op == TL_OP_TRY) dpush(st, x, D_TRY, x->kid, x->nkid);
  else if (x->op == TL_OP_TRY_TABLE && x->nkid && x->kid[0]) {
    for (uint32_t i = 1; i < x->nkid; i++) /* written with the try_table: live */
      if (x->kid[i]) count_branches(x->kid[i], live, nl);
    dpush_arm_of(st, x, &x->kid[0]);
  }
  else if (x->nkid) dpush(st, x, D_NODE, x->kid, x->nkid);
  else {
    count_branches(x, live, nl);
    *dead = x->type == TL_UNREACHABLE;
    return true;
  }
  return false;
}

static bool no_live_branch(const tl_expr *e, const uint32_t *live, uint32_t nl) {
  uint32_t l = e->imm.block.label;
  return l >= nl || !live[l];
}

/* A finished frame: whether its node is dead as written (recorded in w->cut
 * when its type does not say so). */
static bool dfinish(wr *w, const dfr *d, uint32_t *live, uint32_t nl) {
  tl_expr *e = d->e;
  if (!e) return d->dead;
  bool dead;
  if (d->kind == D_NODE) {
    if (!d->dead) count_branches(e, live, nl);
    dead = d->dead;
  } else if (d->kind == D_LIST) {
    dead = d->dead && (e->op == TL_OP_LOOP || no_live_branch(e, live, nl));
  } else if (d->kind == D_TRY) {
    dead = d->arms && no_live_branch(e, live, nl);
  } else {
    dead = d->dead || (d->i == 3 && d->arms && no_live_branch(e, live, nl));
  }
  if (e->type == TL_UNREACHABLE) return true;
  if (dead) TL_VEC_PUSH(&w->cut, tl_expr *, e);
  return dead;
}

/* An arm as the writer writes it: an unlabeled block's items, or itself;
 * e is the frame's node (a try_table's body: its own), or NULL. */
static void dpush_arm_of(tl_vec *st, tl_expr *e, tl_expr **slot) {
  tl_expr *arm = *slot;
  if (arm->op == TL_OP_BLOCK && arm->imm.block.label == TL_NO_LABEL)
    dpush(st, e, D_LIST, arm->kid, arm->nkid);
  else
    dpush(st, e, D_LIST, slot, 1);
}

static void dpush_arm(tl_vec *st, tl_expr *e, uint32_t k) { dpush_arm_of(st, NULL, &e->kid[k]); }

/* The next arm of a try to look at (body, then handlers), or NULL. */
static tl_expr **next_try_arm(dfr *d) {
  tl_expr *e = d->e;
  while (d->i < e->nkid) {
    tl_expr *a = e->kid[d->i++];
    if (!a || a->op == TL_OP_DELEGATE) continue;
    if (d->i == 1) return &e->kid[0];
    if (a->nkid == 1 && a->kid[0]) return &a->kid[0];
  }
  return NULL;
}

static bool has_else(const tl_expr *e);

/* false when out of memory. */
static bool mark_cut(wr *w, tl_func *f) {
  tl_vec st = {0};
  uint32_t nl = f->nlabel, *live = tl_scratch_calloc(nl, sizeof *live);
  if (!live) return false;
  w->cut.n = 0;
  dpush(&st, NULL, D_LIST, f->body->kid, f->body->nkid);
  bool res = false, have = false;   /* a finished child's deadness, for the top */
  while (st.n) {
    dfr *d = &TL_VEC_AT(&st, dfr, st.n - 1);
    tl_expr *next = NULL;
    bool done = false;
    if (d->kind == D_TRY) {
      if (have) d->arms &= res;
      tl_expr **arm = next_try_arm(d);
      if (arm) dpush_arm_of(&st, NULL, arm);
      else done = true;
    } else if (d->kind != D_IF) {
      d->dead |= have && res;
      while (!d->dead && d->i < d->n) {   /* leaves are done here, as dstart does them */
        tl_expr *x = d->items[d->i++];
        if (!x) continue;
        if (x->nkid || (tl_ops[x->op].flags & TL_F_CONTROL)) {
          next = x;
          break;
        }
        count_branches(x, live, nl);
        d->dead = x->type == TL_UNREACHABLE;
      }
      done = !next;
    } else {   /* D_IF; d->i: the condition, then arm, else arm started */
      tl_expr *e = d->e;
      if (have && d->i == 1) d->dead = res;
      else if (have) d->arms &= res;
      if (e->nkid < 2 || !e->kid[0] || !e->kid[1]) done = true;   /* the writer fails */
      else if (d->i == 0) next = e->kid[d->i++];
      else if (d->dead) done = true;
      else if (d->i == 1) d->i = 2, dpush_arm(&st, e, 1);
      else if (d->i == 2 && has_else(e)) d->i = 3, dpush_arm(&st, e, 2);
      else done = true;
    }
    have = false;
    if (done) {
      dfr fin = *d;
      st.n--;
      res = dfinish(w, &fin, live, nl);
      have = true;
    } else if (next && dstart(&st, next, live, nl, &res)) {
      have = true;
    }
  }
  tl_vec_free(&st);
  tl_free(live);
  if (w->cut.n) qsort(w->cut.p, w->cut.n, sizeof(tl_expr *), ptr_cmp);
  return true;
}

/* Whether the statements it[0..cnt) take the n components of tuple local
 * l in order as they would from the stack: the first ones from the top
 * (top_taker), then one statement whose first instructions read the rest
 * (leading_extracts). Fills out[] with the reads. */
static bool takers(tl_expr **it, uint32_t cnt, uint32_t l, uint32_t n, tl_expr **out) {
  uint32_t top = 0;
  while (top < n && top < cnt && top_taker(it[top], l, n - 1 - top)) {
    out[n - 1 - top] = it[top]->kid[0];
    top++;
  }
  uint32_t rest = n - top;
  return !rest || (top < cnt && it[top] && leading_extracts(it[top], l, rest, out));
}

/* Checks the statement pairs of every list; marks the tuple locals left
 * with no reference (unused[l]); true if it marked any. */
static bool find_pairs(wr *w, tl_func *f, scan_ctx *c, bool *unused) {
  bool any = false;
  tl_vec out = {0};
  for (size_t j = 0; j < c->lists.n; j++) {
    tl_expr *L = TL_VEC_AT(&c->lists, tl_expr *, j);
    for (uint32_t k = 0; k + 1 < L->nkid; k++) {
      tl_expr *s = L->kid[k];
      if (!s || s->op != TL_OP_LOCAL_SET || s->nkid != 1 || !s->kid[0]) continue;
      uint32_t l = s->imm.index;
      if (l >= f->nlocal || !tl_type_is_tuple(f->local[l]) || s->kid[0]->type != f->local[l]) continue;
      uint32_t n = tl_type_arity(w->m, f->local[l]);
      if (c->gets[l] != n) continue;
      tl_vec_grow(&out, sizeof(tl_expr *), n);
      tl_expr **o = out.p;
      if (!takers(&L->kid[k + 1], L->nkid - k - 1, l, n, o)) continue;
      TL_VEC_PUSH(&w->elide_sets, tl_expr *, s);
      for (uint32_t i = 0; i < n; i++) TL_VEC_PUSH(&w->elide_gets, tl_expr *, o[i]);
      if (c->sets[l] == 1) unused[l] = any = true;
    }
  }
  tl_vec_free(&out);
  return any;
}

static void sort_elisions(wr *w) {
  if (w->elide_sets.n) qsort(w->elide_sets.p, w->elide_sets.n, sizeof(tl_expr *), ptr_cmp);
  if (w->elide_gets.n) qsort(w->elide_gets.p, w->elide_gets.n, sizeof(tl_expr *), ptr_cmp);
}

/* The first node s emits (a leaf), or NULL when s opens a block or loop
 * first. */
static const tl_expr *first_leaf(const tl_expr *e) {
  for (;;) {
    if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP || e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE)
      return NULL;
    uint32_t i = 0;
    while (i < e->nkid && !e->kid[i]) i++;
    if (i == e->nkid) return e;
    e = e->kid[i];
  }
}

/* The statement of list L that takes the last component of the elided
 * tuple set L->kid[i]. */
static uint32_t tuple_close(wr *w, tl_expr *L, uint32_t i) {
  uint32_t l = L->kid[i]->imm.index, n = tl_type_arity(w->m, w->f->local[l]), top = 0;
  while (top < n && i + 1 + top < L->nkid && top_taker(L->kid[i + 1 + top], l, n - 1 - top)) top++;
  return top == n ? i + top : i + 1 + top;
}

/* Spilled values (the reader's `local.set t (v)` for a value that stayed on
 * the stack under statements): when t is set and read once, the statements
 * after the set leave the stack as they find it, and the read is the first
 * thing a later statement of the same list emits, v is written in place
 * and left on the stack; t gets no wasm local. Lists are checked right to
 * left so that elided pairs nest (a pair between a set and its read must
 * close before that read). Only the reader's scratch locals are elided, so
 * that a read of the output finds nothing new (a fixed point). Marks
 * unused[t]; true if it marked any. */
enum { SPILL_SCAN = 256 };

/* If statement i of L opens an elided pair (a spill found earlier, cl[i],
 * or an elided tuple set), the statement that closes it; else 0. */
static uint32_t elided_close(wr *w, tl_expr *L, const uint32_t *cl, uint32_t i) {
  if (cl[i]) return cl[i];
  return in_set(&w->elide_sets, L->kid[i]) ? tuple_close(w, L, i) : 0;
}

static bool find_spills(wr *w, tl_func *f, scan_ctx *c, bool *unused) {
  uint32_t np = tl_func_nparams(w->m, f);
  bool any = false;
  tl_vec close = {0}; /* uint32_t per statement: index of its elided read, or 0 */
  tl_vec sets = {0}, gets = {0};
  for (size_t j = 0; j < c->lists.n; j++) {
    tl_expr *L = TL_VEC_AT(&c->lists, tl_expr *, j);
    tl_vec_grow(&close, sizeof(uint32_t), L->nkid);
    uint32_t *cl = close.p;
    memset(cl, 0, L->nkid * sizeof *cl);
    for (uint32_t k = L->nkid - 1; k-- > 0;) {
      tl_expr *s = L->kid[k];
      if (!s || s->op != TL_OP_LOCAL_SET || s->nkid != 1 || !s->kid[0]) continue;
      uint32_t t = s->imm.index;
      if (t < np || !f->has_scratch_base || t < f->scratch_base || t >= f->nlocal || tl_type_is_tuple(f->local[t]) || c->sets[t] != 1 || c->gets[t] != 1) continue;
      if (s->kid[0]->type != f->local[t] || in_set(&w->elide_sets, s) || in_set(&w->elide_gets, s->kid[0]))
        continue;
      uint32_t i = k + 1, lim = k + SPILL_SCAN < L->nkid ? k + SPILL_SCAN : L->nkid;
      const tl_expr *get = NULL;
      for (; i < lim && L->kid[i]; i++) {
        const tl_expr *x = first_leaf(L->kid[i]);
        if (x && x->op == TL_OP_LOCAL_GET && x->imm.index == t) {
          get = x;
          break;
        }
        tl_expr *y = L->kid[i];
        if (y->type != TL_NONE || in_set(&w->cut, y)) break;
        /* An elided pair opened here must close before our read; the
         * statement that closes it may open the next one (a chain). */
        uint32_t to;
        while ((to = elided_close(w, L, cl, i)) != 0) {
          i = to;
          if (!L->kid[i] || L->kid[i]->type != TL_NONE) break;
        }
        if (to) break;
      }
      if (!get) continue;
      cl[k] = i;
      TL_VEC_PUSH(&sets, tl_expr *, s);
      TL_VEC_PUSH(&gets, const tl_expr *, get);
      unused[t] = any = true;
    }
  }
  for (size_t i = 0; i < sets.n; i++) {
    TL_VEC_PUSH(&w->elide_sets, tl_expr *, TL_VEC_AT(&sets, tl_expr *, i));
    TL_VEC_PUSH(&w->elide_gets, tl_expr *, TL_VEC_AT(&gets, tl_expr *, i));
  }
  tl_vec_free(&close);
  tl_vec_free(&sets);
  tl_vec_free(&gets);
  return any;
}

/* A catch arm whose payload local p is one of the reader's scratch locals,
 * set nowhere else and read only by the first instructions of its handler
 * in order: the arm's values stay on the stack for them (the arm joins
 * elide_sets, the reads elide_gets) and p gets no wasm local. So reading
 * `catch $t` + `local.set $x` and writing it back gives the same bytes. */
static bool find_catches(wr *w, tl_func *f, scan_ctx *c, bool *unused) {
  bool any = false;
  tl_expr *one[1];
  tl_vec out = {0};
  for (size_t j = 0; j < c->catches.n; j++) {
    tl_expr *a = TL_VEC_AT(&c->catches, tl_expr *, j), *h = a->kid[0];
    uint32_t p = a->imm.idx2.a, n = tl_type_arity(w->m, f->local[p]);
    if (!f->has_scratch_base || p < f->scratch_base || c->sets[p] || c->gets[p] != n || !h) continue;
    tl_expr **it = &a->kid[0];
    uint32_t cnt = 1;
    if (h->op == TL_OP_BLOCK && h->imm.block.label == TL_NO_LABEL) it = h->kid, cnt = h->nkid;
    if (!cnt || !it[0]) continue;
    tl_expr **o = one;
    if (n == 1) {
      const tl_expr *x = first_leaf(it[0]);
      if (!x || x->op != TL_OP_LOCAL_GET || x->imm.index != p) continue;
      one[0] = (tl_expr *)x;
    } else {
      tl_vec_grow(&out, sizeof(tl_expr *), n);
      o = out.p;
      if (!takers(it, cnt, p, n, o)) continue;
    }
    TL_VEC_PUSH(&w->elide_sets, tl_expr *, a);
    for (uint32_t i = 0; i < n; i++) TL_VEC_PUSH(&w->elide_gets, tl_expr *, o[i]);
    unused[p] = any = true;
  }
  tl_vec_free(&out);
  return any;
}

/* Plans the elisions of function fi; unused tuple locals get no wasm local.
 * False when out of memory. */
/* Whether f has locals plan_elision could elide: tuple ones, or the
 * reader's scratch locals. */
static bool may_elide(const tl_func *f) {
  if (f->has_scratch_base && f->scratch_base < f->nlocal) return true;
  for (uint32_t l = 0; l < f->nlocal; l++)
    if (tl_type_is_tuple(f->local[l])) return true;
  return false;
}

static bool plan_elision(wr *w, tl_func *f, uint32_t fi) {
  w->elide_sets.n = w->elide_gets.n = 0;
  if (!f->body || f->nlocal <= tl_func_nparams(w->m, f) || !may_elide(f)) return true;
  scan_ctx c = {tl_scratch_calloc(f->nlocal, sizeof(uint32_t)), tl_scratch_calloc(f->nlocal, sizeof(uint32_t)), {0}, {0}};
  bool *unused = tl_scratch_calloc(f->nlocal, sizeof *unused), ok = c.gets && c.sets && unused;
  if (!ok) goto done;
  tl_walk_post(w->m, f, &f->body, scan_visit, &c);
  bool any = find_pairs(w, f, &c, unused);
  any |= find_catches(w, f, &c, unused);
  sort_elisions(w);
  any |= find_spills(w, f, &c, unused);
  sort_elisions(w);
  size_t size = (f->nlocal + 1) * sizeof(uint32_t);
  if (any && (!w->maps || !(w->maps[fi] = tl_scratch_realloc(NULL, f->nlocal + 1, sizeof(uint32_t))))) {
    ok = false;   /* (w->maps is allocated before any function is planned) */
    goto done;
  }
  if (any) {
    uint32_t n = 0, old = w->base[0];
    for (uint32_t i = 0; i < f->nlocal; i++) {
      uint32_t width = w->base[i + 1] - old;
      old = w->base[i + 1];
      w->base[i] = n;
      n += unused[i] ? 0 : width;
    }
    w->base[f->nlocal] = n;
    memcpy(w->maps[fi], w->base, size);
  }
done:
  tl_free(unused);
  tl_free(c.gets);
  tl_free(c.sets);
  tl_vec_free(&c.lists);
  tl_vec_free(&c.catches);
  return ok;
}

uint32_t *wr_local_map(wr *w, uint32_t fi) {
  tl_func *f = TL_FUNC(w->m, fi);
  if (!w->maps || !w->maps[fi]) return tl_func_local_map(w->m, f);
  size_t size = (f->nlocal + 1) * sizeof(uint32_t);
  uint32_t *p = tl_scratch_realloc(NULL, f->nlocal + 1, sizeof(uint32_t));
  if (p) memcpy(p, w->maps[fi], size);
  return p;
}

/* ---- the frame machine ---------------------------------------------------------------- */
static bool dead(const wr *w, const tl_expr *x) {
  return x && (x->type == TL_UNREACHABLE || in_set(&w->cut, x));
}

static void push_frame(wr *w, uint8_t kind, tl_expr *e, tl_expr **items, uint32_t n, tl_type want) {
  frame fr = {e, items, n, 0, kind, 0, want};
  TL_VEC_PUSH(&w->frames, frame, fr);
}

/* Starts emitting x: leaves are written at once, the rest get a frame. */
static tl_status enter(wr *w, tl_buf *b, tl_expr *x) {
  switch (x->op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: push_frame(w, K_BLOCK, x, NULL, 0, 0); return TL_OK;
  case TL_OP_IF: push_frame(w, K_IF, x, NULL, 0, 0); return TL_OK;
  case TL_OP_TRY: push_frame(w, K_TRY, x, NULL, 0, 0); return TL_OK;
  case TL_OP_TRY_TABLE: push_frame(w, K_TRY_TABLE, x, NULL, 0, 0); return TL_OK;
  case TL_OP_CATCH: case TL_OP_CATCH_ALL: case TL_OP_DELEGATE:
  case TL_OP_TT_CATCH: case TL_OP_TT_CATCH_REF: case TL_OP_TT_CATCH_ALL: case TL_OP_TT_CATCH_ALL_REF:
    return WR_FAIL(w, TL_E_INVALID, "%s outside its try or try_table", tl_ops[x->op].text);
  case TL_OP_LOCAL_GET:
    if (in_set(&w->elide_gets, x)) return TL_OK;   /* a spilled value, on the stack */
    break;
  case TL_OP_TUPLE_EXTRACT:
    if (x->nkid == 1 && is_tuple_local_get(w, x->kid[0])) {
      if (in_set(&w->elide_gets, x)) return TL_OK;   /* already on the stack */
      uint32_t l = x->kid[0]->imm.index;
      if (x->imm.index >= w->width[l])
        return WR_FAIL(w, TL_E_INVALID, "tuple.extract %u out of range", x->imm.index);
      local_op(b, 0x20, w->base[l] + x->imm.index);
      return TL_OK;
    }
    break;
  default: break;
  }
  if (x->nkid == 0) return emit_op(w, b, x);
  uint32_t d = 0;   /* the first dead child: e is cut short there */
  while (d < x->nkid && !dead(w, x->kid[d])) d++;
  push_frame(w, K_NODE, x, NULL, d, 0);
  return TL_OK;
}

/* An arm (of an if, a try or a try_table) of a construct of type want: an
 * unlabeled block is written inline, anything else as itself. */
static void push_arm_of(wr *w, tl_expr **slot, tl_type want) {
  tl_expr *arm = *slot;
  if (arm->op == TL_OP_BLOCK && arm->imm.block.label == TL_NO_LABEL)
    push_frame(w, K_LIST, NULL, arm->kid, arm->nkid, want);
  else
    push_frame(w, K_LIST, NULL, slot, 1, want);
}

static void push_arm(wr *w, tl_expr *e, uint32_t k) { push_arm_of(w, &e->kid[k], e->type); }

static bool has_else(const tl_expr *e) {
  if (e->nkid < 3 || !e->kid[2]) return false;
  const tl_expr *x = e->kid[2];
  return !(x->op == TL_OP_BLOCK && x->imm.block.label == TL_NO_LABEL && x->nkid == 0);
}


/* Steps through children written at once (leaves) without going back to
 * run; returns when one gets a frame of its own. */
static tl_status step_node(wr *w, tl_buf *b, frame *fr) {
  tl_expr *e = fr->e;
  size_t depth = w->frames.n;
  for (;;) {
    if (fr->i > 0 && dead(w, e->kid[fr->i - 1])) {   /* the rest and e are dead */
      w->frames.n--;
      return TL_OK;
    }
    /* Children before a dead one are dropped at once, as a reader of the
     * output keeps them (drop x), so that a rewrite gives the same bytes. */
    if (fr->i > 0 && fr->n < e->nkid && e->kid[fr->i - 1] && tl_type_is_concrete(e->kid[fr->i - 1]->type))
      drops(b, tl_type_arity(w->m, e->kid[fr->i - 1]->type));
    while (fr->i < e->nkid && !e->kid[fr->i]) fr->i++;
    if (fr->i >= e->nkid) break;
    TRY(enter(w, b, e->kid[fr->i++]));
    if (w->frames.n != depth) return TL_OK;   /* fr is still the top: no push moved it */
  }
  w->frames.n--;
  return emit_op(w, b, e);
}

static tl_status step_block(wr *w, tl_buf *b, frame *fr) {
  tl_expr *e = fr->e;
  if (fr->state == 0) {
    fr->state = 1;
    TRY(open_construct(w, b, e));
    push_frame(w, K_LIST, NULL, e->kid, e->nkid, e->type);
    return TL_OK;
  }
  w->frames.n--;
  close_construct(w, b, e);
  return TL_OK;
}

static tl_status step_if(wr *w, tl_buf *b, frame *fr) {
  tl_expr *e = fr->e;
  switch (fr->state++) {
  case 0:
    if (e->nkid < 2 || !e->kid[0] || !e->kid[1])
      return WR_FAIL(w, TL_E_INVALID, "if without a condition or a then arm");
    return enter(w, b, e->kid[0]);
  case 1:
    if (dead(w, e->kid[0])) {      /* only the condition is written */
      w->frames.n--;
      return TL_OK;
    }
    TRY(open_construct(w, b, e));
    push_arm(w, e, 1);
    return TL_OK;
  case 2:
    if (has_else(e)) {
      tl_buf_byte(b, 0x05);
      push_arm(w, e, 2);
    }
    return TL_OK;
  default:
    w->frames.n--;
    close_construct(w, b, e);
    return TL_OK;
  }
}

/* The values a catch arm finds on the stack: into its payload local, or
 * dropped, or left for the handler (an elided arm, see find_catches). */
static tl_status put_payload(wr *w, tl_buf *b, const tl_expr *a) {
  uint32_t p = a->imm.idx2.a, tag = a->imm.idx2.b;
  if (tag >= w->m->tags.n) return WR_FAIL(w, TL_E_INVALID, "catch: tag %u out of range", tag);
  if (in_set(&w->elide_sets, a)) return TL_OK;
  if (p == TL_NO_INDEX) {
    drops(b, tl_type_arity(w->m, tl_tag_params(w->m, tag)));
    return TL_OK;
  }
  tl_expr set;
  memset(&set, 0, sizeof set);
  set.op = TL_OP_LOCAL_SET;
  set.imm.index = p;
  return emit_local(w, b, &set);
}

/* A try: `try` and the body, then each arm (`catch` and its payload, or
 * `catch_all`) and `end`, or `delegate` with the depth outside the try. */
static tl_status step_try(wr *w, tl_buf *b, frame *fr) {
  tl_expr *e = fr->e;
  uint32_t i = fr->state++;
  if (i == 0) {
    if (!e->nkid || !e->kid[0]) return WR_FAIL(w, TL_E_INVALID, "try without a body");
    TRY(open_construct(w, b, e));
    push_arm(w, e, 0);
    return TL_OK;
  }
  if (i >= e->nkid) {
    w->frames.n--;
    close_construct(w, b, e);
    return TL_OK;
  }
  tl_expr *a = e->kid[i];
  if (!a) return WR_FAIL(w, TL_E_INVALID, "try: arm %u is missing", i);
  tl_type want = e->type;
  switch (a->op) {
  case TL_OP_DELEGATE:
    w->frames.n--;
    pop_label(w);
    tl_buf_byte(b, 0x18);
    TRY(put_depth(w, b, a->imm.label));
    if (e->type == TL_UNREACHABLE || in_set(&w->cut, e)) tl_buf_byte(b, 0x00);
    return TL_OK;
  case TL_OP_CATCH:
    tl_buf_byte(b, 0x07);
    wr_u32(b, a->imm.idx2.b);
    TRY(put_payload(w, b, a));
    break;
  case TL_OP_CATCH_ALL: tl_buf_byte(b, 0x19); break;
  default: return WR_FAIL(w, TL_E_INVALID, "try: arm %u is %s", i, tl_ops[a->op].text);
  }
  if (a->nkid != 1 || !a->kid[0]) return WR_FAIL(w, TL_E_INVALID, "%s without a handler", tl_ops[a->op].text);
  push_arm_of(w, &a->kid[0], want);
  return TL_OK;
}

/* A try_table: its opcode, block type and clauses, the body, `end`. */
static tl_status step_try_table(wr *w, tl_buf *b, frame *fr) {
  tl_expr *e = fr->e;
  if (fr->state++ == 0) {
    if (!e->nkid || !e->kid[0]) return WR_FAIL(w, TL_E_INVALID, "try_table without a body");
    TRY(open_construct(w, b, e));
    push_arm(w, e, 0);
    return TL_OK;
  }
  w->frames.n--;
  close_construct(w, b, e);
  return TL_OK;
}

/* A list of instructions: stops after the first unreachable one; a value
 * nobody takes (not last, or the construct has no result) is dropped. */
static tl_status step_list(wr *w, tl_buf *b, frame *fr) {
  if (fr->i > 0) {
    tl_expr *last = fr->items[fr->i - 1];
    if (dead(w, last)) {
      w->frames.n--;
      return TL_OK;
    }
    if (last && tl_type_is_concrete(last->type) &&
        (fr->i < fr->n || !tl_type_is_concrete(fr->want)))
      drops(b, tl_type_arity(w->m, last->type));
  }
  while (fr->i < fr->n && !fr->items[fr->i]) fr->i++;
  if (fr->i < fr->n) {
    tl_expr *x = fr->items[fr->i++];
    if (x->op == TL_OP_LOCAL_SET && in_set(&w->elide_sets, x)) x = x->kid[0];
    return enter(w, b, x);
  }
  w->frames.n--;
  return TL_OK;
}

static tl_status run(wr *w, tl_buf *b) {
  while (w->frames.n) {
    frame *fr = &TL_VEC_AT(&w->frames, frame, w->frames.n - 1);
    tl_status s;
    switch (fr->kind) {
    case K_NODE: s = step_node(w, b, fr); break;
    case K_BLOCK: s = step_block(w, b, fr); break;
    case K_IF: s = step_if(w, b, fr); break;
    case K_TRY: s = step_try(w, b, fr); break;
    case K_TRY_TABLE: s = step_try_table(w, b, fr); break;
    default: s = step_list(w, b, fr); break;
    }
    if (s) return s;
  }
  return TL_OK;
}

/* ---- functions ------------------------------------------------------------------------ */
/* False when out of memory. */
static bool reset_func(wr *w, tl_func *f, uint32_t fi) {
  w->f = f;
  w->fi = fi;
  w->nblk = 0;
  w->labels.n = w->frames.n = 0;
  w->stypes.n = 0;
  w->elide_sets.n = w->elide_gets.n = w->cut.n = 0;
  memset(w->scratch, 0, sizeof w->scratch);
  tl_free(w->base);
  tl_free(w->width);
  w->base = f ? tl_func_local_map(w->m, f) : NULL;
  w->width = NULL;
  uint32_t n = f ? f->nlabel : 0;
  if (n > w->npos) {
    tl_free(w->pos);
    w->npos = 0;
    if (!(w->pos = tl_scratch_realloc(NULL, n, sizeof *w->pos))) return false;
  }
  w->npos = n;
  for (uint32_t i = 0; i < n; i++) w->pos[i] = TL_NO_INDEX;
  return true;
}

/* Each IR local's width in wasm locals, from the map as elision left it
 * (consecutive: base[i + 1] - base[i]); false when out of memory. */
static bool take_widths(wr *w, tl_func *f) {
  if (!(w->width = tl_scratch_realloc(NULL, f->nlocal + 1, sizeof *w->width))) return false;
  for (uint32_t i = 0; i < f->nlocal; i++) w->width[i] = w->base[i + 1] - w->base[i];
  return true;
}

/* Declared locals grouped by type, as Binaryen's writer groups them (a run
 * of one type costs one declaration entry): the types in the order they
 * first appear, each local's relative order kept. Left as they are when a
 * tuple local is declared (its components must stay consecutive), when
 * DWARF is kept (its variable locations name locals by index, as in
 * Binaryen) or nothing moves; else the map goes to w->maps[fi] too (the name section
 * numbers local names through it, in index order). False when out of
 * memory. */
static bool group_locals(wr *w, tl_func *f, uint32_t fi, uint32_t np) {
  if (w->opt->dwarf && w->m->dwarf_locs) return true; /* DWARF names locals by index */
  tl_type order[TL_NBASIC];
  uint32_t ntypes = 0, next = w->base[np], moved = 0;
  bool seen[TL_NBASIC] = {false};
  for (uint32_t i = np; i < f->nlocal; i++) {
    tl_type t = f->local[i];
    if (t >= TL_NBASIC) return true; /* a tuple */
    if (w->width[i] && !seen[t]) seen[t] = true, order[ntypes++] = t;
  }
  for (uint32_t k = 0; k < ntypes; k++)
    for (uint32_t i = np; i < f->nlocal; i++) {
      if (!w->width[i] || f->local[i] != order[k]) continue;
      moved += w->base[i] != next;
      w->base[i] = next++;
    }
  if (moved) {
    if (!w->maps) return false;
    tl_free(w->maps[fi]);
    if (!(w->maps[fi] = tl_scratch_realloc(NULL, f->nlocal + 1, sizeof(uint32_t)))) return false;
    memcpy(w->maps[fi], w->base, (f->nlocal + 1) * sizeof(uint32_t));
  }
  return true;
}

/* The map kept for the name section marks the locals elision left out
 * (no wasm local: no name) with TL_NO_INDEX. */
static void mark_elided(wr *w, tl_func *f, uint32_t fi) {
  if (!w->maps || !w->maps[fi]) return;
  for (uint32_t i = 0; i < f->nlocal; i++)
    if (!w->width[i]) w->maps[fi][i] = TL_NO_INDEX;
}

/* Locals as runs of equal types: (count, type) pairs, in wasm index order
 * (scratch locals last). */
static tl_status put_locals(wr *w, tl_buf *b, uint32_t nparams) {
  tl_func *f = w->f;
  uint32_t from = w->base[nparams], nl = w->base[f->nlocal], to = nl + (uint32_t)w->stypes.n;
  tl_type *t = tl_scratch_realloc(NULL, to - from + 1, sizeof *t);
  if (!t) return wr_fail(w, tl_nomem(w->err, "writer"));
  for (uint32_t i = nparams; i < f->nlocal; i++)
    for (uint32_t k = 0; k < w->width[i]; k++) t[w->base[i] + k - from] = tl_type_at(w->m, f->local[i], k);
  for (uint32_t k = nl; k < to; k++) t[k - from] = TL_VEC_AT(&w->stypes, tl_type, k - nl);
  uint32_t runs = 0;
  for (uint32_t k = from; k < to; k++) runs += k == from || t[k - from] != t[k - 1 - from];
  wr_u32(b, runs);
  for (uint32_t k = from; k < to;) {
    uint32_t n = 1;
    while (k + n < to && t[k + n - from] == t[k - from]) n++;
    wr_u32(b, n);
    tl_status s = wr_valtype(w, b, t[k - from]);
    if (s) {
      tl_free(t);
      return s;
    }
    k += n;
  }
  tl_free(t);
  return TL_OK;
}

/* Encodes function fi: its locals into `locals`, its code (through the final
 * end) into `body`. */
static tl_status emit_func(wr *w, uint32_t fi, tl_buf *body, tl_buf *locals) {
  tl_module *m = w->m;
  tl_func *f = TL_FUNC(m, fi);
  if (f->lazy) { /* as read (and checked): locals and code, verbatim */
    w->locs.n = 0;
    tl_buf_put(body, f->code, f->code_size);
    return TL_OK;
  }
  if (!reset_func(w, f, fi)) return wr_fail(w, tl_nomem(w->err, "writer"));
  if (!f->body || f->body->op != TL_OP_BLOCK)
    return WR_FAIL(w, TL_E_INVALID, "function %u has no body block", fi);
  uint32_t np = tl_func_nparams(m, f);
  if (np > f->nlocal) return WR_FAIL(w, TL_E_INVALID, "function %u: fewer locals than params", fi);
  if (!mark_cut(w, f) || !plan_elision(w, f, fi) || !take_widths(w, f) || !group_locals(w, f, fi, np))
    return wr_fail(w, tl_nomem(w->err, "writer"));
  mark_elided(w, f, fi);
  w->locs.n = 0;
  TRY(push_label(w, f->body->imm.block.label, tl_func_type(m, f)->results));
  push_frame(w, K_LIST, NULL, f->body->kid, f->body->nkid, tl_func_type(m, f)->results);
  TRY(run(w, body));
  tl_buf_byte(body, 0x0b);
  pop_label(w);
  if (w->opt->optimize_stack) TRY(wr_stack_opt(w, body));
  return put_locals(w, locals, np);
}

/* One code section entry: its size, then locals and body. */
static void put_entry(tl_buf *out, const tl_buf *locals, const tl_buf *body) {
  wr_u32(out, (uint32_t)(locals->n + body->n));
  tl_buf_put(out, locals->p, locals->n);
  tl_buf_put(out, body->p, body->n);
}

/* A consuming write is done with function fi's body. */
static void consume(wr *w, uint32_t fi) {
  if (w->consume) tl_nodes_free_body(w->m, fi);
}

/* ---- the code section, on the pass pool ------------------------------------------- */
/* Big modules' bodies are encoded in parallel, each by a worker copy of the
 * writer into its own buffer, then appended in order, a window of functions
 * at a time (so the buffers held stay a fraction of the section). A body
 * that needs a block type the module lacks is redone serially afterwards, in
 * function order, so added types get the indices a serial write gives them;
 * a body that fails is redone serially to report (the first failing
 * function by index). Output is byte-identical to the serial write. */

enum { WIN_MIN = 256, WINDOWS = 16, NSCRATCH = 64 };

typedef struct {
  wr *w;               /* read-only while workers run */
  uint32_t base;       /* the window's first function index */
  tl_buf *out;         /* per function of the window: its locals + body */
  tl_vec *lnames;      /* per function of the window: its wr_lname */
  uint8_t *state;      /* per function of the window: P_* */
  /* stackopt scratch, one per worker at a time: a worker takes a free slot */
  atomic_bool busy[NSCRATCH];
  wr_so *so[NSCRATCH];
} par;

/* A free scratch slot for this worker (NSCRATCH if all are busy: the
 * worker then makes its own). */
static uint32_t take_scratch(par *p) {
  uint32_t k = 0;
  while (k < NSCRATCH && atomic_exchange(&p->busy[k], true)) k++;
  return k;
}

enum { P_OK, P_USES_DATA, P_SERIAL };

static void par_one(void *user, uint32_t k) {
  par *p = user;
  wr l;
  memset(&l, 0, sizeof l);
  tl_error err;
  l.m = p->w->m;
  l.err = &err;
  l.opt = p->w->opt;
  l.maps = p->w->maps;
  l.frozen = true;
  tl_buf body = {0};
  uint32_t fi = p->base + k, slot = take_scratch(p);
  if (slot < NSCRATCH) l.so = p->so[slot];
  tl_status s = emit_func(&l, fi, &body, &p->out[k]);
  if (slot < NSCRATCH) {
    p->so[slot] = l.so;   /* made or grown by wr_stack_opt */
    l.so = NULL;
    atomic_store(&p->busy[slot], false);
  }
  if (s || l.need_serial) {
    p->state[k] = P_SERIAL;
    tl_vec_free(&l.lnames);
  } else {
    p->state[k] = l.uses_data ? P_USES_DATA : P_OK;
    p->lnames[k] = l.lnames;
    tl_buf_put(&p->out[k], body.p, body.n);
    if (p->w->consume) tl_nodes_free_body(l.m, fi);
  }
  l.lnames = (tl_vec){0};
  l.maps = NULL;   /* shared */
  wr_free(&l);
  tl_buf_free(&body);
}

static bool worth_parallel(wr *w, uint32_t n) {
  tl_module *m = w->m;
  return n >= 2 && !m->arena.lock && !w->want_locs && tl_module_has_nodes(m, TL_PAR_MIN_NODES);
}

/* Appends the window's entries in order (redoing serial ones here). */
static tl_status flush_window(wr *w, par *p, uint32_t n, tl_buf *out) {
  tl_buf body = {0}, locals = {0};
  tl_status s = TL_OK;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t fi = p->base + k;
    if (!s && p->state[k] == P_SERIAL) {
      tl_free(w->maps[fi]);   /* the worker's plan */
      w->maps[fi] = NULL;
      body.n = locals.n = 0;
      if (!(s = emit_func(w, fi, &body, &locals))) {
        put_entry(out, &locals, &body);
        consume(w, fi);
      }
    } else if (!s) {
      w->uses_data |= p->state[k] == P_USES_DATA;
      for (size_t i = 0; i < p->lnames[k].n; i++)
        TL_VEC_PUSH(&w->lnames, wr_lname, TL_VEC_AT(&p->lnames[k], wr_lname, i));
      wr_u32(out, (uint32_t)p->out[k].n);
      tl_buf_put(out, p->out[k].p, p->out[k].n);
    }
    tl_buf_free(&p->out[k]);
    tl_vec_free(&p->lnames[k]);
  }
  tl_buf_free(&body);
  tl_buf_free(&locals);
  return s;
}

static tl_status code_parallel(wr *w, uint32_t n, tl_buf *out) {
  tl_module *m = w->m;
  uint32_t win = n / WINDOWS > WIN_MIN ? n / WINDOWS : WIN_MIN;
  if (win > n) win = n;
  par p = {w, 0, tl_scratch_calloc(win, sizeof(tl_buf)),
           tl_scratch_calloc(win, sizeof(tl_vec)), tl_scratch_calloc(win, 1), {0}, {0}};
  for (uint32_t k = 0; k < NSCRATCH; k++) atomic_init(&p.busy[k], false);
  tl_status s = TL_OK;
  if (!p.out || !p.lnames || !p.state) s = tl_nomem(w->err, "writer");
  tl_pass_options po = {.threads = w->opt ? w->opt->threads : 0};
  tl_pass_ctx ctx = {.m = m, .opt = &po};
  for (uint32_t lo = 0; lo < n && !s; lo += win) {
    uint32_t cnt = n - lo < win ? n - lo : win;
    p.base = m->nimported_funcs + lo;
    tl_run_parallel(&ctx, cnt, par_one, &p);
    s = flush_window(w, &p, cnt, out);
  }
  tl_free(p.out);
  tl_free(p.lnames);
  tl_free(p.state);
  for (uint32_t k = 0; k < NSCRATCH; k++) wr_so_free(p.so[k]);
  return s;
}

/* With an output source map: the function's mappings, at their offsets in
 * the code section (ending at `end`): its prolog at the local
 * declarations, its nodes' in the code, its epilog at the final end. */
static void add_locations(wr *w, const tl_func *f, size_t end, size_t nlocals, size_t nbody) {
  if (f->prolog.line) {
    tl_srcmap_entry e = {(uint32_t)(end - nbody - nlocals), true, f->prolog};
    TL_VEC_PUSH(&w->smap, tl_srcmap_entry, e);
  }
  for (size_t k = 0; k < w->locs.n; k++) {
    tl_srcmap_entry e = TL_VEC_AT(&w->locs, tl_srcmap_entry, k);
    e.offset += (uint32_t)(end - nbody);
    TL_VEC_PUSH(&w->smap, tl_srcmap_entry, e);
  }
  if (f->epilog.line) {
    tl_srcmap_entry e = {(uint32_t)(end - 1), true, f->epilog};
    TL_VEC_PUSH(&w->smap, tl_srcmap_entry, e);
  }
}

tl_status wr_code_section(wr *w, tl_buf *out) {
  tl_module *m = w->m;
  tl_buf body = {0}, locals = {0};
  tl_status s = TL_OK;
  uint32_t n = (uint32_t)m->funcs.n - m->nimported_funcs;
  wr_u32(out, n);
  if (!w->maps && !(w->maps = tl_scratch_calloc(m->funcs.n, sizeof *w->maps)))
    return tl_nomem(w->err, "writer");
  if (worth_parallel(w, n)) {
    s = code_parallel(w, n, out);
  } else {
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n && !s; i++) {
      body.n = locals.n = 0;
      if ((s = emit_func(w, i, &body, &locals))) break;
      put_entry(out, &locals, &body);
      if (w->want_locs) add_locations(w, TL_FUNC(m, i), out->n, locals.n, body.n);
      consume(w, i);
    }
  }
  tl_buf_free(&body);
  tl_buf_free(&locals);
  reset_func(w, NULL, TL_NO_FUNC);
  return s;
}

tl_status wr_const_expr(wr *w, tl_buf *b, tl_expr **e, const char *what) {
  if (!*e) return WR_FAIL(w, TL_E_INVALID, "%s has no expression", what);
  reset_func(w, NULL, TL_NO_FUNC);
  push_frame(w, K_LIST, NULL, e, 1, (*e)->type);
  TRY(run(w, b));
  tl_buf_byte(b, 0x0b);
  return TL_OK;
}

void wr_free(wr *w) {
  tl_vec *v[] = {&w->extra,  &w->tcache, &w->lnames,     &w->stypes, &w->labels,
                 &w->frames, &w->elide_sets, &w->elide_gets, &w->cut, &w->locs, &w->smap};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) tl_vec_free(v[i]);
  tl_dwarf_free(&w->dwarf);
  for (size_t i = 0; w->maps && i < w->m->funcs.n; i++) tl_free(w->maps[i]);
  tl_free(w->maps);
  w->maps = NULL;
  tl_free(w->base);
  tl_free(w->width);
  tl_free(w->pos);
  w->base = w->pos = w->width = NULL;
  wr_so_free(w->so);
  w->so = NULL;
}
