/* compile.c — the single-pass function compiler: reads each validated body
 * once, front to back, keeping a valent stack of deferred values (constant,
 * local, frame slot, register, comparison flags). Consumers pick the form they
 * can take (immediates into add/cmp/stores, locals and slots as memory
 * operands, compares fused into br_if/if/select); values are forced into
 * registers or their home slots only when consumed, before effects that could
 * change what they read (local.set, calls), and at joins, where every value
 * lives in its home slot. Rare operations call C helpers (runtime.c).
 * Memory use is bounded by the control and operand stack depth. Eager
 * (module) compilation calls directly (rel32, fixed up when the parts are
 * joined); lazy (one function) compilation calls through jctx.fn[] with
 * eax = the callee's index, which the lazy thunk reads. With fuel, the
 * prologue and every loop header subtract the instructions up to the next
 * check (patched when known) from *jctx.fuel and trap at <= 0.
 * Exceptions (eh.c has the invariants): a try or try_table flushes the
 * stack like a block and opens a handler; every call made while a handler
 * is in effect records its return address (jeh_site); catch arms and
 * try_table clauses get landing pads that reload register locals and go on
 * as a catch body or a branch. The normal path runs no extra instruction
 * for a try; a function with handlers keeps rbx in its frame's pad slot. */
#include "jc.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>


static const int gpool_all[] = {RSI, RDI, R8, R9, R10, R11};
/* Registers for hot locals: GPRs r14, rbp (callee-saved in C, so helpers
 * keep them), r11, r10 (taken from the scratch pool when used), and
 * xmm8-15. JIT code saves none of them across calls: every call (helper or
 * wasm) stores them to their frame slots before and reloads them after. */
static const int lgpr[] = {R14, RBP, R11, R10};
static const int xpool[] = {XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7)};


/* ------------------------------------------------------------ decoding */
uint64_t jc_leb(jc *c) {
  uint64_t v = 0;
  for (int s = 0; c->p < c->end; s += 7) {
    uint8_t b = *c->p++;
    if (s < 64) v |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) break;
  }
  return v;
}
static int64_t sleb(jc *c) {
  int64_t v = 0;
  int s = 0;
  uint8_t b = 0;
  while (c->p < c->end) {
    b = *c->p++;
    if (s < 64) v |= (int64_t)((uint64_t)(b & 0x7f) << s);
    s += 7;
    if (!(b & 0x80)) break;
  }
  if (s < 64 && (b & 0x40)) v |= (int64_t)(~(uint64_t)0 << s);
  return v;
}
static uint8_t valtype(uint8_t b) {
  switch (b) {
  case 0x7f: return TL_I32;
  case 0x7e: return TL_I64;
  case 0x7d: return TL_F32;
  case 0x7c: return TL_F64;
  case 0x7b: return TL_V128;
  case 0x70: return TL_FUNCREF;
  case 0x69: case 0x74: return TL_EXNREF;
  default: return TL_EXTERNREF;
  }
}

/* One value type of a typed select, long reference forms "(ref null ht)"
 * (0x63 ht) included: the validated reader accepted only the short ones'
 * heap types there. */
static uint8_t select_type(jc *c) {
  uint8_t b = c->p < c->end ? *c->p++ : 0x7f;
  if ((b == 0x63 || b == 0x64) && c->p < c->end) {
    b = *c->p;
    sleb(c);
  }
  return valtype(b);
}

/* ----------------------------------------------------------- registers */
static x64_op lop(jc *c, uint32_t i) { return c->lreg[i] >= 0 ? x64_r(c->lreg[i]) : loc(c, i); }
void jc_ld(jc *c, int r, uint8_t t, x64_op src);
void jc_st(jc *c, int r, uint8_t t, x64_op dst);
/* Register locals to their frame slots (before a call) and back (after). */
static void sync_out(jc *c) {
  for (uint32_t k = 0; k < c->nrl; k++) jc_st(c, c->lreg[c->rl[k]], c->ltype[c->rl[k]], loc(c, c->rl[k]));
}
static void sync_in(jc *c) {
  for (uint32_t k = 0; k < c->nrl; k++) jc_ld(c, c->lreg[c->rl[k]], c->ltype[c->rl[k]], loc(c, c->rl[k]));
}
/* After a call instruction: its return address is a site of the handler
 * in effect (eh.c looks it up when unwinding). */
static void note_site(jc *c) {
  if (c->cur_h == JEH_NONE) return;
  jeh_site e = {(uint32_t)(c->b->n - c->fstart), c->cur_h};
  TL_VEC_PUSH(&c->sites, jeh_site, e);
}
static void emit_call_abs(jc *c, void *fn) {
  sync_out(c);
  x64_mov_ri(c->b, RAX, (uint64_t)(uintptr_t)fn);
  x64_rm(c->b, 0, false, 0xFF, 1, 2, x64_r(RAX), false);
  note_site(c);
  sync_in(c);
}

void jc_spill(jc *c, uint32_t i);

int jc_alloc_reg(jc *c, bool fl) {
  const int *pool = fl ? xpool : c->gpool;
  int np = fl ? 6 : c->ngpool;
  for (int k = 0; k < np; k++)
    if (!(c->busy & (1u << pool[k]))) {
      c->busy |= 1u << pool[k];
      return pool[k];
    }
  for (uint32_t i = 0; i < c->n; i++)
    if (c->st[i].kind == V_REG && (c->st[i].reg >= 16) == fl) {
      int r = c->st[i].reg;
      jc_spill(c, i);
      c->busy |= 1u << r;
      return r;
    }
  c->bad = true;
  c->why = "out of registers";
  return fl ? XMM(2) : RSI;
}
void jc_free_reg(jc *c, int r) { c->busy &= ~(1u << r); }

/* mov between a register and memory or register of the value's type */
void jc_mov_rr(jc *c, int d, int s);
void jc_ld(jc *c, int r, uint8_t t, x64_op src) {
  if (!src.mem) {                      /* register to register: full copies, no merge */
    jc_mov_rr(c, r, src.reg);
    return;
  }
  if (t == TL_V128) x64_rm(c->b, 0xF3, false, 0x0F6F, 2, r, src, false);      /* movdqu */
  else if (r >= 16) x64_rm(c->b, t == TL_F32 ? 0xF3 : 0xF2, false, 0x0F10, 2, r, src, false);
  else x64_rm(c->b, 0, w64(t), 0x8B, 1, r, src, false);
}
void jc_st(jc *c, int r, uint8_t t, x64_op dst) {
  if (!dst.mem) {
    jc_mov_rr(c, dst.reg, r);
    return;
  }
  if (t == TL_V128) x64_rm(c->b, 0xF3, false, 0x0F7F, 2, r, dst, false);
  else if (r >= 16) x64_rm(c->b, t == TL_F32 ? 0xF3 : 0xF2, false, 0x0F11, 2, r, dst, false);
  else x64_rm(c->b, 0, w64(t), 0x89, 1, r, dst, false);
}
void jc_mov_rr(jc *c, int d, int s) {
  if (d == s) return;
  if (d >= 16) x64_rm(c->b, 0, false, 0x0F28, 2, d, x64_r(s), false); /* movaps */
  else x64_rm(c->b, 0, true, 0x8B, 1, d, x64_r(s), false);
}
/* A v128 constant's bytes (V_CONST's imm points at them in the body). */
static uint64_t v128_half(int64_t imm, int i) {
  uint64_t h;
  memcpy(&h, (const uint8_t *)(intptr_t)imm + 8 * i, 8);
  return h;
}
static void st_imm(jc *c, uint8_t t, int64_t imm, x64_op dst) {
  if (t == TL_V128) {
    for (int i = 0; i < 2; i++, dst.disp += 8) st_imm(c, TL_I64, (int64_t)v128_half(imm, i), dst);
    return;
  }
  bool w = w64(t);
  if (!w || (imm >= INT32_MIN && imm <= INT32_MAX)) {
    x64_rm(c->b, 0, w, 0xC7, 1, 0, dst, false);
    x64_imm32(c->b, (uint32_t)imm);
  } else {
    x64_mov_ri(c->b, RAX, (uint64_t)imm);
    x64_rm(c->b, 0, true, 0x89, 1, RAX, dst, false);
  }
}
static void setcc_to(jc *c, int cc, int r) {
  x64_rm(c->b, 0, false, 0x0F90 | (uint32_t)cc, 2, 0, x64_r(r), true);
  x64_rm(c->b, 0, false, 0x0FB6, 2, r, x64_r(r), true);
}

static void note_const(jc *c, const uint8_t *bytes, int imm);
void jc_sse_const(jc *c, uint8_t pfx, uint32_t opc, int d, const uint8_t *bytes, int imm) {
  x64_rm(c->b, pfx, false, opc, opc > 0xFFFF ? 3 : 2, d, x64_rip(0), false);
  note_const(c, bytes, imm);
}
void jc_vex_const(jc *c, uint8_t pfx, uint32_t opc, int d, int v, const uint8_t *bytes, int imm) {
  x64_vex(c->b, pfx, false, opc, d, v, x64_rip(0));
  note_const(c, bytes, imm);
}
/* The rip displacement just written reads bytes (patched by emit_pool). */
static void note_const(jc *c, const uint8_t *bytes, int imm) {
  jconst k;
  k.at = (uint32_t)c->b->n - 4;
  k.off = 0;
  k.tail = imm >= 0;
  memcpy(k.v, bytes, 16);
  if (imm >= 0) x64_byte(c->b, (uint8_t)imm);
  TL_VEC_PUSH(&c->pool, jconst, k);
}

/* pxor / pcmpeqd for 0 and all ones, else movaps from the pool */
void jc_xconst(jc *c, int r, const uint8_t *bytes) {
  uint64_t lo, hi;
  memcpy(&lo, bytes, 8);
  memcpy(&hi, bytes + 8, 8);
  if (lo == hi && (lo == 0 || lo == UINT64_MAX)) x64_rm(c->b, 0x66, false, lo ? 0x0F76 : 0x0FEF, 2, r, x64_r(r), false);
  else jc_sse_const(c, 0, 0x0F28, r, bytes, -1);
}

/* The pool after the code: each distinct constant once (among the last 64
 * placed), 16-aligned, every use's disp32 patched. */
static void emit_pool(jc *c) {
  if (!c->pool.n) return;
  while (c->b->n & 15) x64_byte(c->b, 0xCC);
  for (size_t i = 0; i < c->pool.n; i++) {
    jconst *k = &TL_VEC_AT(&c->pool, jconst, i);
    size_t j = i > 64 ? i - 64 : 0;
    for (; j < i; j++)
      if (!memcmp(TL_VEC_AT(&c->pool, jconst, j).v, k->v, 16)) break;
    if (j < i) {
      k->off = TL_VEC_AT(&c->pool, jconst, j).off;
    } else {
      k->off = (uint32_t)c->b->n;
      x64_put(c->b, k->v, 16);
    }
    int32_t rel = (int32_t)((int64_t)k->off - (int64_t)(k->at + 4 + k->tail));
    if (!c->b->oom) memcpy(c->b->p + k->at, &rel, 4);
  }
  c->pool.n = 0;
}

/* Loads v into register r (r already owned by the caller). */
void jc_load_into(jc *c, int r, valent *v) {
  switch (v->kind) {
  case V_CONST:
    if (v->type == TL_V128) {
      jc_xconst(c, r, (const uint8_t *)(intptr_t)v->imm);
    } else if (r >= 16) {
      if (v->imm == 0) x64_rm(c->b, 0, false, 0x0F57, 2, r, x64_r(r), false); /* xorps */
      else {
        x64_mov_ri(c->b, RAX, v->type == TL_F32 ? (uint32_t)v->imm : (uint64_t)v->imm);
        x64_rm(c->b, 0x66, true, 0x0F6E, 2, r, x64_r(RAX), false);
      }
    } else {
      x64_mov_ri(c->b, r, v->type == TL_I32 ? (uint32_t)v->imm : (uint64_t)v->imm);
    }
    break;
  case V_LOCAL: jc_ld(c, r, v->type, lop(c, v->local)); break;
  case V_SLOT: jc_ld(c, r, v->type, home(c, (uint32_t)v->imm)); break;
  case V_REG: jc_mov_rr(c, r, v->reg); break;
  case V_FLAGS: setcc_to(c, v->cc, r); break;
  }
}

/* Forces stack entry i into its home slot. */
void jc_spill(jc *c, uint32_t i) {
  valent *v = &c->st[i];
  x64_op h = home(c, v->hs);
  switch (v->kind) {
  case V_SLOT: return;
  case V_CONST: st_imm(c, v->type, v->imm, h); break;
  case V_LOCAL: {
    int t = xr(v->type) ? XMM(0) : RAX;
    jc_ld(c, t, v->type, lop(c, v->local));
    jc_st(c, t, v->type, h);
    break;
  }
  case V_REG: jc_st(c, v->reg, v->type, h); jc_free_reg(c, v->reg); break;
  case V_FLAGS: setcc_to(c, v->cc, RAX); jc_st(c, RAX, TL_I32, h); break;
  }
  v->kind = V_SLOT;
  v->imm = v->hs;
}
static void flush_all(jc *c) {
  for (uint32_t i = 0; i < c->n; i++) jc_spill(c, i);
}
void jc_flush_regs(jc *c) {
  for (uint32_t i = 0; i < c->n; i++)
    if (c->st[i].kind == V_REG || c->st[i].kind == V_FLAGS) jc_spill(c, i);
}

/* Gives entry i a register of its own and returns it. */
int jc_to_reg(jc *c, uint32_t i) {
  valent *v = &c->st[i];
  if (v->kind == V_REG) return v->reg;
  int r = jc_alloc_reg(c, xr(v->type));
  v = &c->st[i];
  jc_load_into(c, r, v);
  v->kind = V_REG;
  v->reg = (uint8_t)r;
  return r;
}

void jc_push(jc *c, valent v) {
  if (c->n == c->cap) {
    valent *st = tl_scratch_realloc(c->st, c->cap ? 2 * (size_t)c->cap : 64, sizeof *c->st);
    if (!st) longjmp(*c->oom, 1);   /* the stacks are c's: nothing leaks */
    c->st = st;
    c->cap = c->cap ? 2 * c->cap : 64;
  }
  v.hs = hs_at(c, c->n);
  c->st[c->n++] = v;
  if (v.hs + tw(v.type) > c->maxh) c->maxh = v.hs + tw(v.type);
}
void jc_push_reg(jc *c, uint8_t t, int r) { jc_push(c, (valent){V_REG, t, (uint8_t)r, 0, 0, 0, 0}); }
void jc_push_slot(jc *c, uint8_t t) { jc_push(c, (valent){V_SLOT, t, 0, 0, 0, hs_at(c, c->n), 0}); }
void jc_push_flags(jc *c, int cc) { jc_push(c, (valent){V_FLAGS, TL_I32, 0, (uint8_t)cc, 0, 0, 0}); }
valent jc_pop(jc *c) { return c->st[--c->n]; }
/* Pops the top into a register it owns. */
int jc_pop_reg(jc *c) {
  int r = jc_to_reg(c, c->n - 1);
  c->n--;
  return r;
}
void jc_drop_entry(jc *c, valent v) {
  if (v.kind == V_REG) jc_free_reg(c, v.reg);
}
static void settle_flags(jc *c) {
  if (c->n && c->st[c->n - 1].kind == V_FLAGS) jc_to_reg(c, c->n - 1);
}
/* Operand form of a popped value for an instruction taking r/m. */
x64_op jc_opnd(jc *c, valent *v) {
  if (v->kind == V_LOCAL) return lop(c, v->local);
  if (v->kind == V_SLOT) return home(c, (uint32_t)v->imm);
  return x64_r(v->reg);
}
/* Turns a popped const/flags into a register (for instructions without an
 * immediate form); returns the operand. */
x64_op jc_opnd_reg(jc *c, valent *v) {
  if (v->kind == V_CONST || v->kind == V_FLAGS) {
    int r = jc_alloc_reg(c, xr(v->type));
    jc_load_into(c, r, v);
    v->kind = V_REG;
    v->reg = (uint8_t)r;
  }
  return jc_opnd(c, v);
}

/* ------------------------------------------------------------ control */
void jc_trap_jcc(jc *c, int cc, int why) { c->trap[why] = cc < 0 ? x64_jmp(c->b, c->trap[why]) : x64_jcc(c->b, cc, c->trap[why]); }

/* sub qword [*fuel], n; jle fuel trap. Returns where n goes (patched later). */
static size_t fuel_check(jc *c) {
  x64_rm(c->b, 0, true, 0x8B, 1, RAX, x64_m(R12, JC_FUEL), false);
  x64_rm(c->b, 0, true, 0x81, 1, 5, x64_m(RAX, 0), false);
  size_t at = c->b->n;
  x64_imm32(c->b, 1);
  jc_trap_jcc(c, CC_LE, JT_FUEL);
  return at;
}
static void fuel_patch(jc *c, ctl *k) {
  uint32_t n = k->fuel_n ? k->fuel_n : 1;
  if (!c->b->oom) memcpy(c->b->p + k->fuel_fix, &n, 4);
}

static uint8_t bt_type(jc *c, ctl *k, bool params, uint32_t i) {
  if (k->bt_kind == 1) return (uint8_t)k->bt;
  tl_functype *ft = TL_FTYPE(c->m, k->bt);
  return (uint8_t)tl_type_at(c->m, params ? ft->params : ft->results, i);
}

/* Writes entry e into home slot of height dst (dst <= e's height). */
static void put_home(jc *c, uint32_t e, x64_op dst) {
  valent *v = &c->st[e];
  switch (v->kind) {
  case V_CONST: st_imm(c, v->type, v->imm, dst); return;
  case V_REG: jc_st(c, v->reg, v->type, dst); return;
  case V_FLAGS: setcc_to(c, v->cc, RAX); jc_st(c, RAX, TL_I32, dst); return;
  default: {
    int t = xr(v->type) ? XMM(0) : RAX;
    jc_load_into(c, t, v);
    jc_st(c, t, v->type, dst);
  }
  }
}

static void emit_epilogue(jc *c) {
  x64_rm(c->b, 0, true, 0xFF, 1, 0, x64_r(R15), false);            /* inc r15 */
  x64_rm(c->b, 0, true, 0x83, 1, 0, x64_r(RSP), false);            /* add rsp, 8 */
  x64_byte(c->b, 8);
  x64_byte(c->b, 0xC3);
}

/* Copies the branch values for ctl k into place and jumps (no condition). */
static void emit_br(jc *c, ctl *k) {
  uint32_t ar = k->kind == C_LOOP ? k->np : k->nr;
  if (k->kind == C_FUNC) {
    for (uint32_t i = c->n - ar; i < c->n; i++)
      if (c->st[i].kind == V_LOCAL) jc_to_reg(c, i);
    for (uint32_t i = 0, w = 0; i < ar; w += tw(c->st[c->n - ar + i].type), i++)
      put_home(c, c->n - ar + i, x64_m(RBX, (int32_t)(8 * w)));
    emit_epilogue(c);
    return;
  }
  /* ascending: a value's words never overlap a later value's source */
  for (uint32_t i = 0, d = hs_at(c, k->height); i < ar; i++) {
    uint32_t e = c->n - ar + i;
    if (!(c->st[e].kind == V_SLOT && c->st[e].imm == d)) put_home(c, e, home(c, d));
    d += tw(c->st[e].type);
  }
  if (k->kind == C_LOOP) x64_jmp_to(c->b, -1, k->loop_pc);
  else k->fix_end = x64_jmp(c->b, k->fix_end);
}
static bool br_needs_copy(jc *c, ctl *k) {
  uint32_t ar = k->kind == C_LOOP ? k->np : k->nr;
  if (k->kind == C_FUNC) return true;
  return ar && c->n - ar != k->height;
}
/* Conditional branch: cc true -> branch (all entries in home slots). */
static void emit_br_cc(jc *c, ctl *k, int cc) {
  if (!br_needs_copy(c, k)) {
    if (k->kind == C_LOOP) x64_jmp_to(c->b, cc, k->loop_pc);
    else k->fix_end = x64_jcc(c->b, cc, k->fix_end);
    return;
  }
  int32_t skip = x64_jcc(c->b, cc ^ 1, -1);
  emit_br(c, k);
  x64_patch(c->b, skip, c->b->n);
}

/* Pops an i32 condition; returns the cc that means "true" (all other
 * entries flushed to home slots first, without touching flags). */
static int pop_cond(jc *c) {
  valent v = c->st[c->n - 1];
  if (v.kind == V_FLAGS) {
    c->n--;
    flush_all(c);
    return v.cc;
  }
  if (v.kind == V_CONST) {
    c->n--;
    flush_all(c);
    x64_rm(c->b, 0, false, 0x31, 1, RAX, x64_r(RAX), false);       /* xor eax,eax: ZF=1 */
    return v.imm ? CC_E : CC_NE;
  }
  int r = jc_pop_reg(c);
  flush_all(c);
  x64_rm(c->b, 0, false, 0x85, 1, r, x64_r(r), false);
  jc_free_reg(c, r);
  return CC_NE;
}


/* Calls helper fn(ctx, &slot[h], a, b, depth, rsp). */
static void call_helper(jc *c, void *fn, uint32_t h, uint32_t a, uint32_t b) {
  x64_rm(c->b, 0, true, 0x89, 1, R12, x64_r(RDI), false);
  x64_rm(c->b, 0, true, 0x8D, 1, RSI, home(c, hs_at(c, h)), false);
  x64_mov_ri(c->b, RDX, a);
  x64_mov_ri(c->b, RCX, b);
  x64_rm(c->b, 0, true, 0x89, 1, R15, x64_r(R8), false);
  x64_rm(c->b, 0, true, 0x89, 1, RSP, x64_r(R9), false);
  emit_call_abs(c, fn);
}

/* The generic path: operands to home slots, helper computes results there. */
void jc_helper_op(jc *c, void *fn, uint32_t op, uint32_t nops, uint32_t a, uint32_t b, const uint8_t *rt,
                  uint32_t nr) {
  jc_flush_regs(c);
  for (uint32_t i = c->n - nops; i < c->n; i++) jc_spill(c, i);
  uint32_t h = c->n - nops;
  c->n = h;
  x64_rm(c->b, 0, true, 0x89, 1, R12, x64_r(RDI), false);
  x64_rm(c->b, 0, true, 0x8D, 1, RSI, home(c, hs_at(c, h)), false);
  x64_mov_ri(c->b, RDX, op);
  x64_mov_ri(c->b, RCX, a);
  x64_mov_ri(c->b, R8, b);
  x64_rm(c->b, 0, true, 0x89, 1, R15, x64_r(R9), false);
  emit_call_abs(c, fn);
  for (uint32_t i = 0; i < nr; i++) jc_push_slot(c, rt[i]);
}

static void func_sig(jc *c, uint32_t ti, uint32_t *np, uint32_t *nr) {
  tl_functype *ft = TL_FTYPE(c->m, ti);
  *np = tl_type_arity(c->m, ft->params);
  *nr = tl_type_arity(c->m, ft->results);
}
static void push_results(jc *c, uint32_t ti) {
  tl_functype *ft = TL_FTYPE(c->m, ti);
  uint32_t nr = tl_type_arity(c->m, ft->results);
  for (uint32_t i = 0; i < nr; i++) jc_push_slot(c, (uint8_t)tl_type_at(c->m, ft->results, i));
}

static void ctl_push(jc *c, ctl k) {
  if (c->nc == c->ccap) {
    ctl *cs = tl_scratch_realloc(c->cs, c->ccap ? 2 * (size_t)c->ccap : 16, sizeof *c->cs);
    if (!cs) longjmp(*c->oom, 1);
    c->cs = cs;
    c->ccap = c->ccap ? 2 * c->ccap : 16;
  }
  c->cs[c->nc++] = k;
}

static void reset_stack(jc *c, uint32_t h) {
  while (c->n > h) jc_drop_entry(c, jc_pop(c));
}

static ctl read_bt(jc *c, uint8_t kind) {
  ctl k;
  memset(&k, 0, sizeof k);
  k.kind = kind;
  k.fix_end = k.fix_else = -1;
  k.hctx = c->cur_h;
  if (c->p < c->end && *c->p == 0x40) {
    c->p++;
  } else if (c->p < c->end && (*c->p & 0xc0) == 0x40) {
    k.bt_kind = 1;
    k.bt = select_type(c);
    k.nr = 1;
  } else {
    k.bt_kind = 2;
    k.bt = (uint32_t)sleb(c);
    func_sig(c, k.bt, &k.np, &k.nr);
  }
  return k;
}

static void end_block(jc *c) {
  ctl *k = &c->cs[c->nc - 1];
  if (!c->dead) flush_all(c);
  if (k->kind == C_IF && !k->has_else) {
    if (c->dead) { /* params flow to the end through the implicit else */ }
    x64_patch(c->b, k->fix_else, c->b->n);
  }
  x64_patch(c->b, k->fix_end, c->b->n);
  if (c->fuel && k->kind == C_LOOP) {
    fuel_patch(c, k);
    c->fl = k->fuel_prev;
  }
  reset_stack(c, k->height);
  for (uint32_t i = 0; i < k->nr; i++) jc_push_slot(c, bt_type(c, k, false, i));
  c->dead = false;
  c->nc--;
}

/* Skips the immediates of op (dead code). */
static void skip_imm(jc *c, int op) {
  switch (tl_ops[op].imm) {
  case TL_IMM_BLOCK: read_bt(c, C_BLOCK); break;
  case TL_IMM_BR_TABLE: { uint64_t n = jc_leb(c); for (uint64_t i = 0; i <= n; i++) jc_leb(c); break; }
  case TL_IMM_CALL_INDIRECT: case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT: case TL_IMM_TABLE_INIT:
  case TL_IMM_TABLE_COPY: jc_leb(c); jc_leb(c); break;
  case TL_IMM_MEMARG: { uint64_t a = jc_leb(c); if (a & 0x40) jc_leb(c); jc_leb(c); break; }
  case TL_IMM_I32: case TL_IMM_I64: sleb(c); break;
  case TL_IMM_F32: c->p += 4; break;
  case TL_IMM_F64: c->p += 8; break;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: c->p += 16; break;
  case TL_IMM_LANE: c->p++; break;
  case TL_IMM_MEMARG_LANE: { uint64_t a = jc_leb(c); if (a & 0x40) jc_leb(c); jc_leb(c); c->p++; break; }
  case TL_IMM_REFTYPE: c->p++; break;
  case TL_IMM_SELECT_T: { uint64_t n = jc_leb(c); while (n--) select_type(c); break; }
  case TL_IMM_TRY_TABLE: {
    read_bt(c, C_BLOCK);
    for (uint64_t n = jc_leb(c); n-- && c->p < c->end;) {
      if (*c->p++ < 2) jc_leb(c);
      jc_leb(c);
    }
    break;
  }
  case TL_IMM_NONE: break;
  default: jc_leb(c); break;
  }
}

/* ------------------------------------------------------------- numeric */
static bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/* add/sub/and/or/xor/mul/cmp: a op= b; /digit for the imm form, r-op for reg */
typedef struct { uint8_t digit, rop; } alu;
static void alu_op(jc *c, bool w, alu k, int ra, valent *b, bool imul) {
  if (b->kind == V_CONST && (!w || fits32(b->imm))) {
    if (imul) {
      x64_rm(c->b, 0, w, 0x69, 1, ra, x64_r(ra), false);
      x64_imm32(c->b, (uint32_t)b->imm);
    } else if (b->imm >= -128 && b->imm <= 127) {
      x64_rm(c->b, 0, w, 0x83, 1, k.digit, x64_r(ra), false);
      x64_byte(c->b, (uint8_t)b->imm);
    } else {
      x64_rm(c->b, 0, w, 0x81, 1, k.digit, x64_r(ra), false);
      x64_imm32(c->b, (uint32_t)b->imm);
    }
    return;
  }
  x64_op o = jc_opnd_reg(c, b);
  if (imul) x64_rm(c->b, 0, w, 0x0FAF, 2, ra, o, false);
  else x64_rm(c->b, 0, w, k.rop, 1, ra, o, false);
  jc_drop_entry(c, *b);
}

/* The next instruction is local.set/tee x, x lives in a GPR, and no entry
 * below the top two (a, b) still reads x: the result of a op b can be made
 * in x's register (a copied there first, unless a is x; so b must not read
 * x then). Returns x, or -1. */
static int in_place(jc *c) {
  if (c->p >= c->end || (*c->p != 0x21 && *c->p != 0x22)) return -1;
  const uint8_t *save = c->p;
  c->p++;
  uint64_t x = jc_leb(c);
  c->p = save;
  if (x >= c->nlocals || c->lreg[x] < 0 || c->lreg[x] >= 16) return -1;
  const valent *a = &c->st[c->n - 2], *b = &c->st[c->n - 1];
  bool a_is_x = a->kind == V_LOCAL && a->local == x;
  if (!a_is_x && b->kind == V_LOCAL && b->local == x) return -1;
  for (uint32_t i = 0; i + 2 < c->n; i++)
    if (c->st[i].kind == V_LOCAL && c->st[i].local == x) return -1;
  return (int)x;
}
/* Pops a into x's register (in_place's x) and returns the register. */
static int pop_into_local(jc *c, uint32_t x) {
  valent a = jc_pop(c);
  int r = c->lreg[x];
  if (!(a.kind == V_LOCAL && a.local == x)) {
    jc_load_into(c, r, &a);
    jc_drop_entry(c, a);
  }
  return r;
}
/* Consumes the local.set/tee that in_place saw. */
static void finish_in_place(jc *c, uint32_t x) {
  bool tee = *c->p == 0x22;
  c->p++;
  jc_leb(c);
  if (tee) jc_push(c, (valent){V_LOCAL, c->ltype[x], 0, 0, x, 0, 0});
}

static bool int_binop(jc *c, int op) {
  static const struct { int op; alu k; bool w, imul, cmp, comm; int cc; } tab[] = {
#define B(o, d, r, w, im, cmp, comm, cc) {TL_OP_##o, {d, r}, w, im, cmp, comm, cc}
    B(I32_ADD, 0, 0x03, 0, 0, 0, 1, 0), B(I32_SUB, 5, 0x2B, 0, 0, 0, 0, 0),
    B(I32_MUL, 0, 0, 0, 1, 0, 1, 0), B(I32_AND, 4, 0x23, 0, 0, 0, 1, 0),
    B(I32_OR, 1, 0x0B, 0, 0, 0, 1, 0), B(I32_XOR, 6, 0x33, 0, 0, 0, 1, 0),
    B(I64_ADD, 0, 0x03, 1, 0, 0, 1, 0), B(I64_SUB, 5, 0x2B, 1, 0, 0, 0, 0),
    B(I64_MUL, 0, 0, 1, 1, 0, 1, 0), B(I64_AND, 4, 0x23, 1, 0, 0, 1, 0),
    B(I64_OR, 1, 0x0B, 1, 0, 0, 1, 0), B(I64_XOR, 6, 0x33, 1, 0, 0, 1, 0),
    B(I32_EQ, 7, 0x3B, 0, 0, 1, 1, CC_E), B(I32_NE, 7, 0x3B, 0, 0, 1, 1, CC_NE),
    B(I32_LT_S, 7, 0x3B, 0, 0, 1, 0, CC_L), B(I32_LT_U, 7, 0x3B, 0, 0, 1, 0, CC_B),
    B(I32_GT_S, 7, 0x3B, 0, 0, 1, 0, CC_G), B(I32_GT_U, 7, 0x3B, 0, 0, 1, 0, CC_A),
    B(I32_LE_S, 7, 0x3B, 0, 0, 1, 0, CC_LE), B(I32_LE_U, 7, 0x3B, 0, 0, 1, 0, CC_BE),
    B(I32_GE_S, 7, 0x3B, 0, 0, 1, 0, CC_GE), B(I32_GE_U, 7, 0x3B, 0, 0, 1, 0, CC_AE),
    B(I64_EQ, 7, 0x3B, 1, 0, 1, 1, CC_E), B(I64_NE, 7, 0x3B, 1, 0, 1, 1, CC_NE),
    B(I64_LT_S, 7, 0x3B, 1, 0, 1, 0, CC_L), B(I64_LT_U, 7, 0x3B, 1, 0, 1, 0, CC_B),
    B(I64_GT_S, 7, 0x3B, 1, 0, 1, 0, CC_G), B(I64_GT_U, 7, 0x3B, 1, 0, 1, 0, CC_A),
    B(I64_LE_S, 7, 0x3B, 1, 0, 1, 0, CC_LE), B(I64_LE_U, 7, 0x3B, 1, 0, 1, 0, CC_BE),
    B(I64_GE_S, 7, 0x3B, 1, 0, 1, 0, CC_GE), B(I64_GE_U, 7, 0x3B, 1, 0, 1, 0, CC_AE),
#undef B
  };
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
    if (tab[i].op != op) continue;
    valent b = c->st[c->n - 1], a = c->st[c->n - 2];
    bool swapped = false;
    if (a.kind == V_CONST && b.kind != V_CONST && tab[i].cmp) swapped = true;
    else if (a.kind == V_CONST && b.kind != V_CONST && tab[i].comm) swapped = true;
    if (swapped) {                  /* the values trade places, not homes */
      a.hs = b.hs;
      b.hs = c->st[c->n - 2].hs;
      c->st[c->n - 1] = a;
      c->st[c->n - 2] = b;
    }
    /* x = a op b; local.set x, with x in a register: op straight into it */
    int x = tab[i].cmp ? -1 : in_place(c);
    if (x >= 0) {
      valent bb = jc_pop(c);
      alu_op(c, tab[i].w, tab[i].k, pop_into_local(c, (uint32_t)x), &bb, tab[i].imul);
      finish_in_place(c, (uint32_t)x);
      return true;
    }
    valent bb = jc_pop(c);
    valent *av = &c->st[c->n - 1];
    bool lr = tab[i].cmp && av->kind == V_LOCAL && c->lreg[av->local] >= 0;
    int ra = lr ? c->lreg[av->local] : jc_pop_reg(c);       /* cmp reads a local's register */
    if (lr) c->n--;
    alu_op(c, tab[i].w, tab[i].k, ra, &bb, tab[i].imul);
    if (tab[i].cmp) {
      if (!lr) jc_free_reg(c, ra);
      int cc = tab[i].cc;
      if (swapped && cc != CC_E && cc != CC_NE) {
        static const int sw[16] = {[CC_L] = CC_G, [CC_G] = CC_L, [CC_LE] = CC_GE, [CC_GE] = CC_LE,
                                   [CC_B] = CC_A, [CC_A] = CC_B, [CC_BE] = CC_AE, [CC_AE] = CC_BE};
        cc = sw[cc];
      }
      jc_push_flags(c, cc);
    } else {
      jc_push_reg(c, tab[i].w ? TL_I64 : TL_I32, ra);
    }
    return true;
  }
  return false;
}

static bool shift_op(jc *c, int op) {
  static const struct { int op; uint8_t digit; bool w; } tab[] = {
    {TL_OP_I32_SHL, 4, 0}, {TL_OP_I32_SHR_S, 7, 0}, {TL_OP_I32_SHR_U, 5, 0},
    {TL_OP_I32_ROTL, 0, 0}, {TL_OP_I32_ROTR, 1, 0}, {TL_OP_I64_SHL, 4, 1},
    {TL_OP_I64_SHR_S, 7, 1}, {TL_OP_I64_SHR_U, 5, 1}, {TL_OP_I64_ROTL, 0, 1}, {TL_OP_I64_ROTR, 1, 1}};
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
    if (tab[i].op != op) continue;
    int x = in_place(c);
    valent b = jc_pop(c);
    int ra = x >= 0 ? pop_into_local(c, (uint32_t)x) : jc_pop_reg(c);
    if (b.kind == V_CONST) {
      x64_rm(c->b, 0, tab[i].w, 0xC1, 1, tab[i].digit, x64_r(ra), false);
      x64_byte(c->b, (uint8_t)(b.imm & (tab[i].w ? 63 : 31)));
    } else {
      jc_load_into(c, RCX, &b);
      jc_drop_entry(c, b);
      x64_rm(c->b, 0, tab[i].w, 0xD3, 1, tab[i].digit, x64_r(ra), false);
    }
    if (x >= 0) finish_in_place(c, (uint32_t)x);
    else jc_push_reg(c, tab[i].w ? TL_I64 : TL_I32, ra);
    return true;
  }
  return false;
}

/* div/rem inline: rax/rdx; traps on zero and overflow. */
static bool div_op(jc *c, int op) {
  bool w, sgn, rem;
  switch (op) {
  case TL_OP_I32_DIV_S: w = 0; sgn = 1; rem = 0; break;
  case TL_OP_I32_DIV_U: w = 0; sgn = 0; rem = 0; break;
  case TL_OP_I32_REM_S: w = 0; sgn = 1; rem = 1; break;
  case TL_OP_I32_REM_U: w = 0; sgn = 0; rem = 1; break;
  case TL_OP_I64_DIV_S: w = 1; sgn = 1; rem = 0; break;
  case TL_OP_I64_DIV_U: w = 1; sgn = 0; rem = 0; break;
  case TL_OP_I64_REM_S: w = 1; sgn = 1; rem = 1; break;
  case TL_OP_I64_REM_U: w = 1; sgn = 0; rem = 1; break;
  default: return false;
  }
  valent b = jc_pop(c);
  int rb = RCX;
  jc_load_into(c, RCX, &b);
  jc_drop_entry(c, b);
  valent a = jc_pop(c);
  jc_load_into(c, RAX, &a);
  jc_drop_entry(c, a);
  int rd = jc_alloc_reg(c, false);
  if (!(b.kind == V_CONST && b.imm != 0)) {
    x64_rm(c->b, 0, w, 0x85, 1, rb, x64_r(rb), false);
    jc_trap_jcc(c, CC_E, JT_DIV0);
  }
  int32_t done = -1;
  if (sgn && !(b.kind == V_CONST && b.imm != -1)) {
    x64_rm(c->b, 0, w, 0x83, 1, 7, x64_r(rb), false);  /* cmp rb, -1 */
    x64_byte(c->b, 0xFF);
    int32_t normal = x64_jcc(c->b, CC_NE, -1);
    if (rem) {
      x64_mov_ri(c->b, RDX, 0);
    } else {
      x64_mov_ri(c->b, RDX, w ? (uint64_t)INT64_MIN : 0x80000000u);
      x64_rm(c->b, 0, w, 0x3B, 1, RAX, x64_r(RDX), false);
      jc_trap_jcc(c, CC_E, JT_OVERFLOW);
      x64_rm(c->b, 0, w, 0xF7, 1, 3, x64_r(RAX), false);  /* neg */
      x64_rm(c->b, 0, w, 0x8B, 1, RDX, x64_r(RAX), false);
    }
    done = x64_jmp(c->b, -1);
    x64_patch(c->b, normal, c->b->n);
  }
  if (sgn) {
    if (w) x64_byte(c->b, 0x48);
    x64_byte(c->b, 0x99);                                    /* cdq / cqo */
  } else {
    x64_mov_ri(c->b, RDX, 0);
  }
  x64_rm(c->b, 0, w, 0xF7, 1, sgn ? 7 : 6, x64_r(rb), false);
  if (!rem) x64_rm(c->b, 0, w, 0x8B, 1, RDX, x64_r(RAX), false);
  x64_patch(c->b, done, c->b->n);
  jc_mov_rr(c, rd, RDX);
  if (!w) x64_rm(c->b, 0, false, 0x8B, 1, rd, x64_r(rd), false);
  jc_push_reg(c, w ? TL_I64 : TL_I32, rd);
  return true;
}

static bool float_op(jc *c, int op) {
  static const struct { int op; uint8_t pfx; uint8_t code; uint8_t t; } ar[] = {
    {TL_OP_F32_ADD, 0xF3, 0x58, TL_F32}, {TL_OP_F32_SUB, 0xF3, 0x5C, TL_F32},
    {TL_OP_F32_MUL, 0xF3, 0x59, TL_F32}, {TL_OP_F32_DIV, 0xF3, 0x5E, TL_F32},
    {TL_OP_F64_ADD, 0xF2, 0x58, TL_F64}, {TL_OP_F64_SUB, 0xF2, 0x5C, TL_F64},
    {TL_OP_F64_MUL, 0xF2, 0x59, TL_F64}, {TL_OP_F64_DIV, 0xF2, 0x5E, TL_F64}};
  for (size_t i = 0; i < sizeof ar / sizeof *ar; i++) {
    if (ar[i].op != op) continue;
    valent b = jc_pop(c);
    int ra = jc_pop_reg(c);
    x64_op o = jc_opnd_reg(c, &b);
    x64_rm(c->b, ar[i].pfx, false, 0x0F00 | ar[i].code, 2, ra, o, false);
    jc_drop_entry(c, b);
    jc_push_reg(c, ar[i].t, ra);
    return true;
  }
  static const struct { int op; bool d; int kind; } cmp[] = {
    {TL_OP_F32_EQ, 0, 0}, {TL_OP_F32_NE, 0, 1}, {TL_OP_F32_LT, 0, 2}, {TL_OP_F32_GT, 0, 3},
    {TL_OP_F32_LE, 0, 4}, {TL_OP_F32_GE, 0, 5}, {TL_OP_F64_EQ, 1, 0}, {TL_OP_F64_NE, 1, 1},
    {TL_OP_F64_LT, 1, 2}, {TL_OP_F64_GT, 1, 3}, {TL_OP_F64_LE, 1, 4}, {TL_OP_F64_GE, 1, 5}};
  for (size_t i = 0; i < sizeof cmp / sizeof *cmp; i++) {
    if (cmp[i].op != op) continue;
    int k = cmp[i].kind;
    valent b = jc_pop(c);
    int ra = jc_pop_reg(c);
    int rb = -1;
    x64_op o;
    if (k == 2 || k == 4) {                                  /* a < b: ucomi b, a */
      valent tmp = b;
      rb = isf(tmp.type) && tmp.kind == V_REG ? tmp.reg : -1;
      if (rb < 0) { rb = jc_alloc_reg(c, true); jc_load_into(c, rb, &tmp); }
      x64_rm(c->b, cmp[i].d ? 0x66 : 0, false, 0x0F2E, 2, rb, x64_r(ra), false);
      jc_free_reg(c, rb);
      jc_free_reg(c, ra);
      jc_push_flags(c, k == 2 ? CC_A : CC_AE);
      return true;
    }
    o = jc_opnd_reg(c, &b);
    x64_rm(c->b, cmp[i].d ? 0x66 : 0, false, 0x0F2E, 2, ra, o, false);
    jc_drop_entry(c, b);
    jc_free_reg(c, ra);
    if (k == 3 || k == 5) {
      jc_push_flags(c, k == 3 ? CC_A : CC_AE);
      return true;
    }
    int r = jc_alloc_reg(c, false);
    x64_rm(c->b, 0, false, 0x0F90 | (k == 0 ? CC_E : CC_NE), 2, 0, x64_r(r), true);
    x64_rm(c->b, 0, false, 0x0F90 | (k == 0 ? CC_NP : CC_P), 2, 0, x64_r(RCX), true);
    x64_rm(c->b, 0, false, k == 0 ? 0x22 : 0x0A, 1, r, x64_r(RCX), true);  /* and/or r8, cl */
    x64_rm(c->b, 0, false, 0x0FB6, 2, r, x64_r(r), true);
    jc_push_reg(c, TL_I32, r);
    return true;
  }
  return false;
}

/* unary: the operand in a register, one instruction (or two) */
static bool unary_op(jc *c, int op) {
  valent *top = c->n ? &c->st[c->n - 1] : NULL;
  switch (op) {
  case TL_OP_I32_EQZ: case TL_OP_I64_EQZ: {
    if (op == TL_OP_I32_EQZ && top && top->kind == V_FLAGS) {
      top->cc ^= 1;
      return true;
    }
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0, op == TL_OP_I64_EQZ, 0x85, 1, r, x64_r(r), false);
    jc_free_reg(c, r);
    jc_push_flags(c, CC_E);
    return true;
  }
  case TL_OP_I32_CLZ: case TL_OP_I32_CTZ: case TL_OP_I32_POPCNT:
  case TL_OP_I64_CLZ: case TL_OP_I64_CTZ: case TL_OP_I64_POPCNT: {
    bool w = op >= TL_OP_I64_CLZ;
    int k = (op - (w ? TL_OP_I64_CLZ : TL_OP_I32_CLZ));
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0xF3, w, k == 0 ? 0x0FBD : k == 1 ? 0x0FBC : 0x0FB8, 2, r, x64_r(r), false);
    jc_push_reg(c, w ? TL_I64 : TL_I32, r);
    return true;
  }
  case TL_OP_I32_WRAP_I64: case TL_OP_I64_EXTEND_I32_U: {
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0, false, 0x8B, 1, r, x64_r(r), false);
    jc_push_reg(c, op == TL_OP_I32_WRAP_I64 ? TL_I32 : TL_I64, r);
    return true;
  }
  case TL_OP_I64_EXTEND_I32_S: case TL_OP_I64_EXTEND32_S: {
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0, true, 0x63, 1, r, x64_r(r), false);
    jc_push_reg(c, TL_I64, r);
    return true;
  }
  case TL_OP_I32_EXTEND8_S: case TL_OP_I32_EXTEND16_S: case TL_OP_I64_EXTEND8_S:
  case TL_OP_I64_EXTEND16_S: {
    bool w = op == TL_OP_I64_EXTEND8_S || op == TL_OP_I64_EXTEND16_S;
    bool b8 = op == TL_OP_I32_EXTEND8_S || op == TL_OP_I64_EXTEND8_S;
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0, w, b8 ? 0x0FBE : 0x0FBF, 2, r, x64_r(r), b8);
    jc_push_reg(c, w ? TL_I64 : TL_I32, r);
    return true;
  }
  case TL_OP_F32_SQRT: case TL_OP_F64_SQRT: {
    int r = jc_pop_reg(c);
    x64_rm(c->b, op == TL_OP_F32_SQRT ? 0xF3 : 0xF2, false, 0x0F51, 2, r, x64_r(r), false);
    jc_push_reg(c, op == TL_OP_F32_SQRT ? TL_F32 : TL_F64, r);
    return true;
  }
  case TL_OP_F32_CEIL: case TL_OP_F32_FLOOR: case TL_OP_F32_TRUNC: case TL_OP_F32_NEAREST:
  case TL_OP_F64_CEIL: case TL_OP_F64_FLOOR: case TL_OP_F64_TRUNC: case TL_OP_F64_NEAREST: {
    bool d = op >= TL_OP_F64_CEIL;
    int k = op - (d ? TL_OP_F64_CEIL : TL_OP_F32_CEIL);
    static const uint8_t mode[4] = {2, 1, 3, 0};
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0x66, false, d ? 0x0F3A0B : 0x0F3A0A, 3, r, x64_r(r), false);
    x64_byte(c->b, (uint8_t)(mode[k] | 8));
    jc_push_reg(c, d ? TL_F64 : TL_F32, r);
    return true;
  }
  case TL_OP_F32_ABS: case TL_OP_F32_NEG: case TL_OP_F64_ABS: case TL_OP_F64_NEG: {
    bool d = op == TL_OP_F64_ABS || op == TL_OP_F64_NEG;
    bool neg = op == TL_OP_F32_NEG || op == TL_OP_F64_NEG;
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0x66, d, 0x0F7E, 2, r, x64_r(RAX), false);   /* movd/movq rax, xmm */
    if (d) {
      x64_mov_ri(c->b, RCX, neg ? 0x8000000000000000ull : 0x7fffffffffffffffull);
      x64_rm(c->b, 0, true, neg ? 0x33 : 0x23, 1, RAX, x64_r(RCX), false);
    } else {
      x64_rm(c->b, 0, false, 0x81, 1, neg ? 6 : 4, x64_r(RAX), false);
      x64_imm32(c->b, neg ? 0x80000000u : 0x7fffffffu);
    }
    x64_rm(c->b, 0x66, d, 0x0F6E, 2, r, x64_r(RAX), false);
    jc_push_reg(c, d ? TL_F64 : TL_F32, r);
    return true;
  }
  case TL_OP_I32_REINTERPRET_F32: case TL_OP_I64_REINTERPRET_F64: {
    bool d = op == TL_OP_I64_REINTERPRET_F64;
    int x = jc_pop_reg(c);
    int r = jc_alloc_reg(c, false);
    x64_rm(c->b, 0x66, d, 0x0F7E, 2, x, x64_r(r), false);
    jc_free_reg(c, x);
    jc_push_reg(c, d ? TL_I64 : TL_I32, r);
    return true;
  }
  case TL_OP_F32_REINTERPRET_I32: case TL_OP_F64_REINTERPRET_I64: {
    bool d = op == TL_OP_F64_REINTERPRET_I64;
    valent v = jc_pop(c);
    int x = jc_alloc_reg(c, true);
    x64_op o = jc_opnd_reg(c, &v);
    x64_rm(c->b, 0x66, d, 0x0F6E, 2, x, o, false);
    jc_drop_entry(c, v);
    jc_push_reg(c, d ? TL_F64 : TL_F32, x);
    return true;
  }
  case TL_OP_F64_PROMOTE_F32: case TL_OP_F32_DEMOTE_F64: {
    bool p = op == TL_OP_F64_PROMOTE_F32;
    int r = jc_pop_reg(c);
    x64_rm(c->b, p ? 0xF3 : 0xF2, false, 0x0F5A, 2, r, x64_r(r), false);
    jc_push_reg(c, p ? TL_F64 : TL_F32, r);
    return true;
  }
  case TL_OP_F32_CONVERT_I32_S: case TL_OP_F64_CONVERT_I32_S: case TL_OP_F32_CONVERT_I64_S:
  case TL_OP_F64_CONVERT_I64_S: case TL_OP_F32_CONVERT_I32_U: case TL_OP_F64_CONVERT_I32_U: {
    bool d = op == TL_OP_F64_CONVERT_I32_S || op == TL_OP_F64_CONVERT_I64_S || op == TL_OP_F64_CONVERT_I32_U;
    bool w = op == TL_OP_F32_CONVERT_I64_S || op == TL_OP_F64_CONVERT_I64_S ||
             op == TL_OP_F32_CONVERT_I32_U || op == TL_OP_F64_CONVERT_I32_U;
    int r = jc_pop_reg(c);                          /* i32 values are zero-extended */
    if (top->type == TL_I32 && w) x64_rm(c->b, 0, false, 0x8B, 1, r, x64_r(r), false);
    else if (!w) { /* 32-bit signed source */ }
    int x = jc_alloc_reg(c, true);
    x64_rm(c->b, 0, false, 0x0F57, 2, x, x64_r(x), false);       /* xorps: no false dependency */
    x64_rm(c->b, d ? 0xF2 : 0xF3, w, 0x0F2A, 2, x, x64_r(r), false);
    jc_free_reg(c, r);
    jc_push_reg(c, d ? TL_F64 : TL_F32, x);
    return true;
  }
  default: return false;
  }
}

/* ------------------------------------------------------------- memory */
typedef struct { int op; uint8_t size, pfx; bool w; uint32_t opc; int nopc; uint8_t t; } memop;
static const memop mops[] = {
  {TL_OP_I32_LOAD, 4, 0, 0, 0x8B, 1, TL_I32}, {TL_OP_I64_LOAD, 8, 0, 1, 0x8B, 1, TL_I64},
  {TL_OP_F32_LOAD, 4, 0xF3, 0, 0x0F10, 2, TL_F32}, {TL_OP_F64_LOAD, 8, 0xF2, 0, 0x0F10, 2, TL_F64},
  {TL_OP_I32_LOAD8_S, 1, 0, 0, 0x0FBE, 2, TL_I32}, {TL_OP_I32_LOAD8_U, 1, 0, 0, 0x0FB6, 2, TL_I32},
  {TL_OP_I32_LOAD16_S, 2, 0, 0, 0x0FBF, 2, TL_I32}, {TL_OP_I32_LOAD16_U, 2, 0, 0, 0x0FB7, 2, TL_I32},
  {TL_OP_I64_LOAD8_S, 1, 0, 1, 0x0FBE, 2, TL_I64}, {TL_OP_I64_LOAD8_U, 1, 0, 0, 0x0FB6, 2, TL_I64},
  {TL_OP_I64_LOAD16_S, 2, 0, 1, 0x0FBF, 2, TL_I64}, {TL_OP_I64_LOAD16_U, 2, 0, 0, 0x0FB7, 2, TL_I64},
  {TL_OP_I64_LOAD32_S, 4, 0, 1, 0x63, 1, TL_I64}, {TL_OP_I64_LOAD32_U, 4, 0, 0, 0x8B, 1, TL_I64},
  {TL_OP_I32_STORE, 4, 0, 0, 0x89, 1, TL_I32}, {TL_OP_I64_STORE, 8, 0, 1, 0x89, 1, TL_I64},
  {TL_OP_F32_STORE, 4, 0xF3, 0, 0x0F11, 2, TL_F32}, {TL_OP_F64_STORE, 8, 0xF2, 0, 0x0F11, 2, TL_F64},
  {TL_OP_I32_STORE8, 1, 0, 0, 0x88, 1, TL_I32}, {TL_OP_I32_STORE16, 2, 0x66, 0, 0x89, 1, TL_I32},
  {TL_OP_I64_STORE8, 1, 0, 0, 0x88, 1, TL_I64}, {TL_OP_I64_STORE16, 2, 0x66, 0, 0x89, 1, TL_I64},
  {TL_OP_I64_STORE32, 4, 0, 0, 0x89, 1, TL_I64},
};

/* Pops the address and returns the operand [r13 + addr + off]. No bounds
 * check: memory 0 is an 8 GiB reservation (runtime.c), so addr + off + size
 * (< 2^33 + 8) never leaves it and faults past the accessible pages become
 * traps in the signal handler. i32 values in registers are always
 * zero-extended (every 32-bit operation writes the full register). */
static x64_op mem64_addr(jc *c, uint64_t off, unsigned size);
/* mi: the memory (32-bit unless m64, which is memory 0). Memory 0's base
 * is r13; another's is a constant of this instance's code (a memory's data
 * never moves once the JIT adopted it, runtime.c), put in rdx. */
x64_op jc_mem_addr(jc *c, uint64_t off, unsigned size, bool m64, uint32_t mi) {
  if (m64) return mem64_addr(c, off, size);
  valent a = jc_pop(c);
  int base = R13;
  if (mi) {
    base = RDX;
    x64_mov_ri(c->b, RDX, (uint64_t)(uintptr_t)c->inst->mems[mi]->data);
  }
  if (a.kind == V_CONST) {
    uint64_t ea = (uint32_t)a.imm + off;
    if (ea <= INT32_MAX) return x64_m(base, (int32_t)ea);
    x64_mov_ri(c->b, RAX, ea);
    return x64_mi(base, RAX, 1, 0);
  }
  int r = RAX;
  if (a.kind == V_REG) {
    r = a.reg;
    jc_free_reg(c, r);
  } else if (a.kind == V_LOCAL && c->lreg[a.local] >= 0) {
    r = c->lreg[a.local];                      /* index straight from the local's register */
  } else {
    jc_load_into(c, RAX, &a);
  }
  if (off <= INT32_MAX) return x64_mi(base, r, 1, (int32_t)off);
  x64_mov_ri(c->b, RCX, off);
  x64_rm(c->b, 0, true, 0x03, 1, RCX, x64_r(r), false);
  return x64_mi(base, RCX, 1, 0);
}

/* Memory 0 when it is 64-bit (mem_op only takes offsets below 2^31). An
 * address below 4 GiB needs no check: the JIT's memories are reserved for
 * TL_MEM_RESERVE bytes at least (runtime.c adopt), which holds any 32-bit
 * address plus offset plus size, and the guard pages fault (a trap), as for
 * 32-bit memories. A higher one gets the explicit check: the access's last
 * byte, addr + off + size - 1, must not carry out of 64 bits and must lie
 * below pages * 64 KiB (pages read from the memory instance: another
 * instance may have grown it). Then [r13 + addr + off]. */
static x64_op mem64_addr(jc *c, uint64_t off, unsigned size) {
  valent a = jc_pop(c);
  int r = RAX;
  if (a.kind == V_REG) {
    r = a.reg;
    jc_free_reg(c, r);
  } else if (a.kind == V_LOCAL && c->lreg[a.local] >= 0) {
    r = c->lreg[a.local];
  } else {
    jc_load_into(c, RAX, &a);
  }
  x64_buf *b = c->b;
  x64_rm(b, 0, true, 0x8B, 1, RCX, x64_r(r), false);               /* mov rcx, addr */
  x64_rm(b, 0, true, 0xC1, 1, 5, x64_r(RCX), false);               /* shr rcx, 32 */
  x64_byte(b, 32);
  x64_byte(b, 0x74);                                                /* jz past the check */
  x64_byte(b, 0);
  size_t from = b->n;
  x64_rm(b, 0, true, 0x8B, 1, RCX, x64_r(r), false);               /* mov rcx, addr */
  x64_rm(b, 0, true, 0x81, 1, 0, x64_r(RCX), false);               /* add rcx, off + size - 1 */
  x64_imm32(b, (uint32_t)(off + size - 1));
  jc_trap_jcc(c, CC_B, JT_OOB_MEM);
  x64_rm(b, 0, true, 0xC1, 1, 5, x64_r(RCX), false);               /* shr rcx, 16 */
  x64_byte(b, 16);
  x64_rm(b, 0, true, 0x8B, 1, RDX, x64_m(R12, JC_MEM0), false);     /* mov rdx, [jctx.mem0] */
  x64_rm(b, 0, true, 0x3B, 1, RCX, x64_m(RDX, (int32_t)offsetof(tl_meminst, pages)), false);
  jc_trap_jcc(c, CC_AE, JT_OOB_MEM);                                   /* page >= pages */
  if (!b->oom) b->p[from - 1] = (uint8_t)(b->n - from);             /* < 128 bytes */
  return x64_mi(R13, r, 1, (int32_t)off);
}

static bool mem_op(jc *c, int op, uint64_t off, bool m64, uint32_t mi) {
  for (size_t i = 0; i < sizeof mops / sizeof *mops; i++) {
    const memop *k = &mops[i];
    if (k->op != op) continue;
    bool store = tl_ops[op].flags & TL_F_WRITES_MEM;
    if (!store) {
      valent *av = &c->st[c->n - 1];
      bool reuse = av->kind == V_REG && !isf(k->t);       /* mov esi, [r13+rsi+off] */
      int r = reuse ? av->reg : jc_alloc_reg(c, isf(k->t));  /* before: spills use rax */
      x64_op o = jc_mem_addr(c, off, k->size, m64, mi);
      c->busy |= 1u << r;
      x64_rm(c->b, k->pfx, k->w, k->opc, k->nopc, r, o, false);
      jc_push_reg(c, k->t, r);
      return true;
    }
    valent v = jc_pop(c);
    int r;
    if (v.kind == V_REG) r = v.reg;
    else { r = jc_alloc_reg(c, isf(k->t)); jc_load_into(c, r, &v); v.kind = V_REG; v.reg = (uint8_t)r; }
    x64_op o = jc_mem_addr(c, off, k->size, m64, mi);
    x64_rm(c->b, k->pfx, k->w, k->opc, k->nopc, r, o, k->size == 1);
    jc_drop_entry(c, v);
    return true;
  }
  return false;
}

/* ------------------------------------------------------------- locals */
static void flush_local(jc *c, uint32_t idx) {
  for (uint32_t i = 0; i < c->n; i++)
    if (c->st[i].kind == V_LOCAL && c->st[i].local == idx) jc_to_reg(c, i);
}
static void set_local(jc *c, uint32_t idx, valent *v) {
  uint8_t t = c->ltype[idx];
  if (v->kind == V_LOCAL && v->local == idx) return;
  if (c->lreg[idx] >= 0) {
    jc_load_into(c, c->lreg[idx], v);
    return;
  }
  if (v->kind == V_CONST) { st_imm(c, t, v->imm, loc(c, idx)); return; }
  if (v->kind == V_REG) { jc_st(c, v->reg, t, loc(c, idx)); return; }
  int tr = xr(t) ? XMM(0) : RAX;
  jc_load_into(c, tr, v);
  jc_st(c, tr, t, loc(c, idx));
}

/* --------------------------------------------------------------- calls */
static void call_direct(jc *c, uint32_t fi, bool tail) {
  tl_func *f = TL_FUNC(c->m, fi);
  uint32_t np, nr;
  func_sig(c, f->type, &np, &nr);
  jc_flush_regs(c);
  for (uint32_t i = c->n - np; i < c->n; i++) jc_spill(c, i);
  uint32_t h = c->n - np, hw = hs_at(c, h);
  if (fi < c->m->nimported_funcs) {
    call_helper(c, (void *)tl_jit_h_call, h, fi, 0);
    c->n = h;
    push_results(c, f->type);
    if (tail) emit_br(c, &c->cs[0]);
    return;
  }
  if (tail) {
    for (uint32_t w = 0, nw = hs_at(c, c->n) - hw; w < nw; w++) {
      jc_ld(c, RAX, TL_I64, home(c, hw + w));
      jc_st(c, RAX, TL_I64, x64_m(RBX, (int32_t)(8 * w)));
    }
    x64_rm(c->b, 0, true, 0xFF, 1, 0, x64_r(R15), false);
    x64_rm(c->b, 0, true, 0x83, 1, 0, x64_r(RSP), false);
    x64_byte(c->b, 8);
  } else {
    sync_out(c);
    x64_rm(c->b, 0, true, 0x8D, 1, RBX, home(c, hw), false);
  }
  if (c->callfix) {                                  /* call/jmp rel32 */
    x64_byte(c->b, tail ? 0xE9 : 0xE8);
    uint32_t fix[2] = {(uint32_t)c->b->n, fi};
    x64_imm32(c->b, 0);
    TL_VEC_PUSH(c->callfix, uint64_t, (uint64_t)fix[0] | (uint64_t)fix[1] << 32);
  } else {                                           /* mov eax, fi; call/jmp [r12 + fn[fi]] */
    jfix fx = {(uint32_t)c->b->n, fi, 0, tail};
    x64_byte(c->b, 0xB8);
    x64_imm32(c->b, fi);
    x64_rm(c->b, 0, false, 0xFF, 1, tail ? 4 : 2, x64_m(R12, JC_FN + (int32_t)(8 * fi)), false);
    fx.len = (uint8_t)(c->b->n - fx.at);
    if (c->lazyfix) TL_VEC_PUSH(c->lazyfix, jfix, fx);
  }
  c->n = h;
  if (tail) return;
  note_site(c);
  x64_rm(c->b, 0, true, 0x8D, 1, RBX, x64_m(RBX, -(int32_t)(8 * (c->nls + hw))), false);
  sync_in(c);
  push_results(c, f->type);
}

/* call_indirect: a helper checks the element and returns the entry of a
 * function of this instance (called directly, or jumped to for a tail
 * call), or NULL: then a second helper makes the call through C. */
static void call_indirect(jc *c, uint32_t ti, uint32_t table, bool tail) {
  uint32_t np, nr;
  func_sig(c, ti, &np, &nr);
  jc_flush_regs(c);
  for (uint32_t i = c->n - np - 1; i < c->n; i++) jc_spill(c, i);
  uint32_t h = c->n - np - 1, hw = hs_at(c, h);
  call_helper(c, (void *)tl_jit_h_resolve, h, ti, table);
  x64_rm(c->b, 0, true, 0x85, 1, RAX, x64_r(RAX), false);
  int32_t slow = x64_jcc(c->b, CC_E, -1);
  if (tail) {
    for (uint32_t w = 0, nw = hs_at(c, c->n - 1) - hw; w < nw; w++) {
      jc_ld(c, RCX, TL_I64, home(c, hw + w));
      jc_st(c, RCX, TL_I64, x64_m(RBX, (int32_t)(8 * w)));
    }
    x64_rm(c->b, 0, true, 0xFF, 1, 0, x64_r(R15), false);
    x64_rm(c->b, 0, true, 0x83, 1, 0, x64_r(RSP), false);
    x64_byte(c->b, 8);
    x64_rm(c->b, 0, false, 0xFF, 1, 4, x64_r(RAX), false);         /* jmp rax */
  } else {
    sync_out(c);
    x64_rm(c->b, 0, true, 0x8D, 1, RBX, home(c, hw), false);
    x64_rm(c->b, 0, false, 0xFF, 1, 2, x64_r(RAX), false);         /* call rax */
    note_site(c);
    x64_rm(c->b, 0, true, 0x8D, 1, RBX, x64_m(RBX, -(int32_t)(8 * (c->nls + hw))), false);
    sync_in(c);
  }
  int32_t done = tail ? -1 : x64_jmp(c->b, -1);
  x64_patch(c->b, slow, c->b->n);
  call_helper(c, (void *)tl_jit_h_call_indirect, h, ti, table);
  x64_patch(c->b, done, c->b->n);
  c->n = h;
  push_results(c, ti);
  if (tail) emit_br(c, &c->cs[0]);
}

/* ---------------------------------------------------------- the body */
static void select_op(jc *c, uint8_t t) {
  int rc = jc_pop_reg(c);                   /* a compare is materialized first */
  valent b = jc_pop(c);
  int ra = jc_to_reg(c, c->n - 1);
  x64_op ob = jc_opnd_reg(c, &b);
  x64_rm(c->b, 0, false, 0x85, 1, rc, x64_r(rc), false);
  jc_free_reg(c, rc);
  if (xr(t)) {
    int32_t skip = x64_jcc(c->b, CC_NE, -1);
    if (b.kind == V_REG) jc_mov_rr(c, ra, b.reg);
    else jc_ld(c, ra, t, ob);
    x64_patch(c->b, skip, c->b->n);
  } else {
    x64_rm(c->b, 0, w64(t), 0x0F44, 2, ra, ob, false);     /* cmovz */
  }
  jc_drop_entry(c, b);
  c->st[c->n - 1].type = t;
}

static void global_addr(jc *c, uint32_t gi) {
  x64_rm(c->b, 0, true, 0x8B, 1, RAX, x64_m(R12, JC_GLOBALS), false);
  x64_rm(c->b, 0, true, 0x8B, 1, RAX, x64_m(RAX, (int32_t)(8 * gi)), false);
}
#define GV x64_m(RAX, offsetof(tl_globalinst, v))

/* ---------------------------------------------------------- exceptions */
static uint32_t new_handler(jc *c, uint8_t kind) {
  jeh_handler h = {c->cur_h, JEH_NONE, kind};
  TL_VEC_PUSH(&c->handlers, jeh_handler, h);
  return (uint32_t)c->handlers.n - 1;
}
static jeh_handler *handler(jc *c, uint32_t h) { return &TL_VEC_AT(&c->handlers, jeh_handler, h); }

/* Appends an arm to handler h (arms are searched in order). */
static void add_arm(jc *c, uint32_t h, jeh_arm a) {
  a.next = JEH_NONE;
  TL_VEC_PUSH(&c->arms, jeh_arm, a);
  uint32_t id = (uint32_t)c->arms.n - 1, *at = &handler(c, h)->arm;
  while (*at != JEH_NONE) at = &TL_VEC_AT(&c->arms, jeh_arm, *at).next;
  *at = id;
}

/* A tag's params as stack entries in home slots (a landing pad's payload). */
static void push_payload(jc *c, uint32_t tag) {
  tl_type pt = tl_tag_params(c->m, tag);
  uint32_t n = tl_type_arity(c->m, pt);
  for (uint32_t i = 0; i < n; i++) jc_push_slot(c, (uint8_t)tl_type_at(c->m, pt, i));
}

/* try and try_table open like a block; their handler covers the calls of
 * their body. */
static void open_try(jc *c, ctl *k, uint8_t hkind) {
  flush_all(c);
  k->height = c->n - k->np;
  k->outer_h = c->cur_h;
  k->hid = new_handler(c, hkind);
  k->hctx = c->cur_h = k->hid;
}

/* A landing pad here: the frame is as at the start of the try (stack at
 * k->height in home slots), register locals come back from their slots. */
static uint32_t landing_pad(jc *c, ctl *k) {
  reset_stack(c, k->height);
  c->busy = 0;
  uint32_t pad = (uint32_t)(c->b->n - c->fstart);
  sync_in(c);
  c->dead = false;
  return pad;
}

/* catch / catch_all of a legacy try: closes the body or the previous arm
 * and starts this arm (tag JEH_NONE: catch_all). */
static void catch_arm(jc *c, uint32_t tag) {
  ctl *k = &c->cs[c->nc - 1];
  if (!c->dead) {
    flush_all(c);
    k->fix_end = x64_jmp(c->b, k->fix_end);
  }
  if (!k->in_catch) {                      /* the arms are outside the handler */
    k->in_catch = true;
    c->cur_h = k->hctx = k->outer_h;
  }
  uint32_t pad = landing_pad(c, k);
  jeh_arm a = {tag, pad, 8 * (c->nls + hs_at(c, k->height)), 8 * c->lw[k->exn_local], 0};
  add_arm(c, k->hid, a);
  if (tag != JEH_NONE) push_payload(c, tag);
}

/* delegate L: the try's handler passes what it sees to label L's (counted
 * outside the try), then the try ends. */
static void delegate(jc *c, uint32_t l) {
  ctl *k = &c->cs[c->nc - 1];
  handler(c, k->hid)->kind = JEH_DELEGATE;
  handler(c, k->hid)->next = c->cs[c->nc - 2 - l].hctx;
}

/* try_table's clauses: kind (0 catch, 1 catch_ref, 2 catch_all, 3
 * catch_all_ref), tag, label; kept in c->clauses until its end. */
static void read_clauses(jc *c, ctl *k) {
  k->clause0 = (uint32_t)c->clauses.n;
  k->nclause = (uint32_t)jc_leb(c);
  for (uint32_t i = 0; i < k->nclause; i++) {
    tclause t = {c->p < c->end ? *c->p++ : 0, 0, 0};
    if (t.kind < 2) t.tag = (uint32_t)jc_leb(c);
    t.label = (uint32_t)jc_leb(c);
    TL_VEC_PUSH(&c->clauses, tclause, t);
  }
}

/* The end of a try_table: the body jumps over one landing pad per clause,
 * each a branch to its label with the payload (and exnref). */
static void end_try_table(jc *c) {
  ctl *k = &c->cs[c->nc - 1];
  if (!c->dead) {
    flush_all(c);
    if (k->nclause) k->fix_end = x64_jmp(c->b, k->fix_end);
  }
  c->cur_h = k->outer_h;
  for (uint32_t i = 0; i < k->nclause; i++) {
    tclause t = TL_VEC_AT(&c->clauses, tclause, k->clause0 + i);
    k = &c->cs[c->nc - 1];
    uint32_t pad = landing_pad(c, k);
    jeh_arm a = {t.kind < 2 ? t.tag : JEH_NONE, pad, 8 * (c->nls + hs_at(c, k->height)), JEH_NONE, 0};
    if (t.kind < 2) push_payload(c, t.tag);
    if (t.kind == 1 || t.kind == 3) {
      a.exn_dst = 8 * (c->nls + hs_at(c, c->n));
      jc_push_slot(c, TL_EXNREF);
    }
    add_arm(c, k->hid, a);
    emit_br(c, &c->cs[c->nc - 2 - t.label]);
  }
  c->clauses.n = k->clause0;
  c->dead = true;                          /* nothing falls into the end but the body */
}

/* throw tag: the payload to home slots, the helper unwinds. */
static void eh_throw(jc *c, uint32_t tag) {
  uint32_t n = tl_type_arity(c->m, tl_tag_params(c->m, tag));
  jc_flush_regs(c);
  for (uint32_t i = c->n - n; i < c->n; i++) jc_spill(c, i);
  uint32_t h = c->n - n;
  call_helper(c, (void *)tl_jit_h_throw, h, tag, 0);
  reset_stack(c, c->cs[c->nc - 1].height);
  c->dead = true;
}

/* throw_ref (the exnref on top; null traps) */
static void eh_throw_ref(jc *c) {
  jc_flush_regs(c);
  jc_spill(c, c->n - 1);
  call_helper(c, (void *)tl_jit_h_throw_ref, c->n - 1, 0, 0);
  reset_stack(c, c->cs[c->nc - 1].height);
  c->dead = true;
}

/* The tables compile_func hands out (one block), or NULL without handlers. */
static jeh *make_tables(jc *c, size_t len) {
  if (!c->handlers.n) return NULL;
  size_t ns = c->sites.n, nh = c->handlers.n, na = c->arms.n;
  jeh *e = tl_malloc(sizeof *e + ns * sizeof(jeh_site) + nh * sizeof(jeh_handler) + na * sizeof(jeh_arm));
  if (!e) return NULL;
  e->code_len = (uint32_t)len;
  e->nsite = (uint32_t)ns;
  e->nhandler = (uint32_t)nh;
  e->narm = (uint32_t)na;
  e->site = (jeh_site *)(e + 1);
  e->h = (jeh_handler *)(e->site + ns);
  e->arm = (jeh_arm *)(e->h + nh);
  if (ns) memcpy(e->site, c->sites.p, ns * sizeof(jeh_site));
  if (nh) memcpy(e->h, c->handlers.p, nh * sizeof(jeh_handler));
  if (na) memcpy(e->arm, c->arms.p, na * sizeof(jeh_arm));
  return e;
}

static void op_one(jc *c, int op) {
  const tl_opinfo *oi = &tl_ops[op];
  if (op != TL_OP_BR_IF && op != TL_OP_IF && op != TL_OP_I32_EQZ)
    settle_flags(c);
  switch (op) {
  case TL_OP_NOP: return;
  case TL_OP_UNREACHABLE:
    jc_trap_jcc(c, -1, JT_UNREACHABLE);
    reset_stack(c, c->cs[c->nc - 1].height);
    c->dead = true;
    return;
  case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_IF: {
    ctl k = read_bt(c, op == TL_OP_BLOCK ? C_BLOCK : op == TL_OP_LOOP ? C_LOOP : C_IF);
    int cc = 0;
    if (op == TL_OP_IF) cc = pop_cond(c);
    else flush_all(c);
    k.height = c->n - k.np;
    if (op == TL_OP_LOOP) {
      k.loop_pc = c->b->n;
      if (c->fuel) {
        k.fuel_fix = fuel_check(c);
        k.fuel_prev = c->fl;
        c->fl = c->nc;
      }
    }
    if (op == TL_OP_IF) k.fix_else = x64_jcc(c->b, cc ^ 1, -1);
    ctl_push(c, k);
    return;
  }
  case TL_OP_TRY: case TL_OP_TRY_TABLE: {
    ctl k = read_bt(c, op == TL_OP_TRY ? C_TRY : C_TRY_TABLE);
    if (op == TL_OP_TRY_TABLE) read_clauses(c, &k);
    else k.exn_local = c->nlocals - c->ntry + c->try_depth++;
    open_try(c, &k, op == TL_OP_TRY ? JEH_CATCH : JEH_TABLE);
    ctl_push(c, k);
    return;
  }
  case TL_OP_CATCH: catch_arm(c, (uint32_t)jc_leb(c)); return;
  case TL_OP_CATCH_ALL: catch_arm(c, JEH_NONE); return;
  case TL_OP_DELEGATE:
    delegate(c, (uint32_t)jc_leb(c));
    c->cur_h = c->cs[c->nc - 1].outer_h;
    c->try_depth--;
    end_block(c);
    return;
  case TL_OP_THROW: {
    eh_throw(c, (uint32_t)jc_leb(c));
    return;
  }
  case TL_OP_THROW_REF: eh_throw_ref(c); return;
  case TL_OP_RETHROW: {
    ctl *k = &c->cs[c->nc - 1 - (uint32_t)jc_leb(c)];
    jc_push(c, (valent){V_LOCAL, TL_EXNREF, 0, 0, k->exn_local, 0, 0});
    eh_throw_ref(c);
    return;
  }
  case TL_OP_ELSE: {
    ctl *k = &c->cs[c->nc - 1];
    if (!c->dead) {
      flush_all(c);
      k->fix_end = x64_jmp(c->b, k->fix_end);
    }
    x64_patch(c->b, k->fix_else, c->b->n);
    k->fix_else = -1;
    k->has_else = true;
    reset_stack(c, k->height);
    for (uint32_t i = 0; i < k->np; i++) jc_push_slot(c, bt_type(c, k, true, i));
    c->dead = false;
    return;
  }
  case TL_OP_END:
    if (c->nc == 1) {
      if (!c->dead) emit_br(c, &c->cs[0]);
      x64_patch(c->b, c->cs[0].fix_end, c->b->n);
      if (c->cs[0].fix_end >= 0) emit_epilogue(c);
      c->nc = 0;
      return;
    }
    if (c->cs[c->nc - 1].kind == C_TRY) {
      c->cur_h = c->cs[c->nc - 1].outer_h;
      c->try_depth--;
    } else if (c->cs[c->nc - 1].kind == C_TRY_TABLE) {
      end_try_table(c);
    }
    end_block(c);
    return;
  case TL_OP_BR: {
    ctl *k = &c->cs[c->nc - 1 - (uint32_t)jc_leb(c)];
    if (k->kind == C_FUNC) emit_br(c, k);
    else { jc_flush_regs(c); emit_br(c, k); }
    reset_stack(c, c->cs[c->nc - 1].height);
    c->dead = true;
    return;
  }
  case TL_OP_BR_IF: {
    ctl *k = &c->cs[c->nc - 1 - (uint32_t)jc_leb(c)];
    int cc = pop_cond(c);
    emit_br_cc(c, k, cc);
    return;
  }
  case TL_OP_BR_TABLE: {
    uint32_t n = (uint32_t)jc_leb(c);
    valent iv = c->st[c->n - 1];
    int r = RAX;
    if (iv.kind == V_CONST) { c->n--; flush_all(c); x64_mov_ri(c->b, RDX, (uint32_t)iv.imm); }
    else { r = jc_pop_reg(c); flush_all(c); jc_mov_rr(c, RDX, r); jc_free_reg(c, r); }
    for (uint32_t i = 0; i <= n; i++) {
      ctl *k = &c->cs[c->nc - 1 - (uint32_t)jc_leb(c)];
      if (i == n) { emit_br(c, k); break; }
      x64_rm(c->b, 0, false, 0x81, 1, 7, x64_r(RDX), false);
      x64_imm32(c->b, i);
      emit_br_cc(c, k, CC_E);
    }
    reset_stack(c, c->cs[c->nc - 1].height);
    c->dead = true;
    return;
  }
  case TL_OP_RETURN:
    emit_br(c, &c->cs[0]);
    reset_stack(c, c->cs[c->nc - 1].height);
    c->dead = true;
    return;
  case TL_OP_CALL: call_direct(c, (uint32_t)jc_leb(c), false); return;
  case TL_OP_RETURN_CALL: {
    uint32_t h = c->cur_h;            /* the frame is gone: its handlers too */
    c->cur_h = JEH_NONE;
    call_direct(c, (uint32_t)jc_leb(c), true);
    c->cur_h = h;
    reset_stack(c, c->cs[c->nc - 1].height);
    c->dead = true;
    return;
  }
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT: {
    uint32_t ti = (uint32_t)jc_leb(c), tb = (uint32_t)jc_leb(c), h = c->cur_h;
    if (op == TL_OP_RETURN_CALL_INDIRECT) c->cur_h = JEH_NONE;
    call_indirect(c, ti, tb, op == TL_OP_RETURN_CALL_INDIRECT);
    c->cur_h = h;
    if (op == TL_OP_RETURN_CALL_INDIRECT) {
      reset_stack(c, c->cs[c->nc - 1].height);
      c->dead = true;
    }
    return;
  }
  case TL_OP_DROP: jc_drop_entry(c, jc_pop(c)); return;
  case TL_OP_SELECT: select_op(c, c->st[c->n - 2].type); return;
  case TL_OP_SELECT_T: {
    uint64_t n = jc_leb(c);
    uint8_t t = TL_I32;
    while (n--) t = select_type(c);
    select_op(c, t);
    return;
  }
  case TL_OP_LOCAL_GET: { uint32_t i = (uint32_t)jc_leb(c); jc_push(c, (valent){V_LOCAL, c->ltype[i], 0, 0, i, 0, 0}); return; }
  case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: {
    uint32_t i = (uint32_t)jc_leb(c);
    valent v = jc_pop(c);
    flush_local(c, i);
    set_local(c, i, &v);
    if (op == TL_OP_LOCAL_TEE) {
      if (v.kind == V_REG || v.kind == V_CONST) jc_push(c, v);
      else jc_push(c, (valent){V_LOCAL, c->ltype[i], 0, 0, i, 0, 0});
    } else {
      jc_drop_entry(c, v);
    }
    return;
  }
  case TL_OP_GLOBAL_GET: {
    uint32_t gi = (uint32_t)jc_leb(c);
    uint8_t t = (uint8_t)TL_GLOBAL(c->m, gi)->type;
    int r = jc_alloc_reg(c, xr(t));
    global_addr(c, gi);
    jc_ld(c, r, t, GV);
    jc_push_reg(c, t, r);
    return;
  }
  case TL_OP_GLOBAL_SET: {
    uint32_t gi = (uint32_t)jc_leb(c);
    uint8_t t = (uint8_t)TL_GLOBAL(c->m, gi)->type;
    valent v = jc_pop(c);
    int r = xr(t) ? XMM(0) : RCX;
    jc_load_into(c, r, &v);
    jc_drop_entry(c, v);
    global_addr(c, gi);
    jc_st(c, r, t, GV);
    return;
  }
  case TL_OP_I32_CONST: jc_push(c, (valent){V_CONST, TL_I32, 0, 0, 0, (int32_t)sleb(c), 0}); return;
  case TL_OP_I64_CONST: jc_push(c, (valent){V_CONST, TL_I64, 0, 0, 0, sleb(c), 0}); return;
  case TL_OP_F32_CONST: { uint32_t v; memcpy(&v, c->p, 4); c->p += 4; jc_push(c, (valent){V_CONST, TL_F32, 0, 0, 0, v, 0}); return; }
  case TL_OP_F64_CONST: { int64_t v; memcpy(&v, c->p, 8); c->p += 8; jc_push(c, (valent){V_CONST, TL_F64, 0, 0, 0, v, 0}); return; }
  case TL_OP_REF_NULL: { uint8_t t = valtype(*c->p++); jc_push(c, (valent){V_CONST, t, 0, 0, 0, 0, 0}); return; }
  case TL_OP_REF_FUNC: {
    uint32_t fi = (uint32_t)jc_leb(c);
    jc_push(c, (valent){V_CONST, TL_FUNCREF, 0, 0, 0, (int64_t)(intptr_t)c->inst->funcs[fi], 0});
    return;
  }
  case TL_OP_REF_IS_NULL: {
    int r = jc_pop_reg(c);
    x64_rm(c->b, 0, true, 0x85, 1, r, x64_r(r), false);
    jc_free_reg(c, r);
    jc_push_flags(c, CC_E);
    return;
  }
  default: break;
  }
  if (oi->pfx == 0xFD) {
    jc_simd(c, op);
    return;
  }
  if (oi->imm == TL_IMM_FENCE) { c->p++; return; }
  if (oi->imm == TL_IMM_MEMARG) {
    uint64_t al = jc_leb(c), mi = (al & 0x40) ? jc_leb(c) : 0;
    uint64_t off = jc_leb(c);
    bool m64 = tl_memory_is64(c->m, (uint32_t)mi);
    if (m64 && !mi && off < INT32_MAX - 16 && mem_op(c, op, off, true, 0)) return;
    if (m64) {
      /* memory64 (atomics, SIMD, a memory other than 0, a big offset): in
       * C, with explicit checks; the u64 offset as one more operand */
      uint8_t rt[1] = {oi->result};
      jc_push(c, (valent){V_CONST, TL_I64, 0, 0, 0, (int64_t)off, 0});
      jc_helper_op(c, (void *)tl_jit_h_op, (uint32_t)op, oi->nops + 1u, 0, (uint32_t)mi | JB_ADDR64, rt,
                   oi->result != TL_NONE);
      return;
    }
    if (mem_op(c, op, off, false, (uint32_t)mi)) return;
    /* atomics (one thread), and a memory other than 0's bulk, atomic and
     * SIMD accesses: in C */
    if ((oi->flags & TL_F_ATOMIC) || (mi && tl_ops[op].pfx != 0xFD)) {
      uint8_t rt[1] = {oi->result};
      jc_helper_op(c, (void *)tl_jit_h_op, (uint32_t)op, oi->nops, (uint32_t)off, (uint32_t)mi, rt,
                   oi->result != TL_NONE);
      return;
    }
  }
  if (int_binop(c, op) || shift_op(c, op) || div_op(c, op) || float_op(c, op) || unary_op(c, op)) return;
  /* everything else: a helper over home slots */
  uint32_t a = 0, b = 0;
  switch (oi->imm) {
  case TL_IMM_NONE: break;
  case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT: case TL_IMM_TABLE_INIT: case TL_IMM_TABLE_COPY:
    a = (uint32_t)jc_leb(c);
    b = (uint32_t)jc_leb(c);
    break;
  case TL_IMM_TABLE: case TL_IMM_MEM: case TL_IMM_DATA: case TL_IMM_ELEM: a = (uint32_t)jc_leb(c); break;
  default:
    c->bad = true;
    c->why = "unsupported instruction";
    return;
  }
  uint8_t rt[1];
  uint32_t nops, nr = 0;
  if (oi->nops != TL_SIG_SPECIAL) {
    nops = oi->nops;
    if (oi->result != TL_NONE) { rt[0] = oi->result; nr = 1; }
  } else {
    switch (op) {
    case TL_OP_TABLE_GET: nops = 1; nr = 1; rt[0] = (uint8_t)TL_TABLE(c->m, a)->elem; break;
    case TL_OP_TABLE_SET: nops = 2; break;
    case TL_OP_TABLE_GROW: nops = 2; nr = 1; rt[0] = TL_I32; break;
    case TL_OP_TABLE_FILL: nops = 3; break;
    case TL_OP_TABLE_SIZE: nops = 0; nr = 1; rt[0] = TL_I32; break;
    case TL_OP_MEMORY_SIZE: nops = 0; nr = 1; rt[0] = TL_I32; break;
    case TL_OP_MEMORY_GROW: nops = 1; nr = 1; rt[0] = TL_I32; break;
    default: c->bad = true; c->why = "unsupported instruction"; return;
    }
  }
  bool r64 = op == TL_OP_MEMORY_SIZE || op == TL_OP_MEMORY_GROW ? tl_memory_is64(c->m, a)
           : op == TL_OP_TABLE_SIZE || op == TL_OP_TABLE_GROW ? tl_table_is64(c->m, a) : false;
  if (nr && r64) rt[0] = TL_I64;   /* memory64/table64: sizes are i64 */
  jc_helper_op(c, (void *)tl_jit_h_op, (uint32_t)op, nops, a, b, rt, nr);
}

/* Picks the most used locals (uses inside loops weigh 8x per level) for
 * registers: one extra decoding pass over the body, no IR. */
static bool choose_locals(jc *c) {   /* false when out of memory */
  uint32_t nl = c->nlocals;
  tl_free(c->lreg);
  c->lreg = tl_scratch_realloc(NULL, nl + 1, 1);
  uint64_t *cnt = tl_scratch_calloc(nl + 1, sizeof *cnt);
  if (!c->lreg || !cnt) {
    tl_free(cnt);
    return false;
  }
  memset(c->lreg, -1, nl + 1);
  const uint8_t *p0 = c->p;
  tl_vec loops = {0};
  uint32_t depth = 0, tries = 0;
  c->ntry = 0;
  c->has_eh = false;
  while (c->p < c->end) {
    uint8_t byte = *c->p++;
    int op = byte == 0xFC || byte == 0xFD || byte == 0xFE ? tl_op_decode(byte, (uint32_t)jc_leb(c))
                                                           : tl_op_decode(0, byte);
    if (op < 0) break;
    if (op == TL_OP_BLOCK || op == TL_OP_LOOP || op == TL_OP_IF || op == TL_OP_TRY ||
        op == TL_OP_TRY_TABLE) {
      skip_imm(c, op);
      uint8_t l = op == TL_OP_LOOP ? 1 : op == TL_OP_TRY ? 2 : 0;   /* 2: a legacy try */
      if (!tl_vec_try_grow(&loops, 1, loops.n + 1)) {
        tl_free(cnt);
        tl_vec_free(&loops);
        return false;
      }
      TL_VEC_AT(&loops, uint8_t, loops.n++) = l;
      depth += l == 1;
      tries += l == 2;
      if (tries > c->ntry) c->ntry = tries;
      c->has_eh |= op == TL_OP_TRY || op == TL_OP_TRY_TABLE;
    } else if (op == TL_OP_END || op == TL_OP_DELEGATE) {
      if (op == TL_OP_DELEGATE) jc_leb(c);
      uint8_t l = loops.n ? TL_VEC_AT(&loops, uint8_t, --loops.n) : 0;
      depth -= l == 1;
      tries -= l == 2;
    } else if (op == TL_OP_LOCAL_GET || op == TL_OP_LOCAL_SET || op == TL_OP_LOCAL_TEE) {
      uint64_t i = jc_leb(c);
      if (i < nl) cnt[i] += (uint64_t)1 << (depth > 5 ? 15 : 3 * depth);
    } else {
      skip_imm(c, op);
    }
  }
  tl_vec_free(&loops);
  c->p = p0;
  c->nrl = 0;
  int ng = 0, nx = 0;
  for (int round = 0; round < 12; round++) {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < nl; i++) {
      if (c->lreg[i] >= 0 || cnt[i] < 2) continue;
      if (xr(c->ltype[i]) ? nx >= 8 : ng >= 4) continue;
      if (best == UINT32_MAX || cnt[i] > cnt[best]) best = i;
    }
    if (best == UINT32_MAX) break;
    c->lreg[best] = (int8_t)(xr(c->ltype[best]) ? XMM(8 + nx++) : lgpr[ng++]);
    c->rl[c->nrl++] = best;
  }
  c->ngpool = 0;
  for (int k = 0; k < 6; k++) {
    bool taken = false;
    for (int j = 0; j < ng; j++) taken |= lgpr[j] == gpool_all[k];
    if (!taken) c->gpool[c->ngpool++] = gpool_all[k];
  }
  tl_free(cnt);
  return true;
}

/* Compiles function fi at the end of c->b. */
static tl_status compile_func(jc *c, uint32_t fi, tl_error *err) {
  tl_module *m = c->m;
  tl_func *f = TL_FUNC(m, fi);
  c->fidx = fi;
  c->eh_out = NULL;
  c->p = f->code;
  c->end = f->code + f->code_size;
  tl_functype *ft = TL_FTYPE(m, f->type);
  c->nparams = tl_type_arity(m, ft->params);
  /* locals: params then the declared groups */
  const uint8_t *save = c->p;
  uint64_t ng = jc_leb(c), nl = c->nparams;
  for (uint64_t g = 0; g < ng; g++) { nl += jc_leb(c); select_type(c); }
  if (nl > 1000000) return tl_errorf(err, TL_E_LIMIT, TL_NO_OFFSET, "too many locals for the JIT");
  tl_free(c->ltype);
  if (!(c->ltype = tl_scratch_realloc(NULL, nl + 1, 1))) return tl_nomem(err, "JIT");
  for (uint32_t i = 0; i < c->nparams; i++) c->ltype[i] = (uint8_t)tl_type_at(m, ft->params, i);
  c->p = save;
  ng = jc_leb(c);
  uint32_t li = c->nparams;
  for (uint64_t g = 0; g < ng; g++) {
    uint64_t k = jc_leb(c);
    uint8_t t = select_type(c);
    for (uint64_t j = 0; j < k; j++) c->ltype[li++] = t;
  }
  c->nlocals = (uint32_t)nl;
  if (!choose_locals(c)) return tl_nomem(err, "JIT");
  if (c->ntry) {                 /* hidden locals: a caught exception per legacy try depth */
    uint8_t *lt = tl_scratch_realloc(c->ltype, nl + c->ntry + 1, 1);
    if (lt) c->ltype = lt;
    int8_t *lr = lt ? tl_scratch_realloc(c->lreg, nl + c->ntry + 1, 1) : NULL;
    if (!lr) return tl_nomem(err, "JIT");
    c->lreg = lr;
    for (uint32_t i = 0; i < c->ntry; i++) {
      c->ltype[nl + i] = TL_EXNREF;
      c->lreg[nl + i] = -1;
    }
    nl += c->ntry;
    c->nlocals = (uint32_t)nl;
  }
  tl_free(c->lw);
  if (!(c->lw = tl_scratch_realloc(NULL, nl + 1, sizeof *c->lw))) return tl_nomem(err, "JIT");
  c->nls = 0;
  for (uint32_t i = 0; i < nl; i++) {
    c->lw[i] = c->nls;
    c->nls += tw(c->ltype[i]);
  }
  c->lw[nl] = c->nls;
  c->sites.n = c->handlers.n = c->arms.n = c->clauses.n = c->pool.n = 0;
  c->cur_h = JEH_NONE;
  c->try_depth = 0;
  c->n = c->nc = c->maxh = 0;
  c->busy = 0;
  c->dead = false;
  c->dead_depth = 0;
  c->bad = false;
  for (int i = 0; i < JT_NTRAPS; i++) c->trap[i] = -1;
  /* prologue */
  while (c->b->n & 15) x64_byte(c->b, 0x90);
  size_t start = c->fstart = c->b->n;
  x64_rm(c->b, 0, true, 0x83, 1, 5, x64_r(RSP), false);              /* sub rsp, 8 */
  x64_byte(c->b, 8);
  if (c->has_eh) x64_rm(c->b, 0, true, 0x89, 1, RBX, x64_m(RSP, 0), false);  /* mov [rsp], rbx */
  x64_rm(c->b, 0, true, 0xFF, 1, 1, x64_r(R15), false);              /* dec r15 */
  jc_trap_jcc(c, CC_E, JT_EXHAUSTED);
  x64_rm(c->b, 0, true, 0x8D, 1, RAX, x64_m(RBX, 0x7fffffff), false);
  size_t frame_fix = c->b->n - 4;
  x64_rm(c->b, 0, true, 0x3B, 1, RAX, x64_m(R12, JC_LIMIT), false);
  jc_trap_jcc(c, CC_A, JT_EXHAUSTED);
  size_t fuel_fix = c->fuel ? fuel_check(c) : 0;
  if (nl > c->nparams) {
    uint32_t w0 = c->lw[c->nparams], k = c->nls - w0;
    if (k <= 8) {
      x64_mov_ri(c->b, RAX, 0);
      for (uint32_t w = w0; w < c->nls; w++) jc_st(c, RAX, TL_I64, x64_m(RBX, (int32_t)(8 * w)));
    } else {
      x64_mov_ri(c->b, RAX, 0);
      x64_rm(c->b, 0, true, 0x8D, 1, RDI, loc(c, c->nparams), false);
      x64_mov_ri(c->b, RCX, k);
      x64_byte(c->b, 0xF3); x64_byte(c->b, 0x48); x64_byte(c->b, 0xAB);   /* rep stosq */
    }
  }
  for (uint32_t k = 0; k < c->nrl; k++) {
    uint32_t i = c->rl[k];
    if (i < c->nparams) jc_ld(c, c->lreg[i], c->ltype[i], loc(c, i));
    else if (c->lreg[i] >= 16) x64_rm(c->b, 0, false, 0x0F57, 2, c->lreg[i], x64_r(c->lreg[i]), false);
    else x64_mov_ri(c->b, c->lreg[i], 0);
  }
  ctl k0;
  memset(&k0, 0, sizeof k0);
  k0.kind = C_FUNC;
  k0.fix_end = k0.fix_else = -1;
  k0.bt_kind = 2;
  k0.bt = f->type;
  k0.nr = tl_type_arity(m, ft->results);
  k0.fuel_fix = fuel_fix;
  k0.hctx = JEH_NONE;
  jmp_buf jb;
  c->oom = &jb;
  if (setjmp(jb)) {
    c->oom = NULL;
    return tl_nomem(err, "JIT");
  }
  ctl_push(c, k0);
  c->fl = 0;
  while (c->nc && c->p < c->end && !c->bad) {
    uint8_t byte = *c->p++;
    int op;
    if (byte == 0xFC || byte == 0xFD || byte == 0xFE) {
      op = tl_op_decode(byte, (uint32_t)jc_leb(c));
      if (byte == 0xFD && !tl_jit_simd_ok())
        return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                         "SIMD on the JIT needs SSE4.2, which this CPU lacks; use --interp");
    } else {
      op = tl_op_decode(0, byte);
    }
    if (op < 0) return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "JIT: unknown opcode 0x%02x", byte);
    if (c->dead) {
      bool opens = op == TL_OP_BLOCK || op == TL_OP_LOOP || op == TL_OP_IF || op == TL_OP_TRY ||
                   op == TL_OP_TRY_TABLE;
      bool closes = op == TL_OP_END || op == TL_OP_DELEGATE;
      bool arm = op == TL_OP_ELSE || op == TL_OP_CATCH || op == TL_OP_CATCH_ALL;
      if (opens) { skip_imm(c, op); c->dead_depth++; continue; }
      if (closes && c->dead_depth) { skip_imm(c, op); c->dead_depth--; continue; }
      if (arm && c->dead_depth) { skip_imm(c, op); continue; }
      if (!closes && !arm) { skip_imm(c, op); continue; }
    }
    c->cs[c->fl].fuel_n++;
    if (c->fuel && op == TL_OP_END && c->nc == 1) fuel_patch(c, &c->cs[0]);
    op_one(c, op);
  }
  if (c->bad) return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "JIT: %s in function %u", c->why, fi);
  /* trap stubs */
  for (int i = 0; i < JT_NTRAPS; i++) {
    if (c->trap[i] < 0) continue;
    x64_patch(c->b, c->trap[i], c->b->n);
    x64_rm(c->b, 0, true, 0x89, 1, R12, x64_r(RDI), false);
    x64_mov_ri(c->b, RDX, (uint32_t)i);
    emit_call_abs(c, (void *)tl_jit_h_trap);
  }
  emit_pool(c);
  c->oom = NULL;
  if (c->b->oom) return tl_nomem(err, "JIT");
  int32_t frame = (int32_t)(8 * ((uint64_t)c->nls + c->maxh + 8));
  memcpy(c->b->p + frame_fix, &frame, 4);
  if (c->handlers.n && !(c->eh_out = make_tables(c, c->b->n - start))) return tl_nomem(err, "JIT");
  return TL_OK;
}

/* One thread's share: functions [lo, hi) into a buffer of its own; entry
 * offsets and call fixups are relative to it until the parts are joined. */
typedef struct {
  tl_instance *inst;
  uint32_t lo, hi;
  uint32_t *offs;
  x64_buf b;
  tl_vec callfix;
  bool fuel;
  double cpu;              /* this thread's CPU seconds for its share */
  jeh **ehs;               /* per function: its exception tables */
  tl_status st;
  tl_error err;
  tl_oom_ctx scope;        /* the starting thread's */
  struct jc *jc;           /* compile_part's, freed after compile_range */
} part;

static double thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void jc_free(jc *c) {
  tl_vec_free(&c->sites);
  tl_vec_free(&c->handlers);
  tl_vec_free(&c->arms);
  tl_vec_free(&c->clauses);
  tl_vec_free(&c->pool);
  tl_free(c->st);
  tl_free(c->cs);
  tl_free(c->ltype);
  tl_free(c->lreg);
  tl_free(c->lw);
}

static tl_status no_body(uint32_t fi, tl_error *err) {
  return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                   "JIT: function %u has no body bytes (write the module first)", fi);
}

static void compile_range(void *arg) {
  part *pt = arg;
  tl_module *m = pt->inst->m;
  jc *c = pt->jc;            /* compile_part frees it, whatever happens here */
  c->b = &pt->b;
  c->inst = pt->inst;
  c->m = m;
  c->callfix = &pt->callfix;
  c->fuel = pt->fuel;
  for (uint32_t i = pt->lo; i < pt->hi && !pt->st; i++) {
    if (!TL_FUNC(m, i)->code) {
      pt->st = no_body(i, &pt->err);
      break;
    }
    while (pt->b.n & 15) x64_byte(&pt->b, 0x90);
    pt->offs[i] = (uint32_t)pt->b.n;
    pt->st = compile_func(c, i, &pt->err);
    pt->ehs[i] = c->eh_out;
  }
}

/* Out of memory in a part is its TL_E_NOMEM (what it held stays listed
 * for the scope, if one runs). */
static void *compile_part(void *arg) {
  part *pt = arg;
  double t0 = thread_cpu();
  jc c = {0};
  pt->jc = &c;
  if (!tl_oom_worker(&pt->scope, compile_range, pt)) pt->st = tl_nomem(&pt->err, "JIT");
  jc_free(&c);
  pt->cpu = thread_cpu() - t0;
  return NULL;
}

/* Compiling one function on the lazy path: out of memory (a longjmp to
 * tl_oom_worker's) is its TL_E_NOMEM, without leaving C code. */
typedef struct {
  jc *c;
  uint32_t fi;
  tl_error *err;
  tl_status st;
} lazy_call;

static void lazy_run(void *arg) {
  lazy_call *k = arg;
  k->st = compile_func(k->c, k->fi, k->err);
}

tl_status tl_jit_compile_func(tl_instance *inst, uint32_t fi, bool fuel, x64_buf *out,
                              tl_vec *fixes, void **scratch, jeh **eh, tl_error *err) {
  jc *c = *scratch;
  if (!c && !(c = *scratch = tl_calloc(1, sizeof *c)))
    return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  if (!TL_FUNC(inst->m, fi)->code) return no_body(fi, err);
  c->b = out;
  c->inst = inst;
  c->m = inst->m;
  c->callfix = NULL;
  c->lazyfix = fixes;
  c->fuel = fuel;
  while (out->n & 15) x64_byte(out, 0x90);
  lazy_call k = {c, fi, err, TL_E_NOMEM};
  tl_oom_ctx here = tl_oom_here();
  if (!tl_oom_worker(&here, lazy_run, &k)) tl_nomem(err, "JIT");
  tl_status st = k.st;
  *eh = st ? NULL : c->eh_out;
  if (st) tl_free(c->eh_out);
  c->eh_out = NULL;
  return st;
}

void tl_jit_scratch_free(void *scratch) {
  if (!scratch) return;
  jc_free(scratch);
  tl_free(scratch);
}

tl_status tl_jit_compile_module(tl_instance *inst, x64_buf *out, uint32_t *offs, int threads,
                                bool fuel, double *critical, jeh **ehs, tl_error *err) {
  double t0 = thread_cpu();
  tl_module *m = inst->m;
  uint32_t lo = m->nimported_funcs, n = (uint32_t)m->funcs.n;
  uint64_t total = 0;
  for (uint32_t i = lo; i < n; i++) total += TL_FUNC(m, i)->code_size;
  if (threads < 1 || total < 65536) threads = 1;
  if (threads > 64) threads = 64;
  part *parts = tl_scratch_calloc((size_t)threads, sizeof *parts);
  pthread_t tid[64];
  bool started[64] = {false};
  if (!parts) return tl_nomem(err, "JIT");
  uint64_t acc = 0;
  uint32_t at = lo;
  for (int k = 0; k < threads; k++) {       /* contiguous ranges of about equal code size */
    parts[k].inst = inst;
    parts[k].scope = tl_oom_here();
    parts[k].offs = offs;
    parts[k].fuel = fuel;
    parts[k].ehs = ehs;
    parts[k].lo = at;
    uint64_t goal = total * (uint64_t)(k + 1) / (uint64_t)threads;
    while (at < n && (k == threads - 1 || acc < goal)) acc += TL_FUNC(m, at++)->code_size;
    parts[k].hi = at;
  }
  for (int k = 1; k < threads; k++)
    started[k] = pthread_create(&tid[k], NULL, compile_part, &parts[k]) == 0;
  compile_part(&parts[0]);
  for (int k = 1; k < threads; k++) {
    if (started[k]) pthread_join(tid[k], NULL);
    else compile_part(&parts[k]);
  }
  tl_status st = TL_OK;
  for (int k = 0; k < threads && !st; k++)
    if (parts[k].st) {
      st = parts[k].st;
      *err = parts[k].err;
    }
  if (!st && !out->n) {                      /* part 0 becomes the output: no copy */
    size_t total = 0;
    for (int k = 0; k < threads; k++) total = ((total + 15) & ~(size_t)15) + parts[k].b.n;
    tl_free(out->p);
    *out = parts[0].b;
    memset(&parts[0].b, 0, sizeof parts[0].b);
    if (out->cap < total) {
      uint8_t *p = tl_scratch_realloc(out->p, total, 1);
      if (!p) st = tl_nomem(err, "JIT");
      else out->p = p, out->cap = total;
    }
  }
  for (int k = 0; k < threads; k++) {
    part *pt = &parts[k];
    if (!st && pt->b.n) {
      while (out->n & 15) x64_byte(out, 0x90);
      uint32_t base = (uint32_t)out->n;
      for (uint32_t i = pt->lo; i < pt->hi; i++) offs[i] += base;
      for (size_t j = 0; j < pt->callfix.n; j++) TL_VEC_AT(&pt->callfix, uint64_t, j) += base;
      x64_put(out, pt->b.p, pt->b.n);
    }
  }
  for (int k = 0; k < threads; k++) {
    part *pt = &parts[k];
    for (size_t j = 0; !st && j < pt->callfix.n; j++) {
      uint64_t e = TL_VEC_AT(&pt->callfix, uint64_t, j);
      uint32_t fat = (uint32_t)e, fi = (uint32_t)(e >> 32);
      int32_t rel = (int32_t)((int64_t)offs[fi] - (fat + 4));
      memcpy(out->p + fat, &rel, 4);
    }
    tl_vec_free(&pt->callfix);
    tl_free(pt->b.p);
  }
  double busiest = 0, mine = parts[0].cpu;
  for (int k = 0; k < threads; k++)
    if (parts[k].cpu > busiest) busiest = parts[k].cpu;
  for (int k = 1; k < threads; k++)
    if (!started[k]) mine += parts[k].cpu;        /* ran here, after the others */
  if (critical) *critical = thread_cpu() - t0 - mine + busiest;
  tl_free(parts);
  if (!st && out->oom) st = tl_nomem(err, "JIT");
  return st;
}
