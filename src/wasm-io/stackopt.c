/* stackopt.c — write-time optimization of a function's stack code (what
 * Binaryen calls Stack IR), on when tl_write_options.optimize_stack is set.
 * The body the frame machine wrote is decoded into a linear array of
 * instructions with their stack effects and branch targets as construct
 * ids, then: dead code after br/return/unreachable goes, blocks and loops
 * nothing branches to lose their block/end, and a local.set whose value the
 * stack can carry to the one local.get that reads it is dropped with that
 * get (or becomes a tee when some other get can read the set: per pair,
 * as Binaryen's local2Stack, by a bounded walk of the control flow); nops go. Branch
 * depths are re-encoded. With label names (-g) constructs stay as written. Linear in the body size; a body it cannot model is left as
 * written. Assumes the body is the writer's own valid output. Decoding
 * notes what the later steps will find (dead code, blocks nothing branches
 * to, unreachables), so a step with nothing to do is skipped; the arrays
 * live in a wr_so scratch reused from function to function. A body with
 * exception handling is not modelled (its opcodes are special-signature
 * rows decode_one refuses), so it is left as written. */
#include "writer.h"

#include <stdlib.h>
#include <string.h>

enum { DEAD = 1, TEE = 2, GONE = 4 };   /* GONE: the end of a removed block */
#define NO_ID UINT32_MAX   /* the function's own label; also "none" */
#define NUL UINT32_MAX     /* an ordinary value on the modelled stack */

typedef struct {
  uint32_t off, len;    /* the instruction's bytes in the body */
  uint16_t op;
  uint8_t flags;        /* DEAD, TEE */
  uint32_t pop, push;   /* values taken and left (begin of a construct: 0, 0) */
  uint32_t a;           /* local index; construct begin: its end; end/else: its begin */
  uint32_t t, nt;       /* branches: targets[t .. t+nt), construct ids (NO_ID: function);
                           an if: its else (0: none) */
  uint32_t res;         /* construct begin: its result count */
  uint32_t nbr;         /* construct begin: live branches to it; when encoding, its depth slot */
  uint32_t noff;        /* where encode put it */
} ins;

/* Scratch kept from one function to the next (one per writer or worker). */
struct wr_so {
  tl_vec ins;           /* ins */
  tl_vec targets;       /* uint32_t */
  tl_vec open;          /* uint32_t: construct begins */
  tl_vec vals, nulls, bases, work, st, cut;   /* the steps' stacks */
  uint32_t *loc;        /* 4 x nloc: per local gets, last, cand, lastget */
  size_t nloc;
  uint32_t *seen;       /* nseen: sole_reader's stamps */
  size_t nseen;
  uint32_t stamp;
  tl_buf out;           /* the encoded body, swapped with the input */
};

typedef struct {
  wr *w;
  wr_so *x;
  const uint8_t *p, *end, *start;
  uint32_t nres;        /* the function's result count */
  uint32_t nlocal;      /* the function's locals (params included) */
  uint32_t *gets;       /* per local: live local.gets of it */
  uint32_t nset;        /* local.sets */
  bool nop;             /* a nop (encode drops it) */
  bool changed;         /* an instruction goes (or becomes a tee) */
  uint32_t after_nr;    /* 1 + the last instruction that does not fall through (nops after it
                           included); UINT32_MAX: none */
  bool need_dce;        /* an instruction other than end/else follows one that does not fall through */
  bool unbranched;      /* a block or loop nothing branches to */
  bool unreach;         /* an unreachable */
} so;

#define I(s, k) (&TL_VEC_AT(&(s)->x->ins, ins, (k)))

/* ---- decoding ------------------------------------------------------------------- */
/* One-byte opcodes: op + 1, 0 for none (as tl_op_decode, inline). */
static const uint16_t byte_op[256 + TL_NOPS] = {
#define OP(id, text, pfx, code, ...) [(pfx) == 0 ? (code) : 256 + TL_OP_##id] = TL_OP_##id + 1,
#include "../ir/opcodes.def"
#undef OP
};

static bool rd_u32(so *s, uint32_t *v) {
  if (s->p < s->end && *s->p < 0x80) {
    *v = *s->p++;
    return true;
  }
  size_t n = tl_leb_read_u32(s->p, s->end, v);
  s->p += n;
  return n;
}

static bool skip_leb(so *s) {
  for (int i = 0; i < 10 && s->p < s->end; i++)
    if (!(*s->p++ & 0x80)) return true;
  return false;
}

static bool skip(so *s, size_t n) {
  if ((size_t)(s->end - s->p) < n) return false;
  s->p += n;
  return true;
}

static void arity(so *s, tl_type params, tl_type results, uint32_t extra, ins *x) {
  x->pop = tl_type_arity(s->w->m, params) + extra;
  x->push = tl_type_arity(s->w->m, results);
}

/* Block type: its result count; false for a type with params. */
static bool blocktype(so *s, uint32_t *res) {
  int64_t v;
  size_t n = tl_leb_read_s33(s->p, s->end, &v);
  if (!n) return false;
  s->p += n;
  if (v < 0) {
    *res = v == -64 ? 0 : 1;
    if (v == -28 || v == -29) { /* (ref ht), (ref null ht): the heap type follows */
      n = tl_leb_read_s33(s->p, s->end, &v);
      s->p += n;
      return n != 0;
    }
    return true;
  }
  tl_module *m = s->w->m;
  if ((uint64_t)v < m->types.n) {
    if (TL_FTYPE(m, v)->params != TL_NONE) return false;
    *res = tl_type_arity(m, TL_FTYPE(m, v)->results);
    return true;
  }
  uint64_t k = (uint64_t)v - m->types.n;
  if (k >= s->w->extra.n) return false;
  *res = tl_type_arity(m, TL_VEC_AT(&s->w->extra, tl_type, k));
  return true;
}

/* A branch depth as a construct id; its value count in *k. */
static bool target(so *s, uint32_t *k) {
  uint32_t d, id;
  tl_vec *open = &s->x->open;
  if (!rd_u32(s, &d) || d > open->n) return false;
  id = d == open->n ? NO_ID : TL_VEC_AT(open, uint32_t, open->n - 1 - d);
  TL_VEC_PUSH(&s->x->targets, uint32_t, id);
  if (id == NO_ID) {
    *k = s->nres;
    return true;
  }
  ins *c = I(s, id);
  c->nbr++;
  *k = c->op == TL_OP_LOOP ? 0 : c->res;
  return true;
}

static bool calltype(so *s, ins *x, bool indirect) {
  tl_module *m = s->w->m;
  uint32_t idx, table;
  if (!rd_u32(s, &idx)) return false;
  if (indirect) {
    if (!rd_u32(s, &table) || idx >= m->types.n) return false;
    arity(s, TL_FTYPE(m, idx)->params, TL_FTYPE(m, idx)->results, 1, x);
    return true;
  }
  if (idx >= m->funcs.n) return false;
  tl_functype *ft = tl_func_type(m, TL_FUNC(m, idx));
  arity(s, ft->params, ft->results, 0, x);
  return true;
}

/* Immediates that only need skipping. */
static bool skip_imm(so *s, int op) {
  uint32_t n;
  switch (tl_ops[op].imm) {
  case TL_IMM_NONE: return true;
  case TL_IMM_FUNC: case TL_IMM_GLOBAL: case TL_IMM_TABLE: case TL_IMM_MEM:
  case TL_IMM_DATA: case TL_IMM_ELEM: case TL_IMM_I32: case TL_IMM_I64: case TL_IMM_TYPE:
    return skip_leb(s);
  case TL_IMM_CALL_INDIRECT: case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT:
  case TL_IMM_TABLE_INIT: case TL_IMM_TABLE_COPY: case TL_IMM_MEMARG:
    return skip_leb(s) && skip_leb(s);
  case TL_IMM_MEMARG_LANE: return skip_leb(s) && skip_leb(s) && skip(s, 1);
  case TL_IMM_REFTYPE: return skip_leb(s); /* a heap type: an s33 */
  case TL_IMM_LANE: case TL_IMM_FENCE: return skip(s, 1);
  case TL_IMM_F32: return skip(s, 4);
  case TL_IMM_F64: return skip(s, 8);
  case TL_IMM_V128: case TL_IMM_SHUFFLE: return skip(s, 16);
  case TL_IMM_SELECT_T: /* one type: a byte, or (ref null? ht) */
    if (!rd_u32(s, &n) || n != 1 || s->p >= s->end) return false;
    if (*s->p != 0x63 && *s->p != 0x64) return skip(s, 1);
    return skip(s, 1) && skip_leb(s);
  default: return false;
  }
}

/* The instruction at here does not fall through if op does not. */
static void noreturn(so *s, const tl_opinfo *oi, uint32_t here) {
  if (oi->flags & TL_F_NORETURN) s->after_nr = here + 1;
}

/* Stack effect and immediates of one instruction at s->p. */
static bool decode_one(so *s, ins *x) {
  uint8_t b = *s->p++;
  uint32_t code = b, k = 0, n;
  int op;
  if (b >= 0xFB && b <= 0xFE) {
    if (!rd_u32(s, &code)) return false;
    op = tl_op_decode(b, code);
  } else {
    op = byte_op[b] - 1;
  }
  if (op < 0) return false;
  x->op = (uint16_t)op;
  tl_vec *open = &s->x->open;
  uint32_t here = (uint32_t)s->x->ins.n;
  const tl_opinfo *oi = &tl_ops[op];
  switch (op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_IF:
    if (!blocktype(s, &x->res)) return false;
    x->pop = op == TL_OP_IF;
    TL_VEC_PUSH(open, uint32_t, here);
    return true;
  case TL_OP_ELSE:
    if (!open->n) return false;
    x->a = TL_VEC_AT(open, uint32_t, open->n - 1);
    I(s, x->a)->t = here;
    return true;
  case TL_OP_END: {
    if (!open->n) {
      x->a = NO_ID;
      return s->p == s->end;   /* the function's end is the last byte */
    }
    x->a = TL_VEC_AT(open, uint32_t, --open->n);
    ins *c = I(s, x->a);
    x->push = c->res;
    c->a = here;
    if ((c->op == TL_OP_BLOCK || c->op == TL_OP_LOOP) && !c->nbr) s->unbranched = true;
    return true;
  }
  case TL_OP_BR: case TL_OP_BR_IF:
    x->t = (uint32_t)s->x->targets.n, x->nt = 1;
    if (!target(s, &k)) return false;
    x->pop = k + (op == TL_OP_BR_IF);
    x->push = op == TL_OP_BR_IF ? k : 0;
    noreturn(s, oi, here);
    return true;
  case TL_OP_BR_TABLE:
    if (!rd_u32(s, &n) || n > (size_t)(s->end - s->p)) return false;
    x->t = (uint32_t)s->x->targets.n, x->nt = n + 1;
    for (uint32_t i = 0; i <= n; i++)
      if (!target(s, &k)) return false;
    x->pop = k + 1;
    noreturn(s, oi, here);
    return true;
  case TL_OP_RETURN: x->pop = s->nres; noreturn(s, oi, here); return true;
  case TL_OP_CALL: case TL_OP_RETURN_CALL:
    noreturn(s, oi, here);
    return calltype(s, x, false);
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT:
    noreturn(s, oi, here);
    return calltype(s, x, true);
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE:
    if (!rd_u32(s, &x->a) || x->a >= s->nlocal) return false;
    if (op == TL_OP_LOCAL_GET) s->gets[x->a]++;
    else s->nset += op == TL_OP_LOCAL_SET;
    x->pop = op != TL_OP_LOCAL_GET;
    x->push = op != TL_OP_LOCAL_SET;
    return true;
  case TL_OP_DROP: case TL_OP_GLOBAL_SET: x->pop = 1; break;
  case TL_OP_SELECT: case TL_OP_SELECT_T: x->pop = 3, x->push = 1; break;
  case TL_OP_GLOBAL_GET: case TL_OP_REF_NULL: x->push = 1; break;
  case TL_OP_TABLE_GET: case TL_OP_REF_IS_NULL: x->pop = 1, x->push = 1; break;
  case TL_OP_TABLE_SET: x->pop = 2; break;
  case TL_OP_TABLE_GROW: x->pop = 2, x->push = 1; break;
  case TL_OP_TABLE_FILL: x->pop = 3; break;
  default:
    if (oi->nops == TL_SIG_SPECIAL || oi->pfx == 0xFF) return false;
    x->pop = oi->nops;
    x->push = oi->result != TL_NONE;
    if (oi->flags & TL_F_NORETURN) {
      s->after_nr = here + 1;
      s->unreach |= op == TL_OP_UNREACHABLE;
    }
    break;
  }
  return skip_imm(s, op);
}

static bool decode(so *s) {
  tl_vec *v = &s->x->ins;
  while (s->p < s->end) {
    if (v->n >= v->cap) tl_vec_grow(v, sizeof(ins), v->n + 1);
    ins *x = &TL_VEC_AT(v, ins, v->n);
    memset(x, 0, sizeof *x);
    x->off = (uint32_t)(s->p - s->start);
    if (!decode_one(s, x)) return false;
    x->len = (uint32_t)(s->p - s->start) - x->off;
    uint16_t op = x->op;
    if (op == TL_OP_NOP) {
      x->flags = DEAD;
      s->nop = true;
      if (s->after_nr == v->n) s->after_nr++;
    } else if (s->after_nr == v->n && op != TL_OP_END && op != TL_OP_ELSE) {
      s->need_dce = true;
    }
    v->n++;
  }
  return s->x->open.n == 0 && v->n && I(s, v->n - 1)->op == TL_OP_END;
}

/* ---- dead code -------------------------------------------------------------------- */
/* x goes: the counts of live branches and gets forget it. */
static void kill(so *s, ins *x) {
  x->flags |= DEAD;
  s->changed = true;
  for (uint32_t j = 0; j < x->nt; j++) {
    uint32_t t = TL_VEC_AT(&s->x->targets, uint32_t, x->t + j);
    if (t != NO_ID) I(s, t)->nbr--;
  }
  if (x->op == TL_OP_LOCAL_GET) s->gets[x->a]--;
}

/* After an instruction that does not fall through, everything up to the
 * end or else of the same construct is unreachable. */
static void dce(so *s) {
  uint32_t depth = 0;
  bool off = false;
  for (size_t i = 0; i < s->x->ins.n; i++) {
    ins *x = I(s, i);
    if (x->flags & DEAD) continue;
    if (!off) {
      off = tl_ops[x->op].flags & TL_F_NORETURN;
      continue;
    }
    if ((x->op == TL_OP_END || x->op == TL_OP_ELSE) && depth == 0) {
      off = false;
      continue;
    }
    if (tl_ops[x->op].flags & TL_F_CONTROL) depth++;
    else if (x->op == TL_OP_END) depth--;
    kill(s, x);
  }
}

/* ---- unneeded blocks ---------------------------------------------------------------- */
/* A block or loop no branch targets is its contents: nothing can leave it
 * early, and its contents may use the enclosing stack as they like. True
 * when dce() has work again: a removed end that followed an instruction
 * which does not fall through (what comes after the end is dead now). */
static bool remove_blocks(so *s) {
  bool nr = false, again = false;
  for (size_t i = 0; i < s->x->ins.n; i++) {
    ins *x = I(s, i);
    if (x->flags & DEAD) {
      again |= (x->flags & GONE) && nr;
      continue;
    }
    if ((x->op == TL_OP_BLOCK || x->op == TL_OP_LOOP) && !x->nbr) {
      s->changed = true;
      x->flags |= DEAD;
      I(s, x->a)->flags |= DEAD | GONE;
      continue;
    }
    nr = tl_ops[x->op].flags & TL_F_NORETURN;
  }
  return again;
}

/* ---- unneeded unreachables ------------------------------------------------------------ */
/* The writer puts an `unreachable` after a construct whose end is never
 * reached (its IR type is unreachable) so what follows may use a
 * polymorphic stack. When that point is really unreachable (nothing falls
 * off the construct's end or branches to it) and what follows is the end or
 * else of a construct with no results whose stack is empty there, the
 * stack types without it: it goes. Needs dce() first (nothing but end/else
 * follows an unreachable). */
typedef struct {
  uint32_t id, base, res;
  bool live_in, fall, has_else;
} uframe;

static void drop_unreachables(so *s) {
  tl_vec *st = &s->x->st, *cut = &s->x->cut;   /* uframe; uint32_t: unreachables to drop */
  st->n = cut->n = 0;
  uint32_t h = 0, n = (uint32_t)s->x->ins.n;
  uframe *top = NULL;   /* the innermost frame; base and res: its own, or the function's */
  uint32_t base = 0, res = s->nres;
  bool live = true, ok = true;
  for (uint32_t i = 0; ok && i < n; i++) {
    ins *x = I(s, i);
    if (x->flags & DEAD) continue;
    switch (x->op) {
    case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_IF: {
      if (h - base < x->pop) ok = false;
      h -= x->pop;
      uframe fr = {i, h, x->res, live, false, false};
      TL_VEC_PUSH(st, uframe, fr);
      top = &TL_VEC_AT(st, uframe, st->n - 1);
      base = h, res = x->res;
      break;
    }
    case TL_OP_ELSE:
      if (!top) { ok = false; break; }
      top->fall |= live;
      top->has_else = true;
      live = top->live_in;
      h = base;
      break;
    case TL_OP_END:
      if (x->a == NO_ID) break;
      if (!top) { ok = false; break; }
      top->fall |= live || (I(s, top->id)->op == TL_OP_IF && !top->has_else && top->live_in);
      live = top->fall || (I(s, top->id)->op != TL_OP_LOOP && I(s, top->id)->nbr);
      h = base + x->push;
      top = --st->n ? &TL_VEC_AT(st, uframe, st->n - 1) : NULL;
      base = top ? top->base : 0, res = top ? top->res : s->nres;
      break;
    case TL_OP_UNREACHABLE:
      if (!live && h == base && res == 0) TL_VEC_PUSH(cut, uint32_t, i);
      live = false;
      break;
    default:
      if (h - base < x->pop) ok = false;
      h += x->push - x->pop;
      if (tl_ops[x->op].flags & TL_F_NORETURN) live = false;
      break;
    }
  }
  for (size_t k = 0; ok && k < cut->n; k++) I(s, TL_VEC_AT(cut, uint32_t, k))->flags |= DEAD;
  s->changed |= ok && cut->n;
}

/* ---- local.set/local.get pairs -------------------------------------------------------- */
/* A model of the value stack in which an entry is either an ordinary value
 * (NUL) or a local.set that could leave its value there instead (its
 * index). Consuming a value first discards the sets above it: their value
 * would be in the way. A local.get of x matches x's set if that set is
 * above the top ordinary value of the current construct and is the last
 * write of x before the get (so the get reads it): the set's value then
 * simply stays on the stack, and the entry becomes ordinary. Sets above it
 * stay candidates: they are pushed after it and read before it is used. */
typedef struct {
  tl_vec vals;      /* uint32_t: NUL or a set's index */
  tl_vec nulls;     /* uint32_t: positions of the NUL entries, ascending */
  tl_vec bases;     /* uint32_t: vals.n where each open construct starts */
  uint32_t base;
} model;

#define V(md, k) TL_VEC_AT(&(md)->vals, uint32_t, (k))

static void truncate_to(model *md, uint32_t n) {
  md->vals.n = n;
  while (md->nulls.n && TL_VEC_AT(&md->nulls, uint32_t, md->nulls.n - 1) >= n) md->nulls.n--;
}

static bool consume(model *md, uint32_t k) {
  while (k--) {
    while (md->vals.n > md->base && V(md, md->vals.n - 1) != NUL) md->vals.n--;
    if (md->vals.n == md->base) return false;   /* would pop below the construct */
    md->vals.n--;
    md->nulls.n--;
  }
  return true;
}

static void push_values(model *md, uint32_t k) {
  if (md->vals.n + k > md->vals.cap) tl_vec_grow(&md->vals, sizeof(uint32_t), md->vals.n + k);
  if (md->nulls.n + k > md->nulls.cap) tl_vec_grow(&md->nulls, sizeof(uint32_t), md->nulls.n + k);
  uint32_t *v = md->vals.p, *u = md->nulls.p;
  while (k--) {
    u[md->nulls.n++] = (uint32_t)md->vals.n;
    v[md->vals.n++] = NUL;
  }
}

/* Whether no local.get of x other than g (which the set at index from
 * reaches in straight line) can read the value set at from: every path
 * out of from meets a write of x or leaves the function first. Paths are
 * walked over the instruction array (a branch goes to its block's end or
 * its loop's start, an if to both arms); *budget bounds the steps taken
 * over the whole function, and running out answers false. */
static bool sole_reader(so *s, uint32_t from, uint32_t g, uint32_t *seen, uint32_t stamp,
                        tl_vec *work, uint32_t *budget) {
  const uint32_t plain = ~(uint32_t)(TL_F_CONTROL | TL_F_MARKER | TL_F_BRANCH | TL_F_NORETURN |
                                     TL_F_READS_LOCAL | TL_F_WRITES_LOCAL);
  uint32_t x = I(s, from)->a, n = (uint32_t)s->x->ins.n;
  ins *all = s->x->ins.p;
  work->n = 0;
  TL_VEC_PUSH(work, uint32_t, from + 1);
  while (work->n) {
    uint32_t i = TL_VEC_AT(work, uint32_t, --work->n);
    for (;;) {
      if (i >= n || seen[i] == stamp) break;
      if (!*budget) return false;
      --*budget;
      seen[i] = stamp;
      ins *y = &all[i];
      uint16_t op = y->op;
      if (!(tl_ops[op].flags & ~plain)) {   /* none of the cases below */
        i++;
        continue;
      }
      if ((y->flags & DEAD) && (op == TL_OP_BLOCK || op == TL_OP_LOOP || op == TL_OP_END ||
                                op == TL_OP_NOP)) {
        i++;   /* a removed construct's begin/end, or a nop */
        continue;
      }
      if (op == TL_OP_LOCAL_GET && y->a == x) {
        if (i != g) return false;
      } else if ((op == TL_OP_LOCAL_SET || op == TL_OP_LOCAL_TEE) && y->a == x) {
        break;
      }
      for (uint32_t j = 0; j < y->nt; j++) {
        uint32_t t = TL_VEC_AT(&s->x->targets, uint32_t, y->t + j);
        if (t == NO_ID) continue;
        TL_VEC_PUSH(work, uint32_t, I(s, t)->op == TL_OP_LOOP ? t + 1 : I(s, t)->a);
      }
      if (op == TL_OP_IF) {
        uint32_t e = y->t;   /* its else, or 0 */
        TL_VEC_PUSH(work, uint32_t, e ? e + 1 : y->a);
      } else if (op == TL_OP_ELSE) {
        i = I(s, y->a)->a;
        continue;
      } else if (op == TL_OP_END && y->a == NO_ID) {
        break;
      } else if (op == TL_OP_BR || op == TL_OP_BR_TABLE || (tl_ops[op].flags & TL_F_NORETURN)) {
        break;
      }
      i++;
    }
  }
  return true;
}

/* Makes room for n locals' four arrays and for the stamps of n2
 * instructions (zeroed when they move); false when out of memory. */
static bool reserve(wr_so *x, size_t n, size_t n2) {
  if (n > x->nloc) {
    uint32_t *p = tl_scratch_realloc(x->loc, 4 * n, sizeof *p);
    if (!p) return false;
    x->loc = p, x->nloc = n;
  }
  if (n2 > x->nseen) {
    uint32_t *p = tl_scratch_realloc(x->seen, n2, sizeof *p);
    if (!p) return false;
    memset(p, 0, n2 * sizeof *p);
    x->seen = p, x->nseen = n2, x->stamp = 0;
  }
  return true;
}

/* False when the body cannot be modelled, or out of memory: the body is
 * then written as it is (valid, only less optimized). s->gets holds the
 * live gets of each local (decode counts them, dce forgets dead ones); an
 * if's else is in its t. */
static bool local2stack(so *s) {
  uint32_t n = s->nlocal, *gets = s->gets, *last = gets + n, *cand = last + n, *lastget = cand + n;
  size_t ni = s->x->ins.n;
  for (uint32_t l = 0; l < n; l++) last[l] = cand[l] = lastget[l] = NO_ID;
  /* per pair: the last get of each local so far */
  uint32_t *seen = NULL, stamp = s->x->stamp,
           budget = (uint32_t)(ni < (1u << 20) ? 16 * ni + 4096 : 16u << 20);
  tl_vec work = s->x->work;
  model md = {s->x->vals, s->x->nulls, s->x->bases, 0};
  md.vals.n = md.nulls.n = md.bases.n = work.n = 0;
  bool ok = true;
  for (uint32_t i = 0; ok && i < ni; i++) {
    ins *x = I(s, i);
    if (x->flags & DEAD) continue;
    switch (x->op) {
    case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_IF:
      ok = consume(&md, x->pop);
      TL_VEC_PUSH(&md.bases, uint32_t, md.base);
      md.base = (uint32_t)md.vals.n;
      break;
    case TL_OP_ELSE: truncate_to(&md, md.base); break;
    case TL_OP_END:
      if (x->a == NO_ID) break;
      truncate_to(&md, md.base);
      md.base = TL_VEC_AT(&md.bases, uint32_t, --md.bases.n);
      push_values(&md, x->push);
      break;
    case TL_OP_LOCAL_SET:
      ok = consume(&md, 1);
      last[x->a] = i;
      cand[x->a] = (uint32_t)md.vals.n;
      TL_VEC_PUSH(&md.vals, uint32_t, i);
      break;
    case TL_OP_LOCAL_TEE:
      ok = consume(&md, 1);
      last[x->a] = i;
      push_values(&md, 1);
      break;
    case TL_OP_LOCAL_GET: {
      uint32_t c = cand[x->a], top = md.nulls.n ? TL_VEC_AT(&md.nulls, uint32_t, md.nulls.n - 1) : 0;
      if (c != NO_ID && c >= md.base && c < md.vals.n && V(&md, c) == last[x->a] &&
          (!md.nulls.n || top < c)) {
        uint32_t si = V(&md, c);
        ins *set = I(s, si);
        bool only = gets[x->a] == 1;
        if (!only && (lastget[x->a] == NO_ID || lastget[x->a] < si)) {
          if (!seen) {
            if (!reserve(s->x, 0, ni)) {
              ok = false;
              break;
            }
            seen = s->x->seen;
          }
          if (stamp == UINT32_MAX) {   /* stamps wrap: start afresh */
            memset(seen, 0, s->x->nseen * sizeof *seen);
            stamp = 0;
          }
          only = sole_reader(s, si, i, seen, ++stamp, &work, &budget);
        }
        set->flags |= only ? DEAD : TEE;
        s->changed = true;
        x->flags |= DEAD;
        V(&md, c) = NUL;
        TL_VEC_PUSH(&md.nulls, uint32_t, c);
        cand[x->a] = NO_ID;
      } else {
        push_values(&md, 1);
      }
      lastget[x->a] = i;
      break;
    }
    default:
      ok = consume(&md, x->pop);
      if (tl_ops[x->op].flags & TL_F_NORETURN) truncate_to(&md, md.base);
      else push_values(&md, x->push);
      break;
    }
  }
  s->x->stamp = stamp;
  s->x->work = work;
  s->x->vals = md.vals;
  s->x->nulls = md.nulls;
  s->x->bases = md.bases;
  return ok;
}

/* ---- encoding ---------------------------------------------------------------------- */
/* Into s->x->out. Runs of instructions kept as they are (most of them) are
 * copied at once. */
static void encode(so *s) {
  tl_buf *out = &s->x->out;
  tl_vec *open = &s->x->open;   /* uint32_t: kept construct begins (empty after decode) */
  uint32_t from = 0, to = 0;    /* a run of bytes to copy */
  out->n = open->n = 0;
  if (out->cap < (size_t)(s->end - s->start)) tl_buf_grow(out, (size_t)(s->end - s->start));
  for (size_t i = 0; i < s->x->ins.n; i++) {
    ins *x = I(s, i);
    if (x->flags & DEAD) continue;
    const uint8_t *b = s->start + x->off;
    if (!x->nt && !(x->flags & TEE)) {
      if (x->off != to) {
        tl_buf_put(out, s->start + from, to - from);
        from = x->off;
      }
      x->noff = (uint32_t)out->n + (x->off - from);
      to = x->off + x->len;
      if (tl_ops[x->op].flags & TL_F_CONTROL) {
        x->nbr = (uint32_t)open->n;   /* from here on: its position in open */
        TL_VEC_PUSH(open, uint32_t, (uint32_t)i);
      } else if (x->op == TL_OP_END && x->a != NO_ID) {
        open->n--;
      }
      continue;
    }
    tl_buf_put(out, s->start + from, to - from);
    from = to = x->off + x->len;
    x->noff = (uint32_t)out->n;
    if (x->nt) {
      tl_buf_byte(out, b[0]);
      if (x->op == TL_OP_BR_TABLE) wr_u32(out, x->nt - 1);
      for (uint32_t j = 0; j < x->nt; j++) {
        uint32_t t = TL_VEC_AT(&s->x->targets, uint32_t, x->t + j), d = (uint32_t)open->n;
        if (t != NO_ID) d = (uint32_t)open->n - 1 - I(s, t)->nbr;
        wr_u32(out, d);
      }
    } else {
      tl_buf_byte(out, 0x22);
      tl_buf_put(out, b + 1, x->len - 1);
    }
  }
  tl_buf_put(out, s->start + from, to - from);
}

void wr_so_free(wr_so *x) {
  if (!x) return;
  tl_vec *v[] = {&x->ins, &x->targets, &x->open, &x->vals, &x->nulls, &x->bases, &x->work, &x->st, &x->cut};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) tl_vec_free(v[i]);
  tl_free(x->loc);
  tl_free(x->seen);
  tl_buf_free(&x->out);
  tl_free(x);
}

/* The function's debug locations (offsets in the body as written) follow
 * their instructions to where encode put them; those of removed ones go. */
static void move_locations(so *s, tl_vec *locs) {
  size_t k = 0, i = 0, n = s->x->ins.n;
  for (size_t j = 0; j < locs->n; j++) {
    tl_srcmap_entry e = TL_VEC_AT(locs, tl_srcmap_entry, j);
    while (i < n && I(s, i)->off < e.offset) i++;
    if (i == n || I(s, i)->off != e.offset || (I(s, i)->flags & DEAD)) continue;
    e.offset = I(s, i)->noff;
    TL_VEC_AT(locs, tl_srcmap_entry, k++) = e;
  }
  locs->n = k;
}

tl_status wr_stack_opt(wr *w, tl_buf *body) {
  if (!w->so && !(w->so = tl_scratch_calloc(1, sizeof *w->so))) return TL_OK;   /* left as written */
  wr_so *x = w->so;
  so s = {.w = w, .x = x, .p = body->p, .end = body->p + body->n, .start = body->p,
          .after_nr = UINT32_MAX};
  s.nres = tl_type_arity(w->m, tl_func_type(w->m, w->f)->results);
  s.nlocal = w->base[w->f->nlocal] + (uint32_t)w->stypes.n;
  x->ins.n = x->targets.n = x->open.n = 0;
  if (x->ins.cap < body->n / 2) tl_vec_grow(&x->ins, sizeof(ins), body->n / 2);
  if (!reserve(x, s.nlocal + 1, 0)) return TL_OK;   /* (+ 1: never NULL) */
  s.gets = x->loc;
  memset(s.gets, 0, s.nlocal * sizeof *s.gets);
  bool ok = decode(&s);
  if (ok && !w->opt->debug_names) {   /* label names count the constructs as written */
    if (s.need_dce) dce(&s);
    if ((s.need_dce || s.unbranched) && remove_blocks(&s)) dce(&s);
    if (s.unreach) drop_unreachables(&s);
  }
  if (ok && !s.nset && !s.changed && !s.nop) return TL_OK;   /* nothing to change */
  if (ok) ok = local2stack(&s);
  if (ok && (s.changed || s.nop)) {   /* else encode would give the body back */
    encode(&s);
    tl_buf t = *body;
    *body = x->out;
    x->out = t;
    if (w->locs.n) move_locations(&s, &w->locs);
  }
  return TL_OK;
}
