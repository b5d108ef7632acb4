/* pick_load_signs.c — pick-load-signs: a local set from a narrow load
 * (i32.load8/16, i64.load8/16/32) whose every read is a sign extension or a
 * zero-extending mask of the loaded width gets the load signedness that
 * makes those reads cheaper (sign extensions cost more, as in wasm-opt).
 * When every write of the local (not a param) is such a load, the reads'
 * extensions of the chosen kind are identities and are removed here too
 * (a catch arm's payload counts as a write that is not a load).
 * Assumes: valid IR with up-to-date types. Guarantees: the same behaviour;
 * two linear walks; no types change. */
#include "passes.h"

#include <stdlib.h>

typedef struct {
  uint32_t total, sgn, uns;  /* reads; reads under a sign / zero extension */
  uint8_t sbits, ubits;      /* the extension width seen (0xff: mixed) */
  uint32_t nset, nload;      /* writes; writes of a narrow load */
  uint8_t lbits;             /* load width (0xff: mixed) */
  int8_t pick;               /* -1 undecided, 0 unsigned, 1 signed */
} usage;

typedef struct {
  usage *u;
  uint32_t nparams;
} pls_ctx;

/* Width of a narrow load (0 if op is not one) and whether it is signed. */
static unsigned load_bits(uint16_t op, bool *sgn) {
  switch (op) {
  case TL_OP_I32_LOAD8_S: case TL_OP_I64_LOAD8_S: *sgn = true; return 8;
  case TL_OP_I32_LOAD8_U: case TL_OP_I64_LOAD8_U: *sgn = false; return 8;
  case TL_OP_I32_LOAD16_S: case TL_OP_I64_LOAD16_S: *sgn = true; return 16;
  case TL_OP_I32_LOAD16_U: case TL_OP_I64_LOAD16_U: *sgn = false; return 16;
  case TL_OP_I64_LOAD32_S: *sgn = true; return 32;
  case TL_OP_I64_LOAD32_U: *sgn = false; return 32;
  default: return 0;
  }
}

static uint16_t flip_load(uint16_t op) {
  switch (op) {
  case TL_OP_I32_LOAD8_S: return TL_OP_I32_LOAD8_U;
  case TL_OP_I32_LOAD8_U: return TL_OP_I32_LOAD8_S;
  case TL_OP_I32_LOAD16_S: return TL_OP_I32_LOAD16_U;
  case TL_OP_I32_LOAD16_U: return TL_OP_I32_LOAD16_S;
  case TL_OP_I64_LOAD8_S: return TL_OP_I64_LOAD8_U;
  case TL_OP_I64_LOAD8_U: return TL_OP_I64_LOAD8_S;
  case TL_OP_I64_LOAD16_S: return TL_OP_I64_LOAD16_U;
  case TL_OP_I64_LOAD16_U: return TL_OP_I64_LOAD16_S;
  case TL_OP_I64_LOAD32_S: return TL_OP_I64_LOAD32_U;
  default: return TL_OP_I64_LOAD32_S;
  }
}

static bool const_val(const tl_expr *e, uint64_t *v) {
  if (e->op == TL_OP_I32_CONST) *v = (uint32_t)e->imm.i32;
  else if (e->op == TL_OP_I64_CONST) *v = (uint64_t)e->imm.i64;
  else return false;
  return true;
}

static bool is_shift(const tl_expr *e, uint16_t op32, uint16_t op64, uint64_t *k) {
  return (e->op == op32 || e->op == op64) && const_val(e->kid[1], k);
}

/* If e extends its operand x from `bits` (sign: *sgn), returns x. Forms:
 * extendN_s, shr_s(shl(x, K), K), and(x, 2^N-1) / and(2^N-1, x). */
static tl_expr *ext_of(tl_expr *e, unsigned *bits, bool *sgn) {
  unsigned w = e->type == TL_I64 ? 64 : 32;
  uint64_t k, k2;
  switch (e->op) {
  case TL_OP_I32_EXTEND8_S: case TL_OP_I64_EXTEND8_S: *bits = 8; *sgn = true; return e->kid[0];
  case TL_OP_I32_EXTEND16_S: case TL_OP_I64_EXTEND16_S: *bits = 16; *sgn = true; return e->kid[0];
  case TL_OP_I64_EXTEND32_S: *bits = 32; *sgn = true; return e->kid[0];
  case TL_OP_I32_SHR_S: case TL_OP_I64_SHR_S:
    if (!const_val(e->kid[1], &k) || !is_shift(e->kid[0], TL_OP_I32_SHL, TL_OP_I64_SHL, &k2))
      return NULL;
    if (k != k2 || (w - k != 8 && w - k != 16 && w - k != 32) || k == 0) return NULL;
    *bits = (unsigned)(w - k);
    *sgn = true;
    return e->kid[0]->kid[0];
  case TL_OP_I32_AND: case TL_OP_I64_AND:
    for (int i = 0; i < 2; i++) {
      if (!const_val(e->kid[i], &k)) continue;
      if (k == 0xff) *bits = 8;
      else if (k == 0xffff) *bits = 16;
      else if (k == 0xffffffffu && w == 64) *bits = 32;
      else return NULL;
      *sgn = false;
      return e->kid[1 - i];
    }
    return NULL;
  default:
    return NULL;
  }
}

static void note_bits(uint8_t *have, unsigned bits) {
  *have = *have == 0 || *have == bits ? (uint8_t)bits : 0xff;
}

/* A read is extended when the extension right above it (its parent:
 * extend, and; or grandparent: shr_s over shl) has it as operand; the
 * extension, visited after its operands, counts it. */
static void scan(tl_walk *w, tl_expr **slot) {
  pls_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOCAL_GET) {
    c->u[e->imm.index].total++;
  } else if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) {
    usage *u = &c->u[e->imm.index];
    bool sgn;
    unsigned bits = load_bits(e->kid[0]->op, &sgn);
    u->nset++;
    if (e->op == TL_OP_LOCAL_TEE) u->total++; /* the tee's value is a read we cannot see */
    if (bits) u->nload++, note_bits(&u->lbits, bits);
  } else if (e->op == TL_OP_CATCH && e->imm.idx2.a != TL_NO_INDEX) {
    c->u[e->imm.idx2.a].nset++; /* a caught value: a write that is no load */
  } else if (e->nkid) {
    unsigned bits;
    bool sgn;
    tl_expr *x = ext_of(e, &bits, &sgn);
    if (!x || x->op != TL_OP_LOCAL_GET) return;
    usage *u = &c->u[x->imm.index];
    if (sgn) u->sgn++, note_bits(&u->sbits, bits);
    else u->uns++, note_bits(&u->ubits, bits);
  }
}

static void flip(tl_walk *w, tl_expr **slot) {
  pls_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) {
    usage *u = &c->u[e->imm.index];
    bool sgn;
    if (u->pick < 0 || !load_bits(e->kid[0]->op, &sgn)) return;
    if (sgn != (u->pick == 1)) e->kid[0]->op = flip_load(e->kid[0]->op);
    return;
  }
  /* An extension of a local whose every write already extends that way. */
  unsigned bits;
  bool sgn;
  tl_expr *x = ext_of(e, &bits, &sgn);
  if (!x || x->op != TL_OP_LOCAL_GET) return;
  usage *u = &c->u[x->imm.index];
  if (u->pick < 0 || x->imm.index < c->nparams || u->nload != u->nset || u->lbits != bits ||
      sgn != (u->pick == 1))
    return;
  *slot = x;
}

static void decide(usage *u) {
  u->pick = -1;
  if (!u->nload || !u->total || u->lbits == 0xff || u->total != u->sgn + u->uns) return;
  if ((u->sgn && u->sbits != u->lbits) || (u->uns && u->ubits != u->lbits)) return;
  /* A sign extension is two shifts and two constants (or one extend8_s
   * when sign-ext is on): still at least as dear as one mask. */
  u->pick = u->sgn * 2 >= u->uns ? 1 : 0;
}

tl_status tl_pass_pick_load_signs(tl_pass_ctx *ctx, tl_func *f) {
  pls_ctx c = {tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(usage)), tl_func_nparams(ctx->m, f)};
  if (!c.u) return tl_nomem(ctx->err, "pick-load-signs");
  tl_walk_post(ctx->m, f, &f->body, scan, &c);
  bool any = false;
  for (uint32_t i = 0; i < f->nlocal; i++) {
    decide(&c.u[i]);
    any |= c.u[i].pick >= 0;
  }
  if (any) {
    tl_walk w = {0};
    w.m = ctx->m;
    w.f = f;
    w.ctx = &c;
    w.post = flip;
    tl_walk_run(&w, &f->body);
  }
  tl_free(c.u);
  return TL_OK;
}
