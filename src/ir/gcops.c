/* gcops.c — the types of the GC instructions (opcodes_gc.def): the natural
 * type finalize.c gives each node and the value br_on_cast(_fail),
 * br_on_null and br_on_non_null send their label; also the typed function
 * reference instructions (call_ref, ref.as_non_null...). Assumes the node's immediates were checked (reader, validator):
 * type indices name types of the right kind, fields exist. */
#include "ir.h"

tl_type tl_gc_unpacked(const tl_field *f) { return f->pack != TL_PACK_NONE ? TL_I32 : f->type; }

bool tl_type_defaultable(tl_type t) { return !tl_type_is_ref(t) || tl_ref_nullable(t); }

/* The reference to module type idx (by its canonical index). */
tl_type tl_gc_ref_of(const tl_module *m, uint32_t idx, bool nullable) {
  if (idx >= m->types.n) return TL_NONE; /* a bad immediate (C API): the validator says so */
  return tl_ref_def(TL_FTYPE(m, idx)->canon, nullable);
}

/* Field k of type idx, or NULL when the immediates do not name one. */
static const tl_field *field_of(const tl_module *m, uint32_t idx, uint32_t k) {
  if (idx >= m->types.n) return NULL;
  const tl_deftype *d = TL_FTYPE(m, idx);
  return d->kind != TL_DT_FUNC && k < d->nfields ? &d->fields[k] : NULL;
}

static tl_type field_type(const tl_module *m, uint32_t idx, uint32_t k) {
  const tl_field *f = field_of(m, idx, k);
  return f ? tl_gc_unpacked(f) : TL_NONE;
}

/* r without the values of cast type c: non-null when c admits null. */
static tl_type minus(tl_type r, tl_type c) {
  if (!tl_type_is_ref(r) || !tl_ref_nullable(c)) return r;
  return tl_ref_with_null(r, false);
}

/* A cast's target type: the immediate, when it is a reference type of m. */
static tl_type cast_target(const tl_module *m, tl_type t) {
  return tl_type_is_ref(t) && tl_type_valid(m, t) ? t : TL_NONE;
}

tl_type tl_gc_natural_type(const tl_module *m, const tl_expr *e) {
  tl_type in = e->nkid ? e->kid[0]->type : TL_NONE;
  switch (e->op) {
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: case TL_OP_ARRAY_NEW:
  case TL_OP_ARRAY_NEW_DEFAULT: case TL_OP_ARRAY_NEW_DATA: case TL_OP_ARRAY_NEW_ELEM:
    return tl_gc_ref_of(m, e->imm.index, false);
  case TL_OP_ARRAY_NEW_FIXED: return tl_gc_ref_of(m, e->imm.idx2.a, false);
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U:
    return field_type(m, e->imm.idx2.a, e->imm.idx2.b);
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U:
    return field_type(m, e->imm.index, 0);
  case TL_OP_ARRAY_LEN: case TL_OP_REF_TEST: case TL_OP_REF_TEST_NULL: case TL_OP_I31_GET_S:
  case TL_OP_I31_GET_U: case TL_OP_REF_EQ:
    return TL_I32;
  case TL_OP_REF_CAST: case TL_OP_REF_CAST_NULL: return cast_target(m, e->imm.index);
  case TL_OP_BR_ON_CAST: return minus(in, cast_target(m, e->imm.idx2.b));
  case TL_OP_BR_ON_CAST_FAIL: return cast_target(m, e->imm.idx2.b);
  case TL_OP_ANY_CONVERT_EXTERN: return tl_ref(TL_HT_ANY, !tl_type_is_ref(in) || tl_ref_nullable(in));
  case TL_OP_EXTERN_CONVERT_ANY: return tl_ref(TL_HT_EXTERN, !tl_type_is_ref(in) || tl_ref_nullable(in));
  case TL_OP_REF_I31: return tl_ref(TL_HT_I31, false);
  case TL_OP_CALL_REF: return e->imm.index < m->types.n ? TL_FTYPE(m, e->imm.index)->results : TL_NONE;
  case TL_OP_RETURN_CALL_REF: return TL_UNREACHABLE;
  case TL_OP_REF_AS_NON_NULL: case TL_OP_BR_ON_NULL: /* what passes: not null */
    return tl_type_is_ref(in) ? tl_ref_with_null(in, false) : in;
  default: return TL_NONE; /* struct.set, array.set/fill/copy/init_*, br_on_non_null */
  }
}

tl_type tl_gc_branch_type(const tl_module *m, const tl_expr *e) {
  (void)m;
  tl_type in = e->kid[0]->type;
  if (in == TL_UNREACHABLE) return TL_UNREACHABLE;
  if (e->op == TL_OP_BR_ON_NULL) return TL_NONE;
  if (e->op == TL_OP_BR_ON_NON_NULL) return tl_type_is_ref(in) ? tl_ref_with_null(in, false) : in;
  return e->op == TL_OP_BR_ON_CAST ? e->imm.idx2.b : minus(in, e->imm.idx2.b);
}

/* Operand i of array op e (ref: the array, et: its element type). */
static tl_type array_operand(const tl_module *m, const tl_expr *e, uint32_t i, tl_type ref, tl_type et) {
  switch (e->op) {
  case TL_OP_ARRAY_NEW: return i == 0 ? et : TL_I32;
  case TL_OP_ARRAY_NEW_FIXED: return et;
  case TL_OP_ARRAY_NEW_DEFAULT: case TL_OP_ARRAY_NEW_DATA: case TL_OP_ARRAY_NEW_ELEM: return TL_I32;
  case TL_OP_ARRAY_SET: case TL_OP_ARRAY_FILL: return i == 0 ? ref : i == 2 ? et : TL_I32;
  case TL_OP_ARRAY_COPY: return i == 0 ? ref : i == 2 ? tl_gc_ref_of(m, e->imm.idx2.b, true) : TL_I32;
  default: return i == 0 ? ref : TL_I32; /* get, init_data, init_elem */
  }
}

tl_type tl_gc_operand_type(const tl_module *m, const tl_expr *e, uint32_t i) {
  uint8_t k = tl_ops[e->op].imm;
  uint32_t t = k == TL_IMM_TYPE ? e->imm.index : e->imm.idx2.a;
  bool typed = (k == TL_IMM_TYPE || k == TL_IMM_TYPE_FIELD || k == TL_IMM_TYPE_COUNT || k == TL_IMM_TYPE_DATA ||
                k == TL_IMM_TYPE_ELEM || k == TL_IMM_TYPE_TYPE) && t < m->types.n;
  const tl_deftype *d = typed ? TL_FTYPE(m, t) : NULL;
  switch (e->op) {
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: {
    if (!d || d->kind != TL_DT_FUNC) return TL_UNREACHABLE;
    uint32_t np = tl_type_arity(m, d->params);
    return i < np ? tl_type_at(m, d->params, i) : tl_gc_ref_of(m, t, true);
  }
  case TL_OP_STRUCT_NEW:
    return d && d->kind == TL_DT_STRUCT && i < d->nfields ? tl_gc_unpacked(&d->fields[i]) : TL_UNREACHABLE;
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U: case TL_OP_STRUCT_SET:
    if (!d || d->kind != TL_DT_STRUCT || e->imm.idx2.b >= d->nfields) return TL_UNREACHABLE;
    return i == 0 ? tl_gc_ref_of(m, t, true) : tl_gc_unpacked(&d->fields[e->imm.idx2.b]);
  case TL_OP_ARRAY_LEN: return tl_ref(TL_HT_ARRAY, true);
  case TL_OP_REF_TEST: case TL_OP_REF_CAST:
    return tl_type_is_ref(e->imm.index) ? tl_ref(tl_heap_top(m, tl_ref_heap(e->imm.index)), true) : TL_UNREACHABLE;
  case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL:
    return tl_type_is_ref(e->imm.idx2.b) ? tl_ref(tl_heap_top(m, tl_ref_heap(e->imm.idx2.b)), true) : TL_UNREACHABLE;
  case TL_OP_ANY_CONVERT_EXTERN: return TL_EXTERNREF;
  case TL_OP_EXTERN_CONVERT_ANY: return tl_ref(TL_HT_ANY, true);
  case TL_OP_REF_I31: return TL_I32;
  case TL_OP_I31_GET_S: case TL_OP_I31_GET_U: return tl_ref(TL_HT_I31, true);
  case TL_OP_REF_EQ: return tl_ref(TL_HT_EQ, true);
  default:
    if (!d || d->kind != TL_DT_ARRAY) return TL_UNREACHABLE;
    return array_operand(m, e, i, tl_gc_ref_of(m, t, true), tl_gc_unpacked(&d->fields[0]));
  }
}
