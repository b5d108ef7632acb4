/* interp_simd.c — the lanewise semantics of every non-memory SIMD
 * instruction (memory forms live in interp_exec.c). Lanes are read and
 * written through little-endian byte helpers; all integer arithmetic is done
 * in uint64_t so that no lane operation can hit signed overflow. Float lanes
 * reuse the scalar helpers of interp_num.c. */
#include "interp_impl.h"

#include <math.h>

static uint64_t lu(const tl_v *v, int w, int i) {
  uint64_t x = 0;
  memcpy(&x, v->b + i * w, (size_t)w);
  return x;
}

static int64_t ls(const tl_v *v, int w, int i) {
  uint64_t x = lu(v, w, i);
  int sh = 64 - 8 * w;
  return sh ? (int64_t)(x << sh) >> sh : (int64_t)x;
}

static void lset(tl_v *v, int w, int i, uint64_t x) { memcpy(v->b + i * w, &x, (size_t)w); }

static int64_t clamp(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }
static int64_t smin(int w) { return w == 8 ? INT64_MIN : -((int64_t)1 << (8 * w - 1)); }
static int64_t smax(int w) { return w == 8 ? INT64_MAX : ((int64_t)1 << (8 * w - 1)) - 1; }
static int64_t umax(int w) { return ((int64_t)1 << (8 * w)) - 1; }

/* Integer binary ops by kind, on lanes of width w. */
enum { K_ADD, K_SUB, K_MUL, K_ADDSS, K_ADDSU, K_SUBSS, K_SUBSU, K_MINS, K_MINU, K_MAXS, K_MAXU,
       K_AVGR, K_EQ, K_NE, K_LTS, K_LTU, K_GTS, K_GTU, K_LES, K_LEU, K_GES, K_GEU, K_Q15 };

static uint64_t ibin(int k, int w, int64_t sa, int64_t sb, uint64_t ua, uint64_t ub) {
  switch (k) {
  case K_ADD: return ua + ub;
  case K_SUB: return ua - ub;
  case K_MUL: return ua * ub;
  case K_ADDSS: return (uint64_t)clamp(sa + sb, smin(w), smax(w));
  case K_ADDSU: return (uint64_t)clamp((int64_t)(ua + ub), 0, umax(w));
  case K_SUBSS: return (uint64_t)clamp(sa - sb, smin(w), smax(w));
  case K_SUBSU: return (uint64_t)clamp((int64_t)ua - (int64_t)ub, 0, umax(w));
  case K_MINS: return sa < sb ? ua : ub;
  case K_MINU: return ua < ub ? ua : ub;
  case K_MAXS: return sa > sb ? ua : ub;
  case K_MAXU: return ua > ub ? ua : ub;
  case K_AVGR: return (ua + ub + 1) >> 1;
  case K_EQ: return ua == ub ? UINT64_MAX : 0;
  case K_NE: return ua != ub ? UINT64_MAX : 0;
  case K_LTS: return sa < sb ? UINT64_MAX : 0;
  case K_LTU: return ua < ub ? UINT64_MAX : 0;
  case K_GTS: return sa > sb ? UINT64_MAX : 0;
  case K_GTU: return ua > ub ? UINT64_MAX : 0;
  case K_LES: return sa <= sb ? UINT64_MAX : 0;
  case K_LEU: return ua <= ub ? UINT64_MAX : 0;
  case K_GES: return sa >= sb ? UINT64_MAX : 0;
  case K_GEU: return ua >= ub ? UINT64_MAX : 0;
  default: return (uint64_t)clamp((sa * sb + 0x4000) >> 15, smin(2), smax(2));
  }
}

static bool int_bin(int op, int *w, int *k) {
#define IB(O, W, K) case TL_OP_##O: *w = W; *k = K; return true;
  switch (op) {
  IB(I8X16_EQ, 1, K_EQ) IB(I8X16_NE, 1, K_NE) IB(I8X16_LT_S, 1, K_LTS) IB(I8X16_LT_U, 1, K_LTU)
  IB(I8X16_GT_S, 1, K_GTS) IB(I8X16_GT_U, 1, K_GTU) IB(I8X16_LE_S, 1, K_LES) IB(I8X16_LE_U, 1, K_LEU)
  IB(I8X16_GE_S, 1, K_GES) IB(I8X16_GE_U, 1, K_GEU)
  IB(I16X8_EQ, 2, K_EQ) IB(I16X8_NE, 2, K_NE) IB(I16X8_LT_S, 2, K_LTS) IB(I16X8_LT_U, 2, K_LTU)
  IB(I16X8_GT_S, 2, K_GTS) IB(I16X8_GT_U, 2, K_GTU) IB(I16X8_LE_S, 2, K_LES) IB(I16X8_LE_U, 2, K_LEU)
  IB(I16X8_GE_S, 2, K_GES) IB(I16X8_GE_U, 2, K_GEU)
  IB(I32X4_EQ, 4, K_EQ) IB(I32X4_NE, 4, K_NE) IB(I32X4_LT_S, 4, K_LTS) IB(I32X4_LT_U, 4, K_LTU)
  IB(I32X4_GT_S, 4, K_GTS) IB(I32X4_GT_U, 4, K_GTU) IB(I32X4_LE_S, 4, K_LES) IB(I32X4_LE_U, 4, K_LEU)
  IB(I32X4_GE_S, 4, K_GES) IB(I32X4_GE_U, 4, K_GEU)
  IB(I64X2_EQ, 8, K_EQ) IB(I64X2_NE, 8, K_NE) IB(I64X2_LT_S, 8, K_LTS) IB(I64X2_GT_S, 8, K_GTS)
  IB(I64X2_LE_S, 8, K_LES) IB(I64X2_GE_S, 8, K_GES)
  IB(I8X16_ADD, 1, K_ADD) IB(I8X16_ADD_SAT_S, 1, K_ADDSS) IB(I8X16_ADD_SAT_U, 1, K_ADDSU)
  IB(I8X16_SUB, 1, K_SUB) IB(I8X16_SUB_SAT_S, 1, K_SUBSS) IB(I8X16_SUB_SAT_U, 1, K_SUBSU)
  IB(I8X16_MIN_S, 1, K_MINS) IB(I8X16_MIN_U, 1, K_MINU) IB(I8X16_MAX_S, 1, K_MAXS)
  IB(I8X16_MAX_U, 1, K_MAXU) IB(I8X16_AVGR_U, 1, K_AVGR)
  IB(I16X8_ADD, 2, K_ADD) IB(I16X8_ADD_SAT_S, 2, K_ADDSS) IB(I16X8_ADD_SAT_U, 2, K_ADDSU)
  IB(I16X8_SUB, 2, K_SUB) IB(I16X8_SUB_SAT_S, 2, K_SUBSS) IB(I16X8_SUB_SAT_U, 2, K_SUBSU)
  IB(I16X8_MUL, 2, K_MUL) IB(I16X8_MIN_S, 2, K_MINS) IB(I16X8_MIN_U, 2, K_MINU)
  IB(I16X8_MAX_S, 2, K_MAXS) IB(I16X8_MAX_U, 2, K_MAXU) IB(I16X8_AVGR_U, 2, K_AVGR)
  IB(I16X8_Q15MULR_SAT_S, 2, K_Q15)
  IB(I32X4_ADD, 4, K_ADD) IB(I32X4_SUB, 4, K_SUB) IB(I32X4_MUL, 4, K_MUL)
  IB(I32X4_MIN_S, 4, K_MINS) IB(I32X4_MIN_U, 4, K_MINU) IB(I32X4_MAX_S, 4, K_MAXS)
  IB(I32X4_MAX_U, 4, K_MAXU)
  IB(I64X2_ADD, 8, K_ADD) IB(I64X2_SUB, 8, K_SUB) IB(I64X2_MUL, 8, K_MUL)
  default: return false;
  }
#undef IB
}

/* Float lanewise ops: kind over (a, b) raw bits of width w (4 or 8). */
enum { F_ADD, F_SUB, F_MUL, F_DIV, F_MIN, F_MAX, F_PMIN, F_PMAX, F_EQ, F_NE, F_LT, F_GT, F_LE, F_GE };

/* add/sub/mul/div with a NaN operand: that operand quieted, a's if both
 * are (what x86 does, so that the JIT's lanes agree bit for bit; C leaves
 * the choice to the compiler, which may swap the operands). */
static bool nan_in(int k, int w, uint64_t a, uint64_t b, uint64_t *r) {
  if (k > F_DIV) return false;
  uint64_t m = w == 4 ? 0x7fffffffu : 0x7fffffffffffffffull, inf = w == 4 ? 0x7f800000u : 0x7ff0000000000000ull;
  uint64_t q = w == 4 ? 0x00400000u : 0x0008000000000000ull;
  if ((a & m) > inf) *r = a | q;
  else if ((b & m) > inf) *r = b | q;
  else return false;
  return true;
}

static uint64_t fbin(int k, int w, uint64_t a, uint64_t b) {
  uint64_t nan;
  if (nan_in(k, w, a, b, &nan)) return nan;
  if (w == 4) {
    float x = tl_f32((uint32_t)a), y = tl_f32((uint32_t)b);
    switch (k) {
    case F_ADD: return tl_f32b(x + y);
    case F_SUB: return tl_f32b(x - y);
    case F_MUL: return tl_f32b(x * y);
    case F_DIV: return tl_f32b(x / y);
    case F_MIN: return tl_fmin32((uint32_t)a, (uint32_t)b);
    case F_MAX: return tl_fmax32((uint32_t)a, (uint32_t)b);
    case F_PMIN: return y < x ? b : a;
    case F_PMAX: return x < y ? b : a;
    case F_EQ: return x == y ? UINT64_MAX : 0;
    case F_NE: return x != y ? UINT64_MAX : 0;
    case F_LT: return x < y ? UINT64_MAX : 0;
    case F_GT: return x > y ? UINT64_MAX : 0;
    case F_LE: return x <= y ? UINT64_MAX : 0;
    default: return x >= y ? UINT64_MAX : 0;
    }
  }
  double x = tl_f64(a), y = tl_f64(b);
  switch (k) {
  case F_ADD: return tl_f64b(x + y);
  case F_SUB: return tl_f64b(x - y);
  case F_MUL: return tl_f64b(x * y);
  case F_DIV: return tl_f64b(x / y);
  case F_MIN: return tl_fmin64(a, b);
  case F_MAX: return tl_fmax64(a, b);
  case F_PMIN: return y < x ? b : a;
  case F_PMAX: return x < y ? b : a;
  case F_EQ: return x == y ? UINT64_MAX : 0;
  case F_NE: return x != y ? UINT64_MAX : 0;
  case F_LT: return x < y ? UINT64_MAX : 0;
  case F_GT: return x > y ? UINT64_MAX : 0;
  case F_LE: return x <= y ? UINT64_MAX : 0;
  default: return x >= y ? UINT64_MAX : 0;
  }
}

static bool float_bin(int op, int *w, int *k) {
#define FB(O, W, K) case TL_OP_##O: *w = W; *k = K; return true;
  switch (op) {
  FB(F32X4_ADD, 4, F_ADD) FB(F32X4_SUB, 4, F_SUB) FB(F32X4_MUL, 4, F_MUL) FB(F32X4_DIV, 4, F_DIV)
  FB(F32X4_MIN, 4, F_MIN) FB(F32X4_MAX, 4, F_MAX) FB(F32X4_PMIN, 4, F_PMIN) FB(F32X4_PMAX, 4, F_PMAX)
  FB(F32X4_EQ, 4, F_EQ) FB(F32X4_NE, 4, F_NE) FB(F32X4_LT, 4, F_LT) FB(F32X4_GT, 4, F_GT)
  FB(F32X4_LE, 4, F_LE) FB(F32X4_GE, 4, F_GE)
  FB(F64X2_ADD, 8, F_ADD) FB(F64X2_SUB, 8, F_SUB) FB(F64X2_MUL, 8, F_MUL) FB(F64X2_DIV, 8, F_DIV)
  FB(F64X2_MIN, 8, F_MIN) FB(F64X2_MAX, 8, F_MAX) FB(F64X2_PMIN, 8, F_PMIN) FB(F64X2_PMAX, 8, F_PMAX)
  FB(F64X2_EQ, 8, F_EQ) FB(F64X2_NE, 8, F_NE) FB(F64X2_LT, 8, F_LT) FB(F64X2_GT, 8, F_GT)
  FB(F64X2_LE, 8, F_LE) FB(F64X2_GE, 8, F_GE)
  default: return false;
  }
#undef FB
}

/* Float unary ops: abs, neg, ceil, floor, trunc, nearest, sqrt. */
static bool float_un(int op, int *w, int *k) {
#define FU(O, W, K) case TL_OP_##O: *w = W; *k = K; return true;
  switch (op) {
  FU(F32X4_CEIL, 4, 0) FU(F32X4_FLOOR, 4, 1) FU(F32X4_TRUNC, 4, 2) FU(F32X4_NEAREST, 4, 3)
  FU(F32X4_SQRT, 4, 4) FU(F32X4_ABS, 4, 5) FU(F32X4_NEG, 4, 6)
  FU(F64X2_CEIL, 8, 0) FU(F64X2_FLOOR, 8, 1) FU(F64X2_TRUNC, 8, 2) FU(F64X2_NEAREST, 8, 3)
  FU(F64X2_SQRT, 8, 4) FU(F64X2_ABS, 8, 5) FU(F64X2_NEG, 8, 6)
  default: return false;
  }
#undef FU
}

static uint64_t fun(int k, int w, uint64_t a) {
  uint64_t sign = w == 4 ? 0x80000000u : 0x8000000000000000ull;
  if (k == 5) return a & ~sign;
  if (k == 6) return a ^ sign;
  return w == 4 ? tl_fround32(k, (uint32_t)a) : tl_fround64(k, a);
}

/* Integer unary, shifts, and reductions by shape. */
static tl_v int_un(int op, tl_v a, bool *ok) {
  tl_v r = a;
  int w;
  switch (op) {
  case TL_OP_I8X16_ABS: w = 1; goto abs_;
  case TL_OP_I16X8_ABS: w = 2; goto abs_;
  case TL_OP_I32X4_ABS: w = 4; goto abs_;
  case TL_OP_I64X2_ABS: w = 8;
  abs_:
    for (int i = 0; i < 16 / w; i++) lset(&r, w, i, ls(&a, w, i) < 0 ? 0 - lu(&a, w, i) : lu(&a, w, i));
    return r;
  case TL_OP_I8X16_NEG: w = 1; goto neg_;
  case TL_OP_I16X8_NEG: w = 2; goto neg_;
  case TL_OP_I32X4_NEG: w = 4; goto neg_;
  case TL_OP_I64X2_NEG: w = 8;
  neg_:
    for (int i = 0; i < 16 / w; i++) lset(&r, w, i, 0 - lu(&a, w, i));
    return r;
  case TL_OP_I8X16_POPCNT:
    for (int i = 0; i < 16; i++) r.b[i] = (uint8_t)__builtin_popcount(a.b[i]);
    return r;
  case TL_OP_V128_NOT:
    r.w[0] = ~a.w[0];
    r.w[1] = ~a.w[1];
    return r;
  default: *ok = false; return r;
  }
}

static int32_t reduce(int op, const tl_v *a, bool *ok) {
  int w = 0, all = 0;
  switch (op) {
  case TL_OP_V128_ANY_TRUE: return (a->w[0] | a->w[1]) != 0;
  case TL_OP_I8X16_ALL_TRUE: w = 1; all = 1; break;
  case TL_OP_I16X8_ALL_TRUE: w = 2; all = 1; break;
  case TL_OP_I32X4_ALL_TRUE: w = 4; all = 1; break;
  case TL_OP_I64X2_ALL_TRUE: w = 8; all = 1; break;
  case TL_OP_I8X16_BITMASK: w = 1; break;
  case TL_OP_I16X8_BITMASK: w = 2; break;
  case TL_OP_I32X4_BITMASK: w = 4; break;
  case TL_OP_I64X2_BITMASK: w = 8; break;
  default: *ok = false; return 0;
  }
  uint32_t r = all ? 1 : 0;
  for (int i = 0; i < 16 / w; i++) {
    if (all && !lu(a, w, i)) r = 0;
    if (!all && ls(a, w, i) < 0) r |= 1u << i;
  }
  return (int32_t)r;
}

static bool shift(int op, tl_v *a, uint32_t c) {
  int w, k;
  switch (op) {
  case TL_OP_I8X16_SHL: w = 1; k = 0; break;
  case TL_OP_I8X16_SHR_S: w = 1; k = 1; break;
  case TL_OP_I8X16_SHR_U: w = 1; k = 2; break;
  case TL_OP_I16X8_SHL: w = 2; k = 0; break;
  case TL_OP_I16X8_SHR_S: w = 2; k = 1; break;
  case TL_OP_I16X8_SHR_U: w = 2; k = 2; break;
  case TL_OP_I32X4_SHL: w = 4; k = 0; break;
  case TL_OP_I32X4_SHR_S: w = 4; k = 1; break;
  case TL_OP_I32X4_SHR_U: w = 4; k = 2; break;
  case TL_OP_I64X2_SHL: w = 8; k = 0; break;
  case TL_OP_I64X2_SHR_S: w = 8; k = 1; break;
  case TL_OP_I64X2_SHR_U: w = 8; k = 2; break;
  default: return false;
  }
  unsigned n = c & (8u * (unsigned)w - 1);
  for (int i = 0; i < 16 / w; i++) {
    uint64_t v = k == 0 ? lu(a, w, i) << n : k == 1 ? (uint64_t)(ls(a, w, i) >> n) : lu(a, w, i) >> n;
    lset(a, w, i, v);
  }
  return true;
}

/* Widening ops: extend low/high, extmul, extadd pairwise, dot. dst lane
 * width w (source w/2); sg: signed; hi: high half. */
static bool widen(int op, const tl_v *a, const tl_v *b, tl_v *r) {
  int w, sg, hi, kind; /* kind 0 extend, 1 extmul, 2 extadd, 3 dot */
  switch (op) {
#define WD(O, W, S, H, K) case TL_OP_##O: w = W; sg = S; hi = H; kind = K; break;
  WD(I16X8_EXTEND_LOW_I8X16_S, 2, 1, 0, 0) WD(I16X8_EXTEND_HIGH_I8X16_S, 2, 1, 1, 0)
  WD(I16X8_EXTEND_LOW_I8X16_U, 2, 0, 0, 0) WD(I16X8_EXTEND_HIGH_I8X16_U, 2, 0, 1, 0)
  WD(I32X4_EXTEND_LOW_I16X8_S, 4, 1, 0, 0) WD(I32X4_EXTEND_HIGH_I16X8_S, 4, 1, 1, 0)
  WD(I32X4_EXTEND_LOW_I16X8_U, 4, 0, 0, 0) WD(I32X4_EXTEND_HIGH_I16X8_U, 4, 0, 1, 0)
  WD(I64X2_EXTEND_LOW_I32X4_S, 8, 1, 0, 0) WD(I64X2_EXTEND_HIGH_I32X4_S, 8, 1, 1, 0)
  WD(I64X2_EXTEND_LOW_I32X4_U, 8, 0, 0, 0) WD(I64X2_EXTEND_HIGH_I32X4_U, 8, 0, 1, 0)
  WD(I16X8_EXTMUL_LOW_I8X16_S, 2, 1, 0, 1) WD(I16X8_EXTMUL_HIGH_I8X16_S, 2, 1, 1, 1)
  WD(I16X8_EXTMUL_LOW_I8X16_U, 2, 0, 0, 1) WD(I16X8_EXTMUL_HIGH_I8X16_U, 2, 0, 1, 1)
  WD(I32X4_EXTMUL_LOW_I16X8_S, 4, 1, 0, 1) WD(I32X4_EXTMUL_HIGH_I16X8_S, 4, 1, 1, 1)
  WD(I32X4_EXTMUL_LOW_I16X8_U, 4, 0, 0, 1) WD(I32X4_EXTMUL_HIGH_I16X8_U, 4, 0, 1, 1)
  WD(I64X2_EXTMUL_LOW_I32X4_S, 8, 1, 0, 1) WD(I64X2_EXTMUL_HIGH_I32X4_S, 8, 1, 1, 1)
  WD(I64X2_EXTMUL_LOW_I32X4_U, 8, 0, 0, 1) WD(I64X2_EXTMUL_HIGH_I32X4_U, 8, 0, 1, 1)
  WD(I16X8_EXTADD_PAIRWISE_I8X16_S, 2, 1, 0, 2) WD(I16X8_EXTADD_PAIRWISE_I8X16_U, 2, 0, 0, 2)
  WD(I32X4_EXTADD_PAIRWISE_I16X8_S, 4, 1, 0, 2) WD(I32X4_EXTADD_PAIRWISE_I16X8_U, 4, 0, 0, 2)
  WD(I32X4_DOT_I16X8_S, 4, 1, 0, 3)
#undef WD
  default: return false;
  }
  int h = w / 2, n = 16 / w;
#define SRC(v, j) (sg ? (uint64_t)ls(v, h, j) : lu(v, h, j))
  for (int i = 0; i < n; i++) {
    int j = hi ? i + n : i;
    uint64_t x;
    switch (kind) {
    case 0: x = SRC(a, j); break;
    case 1: x = SRC(a, j) * SRC(b, j); break;
    case 2: x = SRC(a, 2 * i) + SRC(a, 2 * i + 1); break;
    default: x = SRC(a, 2 * i) * SRC(b, 2 * i) + SRC(a, 2 * i + 1) * SRC(b, 2 * i + 1); break;
    }
    lset(r, w, i, x);
  }
#undef SRC
  return true;
}

static tl_v narrow(int op, const tl_v *a, const tl_v *b) {
  int w = op == TL_OP_I8X16_NARROW_I16X8_S || op == TL_OP_I8X16_NARROW_I16X8_U ? 2 : 4;
  bool sg = op == TL_OP_I8X16_NARROW_I16X8_S || op == TL_OP_I16X8_NARROW_I32X4_S;
  int h = w / 2, n = 16 / w;
  tl_v r;
  for (int i = 0; i < 2 * n; i++) {
    int64_t x = i < n ? ls(a, w, i) : ls(b, w, i - n);
    x = sg ? clamp(x, smin(h), smax(h)) : clamp(x, 0, umax(h));
    lset(&r, h, i, (uint64_t)x);
  }
  return r;
}

static bool convert(int op, const tl_v *a, tl_v *r) {
  memset(r, 0, sizeof *r);
  switch (op) {
  case TL_OP_I32X4_TRUNC_SAT_F32X4_S: case TL_OP_I32X4_TRUNC_SAT_F32X4_U:
    for (int i = 0; i < 4; i++)
      lset(r, 4, i, tl_trunc_sat_f64((double)tl_f32((uint32_t)lu(a, 4, i)), false,
                                     op == TL_OP_I32X4_TRUNC_SAT_F32X4_S));
    return true;
  case TL_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO: case TL_OP_I32X4_TRUNC_SAT_F64X2_U_ZERO:
    for (int i = 0; i < 2; i++)
      lset(r, 4, i, tl_trunc_sat_f64(tl_f64(lu(a, 8, i)), false,
                                     op == TL_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO));
    return true;
  case TL_OP_F32X4_CONVERT_I32X4_S:
    for (int i = 0; i < 4; i++) lset(r, 4, i, tl_f32b((float)(int32_t)ls(a, 4, i)));
    return true;
  case TL_OP_F32X4_CONVERT_I32X4_U:
    for (int i = 0; i < 4; i++) lset(r, 4, i, tl_f32b((float)(uint32_t)lu(a, 4, i)));
    return true;
  case TL_OP_F64X2_CONVERT_LOW_I32X4_S:
    for (int i = 0; i < 2; i++) lset(r, 8, i, tl_f64b((double)(int32_t)ls(a, 4, i)));
    return true;
  case TL_OP_F64X2_CONVERT_LOW_I32X4_U:
    for (int i = 0; i < 2; i++) lset(r, 8, i, tl_f64b((double)(uint32_t)lu(a, 4, i)));
    return true;
  case TL_OP_F32X4_DEMOTE_F64X2_ZERO:
    for (int i = 0; i < 2; i++) lset(r, 4, i, tl_f32b((float)tl_f64(lu(a, 8, i))));
    return true;
  case TL_OP_F64X2_PROMOTE_LOW_F32X4:
    for (int i = 0; i < 2; i++) lset(r, 8, i, tl_f64b((double)tl_f32((uint32_t)lu(a, 4, i))));
    return true;
  default: return false;
  }
}

/* Splats, lane access, shuffles, bitwise. Returns the new sp or NULL. */
static tl_v *lanes(const tl_ins *ins, tl_v *sp) {
  int op = ins->op, l = ins->n;
  tl_v r;
  switch (op) {
  case TL_OP_I8X16_SPLAT: memset(r.b, (int)(sp[-1].i32 & 0xff), 16); sp[-1] = r; return sp;
  case TL_OP_I16X8_SPLAT: for (int i = 0; i < 8; i++) lset(&r, 2, i, sp[-1].i32); sp[-1] = r; return sp;
  case TL_OP_I32X4_SPLAT: case TL_OP_F32X4_SPLAT:
    for (int i = 0; i < 4; i++) lset(&r, 4, i, sp[-1].i32);
    sp[-1] = r;
    return sp;
  case TL_OP_I64X2_SPLAT: case TL_OP_F64X2_SPLAT:
    for (int i = 0; i < 2; i++) lset(&r, 8, i, sp[-1].i64);
    sp[-1] = r;
    return sp;
  case TL_OP_I8X16_EXTRACT_LANE_S: PUT32(sp[-1], (uint32_t)(int32_t)ls(&sp[-1], 1, l)); return sp;
  case TL_OP_I8X16_EXTRACT_LANE_U: PUT32(sp[-1], (uint32_t)lu(&sp[-1], 1, l)); return sp;
  case TL_OP_I16X8_EXTRACT_LANE_S: PUT32(sp[-1], (uint32_t)(int32_t)ls(&sp[-1], 2, l)); return sp;
  case TL_OP_I16X8_EXTRACT_LANE_U: PUT32(sp[-1], (uint32_t)lu(&sp[-1], 2, l)); return sp;
  case TL_OP_I32X4_EXTRACT_LANE: case TL_OP_F32X4_EXTRACT_LANE:
    PUT32(sp[-1], (uint32_t)lu(&sp[-1], 4, l));
    return sp;
  case TL_OP_I64X2_EXTRACT_LANE: case TL_OP_F64X2_EXTRACT_LANE:
    PUT64(sp[-1], lu(&sp[-1], 8, l));
    return sp;
  case TL_OP_I8X16_REPLACE_LANE: sp--; lset(&sp[-1], 1, l, sp[0].i32); return sp;
  case TL_OP_I16X8_REPLACE_LANE: sp--; lset(&sp[-1], 2, l, sp[0].i32); return sp;
  case TL_OP_I32X4_REPLACE_LANE: case TL_OP_F32X4_REPLACE_LANE:
    sp--;
    lset(&sp[-1], 4, l, sp[0].i32);
    return sp;
  case TL_OP_I64X2_REPLACE_LANE: case TL_OP_F64X2_REPLACE_LANE:
    sp--;
    lset(&sp[-1], 8, l, sp[0].i64);
    return sp;
  case TL_OP_I8X16_SHUFFLE: {
    const uint8_t *ix = ins->u.p;
    sp--;
    for (int i = 0; i < 16; i++) r.b[i] = ix[i] < 16 ? sp[-1].b[ix[i]] : sp[0].b[ix[i] & 15];
    sp[-1] = r;
    return sp;
  }
  case TL_OP_I8X16_SWIZZLE:
    sp--;
    for (int i = 0; i < 16; i++) r.b[i] = sp[0].b[i] < 16 ? sp[-1].b[sp[0].b[i]] : 0;
    sp[-1] = r;
    return sp;
  case TL_OP_V128_AND: sp--; sp[-1].w[0] &= sp[0].w[0]; sp[-1].w[1] &= sp[0].w[1]; return sp;
  case TL_OP_V128_OR: sp--; sp[-1].w[0] |= sp[0].w[0]; sp[-1].w[1] |= sp[0].w[1]; return sp;
  case TL_OP_V128_XOR: sp--; sp[-1].w[0] ^= sp[0].w[0]; sp[-1].w[1] ^= sp[0].w[1]; return sp;
  case TL_OP_V128_ANDNOT: sp--; sp[-1].w[0] &= ~sp[0].w[0]; sp[-1].w[1] &= ~sp[0].w[1]; return sp;
  case TL_OP_V128_BITSELECT:
    sp -= 2;
    for (int i = 0; i < 2; i++)
      sp[-1].w[i] = (sp[-1].w[i] & sp[1].w[i]) | (sp[0].w[i] & ~sp[1].w[i]);
    return sp;
  case TL_OP_I8X16_NARROW_I16X8_S: case TL_OP_I8X16_NARROW_I16X8_U:
  case TL_OP_I16X8_NARROW_I32X4_S: case TL_OP_I16X8_NARROW_I32X4_U:
    sp--;
    sp[-1] = narrow(op, &sp[-1], &sp[0]);
    return sp;
  default: return NULL;
  }
}

/* ---- relaxed SIMD: the spec's deterministic profile ----
 * Each relaxed op may return any of a list of results, chosen by a global
 * parameter of the implementation (spec, exec/numerics "Relaxed
 * Operations"); the deterministic profile fixes every parameter to 0, the
 * first entry of each list. The interpreter always runs that profile:
 *   relaxed_swizzle     = swizzle: an index of 16 or more gives 0
 *   relaxed_trunc_*     = trunc_sat_*: NaN gives 0, out of range saturates
 *   relaxed_laneselect  = bitselect with the mask as it is
 *   relaxed_min / max   = min / max (NaN and -0 rules of the plain ops)
 *   relaxed_q15mulr_s   = q15mulr_sat_s
 *   relaxed_madd        = unfused: a*b rounded, then + c rounded
 *   relaxed_nmadd       = relaxed_madd(-a, b, c)
 *   relaxed_dot_*       = both operands signed; each pair of i8*i8 products
 *                         is summed with i16 signed saturation, and the
 *                         add_s form sums two such i16s and c in i32 (wrapping)
 * The optimizer never folds these ops (F_RELAXED in the table), so this
 * choice is observable only when the interpreter runs a module. */

/* The plain op whose semantics is the deterministic choice, or -1. */
static int relaxed_twin(int op) {
  switch (op) {
  case TL_OP_I8X16_RELAXED_SWIZZLE: return TL_OP_I8X16_SWIZZLE;
  case TL_OP_I32X4_RELAXED_TRUNC_F32X4_S: return TL_OP_I32X4_TRUNC_SAT_F32X4_S;
  case TL_OP_I32X4_RELAXED_TRUNC_F32X4_U: return TL_OP_I32X4_TRUNC_SAT_F32X4_U;
  case TL_OP_I32X4_RELAXED_TRUNC_F64X2_S_ZERO: return TL_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO;
  case TL_OP_I32X4_RELAXED_TRUNC_F64X2_U_ZERO: return TL_OP_I32X4_TRUNC_SAT_F64X2_U_ZERO;
  case TL_OP_I8X16_RELAXED_LANESELECT: case TL_OP_I16X8_RELAXED_LANESELECT:
  case TL_OP_I32X4_RELAXED_LANESELECT: case TL_OP_I64X2_RELAXED_LANESELECT:
    return TL_OP_V128_BITSELECT;
  case TL_OP_F32X4_RELAXED_MIN: return TL_OP_F32X4_MIN;
  case TL_OP_F32X4_RELAXED_MAX: return TL_OP_F32X4_MAX;
  case TL_OP_F64X2_RELAXED_MIN: return TL_OP_F64X2_MIN;
  case TL_OP_F64X2_RELAXED_MAX: return TL_OP_F64X2_MAX;
  case TL_OP_I16X8_RELAXED_Q15MULR_S: return TL_OP_I16X8_Q15MULR_SAT_S;
  default: return -1;
  }
}

/* Unfused multiply-add of one lane: the product is rounded on its own (two
 * statements, so that no compiler contracts them into an fma). */
static uint64_t madd_lane(int w, uint64_t a, uint64_t b, uint64_t c, bool negate) {
  if (w == 4) {
    float x = tl_f32((uint32_t)a), p = (negate ? -x : x) * tl_f32((uint32_t)b);
    return tl_f32b(p + tl_f32((uint32_t)c));
  }
  double x = tl_f64(a), p = (negate ? -x : x) * tl_f64(b);
  return tl_f64b(p + tl_f64(c));
}

/* Signed i8 products of lanes 2i and 2i+1, summed with i16 saturation. */
static int64_t dot_pair(const tl_v *a, const tl_v *b, int i) {
  int64_t s = ls(a, 1, 2 * i) * ls(b, 1, 2 * i) + ls(a, 1, 2 * i + 1) * ls(b, 1, 2 * i + 1);
  return clamp(s, smin(2), smax(2));
}

/* madd, nmadd and the dot products; returns the new sp or NULL. */
static tl_v *relaxed_arith(int op, tl_v *sp) {
  tl_v r;
  int w = op == TL_OP_F64X2_RELAXED_MADD || op == TL_OP_F64X2_RELAXED_NMADD ? 8 : 4;
  switch (op) {
  case TL_OP_F32X4_RELAXED_MADD: case TL_OP_F32X4_RELAXED_NMADD:
  case TL_OP_F64X2_RELAXED_MADD: case TL_OP_F64X2_RELAXED_NMADD: {
    bool neg = op == TL_OP_F32X4_RELAXED_NMADD || op == TL_OP_F64X2_RELAXED_NMADD;
    for (int i = 0; i < 16 / w; i++)
      lset(&r, w, i, madd_lane(w, lu(&sp[-3], w, i), lu(&sp[-2], w, i), lu(&sp[-1], w, i), neg));
    sp[-3] = r;
    return sp - 2;
  }
  case TL_OP_I16X8_RELAXED_DOT_I8X16_I7X16_S:
    for (int i = 0; i < 8; i++) lset(&r, 2, i, (uint64_t)dot_pair(&sp[-2], &sp[-1], i));
    sp[-2] = r;
    return sp - 1;
  case TL_OP_I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S:
    for (int i = 0; i < 4; i++) {
      int64_t s = dot_pair(&sp[-3], &sp[-2], 2 * i) + dot_pair(&sp[-3], &sp[-2], 2 * i + 1);
      lset(&r, 4, i, (uint64_t)s + lu(&sp[-1], 4, i));
    }
    sp[-3] = r;
    return sp - 2;
  default: return NULL;
  }
}

tl_v *tl_interp_simd(const tl_ins *ins, tl_v *sp) {
  if (tl_ops[ins->op].flags & TL_F_RELAXED) {
    int twin = relaxed_twin(ins->op);
    if (twin < 0) return relaxed_arith(ins->op, sp);
    tl_ins plain = *ins;
    plain.op = (uint16_t)twin;
    return tl_interp_simd(&plain, sp);
  }
  int op = ins->op, w, k;
  tl_v r;
  bool ok = true;
  tl_v *nsp = lanes(ins, sp);
  if (nsp) return nsp;
  if (int_bin(op, &w, &k)) {
    tl_v *a = &sp[-2], *b = &sp[-1];
    for (int i = 0; i < 16 / w; i++)
      lset(&r, w, i, ibin(k, w, ls(a, w, i), ls(b, w, i), lu(a, w, i), lu(b, w, i)));
    sp[-2] = r;
    return sp - 1;
  }
  if (float_bin(op, &w, &k)) {
    for (int i = 0; i < 16 / w; i++) lset(&r, w, i, fbin(k, w, lu(&sp[-2], w, i), lu(&sp[-1], w, i)));
    sp[-2] = r;
    return sp - 1;
  }
  if (float_un(op, &w, &k)) {
    for (int i = 0; i < 16 / w; i++) lset(&r, w, i, fun(k, w, lu(&sp[-1], w, i)));
    sp[-1] = r;
    return sp;
  }
  if (shift(op, &sp[-2], sp[-1].i32)) return sp - 1;
  bool two = (op >= TL_OP_I16X8_EXTMUL_LOW_I8X16_S && op <= TL_OP_I16X8_EXTMUL_HIGH_I8X16_U) ||
             (op >= TL_OP_I32X4_EXTMUL_LOW_I16X8_S && op <= TL_OP_I32X4_EXTMUL_HIGH_I16X8_U) ||
             (op >= TL_OP_I64X2_EXTMUL_LOW_I32X4_S && op <= TL_OP_I64X2_EXTMUL_HIGH_I32X4_U) ||
             op == TL_OP_I32X4_DOT_I16X8_S;
  if (two && widen(op, &sp[-2], &sp[-1], &r)) {
    sp[-2] = r;
    return sp - 1;
  }
  if (!two && widen(op, &sp[-1], &sp[-1], &r)) {
    sp[-1] = r;
    return sp;
  }
  if (convert(op, &sp[-1], &r)) {
    sp[-1] = r;
    return sp;
  }
  int32_t x = reduce(op, &sp[-1], &ok);
  if (ok) {
    PUT32(sp[-1], (uint32_t)x);
    return sp;
  }
  ok = true;
  r = int_un(op, sp[-1], &ok);
  if (ok) sp[-1] = r;
  return sp;
}

/* ---- relaxed SIMD: the native profile (x86's choices, the JIT's) ---- */
static int64_t sat16(int64_t x) { return clamp(x, smin(2), smax(2)); }
/* pmaddubsw: unsigned bytes of u times signed bytes of s, pairs summed
 * with i16 saturation */
static int64_t maddubs(const tl_v *u, const tl_v *s, int i) {
  return sat16((int64_t)lu(u, 1, 2 * i) * ls(s, 1, 2 * i) + (int64_t)lu(u, 1, 2 * i + 1) * ls(s, 1, 2 * i + 1));
}

/* Returns the new sp, or NULL when op is the same in both profiles. */
static tl_v *relaxed_native(int op, tl_v *sp) {
  tl_v r;
  switch (op) {
  case TL_OP_I8X16_RELAXED_SWIZZLE:
    for (int i = 0; i < 16; i++) r.b[i] = sp[-1].b[i] & 0x80 ? 0 : sp[-2].b[sp[-1].b[i] & 15];
    break;
  case TL_OP_F32X4_RELAXED_MIN: case TL_OP_F32X4_RELAXED_MAX: {
    bool mx = op == TL_OP_F32X4_RELAXED_MAX;
    for (int i = 0; i < 4; i++) {
      float a = tl_f32((uint32_t)lu(&sp[-2], 4, i)), b = tl_f32((uint32_t)lu(&sp[-1], 4, i));
      lset(&r, 4, i, (mx ? a > b : a < b) ? lu(&sp[-2], 4, i) : lu(&sp[-1], 4, i));
    }
    break;
  }
  case TL_OP_F64X2_RELAXED_MIN: case TL_OP_F64X2_RELAXED_MAX: {
    bool mx = op == TL_OP_F64X2_RELAXED_MAX;
    for (int i = 0; i < 2; i++) {
      double a = tl_f64(lu(&sp[-2], 8, i)), b = tl_f64(lu(&sp[-1], 8, i));
      lset(&r, 8, i, (mx ? a > b : a < b) ? lu(&sp[-2], 8, i) : lu(&sp[-1], 8, i));
    }
    break;
  }
  case TL_OP_I16X8_RELAXED_Q15MULR_S:          /* wraps: 0x8000 * 0x8000 gives 0x8000 */
    for (int i = 0; i < 8; i++) lset(&r, 2, i, (uint64_t)((ls(&sp[-2], 2, i) * ls(&sp[-1], 2, i) + 0x4000) >> 15));
    break;
  case TL_OP_I16X8_RELAXED_DOT_I8X16_I7X16_S:
    for (int i = 0; i < 8; i++) lset(&r, 2, i, (uint64_t)maddubs(&sp[-1], &sp[-2], i));
    break;
  case TL_OP_I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S:
    for (int i = 0; i < 4; i++)
      lset(&r, 4, i, (uint64_t)(maddubs(&sp[-2], &sp[-3], 2 * i) + maddubs(&sp[-2], &sp[-3], 2 * i + 1)) +
                         lu(&sp[-1], 4, i));
    sp[-3] = r;
    return sp - 2;
  default: return NULL;
  }
  sp[-2] = r;
  return sp - 1;
}

tl_v *tl_interp_simd_native(const tl_ins *ins, tl_v *sp) {
  tl_v *nsp = tl_ops[ins->op].flags & TL_F_RELAXED ? relaxed_native(ins->op, sp) : NULL;
  return nsp ? nsp : tl_interp_simd(ins, sp);
}

tl_v *tl_simd_eval(int op, uint32_t lane, tl_v *sp) {
  tl_ins ins;
  memset(&ins, 0, sizeof ins);
  ins.op = (uint16_t)op;
  ins.n = (uint16_t)lane;
  return tl_interp_simd(&ins, sp);
}
