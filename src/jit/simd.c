/* simd.c — SIMD code generation for the single-pass compiler (jc.h):
 * every 0xFD instruction, on SSE4.1 plus pcmpgtq (SSE4.2), which
 * tl_jit_simd_ok checks once with cpuid. v128 values live on the valent
 * stack like scalars (constants, locals, frame words, xmm registers; hot
 * v128 locals in xmm8-15). Most instructions are one SSE instruction on the
 * first operand's register; the rest are short sequences with exact wasm
 * semantics (NaN and signed-zero rules of min/max bit for bit as the
 * interpreter's, saturating conversions, shifts masked by lane width).
 * Legacy SSE needs 16-byte aligned memory operands, which frame words are
 * not, so operands come in registers (movdqu loads them). xmm0 and xmm1 are
 * scratch: sequences use them only after every operand is in a register.
 * What is not compiled inline (accesses to 64-bit memories other than the
 * checked fast path of memory 0) calls tl_jit_h_simd, which runs the
 * interpreter's lane semantics (tl_simd_eval). Relaxed SIMD:
 * swizzle, min/max, q15mulr and the dot products take the plain x86
 * instruction (a result the spec allows; the interpreter's deterministic
 * profile may differ), madd is unfused and the truncations saturate, as the
 * interpreter's. */
#include "jc.h"

#include <cpuid.h>

enum { X0 = XMM(0), X1 = XMM(1) };

/* ------------------------------------------------------------ encoding */
/* [pfx] 0F xx / 0F 38 xx / 0F 3A xx with reg field d, r/m s */
static void sse(jc *c, uint8_t pfx, uint32_t opc, int d, x64_op s) {
  x64_rm(c->b, pfx, false, opc, opc > 0xFFFF ? 3 : 2, d, s, false);
}
static void rr(jc *c, uint8_t pfx, uint32_t opc, int d, int s) { sse(c, pfx, opc, d, x64_r(s)); }
static void rri(jc *c, uint8_t pfx, uint32_t opc, int d, int s, uint8_t imm) {
  rr(c, pfx, opc, d, s);
  x64_byte(c->b, imm);
}
/* shift by an immediate: 66 0F 71/72/73 /digit ib */
static void shift_imm(jc *c, uint32_t opc, int digit, int r, uint8_t k) {
  x64_rm(c->b, 0x66, false, opc, 2, digit, x64_r(r), false);
  x64_byte(c->b, k);
}
static void movaps(jc *c, int d, int s) { if (d != s) rr(c, 0, 0x0F28, d, s); }
static void all_ones(jc *c, int r) { rr(c, 0x66, 0x0F76, r, r); }          /* pcmpeqd */
static void zero(jc *c, int r) { rr(c, 0x66, 0x0FEF, r, r); }              /* pxor */
/* the 16 bytes of lanes of width w bytes, each v */
static void lanes_of(uint8_t b[16], uint64_t v, int w) {
  for (int i = 0; i < 16; i += w) memcpy(b + i, &v, (size_t)w);
}
/* r = lanes of value v */
static void splat_const(jc *c, int r, uint64_t v, int w) {
  uint8_t b[16];
  lanes_of(b, v, w);
  jc_xconst(c, r, b);
}
/* op d, [lanes of value v] (the pool's copy as the memory operand) */
static void op_lanes(jc *c, uint8_t pfx, uint32_t opc, int d, uint64_t v, int w) {
  uint8_t b[16];
  lanes_of(b, v, w);
  jc_sse_const(c, pfx, opc, d, b, -1);
}
static bool is_vconst(const valent *v) { return v->kind == V_CONST && v->type == TL_V128; }
static const uint8_t *vbytes(const valent *v) { return (const uint8_t *)(intptr_t)v->imm; }

/* ------------------------------------------------------------ operands */
/* A popped value in an xmm register of its own (for the result). */
static int own(jc *c, valent *v) {
  if (v->kind == V_REG) return v->reg;
  int r = jc_alloc_reg(c, true);
  jc_load_into(c, r, v);
  v->kind = V_REG;
  v->reg = (uint8_t)r;
  return r;
}
/* A popped value in some xmm register, read only (a register local as it
 * is); jc_drop_entry frees what this allocated. */
static int src(jc *c, valent *v) {
  if (v->kind == V_LOCAL && c->lreg[v->local] >= 16) return c->lreg[v->local];
  return own(c, v);
}
static void push_x(jc *c, int r) { jc_push_reg(c, TL_V128, r); }

/* ---------------------------------------------------------------- AVX */
/* AVX (cpuid and the OS saving ymm state), checked once: then the
 * lanewise binary and unary instructions take their VEX forms, d = x op y
 * without copying x first, y straight from its frame words or the pool
 * (VEX memory operands need no alignment). */
static bool avx_off;
void tl_jit_use_avx(bool on) { avx_off = !on; }
static bool avx(void) {
  static int ok = -1;
  if (avx_off) return false;
  if (ok < 0) {
    unsigned a, b, cx, d;
    ok = 0;
    if (__get_cpuid(1, &a, &b, &cx, &d) && (cx & bit_AVX) && (cx & bit_OSXSAVE)) {
      unsigned lo, hi;
      __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      ok = (lo & 6) == 6;
    }
  }
  return ok == 1;
}

/* A popped value as the r/m operand of a VEX instruction: its register,
 * a register local's register, or its frame words. */
static x64_op vex_rm(jc *c, valent *v) {
  if (v->kind == V_LOCAL && c->lreg[v->local] < 0) return loc(c, v->local);
  if (v->kind == V_SLOT) return home(c, (uint32_t)v->imm);
  return x64_r(src(c, v));
}

/* d = x op y in VEX form (d: x's register if x is one of its own, else a
 * fresh one); imm >= 0: the imm8. Returns d. */
static int vex_binary(jc *c, uint8_t pfx, uint32_t opc, valent *x, valent *y, int imm) {
  int s1 = src(c, x);
  int d = x->kind == V_REG ? x->reg : jc_alloc_reg(c, true);
  if (is_vconst(y)) {
    jc_vex_const(c, pfx, opc, d, s1, vbytes(y), imm);
  } else {
    x64_vex(c->b, pfx, false, opc, d, s1, vex_rm(c, y));
    if (imm >= 0) x64_byte(c->b, (uint8_t)imm);
    jc_drop_entry(c, *y);
  }
  return d;
}

/* d op= the popped s: a register, or a constant's pool copy; imm >= 0:
 * the instruction's imm8 */
static void op_with(jc *c, uint8_t pfx, uint32_t opc, int d, valent *s, int imm) {
  if (is_vconst(s)) {
    jc_sse_const(c, pfx, opc, d, vbytes(s), imm);
    return;
  }
  rr(c, pfx, opc, d, src(c, s));
  if (imm >= 0) x64_byte(c->b, (uint8_t)imm);
  jc_drop_entry(c, *s);
}

/* a = a op b (or b op a when swap, the result in b's register) */
static void binary(jc *c, uint8_t pfx, uint32_t opc, bool swap, bool negate) {
  valent b = jc_pop(c), a = jc_pop(c);
  int d;
  if (avx()) {
    d = vex_binary(c, pfx, opc, swap ? &b : &a, swap ? &a : &b, -1);
  } else {
    d = own(c, swap ? &b : &a);
    op_with(c, pfx, opc, d, swap ? &a : &b, -1);
  }
  if (negate) {
    all_ones(c, X0);
    rr(c, 0x66, 0x0FEF, d, X0);
  }
  push_x(c, d);
}
/* cmpps/cmppd with predicate p (0 eq, 1 lt, 2 le, 4 ne) */
static void fcmp(jc *c, bool dbl, uint8_t p, bool swap) {
  valent b = jc_pop(c), a = jc_pop(c);
  int d;
  if (avx()) {
    d = vex_binary(c, dbl ? 0x66 : 0, 0x0FC2, swap ? &b : &a, swap ? &a : &b, p);
  } else {
    d = own(c, swap ? &b : &a);
    op_with(c, dbl ? 0x66 : 0, 0x0FC2, d, swap ? &a : &b, p);
  }
  push_x(c, d);
}
/* unsigned a >= b: max(a, b) == a (or <=: min); negate for < and > */
static void ucmp(jc *c, uint32_t minmax, uint32_t eq, bool negate) {
  valent b = jc_pop(c), a = jc_pop(c);
  int d = own(c, &a), s = src(c, &b);
  jc_drop_entry(c, b);
  movaps(c, X1, d);
  rr(c, 0x66, minmax, X1, s);
  rr(c, 0x66, eq, d, X1);
  if (negate) {
    all_ones(c, X0);
    rr(c, 0x66, 0x0FEF, d, X0);
  }
  push_x(c, d);
}
static void unary(jc *c, uint8_t pfx, uint32_t opc, int imm) {
  if (avx()) {                   /* d = op [x]: x's frame words read as they are */
    valent x = jc_pop(c);
    int d = x.kind == V_REG ? x.reg : jc_alloc_reg(c, true);
    if (is_vconst(&x)) jc_vex_const(c, pfx, opc, d, -1, vbytes(&x), imm);
    else {
      x64_vex(c->b, pfx, false, opc, d, -1, vex_rm(c, &x));
      if (imm >= 0) x64_byte(c->b, (uint8_t)imm);
      if (x.kind == V_REG && x.reg != d) jc_drop_entry(c, x);
    }
    push_x(c, d);
    return;
  }
  int r = jc_pop_reg(c);
  rr(c, pfx, opc, r, r);
  if (imm >= 0) x64_byte(c->b, (uint8_t)imm);
  push_x(c, r);
}

/* ------------------------------------------------------- lanes, splats */
static void splat(jc *c, int op) {
  if (op == TL_OP_F32X4_SPLAT || op == TL_OP_F64X2_SPLAT) {
    int r = jc_pop_reg(c);
    if (op == TL_OP_F32X4_SPLAT) rri(c, 0, 0x0FC6, r, r, 0);           /* shufps r, r, 0 */
    else rr(c, 0x66, 0x0F6C, r, r);                                    /* punpcklqdq */
    push_x(c, r);
    return;
  }
  int g = jc_pop_reg(c);
  int r = jc_alloc_reg(c, true);
  x64_rm(c->b, 0x66, op == TL_OP_I64X2_SPLAT, 0x0F6E, 2, r, x64_r(g), false);   /* movd/movq */
  jc_free_reg(c, g);
  switch (op) {
  case TL_OP_I8X16_SPLAT: zero(c, X0); rr(c, 0x66, 0x0F3800, r, X0); break;     /* pshufb */
  case TL_OP_I16X8_SPLAT: rri(c, 0xF2, 0x0F70, r, r, 0); rri(c, 0x66, 0x0F70, r, r, 0); break;
  case TL_OP_I32X4_SPLAT: rri(c, 0x66, 0x0F70, r, r, 0); break;                 /* pshufd */
  default: rr(c, 0x66, 0x0F6C, r, r); break;                                    /* punpcklqdq */
  }
  push_x(c, r);
}

static void extract_lane(jc *c, int op, uint8_t l) {
  if (op == TL_OP_F32X4_EXTRACT_LANE || op == TL_OP_F64X2_EXTRACT_LANE) {
    int r = jc_pop_reg(c);          /* the float is the low lane; the rest is ignored */
    if (op == TL_OP_F32X4_EXTRACT_LANE && l) rri(c, 0x66, 0x0F70, r, r, l);
    if (op == TL_OP_F64X2_EXTRACT_LANE && l) rri(c, 0x66, 0x0F70, r, r, 0xEE);
    jc_push_reg(c, op == TL_OP_F32X4_EXTRACT_LANE ? TL_F32 : TL_F64, r);
    return;
  }
  valent v = jc_pop(c);
  int x = src(c, &v), g = jc_alloc_reg(c, false);
  bool i64 = op == TL_OP_I64X2_EXTRACT_LANE;
  switch (op) {
  case TL_OP_I8X16_EXTRACT_LANE_S: case TL_OP_I8X16_EXTRACT_LANE_U:
    x64_rm(c->b, 0x66, false, 0x0F3A14, 3, x, x64_r(g), false);               /* pextrb */
    x64_byte(c->b, l);
    if (op == TL_OP_I8X16_EXTRACT_LANE_S) x64_rm(c->b, 0, false, 0x0FBE, 2, g, x64_r(g), true);
    break;
  case TL_OP_I16X8_EXTRACT_LANE_S: case TL_OP_I16X8_EXTRACT_LANE_U:
    rri(c, 0x66, 0x0FC5, g, x, l);                                              /* pextrw */
    if (op == TL_OP_I16X8_EXTRACT_LANE_S) x64_rm(c->b, 0, false, 0x0FBF, 2, g, x64_r(g), false);
    break;
  default:
    if (!l) x64_rm(c->b, 0x66, i64, 0x0F7E, 2, x, x64_r(g), false);            /* movd/movq */
    else { x64_rm(c->b, 0x66, i64, 0x0F3A16, 3, x, x64_r(g), false); x64_byte(c->b, l); }
  }
  jc_drop_entry(c, v);
  jc_push_reg(c, i64 ? TL_I64 : TL_I32, g);
}

static void replace_lane(jc *c, int op, uint8_t l) {
  valent s = jc_pop(c);
  int r = jc_pop_reg(c);
  switch (op) {
  case TL_OP_F32X4_REPLACE_LANE: {
    int x = src(c, &s);
    rri(c, 0x66, 0x0F3A21, r, x, (uint8_t)(l << 4));                            /* insertps */
    break;
  }
  case TL_OP_F64X2_REPLACE_LANE: {
    int x = src(c, &s);
    if (l) rr(c, 0, 0x0F16, r, x);                                              /* movlhps */
    else rr(c, 0xF2, 0x0F10, r, x);                                             /* movsd */
    break;
  }
  default: {
    int g = s.kind == V_REG ? s.reg : jc_alloc_reg(c, false);
    if (s.kind != V_REG) { jc_load_into(c, g, &s); s.kind = V_REG; s.reg = (uint8_t)g; }
    uint32_t opc = op == TL_OP_I8X16_REPLACE_LANE ? 0x0F3A20 : op == TL_OP_I16X8_REPLACE_LANE ? 0x0FC4 : 0x0F3A22;
    x64_rm(c->b, 0x66, op == TL_OP_I64X2_REPLACE_LANE, opc, opc > 0xFFFF ? 3 : 2, r, x64_r(g), false);
    x64_byte(c->b, l);
  }
  }
  jc_drop_entry(c, s);
  push_x(c, r);
}

/* i8x16.shuffle: pshufb each operand with its half of the mask, or them */
static void shuffle(jc *c, const uint8_t *m) {
  uint8_t ma[16], mb[16];
  bool use_a = false, use_b = false;
  for (int i = 0; i < 16; i++) {
    ma[i] = m[i] < 16 ? m[i] : 0x80;
    mb[i] = m[i] >= 16 ? (uint8_t)(m[i] - 16) : 0x80;
    use_a |= m[i] < 16;
    use_b |= m[i] >= 16;
  }
  valent b = jc_pop(c);
  if (!use_b) {
    jc_drop_entry(c, b);
    int r = jc_pop_reg(c);
    jc_sse_const(c, 0x66, 0x0F3800, r, ma, -1);
    push_x(c, r);
    return;
  }
  valent a = jc_pop(c);
  int rb = own(c, &b);
  jc_sse_const(c, 0x66, 0x0F3800, rb, mb, -1);
  if (use_a) {
    int ra = src(c, &a);
    movaps(c, X1, ra);
    jc_sse_const(c, 0x66, 0x0F3800, X1, ma, -1);
    rr(c, 0x66, 0x0FEB, rb, X1);                                                /* por */
  }
  jc_drop_entry(c, a);
  push_x(c, rb);
}

/* v128.bitselect(v1, v2, c) = ((v1 ^ v2) & c) ^ v2 (relaxed laneselect too) */
static void bitselect(jc *c) {
  valent m = jc_pop(c), v2 = jc_pop(c);
  int r = jc_pop_reg(c), x2 = src(c, &v2), xm = src(c, &m);
  rr(c, 0x66, 0x0FEF, r, x2);
  rr(c, 0x66, 0x0FDB, r, xm);
  rr(c, 0x66, 0x0FEF, r, x2);
  jc_drop_entry(c, m);
  jc_drop_entry(c, v2);
  push_x(c, r);
}

/* ------------------------------------------------------------- tests */
static void any_true(jc *c) {
  valent v = jc_pop(c);
  int x = src(c, &v);
  rr(c, 0x66, 0x0F3817, x, x);                                                  /* ptest */
  jc_drop_entry(c, v);
  jc_push_flags(c, CC_NE);
}
static void all_true(jc *c, uint32_t eq) {
  valent v = jc_pop(c);
  int x = src(c, &v);
  zero(c, X0);
  rr(c, 0x66, eq, X0, x);                      /* lanes equal to zero */
  rr(c, 0x66, 0x0F3817, X0, X0);
  jc_drop_entry(c, v);
  jc_push_flags(c, CC_E);
}
static void bitmask(jc *c, int op) {
  valent v = jc_pop(c);
  int x = src(c, &v), g = jc_alloc_reg(c, false);
  switch (op) {
  case TL_OP_I8X16_BITMASK: rr(c, 0x66, 0x0FD7, g, x); break;                  /* pmovmskb */
  case TL_OP_I16X8_BITMASK:
    movaps(c, X0, x);
    rr(c, 0x66, 0x0F63, X0, X0);                                                /* packsswb */
    rr(c, 0x66, 0x0FD7, g, X0);
    x64_rm(c->b, 0, false, 0x0FB6, 2, g, x64_r(g), true);                      /* movzx g, g8 */
    break;
  case TL_OP_I32X4_BITMASK: rr(c, 0, 0x0F50, g, x); break;                     /* movmskps */
  default: rr(c, 0x66, 0x0F50, g, x); break;                                   /* movmskpd */
  }
  jc_drop_entry(c, v);
  jc_push_reg(c, TL_I32, g);
}

/* ------------------------------------------------------------- shifts */
/* xmm0 = 16 copies of the low byte of eax */
static void splat_al(jc *c) {
  x64_rm(c->b, 0x66, false, 0x0F6E, 2, X0, x64_r(RAX), false);                 /* movd */
  rr(c, 0x66, 0x0F60, X0, X0);                                                  /* punpcklbw */
  rri(c, 0xF2, 0x0F70, X0, X0, 0);                                              /* pshuflw */
  rri(c, 0x66, 0x0F70, X0, X0, 0);                                              /* pshufd */
}

/* i8x16 shifts and i64x2.shr_s by a count in xmm1 (and in ecx, masked) */
static void shift_var_sequence(jc *c, int op, int r) {
  switch (op) {
  case TL_OP_I8X16_SHL: case TL_OP_I8X16_SHR_U: {
    bool left = op == TL_OP_I8X16_SHL;
    rr(c, 0x66, left ? 0x0FF1 : 0x0FD1, r, X1);                                 /* psllw / psrlw */
    x64_mov_ri(c->b, RAX, 0xFF);
    x64_rm(c->b, 0, false, 0xD3, 1, left ? 4 : 5, x64_r(RAX), false);           /* shl/shr eax, cl */
    splat_al(c);
    rr(c, 0x66, 0x0FDB, r, X0);
    break;
  }
  case TL_OP_I8X16_SHR_S:                           /* bytes to words, shift by count + 8, pack */
    x64_rm(c->b, 0, false, 0x83, 1, 0, x64_r(RCX), false);                      /* add ecx, 8 */
    x64_byte(c->b, 8);
    x64_rm(c->b, 0x66, false, 0x0F6E, 2, X1, x64_r(RCX), false);
    movaps(c, X0, r);
    rr(c, 0x66, 0x0F68, X0, X0);
    rr(c, 0x66, 0x0F60, r, r);
    rr(c, 0x66, 0x0FE1, X0, X1);                                                /* psraw */
    rr(c, 0x66, 0x0FE1, r, X1);
    rr(c, 0x66, 0x0F63, r, X0);
    break;
  default:                                          /* i64x2.shr_s: ((x ^ s) >>u k) ^ s */
    movaps(c, X0, r);
    shift_imm(c, 0x0F72, 4, X0, 31);
    rri(c, 0x66, 0x0F70, X0, X0, 0xF5);
    rr(c, 0x66, 0x0FEF, r, X0);
    rr(c, 0x66, 0x0FD3, r, X1);                                                 /* psrlq */
    rr(c, 0x66, 0x0FEF, r, X0);
  }
}

/* Lane shifts: by a constant count (immediate forms), or by a variable
 * one masked to the lane width. */
static bool shift(jc *c, int op) {
  static const struct { int op; uint8_t w, kind; uint32_t var, imm; int digit; } tab[] = {
    /* kind 0 shl, 1 shr_s, 2 shr_u */
    {TL_OP_I8X16_SHL, 1, 0, 0, 0x0F71, 6}, {TL_OP_I8X16_SHR_S, 1, 1, 0, 0x0F71, 4},
    {TL_OP_I8X16_SHR_U, 1, 2, 0, 0x0F71, 2},
    {TL_OP_I16X8_SHL, 2, 0, 0x0FF1, 0x0F71, 6}, {TL_OP_I16X8_SHR_S, 2, 1, 0x0FE1, 0x0F71, 4},
    {TL_OP_I16X8_SHR_U, 2, 2, 0x0FD1, 0x0F71, 2},
    {TL_OP_I32X4_SHL, 4, 0, 0x0FF2, 0x0F72, 6}, {TL_OP_I32X4_SHR_S, 4, 1, 0x0FE2, 0x0F72, 4},
    {TL_OP_I32X4_SHR_U, 4, 2, 0x0FD2, 0x0F72, 2},
    {TL_OP_I64X2_SHL, 8, 0, 0x0FF3, 0x0F73, 6}, {TL_OP_I64X2_SHR_S, 8, 1, 0, 0x0F73, 2},
    {TL_OP_I64X2_SHR_U, 8, 2, 0x0FD3, 0x0F73, 2},
  };
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
    if (tab[i].op != op) continue;
    valent n = c->st[c->n - 1];
    uint8_t bits = (uint8_t)(8 * tab[i].w);
    if (n.kind != V_CONST) {
      jc_pop(c);
      int r = jc_pop_reg(c);
      jc_load_into(c, RCX, &n);
      jc_drop_entry(c, n);
      x64_rm(c->b, 0, false, 0x83, 1, 4, x64_r(RCX), false);                  /* and ecx, bits-1 */
      x64_byte(c->b, (uint8_t)(bits - 1));
      x64_rm(c->b, 0x66, false, 0x0F6E, 2, X1, x64_r(RCX), false);             /* movd xmm1, ecx */
      if (tab[i].var) rr(c, 0x66, tab[i].var, r, X1);
      else shift_var_sequence(c, op, r);
      push_x(c, r);
      return true;
    }
    jc_pop(c);
    uint8_t k = (uint8_t)(n.imm & (bits - 1));
    int r = jc_pop_reg(c);
    if (tab[i].w == 1 && tab[i].kind == 1) {          /* bytes to words, shift, pack */
      movaps(c, X0, r);
      rr(c, 0x66, 0x0F68, X0, X0);                                              /* punpckhbw */
      rr(c, 0x66, 0x0F60, r, r);                                                /* punpcklbw */
      shift_imm(c, 0x0F71, 4, X0, (uint8_t)(k + 8));
      shift_imm(c, 0x0F71, 4, r, (uint8_t)(k + 8));
      rr(c, 0x66, 0x0F63, r, X0);                                               /* packsswb */
    } else if (tab[i].w == 1) {                       /* word shift, then mask each byte */
      if (k) {
        shift_imm(c, 0x0F71, tab[i].digit, r, k);
        op_lanes(c, 0x66, 0x0FDB, r, tab[i].kind == 0 ? (0xFFu << k) & 0xFF : 0xFFu >> k, 1);
      }
    } else if (tab[i].w == 8 && tab[i].kind == 1) {   /* ((x ^ s) >>u k) ^ s, s the sign */
      movaps(c, X0, r);
      shift_imm(c, 0x0F72, 4, X0, 31);                                          /* psrad 31 */
      rri(c, 0x66, 0x0F70, X0, X0, 0xF5);
      rr(c, 0x66, 0x0FEF, r, X0);
      shift_imm(c, 0x0F73, 2, r, k);
      rr(c, 0x66, 0x0FEF, r, X0);
    } else if (k) {
      shift_imm(c, tab[i].imm, tab[i].digit, r, k);
    }
    push_x(c, r);
    return true;
  }
  return false;
}

/* ---------------------------------------------------------- float ops */
/* f32x4/f64x2 min and max, bit for bit as the interpreter: a NaN operand
 * (a first) comes back quieted, -0 < +0; else minps/maxps in both orders
 * agree, and or/and of the two settles the signed zeros. */
static void fminmax(jc *c, bool dbl, bool max) {
  uint8_t p = dbl ? 0x66 : 0;
  valent b = jc_pop(c), a = jc_pop(c);
  int ra = own(c, &a), rb = own(c, &b), t = jc_alloc_reg(c, true);
  uint32_t op = max ? 0x0F5F : 0x0F5D;
  movaps(c, t, ra);
  rr(c, p, op, t, rb);
  movaps(c, X1, rb);
  rr(c, p, op, X1, ra);
  rr(c, p, max ? 0x0F54 : 0x0F56, t, X1);                                       /* and/or */
  all_ones(c, X1);                                                              /* the quiet bit */
  shift_imm(c, dbl ? 0x0F73 : 0x0F72, 6, X1, dbl ? 63 : 31);
  shift_imm(c, dbl ? 0x0F73 : 0x0F72, 2, X1, dbl ? 12 : 9);
  uint32_t blend = dbl ? 0x0F3815 : 0x0F3814;                                   /* blendv, mask xmm0 */
  movaps(c, X0, rb);
  rri(c, p, 0x0FC2, X0, X0, 3);                                                 /* b unordered */
  rr(c, p, 0x0F56, rb, X1);
  rr(c, 0x66, blend, t, rb);
  movaps(c, X0, ra);
  rri(c, p, 0x0FC2, X0, X0, 3);
  rr(c, p, 0x0F56, ra, X1);
  rr(c, 0x66, blend, t, ra);
  jc_free_reg(c, ra);
  jc_free_reg(c, rb);
  push_x(c, t);
}

/* abs / neg of the lanes of r: and / xor with the sign mask made in xmm0 */
static void fsign_reg(jc *c, bool dbl, bool neg, int r) {
  all_ones(c, X0);
  shift_imm(c, dbl ? 0x0F73 : 0x0F72, neg ? 6 : 2, X0, neg ? (dbl ? 63 : 31) : 1);
  rr(c, 0, neg ? 0x0F57 : 0x0F54, r, X0);
}
static void fsign(jc *c, bool dbl, bool neg) {
  int r = jc_pop_reg(c);
  fsign_reg(c, dbl, neg, r);
  push_x(c, r);
}

static void convert(jc *c, int op) {
  int r = jc_pop_reg(c);
  switch (op) {
  case TL_OP_F32X4_CONVERT_I32X4_U:           /* low 16 bits exactly, the rest halved and doubled */
    zero(c, X0);
    rri(c, 0x66, 0x0F3A0E, X0, r, 0x55);                                        /* pblendw */
    rr(c, 0x66, 0x0FFA, r, X0);                                                 /* psubd */
    rr(c, 0, 0x0F5B, X0, X0);                                                   /* cvtdq2ps */
    shift_imm(c, 0x0F72, 2, r, 1);
    rr(c, 0, 0x0F5B, r, r);
    rr(c, 0, 0x0F58, r, r);
    rr(c, 0, 0x0F58, r, X0);
    break;
  case TL_OP_F64X2_CONVERT_LOW_I32X4_U:       /* 2^52 + x, exact, minus 2^52 */
    splat_const(c, X0, 0x43300000u, 4);
    rr(c, 0, 0x0F14, r, X0);                                                    /* unpcklps */
    splat_const(c, X0, 0x4330000000000000ull, 8);
    rr(c, 0x66, 0x0F5C, r, X0);                                                 /* subpd */
    break;
  case TL_OP_I32X4_TRUNC_SAT_F32X4_S:
    movaps(c, X0, r);
    rri(c, 0, 0x0FC2, X0, X0, 0);                                               /* not NaN */
    rr(c, 0x66, 0x0FDB, r, X0);                                                 /* NaN -> 0 */
    rr(c, 0x66, 0x0FEF, X0, r);                                                 /* sign flipped: >= 0 */
    rr(c, 0xF3, 0x0F5B, r, r);                                                  /* cvttps2dq */
    rr(c, 0x66, 0x0FDB, X0, r);                                                 /* >= 0 gone negative */
    shift_imm(c, 0x0F72, 4, X0, 31);
    rr(c, 0x66, 0x0FEF, r, X0);                                                 /* -> 0x7fffffff */
    break;
  case TL_OP_I32X4_TRUNC_SAT_F32X4_U:
    zero(c, X0);
    rr(c, 0, 0x0F5F, r, X0);                                                    /* NaN, < 0 -> 0 */
    all_ones(c, X0);
    shift_imm(c, 0x0F72, 2, X0, 1);
    rr(c, 0, 0x0F5B, X0, X0);                                                   /* 2^31 as float */
    movaps(c, X1, r);
    rr(c, 0, 0x0F5C, X1, X0);                                                   /* x - 2^31 */
    rri(c, 0, 0x0FC2, X0, X1, 2);                                               /* 2^31 <= x - 2^31 */
    rr(c, 0xF3, 0x0F5B, X1, X1);
    rr(c, 0x66, 0x0FEF, X1, X0);                                                /* overflow -> ~0 */
    zero(c, X0);
    rr(c, 0x66, 0x0F383D, X1, X0);                                              /* pmaxsd 0 */
    rr(c, 0xF3, 0x0F5B, r, r);
    rr(c, 0x66, 0x0FFE, r, X1);                                                 /* paddd */
    break;
  case TL_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO:
    movaps(c, X0, r);
    rri(c, 0x66, 0x0FC2, X0, X0, 0);
    splat_const(c, X1, 0x41DFFFFFFFC00000ull, 8);                               /* 2147483647.0 */
    rr(c, 0x66, 0x0F54, X0, X1);                                                /* NaN lanes 0 */
    rr(c, 0x66, 0x0F5D, r, X0);                                                 /* minpd */
    rr(c, 0x66, 0x0FE6, r, r);                                                  /* cvttpd2dq */
    break;
  case TL_OP_I32X4_TRUNC_SAT_F64X2_U_ZERO:
    zero(c, X0);
    rr(c, 0x66, 0x0F5F, r, X0);                                                 /* maxpd 0 */
    splat_const(c, X1, 0x41EFFFFFFFE00000ull, 8);                               /* 4294967295.0 */
    rr(c, 0x66, 0x0F5D, r, X1);
    rri(c, 0x66, 0x0F3A09, r, r, 3);                                            /* roundpd trunc */
    splat_const(c, X1, 0x4330000000000000ull, 8);
    rr(c, 0x66, 0x0F58, r, X1);                                                 /* + 2^52 */
    rri(c, 0, 0x0FC6, r, X0, 0x88);                                             /* low dwords, 0, 0 */
    break;
  }
  push_x(c, r);
}

/* ------------------------------------------------------ widening ops */
static const struct { int op; uint32_t ext; bool high; } extends[] = {
  {TL_OP_I16X8_EXTEND_LOW_I8X16_S, 0x0F3820, 0}, {TL_OP_I16X8_EXTEND_HIGH_I8X16_S, 0x0F3820, 1},
  {TL_OP_I16X8_EXTEND_LOW_I8X16_U, 0x0F3830, 0}, {TL_OP_I16X8_EXTEND_HIGH_I8X16_U, 0x0F3830, 1},
  {TL_OP_I32X4_EXTEND_LOW_I16X8_S, 0x0F3823, 0}, {TL_OP_I32X4_EXTEND_HIGH_I16X8_S, 0x0F3823, 1},
  {TL_OP_I32X4_EXTEND_LOW_I16X8_U, 0x0F3833, 0}, {TL_OP_I32X4_EXTEND_HIGH_I16X8_U, 0x0F3833, 1},
  {TL_OP_I64X2_EXTEND_LOW_I32X4_S, 0x0F3825, 0}, {TL_OP_I64X2_EXTEND_HIGH_I32X4_S, 0x0F3825, 1},
  {TL_OP_I64X2_EXTEND_LOW_I32X4_U, 0x0F3835, 0}, {TL_OP_I64X2_EXTEND_HIGH_I32X4_U, 0x0F3835, 1},
};
static bool extend(jc *c, int op) {
  for (size_t i = 0; i < sizeof extends / sizeof *extends; i++) {
    if (extends[i].op != op) continue;
    int r = jc_pop_reg(c);
    if (extends[i].high) rri(c, 0x66, 0x0F70, r, r, 0xEE);
    rr(c, 0x66, extends[i].ext, r, r);
    push_x(c, r);
    return true;
  }
  return false;
}

/* extmul: both operands extended (low or high half), then multiplied */
static bool extmul(jc *c, int op) {
  static const struct { int op; uint32_t ext, mul; bool high; uint8_t shuf; } tab[] = {
    {TL_OP_I16X8_EXTMUL_LOW_I8X16_S, 0x0F3820, 0x0FD5, 0, 0}, {TL_OP_I16X8_EXTMUL_HIGH_I8X16_S, 0x0F3820, 0x0FD5, 1, 0},
    {TL_OP_I16X8_EXTMUL_LOW_I8X16_U, 0x0F3830, 0x0FD5, 0, 0}, {TL_OP_I16X8_EXTMUL_HIGH_I8X16_U, 0x0F3830, 0x0FD5, 1, 0},
    {TL_OP_I32X4_EXTMUL_LOW_I16X8_S, 0x0F3823, 0x0F3840, 0, 0}, {TL_OP_I32X4_EXTMUL_HIGH_I16X8_S, 0x0F3823, 0x0F3840, 1, 0},
    {TL_OP_I32X4_EXTMUL_LOW_I16X8_U, 0x0F3833, 0x0F3840, 0, 0}, {TL_OP_I32X4_EXTMUL_HIGH_I16X8_U, 0x0F3833, 0x0F3840, 1, 0},
    /* i64x2: pmuldq / pmuludq take the even dwords: spread the half there */
    {TL_OP_I64X2_EXTMUL_LOW_I32X4_S, 0, 0x0F3828, 0, 0x50}, {TL_OP_I64X2_EXTMUL_HIGH_I32X4_S, 0, 0x0F3828, 1, 0xFA},
    {TL_OP_I64X2_EXTMUL_LOW_I32X4_U, 0, 0x0FF4, 0, 0x50}, {TL_OP_I64X2_EXTMUL_HIGH_I32X4_U, 0, 0x0FF4, 1, 0xFA},
  };
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
    if (tab[i].op != op) continue;
    valent b = jc_pop(c);
    int r = jc_pop_reg(c), s = src(c, &b);
    if (tab[i].shuf) {
      rri(c, 0x66, 0x0F70, r, r, tab[i].shuf);
      rri(c, 0x66, 0x0F70, X1, s, tab[i].shuf);
    } else {
      if (tab[i].high) {
        rri(c, 0x66, 0x0F70, r, r, 0xEE);
        rri(c, 0x66, 0x0F70, X1, s, 0xEE);
        rr(c, 0x66, tab[i].ext, X1, X1);
      } else {
        rr(c, 0x66, tab[i].ext, X1, s);
      }
      rr(c, 0x66, tab[i].ext, r, r);
    }
    rr(c, 0x66, tab[i].mul, r, X1);
    jc_drop_entry(c, b);
    push_x(c, r);
    return true;
  }
  return false;
}

static void i64_mul(jc *c) {       /* lo*lo + ((hi(a)*lo(b) + lo(a)*hi(b)) << 32) */
  valent b = jc_pop(c);
  int r = jc_pop_reg(c), s = src(c, &b);
  movaps(c, X0, r);
  shift_imm(c, 0x0F73, 2, X0, 32);
  rr(c, 0x66, 0x0FF4, X0, s);
  movaps(c, X1, s);
  shift_imm(c, 0x0F73, 2, X1, 32);
  rr(c, 0x66, 0x0FF4, X1, r);
  rr(c, 0x66, 0x0FD4, X0, X1);
  shift_imm(c, 0x0F73, 6, X0, 32);
  rr(c, 0x66, 0x0FF4, r, s);
  rr(c, 0x66, 0x0FD4, r, X0);
  jc_drop_entry(c, b);
  push_x(c, r);
}

static void popcnt(jc *c) {        /* a nibble table through pshufb */
  static const uint8_t lut[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  int r = jc_pop_reg(c), t = jc_alloc_reg(c, true);
  splat_const(c, X0, 0x0F, 1);
  movaps(c, X1, r);
  shift_imm(c, 0x0F71, 2, X1, 4);
  rr(c, 0x66, 0x0FDB, X1, X0);
  rr(c, 0x66, 0x0FDB, r, X0);
  jc_xconst(c, X0, lut);
  movaps(c, t, X0);
  rr(c, 0x66, 0x0F3800, X0, r);
  rr(c, 0x66, 0x0F3800, t, X1);
  rr(c, 0x66, 0x0FFC, X0, t);
  movaps(c, r, X0);
  jc_free_reg(c, t);
  push_x(c, r);
}

static bool misc(jc *c, int op) {
  switch (op) {
  case TL_OP_V128_NOT: {
    int r = jc_pop_reg(c);
    all_ones(c, X0);
    rr(c, 0x66, 0x0FEF, r, X0);
    push_x(c, r);
    return true;
  }
  case TL_OP_I8X16_NEG: case TL_OP_I16X8_NEG: case TL_OP_I32X4_NEG: case TL_OP_I64X2_NEG: {
    static const uint32_t sub[4] = {0x0FF8, 0x0FF9, 0x0FFA, 0x0FFB};
    int k = op == TL_OP_I8X16_NEG ? 0 : op == TL_OP_I16X8_NEG ? 1 : op == TL_OP_I32X4_NEG ? 2 : 3;
    int r = jc_pop_reg(c);
    zero(c, X0);
    rr(c, 0x66, sub[k], X0, r);
    movaps(c, r, X0);
    push_x(c, r);
    return true;
  }
  case TL_OP_I64X2_ABS: {
    int r = jc_pop_reg(c);
    movaps(c, X0, r);
    shift_imm(c, 0x0F72, 4, X0, 31);
    rri(c, 0x66, 0x0F70, X0, X0, 0xF5);
    rr(c, 0x66, 0x0FEF, r, X0);
    rr(c, 0x66, 0x0FFB, r, X0);
    push_x(c, r);
    return true;
  }
  case TL_OP_I16X8_Q15MULR_SAT_S: {           /* pmulhrsw; 0x8000 * 0x8000 saturates */
    binary(c, 0x66, 0x0F380B, false, false);
    int r = c->st[c->n - 1].reg;
    splat_const(c, X0, 0x8000, 2);
    rr(c, 0x66, 0x0F75, X0, r);
    rr(c, 0x66, 0x0FEF, r, X0);
    return true;
  }
  case TL_OP_I8X16_SWIZZLE: {                  /* indices >= 16 set bit 7: zero */
    valent i = jc_pop(c);
    int r = jc_pop_reg(c), x = own(c, &i);
    op_lanes(c, 0x66, 0x0FDC, x, 0x70, 1);                                      /* paddusb */
    rr(c, 0x66, 0x0F3800, r, x);
    jc_free_reg(c, x);
    push_x(c, r);
    return true;
  }
  case TL_OP_I16X8_EXTADD_PAIRWISE_I8X16_S: {
    int r = jc_pop_reg(c);
    splat_const(c, X0, 1, 1);
    rr(c, 0x66, 0x0F3804, X0, r);              /* pmaddubsw: ones unsigned, r signed */
    movaps(c, r, X0);
    push_x(c, r);
    return true;
  }
  case TL_OP_I16X8_EXTADD_PAIRWISE_I8X16_U: {
    int r = jc_pop_reg(c);
    op_lanes(c, 0x66, 0x0F3804, r, 1, 1);
    push_x(c, r);
    return true;
  }
  case TL_OP_I32X4_EXTADD_PAIRWISE_I16X8_S: case TL_OP_I32X4_EXTADD_PAIRWISE_I16X8_U: {
    bool u = op == TL_OP_I32X4_EXTADD_PAIRWISE_I16X8_U;
    int r = jc_pop_reg(c);
    if (u) op_lanes(c, 0x66, 0x0FEF, r, 0x8000, 2);
    op_lanes(c, 0x66, 0x0FF5, r, 1, 2);                                         /* pmaddwd */
    if (u) op_lanes(c, 0x66, 0x0FFE, r, 0x10000, 4);
    push_x(c, r);
    return true;
  }
  case TL_OP_I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S: {
    valent acc = jc_pop(c), b = jc_pop(c);
    int r = jc_pop_reg(c), xb = own(c, &b), xa = src(c, &acc);
    rr(c, 0x66, 0x0F3804, xb, r);              /* pmaddubsw b (unsigned), a */
    op_lanes(c, 0x66, 0x0FF5, xb, 1, 2);
    rr(c, 0x66, 0x0FFE, xb, xa);
    movaps(c, r, xb);
    jc_free_reg(c, xb);
    jc_drop_entry(c, acc);
    push_x(c, r);
    return true;
  }
  case TL_OP_F32X4_RELAXED_MADD: case TL_OP_F32X4_RELAXED_NMADD:
  case TL_OP_F64X2_RELAXED_MADD: case TL_OP_F64X2_RELAXED_NMADD: {
    /* unfused, as the interpreter: the product rounded, then the sum */
    bool dbl = op == TL_OP_F64X2_RELAXED_MADD || op == TL_OP_F64X2_RELAXED_NMADD;
    bool neg = op == TL_OP_F32X4_RELAXED_NMADD || op == TL_OP_F64X2_RELAXED_NMADD;
    valent z = jc_pop(c), b = jc_pop(c);
    int r = jc_pop_reg(c), xb = src(c, &b), xz = own(c, &z);
    if (neg) fsign_reg(c, dbl, true, r);
    rr(c, dbl ? 0x66 : 0, 0x0F59, r, xb);
    rr(c, dbl ? 0x66 : 0, 0x0F58, r, xz);
    jc_drop_entry(c, b);
    jc_free_reg(c, xz);
    push_x(c, r);
    return true;
  }
  default: return false;
  }
}

/* ------------------------------------------------------------- memory */
/* An inline access of memory mi (32-bit, or memory 0 64-bit with a small
 * offset: jc_mem_addr checks it). Operands: the address, then the v128 of
 * a store or lane load. */
static void mem_simd(jc *c, int op, uint64_t off, bool m64, uint32_t mi, uint8_t lane) {
  unsigned n = 1u << tl_op_natural_align(op);
  switch (op) {
  case TL_OP_V128_STORE: case TL_OP_V128_STORE8_LANE: case TL_OP_V128_STORE16_LANE:
  case TL_OP_V128_STORE32_LANE: case TL_OP_V128_STORE64_LANE: {
    valent v = jc_pop(c);
    int x = src(c, &v);
    x64_op o = jc_mem_addr(c, off, n, m64, mi);
    if (op == TL_OP_V128_STORE) {
      sse(c, 0xF3, 0x0F7F, x, o);                                               /* movdqu */
    } else {
      static const uint32_t ext[4] = {0x0F3A14, 0x0F3A15, 0x0F3A16, 0x0F3A16}; /* pextrb/w/d/q */
      int k = op - TL_OP_V128_STORE8_LANE;
      x64_rm(c->b, 0x66, k == 3, ext[k], 3, x, o, false);
      x64_byte(c->b, lane);
    }
    jc_drop_entry(c, v);
    return;
  }
  case TL_OP_V128_LOAD8_LANE: case TL_OP_V128_LOAD16_LANE: case TL_OP_V128_LOAD32_LANE:
  case TL_OP_V128_LOAD64_LANE: {
    static const uint32_t ins[4] = {0x0F3A20, 0x0FC4, 0x0F3A22, 0x0F3A22};      /* pinsrb/w/d/q */
    int k = op - TL_OP_V128_LOAD8_LANE;
    int r = jc_pop_reg(c);
    x64_op o = jc_mem_addr(c, off, n, m64, mi);
    x64_rm(c->b, 0x66, k == 3, ins[k], ins[k] > 0xFFFF ? 3 : 2, r, o, false);
    x64_byte(c->b, lane);
    push_x(c, r);
    return;
  }
  default: break;
  }
  int r = jc_alloc_reg(c, true);
  x64_op o = jc_mem_addr(c, off, n, m64, mi);
  c->busy |= 1u << r;
  switch (op) {
  case TL_OP_V128_LOAD: sse(c, 0xF3, 0x0F6F, r, o); break;
  case TL_OP_V128_LOAD8X8_S: sse(c, 0x66, 0x0F3820, r, o); break;               /* pmovsx/zx m64 */
  case TL_OP_V128_LOAD8X8_U: sse(c, 0x66, 0x0F3830, r, o); break;
  case TL_OP_V128_LOAD16X4_S: sse(c, 0x66, 0x0F3823, r, o); break;
  case TL_OP_V128_LOAD16X4_U: sse(c, 0x66, 0x0F3833, r, o); break;
  case TL_OP_V128_LOAD32X2_S: sse(c, 0x66, 0x0F3825, r, o); break;
  case TL_OP_V128_LOAD32X2_U: sse(c, 0x66, 0x0F3835, r, o); break;
  case TL_OP_V128_LOAD8_SPLAT:
    sse(c, 0x66, 0x0F3A20, r, o);                                               /* pinsrb r, m8, 0 */
    x64_byte(c->b, 0);
    zero(c, X0);
    rr(c, 0x66, 0x0F3800, r, X0);
    break;
  case TL_OP_V128_LOAD16_SPLAT:
    sse(c, 0x66, 0x0FC4, r, o);                                                 /* pinsrw r, m16, 0 */
    x64_byte(c->b, 0);
    rri(c, 0xF2, 0x0F70, r, r, 0);
    rri(c, 0x66, 0x0F70, r, r, 0);
    break;
  case TL_OP_V128_LOAD32_SPLAT:
    sse(c, 0x66, 0x0F6E, r, o);
    rri(c, 0x66, 0x0F70, r, r, 0);
    break;
  case TL_OP_V128_LOAD64_SPLAT:
    sse(c, 0xF3, 0x0F7E, r, o);
    rr(c, 0x66, 0x0F6C, r, r);
    break;
  case TL_OP_V128_LOAD32_ZERO: sse(c, 0x66, 0x0F6E, r, o); break;               /* movd */
  default: sse(c, 0xF3, 0x0F7E, r, o); break;                                   /* movq */
  }
  push_x(c, r);
}

/* ------------------------------------------------------ one-instruction */
enum { K_BIN, K_SWAP, K_BIN_NOT, K_SWAP_NOT, K_UN, K_UN_IMM, K_FCMP, K_FCMP_SWAP, K_UCMP, K_UCMP_NOT };
typedef struct { uint16_t op; uint8_t kind, pfx; uint32_t opc, opc2; } simple;
#define E(o, k, p, c1, c2) {TL_OP_##o, K_##k, p, c1, c2}
static const simple simples[] = {
  /* integer lanewise */
  E(I8X16_ADD, BIN, 0x66, 0x0FFC, 0), E(I8X16_ADD_SAT_S, BIN, 0x66, 0x0FEC, 0),
  E(I8X16_ADD_SAT_U, BIN, 0x66, 0x0FDC, 0), E(I8X16_SUB, BIN, 0x66, 0x0FF8, 0),
  E(I8X16_SUB_SAT_S, BIN, 0x66, 0x0FE8, 0), E(I8X16_SUB_SAT_U, BIN, 0x66, 0x0FD8, 0),
  E(I8X16_MIN_S, BIN, 0x66, 0x0F3838, 0), E(I8X16_MIN_U, BIN, 0x66, 0x0FDA, 0),
  E(I8X16_MAX_S, BIN, 0x66, 0x0F383C, 0), E(I8X16_MAX_U, BIN, 0x66, 0x0FDE, 0),
  E(I8X16_AVGR_U, BIN, 0x66, 0x0FE0, 0),
  E(I16X8_ADD, BIN, 0x66, 0x0FFD, 0), E(I16X8_ADD_SAT_S, BIN, 0x66, 0x0FED, 0),
  E(I16X8_ADD_SAT_U, BIN, 0x66, 0x0FDD, 0), E(I16X8_SUB, BIN, 0x66, 0x0FF9, 0),
  E(I16X8_SUB_SAT_S, BIN, 0x66, 0x0FE9, 0), E(I16X8_SUB_SAT_U, BIN, 0x66, 0x0FD9, 0),
  E(I16X8_MUL, BIN, 0x66, 0x0FD5, 0), E(I16X8_MIN_S, BIN, 0x66, 0x0FEA, 0),
  E(I16X8_MIN_U, BIN, 0x66, 0x0F383A, 0), E(I16X8_MAX_S, BIN, 0x66, 0x0FEE, 0),
  E(I16X8_MAX_U, BIN, 0x66, 0x0F383E, 0), E(I16X8_AVGR_U, BIN, 0x66, 0x0FE3, 0),
  E(I32X4_ADD, BIN, 0x66, 0x0FFE, 0), E(I32X4_SUB, BIN, 0x66, 0x0FFA, 0),
  E(I32X4_MUL, BIN, 0x66, 0x0F3840, 0), E(I32X4_MIN_S, BIN, 0x66, 0x0F3839, 0),
  E(I32X4_MIN_U, BIN, 0x66, 0x0F383B, 0), E(I32X4_MAX_S, BIN, 0x66, 0x0F383D, 0),
  E(I32X4_MAX_U, BIN, 0x66, 0x0F383F, 0), E(I32X4_DOT_I16X8_S, BIN, 0x66, 0x0FF5, 0),
  E(I64X2_ADD, BIN, 0x66, 0x0FD4, 0), E(I64X2_SUB, BIN, 0x66, 0x0FFB, 0),
  E(I8X16_NARROW_I16X8_S, BIN, 0x66, 0x0F63, 0), E(I8X16_NARROW_I16X8_U, BIN, 0x66, 0x0F67, 0),
  E(I16X8_NARROW_I32X4_S, BIN, 0x66, 0x0F6B, 0), E(I16X8_NARROW_I32X4_U, BIN, 0x66, 0x0F382B, 0),
  E(V128_AND, BIN, 0x66, 0x0FDB, 0), E(V128_OR, BIN, 0x66, 0x0FEB, 0), E(V128_XOR, BIN, 0x66, 0x0FEF, 0),
  E(V128_ANDNOT, SWAP, 0x66, 0x0FDF, 0),                                        /* pandn: ~b & a */
  /* comparisons: pcmpeq / pcmpgt, swapped and negated */
  E(I8X16_EQ, BIN, 0x66, 0x0F74, 0), E(I8X16_NE, BIN_NOT, 0x66, 0x0F74, 0),
  E(I8X16_GT_S, BIN, 0x66, 0x0F64, 0), E(I8X16_LT_S, SWAP, 0x66, 0x0F64, 0),
  E(I8X16_LE_S, BIN_NOT, 0x66, 0x0F64, 0), E(I8X16_GE_S, SWAP_NOT, 0x66, 0x0F64, 0),
  E(I8X16_GE_U, UCMP, 0, 0x0FDE, 0x0F74), E(I8X16_LE_U, UCMP, 0, 0x0FDA, 0x0F74),
  E(I8X16_LT_U, UCMP_NOT, 0, 0x0FDE, 0x0F74), E(I8X16_GT_U, UCMP_NOT, 0, 0x0FDA, 0x0F74),
  E(I16X8_EQ, BIN, 0x66, 0x0F75, 0), E(I16X8_NE, BIN_NOT, 0x66, 0x0F75, 0),
  E(I16X8_GT_S, BIN, 0x66, 0x0F65, 0), E(I16X8_LT_S, SWAP, 0x66, 0x0F65, 0),
  E(I16X8_LE_S, BIN_NOT, 0x66, 0x0F65, 0), E(I16X8_GE_S, SWAP_NOT, 0x66, 0x0F65, 0),
  E(I16X8_GE_U, UCMP, 0, 0x0F383E, 0x0F75), E(I16X8_LE_U, UCMP, 0, 0x0F383A, 0x0F75),
  E(I16X8_LT_U, UCMP_NOT, 0, 0x0F383E, 0x0F75), E(I16X8_GT_U, UCMP_NOT, 0, 0x0F383A, 0x0F75),
  E(I32X4_EQ, BIN, 0x66, 0x0F76, 0), E(I32X4_NE, BIN_NOT, 0x66, 0x0F76, 0),
  E(I32X4_GT_S, BIN, 0x66, 0x0F66, 0), E(I32X4_LT_S, SWAP, 0x66, 0x0F66, 0),
  E(I32X4_LE_S, BIN_NOT, 0x66, 0x0F66, 0), E(I32X4_GE_S, SWAP_NOT, 0x66, 0x0F66, 0),
  E(I32X4_GE_U, UCMP, 0, 0x0F383F, 0x0F76), E(I32X4_LE_U, UCMP, 0, 0x0F383B, 0x0F76),
  E(I32X4_LT_U, UCMP_NOT, 0, 0x0F383F, 0x0F76), E(I32X4_GT_U, UCMP_NOT, 0, 0x0F383B, 0x0F76),
  E(I64X2_EQ, BIN, 0x66, 0x0F3829, 0), E(I64X2_NE, BIN_NOT, 0x66, 0x0F3829, 0),
  E(I64X2_GT_S, BIN, 0x66, 0x0F3837, 0), E(I64X2_LT_S, SWAP, 0x66, 0x0F3837, 0),
  E(I64X2_LE_S, BIN_NOT, 0x66, 0x0F3837, 0), E(I64X2_GE_S, SWAP_NOT, 0x66, 0x0F3837, 0),
  E(F32X4_EQ, FCMP, 0, 0, 0), E(F32X4_NE, FCMP, 0, 0, 4), E(F32X4_LT, FCMP, 0, 0, 1),
  E(F32X4_LE, FCMP, 0, 0, 2), E(F32X4_GT, FCMP_SWAP, 0, 0, 1), E(F32X4_GE, FCMP_SWAP, 0, 0, 2),
  E(F64X2_EQ, FCMP, 0x66, 0, 0), E(F64X2_NE, FCMP, 0x66, 0, 4), E(F64X2_LT, FCMP, 0x66, 0, 1),
  E(F64X2_LE, FCMP, 0x66, 0, 2), E(F64X2_GT, FCMP_SWAP, 0x66, 0, 1), E(F64X2_GE, FCMP_SWAP, 0x66, 0, 2),
  /* floats */
  E(F32X4_ADD, BIN, 0, 0x0F58, 0), E(F32X4_SUB, BIN, 0, 0x0F5C, 0),
  E(F32X4_MUL, BIN, 0, 0x0F59, 0), E(F32X4_DIV, BIN, 0, 0x0F5E, 0),
  E(F64X2_ADD, BIN, 0x66, 0x0F58, 0), E(F64X2_SUB, BIN, 0x66, 0x0F5C, 0),
  E(F64X2_MUL, BIN, 0x66, 0x0F59, 0), E(F64X2_DIV, BIN, 0x66, 0x0F5E, 0),
  E(F32X4_PMIN, SWAP, 0, 0x0F5D, 0), E(F32X4_PMAX, SWAP, 0, 0x0F5F, 0),          /* b < a ? b : a */
  E(F64X2_PMIN, SWAP, 0x66, 0x0F5D, 0), E(F64X2_PMAX, SWAP, 0x66, 0x0F5F, 0),
  E(F32X4_SQRT, UN, 0, 0x0F51, 0), E(F64X2_SQRT, UN, 0x66, 0x0F51, 0),
  E(F32X4_CEIL, UN_IMM, 0x66, 0x0F3A08, 2), E(F32X4_FLOOR, UN_IMM, 0x66, 0x0F3A08, 1),
  E(F32X4_TRUNC, UN_IMM, 0x66, 0x0F3A08, 3), E(F32X4_NEAREST, UN_IMM, 0x66, 0x0F3A08, 0),
  E(F64X2_CEIL, UN_IMM, 0x66, 0x0F3A09, 2), E(F64X2_FLOOR, UN_IMM, 0x66, 0x0F3A09, 1),
  E(F64X2_TRUNC, UN_IMM, 0x66, 0x0F3A09, 3), E(F64X2_NEAREST, UN_IMM, 0x66, 0x0F3A09, 0),
  E(F32X4_DEMOTE_F64X2_ZERO, UN, 0x66, 0x0F5A, 0), E(F64X2_PROMOTE_LOW_F32X4, UN, 0, 0x0F5A, 0),
  E(F32X4_CONVERT_I32X4_S, UN, 0, 0x0F5B, 0), E(F64X2_CONVERT_LOW_I32X4_S, UN, 0xF3, 0x0FE6, 0),
  E(I8X16_ABS, UN, 0x66, 0x0F381C, 0), E(I16X8_ABS, UN, 0x66, 0x0F381D, 0),
  E(I32X4_ABS, UN, 0x66, 0x0F381E, 0),
  /* relaxed SIMD: the x86 instruction whose result the spec allows */
  E(I8X16_RELAXED_SWIZZLE, BIN, 0x66, 0x0F3800, 0),                            /* pshufb */
  E(F32X4_RELAXED_MIN, BIN, 0, 0x0F5D, 0), E(F32X4_RELAXED_MAX, BIN, 0, 0x0F5F, 0),
  E(F64X2_RELAXED_MIN, BIN, 0x66, 0x0F5D, 0), E(F64X2_RELAXED_MAX, BIN, 0x66, 0x0F5F, 0),
  E(I16X8_RELAXED_Q15MULR_S, BIN, 0x66, 0x0F380B, 0),                          /* pmulhrsw */
  E(I16X8_RELAXED_DOT_I8X16_I7X16_S, SWAP, 0x66, 0x0F3804, 0),                  /* pmaddubsw b, a */
};
#undef E

static bool simple_op(jc *c, int op) {
  for (size_t i = 0; i < sizeof simples / sizeof *simples; i++) {
    const simple *e = &simples[i];
    if (e->op != op) continue;
    switch (e->kind) {
    case K_BIN: binary(c, e->pfx, e->opc, false, false); break;
    case K_SWAP: binary(c, e->pfx, e->opc, true, false); break;
    case K_BIN_NOT: binary(c, e->pfx, e->opc, false, true); break;
    case K_SWAP_NOT: binary(c, e->pfx, e->opc, true, true); break;
    case K_UN: unary(c, e->pfx, e->opc, -1); break;
    case K_UN_IMM: unary(c, e->pfx, e->opc, (int)e->opc2); break;
    case K_FCMP: fcmp(c, e->pfx == 0x66, (uint8_t)e->opc2, false); break;
    case K_FCMP_SWAP: fcmp(c, e->pfx == 0x66, (uint8_t)e->opc2, true); break;
    case K_UCMP: ucmp(c, e->opc, e->opc2, false); break;
    default: ucmp(c, e->opc, e->opc2, true); break;
    }
    return true;
  }
  return false;
}

/* ---------------------------------------------------------- dispatch */
static bool compiled(jc *c, int op) {
  switch (op) {
  case TL_OP_I8X16_SPLAT: case TL_OP_I16X8_SPLAT: case TL_OP_I32X4_SPLAT: case TL_OP_I64X2_SPLAT:
  case TL_OP_F32X4_SPLAT: case TL_OP_F64X2_SPLAT:
    splat(c, op);
    return true;
  case TL_OP_V128_BITSELECT: case TL_OP_I8X16_RELAXED_LANESELECT: case TL_OP_I16X8_RELAXED_LANESELECT:
  case TL_OP_I32X4_RELAXED_LANESELECT: case TL_OP_I64X2_RELAXED_LANESELECT:
    bitselect(c);
    return true;
  case TL_OP_V128_ANY_TRUE: any_true(c); return true;
  case TL_OP_I8X16_ALL_TRUE: all_true(c, 0x0F74); return true;
  case TL_OP_I16X8_ALL_TRUE: all_true(c, 0x0F75); return true;
  case TL_OP_I32X4_ALL_TRUE: all_true(c, 0x0F76); return true;
  case TL_OP_I64X2_ALL_TRUE: all_true(c, 0x0F3829); return true;
  case TL_OP_I8X16_BITMASK: case TL_OP_I16X8_BITMASK: case TL_OP_I32X4_BITMASK: case TL_OP_I64X2_BITMASK:
    bitmask(c, op);
    return true;
  case TL_OP_F32X4_MIN: fminmax(c, false, false); return true;
  case TL_OP_F32X4_MAX: fminmax(c, false, true); return true;
  case TL_OP_F64X2_MIN: fminmax(c, true, false); return true;
  case TL_OP_F64X2_MAX: fminmax(c, true, true); return true;
  case TL_OP_F32X4_ABS: fsign(c, false, false); return true;
  case TL_OP_F32X4_NEG: fsign(c, false, true); return true;
  case TL_OP_F64X2_ABS: fsign(c, true, false); return true;
  case TL_OP_F64X2_NEG: fsign(c, true, true); return true;
  case TL_OP_F32X4_CONVERT_I32X4_U: case TL_OP_F64X2_CONVERT_LOW_I32X4_U:
  case TL_OP_I32X4_TRUNC_SAT_F32X4_S: case TL_OP_I32X4_TRUNC_SAT_F32X4_U:
  case TL_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO: case TL_OP_I32X4_TRUNC_SAT_F64X2_U_ZERO:
    convert(c, op);
    return true;
  /* relaxed truncations: the saturating ones (the 2022 proposal tests
   * accept nothing else for NaN and 2^31) */
  case TL_OP_I32X4_RELAXED_TRUNC_F32X4_S: convert(c, TL_OP_I32X4_TRUNC_SAT_F32X4_S); return true;
  case TL_OP_I32X4_RELAXED_TRUNC_F32X4_U: convert(c, TL_OP_I32X4_TRUNC_SAT_F32X4_U); return true;
  case TL_OP_I32X4_RELAXED_TRUNC_F64X2_S_ZERO: convert(c, TL_OP_I32X4_TRUNC_SAT_F64X2_S_ZERO); return true;
  case TL_OP_I32X4_RELAXED_TRUNC_F64X2_U_ZERO: convert(c, TL_OP_I32X4_TRUNC_SAT_F64X2_U_ZERO); return true;
  case TL_OP_I64X2_MUL: i64_mul(c); return true;
  case TL_OP_I8X16_POPCNT: popcnt(c); return true;
  default:
    return simple_op(c, op) || extend(c, op) || extmul(c, op) || shift(c, op) || misc(c, op);
  }
}

/* The instruction in C (tl_jit_h_simd): a the lane or a 32-bit memory's
 * offset, b memory | lane | JB_ADDR64; a 64-bit memory's offset follows
 * the operands. */
static void in_c(jc *c, int op, uint32_t a, uint32_t b, uint32_t extra) {
  const tl_opinfo *oi = &tl_ops[op];
  uint8_t rt[1] = {oi->result};
  jc_helper_op(c, (void *)tl_jit_h_simd, (uint32_t)op, oi->nops + extra, a, b, rt, oi->result != TL_NONE);
}

void jc_simd(jc *c, int op) {
  const tl_opinfo *oi = &tl_ops[op];
  switch (oi->imm) {
  case TL_IMM_V128:
    jc_push(c, (valent){V_CONST, TL_V128, 0, 0, 0, (int64_t)(intptr_t)c->p, 0});
    c->p += 16;
    return;
  case TL_IMM_SHUFFLE:
    shuffle(c, c->p);
    c->p += 16;
    return;
  case TL_IMM_LANE: {
    uint8_t l = *c->p++;
    if (oi->result != TL_V128) extract_lane(c, op, l);   /* a scalar out of the lane */
    else replace_lane(c, op, l);
    return;
  }
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: {
    uint64_t al = jc_leb(c), mi = (al & 0x40) ? jc_leb(c) : 0, off = jc_leb(c);
    uint8_t lane = oi->imm == TL_IMM_MEMARG_LANE ? *c->p++ : 0;
    bool m64 = tl_memory_is64(c->m, (uint32_t)mi);
    if (!m64 || (!mi && off < INT32_MAX - 16)) {
      mem_simd(c, op, off, m64, (uint32_t)mi, lane);
      return;
    }
    jc_push(c, (valent){V_CONST, TL_I64, 0, 0, 0, (int64_t)off, 0});
    in_c(c, op, 0, (uint32_t)mi | (uint32_t)lane << JB_LANE_SHIFT | JB_ADDR64, 1);
    return;
  }
  default: break;
  }
  if (!compiled(c, op)) in_c(c, op, 0, 0, 0);
}

/* SSE4.1 and SSE4.2's pcmpgtq, checked once. */
bool tl_jit_simd_ok(void) {
  static int ok = -1;
  if (ok < 0) {
    unsigned a, b, cx, d;
    ok = __get_cpuid(1, &a, &b, &cx, &d) && (cx & bit_SSE4_1) && (cx & bit_SSE4_2);
  }
  return ok == 1;
}
