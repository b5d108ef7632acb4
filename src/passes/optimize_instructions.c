/* optimize_instructions.c — the peephole pass: integer algebraic
 * identities, constants to the right of commutative ops and compares, eqz
 * of compares flipped, boolean contexts (if/br_if/select/eqz conditions)
 * stripped of `!= 0` and double eqz, shifts masked, shl+shr_s to extend*_s
 * (sign-ext enabled), masks that a narrow load already guarantees, strength
 * reduction by powers of two, if/select arms swapped under eqz, exact
 * float identities (neg/abs of neg/abs), wrap of extend, and of i64
 * arithmetic over extends and constants (done in i32), br_table targets
 * equal to the default at its end dropped; GC: ref.is_null, ref.as_non_null,
 * ref.test and ref.cast that the operand's type decides (opt_ref), and
 * array.new_fixed of one repeated constant as array.new.
 * Assumes valid IR with up-to-date types. Guarantees: the same behaviour
 * bit for bit (no float rewrite that could change a NaN payload, no
 * removal of code that may have effects, no reordering of effects); types
 * are unchanged per node, or more precise (a cast's operand in its place):
 * then the function is refinalized at the end. One post-order walk;
 * e->aux bit 1 = "subtree has effects", kept bottom-up for O(1) queries. */
#include "passes.h"

enum { FX = 1 };
static const uint32_t own_effects = TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_LOCAL |
                                    TL_F_WRITES_GLOBAL | TL_F_CALL | TL_F_TRAPS | TL_F_NORETURN |
                                    TL_F_ATOMIC | TL_F_BRANCH | TL_F_CONTROL | TL_F_THROWS | TL_F_EH;

static tl_expr *mark(tl_expr *e) {
  bool fx = (tl_ops[e->op].flags & own_effects) || e->op == TL_OP_RETURN ||
            e->op == TL_OP_RETURN_CALL || e->op == TL_OP_RETURN_CALL_INDIRECT ||
            e->type == TL_UNREACHABLE;
  for (uint32_t i = 0; i < e->nkid && !fx; i++) fx = e->kid[i] && (e->kid[i]->aux & FX);
  e->aux = fx ? FX : 0;
  return e;
}

static bool pure(const tl_expr *e) { return !(e->aux & FX); }

/* i64 integer ops are the i32 rows shifted by a fixed distance. */
static int base_op(int op, bool *is64) {
  *is64 = false;
  if (op >= TL_OP_I64_EQZ && op <= TL_OP_I64_GE_U) {
    *is64 = true;
    return op - (TL_OP_I64_EQZ - TL_OP_I32_EQZ);
  }
  if (op >= TL_OP_I64_CLZ && op <= TL_OP_I64_ROTR) {
    *is64 = true;
    return op - (TL_OP_I64_CLZ - TL_OP_I32_CLZ);
  }
  if ((op >= TL_OP_I32_EQZ && op <= TL_OP_I32_GE_U) || (op >= TL_OP_I32_CLZ && op <= TL_OP_I32_ROTR))
    return op;
  return -1;
}

static tl_op wide(int op, bool is64) {
  if (!is64) return (tl_op)op;
  if (op >= TL_OP_I32_EQZ && op <= TL_OP_I32_GE_U) return (tl_op)(op + (TL_OP_I64_EQZ - TL_OP_I32_EQZ));
  return (tl_op)(op + (TL_OP_I64_CLZ - TL_OP_I32_CLZ));
}

static bool is_iconst(const tl_expr *e, uint64_t *v) {
  if (e->op == TL_OP_I32_CONST) {
    *v = (uint32_t)e->imm.i32;
    return true;
  }
  if (e->op == TL_OP_I64_CONST) {
    *v = (uint64_t)e->imm.i64;
    return true;
  }
  return false;
}

static tl_expr *iconst(tl_module *m, bool is64, uint64_t v) {
  return mark(is64 ? tl_make_const_i64(m, (int64_t)v) : tl_make_const_i32(m, (int32_t)(uint32_t)v));
}

static uint64_t ones(bool is64) { return is64 ? UINT64_MAX : UINT32_MAX; }

static tl_expr *bin(tl_module *m, int op, bool is64, tl_expr *a, tl_expr *b) {
  return mark(tl_make_binary(m, wide(op, is64), a, b));
}
static tl_expr *un(tl_module *m, tl_op op, tl_expr *a) { return mark(tl_make_unary(m, op, a)); }

static bool same_get(const tl_expr *a, const tl_expr *b) {
  return a->op == TL_OP_LOCAL_GET && b->op == TL_OP_LOCAL_GET && a->imm.index == b->imm.index;
}

/* The compare that is true exactly when op is false (integers; f eq/ne). */
static int negated(int op) {
  switch (op) {
  case TL_OP_I32_EQ: return TL_OP_I32_NE;
  case TL_OP_I32_NE: return TL_OP_I32_EQ;
  case TL_OP_I32_LT_S: return TL_OP_I32_GE_S;
  case TL_OP_I32_GE_S: return TL_OP_I32_LT_S;
  case TL_OP_I32_LT_U: return TL_OP_I32_GE_U;
  case TL_OP_I32_GE_U: return TL_OP_I32_LT_U;
  case TL_OP_I32_GT_S: return TL_OP_I32_LE_S;
  case TL_OP_I32_LE_S: return TL_OP_I32_GT_S;
  case TL_OP_I32_GT_U: return TL_OP_I32_LE_U;
  case TL_OP_I32_LE_U: return TL_OP_I32_GT_U;
  default: return -1;
  }
}

/* The compare with its operands swapped. */
static int swapped(int op) {
  switch (op) {
  case TL_OP_I32_LT_S: return TL_OP_I32_GT_S;
  case TL_OP_I32_GT_S: return TL_OP_I32_LT_S;
  case TL_OP_I32_LT_U: return TL_OP_I32_GT_U;
  case TL_OP_I32_GT_U: return TL_OP_I32_LT_U;
  case TL_OP_I32_LE_S: return TL_OP_I32_GE_S;
  case TL_OP_I32_GE_S: return TL_OP_I32_LE_S;
  case TL_OP_I32_LE_U: return TL_OP_I32_GE_U;
  case TL_OP_I32_GE_U: return TL_OP_I32_LE_U;
  case TL_OP_I32_EQ: case TL_OP_I32_NE: case TL_OP_I32_ADD: case TL_OP_I32_MUL:
  case TL_OP_I32_AND: case TL_OP_I32_OR: case TL_OP_I32_XOR: return op;
  default: return -1;
  }
}

static bool concrete_kids(const tl_expr *e) {
  for (uint32_t i = 0; i < e->nkid; i++)
    if (!e->kid[i] || !tl_type_is_concrete(e->kid[i]->type)) return false;
  return true;
}

static unsigned sleb_size(bool is64, uint64_t v) {
  return tl_sleb_size(is64 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v);
}

/* wrap(x op y) for op in add, sub, mul, and, or, xor is (wrap x) op32
 * (wrap y): the low 32 bits of the result depend only on theirs. So a
 * wrapped tree of such ops over extended i32 values and constants is the
 * same tree in i32 (Go's address arithmetic: wrap(extend(sp) + C) is sp +
 * C). A bounded depth: narrowable and narrow recurse at most that far. */
enum { NARROW_DEPTH = 3 };

static bool wraps_through(int op) {
  return op == TL_OP_I64_ADD || op == TL_OP_I64_SUB || op == TL_OP_I64_MUL || op == TL_OP_I64_AND ||
         op == TL_OP_I64_OR || op == TL_OP_I64_XOR;
}

static bool narrowable(const tl_expr *e, int depth) {
  if (e->op == TL_OP_I64_EXTEND_I32_U || e->op == TL_OP_I64_EXTEND_I32_S || e->op == TL_OP_I64_CONST) return true;
  return depth > 0 && wraps_through(e->op) && narrowable(e->kid[0], depth - 1) && narrowable(e->kid[1], depth - 1);
}

/* A narrowable tree in i32 (its nodes reused; kids in place, so the order
 * of effects is the same). */
static tl_expr *narrow(tl_module *m, tl_expr *e, int depth) {
  if (e->op == TL_OP_I64_CONST) return iconst(m, false, (uint32_t)(uint64_t)e->imm.i64);
  if (!wraps_through(e->op)) return e->kid[0]; /* an extend: its i32 */
  bool is64;
  e->op = wide(base_op(e->op, &is64), false);
  e->type = TL_I32;
  e->kid[0] = narrow(m, e->kid[0], depth - 1);
  e->kid[1] = narrow(m, e->kid[1], depth - 1);
  return mark(e);
}

static int log2_exact(uint64_t v) {
  if (!v || (v & (v - 1))) return -1;
  int n = 0;
  while (v >>= 1) n++;
  return n;
}

/* A value whose bits above `bits` are known zero (narrow unsigned loads). */
static uint32_t zero_ext_bits(const tl_expr *e) {
  switch (e->op) {
  case TL_OP_I32_LOAD8_U: case TL_OP_I64_LOAD8_U: return 8;
  case TL_OP_I32_LOAD16_U: case TL_OP_I64_LOAD16_U: return 16;
  case TL_OP_I64_LOAD32_U: case TL_OP_I64_EXTEND_I32_U: return 32;
  default:
    if (e->type == TL_I32 && base_op(e->op, &(bool){0}) >= TL_OP_I32_EQZ &&
        base_op(e->op, &(bool){0}) <= TL_OP_I32_GE_U)
      return 1;
    if (e->op >= TL_OP_F32_EQ && e->op <= TL_OP_F64_GE) return 1;
    if (e->op == TL_OP_REF_IS_NULL || e->op == TL_OP_REF_EQ || e->op == TL_OP_REF_TEST ||
        e->op == TL_OP_REF_TEST_NULL)
      return 1;
    if (e->op == TL_OP_I32_CONST && (uint32_t)e->imm.i32 <= 1) return 1;
    return 64;
  }
}

/* A condition only matters as zero / non-zero: strip `!= 0`, `eqz eqz`. */
static tl_expr *bool_ctx(tl_module *m, tl_expr *c) {
  for (;;) {
    uint64_t v;
    if (c->op == TL_OP_I32_NE && is_iconst(c->kid[1], &v) && v == 0 && c->kid[0]->type == TL_I32)
      c = c->kid[0];
    else if (c->op == TL_OP_I32_EQZ && c->kid[0]->op == TL_OP_I32_EQZ &&
             c->kid[0]->kid[0]->type == TL_I32)
      c = c->kid[0]->kid[0];
    else if (c->op == TL_OP_I32_WRAP_I64 && c->kid[0]->op == TL_OP_I64_EXTEND_I32_U)
      c = c->kid[0]->kid[0];
    else break;
  }
  (void)m;
  return c;
}

static tl_expr *opt_eqz(tl_module *m, tl_expr *e) {
  tl_expr *x = e->kid[0];
  if (e->op == TL_OP_I32_EQZ) {
    bool is64;
    int b = base_op(x->op, &is64);
    if (b >= 0 && negated(b) >= 0 && x->type == TL_I32) {
      x->op = wide(negated(b), is64);
      return x;
    }
    if ((x->op == TL_OP_F32_EQ || x->op == TL_OP_F64_EQ)) {
      x->op = x->op == TL_OP_F32_EQ ? TL_OP_F32_NE : TL_OP_F64_NE;
      return x;
    }
    if (x->op == TL_OP_F32_NE || x->op == TL_OP_F64_NE) {
      x->op = x->op == TL_OP_F32_NE ? TL_OP_F32_EQ : TL_OP_F64_EQ;
      return x;
    }
    tl_expr *y = bool_ctx(m, x);
    if (y != x) {
      e->kid[0] = y;
      return mark(e);
    }
    /* eqz(wrap(x)) where x is a narrow load (its high 32 bits are zero or
     * copies of bit 31, so x is 0 just when its low 32 bits are) is
     * i64.eqz(x): a byte less */
    if (x->op == TL_OP_I32_WRAP_I64 && x->kid[0]->op >= TL_OP_I64_LOAD8_S && x->kid[0]->op <= TL_OP_I64_LOAD32_U)
      return un(m, TL_OP_I64_EQZ, x->kid[0]);
  }
  if (x->op == TL_OP_I64_EXTEND_I32_U || x->op == TL_OP_I64_EXTEND_I32_S)
    return un(m, TL_OP_I32_EQZ, x->kid[0]);
  return e;
}

/* Sign extension of the low `bits` bits, or NULL when unavailable. */
static tl_expr *sext(tl_module *m, bool is64, uint64_t bits, tl_expr *x) {
  if (!(m->features & TL_FEAT_SIGN_EXT)) return NULL;
  tl_op op;
  if (bits == 8) op = is64 ? TL_OP_I64_EXTEND8_S : TL_OP_I32_EXTEND8_S;
  else if (bits == 16) op = is64 ? TL_OP_I64_EXTEND16_S : TL_OP_I32_EXTEND16_S;
  else if (bits == 32 && is64) op = TL_OP_I64_EXTEND32_S;
  else return NULL;
  return un(m, op, x);
}

/* Rules for integer binaries; returns the replacement (maybe e itself). */
static tl_expr *opt_binary(tl_module *m, tl_expr *e, int b, bool is64) {
  tl_expr *x = e->kid[0], *y = e->kid[1];
  uint64_t c, c2, mask = ones(is64);
  unsigned bits = is64 ? 64 : 32;
  /* constants to the right */
  uint64_t dummy;
  if (is_iconst(x, &dummy) && !is_iconst(y, &dummy) && swapped(b) >= 0) {
    e->kid[0] = y;
    e->kid[1] = x;
    e->op = wide(swapped(b), is64);
    x = e->kid[0];
    y = e->kid[1];
    b = swapped(b);
  }
  if (same_get(x, y)) {
    switch (b) {
    case TL_OP_I32_SUB: case TL_OP_I32_XOR: return iconst(m, is64, 0);
    case TL_OP_I32_AND: case TL_OP_I32_OR: return x;
    case TL_OP_I32_EQ: case TL_OP_I32_LE_S: case TL_OP_I32_LE_U: case TL_OP_I32_GE_S:
    case TL_OP_I32_GE_U: return iconst(m, false, 1);
    case TL_OP_I32_NE: case TL_OP_I32_LT_S: case TL_OP_I32_LT_U: case TL_OP_I32_GT_S:
    case TL_OP_I32_GT_U: return iconst(m, false, 0);
    default: break;
    }
  }
  if (!is_iconst(y, &c)) return e;
  c &= mask;
  switch (b) {
  case TL_OP_I32_SHL: case TL_OP_I32_SHR_S: case TL_OP_I32_SHR_U: case TL_OP_I32_ROTL:
  case TL_OP_I32_ROTR:
    if ((c & (bits - 1)) == 0) return x;
    if (c >= bits) {
      e->kid[1] = iconst(m, is64, c & (bits - 1));
      return mark(e);
    }
    /* (x << k) >> k */
    if ((b == TL_OP_I32_SHR_S || b == TL_OP_I32_SHR_U) && x->op == wide(TL_OP_I32_SHL, is64) &&
        is_iconst(x->kid[1], &c2) && (c2 & (bits - 1)) == c) {
      if (b == TL_OP_I32_SHR_S) {
        tl_expr *r = sext(m, is64, bits - c, x->kid[0]);
        if (r) return r;
      } else if ((mask >> c) < (1u << 27)) { /* the mask (LEB) no longer than the shifts */
        return bin(m, TL_OP_I32_AND, is64, x->kid[0], iconst(m, is64, mask >> c));
      }
    }
    /* (x >> k1) >> k2 and (x << k1) << k2 of the same kind */
    if ((b == TL_OP_I32_SHL || b == TL_OP_I32_SHR_U) && x->op == e->op && is_iconst(x->kid[1], &c2) &&
        (c2 & (bits - 1)) + c < bits) {
      x->kid[1] = iconst(m, is64, (c2 & (bits - 1)) + c);
      return mark(x);
    }
    return e;
  case TL_OP_I32_ADD: case TL_OP_I32_SUB: {
    if (c == 0) return x;
    uint64_t add = b == TL_OP_I32_ADD ? c : (0 - c) & mask;
    if (x->op == wide(TL_OP_I32_ADD, is64) && is_iconst(x->kid[1], &c2)) {
      x->kid[1] = iconst(m, is64, (c2 + add) & mask);
      return mark(x);
    }
    if (x->op == wide(TL_OP_I32_SUB, is64) && is_iconst(x->kid[1], &c2)) {
      x->op = wide(TL_OP_I32_ADD, is64);
      x->kid[1] = iconst(m, is64, (add - c2) & mask);
      return mark(x);
    }
    /* x - c -> x + (-c) when -c is no longer in LEB128 */
    if (b == TL_OP_I32_SUB && sleb_size(is64, add) <= sleb_size(is64, c)) {
      e->op = wide(TL_OP_I32_ADD, is64);
      e->kid[1] = iconst(m, is64, add);
      return mark(e);
    }
    /* x + c -> x - (-c) when -c is shorter (c = 64: 0xc0 0x00; -64: 0x40);
     * optimize-added-constants takes both forms */
    uint64_t neg = (0 - c) & mask;
    if (b == TL_OP_I32_ADD && sleb_size(is64, neg) < sleb_size(is64, c)) {
      e->op = wide(TL_OP_I32_SUB, is64);
      e->kid[1] = iconst(m, is64, neg);
      return mark(e);
    }
    return e;
  }
  case TL_OP_I32_MUL: {
    if (c == 1) return x;
    if (c == 0 && pure(x)) return y;
    int k = log2_exact(c);
    if (k > 0) return bin(m, TL_OP_I32_SHL, is64, x, iconst(m, is64, (uint64_t)k));
    return e;
  }
  case TL_OP_I32_DIV_S:
    if (c == 1) return x;
    return e;
  case TL_OP_I32_DIV_U: {
    if (c == 1) return x;
    int k = log2_exact(c);
    if (k > 0) return bin(m, TL_OP_I32_SHR_U, is64, x, iconst(m, is64, (uint64_t)k));
    return e;
  }
  case TL_OP_I32_REM_U: {
    if (c == 1 && pure(x)) return iconst(m, is64, 0);
    int k = log2_exact(c);
    if (k > 0) return bin(m, TL_OP_I32_AND, is64, x, iconst(m, is64, c - 1));
    return e;
  }
  case TL_OP_I32_REM_S:
    if ((c == 1 || c == mask) && pure(x)) return iconst(m, is64, 0);
    return e;
  case TL_OP_I32_AND:
    if (c == mask) return x;
    if (c == 0 && pure(x)) return y;
    if (zero_ext_bits(x) < 64 && (c & ((1ull << zero_ext_bits(x)) - 1)) == ((1ull << zero_ext_bits(x)) - 1))
      return x;
    if (x->op == e->op && is_iconst(x->kid[1], &c2)) {
      x->kid[1] = iconst(m, is64, c & c2);
      return mark(x);
    }
    return e;
  case TL_OP_I32_OR:
    if (c == 0) return x;
    if (c == mask && pure(x)) return y;
    if (x->op == e->op && is_iconst(x->kid[1], &c2)) {
      x->kid[1] = iconst(m, is64, c | c2);
      return mark(x);
    }
    return e;
  case TL_OP_I32_XOR:
    if (c == 0) return x;
    if (x->op == e->op && is_iconst(x->kid[1], &c2)) {
      x->kid[1] = iconst(m, is64, c ^ c2);
      return mark(x);
    }
    /* a boolean xor 1 is its negation */
    if (c == 1 && !is64 && zero_ext_bits(x) == 1) return opt_eqz(m, un(m, TL_OP_I32_EQZ, x));
    return e;
  case TL_OP_I32_EQ:
    if (c == 0) return un(m, is64 ? TL_OP_I64_EQZ : TL_OP_I32_EQZ, x);
    return e;
  case TL_OP_I32_LT_U:
    if (c == 0 && pure(x)) return iconst(m, false, 0);
    if (c == 1) return un(m, is64 ? TL_OP_I64_EQZ : TL_OP_I32_EQZ, x);
    return e;
  case TL_OP_I32_GE_U:
    if (c == 0 && pure(x)) return iconst(m, false, 1);
    if (c == 1) return bin(m, TL_OP_I32_NE, is64, x, iconst(m, is64, 0));
    return e;
  case TL_OP_I32_LE_U:
    if (c == 0) return un(m, is64 ? TL_OP_I64_EQZ : TL_OP_I32_EQZ, x);
    if (c == mask && pure(x)) return iconst(m, false, 1);
    return e;
  case TL_OP_I32_GT_U:
    if (c == 0) {
      e->op = wide(TL_OP_I32_NE, is64);
      return e;
    }
    if (c == mask && pure(x)) return iconst(m, false, 0);
    return e;
  default: return e;
  }
}

/* ---- GC: what a reference's static type already decides ---------------- */

/* r in place of x: x's effects kept, (block (drop x) r), when it has some. */
static tl_expr *after(tl_module *m, tl_expr *x, tl_expr *r) {
  if (pure(x)) return mark(r);
  tl_expr *kids[2] = {mark(tl_make_drop(m, x)), mark(r)};
  return mark(tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, 2));
}

static bool heap_is_bottom(const tl_module *m, uint32_t ht) { return tl_heap_bottom(m, ht) == ht; }

/* No value but null has both heap types: neither is a subtype of the
 * other (wasm's heap types form a tree per hierarchy). */
static bool heaps_disjoint(const tl_module *m, uint32_t a, uint32_t b) {
  return !tl_heap_sub(m, a, b) && !tl_heap_sub(m, b, a);
}

/* ref.is_null, ref.as_non_null, ref.test, ref.cast of an operand whose
 * type decides them: a non-nullable operand is not null, a null-only type
 * is, a subtype passes, a disjoint heap type fails (only null can pass).
 * A cast that may trap stays whole: its trap ("cast failure") differs
 * from ref.as_non_null's or unreachable's, and traps keep their reason. */
static tl_expr *opt_ref(tl_module *m, tl_expr *e) {
  tl_expr *x = e->kid[0];
  tl_type t = x->type;
  if (!tl_type_is_ref(t)) return e;
  uint32_t ht = tl_ref_heap(t);
  bool null_ok = tl_ref_nullable(t);
  switch (e->op) {
  case TL_OP_REF_IS_NULL:
    if (!null_ok) return after(m, x, tl_make_const_i32(m, 0));
    if (heap_is_bottom(m, ht)) return after(m, x, tl_make_const_i32(m, 1));
    return e;
  case TL_OP_REF_AS_NON_NULL:
    return null_ok ? e : x;
  case TL_OP_REF_TEST: case TL_OP_REF_TEST_NULL: {
    tl_type to = e->imm.index;
    if (!tl_type_is_ref(to)) return e;
    if (tl_type_sub(m, t, to)) return after(m, x, tl_make_const_i32(m, 1));
    if (heaps_disjoint(m, ht, tl_ref_heap(to)))
      return null_ok && tl_ref_nullable(to) ? mark(tl_make_unary(m, TL_OP_REF_IS_NULL, x))
                                            : after(m, x, tl_make_const_i32(m, 0));
    return e;
  }
  case TL_OP_REF_CAST: case TL_OP_REF_CAST_NULL: {
    tl_type to = e->imm.index;
    if (!tl_type_is_ref(to)) return e;
    if (tl_type_sub(m, t, to)) return x;
    return e;
  }
  default: return e;
  }
}

/* Two constants with the same type and bits (ref.null: the same type). */
static bool same_const(const tl_expr *a, const tl_expr *b) {
  return a->op == b->op && tl_const_imm_eq(a->op, a->imm, b->imm);
}

/* (call_ref $t args (ref.func $f)) => (call $f args), return_call_ref
 * likewise: the target is known and cannot be null. $f's type is a subtype
 * of $t, so the arguments fit its params and its results fit where $t's
 * went (the call may get a more precise type). */
static tl_expr *opt_call_ref(tl_module *m, tl_expr *e) {
  tl_expr *target = e->kid[e->nkid - 1];
  if (target->op != TL_OP_REF_FUNC) return e;
  tl_expr *c = tl_expr_new(m, e->op == TL_OP_CALL_REF ? TL_OP_CALL : TL_OP_RETURN_CALL, e->nkid - 1);
  for (uint32_t i = 0; i + 1 < e->nkid; i++) c->kid[i] = e->kid[i];
  c->imm.index = target->imm.index;
  tl_expr_finalize(m, NULL, c);
  return c;
}

/* (array.new_fixed $T n C C ... C) => (array.new $T C (i32.const n)): one
 * constant instead of n (n >= 2; a small constant count cannot trap). */
static tl_expr *opt_new_fixed(tl_module *m, tl_expr *e) {
  uint32_t n = e->nkid;
  if (n < 2 || n > 1u << 20) return e;
  for (uint32_t i = 1; i < n; i++)
    if (!same_const(e->kid[0], e->kid[i])) return e;
  tl_expr *a = tl_expr_new(m, TL_OP_ARRAY_NEW, 2);
  a->imm.index = e->imm.idx2.a;
  a->kid[0] = e->kid[0];
  a->kid[1] = mark(tl_make_const_i32(m, (int32_t)n));
  tl_expr_finalize(m, NULL, a);
  return a;
}

static tl_expr *opt_node(tl_module *m, tl_expr *e) {
  if (e->op == TL_OP_BR_TABLE) { /* trailing targets that are the default go: the same jumps */
    tl_brtable *t = e->imm.table;
    while (t->n && t->targets[t->n - 1] == t->def) t->n--;
    return e;
  }
  if (e->op == TL_OP_RETURN_CALL_REF) return opt_call_ref(m, e); /* (its type is unreachable) */
  if (e->type == TL_UNREACHABLE) return e;
  bool is64;
  int b = base_op(e->op, &is64);
  switch (e->op) {
  case TL_OP_IF:
    if (!tl_type_is_concrete(e->kid[0]->type)) return e;
    e->kid[0] = bool_ctx(m, e->kid[0]);
    if (e->nkid == 3 && e->kid[0]->op == TL_OP_I32_EQZ) {
      tl_expr *t = e->kid[1];
      e->kid[0] = e->kid[0]->kid[0];
      e->kid[1] = e->kid[2];
      e->kid[2] = t;
    }
    return e;
  case TL_OP_BR_IF: {
    tl_expr **c = &e->kid[e->nkid - 1];
    if (tl_type_is_concrete((*c)->type)) *c = bool_ctx(m, *c);
    return e;
  }
  case TL_OP_SELECT: {
    if (e->nkid != 3 || !concrete_kids(e)) return e;
    e->kid[2] = bool_ctx(m, e->kid[2]);
    tl_expr *a = e->kid[0], *bb = e->kid[1], *c = e->kid[2];
    if (same_get(a, bb) && pure(c)) return a;
    uint64_t v;
    if (is_iconst(c, &v) && pure(a) && pure(bb)) return v ? a : bb;
    if (is_iconst(bb, &v) && !v && a->type == TL_I32 && zero_ext_bits(a) == 1 &&
        zero_ext_bits(c) == 1) /* c ? a : 0 of two booleans, evaluated a then c */
      return tl_make_binary(m, TL_OP_I32_AND, a, c);
    if (c->op == TL_OP_I32_EQZ && pure(a) && pure(bb)) {
      e->kid[0] = bb;
      e->kid[1] = a;
      e->kid[2] = c->kid[0];
    }
    return e;
  }
  case TL_OP_REF_IS_NULL: case TL_OP_REF_AS_NON_NULL: case TL_OP_REF_TEST: case TL_OP_REF_TEST_NULL:
  case TL_OP_REF_CAST: case TL_OP_REF_CAST_NULL:
    return opt_ref(m, e);
  case TL_OP_ARRAY_NEW_FIXED: return opt_new_fixed(m, e);
  case TL_OP_CALL_REF: return opt_call_ref(m, e);
  case TL_OP_F32_NEG: case TL_OP_F64_NEG:
    if (e->kid[0]->op == e->op) return e->kid[0]->kid[0];
    return e;
  case TL_OP_F32_ABS: case TL_OP_F64_ABS:
    if (e->kid[0]->op == e->op) return e->kid[0];
    if (e->kid[0]->op == (e->op == TL_OP_F32_ABS ? TL_OP_F32_NEG : TL_OP_F64_NEG))
      e->kid[0] = e->kid[0]->kid[0];
    return e;
  case TL_OP_I32_WRAP_I64:
    if (e->kid[0]->op == TL_OP_I64_EXTEND_I32_U || e->kid[0]->op == TL_OP_I64_EXTEND_I32_S)
      return e->kid[0]->kid[0];
    if (narrowable(e->kid[0], NARROW_DEPTH)) return narrow(m, e->kid[0], NARROW_DEPTH);
    return e;
  case TL_OP_I32_EXTEND8_S: case TL_OP_I64_EXTEND8_S:
    if (e->kid[0]->op == (e->op == TL_OP_I32_EXTEND8_S ? TL_OP_I32_LOAD8_S : TL_OP_I64_LOAD8_S))
      return e->kid[0];
    return e;
  case TL_OP_I32_EXTEND16_S: case TL_OP_I64_EXTEND16_S:
    if (e->kid[0]->op == (e->op == TL_OP_I32_EXTEND16_S ? TL_OP_I32_LOAD16_S : TL_OP_I64_LOAD16_S))
      return e->kid[0];
    return e;
  default: break;
  }
  if (b < 0 || !concrete_kids(e)) return e;
  if (b == TL_OP_I32_EQZ) return opt_eqz(m, e);
  if (e->nkid == 2) return opt_binary(m, e, b, is64);
  return e;
}

/* w->ctx: a bool set when a replacement's type differs from the node it
 * replaces (then the ancestors' types are recomputed at the end). */
__attribute__((noinline)) static void oi_node(tl_walk *w, tl_expr **slot) {
  for (int i = 0; i < 8; i++) {
    tl_expr *e = *slot;
    tl_type t = e->type;
    tl_expr *r = opt_node(w->m, e);
    *slot = mark(r);
    if (r->type != t) *(bool *)w->ctx = true;
    if (r == e) break;
  }
}

/* Leaves (no rule rewrites one) are only marked, without oi_node's frame. */
static void oi_visit(tl_walk *w, tl_expr **slot) {
  if (!(*slot)->nkid) mark(*slot);
  else oi_node(w, slot);
}

tl_status tl_pass_optimize_instructions(tl_pass_ctx *ctx, tl_func *f) {
  bool retype = false;
  tl_walk_post(ctx->m, f, &f->body, oi_visit, &retype);
  if (retype) tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
