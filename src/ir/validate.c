/* validate.c — context-free validation of the IR (seed 002, DESIGN.md "The IR").
 * Each node is checked against its own children and immediates, each branch
 * against its target; nothing looks at a node's parent. A node with an
 * unreachable operand skips its operand type checks (seed 002 rule 3b) and
 * must be unreachable. One iterative walk per function (its own explicit
 * stack) tracks label scopes, the types branches carry and the nodes seen
 * (one parent each), and checks every type is what finalize.c computes.
 * Common nodes take a fast path (plain_ok) that only says "valid"; anything
 * else gets the full checks, so messages come from one place. Reports the
 * first problem through tl_errorf; never recurses on nesting depth.
 * Big modules' bodies are checked on the pass pool (the same first error). */
#include "ir.h"
#include "../passes/passes.h"   /* tl_run_parallel: bodies on the pass pool */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a set of node pointers (every node must have one parent) ---------- */
typedef struct { uintptr_t *slot; size_t cap, n; unsigned shift; } ptrset;

/* Fibonacci hashing: the top bits of the product spread arena neighbours. */
static size_t ptr_hash(const ptrset *s, uintptr_t p) {
  return (size_t)(((uint64_t)p * 0x9E3779B97F4A7C15ull) >> s->shift);
}

static bool ptrset_grow(ptrset *s) {
  size_t cap = s->cap ? s->cap * 2 : 256;
  uintptr_t *slot = tl_calloc(cap, sizeof *slot);
  if (!slot) return false;
  ptrset ns = {slot, cap, s->n, 64};
  for (size_t c = cap; c > 1; c >>= 1) ns.shift--;
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->slot[i]) continue;
    size_t h = ptr_hash(&ns, s->slot[i]);
    while (slot[h]) h = (h + 1) & (cap - 1);
    slot[h] = s->slot[i];
  }
  tl_free(s->slot);
  *s = ns;
  return true;
}

/* An empty set sized for about `hint` pointers (the set may still grow):
 * skips the rehashing of the smaller tables a growing set goes through.
 * false when out of memory. */
static bool ptrset_reserve(ptrset *s, size_t hint) {
  if (s->cap || hint < 128) return true;
  size_t cap = 256;
  while (cap < 2 * hint && cap < ((size_t)1 << 40)) cap *= 2;
  uintptr_t *slot = tl_calloc(cap, sizeof *slot);
  if (!slot) return false;
  *s = (ptrset){slot, cap, 0, 64};
  for (size_t c = cap; c > 1; c >>= 1) s->shift--;
  return true;
}

/* 1 if added, 0 if already there, -1 out of memory. */
static int ptrset_add(ptrset *s, const void *p) {
  if ((s->n + 1) * 2 > s->cap && !ptrset_grow(s)) return -1;
  uintptr_t v = (uintptr_t)p;
  size_t h = ptr_hash(s, v);
  for (; s->slot[h]; h = (h + 1) & (s->cap - 1))
    if (s->slot[h] == v) return 0;
  s->slot[h] = v;
  s->n++;
  return 1;
}

/* ---- context ------------------------------------------------------------ */
typedef struct {
  tl_module *m;
  tl_func *f;           /* NULL in constant expressions */
  uint32_t fidx;        /* TL_NO_FUNC outside functions */
  tl_error *err;
  tl_status st;         /* first error; the walk then skips everything */
  bool const_mode;      /* constant expression: only constant ops */
  bool dead;            /* current node has an unreachable child */
  bool strict;          /* tl_validate_ir: extra consistency checks */
  ptrset *seen;         /* nodes seen outside the run below */
  uintptr_t base, end;  /* seen_add: the body's run of nodes [base, end) */
  uintptr_t next;       /* while the run lasts, where the next node would be; else 0 */
  uint32_t okty;        /* bit t: basic type t is valid with m's features */
  const uint8_t *cls;   /* classify's table for m */
  bool full;            /* const_mode or strict: enter_full for every node */
  const uint8_t *declared; /* functions ref.func may name in a body (C.refs) */
  uint32_t nlabel;
  tl_expr **scope;      /* label -> defining construct while in scope */
  tl_type *bt;          /* label -> type branches carry (unreachable: none yet) */
  uint16_t *bop;        /* label -> op of the first branch that carried bt */
  uint8_t *defined;     /* label -> already defined by a construct */
  uint8_t *catching;    /* label -> a try whose catch arms are being walked
                           (rethrow may name it). Part of the label scratch, not
                           sized by a pre-walk: a body with a cycle (invalid IR)
                           must reach the walk's own sharing check */
  bool cglobals_set;        /* a global's initializer is checked: constant */
  uint32_t cglobals;        /* expressions read only globals below this (3.0) */
} vc;

static bool fail(vc *c, tl_status code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(vc *c, tl_status code, const char *fmt, ...) {
  if (c->st) return false;
  char msg[sizeof c->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  c->st = code;
  if (c->err) {
    tl_errorf(c->err, code, TL_NO_OFFSET, "%s", msg);
    c->err->func_index = c->fidx;
  }
  return false;
}

static const char *opname(const tl_expr *e) { return tl_ops[e->op].text; }
static const char *tn(tl_type t) { return tl_type_name(t); }

static bool type_valid(const tl_module *m, tl_type t) { return tl_type_valid(m, t); }

static bool is_value(const tl_module *m, tl_type t) { /* one value type */
  return tl_type_is_concrete(t) && !tl_type_is_tuple(t) && type_valid(m, t);
}

/* Features a value (or tuple) type needs. */
static tl_features type_feat(const tl_module *m, tl_type t) {
  if (t < TL_NBASIC) /* one basic type (or none): no table look-up */
    return t == TL_V128 ? TL_FEAT_SIMD : t == TL_EXNREF ? TL_FEAT_EXCEPTION_HANDLING
           : tl_type_is_ref(t) ? TL_FEAT_REFERENCE_TYPES : 0;
  return tl_type_features(m, t) | (tl_type_is_tuple(t) ? TL_FEAT_MULTIVALUE : 0);
}

/* Opcode classes (a byte per 10-bit opcode, for m's features): which
 * shortcut of plain_ok applies (K_SLOW: none, or a feature is missing),
 * whether it opens a label, and K_ODD for markers and numbers past the
 * table (enter_full reports them). */
enum {
  K_SLOW, K_FIXED, K_MEMARG, K_LOCAL_GET, K_LOCAL_SET, K_LOCAL_TEE, K_GLOBAL_GET, K_DROP, K_CALL,
  K_BR, K_BR_IF, K_BLOCK, K_IF, K_CLASS = 15, K_CONTROL = 16, K_ODD = 32
};
enum { NOPCODES = 1024 };
_Static_assert((int)TL_NOPS <= (int)NOPCODES, "tl_expr's op indexes the class table");

static void classify(const tl_module *m, uint8_t *cls) {
  for (uint32_t op = 0; op < NOPCODES; op++) {
    if (op >= TL_NOPS) {
      cls[op] = K_ODD;
      continue;
    }
    const tl_opinfo *oi = &tl_ops[op];
    uint8_t k = K_SLOW;
    bool fixed = oi->nops != TL_SIG_SPECIAL;
    if (oi->feat & ~m->features) k = K_SLOW;
    else if (fixed && (oi->imm == TL_IMM_NONE || (oi->imm >= TL_IMM_I32 && oi->imm <= TL_IMM_F64)))
      k = K_FIXED;
    else if (fixed && oi->imm == TL_IMM_MEMARG && !(oi->flags & TL_F_ATOMIC)) k = K_MEMARG;
    else if (op == TL_OP_LOCAL_GET) k = K_LOCAL_GET;
    else if (op == TL_OP_LOCAL_SET) k = K_LOCAL_SET;
    else if (op == TL_OP_LOCAL_TEE) k = K_LOCAL_TEE;
    else if (op == TL_OP_GLOBAL_GET) k = K_GLOBAL_GET;
    else if (op == TL_OP_DROP) k = K_DROP;
    else if (op == TL_OP_CALL) k = K_CALL;
    else if (op == TL_OP_BR) k = K_BR;
    else if (op == TL_OP_BR_IF) k = K_BR_IF;
    else if (op == TL_OP_BLOCK || op == TL_OP_LOOP) k = K_BLOCK;
    else if (op == TL_OP_IF) k = K_IF;
    if (oi->flags & TL_F_CONTROL) k |= K_CONTROL;
    if (oi->flags & (TL_F_MARKER | TL_F_EH)) k |= K_ODD; /* EH: enter_full checks their place */
    cls[op] = k;
  }
}

/* The basic types valid with m's features, as a bit per type (plain_ok). */
static uint32_t ok_types(const tl_module *m) {
  uint32_t ok = 0;
  for (tl_type t = 0; t < TL_NBASIC; t++)
    if (!(type_feat(m, t) & ~m->features)) ok |= 1u << t;
  return ok;
}

static bool need_feat(vc *c, tl_features need, const char *what) {
  tl_features miss = need & ~c->m->features;
  if (!miss) return true;
  tl_features one = miss & (~miss + 1);
  return fail(c, TL_E_FEATURE, "%s requires --enable-%s", what, tl_feature_name(one));
}

static bool in_range(vc *c, const tl_expr *e, uint32_t i, size_t n, const char *what) {
  if (i < n) return true;
  return fail(c, TL_E_INVALID, "%s: %s index %u out of range (%zu)", opname(e), what, i, n);
}

static bool any_kid_unreachable(const tl_expr *e) {
  for (uint32_t i = 0; i < e->nkid; i++)
    if (e->kid[i] && e->kid[i]->type == TL_UNREACHABLE) return true;
  return false;
}

/* ---- operands ----------------------------------------------------------- */
static bool arity(vc *c, const tl_expr *e, uint32_t lo, uint32_t hi) {
  if (e->nkid >= lo && e->nkid <= hi) return true;
  if (lo == hi) return fail(c, TL_E_INVALID, "%s: has %u operands, expected %u", opname(e), e->nkid, lo);
  return fail(c, TL_E_INVALID, "%s: has %u operands, expected %u to %u", opname(e), e->nkid, lo, hi);
}

/* Operand i must have type t. Skipped when the node is dead (has an
 * unreachable operand): seed 002 rule 3b, and valid wasm since the stack
 * is polymorphic after the unreachable operand. */
static bool want(vc *c, const tl_expr *e, uint32_t i, tl_type t) {
  tl_type k = e->kid[i]->type;
  if (c->dead || k == t || k == TL_UNREACHABLE || tl_type_sub(c->m, k, t)) return true;
  return fail(c, TL_E_INVALID, "%s: operand %u has type %s, expected %s", opname(e), i + 1, tn(k),
              tn(t));
}

/* Operands lo.. of e against the components of tuple/value type t. */
static bool want_list(vc *c, const tl_expr *e, uint32_t lo, tl_type t) {
  uint32_t n = tl_type_arity(c->m, t);
  if (!arity(c, e, lo + n, lo + n)) return false;
  for (uint32_t i = 0; i < n; i++)
    if (!want(c, e, lo + i, tl_type_at(c->m, t, i))) return false;
  return true;
}

/* A value operand that must be some concrete type (drop, select, br value). */
static bool want_value(vc *c, const tl_expr *e, uint32_t i) {
  tl_type k = e->kid[i]->type;
  if (k == TL_UNREACHABLE || (tl_type_is_concrete(k) && type_valid(c->m, k))) return true;
  return fail(c, TL_E_INVALID, "%s: operand %u has type %s, expected a value", opname(e), i + 1,
              tn(k));
}

/* ---- immediates --------------------------------------------------------- */
static uint32_t lane_count(const tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  if (oi->imm == TL_IMM_MEMARG_LANE) return 16u >> tl_op_natural_align(e->op);
  const char *x = strchr(oi->text, 'x');
  return x ? (uint32_t)strtoul(x + 1, NULL, 10) : 0;
}

static bool check_memarg(vc *c, const tl_expr *e) {
  const tl_memarg *ma = &e->imm.mem;
  if (!in_range(c, e, ma->mem, c->m->memories.n, "memory")) return false;
  uint64_t off = tl_memarg_offset(c->m, ma);
  if (off > UINT32_MAX && !tl_memory_is64(c->m, ma->mem))
    return fail(c, TL_E_INVALID, "%s: offset %" PRIu64 " out of range for 32-bit memory %u", opname(e), off, ma->mem);
  if (ma->big && ma->offset >= c->m->nbig)
    return fail(c, TL_E_INVALID, "%s: unknown large offset %u", opname(e), ma->offset);
  uint32_t nat = tl_op_natural_align(e->op);
  if (tl_ops[e->op].flags & TL_F_ATOMIC) {
    if (ma->align != nat)
      return fail(c, TL_E_INVALID, "%s: alignment 2**%u must equal the natural 2**%u", opname(e),
                  ma->align, nat);
  } else if (ma->align > nat) {
    return fail(c, TL_E_INVALID, "%s: alignment 2**%u exceeds the natural 2**%u", opname(e),
                ma->align, nat);
  }
  if (tl_ops[e->op].imm == TL_IMM_MEMARG_LANE && ma->lane >= lane_count(e))
    return fail(c, TL_E_INVALID, "%s: lane %u out of range", opname(e), ma->lane);
  return true;
}

static bool same_elem(vc *c, const tl_expr *e, tl_type a, tl_type b) { /* a flows into b */
  if (tl_type_sub(c->m, a, b)) return true;
  return fail(c, TL_E_INVALID, "%s: element type %s does not match %s", opname(e), tn(a), tn(b));
}

static bool check_table_init(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  if (!in_range(c, e, e->imm.idx2.a, m->elems.n, "elem") ||
      !in_range(c, e, e->imm.idx2.b, m->tables.n, "table"))
    return false;
  return same_elem(c, e, tl_elem_type(TL_ELEM(m, e->imm.idx2.a)), TL_TABLE(m, e->imm.idx2.b)->elem);
}

static bool check_table_copy(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  if (!in_range(c, e, e->imm.idx2.a, m->tables.n, "table") ||
      !in_range(c, e, e->imm.idx2.b, m->tables.n, "table"))
    return false;
  return same_elem(c, e, TL_TABLE(m, e->imm.idx2.b)->elem, TL_TABLE(m, e->imm.idx2.a)->elem);
}

static bool check_call_indirect_imm(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  if (!in_range(c, e, e->imm.idx2.a, m->types.n, "type") ||
      !in_range(c, e, e->imm.idx2.b, m->tables.n, "table"))
    return false;
  if (!tl_type_sub(m, TL_TABLE(m, e->imm.idx2.b)->elem, TL_FUNCREF))
    return fail(c, TL_E_INVALID, "%s: table %u is not a funcref table", opname(e), e->imm.idx2.b);
  return true;
}

/* A branch to label l: in scope, and what it carries agrees with the other
 * branches to l (checked against the construct's type at its end). */
static bool check_target(vc *c, const tl_expr *e, uint32_t l) {
  if (l >= c->nlabel)
    return fail(c, TL_E_INVALID, "%s: label %u out of range (%u labels)", opname(e), l, c->nlabel);
  if (!c->scope[l])
    return fail(c, TL_E_INVALID, "%s: label %u is not an enclosing block, loop or if", opname(e), l);
  tl_type vt = tl_branch_value_type(e);
  if (c->scope[l]->op == TL_OP_LOOP) {
    if (vt == TL_NONE || vt == TL_UNREACHABLE) return true;
    return fail(c, TL_E_INVALID, "%s: branch to loop label %u carries %s", opname(e), l, tn(vt));
  }
  if (vt == TL_UNREACHABLE) return true;
  if (c->bt[l] == TL_UNREACHABLE) {
    c->bt[l] = vt;
    c->bop[l] = e->op;
  } else if (c->bt[l] != vt) {
    tl_type lub = tl_type_lub(c->m, c->bt[l], vt); /* subtypes meet at their bound */
    if (!tl_type_sub(c->m, vt, lub) || !tl_type_sub(c->m, c->bt[l], lub))
      return fail(c, TL_E_INVALID, "%s: carries %s to label %u, but %s carries %s", opname(e),
                  tn(vt), l, tl_ops[c->bop[l]].text, tn(c->bt[l]));
    c->bt[l] = lub;
  }
  return true;
}

/* rethrow L: L is a try whose catch arm encloses it. */
static bool check_rethrow(vc *c, const tl_expr *e) {
  uint32_t l = e->imm.label;
  if (l >= c->nlabel)
    return fail(c, TL_E_INVALID, "rethrow: label %u out of range (%u labels)", l, c->nlabel);
  if (!c->scope[l] || c->scope[l]->op != TL_OP_TRY || !c->catching[l])
    return fail(c, TL_E_INVALID, "rethrow: label %u is not an enclosing catch", l);
  return true;
}

/* A catch arm's payload local: none, or one of the tag's params (a single
 * param may go to a local of a supertype, as local.set allows). */
static bool check_payload(vc *c, const tl_expr *e) {
  tl_type p = tl_tag_params(c->m, e->imm.idx2.b);
  uint32_t l = e->imm.idx2.a;
  if (l == TL_NO_INDEX) return true;
  if (!c->f || l >= c->f->nlocal)
    return fail(c, TL_E_INVALID, "catch: payload local %u out of range", l);
  tl_type lt = c->f->local[l];
  if (p == TL_NONE || (lt != p && (tl_type_is_tuple(p) || !tl_type_sub(c->m, p, lt))))
    return fail(c, TL_E_INVALID, "catch: payload local %u has type %s, but tag %u carries %s", l,
                tn(c->f->local[l]), e->imm.idx2.b, tn(p));
  return true;
}

static bool check_imm(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  switch (tl_ops[e->op].imm) {
  case TL_IMM_FUNC:
    if (!in_range(c, e, e->imm.index, m->funcs.n, "function")) return false;
    if (e->op != TL_OP_REF_FUNC || c->const_mode || !c->declared || c->declared[e->imm.index])
      return true;
    return fail(c, TL_E_INVALID, "ref.func: function %u is not declared by an element segment, "
                "export or global", e->imm.index);
  case TL_IMM_CALL_INDIRECT: return check_call_indirect_imm(c, e);
  case TL_IMM_LOCAL: return in_range(c, e, e->imm.index, c->f ? c->f->nlocal : 0, "local");
  case TL_IMM_GLOBAL: return in_range(c, e, e->imm.index, m->globals.n, "global");
  case TL_IMM_TABLE: return in_range(c, e, e->imm.index, m->tables.n, "table");
  case TL_IMM_MEMARG:
  case TL_IMM_MEMARG_LANE: return check_memarg(c, e);
  case TL_IMM_MEM: return in_range(c, e, e->imm.index, m->memories.n, "memory");
  case TL_IMM_MEM_COPY:
    return in_range(c, e, e->imm.idx2.a, m->memories.n, "memory") &&
           in_range(c, e, e->imm.idx2.b, m->memories.n, "memory");
  case TL_IMM_MEM_INIT:
    return in_range(c, e, e->imm.idx2.a, m->datas.n, "data") &&
           in_range(c, e, e->imm.idx2.b, m->memories.n, "memory");
  case TL_IMM_DATA: return in_range(c, e, e->imm.index, m->datas.n, "data");
  case TL_IMM_ELEM: return in_range(c, e, e->imm.index, m->elems.n, "elem");
  case TL_IMM_TABLE_INIT: return check_table_init(c, e);
  case TL_IMM_TABLE_COPY: return check_table_copy(c, e);
  case TL_IMM_LANE:
    if (e->imm.mem.lane < lane_count(e)) return true;
    return fail(c, TL_E_INVALID, "%s: lane %u out of range", opname(e), e->imm.mem.lane);
  case TL_IMM_V128:
    return e->imm.v128 || fail(c, TL_E_INVALID, "%s: no constant bytes", opname(e));
  case TL_IMM_SHUFFLE:
    if (!e->imm.v128) return fail(c, TL_E_INVALID, "%s: no lane indices", opname(e));
    for (int i = 0; i < 16; i++)
      if (e->imm.v128[i] >= 32)
        return fail(c, TL_E_INVALID, "%s: lane index %u out of range", opname(e), e->imm.v128[i]);
    return true;
  case TL_IMM_REFTYPE:
    if (tl_type_is_ref(e->imm.index)) return true;
    return fail(c, TL_E_INVALID, "%s: %u is not a reference type", opname(e), e->imm.index);
  case TL_IMM_SELECT_T:
    if (is_value(m, e->imm.index)) return true;
    return fail(c, TL_E_INVALID, "%s: bad type immediate %u", opname(e), e->imm.index);
  case TL_IMM_LABEL:
    if (e->op == TL_OP_RETHROW) return check_rethrow(c, e);
    if (e->op == TL_OP_DELEGATE) return true; /* enter_full checked it: it needs its try */
    return check_target(c, e, e->imm.label);
  case TL_IMM_TAG: return in_range(c, e, e->imm.index, m->tags.n, "tag");
  case TL_IMM_TYPE: return in_range(c, e, e->imm.index, m->types.n, "type");
  case TL_IMM_CATCH:
    if (!in_range(c, e, e->imm.idx2.b, m->tags.n, "tag")) return false;
    return check_payload(c, e);
  case TL_IMM_CLAUSE:
    if (e->op != TL_OP_TT_CATCH_ALL && e->op != TL_OP_TT_CATCH_ALL_REF &&
        !in_range(c, e, e->imm.idx2.b, m->tags.n, "tag"))
      return false;
    return check_target(c, e, e->imm.label);
  case TL_IMM_BR_TABLE:
    if (!e->imm.table) return fail(c, TL_E_INVALID, "%s: no targets", opname(e));
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      if (!check_target(c, e, e->imm.table->targets[i])) return false;
    return check_target(c, e, e->imm.table->def);
  case TL_IMM_BLOCK:
  case TL_IMM_TRY_TABLE:
    if (e->imm.block.bt == TL_NO_INDEX || e->imm.block.bt < m->types.n) return true;
    return fail(c, TL_E_INVALID, "%s: block type index %u out of range", opname(e),
                e->imm.block.bt);
  default: return true;
  }
}

/* ---- operands of the special-signature ops ----------------------------- */
static bool check_tail(vc *c, const tl_expr *e, tl_type results) {
  if (!c->f) return fail(c, TL_E_INVALID, "%s: outside a function", opname(e));
  tl_type mine = TL_FTYPE(c->m, c->f->type)->results;
  if (tl_type_sub(c->m, results, mine)) return true;
  return fail(c, TL_E_INVALID, "%s: callee results %s differ from the caller's %s", opname(e),
              tn(results), tn(mine));
}

static bool check_calls(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  if (e->op == TL_OP_CALL || e->op == TL_OP_RETURN_CALL) {
    tl_func *callee = TL_FUNC(m, e->imm.index);
    if (callee->type >= m->types.n)
      return fail(c, TL_E_INVALID, "%s: callee %u has a bad type", opname(e), e->imm.index);
    tl_functype *ft = TL_FTYPE(m, callee->type);
    if (!want_list(c, e, 0, ft->params)) return false;
    return e->op == TL_OP_CALL || check_tail(c, e, ft->results);
  }
  bool ref = e->op == TL_OP_CALL_REF || e->op == TL_OP_RETURN_CALL_REF;
  tl_functype *ft = TL_FTYPE(m, ref ? e->imm.index : e->imm.idx2.a);
  if (ft->kind != TL_DT_FUNC) return fail(c, TL_E_INVALID, "%s: not a function type", opname(e));
  uint32_t n = tl_type_arity(m, ft->params);
  if (!arity(c, e, n + 1, n + 1)) return false;
  for (uint32_t i = 0; i < n; i++)
    if (!want(c, e, i, tl_type_at(m, ft->params, i))) return false;
  tl_type last = ref ? tl_ref_def(ft->canon, true) : tl_table_is64(m, e->imm.idx2.b) ? TL_I64 : TL_I32;
  if (!want(c, e, n, last)) return false;
  return e->op == TL_OP_CALL_INDIRECT || e->op == TL_OP_CALL_REF || check_tail(c, e, ft->results);
}

/* A reference operand (i), e.g. of ref.as_non_null and br_on_null. */
static bool want_ref(vc *c, const tl_expr *e, uint32_t i) {
  tl_type t = e->kid[i]->type;
  if (c->dead || tl_type_is_ref(t)) return true;
  return fail(c, TL_E_INVALID, "%s: operand %u has type %s, expected a reference", opname(e), i + 1, tn(t));
}

static bool check_branch(vc *c, const tl_expr *e) {
  if (e->op == TL_OP_BR_ON_NULL || e->op == TL_OP_BR_ON_NON_NULL) return arity(c, e, 1, 1) && want_ref(c, e, 0);
  if (e->op == TL_OP_BR) {
    if (!arity(c, e, 0, 1)) return false;
    return e->nkid == 0 || want_value(c, e, 0);
  }
  if (!arity(c, e, 1, 2)) return false;
  if (e->nkid == 2 && !want_value(c, e, 0)) return false;
  return want(c, e, e->nkid - 1, TL_I32);
}

static bool check_return(vc *c, const tl_expr *e) {
  if (!c->f) return fail(c, TL_E_INVALID, "return: outside a function");
  tl_type r = TL_FTYPE(c->m, c->f->type)->results;
  if (r == TL_NONE) return arity(c, e, 0, 0);
  if (!arity(c, e, 1, 1)) return false;
  return want(c, e, 0, r);
}

static bool check_select(vc *c, const tl_expr *e) {
  if (!arity(c, e, 3, 3) || !want(c, e, 2, TL_I32)) return false;
  if (e->op == TL_OP_SELECT_T)
    return want(c, e, 0, e->imm.index) && want(c, e, 1, e->imm.index);
  if (!want_value(c, e, 0) || !want_value(c, e, 1)) return false;
  tl_type a = e->kid[0]->type, b = e->kid[1]->type;
  if (c->dead) return true;
  if (a != b)
    return fail(c, TL_E_INVALID, "select: operands have types %s and %s", tn(a), tn(b));
  if (tl_type_is_ref(a) || tl_type_is_tuple(a))
    return fail(c, TL_E_INVALID, "select: untyped select of %s needs a type immediate", tn(a));
  return true;
}

static bool check_var(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  switch (e->op) {
  case TL_OP_LOCAL_GET: return arity(c, e, 0, 0);
  case TL_OP_LOCAL_SET:
  case TL_OP_LOCAL_TEE: return arity(c, e, 1, 1) && want(c, e, 0, c->f->local[e->imm.index]);
  case TL_OP_GLOBAL_GET: return arity(c, e, 0, 0);
  default: { /* global.set */
    tl_global *g = TL_GLOBAL(m, e->imm.index);
    if (!g->mut) return fail(c, TL_E_INVALID, "global.set: global %u is immutable", e->imm.index);
    return arity(c, e, 1, 1) && want(c, e, 0, g->type);
  }
  }
}

static bool check_table_op(vc *c, const tl_expr *e) {
  tl_type t = TL_TABLE(c->m, e->imm.index)->elem, it = TL_TABLE(c->m, e->imm.index)->is64 ? TL_I64 : TL_I32;
  switch (e->op) {
  case TL_OP_TABLE_GET: return arity(c, e, 1, 1) && want(c, e, 0, it);
  case TL_OP_TABLE_SET: return arity(c, e, 2, 2) && want(c, e, 0, it) && want(c, e, 1, t);
  case TL_OP_TABLE_GROW: return arity(c, e, 2, 2) && want(c, e, 0, t) && want(c, e, 1, it);
  default: /* table.fill */
    return arity(c, e, 3, 3) && want(c, e, 0, it) && want(c, e, 1, t) && want(c, e, 2, it);
  }
}

static bool check_tuple(vc *c, const tl_expr *e) {
  if (e->op == TL_OP_TUPLE_MAKE) {
    if (e->nkid < 2)
      return fail(c, TL_E_INVALID, "tuple.make: has %u operands, expected 2 or more", e->nkid);
    for (uint32_t i = 0; i < e->nkid && !c->dead; i++) {
      tl_type k = e->kid[i]->type;
      if (k != TL_UNREACHABLE && !is_value(c->m, k))
        return fail(c, TL_E_INVALID, "tuple.make: operand %u has type %s, expected a value",
                    i + 1, tn(k));
    }
    return true;
  }
  if (!arity(c, e, 1, 1)) return false;
  tl_type t = e->kid[0]->type;
  if (t == TL_UNREACHABLE) return true;
  if (!tl_type_is_tuple(t))
    return fail(c, TL_E_INVALID, "tuple.extract: operand has type %s, expected a tuple", tn(t));
  if (e->imm.index >= tl_type_arity(c->m, t))
    return fail(c, TL_E_INVALID, "tuple.extract: index %u out of range (%u)", e->imm.index,
                tl_type_arity(c->m, t));
  return true;
}

/* ---- GC instructions (opcodes_gc.def) ----------------------------------- */
/* Type index x names a type of kind k. */
static bool gc_type(vc *c, const tl_expr *e, uint32_t x, uint8_t k) {
  if (!in_range(c, e, x, c->m->types.n, "type")) return false;
  if (TL_FTYPE(c->m, x)->kind == k) return true;
  return fail(c, TL_E_INVALID, "%s: type %u is not a%s type", opname(e), x, k == TL_DT_STRUCT ? " struct" : "n array");
}

static bool gc_seg(vc *c, const tl_expr *e, uint32_t t, uint32_t seg, bool data) {
  tl_module *m = c->m;
  if (!gc_type(c, e, t, TL_DT_ARRAY)) return false;
  const tl_field *f = &TL_FTYPE(m, t)->fields[0];
  if (data) return in_range(c, e, seg, m->datas.n, "data") &&
                   (!tl_type_is_ref(f->type) || fail(c, TL_E_INVALID, "%s: reference elements", opname(e)));
  if (!in_range(c, e, seg, m->elems.n, "elem")) return false;
  return tl_type_sub(m, TL_ELEM(m, seg)->type, f->type) ||
         fail(c, TL_E_INVALID, "%s: segment type is not the element type", opname(e));
}

static bool gc_mut(vc *c, const tl_expr *e, const tl_field *f) {
  return f->mut || fail(c, TL_E_INVALID, "%s: immutable field or array", opname(e));
}

static bool check_struct_op(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  bool is_new = e->op == TL_OP_STRUCT_NEW || e->op == TL_OP_STRUCT_NEW_DEFAULT;
  uint32_t t = is_new ? e->imm.index : e->imm.idx2.a;
  if (!gc_type(c, e, t, TL_DT_STRUCT)) return false;
  const tl_deftype *d = TL_FTYPE(m, t);
  if (e->op == TL_OP_STRUCT_NEW_DEFAULT) {
    for (uint32_t k = 0; k < d->nfields; k++)
      if (!tl_type_defaultable(d->fields[k].type)) return fail(c, TL_E_INVALID, "%s: field %u has no default", opname(e), k);
    return arity(c, e, 0, 0);
  }
  if (e->op == TL_OP_STRUCT_NEW) {
    if (!arity(c, e, d->nfields, d->nfields)) return false;
    for (uint32_t k = 0; k < d->nfields; k++)
      if (!want(c, e, k, tl_gc_unpacked(&d->fields[k]))) return false;
    return true;
  }
  if (!in_range(c, e, e->imm.idx2.b, d->nfields, "field")) return false;
  const tl_field *f = &d->fields[e->imm.idx2.b];
  tl_type ref = tl_gc_ref_of(m, t, true);
  if (e->op == TL_OP_STRUCT_SET)
    return gc_mut(c, e, f) && arity(c, e, 2, 2) && want(c, e, 0, ref) && want(c, e, 1, tl_gc_unpacked(f));
  if ((e->op == TL_OP_STRUCT_GET) != (f->pack == TL_PACK_NONE))
    return fail(c, TL_E_INVALID, "%s: wrong op for the field's packing", opname(e));
  return arity(c, e, 1, 1) && want(c, e, 0, ref);
}

/* want() of each operand k against w[k]. */
static bool wants(vc *c, const tl_expr *e, const tl_type *w, uint32_t n) {
  if (!arity(c, e, n, n)) return false;
  for (uint32_t k = 0; k < n; k++)
    if (!want(c, e, k, w[k])) return false;
  return true;
}

static bool check_array_op(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  bool two = tl_ops[e->op].imm != TL_IMM_TYPE;
  uint32_t t = two ? e->imm.idx2.a : e->imm.index;
  if (!gc_type(c, e, t, TL_DT_ARRAY)) return false;
  const tl_field *f = &TL_FTYPE(m, t)->fields[0];
  tl_type ref = tl_gc_ref_of(m, t, true), et = tl_gc_unpacked(f);
  switch (e->op) {
  case TL_OP_ARRAY_NEW: { tl_type w[2] = {et, TL_I32}; return wants(c, e, w, 2); }
  case TL_OP_ARRAY_NEW_DEFAULT:
    if (!tl_type_defaultable(f->type)) return fail(c, TL_E_INVALID, "%s: no default element", opname(e));
    return wants(c, e, (tl_type[]){TL_I32}, 1);
  case TL_OP_ARRAY_NEW_FIXED:
    if (!arity(c, e, e->imm.idx2.b, e->imm.idx2.b)) return false;
    for (uint32_t k = 0; k < e->nkid; k++)
      if (!want(c, e, k, et)) return false;
    return true;
  case TL_OP_ARRAY_NEW_DATA: case TL_OP_ARRAY_NEW_ELEM:
    return gc_seg(c, e, t, e->imm.idx2.b, e->op == TL_OP_ARRAY_NEW_DATA) && wants(c, e, (tl_type[]){TL_I32, TL_I32}, 2);
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U:
    if ((e->op == TL_OP_ARRAY_GET) != (f->pack == TL_PACK_NONE))
      return fail(c, TL_E_INVALID, "%s: wrong op for the element's packing", opname(e));
    return wants(c, e, (tl_type[]){ref, TL_I32}, 2);
  case TL_OP_ARRAY_SET: return gc_mut(c, e, f) && wants(c, e, (tl_type[]){ref, TL_I32, et}, 3);
  case TL_OP_ARRAY_FILL: return gc_mut(c, e, f) && wants(c, e, (tl_type[]){ref, TL_I32, et, TL_I32}, 4);
  case TL_OP_ARRAY_COPY: {
    if (!gc_mut(c, e, f) || !gc_type(c, e, e->imm.idx2.b, TL_DT_ARRAY)) return false;
    const tl_field *sf = &TL_FTYPE(m, e->imm.idx2.b)->fields[0];
    if (sf->pack != f->pack || (!f->pack && !tl_type_sub(m, sf->type, f->type)))
      return fail(c, TL_E_INVALID, "array.copy: element types differ");
    return wants(c, e, (tl_type[]){ref, TL_I32, tl_gc_ref_of(m, e->imm.idx2.b, true), TL_I32, TL_I32}, 5);
  }
  default: /* init_data, init_elem */
    return gc_mut(c, e, f) && gc_seg(c, e, t, e->imm.idx2.b, e->op == TL_OP_ARRAY_INIT_DATA) &&
           wants(c, e, (tl_type[]){ref, TL_I32, TL_I32, TL_I32}, 4);
  }
}

/* ref.test/ref.cast/br_on_cast's target type t: a valid reference type, of
 * the operand's hierarchy. */
static bool check_cast(vc *c, const tl_expr *e, tl_type t) {
  if (!tl_type_is_ref(t) || !type_valid(c->m, t))
    return fail(c, TL_E_INVALID, "%s: %u is not a reference type", opname(e), t);
  if (!arity(c, e, 1, 1)) return false;
  return want(c, e, 0, tl_ref(tl_heap_top(c->m, tl_ref_heap(t)), true));
}

/* call_ref/return_call_ref $t: the arguments, then a (ref null $t). */
static bool check_call_ref(vc *c, const tl_expr *e) {
  tl_module *m = c->m;
  uint32_t t = e->imm.index;
  if (!in_range(c, e, t, m->types.n, "type")) return false;
  if (TL_FTYPE(m, t)->kind != TL_DT_FUNC) return fail(c, TL_E_INVALID, "%s: type %u is not a function type", opname(e), t);
  const tl_deftype *d = TL_FTYPE(m, t);
  uint32_t np = tl_type_arity(m, d->params);
  if (!arity(c, e, np + 1, np + 1) || !want(c, e, np, tl_gc_ref_of(m, t, true))) return false;
  for (uint32_t k = 0; k < np; k++)
    if (!want(c, e, k, tl_type_at(m, d->params, k))) return false;
  return e->op == TL_OP_CALL_REF || check_tail(c, e, d->results);
}

/* One operand of a reference type (any, when dead). */
static bool want_one_ref(vc *c, const tl_expr *e) {
  if (!arity(c, e, 1, 1)) return false;
  if (c->dead || tl_type_is_ref(e->kid[0]->type) || e->kid[0]->type == TL_UNREACHABLE) return true;
  return fail(c, TL_E_INVALID, "%s: operand has type %s, expected a reference", opname(e), tn(e->kid[0]->type));
}

static bool check_gc(vc *c, const tl_expr *e) {
  const tl_type eq = tl_ref(TL_HT_EQ, true);
  switch (e->op) {
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: return check_call_ref(c, e);
  case TL_OP_REF_AS_NON_NULL: case TL_OP_BR_ON_NULL: return want_one_ref(c, e);
  case TL_OP_BR_ON_NON_NULL: /* the label takes the reference */
    return want_one_ref(c, e);
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S:
  case TL_OP_STRUCT_GET_U: case TL_OP_STRUCT_SET:
    return check_struct_op(c, e);
  case TL_OP_ARRAY_LEN: return wants(c, e, (tl_type[]){tl_ref(TL_HT_ARRAY, true)}, 1);
  case TL_OP_REF_TEST: case TL_OP_REF_CAST: return check_cast(c, e, e->imm.index);
  case TL_OP_REF_TEST_NULL: case TL_OP_REF_CAST_NULL:
    return fail(c, TL_E_INVALID, "%s: the _NULL rows are binary codes only", opname(e));
  case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL:
    return check_cast(c, e, e->imm.idx2.b) && check_target(c, e, e->imm.label);
  case TL_OP_ANY_CONVERT_EXTERN: return wants(c, e, (tl_type[]){TL_EXTERNREF}, 1);
  case TL_OP_EXTERN_CONVERT_ANY: return wants(c, e, (tl_type[]){tl_ref(TL_HT_ANY, true)}, 1);
  case TL_OP_REF_I31: return wants(c, e, (tl_type[]){TL_I32}, 1);
  case TL_OP_I31_GET_S: case TL_OP_I31_GET_U: return wants(c, e, (tl_type[]){tl_ref(TL_HT_I31, true)}, 1);
  case TL_OP_REF_EQ: return wants(c, e, (tl_type[]){eq, eq}, 2);
  default: return check_array_op(c, e);
  }
}

static bool check_special(vc *c, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_BR: case TL_OP_BR_IF: case TL_OP_BR_TABLE: return check_branch(c, e);
  case TL_OP_RETURN: return check_return(c, e);
  case TL_OP_CALL: case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL:
  case TL_OP_RETURN_CALL_INDIRECT: case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: return check_calls(c, e);
  case TL_OP_BR_ON_NULL: case TL_OP_BR_ON_NON_NULL: return check_branch(c, e);
  case TL_OP_REF_AS_NON_NULL: return arity(c, e, 1, 1) && want_ref(c, e, 0);
  case TL_OP_DROP: return arity(c, e, 1, 1) && want_value(c, e, 0);
  case TL_OP_SELECT: case TL_OP_SELECT_T: return check_select(c, e);
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE:
  case TL_OP_GLOBAL_GET: case TL_OP_GLOBAL_SET: return check_var(c, e);
  case TL_OP_TABLE_GET: case TL_OP_TABLE_SET: case TL_OP_TABLE_GROW:
  case TL_OP_TABLE_FILL: return check_table_op(c, e);
  case TL_OP_REF_NULL: case TL_OP_REF_FUNC: return arity(c, e, 0, 0);
  case TL_OP_REF_IS_NULL:
    if (!arity(c, e, 1, 1)) return false;
    if (c->dead || tl_type_is_ref(e->kid[0]->type)) return true;
    return fail(c, TL_E_INVALID, "ref.is_null: operand has type %s, expected a reference",
                tn(e->kid[0]->type));
  case TL_OP_TUPLE_MAKE: case TL_OP_TUPLE_EXTRACT: return check_tuple(c, e);
  case TL_OP_THROW: return want_list(c, e, 0, tl_tag_params(c->m, e->imm.index));
  case TL_OP_THROW_REF: return arity(c, e, 1, 1) && want(c, e, 0, TL_EXNREF);
  case TL_OP_RETHROW: case TL_OP_DELEGATE: case TL_OP_TT_CATCH: case TL_OP_TT_CATCH_REF:
  case TL_OP_TT_CATCH_ALL: case TL_OP_TT_CATCH_ALL_REF: return arity(c, e, 0, 0);
  case TL_OP_CATCH: case TL_OP_CATCH_ALL:
    if (!arity(c, e, 1, 1)) return false;
    c->dead = false; /* an arm is typed by its handler, unreachable or not */
    return true;
  default:
    if (tl_op_is_gc(e->op)) return check_gc(c, e);
    return fail(c, TL_E_INVALID, "%s: not an IR node", opname(e));
  }
}

/* The type finalize.c gives a non-control node (indices already checked). */
static bool tuple_matches(const tl_module *m, tl_type t, const tl_expr *e) {
  if (!tl_type_is_tuple(t) || !type_valid(m, t) || tl_type_arity(m, t) != e->nkid) return false;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (tl_type_at(m, t, i) != e->kid[i]->type) return false;
  return true;
}

static bool check_plain(vc *c, tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  c->dead = any_kid_unreachable(e);
  if (oi->nops != TL_SIG_SPECIAL && !arity(c, e, oi->nops, oi->nops)) return false;
  if (!check_imm(c, e)) return false;
  if (oi->nops != TL_SIG_SPECIAL) {
    for (uint32_t i = 0; i < oi->nops; i++)
      if (!want(c, e, i, tl_index_operand_type(c->m, e->op, e->imm, i, oi->ops[i]))) return false;
  } else if (!check_special(c, e)) {
    return false;
  }
  if (c->dead) {
    if (e->type == TL_UNREACHABLE) return true;
    return fail(c, TL_E_INVALID, "%s: type %s is stale: an operand is unreachable", opname(e),
                tn(e->type));
  }
  if (e->op == TL_OP_TUPLE_MAKE) {
    if (tuple_matches(c->m, e->type, e)) return true;
    return fail(c, TL_E_INVALID, "tuple.make: type %s is stale", tn(e->type));
  }
  tl_type want_t = tl_expr_natural_type(c->m, c->f, e);
  if (e->type == want_t) return true;
  if (e->type == TL_UNREACHABLE)
    return fail(c, TL_E_INVALID, "%s: type is unreachable but no operand is", opname(e));
  return fail(c, TL_E_INVALID, "%s: type %s is stale, expected %s", opname(e), tn(e->type),
              tn(want_t));
}

/* ---- blocks, loops, ifs ------------------------------------------------- */
/* Instructions of a block or loop: only the last may leave a value (up to
 * the first unreachable one; the writer drops what follows it). */
static bool check_list(vc *c, const tl_expr *e) {
  for (uint32_t i = 0; i + 1 < e->nkid; i++) {
    tl_type t = e->kid[i]->type;
    if (t == TL_UNREACHABLE) break;
    if (t != TL_NONE)
      return fail(c, TL_E_INVALID, "%s: instruction %u has type %s; only the last may leave a value",
                  opname(e), i + 1, tn(t));
  }
  return true;
}

static tl_type list_type(const tl_expr *e) {
  if (any_kid_unreachable(e)) return TL_UNREACHABLE;
  return e->nkid ? e->kid[e->nkid - 1]->type : TL_NONE;
}

static bool branches_agree(vc *c, const tl_expr *e, tl_type bt, tl_type lt) {
  if (bt == TL_UNREACHABLE || tl_type_sub(c->m, bt, lt)) return true;
  uint32_t l = e->imm.block.label;
  return fail(c, TL_E_INVALID, "%s: carries %s to label %u, but the %s yields %s",
              tl_ops[c->bop[l]].text, tn(bt), l, opname(e), tn(lt));
}

static bool stale(vc *c, const tl_expr *e, tl_type want_t) {
  if (e->type == want_t) return true;
  return fail(c, TL_E_INVALID, "%s: type %s is stale, expected %s", opname(e), tn(e->type),
              tn(want_t));
}

static bool check_arm(vc *c, const tl_expr *e, uint32_t i, tl_type lt) {
  tl_type t = e->kid[i]->type;
  if (tl_type_sub(c->m, t, lt)) return true;
  return fail(c, TL_E_INVALID, "if: %s arm has type %s, expected %s", i == 1 ? "then" : "else",
              tn(t), tn(lt));
}

static bool check_if(vc *c, const tl_expr *e, tl_type bt) {
  if (!arity(c, e, 2, 3)) return false;
  tl_type ct = e->kid[0]->type;
  if (ct != TL_I32 && ct != TL_UNREACHABLE)
    return fail(c, TL_E_INVALID, "if: condition has type %s, expected i32", tn(ct));
  bool has_else = e->nkid == 3 && e->kid[2];
  tl_type lt = TL_NONE;
  if (has_else) lt = tl_type_lub(c->m, tl_type_lub(c->m, e->kid[1]->type, e->kid[2]->type), bt);
  if (!branches_agree(c, e, bt, lt) || !check_arm(c, e, 1, lt)) return false;
  if (has_else && !check_arm(c, e, 2, lt)) return false;
  return stale(c, e, ct == TL_UNREACHABLE ? TL_UNREACHABLE : lt);
}

/* try and try_table: kid 0 is the body, then arms or clauses (enter_full
 * checked their kinds and places); the type is the lub of the body, the
 * arms of a try and the branches to its label. */
static bool check_try(vc *c, const tl_expr *e, tl_type bt) {
  if (!arity(c, e, 1, UINT32_MAX)) return false;
  uint32_t l = e->imm.block.label;
  if (l != TL_NO_LABEL) c->catching[l] = 0;
  tl_type lt = e->kid[0]->type;
  bool arms = e->op == TL_OP_TRY;
  for (uint32_t i = 1; arms && i < e->nkid; i++)
    if (e->kid[i]->op != TL_OP_DELEGATE) lt = tl_type_lub(c->m, lt, e->kid[i]->type);
  lt = tl_type_lub(c->m, lt, bt);
  if (!branches_agree(c, e, bt, lt)) return false;
  for (uint32_t i = 0; i < (arms ? e->nkid : 1); i++) {
    tl_type t = e->kid[i]->type;
    if (e->kid[i]->op == TL_OP_DELEGATE || tl_type_sub(c->m, t, lt)) continue;
    return fail(c, TL_E_INVALID, "%s: %s %u has type %s, expected %s", opname(e), i ? "arm" : "body",
                i, tn(t), tn(lt));
  }
  if (!stale(c, e, lt)) return false;
  if (lt == TL_NONE || lt == TL_UNREACHABLE || type_valid(c->m, lt)) return true;
  return fail(c, TL_E_INVALID, "%s: bad type %u", opname(e), lt);
}

static bool check_control(vc *c, tl_expr *e) {
  uint32_t l = e->imm.block.label;
  tl_type bt = l != TL_NO_LABEL ? c->bt[l] : TL_UNREACHABLE;
  if (!check_imm(c, e)) return false;
  if (e->op == TL_OP_IF) return check_if(c, e, bt);
  if (e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE) return check_try(c, e, bt);
  if (!check_list(c, e)) return false;
  tl_type lt = list_type(e);
  if (e->op == TL_OP_LOOP) return stale(c, e, lt);
  tl_type want_t = tl_type_lub(c->m, lt, bt);
  if (!branches_agree(c, e, bt, want_t)) return false;
  if (!stale(c, e, want_t)) return false;
  if (want_t == TL_NONE || want_t == TL_UNREACHABLE || type_valid(c->m, want_t)) return true;
  return fail(c, TL_E_INVALID, "block: bad type %u", want_t);
}

/* ---- the walk ----------------------------------------------------------- */
static bool const_op(vc *c, const tl_expr *e) {
  switch (e->op) {
  case TL_OP_I32_CONST: case TL_OP_I64_CONST: case TL_OP_F32_CONST: case TL_OP_F64_CONST:
  case TL_OP_V128_CONST: case TL_OP_REF_NULL: case TL_OP_REF_FUNC: return true;
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: case TL_OP_ARRAY_NEW: case TL_OP_ARRAY_NEW_DEFAULT:
  case TL_OP_ARRAY_NEW_FIXED: case TL_OP_REF_I31: case TL_OP_ANY_CONVERT_EXTERN: case TL_OP_EXTERN_CONVERT_ANY:
    return need_feat(c, TL_FEAT_GC, opname(e));
  case TL_OP_I32_ADD: case TL_OP_I32_SUB: case TL_OP_I32_MUL:
  case TL_OP_I64_ADD: case TL_OP_I64_SUB: case TL_OP_I64_MUL:
    return need_feat(c, TL_FEAT_EXTENDED_CONST, opname(e) /* in a constant expression */);
  case TL_OP_GLOBAL_GET: {
    tl_module *m = c->m;
    uint32_t g = e->imm.index;
    uint32_t lim = c->cglobals_set ? c->cglobals : (uint32_t)m->globals.n;
    if (g >= lim || g >= m->globals.n)
      return fail(c, TL_E_INVALID, "global.get: global %u in a constant expression is not defined before it", g);
    if (TL_GLOBAL(m, g)->mut)
      return fail(c, TL_E_INVALID, "global.get: global %u in a constant expression is mutable", g);
    /* a defined (immutable) global: WebAssembly 3.0, with GC */
    return g < m->nimported_globals || need_feat(c, TL_FEAT_GC, "global.get of a defined global in a constant expression");
  }
  default: return fail(c, TL_E_INVALID, "%s: not allowed in a constant expression", opname(e));
  }
}

static void open_label(vc *c, tl_expr *e) {
  uint32_t l = e->imm.block.label;
  if (l == TL_NO_LABEL) return;
  if (l >= c->nlabel) {
    fail(c, TL_E_INVALID, "%s: label %u out of range (%u labels)", opname(e), l, c->nlabel);
    return;
  }
  if (c->defined[l]) {
    fail(c, TL_E_INVALID, "%s: label %u is defined by more than one construct", opname(e), l);
    return;
  }
  c->defined[l] = 1;
  c->bt[l] = TL_UNREACHABLE;
  if (e->op != TL_OP_IF) c->scope[l] = e; /* an if's label covers its arms only */
}

/* Nodes seen so far (each must have one parent). A body fresh from
 * tl_nodes_end has its nodes in one array in walk (pre-)order, so while
 * each node entered is the one after the last, the nodes seen are exactly
 * [base, next): no set needed. The first node elsewhere freezes that range
 * (end) and the rest go to the pointer set (as all nodes do in constant
 * expressions and in the strict form, whose set spans the module). */
__attribute__((noinline)) static bool seen_slow(vc *c, const tl_expr *e) {
  uintptr_t a = (uintptr_t)e;
  if (c->next) {
    c->end = c->next;
    c->next = 0;
  }
  int r = a >= c->base && a < c->end ? 0 : 1;
  if (r && !c->seen->cap && c->f && !ptrset_reserve(c->seen, c->f->code_size / 2)) r = -1;
  if (r) r = ptrset_add(c->seen, e);
  if (r < 0) return fail(c, TL_E_NOMEM, "out of memory");
  if (r == 0) return fail(c, TL_E_INVALID, "%s: node appears more than once (shared or cyclic)", opname(e));
  return true;
}

static inline bool seen_add(vc *c, const tl_expr *e) {
  if ((uintptr_t)e != c->next) return seen_slow(c, e);
  c->next += sizeof(tl_expr);
  return true;
}

static bool is_arm(const tl_expr *e) {
  return e->op == TL_OP_CATCH || e->op == TL_OP_CATCH_ALL || e->op == TL_OP_DELEGATE;
}

static bool is_clause(const tl_expr *e) {
  return tl_ops[e->op].imm == TL_IMM_CLAUSE;
}

/* Where exception-handling nodes may stand (ir.h): arms after a try's
 * body (catch_all last; a delegate alone), clauses after a try_table's,
 * whose labels are outside it; a delegate names an enclosing label other
 * than its try's. Entering a catch arm lets rethrows name its try. */
static bool eh_place(vc *c, const tl_expr *e, const tl_expr *p, uint32_t k) {
  bool arm = is_arm(e), clause = is_clause(e);
  if (!c->f && (tl_ops[e->op].flags & TL_F_EH))
    return fail(c, TL_E_INVALID, "%s: outside a function", opname(e));
  if (p && k > 0 && p->op == TL_OP_TRY && !arm)
    return fail(c, TL_E_INVALID, "try: kid %u is %s, expected catch, catch_all or delegate", k, opname(e));
  if (p && k > 0 && p->op == TL_OP_TRY_TABLE && !clause)
    return fail(c, TL_E_INVALID, "try_table: kid %u is %s, expected a catch clause", k, opname(e));
  if (arm && (!p || p->op != TL_OP_TRY || k == 0))
    return fail(c, TL_E_INVALID, "%s: not an arm of a try", opname(e));
  if (clause && (!p || p->op != TL_OP_TRY_TABLE || k == 0))
    return fail(c, TL_E_INVALID, "%s: not a clause of a try_table", opname(e));
  if (e->op == TL_OP_CATCH_ALL && k + 1 != p->nkid)
    return fail(c, TL_E_INVALID, "catch_all: not the last arm of its try");
  uint32_t own = p ? p->imm.block.label : TL_NO_LABEL;
  if (e->op == TL_OP_DELEGATE) {
    uint32_t l = e->imm.label;
    if (p->nkid != 2) return fail(c, TL_E_INVALID, "delegate: its try has other arms");
    if (l >= c->nlabel || !c->scope[l] || l == own)
      return fail(c, TL_E_INVALID, "delegate: label %u is not a label enclosing its try", l);
  }
  if (clause && e->imm.label == own && own != TL_NO_LABEL)
    return fail(c, TL_E_INVALID, "%s: names its own try_table's label %u", opname(e), own);
  if (arm && e->op != TL_OP_DELEGATE && own != TL_NO_LABEL && own < c->nlabel) c->catching[own] = 1;
  return true;
}

/* Before e's kids, the full checks; p is e's parent (NULL at the root)
 * and e its kid k. */
static bool enter_full(vc *c, tl_expr *e, const tl_expr *p, uint32_t k) {
  if (e->op >= TL_NOPS) return fail(c, TL_E_INVALID, "node with bad opcode %u", e->op);
  if (c->strict && e->kcap && (e->kcap > 31 || e->nkid > 1u << e->kcap))
    return fail(c, TL_E_INVALID, "%s: %u kids but capacity class %u", opname(e), e->nkid,
                (unsigned)e->kcap);
  if (!seen_add(c, e)) return false;
  uint32_t fl = tl_ops[e->op].flags;
  if (fl & TL_F_MARKER) return fail(c, TL_E_INVALID, "%s: a marker, not an IR node", opname(e));
  if (c->const_mode) return const_op(c, e);
  if (k && p->op == TL_OP_IF && p->imm.block.label != TL_NO_LABEL)
    c->scope[p->imm.block.label] = (tl_expr *)p;
  if ((fl & TL_F_EH) || (p && (p->op == TL_OP_TRY || p->op == TL_OP_TRY_TABLE)))
    if (!eh_place(c, e, p, k)) return false;
  if (fl & TL_F_CONTROL) open_label(c, e);
  return !c->st;
}

/* enter_full, shortened for a body's ordinary nodes in the common form. */
static inline bool enter(vc *c, tl_expr *e, const tl_expr *p, uint32_t k) {
  if (c->full) return enter_full(c, e, p, k);
  uint8_t cl = c->cls[e->op];
  if (cl & K_ODD) return enter_full(c, e, p, k);
  if (!seen_add(c, e)) return false;
  if (k && p->op == TL_OP_IF && p->imm.block.label != TL_NO_LABEL)
    c->scope[p->imm.block.label] = (tl_expr *)p;
  if (cl & K_CONTROL) open_label(c, e);
  return !c->st;
}

/* After e's kids, the full checks (the first failing one reports). */
static void post(vc *c, tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  /* MVP element segments hold function indices, kept as ref.func items */
  bool mvp_item = c->const_mode && e->op == TL_OP_REF_FUNC;
  if (!mvp_item && !need_feat(c, oi->feat, oi->text)) return;
  if (!type_valid(c->m, e->type)) {
    fail(c, TL_E_INVALID, "%s: bad type %u", opname(e), e->type);
    return;
  }
  if (!mvp_item && !need_feat(c, type_feat(c->m, e->type), oi->text)) return;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (!e->kid[i] && !(e->op == TL_OP_IF && i == 2)) {
      fail(c, TL_E_INVALID, "%s: operand %u is missing", opname(e), i + 1);
      return;
    }
  if (oi->flags & TL_F_CONTROL) {
    if (check_control(c, e) && e->imm.block.label != TL_NO_LABEL)
      c->scope[e->imm.block.label] = NULL;
  } else {
    check_plain(c, e);
  }
}

/* Whether post would find nothing wrong with e, for the common nodes of a
 * body (fixed-signature operators without checked immediates or with a
 * memarg, local and global access, call, drop) whose operands are all
 * reachable; false means "ask post", never "invalid". */
/* A branch that carries nothing may go to label l (check_target's verdict
 * when it is true, and its effect: the first branch sets what l carries). */
static inline bool target_ok(vc *c, uint32_t l, uint16_t op) {
  if (l >= c->nlabel || !c->scope[l]) return false;
  if (c->scope[l]->op == TL_OP_LOOP) return true;
  if (c->bt[l] == TL_UNREACHABLE) {
    c->bt[l] = TL_NONE;
    c->bop[l] = op;
    return true;
  }
  return c->bt[l] == TL_NONE;
}

/* call's operands against the callee's params (no tuple results). */
static inline bool call_ok(const vc *c, const tl_expr *e) {
  const tl_module *m = c->m;
  uint32_t x = e->imm.index;
  if (x >= m->funcs.n || TL_FUNC(m, x)->type >= m->types.n) return false;
  const tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, x)->type);
  tl_type pt = ft->params;
  if (e->type != ft->results) return false;
  if (pt == TL_NONE) return !e->nkid;
  if (pt >= TL_I32 && pt < TL_NBASIC) return e->nkid == 1 && e->kid[0] && e->kid[0]->type == pt;
  if (!tl_type_is_tuple(pt) || pt - TL_TUPLE_BASE >= m->ntuples || e->nkid != tl_type_arity(m, pt))
    return false;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (!e->kid[i] || e->kid[i]->type != tl_type_at(m, pt, i)) return false;
  return true;
}

/* check_control's verdict on a block, loop or if when it is true (and then
 * its effect: the label goes out of scope). */
static bool control_ok(vc *c, const tl_expr *e) {
  uint32_t n = e->nkid, l = e->imm.block.label;
  if (e->imm.block.bt != TL_NO_INDEX && e->imm.block.bt >= c->m->types.n) return false;
  tl_type bt = l != TL_NO_LABEL ? c->bt[l] : TL_UNREACHABLE, want;
  if (e->op == TL_OP_IF) {
    if (n < 2 || n > 3 || !e->kid[0] || !e->kid[1]) return false;
    tl_type ct = e->kid[0]->type, t1 = e->kid[1]->type, lt = TL_NONE;
    bool has_else = n == 3 && e->kid[2];
    tl_type t2 = has_else ? e->kid[2]->type : TL_NONE;
    if (ct != TL_I32 && ct != TL_UNREACHABLE) return false;
    if (has_else) {
      lt = t1 != TL_UNREACHABLE ? t1 : t2;
      if (lt == TL_UNREACHABLE) lt = bt;
    }
    if ((bt != TL_UNREACHABLE && bt != lt) || (t1 != lt && t1 != TL_UNREACHABLE) ||
        (has_else && t2 != lt && t2 != TL_UNREACHABLE))
      return false;
    want = ct == TL_UNREACHABLE ? TL_UNREACHABLE : lt;
  } else {
    bool dead = false; /* only the last may leave a value, up to an unreachable one */
    for (uint32_t i = 0; i < n; i++) {
      const tl_expr *k = e->kid[i];
      if (!k) return false;
      if (k->type == TL_UNREACHABLE) dead = true;
      else if (!dead && i + 1 < n && k->type != TL_NONE) return false;
    }
    want = dead ? TL_UNREACHABLE : n ? e->kid[n - 1]->type : TL_NONE;
    if (e->op == TL_OP_BLOCK) {
      if (want == TL_UNREACHABLE) want = bt;
      else if (bt != TL_UNREACHABLE && bt != want) return false;
    }
  }
  if (e->type != want) return false;
  if (l != TL_NO_LABEL) c->scope[l] = NULL;
  return true;
}

static inline bool plain_ok(vc *c, const tl_expr *e) {
  unsigned cl = c->cls[e->op] & K_CLASS;
  tl_type t = e->type;
  if (cl == K_SLOW || t >= 32 || !(c->okty >> t & 1)) return false;
  const tl_opinfo *oi = &tl_ops[e->op];
  const tl_func *f = c->f;
  uint32_t x = e->imm.index;
  switch (cl) {
  case K_MEMARG:
    if (e->imm.mem.mem >= c->m->memories.n || e->imm.mem.align > tl_op_natural_align(e->op) ||
        e->imm.mem.big)
      return false;
    /* fall through */
  case K_FIXED:
    if (e->nkid != oi->nops) return false;
    for (uint32_t i = 0; i < oi->nops; i++)
      if (!e->kid[i] || e->kid[i]->type != oi->ops[i]) return false;
    return t == (oi->flags & TL_F_NORETURN ? TL_UNREACHABLE : oi->result);
  case K_LOCAL_GET: return !e->nkid && x < f->nlocal && t == f->local[x];
  case K_LOCAL_SET:
  case K_LOCAL_TEE:
    return e->nkid == 1 && e->kid[0] && x < f->nlocal && e->kid[0]->type == f->local[x] &&
           t == (cl == K_LOCAL_SET ? TL_NONE : f->local[x]);
  case K_GLOBAL_GET: return !e->nkid && x < c->m->globals.n && t == TL_GLOBAL(c->m, x)->type;
  case K_DROP:
    return e->nkid == 1 && e->kid[0] && e->kid[0]->type >= TL_I32 &&
           e->kid[0]->type < TL_NBASIC && t == TL_NONE;
  case K_CALL: return call_ok(c, e);
  case K_BR: return !e->nkid && t == TL_UNREACHABLE && target_ok(c, e->imm.label, TL_OP_BR);
  case K_BR_IF:
    return e->nkid == 1 && e->kid[0] && e->kid[0]->type == TL_I32 && t == TL_NONE &&
           target_ok(c, e->imm.label, TL_OP_BR_IF);
  case K_BLOCK:
  case K_IF: return control_ok(c, e);
  default: return false;
  }
}

static inline bool leave(vc *c, tl_expr *e) {
  if (!c->const_mode && plain_ok(c, e)) return true;
  post(c, e);
  return !c->st;
}

/* Pre- and post-order checks of the tree at *root on an explicit stack of
 * (parent, next kid) frames, on the C stack up to VFRAMES deep and on the
 * heap beyond; a leaf is entered and left without a frame. Stops at the
 * first error. */
typedef struct { tl_expr *e; uint32_t next; } vframe;
enum { VFRAMES = 128 };

static tl_status walk(vc *c, tl_expr **root) {
  tl_expr *e = *root;
  if (!e || !enter(c, e, NULL, 0)) return c->st;
  vframe inl[VFRAMES], *st = inl;
  size_t n = 0, cap = VFRAMES;
  uint32_t k = 0; /* e's next kid */
  for (;;) {
    while (k < e->nkid) {
      tl_expr *x = e->kid[k++];
      if (!x) continue;
      if (!enter(c, x, e, k - 1)) goto out;
      if (!x->nkid) {
        if (!leave(c, x)) goto out;
        continue;
      }
      if (n == cap) { /* descend: e and k wait in a frame */
        vframe *q = st == inl ? tl_malloc(2 * cap * sizeof *q) : tl_realloc(st, 2 * cap * sizeof *q);
        if (!q) {
          fail(c, TL_E_NOMEM, "out of memory");
          goto out;
        }
        if (st == inl) memcpy(q, inl, sizeof inl);
        st = q;
        cap *= 2;
      }
      st[n++] = (vframe){e, k};
      e = x;
      k = 0;
    }
    if (!leave(c, e) || !n) break;
    n--;
    e = st[n].e;
    k = st[n].next;
  }
out:
  if (st != inl) tl_free(st);
  return c->st;
}

/* ---- functions ---------------------------------------------------------- */
static bool check_locals(vc *c, tl_func *f) {
  tl_module *m = c->m;
  tl_functype *ft = TL_FTYPE(m, f->type);
  uint32_t np = tl_type_arity(m, ft->params);
  if (f->nlocal < np)
    return fail(c, TL_E_INVALID, "function has %u locals but %u params", f->nlocal, np);
  for (uint32_t i = 0; i < f->nlocal; i++) {
    tl_type t = f->local[i];
    if (!tl_type_is_concrete(t) || !type_valid(m, t))
      return fail(c, TL_E_INVALID, "local %u has bad type %s", i, tn(t));
    if (i < np && t != tl_type_at(m, ft->params, i))
      return fail(c, TL_E_INVALID, "local %u has type %s, but param %u is %s", i, tn(t), i,
                  tn(tl_type_at(m, ft->params, i)));
    if (!need_feat(c, type_feat(m, t) & ~TL_FEAT_MULTIVALUE, "local")) return false;
  }
  return true;
}

static bool check_body(vc *c, tl_func *f) {
  tl_expr *b = f->body;
  if (b->op != TL_OP_BLOCK) return fail(c, TL_E_INVALID, "function body is %s, not a block", opname(b));
  tl_type r = TL_FTYPE(c->m, f->type)->results;
  if (tl_type_sub(c->m, b->type, r)) return true;
  return fail(c, TL_E_INVALID, "block: function body has type %s, expected %s", tn(b->type), tn(r));
}

static tl_status validate_func(tl_module *m, uint32_t fi, ptrset *seen, bool strict,
                               const uint8_t *declared, const uint8_t *cls, tl_error *err) {
  vc c = {.m = m, .fidx = fi, .err = err, .strict = strict, .declared = declared, .cls = cls,
          .full = strict};
  if (fi >= m->funcs.n) {
    fail(&c, TL_E_INVALID, "function index %u out of range", fi);
    return c.st;
  }
  tl_func *f = TL_FUNC(m, fi);
  c.f = f;
  if (f->type >= m->types.n) {
    fail(&c, TL_E_INVALID, "function type index %u out of range", f->type);
    return c.st;
  }
  if (!f->body) return TL_OK; /* import */
  if (!check_locals(&c, f)) return c.st;
  c.seen = seen; /* the ptrset is sized when first used (seen_add) */
  if (!strict) c.base = c.next = (uintptr_t)f->body; /* the strict form's set spans the module */
  c.okty = ok_types(m);
  c.nlabel = f->nlabel;
  /* label scratch: on the stack for most functions, else one malloc */
  enum { LABELS = 32 };
  struct { tl_expr *scope[LABELS]; tl_type bt[LABELS]; uint16_t bop[LABELS]; uint8_t defined[LABELS], catching[LABELS]; } small;
  size_t n = (size_t)f->nlabel + 1;
  void *heap = NULL;
  if (n <= LABELS) {
    c.scope = small.scope;
    c.bt = small.bt;
    c.bop = small.bop;
    c.defined = small.defined;
    c.catching = small.catching;
  } else if ((heap = tl_malloc(n * (sizeof *c.scope + sizeof *c.bt + sizeof *c.bop + 2)))) {
    c.scope = heap;
    c.bt = (tl_type *)(c.scope + n);
    c.bop = (uint16_t *)(c.bt + n);
    c.defined = (uint8_t *)(c.bop + n);
    c.catching = c.defined + n;
  }
  if (n > LABELS && !heap) {
    fail(&c, TL_E_NOMEM, "out of memory");
  } else {
    memset(c.scope, 0, n * sizeof *c.scope);
    memset(c.defined, 0, n);
    memset(c.catching, 0, n);
    if (walk(&c, &f->body) == TL_OK) check_body(&c, f);
  }
  tl_free(heap);
  return c.st;
}

/* Functions named outside function bodies: in exports and in ref.func
 * anywhere in globals and segments. NULL on out-of-memory (check skipped). */
static void mark_ref(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  tl_module *m = w->m;
  if (e->op == TL_OP_REF_FUNC && e->imm.index < m->funcs.n) ((uint8_t *)w->ctx)[e->imm.index] = 1;
}

static void mark_refs(tl_module *m, uint8_t *d, tl_expr *e) {
  if (e) tl_walk_post(m, NULL, &e, mark_ref, d);
}

static uint8_t *declared_funcs(tl_module *m) {
  uint8_t *d = tl_calloc(m->funcs.n + 1, 1);
  if (!d) return NULL;
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    if (x->kind == TL_EXTERN_FUNC && x->index < m->funcs.n) d[x->index] = 1;
  }
  for (uint32_t i = 0; i < m->globals.n; i++) mark_refs(m, d, TL_GLOBAL(m, i)->init);
  for (uint32_t i = 0; i < m->tables.n; i++) mark_refs(m, d, TL_TABLE(m, i)->init);
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *s = TL_ELEM(m, i);
    mark_refs(m, d, s->offset);
    for (uint32_t k = 0; k < s->n; k++) mark_refs(m, d, s->item[k]);
  }
  for (uint32_t i = 0; i < m->datas.n; i++) mark_refs(m, d, TL_DATA(m, i)->offset);
  return d;
}

tl_status tl_validate_func(tl_module *m, uint32_t func_index, tl_error *err) {
  uint8_t *one = tl_calloc(m->funcs.n, 1);
  if (!one) return tl_nomem(err, "validate");
  one[func_index] = 1;
  tl_status s = tl_validate_funcs(m, one, err);
  tl_free(one);
  return s;
}

tl_status tl_validate_funcs(tl_module *m, const uint8_t *which, tl_error *err) {
  ptrset seen = {0};
  uint8_t *declared = declared_funcs(m), cls[NOPCODES];
  classify(m, cls);
  tl_status s = TL_OK;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n && s == TL_OK; i++)
    if ((!which || which[i]) && TL_FUNC(m, i)->body)
      s = validate_func(m, i, &seen, false, declared, cls, err);
  tl_free(declared);
  tl_free(seen.slot);
  return s;
}

/* ---- module ------------------------------------------------------------- */
static bool check_const(vc *c, tl_expr *e, tl_type t, const char *what) {
  if (!e) return fail(c, TL_E_INVALID, "%s: missing constant expression", what);
  c->const_mode = c->full = true;
  c->f = NULL;
  if (walk(c, &e)) return false;
  if (tl_type_sub(c->m, e->type, t)) return true;
  return fail(c, TL_E_INVALID, "%s: constant expression has type %s, expected %s", what,
              tn(e->type), tn(t));
}

static bool check_import(vc *c, const tl_importname *imp, bool imported, const char *what,
                         uint32_t i) {
  if (imported == (imp->module && imp->name)) return true;
  return fail(c, TL_E_INVALID, "%s %u: %s", what, i,
              imported ? "import without a module and name" : "import name on a definition");
}

static bool check_types(vc *c) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < m->types.n; i++) {
    tl_functype *ft = TL_FTYPE(m, i);
    tl_type ts[2] = {ft->params, ft->results};
    for (int k = 0; k < 2; k++) {
      if (ts[k] != TL_NONE && (!tl_type_is_concrete(ts[k]) || !type_valid(m, ts[k])))
        return fail(c, TL_E_INVALID, "type %u: bad %s type %u", i, k ? "result" : "param", ts[k]);
      tl_features need = type_feat(m, ts[k]);
      if (k == 0) need &= ~TL_FEAT_MULTIVALUE; /* several params are MVP */
      if (!need_feat(c, need, "function type")) return false;
    }
    if ((ft->kind != TL_DT_FUNC || ft->open || ft->super != TL_NO_SUPER || ft->nrec != 1) &&
        !need_feat(c, TL_FEAT_GC, "a GC type"))
      return false;
    for (uint32_t k = 0; k < ft->nfields; k++)
      if (!type_valid(m, ft->fields[k].type) || !is_value(m, ft->fields[k].type))
        return fail(c, TL_E_INVALID, "type %u: bad field type", i);
  }
  return true;
}

static bool check_funcs(vc *c) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    bool imported = i < m->nimported_funcs;
    if (f->type >= m->types.n)
      return fail(c, TL_E_INVALID, "function %u: type index %u out of range", i, f->type);
    if (!check_import(c, &f->imp, imported, "function", i)) return false;
    if (imported == tl_func_defined(f))
      return fail(c, TL_E_INVALID, "function %u: %s", i, imported ? "import with a body" : "no body");
  }
  return true;
}

static bool check_limits(vc *c, const char *what, uint32_t i, uint64_t min, uint64_t max,
                         bool has_max, uint64_t limit) {
  if (min > limit) return fail(c, TL_E_INVALID, "%s %u: minimum %llu exceeds %llu", what, i,
                               (unsigned long long)min, (unsigned long long)limit);
  if (has_max && max > limit) return fail(c, TL_E_INVALID, "%s %u: maximum %llu exceeds %llu",
                                          what, i, (unsigned long long)max, (unsigned long long)limit);
  if (has_max && min > max) return fail(c, TL_E_INVALID, "%s %u: minimum exceeds maximum", what, i);
  return true;
}

static bool check_tables(vc *c) {
  tl_module *m = c->m;
  if (m->tables.n > 1 && !need_feat(c, TL_FEAT_REFERENCE_TYPES, "multiple tables")) return false;
  for (uint32_t i = 0; i < m->tables.n; i++) {
    tl_table *t = TL_TABLE(m, i);
    if (!tl_type_is_ref(t->elem))
      return fail(c, TL_E_INVALID, "table %u: element type %s is not a reference", i, tn(t->elem));
    if (!check_import(c, &t->imp, i < m->nimported_tables, "table", i) ||
        !check_limits(c, "table", i, t->min, t->max, t->has_max, t->is64 ? UINT64_MAX : UINT32_MAX))
      return false;
    if (t->is64 && !need_feat(c, TL_FEAT_MEMORY64, "64-bit table")) return false;
    if (t->elem == TL_EXTERNREF && !need_feat(c, TL_FEAT_REFERENCE_TYPES, "externref table"))
      return false;
    bool imported = i < m->nimported_tables;
    if (imported && t->init) return fail(c, TL_E_INVALID, "table %u: import with an initializer", i);
    if (!imported && !t->init && !tl_type_defaultable(t->elem))
      return fail(c, TL_E_INVALID, "table %u: type mismatch: non-nullable elements need an initializer", i);
    if (t->init && !check_const(c, t->init, t->elem, "table initializer")) return false;
  }
  return true;
}

static bool check_memories(vc *c) {
  tl_module *m = c->m;
  if (m->memories.n > 1 && !need_feat(c, TL_FEAT_MULTI_MEMORY, "multiple memories")) return false;
  if (m->memories.n > TL_MAX_MEMORIES) return fail(c, TL_E_INVALID, "more than %u memories", TL_MAX_MEMORIES);
  for (uint32_t i = 0; i < m->memories.n; i++) {
    tl_memory *mem = TL_MEMORY(m, i);
    uint64_t limit = mem->is64 ? (1ull << 48) : 65536;
    if (!check_import(c, &mem->imp, i < m->nimported_memories, "memory", i) ||
        !check_limits(c, "memory", i, mem->min, mem->max, mem->has_max, limit))
      return false;
    if (mem->shared && !mem->has_max)
      return fail(c, TL_E_INVALID, "memory %u: shared memory needs a maximum", i);
    if (mem->is64 && !need_feat(c, TL_FEAT_MEMORY64, "64-bit memory")) return false;
    if (mem->shared && !need_feat(c, TL_FEAT_THREADS, "shared memory")) return false;
  }
  return true;
}

/* Tags: a function type with no results; the feature when there are any. */
static bool check_tags(vc *c) {
  tl_module *m = c->m;
  if (m->tags.n && !need_feat(c, TL_FEAT_EXCEPTION_HANDLING, "tag")) return false;
  for (uint32_t i = 0; i < m->tags.n; i++) {
    tl_tag *t = TL_TAG(m, i);
    if (!check_import(c, &t->imp, i < m->nimported_tags, "tag", i)) return false;
    if (t->type >= m->types.n) return fail(c, TL_E_INVALID, "tag %u: type index %u out of range", i, t->type);
    if (TL_FTYPE(m, t->type)->results != TL_NONE)
      return fail(c, TL_E_INVALID, "tag %u: type %u has results", i, t->type);
  }
  return true;
}

static bool check_globals(vc *c) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < m->globals.n; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    bool imported = i < m->nimported_globals;
    if (!is_value(m, g->type))
      return fail(c, TL_E_INVALID, "global %u: bad type %s", i, tn(g->type));
    if (!need_feat(c, type_feat(m, g->type), "global") ||
        !check_import(c, &g->imp, imported, "global", i))
      return false;
    if (imported && g->mut && !need_feat(c, TL_FEAT_MUTABLE_GLOBALS, "imported mutable global"))
      return false;
    if (imported != !g->init)
      return fail(c, TL_E_INVALID, "global %u: %s", i, imported ? "import with an initializer" : "no initializer");
    c->cglobals_set = true, c->cglobals = i; /* it reads the globals before it */
    bool ok = imported || check_const(c, g->init, g->type, "global");
    c->cglobals_set = false;
    if (!ok) return false;
  }
  return true;
}

/* Orders exports by name bytes (names may hold NULs; see tl_name_len). */
static int cmp_name(const void *a, const void *b) {
  const tl_export *x = *(const tl_export *const *)a, *y = *(const tl_export *const *)b;
  uint32_t xn = tl_name_len(x->name, x->name_len), yn = tl_name_len(y->name, y->name_len);
  int r = memcmp(x->name ? x->name : "", y->name ? y->name : "", xn < yn ? xn : yn);
  return r ? r : (xn > yn) - (xn < yn);
}

static bool check_exports(vc *c) {
  tl_module *m = c->m;
  size_t lim[5] = {m->funcs.n, m->tables.n, m->memories.n, m->globals.n, m->tags.n};
  const tl_export **names = tl_malloc((m->exports.n + 1) * sizeof *names);
  if (!names) return fail(c, TL_E_NOMEM, "out of memory");
  for (uint32_t i = 0; i < m->exports.n && !c->st; i++) {
    tl_export *x = TL_EXPORT(m, i);
    names[i] = x;
    if (!x->name) fail(c, TL_E_INVALID, "export %u: no name", i);
    else if (x->kind > TL_EXTERN_TAG) fail(c, TL_E_INVALID, "export %u: bad kind %u", i, x->kind);
    else if (x->index >= lim[x->kind])
      fail(c, TL_E_INVALID, "export \"%s\": index %u out of range", x->name, x->index);
    else if (x->kind == TL_EXTERN_GLOBAL && TL_GLOBAL(m, x->index)->mut)
      need_feat(c, TL_FEAT_MUTABLE_GLOBALS, "exported mutable global");
  }
  /* The reader already rejects duplicates, so only the debug form checks
   * uniqueness here (comparing bytes: names may hold NULs). */
  if (!c->st && c->strict && m->exports.n > 1) {
    qsort(names, m->exports.n, sizeof *names, cmp_name);
    for (size_t i = 1; i < m->exports.n && !c->st; i++)
      if (!cmp_name(&names[i - 1], &names[i]))
        fail(c, TL_E_INVALID, "duplicate export name \"%s\"", names[i]->name);
  }
  tl_free(names);
  return !c->st;
}

static bool check_start(vc *c) {
  tl_module *m = c->m;
  if (!m->has_start) return true;
  if (m->start >= m->funcs.n) return fail(c, TL_E_INVALID, "start function %u out of range", m->start);
  tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, m->start)->type);
  if (ft->params != TL_NONE || ft->results != TL_NONE)
    return fail(c, TL_E_INVALID, "start function %u must have type [] -> []", m->start);
  return true;
}

static bool check_elems(vc *c) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *s = TL_ELEM(m, i);
    if (!tl_type_is_ref(s->type))
      return fail(c, TL_E_INVALID, "elem %u: element type %s is not a reference", i, tn(s->type));
    if (s->mode > TL_SEG_DECLARATIVE) return fail(c, TL_E_INVALID, "elem %u: bad mode", i);
    if (s->mode == TL_SEG_ACTIVE) {
      if (s->table >= m->tables.n)
        return fail(c, TL_E_INVALID, "elem %u: table index %u out of range", i, s->table);
      if (!tl_type_sub(m, tl_elem_type(s), TL_TABLE(m, s->table)->elem))
        return fail(c, TL_E_INVALID, "elem %u: type %s does not match table %u", i, tn(s->type), s->table);
      if (!check_const(c, s->offset, tl_table_is64(m, s->table) ? TL_I64 : TL_I32, "elem offset")) return false;
    }
    for (uint32_t k = 0; k < s->n; k++)
      if (!check_const(c, s->item[k], s->type, "elem item")) return false;
  }
  return true;
}

static bool check_datas(vc *c) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    if (d->mode == TL_SEG_PASSIVE) continue;
    if (d->mode != TL_SEG_ACTIVE) return fail(c, TL_E_INVALID, "data %u: bad mode", i);
    if (d->mem >= m->memories.n)
      return fail(c, TL_E_INVALID, "data %u: memory index %u out of range", i, d->mem);
    tl_type at = TL_MEMORY(m, d->mem)->is64 ? TL_I64 : TL_I32;
    if (!check_const(c, d->offset, at, "data offset")) return false;
  }
  return true;
}

/* ---- functions on the pass pool ------------------------------------------ */
/* Bodies are validated in parallel when there is enough of them (each with
 * its own node set: the non-strict check is per function); the first
 * failing function by index is validated again to report, so the error is
 * the serial one whatever the scheduling. */
bool tl_module_has_nodes(const tl_module *m, uint64_t want) {
  uint64_t n = 0;
  size_t cap = 256, sp = 0;
  const tl_expr **st = tl_scratch_realloc(NULL, cap, sizeof *st);
  if (!st) return false;
  for (size_t i = m->nimported_funcs; i < m->funcs.n && n < want; i++) {
    if (!(st[0] = TL_FUNC(m, i)->body)) continue;
    for (sp = 1; sp && n < want;) {
      const tl_expr *e = st[--sp];
      n++;
      if (sp + e->nkid > cap) {
        size_t nc = 2 * cap > sp + e->nkid ? 2 * cap : sp + e->nkid;
        const tl_expr **q = tl_scratch_realloc(st, nc, sizeof *st);
        if (!q) {
          tl_free(st);
          return false;
        }
        st = q;
        cap = nc;
      }
      for (uint32_t k = 0; k < e->nkid; k++)
        if (e->kid[k]) st[sp++] = e->kid[k];
    }
  }
  tl_free(st);
  return n >= want;
}


typedef struct {
  tl_module *m;
  const uint8_t *declared;
  const uint8_t *cls;   /* classify's table */
  uint8_t *bad;         /* per defined function: validation failed */
} par_job;

static void par_one(void *user, uint32_t k) {
  par_job *j = user;
  ptrset seen = {0};
  uint32_t i = j->m->nimported_funcs + k;
  j->bad[k] = validate_func(j->m, i, &seen, false, j->declared, j->cls, NULL) != TL_OK;
  tl_free(seen.slot);
}

/* -1: not worth it (run serially); else the status of the bodies. */
static int validate_parallel(tl_module *m, const uint8_t *declared, const uint8_t *cls,
                             tl_error *err) {
  uint32_t n = (uint32_t)m->funcs.n - m->nimported_funcs;
  if (n < 2 || m->arena.lock || !tl_module_has_nodes(m, TL_PAR_MIN_NODES)) return -1;
  par_job j = {m, declared, cls, tl_calloc(n, 1)};
  if (!j.bad) return -1;
  tl_pass_options po = {.threads = m->threads};
  tl_pass_ctx ctx = {.m = m, .opt = &po};
  tl_run_parallel(&ctx, n, par_one, &j);
  tl_status st = TL_OK;
  for (uint32_t k = 0; k < n && !st; k++) {
    if (!j.bad[k]) continue;
    ptrset seen = {0};
    st = validate_func(m, m->nimported_funcs + k, &seen, false, declared, cls, err);
    tl_free(seen.slot);
  }
  tl_free(j.bad);
  return (int)st;
}

static tl_status validate(tl_module *m, tl_error *err, bool strict) {
  ptrset seen = {0};
  uint8_t cls[NOPCODES];
  classify(m, cls);
  vc c = {.m = m, .fidx = TL_NO_FUNC, .err = err, .seen = &seen, .strict = strict, .cls = cls,
          .full = true};
  bool ok = check_types(&c) && check_funcs(&c) && check_tables(&c) && check_memories(&c) && check_tags(&c) &&
            check_globals(&c) && check_exports(&c) && check_start(&c) && check_elems(&c) &&
            check_datas(&c);
  uint8_t *declared = ok ? declared_funcs(m) : NULL;
  int par = ok && !strict ? validate_parallel(m, declared, cls, err) : -1;
  if (par >= 0) {
    c.st = (tl_status)par;
    ok = false;
  }
  for (uint32_t i = m->nimported_funcs; ok && i < m->funcs.n; i++) {
    if (!strict) { /* a fresh set per function: clearing a big one costs more */
      tl_free(seen.slot);
      seen = (ptrset){0};
    }
    c.st = validate_func(m, i, &seen, strict, declared, cls, err);
    ok = c.st == TL_OK;
  }
  tl_free(declared);
  tl_free(seen.slot);
  return c.st;
}

tl_status tl_validate_module(tl_module *m, tl_error *err) { return validate(m, err, false); }

/* Debug form (Binaryen validateBinaryenIR): additionally no node is shared
 * between functions or constant expressions, and kid arrays are consistent. */
tl_status tl_validate_ir(tl_module *m, tl_error *err) { return validate(m, err, true); }
