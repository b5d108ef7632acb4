/* struct_values.c — what the GC field passes (gsi, cfp) share: the value a
 * struct field may hold as a small lattice (nothing written, one constant
 * or immutable global, many), the struct type a reference names, building
 * a read's replacement (packed fields, the null check), and declaring the
 * functions whose ref.func they copy into code. Values point at nodes of
 * the module (operands, global inits); nothing here changes a body. */
#include "passes.h"

#include <string.h>

uint32_t tl_struct_of(const tl_module *m, tl_type t) {
  if (t == TL_UNREACHABLE || !tl_type_is_ref(t)) return TL_NO_INDEX;
  uint32_t ht = tl_ref_heap(t);
  if (!tl_heap_is_def(ht) || tl_heap_def(m, ht)->kind != TL_DT_STRUCT) return TL_NO_INDEX;
  return ht - TL_HT_DEF;
}

uint32_t tl_struct_super(const tl_module *m, uint32_t canon) {
  uint32_t s = TL_FTYPE(m, canon)->super;
  return s == TL_NO_SUPER ? TL_NO_INDEX : TL_FTYPE(m, s)->canon;
}

/* The value a write stores, looking through tees and unlabeled blocks
 * that end with it (their other children run first; the value is theirs). */
static const tl_expr *fallthrough(const tl_expr *e) {
  for (;;) {
    if (e->op == TL_OP_LOCAL_TEE) e = e->kid[0];
    else if (e->op == TL_OP_BLOCK && e->imm.block.label == TL_NO_LABEL && e->nkid &&
             e->kid[e->nkid - 1]->type == e->type)
      e = e->kid[e->nkid - 1];
    else return e;
  }
}

static bool is_zero(const tl_expr *e) {
  switch (e->op) {
  case TL_OP_I32_CONST: case TL_OP_F32_CONST: return e->imm.i32 == 0;
  case TL_OP_I64_CONST: case TL_OP_F64_CONST: return e->imm.i64 == 0;
  case TL_OP_V128_CONST: {
    static const uint8_t z[16];
    return !memcmp(e->imm.v128, z, 16);
  }
  case TL_OP_REF_NULL: return true;
  default: return false;
  }
}

static bool is_constant(const tl_module *m, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_I32_CONST: case TL_OP_I64_CONST: case TL_OP_F32_CONST: case TL_OP_F64_CONST:
  case TL_OP_V128_CONST: case TL_OP_REF_NULL: case TL_OP_REF_FUNC: return true;
  case TL_OP_GLOBAL_GET: return !TL_GLOBAL(m, e->imm.index)->mut;
  case TL_OP_REF_I31: return e->kid[0]->op == TL_OP_I32_CONST;
  default: return false;
  }
}

void tl_pcv_note(const tl_module *m, tl_pcv *v, const tl_expr *value) {
  tl_pcv x = {TL_PCV_MANY, NULL};
  if (value->type == TL_UNREACHABLE) return; /* never stores */
  value = fallthrough(value);
  if (is_constant(m, value)) x = is_zero(value) ? (tl_pcv){TL_PCV_ZERO, NULL} : (tl_pcv){TL_PCV_EXPR, value};
  tl_pcv_join(v, &x);
}

static bool same_expr(const tl_expr *a, const tl_expr *b) {
  if (a->op != b->op) return false;
  switch (a->op) {
  case TL_OP_I32_CONST: case TL_OP_F32_CONST: return a->imm.i32 == b->imm.i32;
  case TL_OP_I64_CONST: case TL_OP_F64_CONST: return a->imm.i64 == b->imm.i64;
  case TL_OP_V128_CONST: return !memcmp(a->imm.v128, b->imm.v128, 16);
  case TL_OP_REF_I31: return a->kid[0]->imm.i32 == b->kid[0]->imm.i32;
  default: return a->imm.index == b->imm.index; /* ref.func, global.get */
  }
}

bool tl_pcv_eq(const tl_pcv *a, const tl_pcv *b) {
  return a->kind == b->kind && (a->kind != TL_PCV_EXPR || same_expr(a->e, b->e));
}

void tl_pcv_join(tl_pcv *a, const tl_pcv *b) {
  if (b->kind == TL_PCV_NONE || a->kind == TL_PCV_MANY) return;
  if (a->kind == TL_PCV_NONE) *a = *b;
  else if (!tl_pcv_eq(a, b)) *a = (tl_pcv){TL_PCV_MANY, NULL};
}

/* An i32 constant as a packed field stores it and get_s / get_u read it. */
static int32_t packed_read(int32_t v, uint8_t pack, int op) {
  bool s = op == TL_OP_STRUCT_GET_S;
  if (pack == TL_PACK_I8) return s ? (int32_t)(int8_t)v : v & 0xff;
  return s ? (int32_t)(int16_t)v : v & 0xffff;
}

tl_expr *tl_pcv_make(tl_module *m, tl_func *f, const tl_pcv *v, const tl_field *fld, int get_op,
                     uint8_t *reffed) {
  tl_type ft = tl_gc_unpacked(fld);
  tl_expr *e;
  if (v->kind == TL_PCV_ZERO) return tl_make_zero(m, ft);
  if (v->kind != TL_PCV_EXPR) return NULL;
  if (fld->pack != TL_PACK_NONE) {
    if (v->e->op != TL_OP_I32_CONST) return NULL; /* a global would need masking */
    return tl_make_const_i32(m, packed_read(v->e->imm.i32, fld->pack, get_op));
  }
  e = tl_expr_copy(m, f, v->e);
  tl_expr_finalize(m, f, e);
  if (!tl_type_sub(m, e->type, ft)) return NULL; /* cannot be there: leave the read */
  if (e->op == TL_OP_REF_FUNC && reffed) __atomic_store_n(&reffed[e->imm.index], 1, __ATOMIC_RELAXED);
  return e;
}

tl_expr *tl_make_checked(tl_module *m, tl_func *f, tl_expr *ref, tl_expr *value) {
  tl_expr *k[2];
  tl_effects fx;
  if (!tl_ref_nullable(ref->type)) {
    tl_effects_of(m, f, ref, &fx);
    if (tl_effects_removable(&fx)) return value; /* nothing to keep of it */
  } else {
    tl_expr *nn = tl_expr_new(m, TL_OP_REF_AS_NON_NULL, 1);
    nn->kid[0] = ref;
    tl_expr_finalize(m, f, nn);
    ref = nn;
  }
  k[0] = tl_make_drop(m, ref);
  k[1] = value;
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 2);
}

/* ---- declarations ---------------------------------------------------- */
static void note_declared(tl_walk *w, tl_expr **slot) {
  if ((*slot)->op == TL_OP_REF_FUNC) ((uint8_t *)w->ctx)[(*slot)->imm.index] = 0;
}

/* Functions kept declared by what no pass removes: element segments (which
 * remove-unused-module-elements keeps for reachable ref.funcs) and exports;
 * a global's initializer may go, so it does not count. */
void tl_declare_funcs(tl_module *m, uint8_t *reffed) {
  uint32_t nf = (uint32_t)m->funcs.n, n = 0;
  for (size_t i = 0; i < m->elems.n; i++)
    for (uint32_t j = 0; j < TL_ELEM(m, i)->n; j++) tl_walk_post(m, NULL, &TL_ELEM(m, i)->item[j], note_declared, reffed);
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) reffed[TL_EXPORT(m, i)->index] = 0;
  for (uint32_t i = 0; i < nf; i++) n += reffed[i];
  if (!n) return;
  tl_elem el = {.mode = TL_SEG_DECLARATIVE, .type = TL_FUNCREF, .exprs = false, .n = n};
  el.item = TL_NEWN(&m->arena, tl_expr *, n);
  for (uint32_t i = 0, k = 0; i < nf; i++) {
    if (!reffed[i]) continue;
    el.item[k] = tl_expr_new(m, TL_OP_REF_FUNC, 0);
    el.item[k]->imm.index = i;
    tl_expr_finalize(m, NULL, el.item[k++]);
  }
  TL_VEC_PUSH(&m->elems, tl_elem, el);
}

/* ---- module code ------------------------------------------------------ */
void tl_walk_const_exprs(tl_module *m, tl_visit_fn visit, void *ctx) {
  for (size_t i = 0; i < m->globals.n; i++)
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, visit, ctx);
  for (size_t i = 0; i < m->tables.n; i++)
    if (TL_TABLE(m, i)->init) tl_walk_post(m, NULL, &TL_TABLE(m, i)->init, visit, ctx);
  for (size_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    if (el->offset) tl_walk_post(m, NULL, &el->offset, visit, ctx);
    for (uint32_t j = 0; j < el->n; j++) tl_walk_post(m, NULL, &el->item[j], visit, ctx);
  }
  for (size_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->offset) tl_walk_post(m, NULL, &TL_DATA(m, i)->offset, visit, ctx);
}
