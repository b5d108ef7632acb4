/* interp_gc.c — the interpreter's GC instructions (opcodes_gc.def) over
 * the store's heap (src/runtime/gc_heap.c, which also explains the value
 * encoding). tl_interp_gc_compile resolves a node's immediates to runtime
 * types and field layouts once; tl_interp_gc runs one instruction on the
 * operand stack. Allocations pass the stack top, so a collection they run
 * sees every live slot. br_on_cast(_fail) compiles to the test here (which
 * pushes whether to branch) and a conditional branch (interp_compile.c). */
#include "interp_impl.h"

/* Cast targets in a row: a = abstract heap type or CAST_DEF (u.p: the
 * rtt); n = nullable | hierarchy << 1. */
#define CAST_DEF UINT32_MAX
enum { H_ANY, H_FUNC, H_EXTERN, H_EXN };

static void cast_imm(tl_instance *inst, tl_type target, tl_ins *in) {
  const tl_module *m = inst->m;
  uint32_t ht = tl_ref_heap(target), top = tl_heap_top(m, ht);
  unsigned h = top == TL_HT_FUNC ? H_FUNC : top == TL_HT_EXTERN ? H_EXTERN : top == TL_HT_EXN ? H_EXN : H_ANY;
  in->n = (uint16_t)(tl_ref_nullable(target) | h << 1);
  in->a = ht;
  if (tl_heap_is_def(ht)) {
    in->a = CAST_DEF;
    in->u.p = (void *)tl_gc_rtt(inst, ht - TL_HT_DEF);
  }
}

void tl_interp_gc_compile(tl_instance *inst, const tl_expr *e, tl_ins *in) {
  switch (tl_ops[e->op].imm) {
  case TL_IMM_TYPE: {
    const tl_rtt *t = tl_gc_rtt(inst, e->imm.index);
    in->u.p = (void *)t;
    if (t->kind == TL_DT_ARRAY) in->n = t->fields[0].size;
    break;
  }
  case TL_IMM_TYPE_FIELD: {
    const tl_rtt *t = tl_gc_rtt(inst, e->imm.idx2.a);
    in->a = t->fields[e->imm.idx2.b].offset;
    in->n = t->fields[e->imm.idx2.b].size;
    break;
  }
  case TL_IMM_TYPE_COUNT: case TL_IMM_TYPE_DATA: case TL_IMM_TYPE_ELEM: case TL_IMM_TYPE_TYPE: {
    const tl_rtt *t = tl_gc_rtt(inst, e->imm.idx2.a);
    in->u.p = (void *)t;
    in->a = e->imm.idx2.b;
    in->n = t->fields[0].size;
    break;
  }
  case TL_IMM_CAST: cast_imm(inst, e->imm.index, in); break;
  case TL_IMM_BR_CAST: cast_imm(inst, e->imm.idx2.b, in); break;
  default: break;
  }
}

/* Does reference v pass the cast of row in? */
static bool cast_ok(const tl_ins *in, uint64_t v) {
  if (!v) return in->n & 1;
  unsigned h = in->n >> 1;
  if (in->a == CAST_DEF) {
    const tl_rtt *t = in->u.p;
    if (h == H_FUNC) {
      const tl_funcinst *f = (const tl_funcinst *)(uintptr_t)v;
      return f->rtt ? tl_rtt_sub(f->rtt, t) : tl_interp_sig_eq(f, t->sig);
    }
    return tl_gc_is_obj(v) && tl_rtt_sub(((const tl_gcobj *)(uintptr_t)v)->rtt, t);
  }
  switch (in->a) {
  case TL_HT_EQ: return !(v & TL_GC_HOST);
  case TL_HT_I31: return (v & 1) && !(v & TL_GC_HOST);
  case TL_HT_STRUCT: return tl_gc_is_obj(v) && ((const tl_gcobj *)(uintptr_t)v)->rtt->kind == TL_DT_STRUCT;
  case TL_HT_ARRAY: return tl_gc_is_obj(v) && ((const tl_gcobj *)(uintptr_t)v)->rtt->kind == TL_DT_ARRAY;
  case TL_HT_NONE: case TL_HT_NOFUNC: case TL_HT_NOEXTERN: case TL_HT_NOEXN: return false;
  default: return true;   /* any, func, extern, exn */
  }
}

static tl_gcobj *obj(const tl_v *slot) { return (tl_gcobj *)(uintptr_t)slot->i64; }

/* Loads size bytes at p into slot: packed ones extended to i32 (signed by sx). */
static void get_field(tl_v *slot, const uint8_t *p, unsigned size, bool sx) {
  uint64_t v = 0;
  if (size == 16) {
    memcpy(slot->b, p, 16);
    return;
  }
  memcpy(&v, p, size);
  if (size == 1 && sx) v = (uint32_t)(int32_t)(int8_t)v;
  else if (size == 2 && sx) v = (uint32_t)(int32_t)(int16_t)v;
  slot->i64 = v;
}

static void set_field(uint8_t *p, unsigned size, const tl_v *slot) { memcpy(p, slot->b, size); }

static bool oob(uint64_t a, uint64_t n, uint64_t sz) { return a > sz || sz - a < n; }

typedef struct {
  tl_store *s;
  tl_instance *inst;
  const tl_ins *in;
  tl_v *sp;
  uint64_t *fuel;
  const char *trap;       /* set: a trap with this reason */
  bool nomem;
} gx;

static bool fail(gx *g, const char *why) {
  g->trap = why;
  return false;
}

static bool charge(gx *g, uint64_t bytes) {
  uint64_t c = tl_bulk_fuel(bytes);
  if (c >= *g->fuel) return fail(g, NULL);
  *g->fuel -= c;
  return true;
}

/* Pushes the new object o made from the top k slots (or reports out of memory). */
static bool made(gx *g, tl_gcobj *o, uint32_t k) {
  if (!o) {
    g->nomem = true;
    return false;
  }
  g->sp -= k;
  (g->sp++)->i64 = (uint64_t)(uintptr_t)o;
  return true;
}

static bool struct_op(gx *g) {
  const tl_ins *in = g->in;
  tl_v *sp = g->sp;
  switch (in->op) {
  case TL_OP_STRUCT_NEW: {
    const tl_rtt *t = in->u.p;
    return made(g, tl_gc_struct_new(g->s, t, sp - t->nfields, sp), t->nfields);
  }
  case TL_OP_STRUCT_NEW_DEFAULT: return made(g, tl_gc_struct_new(g->s, in->u.p, NULL, sp), 0);
  case TL_OP_STRUCT_SET:
    if (!sp[-2].i64) return fail(g, "null structure reference");
    set_field(obj(&sp[-2])->data + in->a, in->n, &sp[-1]);
    g->sp -= 2;
    return true;
  default:
    if (!sp[-1].i64) return fail(g, "null structure reference");
    get_field(&sp[-1], obj(&sp[-1])->data + in->a, in->n, in->op == TL_OP_STRUCT_GET_S);
    return true;
  }
}

/* array.new_data / new_elem: n elements from segment a at s (operands s, n). */
static bool array_from_seg(gx *g, bool data) {
  const tl_ins *in = g->in;
  tl_v *sp = g->sp;
  uint64_t src = sp[-2].i32, n = sp[-1].i32, sz = in->n;
  uint64_t have = data ? g->inst->data_n[in->a] : g->inst->elem_n[in->a];
  if (data ? oob(src, n * sz, have) : oob(src, n, have))
    return fail(g, data ? "out of bounds memory access" : "out of bounds table access");
  if (!charge(g, n * sz)) return false;
  tl_gcobj *o = tl_gc_alloc(g->s, in->u.p, (uint32_t)n, sp);
  if (o && n && data) memcpy(o->data, TL_DATA(g->inst->m, in->a)->bytes + src, n * sz);
  if (o && n && !data) memcpy(o->data, g->inst->elem[in->a] + src, n * sizeof(void *));
  return made(g, o, 2);
}

/* array.init_data / init_elem: operands array, d, s, n. */
static bool array_init_seg(gx *g, bool data) {
  const tl_ins *in = g->in;
  tl_v *sp = g->sp -= 4;
  uint64_t d = sp[1].i32, src = sp[2].i32, n = sp[3].i32, sz = in->n;
  if (!sp[0].i64) return fail(g, "null array reference");
  tl_gcobj *o = obj(&sp[0]);
  if (oob(d, n, o->len)) return fail(g, "out of bounds array access");
  uint64_t have = data ? g->inst->data_n[in->a] : g->inst->elem_n[in->a];
  if (data ? oob(src, n * sz, have) : oob(src, n, have))
    return fail(g, data ? "out of bounds memory access" : "out of bounds table access");
  if (!charge(g, n * sz)) return false;
  if (n && data) memcpy(o->data + d * sz, TL_DATA(g->inst->m, in->a)->bytes + src, n * sz);
  if (n && !data) memcpy(o->data + d * sz, g->inst->elem[in->a] + src, n * sizeof(void *));
  return true;
}

static bool array_bulk(gx *g) {
  const tl_ins *in = g->in;
  uint64_t sz = in->n;
  if (in->op == TL_OP_ARRAY_FILL) {   /* array, d, value, n */
    tl_v *sp = g->sp -= 4;
    uint64_t d = sp[1].i32, n = sp[3].i32;
    if (!sp[0].i64) return fail(g, "null array reference");
    if (oob(d, n, obj(&sp[0])->len)) return fail(g, "out of bounds array access");
    if (!charge(g, n * sz)) return false;
    tl_gc_fill(obj(&sp[0])->data + d * sz, (uint8_t)sz, n, &sp[2]);
    return true;
  }
  tl_v *sp = g->sp -= 5;              /* array.copy: dst, d, src, s, n */
  uint64_t d = sp[1].i32, src = sp[3].i32, n = sp[4].i32;
  if (!sp[0].i64 || !sp[2].i64) return fail(g, "null array reference");
  if (oob(d, n, obj(&sp[0])->len) || oob(src, n, obj(&sp[2])->len)) return fail(g, "out of bounds array access");
  if (!charge(g, n * sz)) return false;
  if (n) memmove(obj(&sp[0])->data + d * sz, obj(&sp[2])->data + src * sz, n * sz);
  return true;
}

static bool array_op(gx *g) {
  const tl_ins *in = g->in;
  tl_v *sp = g->sp;
  uint32_t sz = in->n;
  switch (in->op) {
  case TL_OP_ARRAY_NEW:
    if (!charge(g, (uint64_t)sp[-1].i32 * sz)) return false;
    return made(g, tl_gc_array_new(g->s, in->u.p, sp[-1].i32, &sp[-2], NULL, sp), 2);
  case TL_OP_ARRAY_NEW_DEFAULT:
    if (!charge(g, (uint64_t)sp[-1].i32 * sz)) return false;
    return made(g, tl_gc_array_new(g->s, in->u.p, sp[-1].i32, NULL, NULL, sp), 1);
  case TL_OP_ARRAY_NEW_FIXED: return made(g, tl_gc_array_new(g->s, in->u.p, in->a, NULL, sp - in->a, sp), in->a);
  case TL_OP_ARRAY_NEW_DATA: return array_from_seg(g, true);
  case TL_OP_ARRAY_NEW_ELEM: return array_from_seg(g, false);
  case TL_OP_ARRAY_INIT_DATA: return array_init_seg(g, true);
  case TL_OP_ARRAY_INIT_ELEM: return array_init_seg(g, false);
  case TL_OP_ARRAY_FILL: case TL_OP_ARRAY_COPY: return array_bulk(g);
  case TL_OP_ARRAY_LEN:
    if (!sp[-1].i64) return fail(g, "null array reference");
    sp[-1].i64 = obj(&sp[-1])->len;
    return true;
  case TL_OP_ARRAY_SET: {
    tl_v *b = g->sp -= 3;
    if (!b[0].i64) return fail(g, "null array reference");
    if (b[1].i32 >= obj(&b[0])->len) return fail(g, "out of bounds array access");
    set_field(obj(&b[0])->data + (size_t)b[1].i32 * sz, sz, &b[2]);
    return true;
  }
  default: {   /* array.get(_s/_u): array, i */
    tl_v *b = --g->sp;
    if (!b[-1].i64) return fail(g, "null array reference");
    if (b[0].i32 >= obj(&b[-1])->len) return fail(g, "out of bounds array access");
    get_field(&b[-1], obj(&b[-1])->data + (size_t)b[0].i32 * sz, sz, in->op == TL_OP_ARRAY_GET_S);
    return true;
  }
  }
}

static bool ref_op(gx *g) {
  const tl_ins *in = g->in;
  tl_v *sp = g->sp;
  uint64_t v = sp[-1].i64;
  switch (in->op) {
  case TL_OP_REF_TEST: case TL_OP_REF_TEST_NULL: sp[-1].i64 = cast_ok(in, v); return true;
  case TL_OP_REF_CAST: case TL_OP_REF_CAST_NULL: return cast_ok(in, v) || fail(g, "cast failure");
  case TL_OP_BR_ON_CAST: (g->sp++)->i64 = cast_ok(in, v); return true;
  case TL_OP_BR_ON_CAST_FAIL: (g->sp++)->i64 = !cast_ok(in, v); return true;
  case TL_OP_ANY_CONVERT_EXTERN: case TL_OP_EXTERN_CONVERT_ANY: sp[-1].i64 = tl_gc_convert(v); return true;
  case TL_OP_REF_I31: sp[-1].i64 = (uint64_t)(sp[-1].i32 & 0x7fffffffu) << 1 | 1; return true;
  case TL_OP_I31_GET_S: case TL_OP_I31_GET_U: {
    if (!v) return fail(g, "null i31 reference");
    uint32_t x = (uint32_t)(v >> 1) & 0x7fffffffu;
    if (in->op == TL_OP_I31_GET_S) x = (uint32_t)((int32_t)(x << 1) >> 1);
    sp[-1].i64 = x;
    return true;
  }
  case TL_OP_REF_EQ:
    g->sp--;
    sp[-2].i64 = sp[-2].i64 == sp[-1].i64;
    return true;
  default: return fail(g, "unsupported gc instruction");
  }
}

tl_status tl_interp_gc(tl_store *s, tl_instance *inst, const tl_ins *ins, tl_v **spp, uint64_t *fuel,
                       tl_error *err) {
  gx g = {s, inst, ins, *spp, fuel, NULL, false};
  bool ok;
  if (ins->op >= TL_OP_STRUCT_NEW && ins->op <= TL_OP_STRUCT_SET) ok = struct_op(&g);
  else if (ins->op >= TL_OP_ARRAY_NEW && ins->op <= TL_OP_ARRAY_INIT_ELEM) ok = array_op(&g);
  else ok = ref_op(&g);
  *spp = g.sp;
  if (ok) return TL_OK;
  if (g.nomem) return tl_errorf(err, TL_E_TRAP, TL_NO_OFFSET, "out of memory: allocation failed");
  if (!g.trap) return tl_errorf(err, TL_E_EXHAUSTED, TL_NO_OFFSET, "fuel exhausted");
  return tl_errorf(err, TL_E_TRAP, TL_NO_OFFSET, "%s", g.trap);
}
