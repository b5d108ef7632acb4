/* reader.c — binary module to tree IR: the cursor, the header, every
 * section but the code section (reader_code.c) and the name section
 * (names.c), constant expressions, feature checks and tl_read itself.
 * Assumes nothing of the input: every count is checked against the bytes
 * left before allocating, and every error carries its byte offset. */
#include "reader_int.h"

#include <inttypes.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the cursor */
static tl_status vfail(rd *r, const uint8_t *at, tl_status code, const char *fmt, va_list ap) {
  char msg[sizeof r->err->msg];
  vsnprintf(msg, sizeof msg, fmt, ap);
  tl_errorf(r->err, code, (uint64_t)(at - r->base), "%s", msg);
  if (r->err) r->err->func_index = r->func;
  return code;
}

tl_status rd_fail(rd *r, tl_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(r, r->p, code, fmt, ap);
  va_end(ap);
  return code;
}

tl_status rd_fail_at(rd *r, const uint8_t *at, tl_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(r, at, code, fmt, ap);
  va_end(ap);
  return code;
}

tl_status rd_byte(rd *r, uint8_t *out, const char *what) {
  if (r->p >= r->end) return rd_fail(r, TL_E_MALFORMED, "unexpected end: %s", what);
  *out = *r->p++;
  return TL_OK;
}

/* LEB errors: say "unexpected end" when the bytes ran out, else overlong. */
static tl_status leb_fail(rd *r, const char *what, unsigned bits) {
  const uint8_t *q = r->p;
  while (q < r->end && (*q & 0x80)) q++;
  if (q >= r->end) return rd_fail(r, TL_E_MALFORMED, "unexpected end: %s", what);
  return rd_fail(r, TL_E_MALFORMED, "%s: integer representation too long or too large "
                 "(bad LEB128 %u-bit)", what, bits);
}

#define RD_LEB(fn, T, bits)                                   \
  size_t n = tl_leb_read_##fn(r->p, r->end, (T *)out);        \
  if (!n) return leb_fail(r, what, bits);                     \
  r->p += n;                                                  \
  return TL_OK;

tl_status rd_u32(rd *r, uint32_t *out, const char *what) { RD_LEB(u32, uint32_t, 32) }
tl_status rd_u64(rd *r, uint64_t *out, const char *what) { RD_LEB(u64, uint64_t, 64) }
tl_status rd_s32(rd *r, int32_t *out, const char *what) { RD_LEB(s32, int32_t, 32) }
tl_status rd_s33(rd *r, int64_t *out, const char *what) { RD_LEB(s33, int64_t, 33) }
tl_status rd_s64(rd *r, int64_t *out, const char *what) { RD_LEB(s64, int64_t, 64) }

tl_status rd_bytes(rd *r, size_t n, const uint8_t **out, const char *what) {
  if (n > (size_t)(r->end - r->p))
    return rd_fail(r, TL_E_MALFORMED, "unexpected end: %s (%zu bytes, %zu left)", what, n,
                   (size_t)(r->end - r->p));
  *out = r->p;
  r->p += n;
  return TL_OK;
}

/* A count of items each at least min_item bytes long: it cannot promise
 * more items than the bytes left could hold. */
tl_status rd_count(rd *r, uint32_t *out, size_t min_item, const char *what) {
  const uint8_t *at = r->p;
  TRY(rd_u32(r, out, what));
  if (min_item && *out > (size_t)(r->end - r->p) / min_item)
    return rd_fail_at(r, at, TL_E_MALFORMED, "unexpected end: %s count %u exceeds the %zu bytes left",
                      what, *out, (size_t)(r->end - r->p));
  return TL_OK;
}

bool utf8_valid(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t b = s[i];
    uint32_t need, cp;
    if (b < 0x80) { i++; continue; }
    if (b >= 0xc2 && b <= 0xdf) { need = 1; cp = b & 0x1f; }
    else if (b >= 0xe0 && b <= 0xef) { need = 2; cp = b & 0x0f; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; cp = b & 0x07; }
    else return false;
    if (n - i <= need) return false;
    for (uint32_t k = 1; k <= need; k++) {
      if ((s[i + k] & 0xc0) != 0x80) return false;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += need + 1;
  }
  return true;
}

/* A name as bytes (may contain NUL) plus its length; NUL-terminated copy. */
tl_status rd_name_n(rd *r, tl_arena *a, const char **out, uint32_t *len, const char *what) {
  uint32_t n;
  const uint8_t *s;
  TRY(rd_u32(r, &n, what));
  const uint8_t *at = r->p;
  TRY(rd_bytes(r, n, &s, what));
  if (!utf8_valid(s, n)) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed UTF-8 encoding in %s", what);
  char *d = tl_arena_alloc(a, (size_t)n + 1, 1);
  if (n) memcpy(d, s, n);
  d[n] = 0;
  *out = d;
  if (len) *len = n;
  return TL_OK;
}

tl_status rd_name(rd *r, tl_arena *a, const char **out, const char *what) {
  return rd_name_n(r, a, out, NULL, what);
}

/* ------------------------------------------------------------- features */
tl_status need_feature(rctx *c, rd *r, const uint8_t *at, tl_features f, const char *what) {
  tl_features miss = f & ~c->feat;
  if (!miss) return TL_OK;
  return rd_fail_at(r, at, TL_E_FEATURE, "%s requires --enable-%s", what,
                    tl_feature_name(miss & (~miss + 1)));
}

/* An abstract heap type's byte (its s33 form's low 7 bits), or -1. */
static int abstract_heap(uint8_t b) {
  switch (b) {
  case 0x70: return TL_HT_FUNC;
  case 0x6f: return TL_HT_EXTERN;
  case 0x6e: return TL_HT_ANY;
  case 0x6d: return TL_HT_EQ;
  case 0x6c: return TL_HT_I31;
  case 0x6b: return TL_HT_STRUCT;
  case 0x6a: return TL_HT_ARRAY;
  case 0x69: return TL_HT_EXN;
  case 0x71: return TL_HT_NONE;
  case 0x72: return TL_HT_NOEXTERN;
  case 0x73: return TL_HT_NOFUNC;
  case 0x74: return TL_HT_NOEXN;
  default: return -1;
  }
}

/* The features a reference type needs. */
static tl_features ref_features(tl_type t) {
  uint32_t ht = tl_ref_heap(t);
  tl_features f = TL_FEAT_REFERENCE_TYPES;
  if (ht == TL_HT_EXN || ht == TL_HT_NOEXN) f |= TL_FEAT_EXCEPTION_HANDLING;
  if (t >= TL_REF_BASE) f |= TL_FEAT_GC;
  return f;
}

/* A heap type: an abstract one or a type index (below c->type_end while a
 * rec group is read, whose own indices stay raw; else a defined type, by
 * its canonical index). */
tl_status rd_heaptype(rctx *c, rd *r, uint32_t *ht) {
  const uint8_t *at = r->p;
  int64_t v;
  TRY(rd_s33(r, &v, "heap type"));
  if (v < 0) {
    int a = v >= -64 ? abstract_heap((uint8_t)(v & 0x7f)) : -1;
    if (a < 0) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed heap type 0x%02x", *at);
    *ht = (uint32_t)a;
    return TL_OK;
  }
  uint32_t end = c->type_end ? c->type_end : (uint32_t)c->m->types.n;
  if ((uint64_t)v >= end) return rd_fail_at(r, at, TL_E_INVALID, "unknown type %" PRId64, v);
  TRY(need_feature(c, r, at, TL_FEAT_GC, "a typed reference"));
  uint32_t x = (uint32_t)v;
  *ht = TL_HT_DEF + (c->type_end ? x : TL_FTYPE(c->m, x)->canon);
  return TL_OK;
}

bool rd_is_valtype_byte(uint8_t b) { return b >= 0x7b || b == 0x63 || b == 0x64 || abstract_heap(b) >= 0; }

/* A module that names a typed reference anywhere types ref.func $f as
 * (ref $t) (m->typed_funcs); the nodes read before it knew are retyped
 * once the module is read. Decode workers only ever set it. */
static void note_typed(rctx *c, tl_type t) {
  if (t >= TL_REF_BASE && !c->m->typed_funcs) __atomic_store_n(&c->m->typed_funcs, true, __ATOMIC_RELAXED);
}

tl_status rd_valtype(rctx *c, rd *r, tl_type *out) {
  const uint8_t *at = r->p;
  uint8_t b;
  TRY(rd_byte(r, &b, "value type"));
  switch (b) {
  case 0x7f: *out = TL_I32; return TL_OK;
  case 0x7e: *out = TL_I64; return TL_OK;
  case 0x7d: *out = TL_F32; return TL_OK;
  case 0x7c: *out = TL_F64; return TL_OK;
  case 0x7b: *out = TL_V128; return need_feature(c, r, at, TL_FEAT_SIMD, "v128");
  case 0x63: case 0x64: {
    uint32_t ht;
    TRY(rd_heaptype(c, r, &ht));
    *out = tl_ref(ht, b == 0x63);
    note_typed(c, *out);
    return need_feature(c, r, at, ref_features(*out), "reference type");
  }
  default: {
    int a = abstract_heap(b);
    if (a < 0) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed value type 0x%02x", b);
    *out = tl_ref((uint32_t)a, true);
    note_typed(c, *out);
    return need_feature(c, r, at, ref_features(*out), tl_type_name(*out));
  }
  }
}

/* ref.null's heap type: the type (ref null ht). */
tl_status rd_null_heaptype(rctx *c, rd *r, tl_type *out) {
  const uint8_t *at = r->p;
  uint32_t ht;
  TRY(rd_heaptype(c, r, &ht));
  *out = tl_ref(ht, true);
  return need_feature(c, r, at, ref_features(*out), "ref.null");
}

static tl_status rd_reftype(rctx *c, rd *r, tl_type *out) {
  const uint8_t *at = r->p;
  if (r->p < r->end && *r->p == 0x70) { /* funcref: MVP tables have it */
    r->p++;
    *out = TL_FUNCREF;
    return TL_OK;
  }
  TRY(rd_valtype(c, r, out));
  if (!tl_type_is_ref(*out))
    return rd_fail_at(r, at, TL_E_MALFORMED, "malformed reference type 0x%02x", *at);
  return TL_OK;
}

/* ------------------------------------------------- constant expressions */
/* C.refs of the spec: functions named outside function bodies (exports,
 * element segments, global initializers) may be used by ref.func. */
void mark_declared(rctx *c, uint32_t func) {
  size_t old = c->declared.n;
  if (func >= old) {
    tl_vec_grow(&c->declared, 1, (size_t)func + 1);
    memset((uint8_t *)c->declared.p + old, 0, func + 1 - old);
    c->declared.n = (size_t)func + 1;
  }
  TL_VEC_AT(&c->declared, uint8_t, func) = 1;
}

bool is_declared(const rctx *c, uint32_t func) {
  return func < c->declared.n && TL_VEC_AT(&c->declared, uint8_t, func);
}

static tl_status const_imm(rctx *c, rd *r, tl_expr *e, const uint8_t *at) {
  tl_module *m = c->m;
  const uint8_t *b;
  switch (tl_ops[e->op].imm) {
  case TL_IMM_I32: return rd_s32(r, &e->imm.i32, "i32 constant");
  case TL_IMM_I64: {
    int64_t v = 0;
    tl_status st = rd_s64(r, &v, "i64 constant");
    e->imm.i64 = v;
    return st;
  }
  case TL_IMM_F32: TRY(rd_bytes(r, 4, &b, "f32 constant")); memcpy(&e->imm.f32, b, 4); return TL_OK;
  case TL_IMM_F64: TRY(rd_bytes(r, 8, &b, "f64 constant")); memcpy(&e->imm.f64, b, 8); return TL_OK;
  case TL_IMM_V128: TRY(rd_bytes(r, 16, &b, "v128 constant")); memcpy(e->imm.v128, b, 16); return TL_OK;
  case TL_IMM_REFTYPE: {
    tl_type t;
    TRY(rd_null_heaptype(c, r, &t));
    e->imm.index = t;
    return TL_OK;
  }
  case TL_IMM_FUNC:
    TRY(rd_u32(r, &e->imm.index, "function index"));
    if (e->imm.index >= m->funcs.n)
      return rd_fail_at(r, at, TL_E_INVALID, "unknown function %u", e->imm.index);
    mark_declared(c, e->imm.index);
    return TL_OK;
  case TL_IMM_GLOBAL:
    TRY(rd_u32(r, &e->imm.index, "global index"));
    if (e->imm.index >= m->globals.n)
      return rd_fail_at(r, at, TL_E_INVALID, "unknown global %u", e->imm.index);
    if (TL_GLOBAL(m, e->imm.index)->mut)
      return rd_fail_at(r, at, TL_E_INVALID, "constant expression required: global.get of a mutable global");
    if (e->imm.index >= m->nimported_globals) /* 3.0: an immutable global defined before */
      return need_feature(c, r, at, TL_FEAT_GC, "global.get of a defined global in a constant expression");
    return TL_OK;
  default: return TL_OK;
  }
}

static bool const_op_ok(int op) {
  switch (op) {
  case TL_OP_I32_CONST: case TL_OP_I64_CONST: case TL_OP_F32_CONST: case TL_OP_F64_CONST:
  case TL_OP_V128_CONST: case TL_OP_REF_NULL: case TL_OP_REF_FUNC: case TL_OP_GLOBAL_GET:
  case TL_OP_I32_ADD: case TL_OP_I32_SUB: case TL_OP_I32_MUL:
  case TL_OP_I64_ADD: case TL_OP_I64_SUB: case TL_OP_I64_MUL: return true;
  default: return false;
  }
}

static tl_status rd_opcode(rd *r, int *op) {
  const uint8_t *at = r->p;
  uint8_t b;
  uint32_t code = 0;
  TRY(rd_byte(r, &b, "opcode"));
  if (b >= 0xfb && b <= 0xfe) TRY(rd_u32(r, &code, "opcode"));
  *op = (b >= 0xfb && b <= 0xfe) ? tl_op_decode(b, code) : tl_op_decode(0, b);
  if (*op < 0 || tl_ops[*op].pfx == 0xff) {
    if (b >= 0xfb && b <= 0xfe) return rd_fail_at(r, at, TL_E_MALFORMED, "illegal opcode 0x%02x %u", b, code);
    return rd_fail_at(r, at, TL_E_MALFORMED, "illegal opcode 0x%02x", b);
  }
  return TL_OK;
}

/* A constant expression up to its `end`, as an IR tree of type want. */
tl_status rd_const_expr(rctx *c, rd *r, tl_type want, tl_expr **out) {
  tl_module *m = c->m;
  tl_expr *st[64];
  uint32_t n = 0;
  for (;;) {
    const uint8_t *at = r->p;
    int op;
    TRY(rd_opcode(r, &op));
    if (op == TL_OP_END) break;
    if (rdg_const_ok(op)) {
      TRY(need_feature(c, r, at, tl_ops[op].feat, tl_ops[op].text));
      tl_expr *g;
      TRY(rdg_const(c, r, op, at, st, &n, &g));
      if (n == sizeof st / sizeof st[0]) return rd_fail_at(r, at, TL_E_LIMIT, "constant expression too deep");
      st[n++] = g;
      continue;
    }
    if (!const_op_ok(op))
      return rd_fail_at(r, at, TL_E_INVALID, "constant expression required, got %s", tl_ops[op].text);
    TRY(need_feature(c, r, at, tl_ops[op].feat, tl_ops[op].text));
    bool bin = tl_ops[op].nops == 2;
    if (bin) TRY(need_feature(c, r, at, TL_FEAT_EXTENDED_CONST, tl_ops[op].text));
    tl_expr *e = tl_expr_new(m, (tl_op)op, bin ? 2 : 0);
    TRY(const_imm(c, r, e, at));
    if (bin) {
      tl_type t = tl_ops[op].ops[0];
      if (n < 2 || st[n - 1]->type != t || st[n - 2]->type != t)
        return rd_fail_at(r, at, TL_E_INVALID, "type mismatch in %s", tl_ops[op].text);
      e->kid[1] = st[--n];
      e->kid[0] = st[--n];
    }
    tl_expr_finalize(m, NULL, e);
    if (n == sizeof st / sizeof st[0])
      return rd_fail_at(r, at, TL_E_LIMIT, "constant expression too deep");
    st[n++] = e;
  }
  if (n != 1 || !tl_type_sub(m, st[0]->type, want))
    return rd_fail(r, TL_E_INVALID, "type mismatch in constant expression, expected %s",
                   tl_type_name(want));
  *out = st[0];
  return TL_OK;
}

/* --------------------------------------------------------------- limits */
typedef struct { uint64_t min, max; bool has_max, shared, is64; } limits;

/* Flags: bit 0 has a maximum, bit 1 shared (memories), bit 2 64-bit
 * (memory64: i64 indices, u64 limits). */
static tl_status rd_limits(rctx *c, rd *r, bool mem, limits *l) {
  const uint8_t *at = r->p;
  uint8_t flags;
  TRY(rd_byte(r, &flags, "limits flags"));
  if (flags > 7 || (!mem && (flags & 2)))
    return rd_fail_at(r, at, TL_E_MALFORMED, "integer too large: limits flags 0x%02x", flags);
  l->has_max = flags & 1;
  l->shared = flags & 2;
  l->is64 = flags & 4;
  if (l->is64) TRY(need_feature(c, r, at, TL_FEAT_MEMORY64, mem ? "a 64-bit memory" : "a 64-bit table"));
  if (l->shared) TRY(need_feature(c, r, at, TL_FEAT_THREADS, "shared memory"));
  if (l->is64) {
    TRY(rd_u64(r, &l->min, "limits minimum"));
    if (l->has_max) TRY(rd_u64(r, &l->max, "limits maximum"));
  } else {
    uint32_t v;
    TRY(rd_u32(r, &v, "limits minimum"));
    l->min = v;
    if (l->has_max) {
      TRY(rd_u32(r, &v, "limits maximum"));
      l->max = v;
    }
  }
  if (mem && !l->is64 && (l->min > 65536 || (l->has_max && l->max > 65536)))
    return rd_fail_at(r, at, TL_E_INVALID, "memory size must be at most 65536 pages (4GiB)");
  if (mem && l->is64 && (l->min > (1ull << 48) || (l->has_max && l->max > (1ull << 48))))
    return rd_fail_at(r, at, TL_E_INVALID, "memory size must be at most 2^48 pages (16EiB)");
  if (!mem && !l->is64 && l->has_max && l->max > UINT32_MAX)
    return rd_fail_at(r, at, TL_E_INVALID, "table size must be at most 2^32-1 elements");
  if (l->has_max && l->min > l->max)
    return rd_fail_at(r, at, TL_E_INVALID, "size minimum must not be greater than maximum");
  if (l->shared && !l->has_max)
    return rd_fail_at(r, at, TL_E_INVALID, "shared memory must have maximum");
  return TL_OK;
}

static tl_status add_table(rctx *c, rd *r, tl_importname imp) {
  const uint8_t *at = r->p;
  tl_table t = {0};
  limits l = {0};
  bool has_init = r->p < r->end && *r->p == 0x40 && !imp.module;
  if (has_init) {
    uint8_t zero;
    r->p++;
    TRY(rd_byte(r, &zero, "table initializer"));
    if (zero) return rd_fail_at(r, r->p - 1, TL_E_MALFORMED, "malformed table: 0x40 not followed by 0x00");
    TRY(need_feature(c, r, at, TL_FEAT_REFERENCE_TYPES, "a table initializer"));
  }
  TRY(rd_reftype(c, r, &t.elem));
  TRY(rd_limits(c, r, false, &l));
  if (has_init) TRY(rd_const_expr(c, r, t.elem, &t.init));
  else if (!imp.module && !tl_type_defaultable(t.elem))
    return rd_fail_at(r, at, TL_E_INVALID, "type mismatch: a table of non-nullable references needs an initializer");
  t.min = l.min;
  t.max = l.max;
  t.has_max = l.has_max;
  t.is64 = l.is64;
  t.imp = imp;
  if (c->m->tables.n >= 1) TRY(need_feature(c, r, at, TL_FEAT_REFERENCE_TYPES, "multiple tables"));
  TL_VEC_PUSH(&c->m->tables, tl_table, t);
  return TL_OK;
}

static tl_status add_memory(rctx *c, rd *r, tl_importname imp) {
  const uint8_t *at = r->p;
  tl_memory mem = {0};
  limits l = {0};
  TRY(rd_limits(c, r, true, &l));
  if (c->m->memories.n >= 1) TRY(need_feature(c, r, at, TL_FEAT_MULTI_MEMORY, "multiple memories"));
  if (c->m->memories.n >= TL_MAX_MEMORIES)
    return rd_fail_at(r, at, TL_E_UNSUPPORTED, "more than %u memories", TL_MAX_MEMORIES);
  mem.min = l.min;
  mem.max = l.max;
  mem.has_max = l.has_max;
  mem.shared = l.shared;
  mem.is64 = l.is64;
  mem.imp = imp;
  TL_VEC_PUSH(&c->m->memories, tl_memory, mem);
  return TL_OK;
}

static tl_status rd_globaltype(rctx *c, rd *r, tl_global *g) {
  const uint8_t *at;
  uint8_t mut;
  TRY(rd_valtype(c, r, &g->type));
  at = r->p;
  TRY(rd_byte(r, &mut, "global mutability"));
  if (mut > 1) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed mutability 0x%02x", mut);
  g->mut = mut;
  return TL_OK;
}

static tl_status rd_typeidx(rctx *c, rd *r, uint32_t *out) {
  const uint8_t *at = r->p;
  TRY(rd_u32(r, out, "type index"));
  if (*out >= c->m->types.n) return rd_fail_at(r, at, TL_E_INVALID, "unknown type %u", *out);
  return TL_OK;
}

/* ------------------------------------------------------------- sections */
static tl_status rd_functype(rctx *c, rd *r, tl_deftype *d) {
  tl_module *m = c->m;
  tl_type pr[2];
  for (int k = 0; k < 2; k++) {
    uint32_t cnt;
    const uint8_t *cat = r->p;
    TRY(rd_count(r, &cnt, 1, k ? "result" : "param"));
    if (k && cnt > 1) TRY(need_feature(c, r, cat, TL_FEAT_MULTIVALUE, "multiple results"));
    tl_type *t = TL_NEWN(&m->arena, tl_type, cnt ? cnt : 1);
    for (uint32_t j = 0; j < cnt; j++) TRY(rd_valtype(c, r, &t[j]));
    pr[k] = tl_type_tuple(m, t, cnt);
  }
  d->params = pr[0], d->results = pr[1];
  return TL_OK;
}

static tl_status rd_fieldtype(rctx *c, rd *r, tl_field *f) {
  const uint8_t *at = r->p;
  uint8_t b, mut;
  TRY(rd_byte(r, &b, "storage type"));
  f->name = NULL;
  if (b == 0x78 || b == 0x77) {
    f->type = TL_I32;
    f->pack = b == 0x78 ? TL_PACK_I8 : TL_PACK_I16;
  } else {
    r->p = at;
    f->pack = TL_PACK_NONE;
    TRY(rd_valtype(c, r, &f->type));
  }
  at = r->p;
  TRY(rd_byte(r, &mut, "field mutability"));
  if (mut > 1) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed mutability 0x%02x", mut);
  f->mut = mut;
  return TL_OK;
}

/* subtype: (0x50 | 0x4f) vec(typeidx) comptype, or a bare comptype. */
static tl_status rd_subtype(rctx *c, rd *r, uint32_t self, tl_deftype *d) {
  const uint8_t *at = r->p;
  uint8_t form;
  *d = (tl_deftype){.super = TL_NO_SUPER};
  TRY(rd_byte(r, &form, "type form"));
  if (form == 0x50 || form == 0x4f) {
    TRY(need_feature(c, r, at, TL_FEAT_GC, "a subtype"));
    d->open = form == 0x50;
    uint32_t ns;
    TRY(rd_count(r, &ns, 1, "supertype"));
    if (ns > 1) return rd_fail_at(r, at, TL_E_INVALID, "type %u: more than one supertype", self);
    if (ns) {
      const uint8_t *sat = r->p;
      TRY(rd_u32(r, &d->super, "supertype"));
      if (d->super >= self) return rd_fail_at(r, sat, TL_E_INVALID, "unknown type %u", d->super);
    }
    at = r->p;
    TRY(rd_byte(r, &form, "type form"));
  }
  switch (form) {
  case 0x60: d->kind = TL_DT_FUNC; return rd_functype(c, r, d);
  case 0x5f: {
    d->kind = TL_DT_STRUCT;
    TRY(need_feature(c, r, at, TL_FEAT_GC, "a struct type"));
    TRY(rd_count(r, &d->nfields, 2, "field"));
    d->fields = TL_NEWN(&c->m->arena, tl_field, d->nfields ? d->nfields : 1);
    for (uint32_t i = 0; i < d->nfields; i++) TRY(rd_fieldtype(c, r, &d->fields[i]));
    return TL_OK;
  }
  case 0x5e:
    d->kind = TL_DT_ARRAY;
    TRY(need_feature(c, r, at, TL_FEAT_GC, "an array type"));
    d->nfields = 1;
    d->fields = TL_NEWN(&c->m->arena, tl_field, 1);
    return rd_fieldtype(c, r, &d->fields[0]);
  default: return rd_fail_at(r, at, TL_E_MALFORMED, "malformed type form 0x%02x", form);
  }
}

static tl_status rd_types(rctx *c, rd *r) {
  tl_module *m = c->m;
  uint32_t n;
  TRY(rd_count(r, &n, 2, "type"));
  tl_vec group = {0};
  tl_status st = TL_OK;
  for (uint32_t i = 0; i < n && !st; i++) {
    const uint8_t *at = r->p;
    uint32_t gn = 1, g0 = (uint32_t)m->types.n;
    if (r->p < r->end && *r->p == 0x4e) {
      r->p++;
      if ((st = need_feature(c, r, at, TL_FEAT_GC, "a rec group"))) break;
      if ((st = rd_count(r, &gn, 2, "rec group type"))) break;
    }
    if (!gn) continue; /* an empty rec group defines nothing */
    if ((uint64_t)g0 + gn > 1000000) {
      st = rd_fail_at(r, at, TL_E_MALFORMED, "too many types");
      break;
    }
    group.n = 0;
    c->type_end = g0 + gn;
    for (uint32_t k = 0; k < gn && !st; k++) {
      tl_deftype d;
      if (!(st = rd_subtype(c, r, g0 + k, &d))) TL_VEC_PUSH(&group, tl_deftype, d);
    }
    c->type_end = 0;
    char err[96];
    if (!st && !tl_types_add_group(m, group.p, gn, err, sizeof err))
      st = rd_fail_at(r, at, TL_E_INVALID, "%s", err);
  }
  c->type_end = 0;
  tl_vec_free(&group);
  return st;
}

/* A tag type: attribute 0 (exception), then a function type index whose
 * results are empty. */
static tl_status add_tag(rctx *c, rd *r, tl_importname imp) {
  const uint8_t *at = r->p;
  uint8_t attr;
  tl_tag t = {0};
  TRY(rd_byte(r, &attr, "tag attribute"));
  if (attr) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed tag attribute %u", attr);
  at = r->p;
  TRY(rd_typeidx(c, r, &t.type));
  if (TL_FTYPE(c->m, t.type)->results != TL_NONE)
    return rd_fail_at(r, at, TL_E_INVALID, "non-empty tag result type (type %u)", t.type);
  t.imp = imp;
  TL_VEC_PUSH(&c->m->tags, tl_tag, t);
  return TL_OK;
}

static tl_status rd_imports(rctx *c, rd *r) {
  tl_module *m = c->m;
  uint32_t n;
  TRY(rd_count(r, &n, 4, "import"));
  for (uint32_t i = 0; i < n; i++) {
    tl_importname imp;
    uint8_t kind;
    TRY(rd_name_n(r, &m->arena, &imp.module, &imp.module_len, "import module name"));
    TRY(rd_name_n(r, &m->arena, &imp.name, &imp.name_len, "import field name"));
    const uint8_t *at = r->p;
    TRY(rd_byte(r, &kind, "import kind"));
    switch (kind) {
    case TL_EXTERN_FUNC: {
      uint32_t t;
      TRY(rd_typeidx(c, r, &t));
      tl_func *f = tl_module_add_func(m);
      f->type = t;
      f->imp = imp;
      m->nimported_funcs++;
      break;
    }
    case TL_EXTERN_TABLE: TRY(add_table(c, r, imp)); m->nimported_tables++; break;
    case TL_EXTERN_MEMORY: TRY(add_memory(c, r, imp)); m->nimported_memories++; break;
    case TL_EXTERN_GLOBAL: {
      tl_global g = {0};
      const uint8_t *gat = r->p;
      TRY(rd_globaltype(c, r, &g));
      if (g.mut) TRY(need_feature(c, r, gat, TL_FEAT_MUTABLE_GLOBALS, "mutable global import"));
      g.imp = imp;
      TL_VEC_PUSH(&m->globals, tl_global, g);
      m->nimported_globals++;
      break;
    }
    case TL_EXTERN_TAG:
      TRY(need_feature(c, r, at, TL_FEAT_EXCEPTION_HANDLING, "tag import"));
      TRY(add_tag(c, r, imp));
      m->nimported_tags++;
      break;
    default: return rd_fail_at(r, at, TL_E_MALFORMED, "malformed import kind %u", kind);
    }
  }
  return TL_OK;
}

/* Room for exactly `want` elements of v, for a count read up front (and
 * already checked against the bytes left): doubling would leave up to half
 * the vector unused for the module's lifetime. Out of memory longjmps
 * through the module arena, as arena allocations do. */
static void reserve_exact(tl_module *m, tl_vec *v, size_t elem, size_t want) {
  if (want <= v->cap) return;
  void *p = tl_scratch_realloc(v->p, want, elem);
  if (!p) tl_arena_oom(&m->arena);
  v->p = p;
  v->cap = want;
}

static tl_status rd_tags(rctx *c, rd *r) {
  uint32_t n;
  tl_importname none = {0};
  TRY(need_feature(c, r, r->p, TL_FEAT_EXCEPTION_HANDLING, "tag section"));
  TRY(rd_count(r, &n, 2, "tag"));
  for (uint32_t i = 0; i < n; i++) TRY(add_tag(c, r, none));
  return TL_OK;
}

static tl_status rd_functions(rctx *c, rd *r) {
  uint32_t n;
  TRY(rd_count(r, &n, 1, "function"));
  reserve_exact(c->m, &c->m->funcs, sizeof(tl_func), c->m->funcs.n + n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t t;
    TRY(rd_typeidx(c, r, &t));
    tl_module_add_func(c->m)->type = t;
  }
  c->nfunc_decl = n;
  c->has_funcsec = true;
  return TL_OK;
}

static tl_status rd_tables(rctx *c, rd *r) {
  uint32_t n;
  tl_importname none = {0};
  TRY(rd_count(r, &n, 3, "table"));
  for (uint32_t i = 0; i < n; i++) TRY(add_table(c, r, none));
  return TL_OK;
}

static tl_status rd_memories(rctx *c, rd *r) {
  uint32_t n;
  tl_importname none = {0};
  TRY(rd_count(r, &n, 2, "memory"));
  for (uint32_t i = 0; i < n; i++) TRY(add_memory(c, r, none));
  return TL_OK;
}

static tl_status rd_globals(rctx *c, rd *r) {
  uint32_t n;
  TRY(rd_count(r, &n, 4, "global"));
  for (uint32_t i = 0; i < n; i++) {
    tl_global g = {0};
    TRY(rd_globaltype(c, r, &g));
    TRY(rd_const_expr(c, r, g.type, &g.init));
    TL_VEC_PUSH(&c->m->globals, tl_global, g);
  }
  return TL_OK;
}

/* Export names compared as raw bytes (they may hold NUL characters). */
typedef struct { const uint8_t *p; uint32_t n; } rawname;

static int raw_cmp(const void *a, const void *b) {
  const rawname *x = a, *y = b;
  int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
  return c ? c : (x->n > y->n) - (x->n < y->n);
}

static tl_status check_export_names(rd *r, rawname *v, uint32_t n, const uint8_t *at) {
  qsort(v, n, sizeof *v, raw_cmp);
  for (uint32_t i = 1; i < n; i++)
    if (!raw_cmp(&v[i - 1], &v[i]))
      return rd_fail_at(r, at, TL_E_INVALID, "duplicate export name \"%.*s\"", (int)v[i].n, (const char *)v[i].p);
  return TL_OK;
}

static tl_status rd_export(rctx *c, rd *r, rawname *raw) {
  tl_module *m = c->m;
  tl_export e;
  const uint8_t *np = r->p;
  TRY(rd_name_n(r, &m->arena, &e.name, &e.name_len, "export name"));
  tl_leb_read_u32(np, r->end, &raw->n); /* the length just read */
  raw->p = r->p - raw->n;
  const uint8_t *at = r->p;
  TRY(rd_byte(r, &e.kind, "export kind"));
  TRY(rd_u32(r, &e.index, "export index"));
  size_t lim[5] = {m->funcs.n, m->tables.n, m->memories.n, m->globals.n, m->tags.n};
  static const char *const kn[5] = {"function", "table", "memory", "global", "tag"};
  if (e.kind > TL_EXTERN_TAG) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed export kind %u", e.kind);
  if (e.index >= lim[e.kind]) return rd_fail_at(r, at, TL_E_INVALID, "unknown %s %u", kn[e.kind], e.index);
  if (e.kind == TL_EXTERN_FUNC) mark_declared(c, e.index);
  if (e.kind == TL_EXTERN_GLOBAL && TL_GLOBAL(m, e.index)->mut)
    TRY(need_feature(c, r, at, TL_FEAT_MUTABLE_GLOBALS, "mutable global export"));
  TL_VEC_PUSH(&m->exports, tl_export, e);
  return TL_OK;
}

static tl_status rd_exports(rctx *c, rd *r) {
  uint32_t n;
  const uint8_t *start = r->p;
  TRY(rd_count(r, &n, 3, "export"));
  rawname *raw = tl_malloc((n + 1) * sizeof *raw);
  if (!raw) return rd_fail(r, TL_E_NOMEM, "out of memory");
  tl_status s = TL_OK;
  for (uint32_t i = 0; i < n && !s; i++) s = rd_export(c, r, &raw[i]);
  if (!s) s = check_export_names(r, raw, n, start);
  tl_free(raw);
  return s;
}

static tl_status rd_start(rctx *c, rd *r) {
  tl_module *m = c->m;
  const uint8_t *at = r->p;
  TRY(rd_u32(r, &m->start, "start function"));
  if (m->start >= m->funcs.n) return rd_fail_at(r, at, TL_E_INVALID, "unknown function %u", m->start);
  tl_functype *ft = tl_func_type(m, TL_FUNC(m, m->start));
  if (ft->params != TL_NONE || ft->results != TL_NONE)
    return rd_fail_at(r, at, TL_E_INVALID, "start function must have type [] -> []");
  m->has_start = true;
  return TL_OK;
}

/* Element segment items: function indices (flags 0-3) or expressions. */
static tl_status rd_elem_items(rctx *c, rd *r, tl_elem *e) {
  tl_module *m = c->m;
  TRY(rd_count(r, &e->n, e->exprs ? 2 : 1, "element"));
  e->item = TL_NEWN(&m->arena, tl_expr *, e->n ? e->n : 1);
  for (uint32_t i = 0; i < e->n; i++) {
    if (e->exprs) {
      TRY(rd_const_expr(c, r, e->type, &e->item[i]));
      continue;
    }
    const uint8_t *at = r->p;
    tl_expr *x = tl_expr_new(m, TL_OP_REF_FUNC, 0);
    TRY(rd_u32(r, &x->imm.index, "function index"));
    if (x->imm.index >= m->funcs.n) return rd_fail_at(r, at, TL_E_INVALID, "unknown function %u", x->imm.index);
    mark_declared(c, x->imm.index);
    tl_expr_finalize(m, NULL, x);
    e->item[i] = x;
  }
  return TL_OK;
}

static tl_status rd_elem(rctx *c, rd *r, tl_elem *e) {
  tl_module *m = c->m;
  const uint8_t *at = r->p;
  uint32_t flags;
  TRY(rd_u32(r, &flags, "element segment flags"));
  if (flags > 7) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed element segment flags %u", flags);
  if (flags) TRY(need_feature(c, r, at, TL_FEAT_BULK_MEMORY, "element segment flags"));
  e->mode = !(flags & 1) ? TL_SEG_ACTIVE : (flags & 2) ? TL_SEG_DECLARATIVE : TL_SEG_PASSIVE;
  e->exprs = flags & 4;
  e->type = TL_FUNCREF;
  if (e->mode == TL_SEG_ACTIVE) {
    if (flags & 2) TRY(rd_u32(r, &e->table, "table index"));
    if (e->table >= m->tables.n) return rd_fail_at(r, at, TL_E_INVALID, "unknown table %u", e->table);
    TRY(rd_const_expr(c, r, tl_table_is64(m, e->table) ? TL_I64 : TL_I32, &e->offset));
  }
  if (flags & 3) {
    const uint8_t *kat = r->p;
    if (e->exprs) {
      TRY(rd_reftype(c, r, &e->type));
    } else {
      uint8_t kind;
      TRY(rd_byte(r, &kind, "element kind"));
      if (kind) return rd_fail_at(r, kat, TL_E_MALFORMED, "malformed element kind %u", kind);
    }
  }
  if (e->mode == TL_SEG_ACTIVE && !tl_type_sub(m, tl_elem_type(e), TL_TABLE(m, e->table)->elem))
    return rd_fail_at(r, at, TL_E_INVALID, "type mismatch: element segment of %s in a table of %s",
                      tl_type_name(e->type), tl_type_name(TL_TABLE(m, e->table)->elem));
  return rd_elem_items(c, r, e);
}

static tl_status rd_elems(rctx *c, rd *r) {
  uint32_t n;
  TRY(rd_count(r, &n, 2, "element segment"));
  for (uint32_t i = 0; i < n; i++) {
    tl_elem e = {0};
    TRY(rd_elem(c, r, &e));
    TL_VEC_PUSH(&c->m->elems, tl_elem, e);
  }
  return TL_OK;
}

static tl_status rd_datacount(rctx *c, rd *r) {
  const uint8_t *at = r->p;
  TRY(need_feature(c, r, at, TL_FEAT_BULK_MEMORY, "data count section"));
  TRY(rd_u32(r, &c->datacount, "data count"));
  c->m->has_datacount = true;
  return TL_OK;
}

static tl_status rd_datas(rctx *c, rd *r) {
  tl_module *m = c->m;
  uint32_t n;
  const uint8_t *at = r->p;
  TRY(rd_count(r, &n, 2, "data segment"));
  if (m->has_datacount && n != c->datacount)
    return rd_fail_at(r, at, TL_E_MALFORMED, "data count and data section have inconsistent lengths (%u, %u)",
                      c->datacount, n);
  for (uint32_t i = 0; i < n; i++) {
    tl_data d = {0};
    uint32_t flags;
    at = r->p;
    TRY(rd_u32(r, &flags, "data segment flags"));
    if (flags > 2) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed data segment flags %u", flags);
    if (flags == 1) TRY(need_feature(c, r, at, TL_FEAT_BULK_MEMORY, "passive data segment"));
    d.mode = flags == 1 ? TL_SEG_PASSIVE : TL_SEG_ACTIVE;
    if (flags == 2) TRY(rd_u32(r, &d.mem, "memory index"));
    if (d.mode == TL_SEG_ACTIVE) {
      if (d.mem >= m->memories.n) return rd_fail_at(r, at, TL_E_INVALID, "unknown memory %u", d.mem);
      TRY(rd_const_expr(c, r, tl_memory_is64(m, d.mem) ? TL_I64 : TL_I32, &d.offset));
    }
    const uint8_t *b;
    TRY(rd_u32(r, &d.size, "data segment size"));
    TRY(rd_bytes(r, d.size, &b, "data segment"));
    d.bytes = rd_keep(c, b, d.size);
    TL_VEC_PUSH(&m->datas, tl_data, d);
  }
  return TL_OK;
}

const uint8_t *rd_keep(rctx *c, const uint8_t *p, size_t n) {
  if (c->borrow) return p; /* the caller keeps the input */
  uint8_t *copy = tl_arena_alloc(&c->m->arena, n ? n : 1, 1);
  if (n) memcpy(copy, p, n);
  return copy;
}

static tl_status rd_custom(rctx *c, rd *r, uint8_t after) {
  tl_module *m = c->m;
  tl_custom cu;
  TRY(rd_name(r, &m->arena, &cu.name, "custom section name"));
  size_t n = (size_t)(r->end - r->p);
  if (!strcmp(cu.name, "name")) {
    if (!c->names) {
      c->names = r->p;
      c->names_size = n;
    }
  } else {
    cu.bytes = rd_keep(c, r->p, n);
    cu.size = (uint32_t)n;
    cu.after = after;
    if (c->dwarf) {   /* where each custom section's bytes were, for tl_dwarf_update */
      while (c->custom_offsets.n < m->customs.n) TL_VEC_PUSH(&c->custom_offsets, uint32_t, 0);
      TL_VEC_PUSH(&c->custom_offsets, uint32_t, (uint32_t)(r->p - r->base));
    }
    TL_VEC_PUSH(&m->customs, tl_custom, cu);
  }
  r->p = r->end;
  return TL_OK;
}

/* Known section ids in the order they must appear (tag after memory,
 * datacount before code). */
static int section_rank(uint8_t id) {
  static const int8_t rank[14] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 13, 11, 6};
  return id <= 13 ? rank[id] : -1;
}

static tl_status rd_section(rctx *c, rd *s, uint8_t id, uint8_t after) {
  switch (id) {
  case 0: return rd_custom(c, s, after);
  case 1:
    TRY(rd_types(c, s));
    c->m->typed_funcs |= tl_module_has_gc_types(c->m);
    return TL_OK;
  case 2: return rd_imports(c, s);
  case 3: return rd_functions(c, s);
  case 4: return rd_tables(c, s);
  case 5: return rd_memories(c, s);
  case 6: return rd_globals(c, s);
  case 7: return rd_exports(c, s);
  case 8: return rd_start(c, s);
  case 9: return rd_elems(c, s);
  case 10: c->has_code = true; return rd_code_section(c, s);
  case 11: c->has_data = true; return rd_datas(c, s);
  case 13: return rd_tags(c, s);
  default: return rd_datacount(c, s);
  }
}

static tl_status rd_header(rd *r) {
  static const uint8_t magic[4] = {0, 'a', 's', 'm'};
  if ((size_t)(r->end - r->p) < 4 || memcmp(r->p, magic, 4))
    return rd_fail(r, TL_E_MALFORMED, "magic header not detected");
  r->p += 4;
  if ((size_t)(r->end - r->p) < 4)
    return rd_fail(r, TL_E_MALFORMED, "unexpected end: binary version");
  if (memcmp(r->p, "\1\0\0\0", 4))
    return rd_fail(r, TL_E_MALFORMED, "unknown binary version");
  r->p += 4;
  return TL_OK;
}

/* Without a code section, the function section must declare nothing. */
static tl_status check_code_count(rctx *c, rd *r, const uint8_t *at) {
  if (!c->has_code && c->nfunc_decl)
    return rd_fail_at(r, at, TL_E_MALFORMED, "function and code section have inconsistent lengths (%u, 0)",
                      c->nfunc_decl);
  return TL_OK;
}

static tl_status check_end(rctx *c, rd *r) {
  TRY(check_code_count(c, r, r->p));
  if (c->m->has_datacount && !c->has_data && c->datacount)
    return rd_fail(r, TL_E_MALFORMED, "data count and data section have inconsistent lengths (%u, 0)",
                   c->datacount);
  return TL_OK;
}

static tl_status rd_module(rctx *c, rd *r) {
  TRY(rd_header(r));
  int last_rank = 0;
  uint8_t last_id = 0;
  while (r->p < r->end) {
    const uint8_t *at = r->p;
    uint8_t id;
    uint32_t size;
    TRY(rd_byte(r, &id, "section id"));
    int rank = section_rank(id);
    if (rank < 0) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed section id %u", id);
    TRY(rd_u32(r, &size, "section size"));
    if (size > (size_t)(r->end - r->p))
      return rd_fail_at(r, at, TL_E_MALFORMED, "unexpected end: section size %u exceeds the %zu bytes left",
                        size, (size_t)(r->end - r->p));
    if (rank && rank <= last_rank)
      return rd_fail_at(r, at, TL_E_MALFORMED, "unexpected content after last section: section %u out of order"
                        " or duplicated", id);
    if (id == 11) TRY(check_code_count(c, r, at));
    rd s = {r->p, r->p + size, r->base, r->err, TL_NO_FUNC};
    TRY(rd_section(c, &s, id, last_id));
    if (s.p != s.end) return rd_fail(&s, TL_E_MALFORMED, "section size mismatch: %zu bytes left in section %u",
                                     (size_t)(s.end - s.p), id);
    r->p = s.end;
    if (rank) {
      last_rank = rank;
      last_id = id;
    }
  }
  return check_end(c, r);
}

/* Whether the name section (its first, the one names.c reads) may name
 * labels: unless it surely does not, the code reader keeps the label map.
 * p, n: the section's contents after its name. */
static bool may_name_labels(const uint8_t *p, size_t n) {
  const uint8_t *end = p + n;
  while (p < end) {
    uint8_t id = *p++;
    uint32_t size;
    size_t k = tl_leb_read_u32(p, end, &size);
    if (!k || size > (size_t)(end - p - k) || id == 3) return true;
    p += k + size;
  }
  return false;
}

/* Finds target_features before reading, so that the features it names are
 * accepted wherever they are used, and whether labels may have names.
 * Tolerant: stops at anything malformed. */
static tl_features scan_customs(const uint8_t *p, size_t n, bool *label_names, bool *dwarf) {
  tl_features f = 0;
  const uint8_t *end = p + n;
  bool names = false;
  *label_names = true;
  *dwarf = false;
  if (n < 8 || memcmp(p, "\0asm\1\0\0\0", 8)) return 0;
  p += 8;
  while (p < end) {
    uint8_t id = *p++;
    uint32_t size, len;
    size_t k = tl_leb_read_u32(p, end, &size);
    if (!k || size > (size_t)(end - p - k)) return f;
    p += k;
    const uint8_t *s = p, *se = p + size;
    p = se;
    if (id != 0 || !(k = tl_leb_read_u32(s, se, &len)) || len > (size_t)(se - s - k)) continue;
    s += k;
    if (len == 11 && !memcmp(s, ".debug_line", 11)) *dwarf = true;
    if (len == 15 && !memcmp(s, "target_features", 15)) f |= rd_target_features(s + len, (size_t)(se - s - len));
    if (len == 4 && !memcmp(s, "name", 4) && !names) {
      names = true;
      if (!may_name_labels(s + len, (size_t)(se - s - len))) *label_names = false;
    }
  }
  if (!names) *label_names = false;
  return f;
}

static void rctx_free(rctx *c) {
  code_scratch_free(c);
  tl_vec_free(&c->custom_offsets);
  tl_vec_free(&c->declared);
  tl_free(c);
}

/* DWARF to keep is read through once now, so that what is malformed or
 * unsupported in it fails the read at its input offset (the writer maps
 * the same sections again). */
static tl_status check_dwarf(rctx *c) {
  tl_dwarf_out out;
  while (c->custom_offsets.n < c->m->customs.n) TL_VEC_PUSH(&c->custom_offsets, uint32_t, 0);
  tl_status s = tl_dwarf_update(c->m, NULL, 0, 0, NULL, 0, c->custom_offsets.p, &out, c->err);
  tl_dwarf_free(&out);
  return s;
}

static tl_status read_all(rctx *c, rd *r) {
  TRY(rd_module(c, r));
  if (c->names) rd_name_section(c, c->names, c->names_size);
  return TL_OK;
}

/* Reads with the arena's out-of-memory jump pointing here; after a jump
 * the caller frees everything (memory is arena- or rctx-owned). */
static tl_status guarded_read(rctx *c, rd *r) {
  jmp_buf jb;
  c->m->arena.oom = &jb;
  if (setjmp(jb)) {
    c->m->arena.oom = NULL;
    tl_nodes_end(c->m, TL_NO_INDEX); /* a body's scratch, if it was reading one */
    return tl_errorf(c->err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  }
  tl_status s = read_all(c, r);
  c->m->arena.oom = NULL;
  return s;
}

tl_status tl_read(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                  tl_module **out, tl_error *err) {
  *out = NULL;
  if (err) err->func_index = TL_NO_FUNC;
  tl_features base = opt && opt->features ? opt->features : tl_features_default();
  bool detect = opt && opt->detect_features;
  bool label_names;
  bool has_lines;
  tl_features tf = scan_customs(bytes, size, &label_names, &has_lines);
  tl_module *m = tl_module_alloc();
  rctx *c = tl_calloc(1, sizeof *c);
  if (!m || !c) {
    tl_free(c);
    tl_module_destroy(m);
    return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  }
  c->m = m;
  c->err = err;
  c->feat = detect ? TL_FEAT_ALL : base | tf;
  c->no_body_bytes = opt && opt->no_body_bytes;
  c->threads = opt ? opt->threads : 0;
  c->label_map = label_names;
  c->dwarf = opt && opt->dwarf && !opt->source_map && has_lines;
  m->dwarf_locs = c->dwarf;
  c->lazy = opt && opt->lazy_bodies && !label_names && !detect && !opt->source_map && !c->dwarf;
  c->borrow = c->lazy && opt->borrow_bytes;
  rd r = {bytes, bytes + size, bytes, err, TL_NO_FUNC};
  tl_srcmap sm = {0};
  tl_status s = TL_OK;
  if (opt && opt->source_map) {
    s = tl_srcmap_parse(m, &sm, opt->source_map, opt->source_map_size, err);
    c->smap = &sm;
    c->threads = 1; /* bodies in order: locations are looked up as read */
  }
  if (c->dwarf) c->threads = 1;
  m->features = c->feat & TL_FEAT_ALL; /* what nodes are typed by while read (ref.func) */
  if (s == TL_OK) s = guarded_read(c, &r);
  if (s == TL_OK && c->dwarf) s = check_dwarf(c);
  tl_srcmap_free(&sm);
  if (s == TL_OK) {
    m->features = (detect ? tl_module_detect_features(m) | tf : base | tf) & TL_FEAT_ALL;
    if (m->typed_funcs) tl_module_retype_ref_funcs(m);
  }
  rctx_free(c);
  if (opt) m->threads = opt->threads;
  if (s == TL_OK && !(opt && opt->no_validate)) s = tl_validate_module(m, err);
  if (s != TL_OK) {
    tl_module_destroy(m);
    return s;
  }
  *out = m;
  return TL_OK;
}
