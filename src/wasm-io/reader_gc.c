/* reader_gc.c — the GC and typed-reference instructions of a function body
 * (opcodes_gc.def; call_ref, ref.as_non_null, br_on_null...): immediates,
 * validation on the wasm value stack (subtyping by tl_type_sub), and the IR
 * nodes; and the ones a constant expression may hold (struct.new*,
 * array.new, array.new_default, array.new_fixed, ref.i31,
 * any.convert_extern, extern.convert_any). br_on_* to a loop or to a label
 * of several values are lowered (reader_code.c rdc_br_on_lowered). Called
 * from reader_code.c's do_special and reader.c's rd_const_expr. Errors
 * carry the instruction's offset. */
#include "reader_int.h"

#include <string.h>

static tl_status rd_typeidx(fctx *x, uint8_t kind, uint32_t *idx) {
  TRY(rd_u32(x->r, idx, "type index"));
  if (*idx >= x->m->types.n) return rdc_fail(x, TL_E_INVALID, "unknown type %u", *idx);
  uint8_t k = TL_FTYPE(x->m, *idx)->kind;
  if (k != kind)
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: type %u is not a%s type", x->opname, *idx,
                    kind == TL_DT_STRUCT ? " struct" : kind == TL_DT_ARRAY ? "n array" : " function");
  return TL_OK;
}

static tl_status rd_field(fctx *x, uint32_t t, uint32_t *field) {
  TRY(rd_u32(x->r, field, "field index"));
  if (*field >= TL_FTYPE(x->m, t)->nfields) return rdc_fail(x, TL_E_INVALID, "unknown field %u", *field);
  return TL_OK;
}

/* A reference type immediate of ref.test/ref.cast (nullable or not). */
static tl_status rd_castheap(fctx *x, bool nullable, tl_type *out) {
  uint32_t ht;
  TRY(rd_heaptype(x->c, x->r, &ht));
  *out = tl_ref(ht, nullable);
  return TL_OK;
}

static tl_expr *node(fctx *x, int op, uint32_t nkid) { return tl_expr_new(x->m, (tl_op)op, nkid); }

/* Pops kid k..0 (stack order) with the wanted types. */
static tl_status pops(fctx *x, tl_expr *e, const tl_type *want) {
  for (uint32_t k = e->nkid; k-- > 0;) TRY(rdc_pop(x, want[k], &e->kid[k], NULL));
  return TL_OK;
}

static tl_status done(fctx *x, tl_expr *e, tl_type t) {
  tl_expr_finalize(x->m, x->f, e);
  rdc_push(x, e, t);
  return TL_OK;
}

static tl_status need_mut(fctx *x, const tl_field *f, bool array) {
  if (!f->mut) return rdc_fail(x, TL_E_INVALID, array ? "immutable array" : "immutable field");
  return TL_OK;
}

static tl_status do_struct(fctx *x, int op) {
  tl_module *m = x->m;
  uint32_t t, fi = 0;
  TRY(rd_typeidx(x, TL_DT_STRUCT, &t));
  tl_deftype *d = TL_FTYPE(m, t);
  tl_type ref = tl_gc_ref_of(m, t, true);
  tl_expr *e;
  if (op == TL_OP_STRUCT_NEW || op == TL_OP_STRUCT_NEW_DEFAULT) {
    bool def = op == TL_OP_STRUCT_NEW_DEFAULT;
    e = node(x, op, def ? 0 : d->nfields);
    e->imm.index = t;
    for (uint32_t k = 0; def && k < d->nfields; k++)
      if (!tl_type_defaultable(d->fields[k].type))
        return rdc_fail(x, TL_E_INVALID, "type mismatch in struct.new_default: field %u has no default", k);
    for (uint32_t k = e->nkid; k-- > 0;) TRY(rdc_pop(x, tl_gc_unpacked(&d->fields[k]), &e->kid[k], NULL));
    return done(x, e, tl_gc_ref_of(m, t, false));
  }
  TRY(rd_field(x, t, &fi));
  const tl_field *f = &d->fields[fi];
  e = node(x, op, op == TL_OP_STRUCT_SET ? 2 : 1);
  e->imm.idx2.a = t, e->imm.idx2.b = fi;
  if (op == TL_OP_STRUCT_SET) {
    TRY(need_mut(x, f, false));
    tl_type w[2] = {ref, tl_gc_unpacked(f)};
    TRY(pops(x, e, w));
    return done(x, e, TL_NONE);
  }
  if ((op == TL_OP_STRUCT_GET) != (f->pack == TL_PACK_NONE))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: field is %spacked", x->opname,
                    f->pack ? "" : "not ");
  TRY(pops(x, e, &ref));
  return done(x, e, tl_gc_unpacked(f));
}

static tl_status do_array_new(fctx *x, int op) {
  tl_module *m = x->m;
  uint32_t t, n = 0;
  TRY(rd_typeidx(x, TL_DT_ARRAY, &t));
  const tl_field *f = &TL_FTYPE(m, t)->fields[0];
  tl_type et = tl_gc_unpacked(f);
  tl_expr *e;
  switch (op) {
  case TL_OP_ARRAY_NEW: {
    e = node(x, op, 2);
    tl_type w[2] = {et, TL_I32};
    TRY(pops(x, e, w));
    break;
  }
  case TL_OP_ARRAY_NEW_DEFAULT:
    if (!tl_type_defaultable(f->type))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in array.new_default: element has no default");
    e = node(x, op, 1);
    TRY(rdc_pop(x, TL_I32, &e->kid[0], NULL));
    break;
  case TL_OP_ARRAY_NEW_FIXED:
    TRY(rd_u32(x->r, &n, "array.new_fixed count"));
    if (n > 10000) return rdc_fail(x, TL_E_LIMIT, "array.new_fixed of %u elements: over the limit of 10000", n);
    e = node(x, op, n);
    for (uint32_t k = n; k-- > 0;) TRY(rdc_pop(x, et, &e->kid[k], NULL));
    e->imm.idx2.a = t, e->imm.idx2.b = n;
    return done(x, e, tl_gc_ref_of(m, t, false));
  default: { /* new_data, new_elem */
    uint32_t seg;
    bool data = op == TL_OP_ARRAY_NEW_DATA;
    TRY(rd_u32(x->r, &seg, data ? "data index" : "elem index"));
    TRY(data ? rdc_need_data(x, seg) : rdc_need_elem(x, seg));
    if (data && tl_type_is_ref(et))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in array.new_data: element type is a reference");
    if (!data && !tl_type_sub(m, TL_ELEM(m, seg)->type, f->type))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in array.new_elem: segment type is not the element type");
    e = node(x, op, 2);
    tl_type w[2] = {TL_I32, TL_I32};
    TRY(pops(x, e, w));
    e->imm.idx2.a = t, e->imm.idx2.b = seg;
    return done(x, e, tl_gc_ref_of(m, t, false));
  }
  }
  e->imm.index = t;
  return done(x, e, tl_gc_ref_of(m, t, false));
}

static tl_status do_array_access(fctx *x, int op) {
  tl_module *m = x->m;
  uint32_t t, seg = 0;
  TRY(rd_typeidx(x, TL_DT_ARRAY, &t));
  const tl_field *f = &TL_FTYPE(m, t)->fields[0];
  tl_type ref = tl_gc_ref_of(m, t, true), et = tl_gc_unpacked(f);
  tl_expr *e;
  switch (op) {
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U: {
    if ((op == TL_OP_ARRAY_GET) != (f->pack == TL_PACK_NONE))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: element is %spacked", x->opname,
                      f->pack ? "" : "not ");
    e = node(x, op, 2);
    tl_type w[2] = {ref, TL_I32};
    TRY(pops(x, e, w));
    e->imm.index = t;
    return done(x, e, et);
  }
  case TL_OP_ARRAY_SET: {
    TRY(need_mut(x, f, true));
    e = node(x, op, 3);
    tl_type w[3] = {ref, TL_I32, et};
    TRY(pops(x, e, w));
    e->imm.index = t;
    return done(x, e, TL_NONE);
  }
  case TL_OP_ARRAY_FILL: {
    TRY(need_mut(x, f, true));
    e = node(x, op, 4);
    tl_type w[4] = {ref, TL_I32, et, TL_I32};
    TRY(pops(x, e, w));
    e->imm.index = t;
    return done(x, e, TL_NONE);
  }
  case TL_OP_ARRAY_COPY: {
    uint32_t s;
    TRY(need_mut(x, f, true));
    TRY(rd_typeidx(x, TL_DT_ARRAY, &s));
    const tl_field *sf = &TL_FTYPE(m, s)->fields[0];
    if (sf->pack != f->pack || (!f->pack && !tl_type_sub(m, sf->type, f->type)))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in array.copy: element types differ");
    e = node(x, op, 5);
    tl_type w[5] = {ref, TL_I32, tl_gc_ref_of(m, s, true), TL_I32, TL_I32};
    TRY(pops(x, e, w));
    e->imm.idx2.a = t, e->imm.idx2.b = s;
    return done(x, e, TL_NONE);
  }
  default: { /* init_data, init_elem */
    bool data = op == TL_OP_ARRAY_INIT_DATA;
    TRY(need_mut(x, f, true));
    TRY(rd_u32(x->r, &seg, data ? "data index" : "elem index"));
    TRY(data ? rdc_need_data(x, seg) : rdc_need_elem(x, seg));
    if (data && tl_type_is_ref(et))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in array.init_data: element type is a reference");
    if (!data && !tl_type_sub(m, TL_ELEM(m, seg)->type, f->type))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in array.init_elem: segment type is not the element type");
    e = node(x, op, 4);
    tl_type w[4] = {ref, TL_I32, TL_I32, TL_I32};
    TRY(pops(x, e, w));
    e->imm.idx2.a = t, e->imm.idx2.b = seg;
    return done(x, e, TL_NONE);
  }
  }
}

/* ref.test, ref.cast: the operand is of the target's hierarchy. */
static tl_status do_cast(fctx *x, int op) {
  tl_type ct;
  bool nullable = op == TL_OP_REF_TEST_NULL || op == TL_OP_REF_CAST_NULL;
  TRY(rd_castheap(x, nullable, &ct));
  int base = op == TL_OP_REF_TEST || op == TL_OP_REF_TEST_NULL ? TL_OP_REF_TEST : TL_OP_REF_CAST;
  tl_expr *e = node(x, base, 1);
  e->imm.index = ct;
  tl_type top = tl_ref(tl_heap_top(x->m, tl_ref_heap(ct)), true);
  TRY(rdc_pop(x, top, &e->kid[0], NULL));
  tl_expr *k = e->kid[0];
  /* br_if, then a cast to its value's own type: what the writer adds after
   * a br_if whose value is more precise than its label (writer_code.c
   * emit_br_if). The br_if alone, so that write and read are a fixed point. */
  if (base == TL_OP_REF_CAST && k->op == TL_OP_BR_IF && k->nkid == 2 && k->type == ct) {
    rdc_push(x, k, ct);
    return TL_OK;
  }
  return done(x, e, base == TL_OP_REF_TEST ? TL_I32 : ct);
}

/* br_on_cast(_fail) flags l rt1 rt2: rt2 <: rt1, the operand <: rt1; the
 * label takes rt2 (br_on_cast) or rt1 \ rt2 (_fail) as its last value. */
static tl_status do_br_on_cast(fctx *x, int op) {
  tl_module *m = x->m;
  uint8_t fl;
  uint32_t depth, label, ht1, ht2;
  TRY(rd_byte(x->r, &fl, "br_on_cast flags"));
  if (fl > 3) return rdc_fail(x, TL_E_MALFORMED, "malformed br_on_cast flags 0x%02x", fl);
  TRY(rd_u32(x->r, &depth, "label"));
  TRY(rd_heaptype(x->c, x->r, &ht1));
  TRY(rd_heaptype(x->c, x->r, &ht2));
  tl_type rt1 = tl_ref(ht1, fl & 1), rt2 = tl_ref(ht2, fl & 2);
  if (!tl_type_sub(m, rt2, rt1))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: cast type is not a subtype of the input type",
                    x->opname);
  tl_type lt, sent = op == TL_OP_BR_ON_CAST ? rt2 : (fl & 2 ? tl_ref_with_null(rt1, false) : rt1);
  tl_type fall = op == TL_OP_BR_ON_CAST ? (fl & 2 ? tl_ref_with_null(rt1, false) : rt1) : rt2;
  bool loop;
  TRY(rdc_br_target(x, depth, &label, &lt, &loop));
  uint32_t n = tl_type_arity(m, lt);
  if (n == 0) return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: the label takes no reference", x->opname);
  tl_type last = tl_type_at(m, lt, n - 1);
  if (!tl_type_sub(m, sent, last))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected %s but got %s", x->opname, rdc_tname(last),
                    rdc_tname(sent));
  tl_expr *e = node(x, op, 1);
  e->imm.idx2.a = label, e->imm.idx2.b = rt2;
  tl_type in;
  TRY(rdc_pop(x, rt1, &e->kid[0], &in));
  if (loop || n != 1) return rdc_br_on_lowered(x, op, depth, e->kid[0], in, rt2, fall);
  tl_expr_finalize(m, x->f, e);
  rdc_note_branch(x, label, e);
  rdc_push(x, e, fall);
  return TL_OK;
}

/* call_ref $t, return_call_ref $t: the arguments, then a (ref null $t). */
static tl_status do_call_ref(fctx *x, int op) {
  tl_module *m = x->m;
  uint32_t t;
  TRY(rd_typeidx(x, TL_DT_FUNC, &t));
  const tl_deftype *d = TL_FTYPE(m, t);
  uint32_t np = tl_type_arity(m, d->params);
  bool tail = op == TL_OP_RETURN_CALL_REF;
  if (tail && !tl_type_sub(m, d->results, tl_func_type(m, x->f)->results))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: callee results differ from the caller's", x->opname);
  tl_expr *e = node(x, op, np + 1);
  e->imm.index = t;
  TRY(rdc_pop(x, tl_gc_ref_of(m, t, true), &e->kid[np], NULL));
  for (uint32_t k = np; k-- > 0;) TRY(rdc_pop(x, tl_type_at(m, d->params, k), &e->kid[k], NULL));
  tl_expr_finalize(m, x->f, e);
  if (!tail) {
    rdc_push(x, e, d->results);
    return TL_OK;
  }
  rdc_push(x, e, TL_NONE);
  rdc_set_unreachable(x);
  return TL_OK;
}

/* br_on_null l: [(ref null ht)] -> [(ref ht)], l takes nothing;
 * br_on_non_null l: [(ref null ht)] -> [], l takes (ref ht) last. Labels
 * that take more values are not modelled yet. */
static tl_status do_br_on_null(fctx *x, int op) {
  tl_module *m = x->m;
  uint32_t depth, label;
  tl_type lt, t;
  bool loop;
  TRY(rd_u32(x->r, &depth, "label"));
  TRY(rdc_br_target(x, depth, &label, &lt, &loop));
  uint32_t n = tl_type_arity(m, lt), want = op == TL_OP_BR_ON_NULL ? 0 : 1;
  tl_expr *e = node(x, op, 1);
  e->imm.label = label;
  TRY(rdc_pop(x, TL_UNREACHABLE, &e->kid[0], &t));
  if (loop && n == 0) loop = false; /* a branch to a loop without params: as to a block */
  if (t != TL_UNREACHABLE && !tl_type_is_ref(t))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected a reference but got %s", x->opname,
                    rdc_tname(t));
  if (op == TL_OP_BR_ON_NON_NULL && n == 0)
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: the label takes no reference", x->opname);
  tl_type nn = t == TL_UNREACHABLE ? t : tl_ref_with_null(t, false);
  if (want && !tl_type_sub(m, nn, tl_type_at(m, lt, n - 1)))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected %s but got %s", x->opname,
                    rdc_tname(tl_type_at(m, lt, n - 1)), rdc_tname(nn));
  if (loop || n != want) return rdc_br_on_lowered(x, op, depth, e->kid[0], t, TL_UNREACHABLE, nn);
  tl_expr_finalize(m, x->f, e);
  rdc_note_branch(x, label, e);
  if (op == TL_OP_BR_ON_NULL) rdc_push(x, e, nn);
  else rdc_push(x, e, TL_NONE);
  return TL_OK;
}

tl_status rdg_instr(fctx *x, int op) {
  tl_expr *e;
  tl_type t;
  switch (op) {
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S:
  case TL_OP_STRUCT_GET_U: case TL_OP_STRUCT_SET:
    return do_struct(x, op);
  case TL_OP_ARRAY_NEW: case TL_OP_ARRAY_NEW_DEFAULT: case TL_OP_ARRAY_NEW_FIXED: case TL_OP_ARRAY_NEW_DATA:
  case TL_OP_ARRAY_NEW_ELEM:
    return do_array_new(x, op);
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U: case TL_OP_ARRAY_SET:
  case TL_OP_ARRAY_FILL: case TL_OP_ARRAY_COPY: case TL_OP_ARRAY_INIT_DATA: case TL_OP_ARRAY_INIT_ELEM:
    return do_array_access(x, op);
  case TL_OP_ARRAY_LEN:
    e = node(x, op, 1);
    TRY(rdc_pop(x, tl_ref(TL_HT_ARRAY, true), &e->kid[0], NULL));
    return done(x, e, TL_I32);
  case TL_OP_REF_TEST: case TL_OP_REF_TEST_NULL: case TL_OP_REF_CAST: case TL_OP_REF_CAST_NULL:
    return do_cast(x, op);
  case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL: return do_br_on_cast(x, op);
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: return do_call_ref(x, op);
  case TL_OP_BR_ON_NULL: case TL_OP_BR_ON_NON_NULL: return do_br_on_null(x, op);
  case TL_OP_REF_AS_NON_NULL:
    e = node(x, op, 1);
    TRY(rdc_pop(x, TL_UNREACHABLE, &e->kid[0], &t));
    if (t != TL_UNREACHABLE && !tl_type_is_ref(t))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected a reference but got %s", x->opname,
                      rdc_tname(t));
    return done(x, e, t == TL_UNREACHABLE ? t : tl_ref_with_null(t, false));
  case TL_OP_ANY_CONVERT_EXTERN: case TL_OP_EXTERN_CONVERT_ANY: {
    bool in = op == TL_OP_ANY_CONVERT_EXTERN;
    e = node(x, op, 1);
    TRY(rdc_pop(x, tl_ref(in ? TL_HT_EXTERN : TL_HT_ANY, true), &e->kid[0], &t));
    bool null = t == TL_UNREACHABLE || tl_ref_nullable(t);
    return done(x, e, tl_ref(in ? TL_HT_ANY : TL_HT_EXTERN, null));
  }
  case TL_OP_REF_I31:
    e = node(x, op, 1);
    TRY(rdc_pop(x, TL_I32, &e->kid[0], NULL));
    return done(x, e, tl_ref(TL_HT_I31, false));
  case TL_OP_I31_GET_S: case TL_OP_I31_GET_U:
    e = node(x, op, 1);
    TRY(rdc_pop(x, tl_ref(TL_HT_I31, true), &e->kid[0], NULL));
    return done(x, e, TL_I32);
  case TL_OP_REF_EQ: {
    e = node(x, op, 2);
    tl_type w[2] = {tl_ref(TL_HT_EQ, true), tl_ref(TL_HT_EQ, true)};
    TRY(pops(x, e, w));
    return done(x, e, TL_I32);
  }
  default: return rdc_fail(x, TL_E_MALFORMED, "unexpected opcode %s", x->opname);
  }
}

/* ------------------------------------------------------- constant expressions */
bool rdg_const_ok(int op) {
  switch (op) {
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: case TL_OP_ARRAY_NEW: case TL_OP_ARRAY_NEW_DEFAULT:
  case TL_OP_ARRAY_NEW_FIXED: case TL_OP_REF_I31: case TL_OP_ANY_CONVERT_EXTERN: case TL_OP_EXTERN_CONVERT_ANY:
    return true;
  default: return false;
  }
}

static tl_status c_typeidx(rctx *c, rd *r, const uint8_t *at, uint8_t kind, uint32_t *idx) {
  TRY(rd_u32(r, idx, "type index"));
  if (*idx >= c->m->types.n) return rd_fail_at(r, at, TL_E_INVALID, "unknown type %u", *idx);
  if (TL_FTYPE(c->m, *idx)->kind != kind) return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in constant expression");
  return TL_OK;
}

/* Pops the operands of e (nkid of them) from st[0..*n) with types want[k]
 * (want_all: every operand of that type). */
static tl_status c_pops(rd *r, const uint8_t *at, tl_module *m, tl_expr *e, tl_expr **st, uint32_t *n,
                        const tl_type *want, tl_type want_all) {
  if (*n < e->nkid) return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in %s", tl_ops[e->op].text);
  for (uint32_t k = e->nkid; k-- > 0;) {
    tl_expr *v = st[--*n];
    tl_type w = want ? want[k] : want_all;
    if (!tl_type_sub(m, v->type, w))
      return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in %s", tl_ops[e->op].text);
    e->kid[k] = v;
  }
  return TL_OK;
}

tl_status rdg_const(rctx *c, rd *r, int op, const uint8_t *at, tl_expr **st, uint32_t *n, tl_expr **out) {
  tl_module *m = c->m;
  uint32_t t, cnt;
  tl_expr *e;
  switch (op) {
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: {
    TRY(c_typeidx(c, r, at, TL_DT_STRUCT, &t));
    tl_deftype *d = TL_FTYPE(m, t);
    bool def = op == TL_OP_STRUCT_NEW_DEFAULT;
    e = tl_expr_new(m, (tl_op)op, def ? 0 : d->nfields);
    e->imm.index = t;
    for (uint32_t k = 0; k < d->nfields; k++) {
      if (def && !tl_type_defaultable(d->fields[k].type))
        return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in struct.new_default");
      if (!def) {
        tl_type w = tl_gc_unpacked(&d->fields[k]);
        if (*n < d->nfields) return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in struct.new");
        tl_expr *v = st[*n - d->nfields + k];
        if (!tl_type_sub(m, v->type, w)) return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in struct.new");
        e->kid[k] = v;
      }
    }
    if (!def) *n -= d->nfields;
    break;
  }
  case TL_OP_ARRAY_NEW: case TL_OP_ARRAY_NEW_DEFAULT: case TL_OP_ARRAY_NEW_FIXED: {
    TRY(c_typeidx(c, r, at, TL_DT_ARRAY, &t));
    const tl_field *f = &TL_FTYPE(m, t)->fields[0];
    tl_type et = tl_gc_unpacked(f);
    if (op == TL_OP_ARRAY_NEW_FIXED) {
      TRY(rd_u32(r, &cnt, "array.new_fixed count"));
      if (cnt > 10000) return rd_fail_at(r, at, TL_E_LIMIT, "array.new_fixed of %u elements: over the limit of 10000", cnt);
      e = tl_expr_new(m, (tl_op)op, cnt);
      e->imm.idx2.a = t, e->imm.idx2.b = cnt;
      TRY(c_pops(r, at, m, e, st, n, NULL, et));
    } else if (op == TL_OP_ARRAY_NEW) {
      e = tl_expr_new(m, (tl_op)op, 2);
      e->imm.index = t;
      tl_type w[2] = {et, TL_I32};
      TRY(c_pops(r, at, m, e, st, n, w, 0));
    } else {
      if (!tl_type_defaultable(f->type)) return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in array.new_default");
      e = tl_expr_new(m, (tl_op)op, 1);
      e->imm.index = t;
      TRY(c_pops(r, at, m, e, st, n, NULL, TL_I32));
    }
    break;
  }
  case TL_OP_REF_I31:
    e = tl_expr_new(m, (tl_op)op, 1);
    TRY(c_pops(r, at, m, e, st, n, NULL, TL_I32));
    break;
  default: /* the extern conversions */
    e = tl_expr_new(m, (tl_op)op, 1);
    TRY(c_pops(r, at, m, e, st, n, NULL,
               tl_ref(op == TL_OP_ANY_CONVERT_EXTERN ? TL_HT_EXTERN : TL_HT_ANY, true)));
    break;
  }
  tl_expr_finalize(m, NULL, e);
  *out = e;
  return TL_OK;
}
