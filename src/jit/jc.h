/* jc.h — the single-pass compiler's state, shared by compile.c (control,
 * scalars, calls, exceptions) and simd.c (v128 values and SIMD
 * instructions): the valent stack, control frames, and the primitives both
 * use to move values between constants, locals, frame words and registers.
 * A v128 takes two 8-byte frame words (locals and operand stack alike);
 * every other value one. */
#ifndef TILT_JC_H
#define TILT_JC_H

#include "jit.h"

#include <setjmp.h>

enum { V_CONST, V_LOCAL, V_SLOT, V_REG, V_FLAGS };
/* A deferred value. hs: its home, in 8-byte words from the operand stack's
 * base (a v128 takes two words); V_SLOT's imm is the word it lives at. */
typedef struct { uint8_t kind, type, reg, cc; uint32_t local; int64_t imm; uint32_t hs; } valent;
enum { C_FUNC, C_BLOCK, C_LOOP, C_IF, C_TRY, C_TRY_TABLE };
typedef struct {
  uint8_t kind;
  bool has_else;
  uint32_t height, np, nr;
  int bt_kind;             /* 0 empty, 1 one value type, 2 type index */
  uint32_t bt;
  int32_t fix_end, fix_else;
  size_t loop_pc;
  size_t fuel_fix;         /* fuel: the imm32 this construct's count patches */
  uint32_t fuel_n, fuel_prev;   /* instructions counted; enclosing counter */
  uint32_t hctx;           /* the handler a delegate to this label goes to */
  uint32_t hid, outer_h;   /* try, try_table: its handler; the one around it */
  uint32_t exn_local;      /* try: the hidden local keeping a caught exception */
  bool in_catch;           /* try: past its first catch arm */
  uint32_t clause0, nclause;    /* try_table: its clauses in jc.clauses */
} ctl;
typedef struct { uint8_t kind; uint32_t tag, label; } tclause;   /* a try_table clause */

typedef struct jc {
  x64_buf *b;
  tl_instance *inst;
  tl_module *m;
  uint32_t fidx, nlocals, nparams;
  uint32_t nls;            /* words the locals take (the operand stack's base) */
  uint32_t *lw;            /* per local: its first word in the frame */
  uint8_t *ltype;
  valent *st;
  uint32_t n, cap, maxh;   /* maxh: the deepest operand stack, in words */
  ctl *cs;
  uint32_t nc, ccap;
  bool dead;
  uint32_t dead_depth;
  int32_t trap[JT_NTRAPS];
  uint32_t busy;           /* pool registers in use, bit per register */
  int gpool[6], ngpool;    /* scratch GPRs left after register locals */
  int8_t *lreg;            /* per local: its register, or -1 (frame slot) */
  uint32_t rl[12], nrl;    /* locals kept in registers */
  tl_vec *callfix;         /* {at, func} pairs; NULL: calls through jctx.fn[] */
  tl_vec *lazyfix;         /* jfix of the calls through jctx.fn[] */
  bool fuel;               /* emit fuel checks */
  uint32_t fl;             /* fuel: index of the innermost loop (or function) */
  const uint8_t *p, *end;
  bool bad;
  const char *why;
  jmp_buf *oom;            /* compile_func's: a failed stack allocation */
  /* exceptions */
  size_t fstart;           /* the function's entry in b */
  bool has_eh;             /* has a try or try_table: rbx kept in the pad slot */
  uint32_t ntry, try_depth;   /* legacy try nesting: maximum, now */
  uint32_t cur_h;          /* innermost handler in effect (JEH_NONE: none) */
  tl_vec sites, handlers, arms, clauses;   /* jeh_site, jeh_handler, jeh_arm, tclause */
  tl_vec pool;             /* jconst: v128 constants placed after the code */
  jeh *eh_out;             /* compile_func's result: the tables, or NULL */
} jc;

static inline bool isf(uint8_t t) { return t == TL_F32 || t == TL_F64; }
/* values living in xmm registers: floats and v128 */
static inline bool xr(uint8_t t) { return isf(t) || t == TL_V128; }
static inline bool w64(uint8_t t) { return t == TL_I64 || t == TL_F64 || tl_type_is_ref(t); }
/* frame words a value of type t takes */
static inline uint32_t tw(uint8_t t) { return t == TL_V128 ? 2 : 1; }
static inline x64_op home(jc *c, uint32_t w) { return x64_m(RBX, (int32_t)(8 * (c->nls + w))); }
static inline x64_op loc(jc *c, uint32_t i) { return x64_m(RBX, (int32_t)(8 * c->lw[i])); }
/* The home word of stack position i (i <= n: n is the first free one). */
static inline uint32_t hs_at(jc *c, uint32_t i) {
  if (i < c->n) return c->st[i].hs;
  return c->n ? c->st[c->n - 1].hs + tw(c->st[c->n - 1].type) : 0;
}

/* compile.c */
uint64_t jc_leb(jc *c);
int jc_alloc_reg(jc *c, bool xmm);       /* a free pool register (spills one if none) */
void jc_free_reg(jc *c, int r);
void jc_ld(jc *c, int r, uint8_t t, x64_op src);
void jc_st(jc *c, int r, uint8_t t, x64_op dst);
void jc_mov_rr(jc *c, int d, int s);
void jc_load_into(jc *c, int r, valent *v);
void jc_spill(jc *c, uint32_t i);
void jc_flush_regs(jc *c);
int jc_to_reg(jc *c, uint32_t i);        /* entry i into a register of its own */
void jc_push(jc *c, valent v);
void jc_push_reg(jc *c, uint8_t t, int r);
void jc_push_slot(jc *c, uint8_t t);
void jc_push_flags(jc *c, int cc);      /* an i32 that is condition cc of the flags */
valent jc_pop(jc *c);
int jc_pop_reg(jc *c);                   /* pops the top into a register it owns */
void jc_drop_entry(jc *c, valent v);
x64_op jc_opnd(jc *c, valent *v);        /* a popped value as r/m */
x64_op jc_opnd_reg(jc *c, valent *v);    /* the same, constants and flags in a register */
void jc_trap_jcc(jc *c, int cc, int why);
/* v128 constants live in a 16-aligned pool after the function's code
 * (compile.c writes it), read [rip + disp]: one aligned load, or a memory
 * operand of the instruction that uses them. */
typedef struct {
  uint32_t at;             /* the disp32 to patch */
  uint32_t off;            /* where the constant went */
  uint8_t tail;            /* instruction bytes after the disp32 */
  uint8_t v[16];
} jconst;
/* op d, [the 16 bytes at bytes] ([pfx] 0F.. opcode; imm >= 0: an imm8
 * follows); vex >= -1: the VEX form with second source vex (-1: none) */
void jc_sse_const(jc *c, uint8_t pfx, uint32_t opc, int d, const uint8_t *bytes, int imm);
void jc_vex_const(jc *c, uint8_t pfx, uint32_t opc, int d, int v, const uint8_t *bytes, int imm);
/* xmm r = the 16 bytes at bytes */
void jc_xconst(jc *c, int r, const uint8_t *bytes);
/* [base + address + off] for an access of size bytes to memory mi (pops
 * the address; m64: memory 0 is 64-bit, checked) */
x64_op jc_mem_addr(jc *c, uint64_t off, unsigned size, bool m64, uint32_t mi);
/* nops operands to home words, fn(ctx, &word, op, a, b, depth) computes
 * the results there (types rt) */
void jc_helper_op(jc *c, void *fn, uint32_t op, uint32_t nops, uint32_t a, uint32_t b, const uint8_t *rt,
                  uint32_t nr);

/* simd.c: one 0xFD instruction (its immediates follow at c->p); whether
 * this CPU has what the SIMD code needs (SSE4.1, SSE4.2's pcmpgtq) */
void jc_simd(jc *c, int op);
bool tl_jit_simd_ok(void);

#endif
