/* gen.c — bytes -> a valid, terminating module (see fuzz.h). Module items
 * come from the public builders (tilt.h); function bodies are built as IR
 * nodes, type-directed: make(t) returns an expression of type t (or an
 * unreachable-typed one, on purpose), and every function is re-finalized at
 * the end. Instruction families come from the opcode table (tl_ops[]): any
 * row with a plain signature is a candidate, its immediates filled by kind.
 * Generator recursion is bounded by MAX_DEPTH, not by the input. */
#include "fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

#define MAX_DEPTH 7
#define MAX_LABELS 64
#define MAX_OPS 1024
#define MAX_DEFS 16    /* GC types */
#define GC_MAX_IDX 64  /* module type indices GC types may have */

typedef struct { uint32_t label; tl_type type; } scope;
/* An enclosing legacy try: its body (delegates may name it) or one of its
 * catch arms (rethrows may name it). */
typedef struct { uint32_t label; bool catching; } ehscope;

typedef struct {
  const uint8_t *p;
  size_t n, pos;
  tl_module *m;
  uint32_t feats;
  tl_type vt[24];            /* value types in use */
  uint32_t nvt;
  uint16_t ops[MAX_OPS];     /* eligible opcode rows */
  uint32_t nops;
  uint32_t hang;             /* hang-limit global */
  uint32_t log_func[4];      /* log-i32, log-i64, log-f32, log-f64 */
  uint32_t nfunc;            /* imports + defined */
  uint32_t nglobal;
  uint32_t data_passive, elem_passive;
  bool shared, has_ext_table;
  bool table64;              /* table 0 is 64-bit (memory64) */
  uint32_t nmem;          /* 1, or 2 with multi-memory */
  uint32_t ext_table;
  bool eh;                   /* emit exception handling (fuzz.h) */
  bool eh_legacy;            /* only try/catch/delegate/rethrow: no try_table, exnref */
  uint32_t ntags;
  bool gc;                   /* emit GC types and instructions (fuzz.h) */
  uint32_t def[MAX_DEFS];    /* the GC types (module indices, each canonical) */
  uint32_t ndef;
  uint8_t lvl[GC_MAX_IDX];   /* by module type index: gc_level */
  uint32_t gcvt;             /* vt[gcvt..nvt): the GC value types */
  uint32_t cbudget;          /* allocations a constant expression may still nest */
  /* current function */
  tl_func *f;
  tl_type result;
  scope lab[MAX_LABELS];
  uint32_t nlab;
  ehscope ehs[MAX_LABELS];   /* enclosing tries, innermost last */
  uint32_t nehs;
  uint32_t ninit;            /* locals below: readable anywhere (set at entry) */
  uint32_t depth, budget;
} gen;

static uint32_t u8(gen *g) { return g->pos < g->n ? g->p[g->pos++] : 0; }
static uint32_t u32(gen *g) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | u8(g);
  return v;
}
static uint32_t pick(gen *g, uint32_t k) { return k <= 1 ? 0 : (k <= 256 ? u8(g) : u32(g)) % k; }
static bool one_in(gen *g, uint32_t k) { return pick(g, k) == 0 && g->pos < g->n; }
static bool has(gen *g, uint32_t feat) { return (g->feats & feat) == feat; }

static tl_expr *node(gen *g, tl_op op, uint32_t n) { return tl_expr_new(g->m, op, n); }
static tl_expr *k1(gen *g, tl_op op, tl_expr *a) {
  tl_expr *e = node(g, op, 1);
  e->kid[0] = a;
  return e;
}
static tl_expr *k2(gen *g, tl_op op, tl_expr *a, tl_expr *b) {
  tl_expr *e = node(g, op, 2);
  e->kid[0] = a;
  e->kid[1] = b;
  return e;
}
static tl_expr *ci32(gen *g, int32_t v) {
  tl_expr *e = node(g, TL_OP_I32_CONST, 0);
  e->imm.i32 = v;
  return e;
}

static tl_expr *make(gen *g, tl_type t);
static tl_expr *stmt(gen *g);
static tl_expr *gc_leaf(gen *g, tl_type t);

/* ---------------------------------------------------------------- leaves */
static int32_t interesting_i32(gen *g) {
  static const int32_t v[] = {0, 1, -1, 2, 7, 8, 16, 31, 32, 63, 64, 255, 256, 65535, 65536,
                              0x7fffffff, INT32_MIN, 0x12345678};
  return one_in(g, 3) ? (int32_t)u32(g) : v[pick(g, sizeof v / sizeof *v)];
}

static tl_expr *constant(gen *g, tl_type t) {
  tl_expr *e;
  switch (t) {
  case TL_I32: return ci32(g, interesting_i32(g));
  case TL_I64:
    e = node(g, TL_OP_I64_CONST, 0);
    e->imm.i64 = one_in(g, 2) ? (int64_t)((uint64_t)u32(g) << 32 | u32(g)) : interesting_i32(g);
    return e;
  case TL_F32: {
    static const uint32_t v[] = {0, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x7f800000u,
                                 0xff800000u, 0x7fc00000u, 0x4f000000u, 0x00000001u, 0x40490fdbu};
    e = node(g, TL_OP_F32_CONST, 0);
    e->imm.f32 = one_in(g, 3) ? u32(g) : v[pick(g, sizeof v / sizeof *v)];
    return e;
  }
  case TL_F64: {
    static const uint64_t v[] = {0, 0x8000000000000000ull, 0x3ff0000000000000ull,
                                 0x7ff0000000000000ull, 0x7ff8000000000000ull,
                                 0x43e0000000000000ull, 0x41dfffffffc00000ull, 1};
    e = node(g, TL_OP_F64_CONST, 0);
    e->imm.f64 = one_in(g, 3) ? (uint64_t)u32(g) << 32 | u32(g) : v[pick(g, sizeof v / sizeof *v)];
    return e;
  }
  case TL_V128:
    e = node(g, TL_OP_V128_CONST, 0);
    for (int i = 0; i < 16; i++) e->imm.v128[i] = (uint8_t)(one_in(g, 2) ? u8(g) : 0);
    return e;
  case TL_FUNCREF:
    if (pick(g, 2)) {
      e = node(g, TL_OP_REF_FUNC, 0);
      e->imm.index = pick(g, g->nfunc);
      return e;
    }
    /* fallthrough */
  default:
    e = node(g, TL_OP_REF_NULL, 0);
    e->imm.index = t;
    return e;
  }
}

static tl_expr *local_of(gen *g, tl_type t, tl_op op) {
  uint32_t c[64], n = 0;
  bool get = op == TL_OP_LOCAL_GET && !tl_type_defaultable(t);
  for (uint32_t i = 0; i < g->f->nlocal && n < 64; i++)
    if (g->f->local[i] == t && !(get && i >= g->ninit)) c[n++] = i; /* unset yet, maybe */
  if (!n) return NULL;
  tl_expr *e = node(g, op, op == TL_OP_LOCAL_GET ? 0 : 1);
  e->imm.index = c[pick(g, n)];
  return e;
}

static uint32_t global_of(gen *g, tl_type t, bool mut) {
  uint32_t c[64], n = 0;
  for (uint32_t i = 0; i < g->nglobal && n < 64; i++) {
    tl_global *gl = TL_GLOBAL(g->m, i);
    if (gl->type == t && (!mut || gl->mut) && i != g->hang) c[n++] = i;
  }
  return n ? c[pick(g, n)] : TL_NO_INDEX;
}

static tl_expr *leaf(gen *g, tl_type t) {
  uint32_t c = pick(g, 4);
  if (c == 1) {
    tl_expr *e = local_of(g, t, TL_OP_LOCAL_GET);
    if (e) return e;
  } else if (c == 2) {
    uint32_t gi = global_of(g, t, false);
    if (gi != TL_NO_INDEX) {
      tl_expr *e = node(g, TL_OP_GLOBAL_GET, 0);
      e->imm.index = gi;
      return e;
    }
  }
  return t >= TL_REF_BASE ? gc_leaf(g, t) : constant(g, t);
}

/* x & mask: keeps addresses and sizes mostly in bounds. */
static tl_expr *masked(gen *g, uint32_t mask) {
  if (one_in(g, 8)) return make(g, TL_I32);
  return k2(g, TL_OP_I32_AND, make(g, TL_I32), ci32(g, (int32_t)mask));
}

/* An index of a 64-bit memory or table (wide) or a 32-bit one: masked,
 * zero-extended when wide; now and then any i64 (far out of bounds, or
 * with the offset past 2^64). */
static tl_expr *index_of(gen *g, uint32_t mask, bool wide) {
  if (!wide) return masked(g, mask);
  if (one_in(g, 8)) return make(g, TL_I64);
  return k1(g, TL_OP_I64_EXTEND_I32_U, masked(g, mask));
}

/* ----------------------------------------------------- opcode-table ops */
static uint32_t lanes_of(const char *text) {
  if (text[1] == '8') return 16;
  if (text[1] == '1') return 8;
  if (text[1] == '3') return 4;
  return 2;
}

static bool eligible(gen *g, int op) {
  const tl_opinfo *o = &tl_ops[op];
  if (o->pfx == 0xFF || o->nops == TL_SIG_SPECIAL) return false;
  if (o->flags & (TL_F_MARKER | TL_F_CONTROL | TL_F_BRANCH | TL_F_CALL | TL_F_NORETURN)) return false;
  if (o->feat & ~g->feats) return false;
  if ((o->flags & TL_F_ATOMIC) && !g->shared) return false;
  if (op == TL_OP_MEMORY_ATOMIC_WAIT32 || op == TL_OP_MEMORY_ATOMIC_WAIT64) return false;
  switch (o->imm) {
  case TL_IMM_NONE: case TL_IMM_MEMARG: case TL_IMM_LANE: case TL_IMM_MEMARG_LANE:
  case TL_IMM_MEM: case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT: case TL_IMM_DATA:
  case TL_IMM_ELEM: case TL_IMM_TABLE_INIT: case TL_IMM_TABLE_COPY: case TL_IMM_FENCE:
  case TL_IMM_SHUFFLE: case TL_IMM_TABLE:
    return true;
  default: return false;
  }
}

static tl_expr *table_op(gen *g, int op, tl_type t);

/* op's immediates (before its operands: their types may depend on them). */
static void op_imm(gen *g, tl_expr *e, int op) {
  const tl_opinfo *o = &tl_ops[op];
  bool atomic = (o->flags & TL_F_ATOMIC) != 0;
  uint32_t nat = o->imm == TL_IMM_MEMARG || o->imm == TL_IMM_MEMARG_LANE ? tl_op_natural_align(op) : 0;
  switch (o->imm) {
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: {
    tl_memarg ma = e->imm.mem;
    ma.mem = (uint16_t)(g->nmem > 1 && one_in(g, 3));
    uint64_t off = atomic ? 0 : (one_in(g, 16) ? u32(g) : pick(g, 4) * (1u << pick(g, 6)));
    if (!atomic && tl_memory_is64(g->m, ma.mem) && one_in(g, 16)) off = (uint64_t)u32(g) << 32 | u32(g);
    tl_memarg_set_offset(g->m, &ma, off);
    ma.align = atomic ? nat : pick(g, nat + 1);
    if (o->imm == TL_IMM_MEMARG_LANE) ma.lane = (uint8_t)pick(g, 16u >> nat);
    e->imm.mem = ma;
    break;
  }
  case TL_IMM_LANE: e->imm.mem.lane = (uint8_t)pick(g, lanes_of(o->text)); break;
  case TL_IMM_SHUFFLE:
    for (int i = 0; i < 16; i++) e->imm.v128[i] = (uint8_t)pick(g, 32);
    break;
  case TL_IMM_MEM: e->imm.index = pick(g, g->nmem); break;
  case TL_IMM_MEM_COPY: e->imm.idx2.a = pick(g, g->nmem); e->imm.idx2.b = pick(g, g->nmem); break;
  case TL_IMM_MEM_INIT: e->imm.idx2.a = pick(g, 2); e->imm.idx2.b = pick(g, g->nmem); break;
  case TL_IMM_DATA: e->imm.index = pick(g, 2); break;
  case TL_IMM_ELEM: e->imm.index = pick(g, 2); break;
  case TL_IMM_TABLE_INIT: e->imm.idx2.a = pick(g, 2); e->imm.idx2.b = 0; break;
  case TL_IMM_TABLE_COPY: e->imm.idx2.a = e->imm.idx2.b = 0; break;
  case TL_IMM_TABLE: e->imm.index = g->has_ext_table ? pick(g, 2) : 0; break;
  default: break;
  }
}

static tl_expr *op_node(gen *g, int op) {
  const tl_opinfo *o = &tl_ops[op];
  tl_expr *e = node(g, (tl_op)op, o->nops);
  bool memarg = o->imm == TL_IMM_MEMARG || o->imm == TL_IMM_MEMARG_LANE;
  bool atomic = (o->flags & TL_F_ATOMIC) != 0;
  bool bulk = o->imm == TL_IMM_MEM || o->imm == TL_IMM_MEM_COPY || o->imm == TL_IMM_MEM_INIT ||
              o->imm == TL_IMM_TABLE_INIT || o->imm == TL_IMM_TABLE_COPY;
  op_imm(g, e, op);
  uint32_t wide = (o->flags & TL_F_INDEXED) ? tl_index64_mask(g->m, op, e->imm) : 0;
  for (uint32_t i = 0; i < o->nops; i++) {
    bool w = wide >> i & 1;
    if (memarg && i == 0) e->kid[i] = index_of(g, atomic ? 0xfff8 : 0xffff, w);
    else if (op == TL_OP_MEMORY_GROW) e->kid[i] = index_of(g, 1, w);
    else if (bulk && o->ops[i] == TL_I32) e->kid[i] = index_of(g, i == 0 && o->imm == TL_IMM_MEM ? 0xffff : 0x3f, w);
    else e->kid[i] = make(g, o->ops[i]);
  }
  return e;
}

/* An opcode-table instruction whose result is t. */
static tl_expr *op_of(gen *g, tl_type t) {
  uint32_t start = pick(g, g->nops);
  for (uint32_t k = 0; k < g->nops; k++) {
    int op = g->ops[(start + k) % g->nops];
    if (tl_ops[op].result != t) continue;
    tl_expr *e = op_node(g, op);
    /* memory.size/grow, table.size of a 64-bit memory or table give an i64 */
    bool r64 = (tl_ops[op].flags & TL_F_INDEXED) && (tl_index64_mask(g->m, op, e->imm) & TL_IDX64_RESULT);
    return r64 ? k1(g, TL_OP_I32_WRAP_I64, e) : e;
  }
  return NULL;
}

/* table.get/set/grow/fill (typed per table). */
static tl_expr *table_op(gen *g, int op, tl_type t) {
  uint32_t tab = g->has_ext_table && pick(g, 2) ? g->ext_table : 0;
  tl_type et = TL_TABLE(g->m, tab)->elem;
  if (op == TL_OP_TABLE_GET) {
    if (t != TL_FUNCREF && t != TL_EXTERNREF) return NULL;
    tab = t == TL_FUNCREF ? 0 : g->ext_table;
    if (t == TL_EXTERNREF && !g->has_ext_table) return NULL;
    tl_expr *e = k1(g, TL_OP_TABLE_GET, index_of(g, 7, tl_table_is64(g->m, tab)));
    e->imm.index = tab;
    return e;
  }
  tl_expr *e;
  bool w = tl_table_is64(g->m, tab);
  if (op == TL_OP_TABLE_SET) e = k2(g, TL_OP_TABLE_SET, index_of(g, 7, w), make(g, et));
  else if (op == TL_OP_TABLE_GROW) e = k2(g, TL_OP_TABLE_GROW, make(g, et), index_of(g, 3, w));
  else {
    e = node(g, TL_OP_TABLE_FILL, 3);
    e->kid[0] = index_of(g, 7, w);
    e->kid[1] = make(g, et);
    e->kid[2] = index_of(g, 3, w);
  }
  e->imm.index = tab;
  return w && op == TL_OP_TABLE_GROW && t == TL_I32 ? k1(g, TL_OP_I32_WRAP_I64, e) : e;
}

/* --------------------------------------------------------------- control */
static uint32_t push_label(gen *g, tl_type t) {
  uint32_t l = tl_func_new_label(g->m, g->f);
  g->lab[g->nlab++] = (scope){l, t};
  return l;
}

/* A label in scope whose branches carry t; TL_NO_LABEL if none. */
static uint32_t label_of(gen *g, tl_type t) {
  uint32_t c[MAX_LABELS], n = 0;
  for (uint32_t i = 0; i < g->nlab; i++)
    if (g->lab[i].type == t) c[n++] = g->lab[i].label;
  return n ? c[pick(g, n)] : TL_NO_LABEL;
}

static void hang_check(gen *g, tl_expr *block) {
  tl_expr *get = node(g, TL_OP_GLOBAL_GET, 0);
  get->imm.index = g->hang;
  tl_expr *iff = node(g, TL_OP_IF, 2);
  iff->kid[0] = k1(g, TL_OP_I32_EQZ, get);
  iff->kid[1] = node(g, TL_OP_UNREACHABLE, 0);
  tl_expr_push_kid(g->m, block, iff);
  get = node(g, TL_OP_GLOBAL_GET, 0);
  get->imm.index = g->hang;
  tl_expr *set = k1(g, TL_OP_GLOBAL_SET, k2(g, TL_OP_I32_SUB, get, ci32(g, 1)));
  set->imm.index = g->hang;
  tl_expr_push_kid(g->m, block, set);
}

/* A few statements, then a value of t (t none: statements only). */
static void fill(gen *g, tl_expr *b, tl_type t) {
  uint32_t n = g->budget ? pick(g, 4) : 0;
  for (uint32_t i = 0; i < n; i++) tl_expr_push_kid(g->m, b, stmt(g));
  if (t != TL_NONE) tl_expr_push_kid(g->m, b, make(g, t));
  else if (!b->nkid) tl_expr_push_kid(g->m, b, node(g, TL_OP_NOP, 0));
}

static tl_expr *block_of(gen *g, tl_type t) {
  tl_expr *b = node(g, TL_OP_BLOCK, 0);
  b->imm.block.label = push_label(g, t);
  fill(g, b, t);
  g->nlab--;
  return b;
}

static tl_expr *loop_of(gen *g, tl_type t) {
  tl_expr *b = node(g, TL_OP_LOOP, 0);
  uint32_t l = push_label(g, TL_NONE);
  b->imm.block.label = l;
  hang_check(g, b);
  uint32_t n = pick(g, 3);
  for (uint32_t i = 0; i < n; i++) tl_expr_push_kid(g->m, b, stmt(g));
  tl_expr *br = k1(g, TL_OP_BR_IF, make(g, TL_I32));
  br->imm.label = l;
  tl_expr_push_kid(g->m, b, br);
  if (t != TL_NONE) tl_expr_push_kid(g->m, b, make(g, t));
  g->nlab--;
  return b;
}

static tl_expr *arm(gen *g, tl_type t) {
  if (pick(g, 2)) return make(g, t);
  tl_expr *b = node(g, TL_OP_BLOCK, 0);
  fill(g, b, t);
  return b;
}

static tl_expr *if_of(gen *g, tl_type t, bool else_) {
  tl_expr *e = node(g, TL_OP_IF, else_ || t != TL_NONE ? 3 : 2);
  e->kid[0] = make(g, TL_I32);
  e->imm.block.label = push_label(g, t);
  e->kid[1] = arm(g, t);
  if (e->nkid == 3) e->kid[2] = arm(g, t);
  g->nlab--;
  return e;
}

/* br / br_table / return: unreachable-typed. */
static tl_expr *jump(gen *g) {
  uint32_t c = pick(g, 4);
  if (c == 0) {
    tl_expr *e = node(g, TL_OP_RETURN, g->result != TL_NONE);
    if (e->nkid) e->kid[0] = make(g, g->result);
    return e;
  }
  scope s = g->lab[pick(g, g->nlab)];
  if (c == 1) {
    uint32_t n = 1 + pick(g, 4);
    tl_expr *e = node(g, TL_OP_BR_TABLE, s.type != TL_NONE ? 2 : 1);
    e->imm.table = tl_brtable_new(g->m, n);
    for (uint32_t i = 0; i < n; i++) {
      uint32_t l = label_of(g, s.type);
      e->imm.table->targets[i] = l;
    }
    e->imm.table->def = label_of(g, s.type);
    if (s.type != TL_NONE) e->kid[0] = make(g, s.type);
    e->kid[e->nkid - 1] = make(g, TL_I32);
    return e;
  }
  tl_expr *e = node(g, TL_OP_BR, s.type != TL_NONE);
  e->imm.label = s.label;
  if (s.type != TL_NONE) e->kid[0] = make(g, s.type);
  return e;
}

/* ----------------------------------------------------------------- calls */
static tl_type ftype_results(gen *g, uint32_t fi) {
  return TL_FTYPE(g->m, TL_FUNC(g->m, fi)->type)->results;
}

static void call_args(gen *g, tl_expr *e, uint32_t type) {
  tl_type p = TL_FTYPE(g->m, type)->params;
  uint32_t n = tl_type_arity(g->m, p);
  for (uint32_t i = 0; i < n; i++) tl_expr_push_kid(g->m, e, make(g, tl_type_at(g->m, p, i)));
}

/* call, call_indirect, or their tail forms, to a function with results t. */
static tl_expr *call_of(gen *g, tl_type t, bool tail) {
  uint32_t c[64], n = 0, start = pick(g, g->nfunc);
  for (uint32_t k = 0; k < g->nfunc && n < 64; k++) {
    uint32_t fi = (start + k) % g->nfunc;
    if (ftype_results(g, fi) == t) c[n++] = fi;
  }
  if (!n) return NULL;
  uint32_t fi = c[pick(g, n)], type = TL_FUNC(g->m, fi)->type;
  bool ind = pick(g, 3) == 0;
  tl_expr *e = node(g, tail ? (ind ? TL_OP_RETURN_CALL_INDIRECT : TL_OP_RETURN_CALL)
                            : (ind ? TL_OP_CALL_INDIRECT : TL_OP_CALL), 0);
  call_args(g, e, type);
  if (ind) {
    e->imm.idx2.a = type;
    e->imm.idx2.b = 0;
    tl_expr *i = one_in(g, 4) ? make(g, TL_I32) : ci32(g, (int32_t)fi);
    tl_expr_push_kid(g->m, e, g->table64 ? k1(g, TL_OP_I64_EXTEND_I32_U, i) : i);
  } else {
    e->imm.index = fi;
  }
  return e;
}

/* ---------------------------------------------------- exception handling */
/* Everything here runs only when g->eh (fuzz.h: tl_fuzz_options.eh). The
 * IR forms are ir.h's: a legacy catch arm stores its payload in a local, a
 * try_table clause is a branch leaf to a label outside its try_table. */
static tl_type random_params(gen *g);

/* 1..4 tags carrying 0..3 values of the types in use (v128, exnref too). */
static void eh_tags(gen *g) {
  uint32_t n = 1 + pick(g, 4);
  for (uint32_t i = 0; i < n; i++) {
    tl_tag t = {0};
    t.type = tl_functype_intern(g->m, random_params(g), TL_NONE);
    TL_VEC_PUSH(&g->m->tags, tl_tag, t);
  }
  g->ntags = n;
}

static void eh_enter(gen *g, uint32_t label, bool catching) {
  if (g->nehs < MAX_LABELS) g->ehs[g->nehs++] = (ehscope){label, catching};
}

static tl_expr *eh_throw(gen *g) {
  uint32_t tag = pick(g, g->ntags);
  tl_type p = tl_tag_params(g->m, tag);
  tl_expr *e = node(g, TL_OP_THROW, 0);
  e->imm.index = tag;
  for (uint32_t i = 0; i < tl_type_arity(g->m, p); i++) tl_expr_push_kid(g->m, e, make(g, tl_type_at(g->m, p, i)));
  return e;
}

/* rethrow of a try whose catch arm encloses us, at any depth; NULL if none. */
static tl_expr *eh_rethrow(gen *g) {
  uint32_t c[MAX_LABELS], n = 0;
  for (uint32_t i = 0; i < g->nehs; i++)
    if (g->ehs[i].catching) c[n++] = g->ehs[i].label;
  if (!n) return NULL;
  tl_expr *e = node(g, TL_OP_RETHROW, 0);
  e->imm.label = c[pick(g, n)];
  return e;
}

/* throw_ref of an exnref (a caught one in a local, or null: a trap). */
static tl_expr *eh_throw_ref(gen *g) {
  return has(g, TL_FEAT_REFERENCE_TYPES) ? k1(g, TL_OP_THROW_REF, make(g, TL_EXNREF)) : NULL;
}

/* A delegate's target: a try whose body encloses us, or the caller. */
static uint32_t eh_delegate_target(gen *g) {
  uint32_t c[MAX_LABELS], n = 0;
  for (uint32_t i = 0; i < g->nehs; i++)
    if (!g->ehs[i].catching) c[n++] = g->ehs[i].label;
  return n && pick(g, 3) ? c[pick(g, n)] : g->lab[0].label;
}

/* A catch (or catch_all) arm of the try labeled l: the payload goes to a
 * fresh local (or is dropped), the handler may read it and rethrow. */
static tl_expr *eh_catch(gen *g, uint32_t l, tl_type t, bool all) {
  tl_expr *c = node(g, all ? TL_OP_CATCH_ALL : TL_OP_CATCH, 1);
  tl_expr *h = node(g, TL_OP_BLOCK, 0);
  if (!all) {
    uint32_t tag = pick(g, g->ntags), local = TL_NO_INDEX;
    tl_type p = tl_tag_params(g->m, tag);
    if (p != TL_NONE && !one_in(g, 4)) local = tl_func_add_local(g->m, g->f, p);
    c->imm.idx2.a = local;
    c->imm.idx2.b = tag;
    if (local != TL_NO_INDEX && !tl_type_is_tuple(p) && pick(g, 2)) {
      tl_expr *get = node(g, TL_OP_LOCAL_GET, 0);
      get->imm.index = local;
      tl_expr_push_kid(g->m, h, p >= TL_I32 && p <= TL_F64 ? k1(g, TL_OP_CALL, get) : k1(g, TL_OP_DROP, get));
      if (h->kid[0]->op == TL_OP_CALL) h->kid[0]->imm.index = g->log_func[p - TL_I32];
    }
  }
  uint32_t save = g->nehs;
  eh_enter(g, l, true);
  if (one_in(g, 3)) { /* if (x) rethrow, to this try or an outer catching one */
    tl_expr *iff = node(g, TL_OP_IF, 2), *re = eh_rethrow(g);
    iff->kid[0] = make(g, TL_I32);
    iff->kid[1] = re;
    tl_expr_push_kid(g->m, h, iff);
  }
  fill(g, h, t);
  g->nehs = save;
  c->kid[0] = h;
  return c;
}

/* Legacy try of type t: catches (maybe a catch_all, maybe none) or a
 * delegate; the body sometimes starts with a call (throws across calls). */
static tl_expr *eh_try(gen *g, tl_type t) {
  tl_expr *e = node(g, TL_OP_TRY, 0);
  uint32_t l = push_label(g, t), save = g->nehs;
  e->imm.block.label = l;
  eh_enter(g, l, false);
  tl_expr *body = node(g, TL_OP_BLOCK, 0);
  tl_expr *call = pick(g, 2) ? call_of(g, TL_NONE, false) : NULL;
  if (call) tl_expr_push_kid(g->m, body, call);
  fill(g, body, t);
  tl_expr_push_kid(g->m, e, body);
  g->nehs = save;
  if (one_in(g, 4)) {
    tl_expr *d = node(g, TL_OP_DELEGATE, 0);
    d->imm.label = eh_delegate_target(g);
    tl_expr_push_kid(g->m, e, d);
  } else {
    uint32_t n = pick(g, 3);
    bool all = n ? pick(g, 2) : !one_in(g, 4);
    for (uint32_t i = 0; i < n; i++) tl_expr_push_kid(g->m, e, eh_catch(g, l, t, false));
    if (all) tl_expr_push_kid(g->m, e, eh_catch(g, l, t, true));
  }
  g->nlab--;
  return e;
}

/* What a try_table clause of kind k (0..3: catch, catch_ref, catch_all,
 * catch_all_ref) for tag sends its label; false if that needs multi-value
 * and the module has none. */
static bool eh_clause_type(gen *g, uint32_t k, uint32_t tag, tl_type *out) {
  tl_type parts[4];
  uint32_t n = 0;
  if (k < 2) {
    tl_type p = tl_tag_params(g->m, tag);
    for (uint32_t i = 0; i < tl_type_arity(g->m, p); i++) parts[n++] = tl_type_at(g->m, p, i);
  }
  if (k & 1) parts[n++] = TL_EXNREF;
  if ((k & 1) && !has(g, TL_FEAT_REFERENCE_TYPES)) return false; /* exnref values need ref.null */
  if (n > 1 && !has(g, TL_FEAT_MULTIVALUE)) return false;
  *out = n == 0 ? TL_NONE : n == 1 ? parts[0] : tl_type_tuple(g->m, parts, n);
  return true;
}

/* A clause of kind k to label l (TL_NO_LABEL: any label in scope that
 * takes what it sends); NULL if there is none. */
static tl_expr *eh_clause(gen *g, uint32_t k, uint32_t tag, uint32_t l) {
  tl_type ct;
  if (!eh_clause_type(g, k, tag, &ct)) return NULL;
  if (l == TL_NO_LABEL) l = label_of(g, ct);
  if (l == TL_NO_LABEL) return NULL;
  tl_expr *c = node(g, (tl_op)(TL_OP_TT_CATCH + k), 0);
  c->imm.idx2.a = l;
  c->imm.idx2.b = k < 2 ? tag : 0;
  return c;
}

/* What a handler block's values become: dropped, kept in a local, or (an
 * exnref alone) thrown again with throw_ref. */
static tl_expr *eh_consume(gen *g, tl_expr *hb, tl_type ct) {
  if (ct == TL_NONE) return hb;
  if (ct == TL_EXNREF && one_in(g, 3)) return k1(g, TL_OP_THROW_REF, hb);
  if (pick(g, 2)) {
    tl_expr *set = k1(g, TL_OP_LOCAL_SET, hb);
    set->imm.index = tl_func_add_local(g->m, g->f, ct);
    return set;
  }
  return k1(g, TL_OP_DROP, hb);
}

/* try_table of type t, its clauses to labels in scope; often wrapped as
 *   block $o (t) (block $h (ct) (br $o (try_table (catch.. $h) ...))) use $h's values; ... end
 * so that a clause of each kind has a handler taking its values. */
static tl_expr *eh_try_table(gen *g, tl_type t) {
  uint32_t kind = pick(g, 4), tag = pick(g, g->ntags);
  tl_type ct = TL_NONE;
  bool wrap = pick(g, 3) != 0 && eh_clause_type(g, kind, tag, &ct);
  tl_expr *outer = NULL, *hb = NULL;
  if (wrap) {
    outer = node(g, TL_OP_BLOCK, 0);
    outer->imm.block.label = push_label(g, t);
    hb = node(g, TL_OP_BLOCK, 0);
    hb->imm.block.label = push_label(g, ct);
  }
  tl_expr *clauses[4];
  uint32_t nc = 0;
  if (wrap) clauses[nc++] = eh_clause(g, kind, tag, hb->imm.block.label);
  for (uint32_t i = pick(g, 3); i > 0; i--) {
    tl_expr *c = eh_clause(g, pick(g, 4), pick(g, g->ntags), TL_NO_LABEL);
    if (c) clauses[nc++] = c;
  }
  tl_expr *tt = node(g, TL_OP_TRY_TABLE, 1);
  tt->imm.block.label = push_label(g, t);
  tl_expr *body = node(g, TL_OP_BLOCK, 0);
  tl_expr *call = pick(g, 2) ? call_of(g, TL_NONE, false) : NULL;
  if (call) tl_expr_push_kid(g->m, body, call);
  fill(g, body, t);
  tt->kid[0] = body;
  g->nlab--;
  for (uint32_t i = 0; i < nc; i++) tl_expr_push_kid(g->m, tt, clauses[i]);
  if (!wrap) return tt;
  tl_expr *br = node(g, TL_OP_BR, t != TL_NONE);
  br->imm.label = outer->imm.block.label;
  if (t != TL_NONE) br->kid[0] = tt;
  else tl_expr_push_kid(g->m, hb, tt);
  tl_expr_push_kid(g->m, hb, br);
  g->nlab--;
  tl_expr_push_kid(g->m, outer, eh_consume(g, hb, ct));
  fill(g, outer, t);
  g->nlab--;
  return outer;
}

/* An EH construct of type t (or an unreachable-typed throw); NULL: none. */
static tl_expr *eh_value(gen *g, tl_type t) {
  uint32_t k = pick(g, 8);
  if (g->eh_legacy && k >= 3 && k <= 5) return eh_try(g, t);
  switch (k) {
  case 0: case 1: case 2: return eh_try(g, t);
  case 3: case 4: case 5: return eh_try_table(g, t);
  case 6: return one_in(g, 2) ? eh_throw(g) : eh_rethrow(g);
  default: return t == TL_EXNREF ? leaf(g, t) : NULL;
  }
}

/* An EH statement: a try or try_table, throw, rethrow, throw_ref. */
static tl_expr *eh_stmt(gen *g) {
  uint32_t k = pick(g, 8);
  if (g->eh_legacy && (k == 2 || k == 3)) return eh_try(g, TL_NONE);
  if (g->eh_legacy && k == 6) return NULL;
  switch (k) {
  case 0: case 1: return eh_try(g, TL_NONE);
  case 2: case 3: return eh_try_table(g, TL_NONE);
  case 4: return eh_throw(g);
  case 5: return eh_rethrow(g);
  case 6: return one_in(g, 2) ? eh_throw_ref(g) : NULL;
  default: return NULL;
  }
}

/* -------------------------------------------------------------------- GC */
/* Everything here runs only when g->gc (fuzz.h: TL_FUZZ_GC_ON). Types: a
 * few rec groups of structs, arrays and function types, some declared as
 * subtypes of earlier open ones (fields kept, immutable ones refined, new
 * ones appended). A non-null reference in a type names only an earlier
 * type, so every type has values and building one ends (gc_new's depth
 * is bounded by MAX_DEFS, not by the input). Values of reference types
 * come from allocations, casts, field and element reads and br_on_*;
 * scalars from reads, ref.test, ref.eq, array.len and i31.get, so that
 * exports, which return only scalars, show what the heap holds. */
static const uint8_t gc_abstract[] = {TL_HT_ANY, TL_HT_EQ, TL_HT_I31, TL_HT_STRUCT, TL_HT_ARRAY, TL_HT_NONE,
                                      TL_HT_FUNC, TL_HT_NOFUNC, TL_HT_EXTERN, TL_HT_NOEXTERN};

static tl_deftype *gc_def(gen *g, uint32_t idx) { return TL_FTYPE(g->m, idx); }

/* An abstract reference type for a field or parameter; non-null only where
 * a value always exists without a defined type. */
static tl_type gc_abstract_ref(gen *g) {
  uint32_t h = gc_abstract[pick(g, 9)];
  bool always = h == TL_HT_ANY || h == TL_HT_EQ || h == TL_HT_I31 || h == TL_HT_FUNC || h == TL_HT_EXTERN;
  return tl_ref(h, !(always && one_in(g, 3)));
}

/* Whether a non-null reference may name type idx: one of an earlier group
 * whose values nest at most GC_MAX_LEVEL non-null references deep (so a
 * value of any type is a small tree). */
#define GC_MAX_LEVEL 2
static bool gc_nonnull_ok(gen *g, uint32_t idx, uint32_t g0) {
  return idx < g0 && idx < GC_MAX_IDX && g->lvl[idx] < GC_MAX_LEVEL;
}

/* A reference to a type of an earlier group (g->def) or of the group being
 * built (module indices from g0 below gend). */
static tl_type gc_def_ref(gen *g, uint32_t g0, uint32_t gend) {
  uint32_t n = g->ndef + (gend - g0), k = pick(g, n);
  uint32_t idx = k < g->ndef ? g->def[k] : g0 + (k - g->ndef);
  return tl_ref_def(idx, !gc_nonnull_ok(g, idx, g0) || pick(g, 2));
}

/* A storage type for a field or an array element. */
static tl_field gc_field(gen *g, uint32_t g0, uint32_t gend) {
  tl_field f = {TL_I32, TL_PACK_NONE, pick(g, 3) != 0, NULL};
  uint32_t c = pick(g, 12);
  if (c < 4) f.type = TL_I32 + c;
  else if (c < 6) f.pack = c == 4 ? TL_PACK_I8 : TL_PACK_I16;
  else if (c == 6 && has(g, TL_FEAT_SIMD)) f.type = TL_V128;
  else if (c < 9) f.type = gc_abstract_ref(g);
  else f.type = gc_def_ref(g, g0, gend);
  return f;
}

/* t refined for a subtype's immutable field or a function result: a
 * nullable reference made non-null where that keeps it inhabited. */
static tl_type gc_refine(gen *g, tl_type t, uint32_t g0) {
  if (t < TL_REF_BASE && t != TL_FUNCREF && t != TL_EXTERNREF) return t;
  if (!tl_ref_nullable(t) || !pick(g, 2)) return t;
  uint32_t h = tl_ref_heap(t);
  bool ok = tl_heap_is_def(h) ? gc_nonnull_ok(g, h - TL_HT_DEF, g0)
                              : h == TL_HT_ANY || h == TL_HT_EQ || h == TL_HT_I31 || h == TL_HT_FUNC || h == TL_HT_EXTERN;
  return ok ? tl_ref(h, false) : t;
}

/* An open type of kind-any below self to declare as supertype, or
 * TL_NO_SUPER; grp holds the group's members built so far. */
static uint32_t gc_pick_super(gen *g, const tl_deftype *grp, uint32_t g0, uint32_t self) {
  uint32_t c[MAX_DEFS + 4], n = 0;
  for (uint32_t i = 0; i < g->ndef; i++)
    if (gc_def(g, g->def[i])->open) c[n++] = g->def[i];
  for (uint32_t i = g0; i < self; i++)
    if (grp[i - g0].open) c[n++] = i;
  return n && pick(g, 2) ? c[pick(g, n)] : TL_NO_SUPER;
}

static tl_type gc_func_part(gen *g, uint32_t g0, uint32_t gend, uint32_t n) {
  tl_type t[3];
  for (uint32_t i = 0; i < n; i++) {
    tl_field f = gc_field(g, g0, gend);
    t[i] = f.pack ? TL_I32 : f.type;
  }
  return n == 0 ? TL_NONE : n == 1 ? t[0] : tl_type_tuple(g->m, t, n);
}

/* Member self of the group [g0, gend) (grp: its members, fields: room for
 * GC_MAX_FIELDS). */
#define GC_MAX_FIELDS 6
static void gc_deftype(gen *g, tl_deftype *grp, tl_field *fields, uint32_t g0, uint32_t self, uint32_t gend) {
  tl_deftype *d = &grp[self - g0];
  memset(d, 0, sizeof *d);
  d->open = !one_in(g, 3);
  d->super = gc_pick_super(g, grp, g0, self);
  const tl_deftype *s = d->super == TL_NO_SUPER ? NULL : d->super < g0 ? gc_def(g, d->super) : &grp[d->super - g0];
  uint32_t k = pick(g, 6);
  d->kind = s ? s->kind : k < 3 ? TL_DT_STRUCT : k < 5 ? TL_DT_ARRAY : TL_DT_FUNC;
  d->fields = fields;
  if (d->kind == TL_DT_FUNC) {
    d->params = s ? s->params : gc_func_part(g, g0, gend, pick(g, 3));
    d->results = s ? gc_refine(g, s->results, g0) : gc_func_part(g, g0, gend, pick(g, 2));
    return;
  }
  uint32_t n = s ? s->nfields : 0;
  for (uint32_t i = 0; i < n; i++) {
    fields[i] = s->fields[i];
    if (!fields[i].mut) fields[i].type = gc_refine(g, fields[i].type, g0);
  }
  if (d->kind == TL_DT_ARRAY && !s) fields[n++] = gc_field(g, g0, gend);
  if (d->kind == TL_DT_STRUCT)
    for (uint32_t add = pick(g, s ? 3 : 5); add && n < GC_MAX_FIELDS; add--) fields[n++] = gc_field(g, g0, gend);
  d->nfields = n;
}

/* How deep d's values nest non-null references (0: none). */
static uint8_t gc_level(gen *g, const tl_deftype *d) {
  uint8_t l = 0;
  for (uint32_t i = 0; d->kind != TL_DT_FUNC && i < d->nfields; i++) {
    tl_type t = d->fields[i].type;
    if (t < TL_REF_BASE || tl_ref_nullable(t) || !tl_heap_is_def(tl_ref_heap(t))) continue;
    uint32_t x = tl_ref_heap(t) - TL_HT_DEF;
    uint8_t lx = x < GC_MAX_IDX ? g->lvl[x] : GC_MAX_LEVEL;
    if (lx + 1 > l) l = (uint8_t)(lx + 1);
  }
  return l;
}

/* The type section's GC part: 1..5 rec groups of 1..3 types. */
static void gc_types(gen *g) {
  uint32_t ng = 1 + pick(g, 5);
  for (uint32_t k = 0; k < ng && g->ndef + 3 <= MAX_DEFS; k++) {
    uint32_t n = one_in(g, 3) ? 2 + pick(g, 2) : 1, g0 = (uint32_t)g->m->types.n;
    tl_deftype grp[3];
    tl_field fields[3][GC_MAX_FIELDS];
    for (uint32_t i = 0; i < n; i++) gc_deftype(g, grp, fields[i], g0, g0 + i, g0 + n);
    char err[160];
    if (!tl_types_add_group(g->m, grp, n, err, sizeof err)) {
      fprintf(stderr, "tl_fuzz_generate: bad GC type: %s\n", err); /* a generator bug */
      abort();
    }
    if (gc_def(g, g0)->canon != g0) continue; /* a group seen before: use the first */
    for (uint32_t i = 0; i < n; i++) {
      g->def[g->ndef++] = g0 + i;
      if (g0 + i < GC_MAX_IDX) g->lvl[g0 + i] = gc_level(g, gc_def(g, g0 + i));
    }
  }
}

/* A few GC reference types for locals, globals, parameters and results. */
static void gc_value_types(gen *g) {
  g->vt[g->nvt++] = tl_ref(TL_HT_ANY, true);
  g->vt[g->nvt++] = tl_ref(pick(g, 2) ? TL_HT_EQ : TL_HT_STRUCT, true);
  g->vt[g->nvt++] = tl_ref(TL_HT_I31, pick(g, 2));
  for (uint32_t i = 0, n = g->ndef ? 2 + pick(g, 3) : 0; i < n; i++)
    g->vt[g->nvt++] = tl_ref_def(g->def[pick(g, g->ndef)], pick(g, 3) != 0);
}

static tl_expr *ref_null(gen *g, tl_type t) {
  tl_expr *e = node(g, TL_OP_REF_NULL, 0);
  e->imm.index = tl_ref_with_null(t, true);
  return e;
}

/* A defined function whose type is under heap type ht, or TL_NO_INDEX. */
static uint32_t gc_func_of(gen *g, uint32_t ht) {
  uint32_t c[64], n = 0;
  for (uint32_t i = 0; i < g->nfunc && n < 64; i++)
    if (tl_heap_sub(g->m, TL_HT_DEF + gc_def(g, TL_FUNC(g->m, i)->type)->canon, ht)) c[n++] = i;
  return n ? c[pick(g, n)] : TL_NO_INDEX;
}

/* A GC type (of g->def) under heap type ht, of kind `kind` (TL_DT_FUNC + 3:
 * struct or array), or TL_NO_INDEX. */
static uint32_t gc_def_under(gen *g, uint32_t ht, uint32_t kind) {
  uint32_t c[MAX_DEFS], n = 0;
  for (uint32_t i = 0; i < g->ndef; i++) {
    const tl_deftype *d = gc_def(g, g->def[i]);
    if ((kind > TL_DT_ARRAY ? d->kind != TL_DT_FUNC : d->kind == kind) && tl_heap_sub(g->m, TL_HT_DEF + g->def[i], ht))
      c[n++] = g->def[i];
  }
  return n ? c[pick(g, n)] : TL_NO_INDEX;
}

static tl_expr *gc_new(gen *g, tl_type t, bool konst, uint32_t depth);

/* A value of t: in a constant expression (konst) or from make. */
static tl_expr *gc_operand(gen *g, tl_type t, bool konst, uint32_t depth) {
  if (!konst) return make(g, t);
  return tl_type_is_ref(t) && t != TL_EXNREF ? gc_new(g, t, true, depth + 1) : constant(g, t);
}

/* A small array length or index. */
static tl_expr *gc_small(gen *g, bool konst, uint32_t mask) {
  if (konst || pick(g, 3) == 0) return ci32(g, (int32_t)pick(g, mask + 1));
  return masked(g, mask);
}

static tl_expr *gc_new_array(gen *g, uint32_t idx, bool konst, uint32_t depth) {
  const tl_field *f = &gc_def(g, idx)->fields[0];
  tl_type et = tl_gc_unpacked(f);
  uint32_t c = pick(g, 4);
  tl_expr *e;
  if (c == 0 && tl_type_defaultable(et)) {
    e = k1(g, TL_OP_ARRAY_NEW_DEFAULT, gc_small(g, konst, 7));
    e->imm.index = idx;
  } else if (c == 1) {
    e = k2(g, TL_OP_ARRAY_NEW, gc_operand(g, et, konst, depth), gc_small(g, konst, 7));
    e->imm.index = idx;
  } else if (c == 2 && !konst && !tl_type_is_ref(et) && has(g, TL_FEAT_BULK_MEMORY)) {
    e = k2(g, TL_OP_ARRAY_NEW_DATA, gc_small(g, false, 7), gc_small(g, false, 3));
    e->imm.idx2.a = idx;
    e->imm.idx2.b = pick(g, 2);
  } else {
    uint32_t n = konst && !g->cbudget ? 0 : pick(g, 4);
    e = node(g, TL_OP_ARRAY_NEW_FIXED, n);
    e->imm.idx2.a = idx;
    e->imm.idx2.b = n;
    for (uint32_t i = 0; i < n; i++) e->kid[i] = gc_operand(g, et, konst, depth);
  }
  return e;
}

/* An allocation (or ref.func) of defined type idx. */
static tl_expr *gc_new_def(gen *g, uint32_t idx, bool konst, uint32_t depth) {
  const tl_deftype *d = gc_def(g, idx);
  if (d->kind == TL_DT_ARRAY) return gc_new_array(g, idx, konst, depth);
  if (d->kind == TL_DT_FUNC) {
    uint32_t fi = gc_func_of(g, TL_HT_DEF + d->canon);
    if (fi == TL_NO_INDEX) return konst ? NULL : node(g, TL_OP_UNREACHABLE, 0);
    tl_expr *e = node(g, TL_OP_REF_FUNC, 0);
    e->imm.index = fi;
    return e;
  }
  bool dflt = true;
  for (uint32_t i = 0; i < d->nfields; i++) dflt = dflt && tl_type_defaultable(d->fields[i].type);
  tl_expr *e = node(g, dflt && one_in(g, 3) ? TL_OP_STRUCT_NEW_DEFAULT : TL_OP_STRUCT_NEW, 0);
  e->imm.index = idx;
  if (e->op == TL_OP_STRUCT_NEW)
    for (uint32_t i = 0; i < d->nfields; i++)
      tl_expr_push_kid(g->m, e, gc_operand(g, tl_gc_unpacked(&d->fields[i]), konst, depth));
  return e;
}

static tl_expr *gc_i31(gen *g, bool konst) {
  return k1(g, TL_OP_REF_I31, konst ? constant(g, TL_I32) : make(g, TL_I32));
}

/* A new value of reference type t (null now and then when t allows it);
 * in a constant expression with konst. Unreachable (or, konst, NULL) only
 * for a type without values. */
static tl_expr *gc_new(gen *g, tl_type t, bool konst, uint32_t depth) {
  uint32_t ht = tl_ref_heap(t);
  bool nullable = tl_ref_nullable(t);
  if (nullable && (depth > 3 || !g->cbudget || one_in(g, 5))) return ref_null(g, t);
  if (g->cbudget) g->cbudget--;
  tl_expr *e = NULL;
  if (tl_heap_is_def(ht)) {
    uint32_t k = gc_def(g, ht - TL_HT_DEF)->kind;
    /* deep down, the type itself: its non-null fields name earlier types */
    bool exact = k == TL_DT_FUNC || !g->cbudget || depth > 2;
    uint32_t sub = exact ? ht - TL_HT_DEF : gc_def_under(g, ht, k);
    e = gc_new_def(g, sub == TL_NO_INDEX ? ht - TL_HT_DEF : sub, konst, depth);
  } else if (ht == TL_HT_I31 || ((ht == TL_HT_ANY || ht == TL_HT_EQ) && (depth > 3 || one_in(g, 3)))) {
    e = gc_i31(g, konst);
  } else if (ht == TL_HT_ANY || ht == TL_HT_EQ || ht == TL_HT_STRUCT || ht == TL_HT_ARRAY) {
    uint32_t sub = gc_def_under(g, ht, ht == TL_HT_STRUCT ? TL_DT_STRUCT : ht == TL_HT_ARRAY ? TL_DT_ARRAY : 3);
    if (sub != TL_NO_INDEX) e = gc_new_def(g, sub, konst, depth);
    else if (ht == TL_HT_ANY || ht == TL_HT_EQ) e = gc_i31(g, konst);
  } else if (ht == TL_HT_FUNC) {
    e = node(g, TL_OP_REF_FUNC, 0);
    e->imm.index = pick(g, g->nfunc);
  } else if (ht == TL_HT_EXTERN) {
    e = k1(g, TL_OP_EXTERN_CONVERT_ANY, gc_new(g, tl_ref(TL_HT_ANY, nullable), konst, depth + 1));
  }
  if (e) return e;
  if (nullable) return ref_null(g, t);
  return konst ? NULL : node(g, TL_OP_UNREACHABLE, 0);
}

/* A cast target under t: an abstract or defined heap type, nullable only
 * when t is (and then half the time). */
static tl_type gc_cast_type(gen *g, tl_type t) {
  uint32_t ht = tl_ref_heap(t), c[MAX_DEFS + 16], n = 0;
  for (uint32_t i = 0; i < sizeof gc_abstract; i++)
    if (tl_heap_sub(g->m, gc_abstract[i], ht)) c[n++] = gc_abstract[i];
  for (uint32_t i = 0; i < g->ndef; i++)
    if (tl_heap_sub(g->m, TL_HT_DEF + g->def[i], ht)) c[n++] = TL_HT_DEF + g->def[i];
  for (uint32_t i = 0; i < g->nfunc; i++) /* function types too: casts of ref.func */
    if (n < MAX_DEFS + 16 && tl_heap_sub(g->m, TL_HT_DEF + gc_def(g, TL_FUNC(g->m, i)->type)->canon, ht))
      c[n++] = TL_HT_DEF + gc_def(g, TL_FUNC(g->m, i)->type)->canon;
  uint32_t h = n ? c[pick(g, n)] : ht;
  bool bottom = h == TL_HT_NONE || h == TL_HT_NOFUNC || h == TL_HT_NOEXTERN; /* only null: keep it */
  return tl_ref(h, tl_ref_nullable(t) && (bottom || pick(g, 2)));
}

/* The top of t's hierarchy (nullable), t a GC-hierarchy reference. */
static tl_type gc_top(gen *g, tl_type t) { return tl_ref(tl_heap_top(g->m, tl_ref_heap(t)), true); }

/* A reference type to cast from: some type of the hierarchy of top. */
static tl_type gc_source(gen *g, tl_type top) {
  tl_type c[32];
  uint32_t n = 0;
  for (uint32_t i = 0; i < g->nvt; i++)
    if (tl_type_is_ref(g->vt[i]) && gc_top(g, g->vt[i]) == top) c[n++] = g->vt[i];
  return n && pick(g, 3) ? c[pick(g, n)] : top;
}

/* A label whose branches may carry t (a subtype of its type). */
static uint32_t label_sub(gen *g, tl_type t) {
  uint32_t c[MAX_LABELS], n = 0;
  for (uint32_t i = 0; i < g->nlab; i++)
    if (g->lab[i].type != TL_NONE && tl_type_sub(g->m, t, g->lab[i].type)) c[n++] = g->lab[i].label;
  return n ? c[pick(g, n)] : TL_NO_LABEL;
}

/* struct.get(_s/_u) or array.get(_s/_u) of a field or element whose value
 * type is under t; NULL if there is none. */
static tl_expr *gc_read(gen *g, tl_type t) {
  uint32_t c[MAX_DEFS * GC_MAX_FIELDS][2], n = 0;
  for (uint32_t i = 0; i < g->ndef; i++) {
    const tl_deftype *d = gc_def(g, g->def[i]);
    for (uint32_t k = 0; k < d->nfields; k++)
      if (tl_type_sub(g->m, tl_gc_unpacked(&d->fields[k]), t)) c[n][0] = g->def[i], c[n++][1] = k;
  }
  if (!n) return NULL;
  uint32_t j = pick(g, n), idx = c[j][0], k = c[j][1];
  const tl_deftype *d = gc_def(g, idx);
  bool packed = d->fields[k].pack != TL_PACK_NONE, s = pick(g, 2);
  tl_expr *ref = make(g, tl_ref_def(idx, one_in(g, 3)));
  tl_expr *e;
  if (d->kind == TL_DT_STRUCT) {
    e = k1(g, packed ? (s ? TL_OP_STRUCT_GET_S : TL_OP_STRUCT_GET_U) : TL_OP_STRUCT_GET, ref);
    e->imm.idx2.a = idx;
    e->imm.idx2.b = k;
  } else {
    e = k2(g, packed ? (s ? TL_OP_ARRAY_GET_S : TL_OP_ARRAY_GET_U) : TL_OP_ARRAY_GET, ref, gc_small(g, false, 3));
    e->imm.index = idx;
  }
  return e;
}

/* call_ref (or return_call_ref) of a function type with results t. */
static tl_expr *gc_call_ref(gen *g, tl_type t, bool tail) {
  uint32_t c[64], n = 0;
  for (uint32_t i = 0; i < g->m->types.n && n < 64; i++) {
    const tl_deftype *d = gc_def(g, i);
    if (d->kind == TL_DT_FUNC && d->canon == i && d->results == t && gc_func_of(g, TL_HT_DEF + i) != TL_NO_INDEX)
      c[n++] = i;
  }
  if (!n) return NULL;
  uint32_t idx = c[pick(g, n)];
  tl_expr *e = node(g, tail ? TL_OP_RETURN_CALL_REF : TL_OP_CALL_REF, 0);
  e->imm.index = idx;
  call_args(g, e, idx);
  tl_expr_push_kid(g->m, e, make(g, tl_ref_def(idx, one_in(g, 4))));
  return e;
}

/* br_on_cast or br_on_cast_fail giving a value under t. */
static tl_expr *gc_br_on_cast(gen *g, tl_type t) {
  tl_type rt = gc_cast_type(g, t);
  bool fail = pick(g, 2);
  uint32_t l = label_sub(g, fail ? t : rt);
  if (l == TL_NO_LABEL) return NULL;
  tl_expr *e = k1(g, fail ? TL_OP_BR_ON_CAST_FAIL : TL_OP_BR_ON_CAST, make(g, t));
  e->imm.idx2.a = l;
  e->imm.idx2.b = rt;
  return e;
}

/* A value of reference type t (GC hierarchies); NULL: none this time. */
static tl_expr *gc_ref_value(gen *g, tl_type t) {
  uint32_t ht = tl_ref_heap(t);
  tl_expr *e;
  switch (pick(g, 9)) {
  case 0: case 1: return gc_new(g, t, false, 0);
  case 2:
    e = k1(g, TL_OP_REF_CAST, make(g, gc_source(g, gc_top(g, t))));
    e->imm.index = gc_cast_type(g, t);
    return e;
  case 3: return gc_read(g, t);
  case 4: {
    if (tl_ref_nullable(t)) return NULL;
    uint32_t l = pick(g, 2) ? label_of(g, TL_NONE) : TL_NO_LABEL;
    e = k1(g, l == TL_NO_LABEL ? TL_OP_REF_AS_NON_NULL : TL_OP_BR_ON_NULL, make(g, tl_ref_with_null(t, true)));
    if (l != TL_NO_LABEL) e->imm.label = l;
    return e;
  }
  case 5: return gc_br_on_cast(g, t);
  case 6:
    if (ht == TL_HT_ANY) return k1(g, TL_OP_ANY_CONVERT_EXTERN, make(g, tl_ref(TL_HT_EXTERN, tl_ref_nullable(t))));
    if (ht == TL_HT_EXTERN) return k1(g, TL_OP_EXTERN_CONVERT_ANY, make(g, tl_ref(TL_HT_ANY, tl_ref_nullable(t))));
    return NULL;
  case 7: return gc_call_ref(g, t, false);
  default: return NULL;
  }
}

/* A scalar from the heap or from a reference: NULL when none fits t. */
static tl_expr *gc_scalar(gen *g, tl_type t) {
  if (t != TL_I32 || pick(g, 3) == 0) return pick(g, 4) ? gc_read(g, t) : gc_call_ref(g, t, false);
  tl_expr *e;
  switch (pick(g, 6)) {
  case 0: case 1: {
    tl_type top = tl_ref(gc_abstract[pick(g, sizeof gc_abstract)], true);
    top = gc_top(g, top);
    e = k1(g, TL_OP_REF_TEST, make(g, gc_source(g, top)));
    e->imm.index = gc_cast_type(g, top);
    return e;
  }
  case 2: {
    tl_type eq = tl_ref(TL_HT_EQ, true);
    return k2(g, TL_OP_REF_EQ, make(g, gc_cast_type(g, eq)), make(g, gc_cast_type(g, eq)));
  }
  case 3: return k1(g, TL_OP_ARRAY_LEN, make(g, gc_cast_type(g, tl_ref(TL_HT_ARRAY, true))));
  case 4: return k1(g, pick(g, 2) ? TL_OP_I31_GET_S : TL_OP_I31_GET_U, make(g, tl_ref(TL_HT_I31, one_in(g, 4))));
  default: return k1(g, TL_OP_REF_IS_NULL, make(g, gc_source(g, tl_ref(TL_HT_ANY, true))));
  }
}

static tl_expr *gc_value(gen *g, tl_type t) {
  if (tl_type_is_ref(t)) return tl_heap_top(g->m, tl_ref_heap(t)) == TL_HT_EXN ? NULL : gc_ref_value(g, t);
  return gc_scalar(g, t);
}

/* A GC type of kind `kind` with a mutable field (element) k; false if none. */
static bool gc_mutable(gen *g, uint32_t kind, uint32_t *idx, uint32_t *k) {
  uint32_t c[MAX_DEFS * GC_MAX_FIELDS][2], n = 0;
  for (uint32_t i = 0; i < g->ndef; i++) {
    const tl_deftype *d = gc_def(g, g->def[i]);
    if (d->kind != kind) continue;
    for (uint32_t f = 0; f < d->nfields; f++)
      if (d->fields[f].mut) c[n][0] = g->def[i], c[n++][1] = f;
  }
  if (!n) return false;
  uint32_t j = pick(g, n);
  *idx = c[j][0], *k = c[j][1];
  return true;
}

/* array.copy into dst from an array type whose element fits. */
static tl_expr *gc_array_copy(gen *g, uint32_t dst) {
  tl_field *df = &gc_def(g, dst)->fields[0];
  uint32_t c[MAX_DEFS], n = 0;
  for (uint32_t i = 0; i < g->ndef; i++) {
    const tl_deftype *d = gc_def(g, g->def[i]);
    if (d->kind == TL_DT_ARRAY && d->fields[0].pack == df->pack && tl_type_sub(g->m, d->fields[0].type, df->type))
      c[n++] = g->def[i];
  }
  uint32_t src = n ? c[pick(g, n)] : dst;
  tl_expr *e = node(g, TL_OP_ARRAY_COPY, 5);
  e->imm.idx2.a = dst;
  e->imm.idx2.b = src;
  e->kid[0] = make(g, tl_ref_def(dst, one_in(g, 4)));
  e->kid[1] = gc_small(g, false, 3);
  e->kid[2] = make(g, tl_ref_def(src, one_in(g, 4)));
  e->kid[3] = gc_small(g, false, 3);
  e->kid[4] = gc_small(g, false, 3);
  return e;
}

/* An array write: set, fill, copy or init_data. */
static tl_expr *gc_array_write(gen *g, uint32_t idx) {
  tl_type et = tl_gc_unpacked(&gc_def(g, idx)->fields[0]);
  tl_type r = tl_ref_def(idx, one_in(g, 4));
  tl_expr *e;
  switch (pick(g, 4)) {
  case 0:
    e = node(g, TL_OP_ARRAY_FILL, 4);
    e->kid[0] = make(g, r), e->kid[1] = gc_small(g, false, 3);
    e->kid[2] = make(g, et), e->kid[3] = gc_small(g, false, 3);
    break;
  case 1: return gc_array_copy(g, idx);
  case 2:
    if (!tl_type_is_ref(et) && has(g, TL_FEAT_BULK_MEMORY)) {
      e = node(g, TL_OP_ARRAY_INIT_DATA, 4);
      e->imm.idx2.a = idx, e->imm.idx2.b = pick(g, 2);
      for (uint32_t i = 0; i < 4; i++) e->kid[i] = i == 0 ? make(g, r) : gc_small(g, false, 3);
      return e;
    }
    /* fallthrough */
  default:
    e = node(g, TL_OP_ARRAY_SET, 3);
    e->kid[0] = make(g, r), e->kid[1] = gc_small(g, false, 3), e->kid[2] = make(g, et);
    break;
  }
  e->imm.index = idx;
  return e;
}

/* A GC statement: a field or element write, br_on_non_null, call_ref. */
static tl_expr *gc_stmt(gen *g) {
  uint32_t idx, k;
  switch (pick(g, 5)) {
  case 0: {
    if (!gc_mutable(g, TL_DT_STRUCT, &idx, &k)) return NULL;
    tl_expr *e = k2(g, TL_OP_STRUCT_SET, make(g, tl_ref_def(idx, one_in(g, 4))),
                    make(g, tl_gc_unpacked(&gc_def(g, idx)->fields[k])));
    e->imm.idx2.a = idx, e->imm.idx2.b = k;
    return e;
  }
  case 1: return gc_mutable(g, TL_DT_ARRAY, &idx, &k) ? gc_array_write(g, idx) : NULL;
  case 2: {
    uint32_t c[MAX_LABELS], n = 0;
    for (uint32_t i = 0; i < g->nlab; i++)
      if (g->lab[i].type >= TL_REF_BASE && tl_heap_top(g->m, tl_ref_heap(g->lab[i].type)) != TL_HT_EXN) c[n++] = i;
    if (!n) return NULL;
    scope s = g->lab[c[pick(g, n)]];
    tl_expr *b = k1(g, TL_OP_BR_ON_NON_NULL, make(g, tl_ref_with_null(s.type, true)));
    b->imm.label = s.label;
    return b;
  }
  case 3: return gc_call_ref(g, TL_NONE, false);
  default: {
    tl_type t = tl_ref(gc_abstract[pick(g, 6)], true);
    return k1(g, TL_OP_DROP, make(g, gc_cast_type(g, t)));
  }
  }
}

/* Non-null locals are set first thing (the 3.0 local-initialization
 * rule), from constant expressions: nothing reads a local before. */
static void gc_init_locals(gen *g, tl_expr *body, uint32_t from) {
  for (uint32_t i = from; i < g->f->nlocal; i++) {
    tl_type t = g->f->local[i];
    if (tl_type_defaultable(t)) continue;
    g->cbudget = 8;
    tl_expr *v = gc_new(g, t, true, 0);
    tl_expr *set = k1(g, TL_OP_LOCAL_SET, v ? v : node(g, TL_OP_UNREACHABLE, 0));
    set->imm.index = i;
    tl_expr_push_kid(g->m, body, set);
  }
}

/* Types of a constant expression's nodes, children first (an explicit
 * stack: gc_new's trees are a few levels deep, but no recursion). */
static void gc_finalize_const(gen *g, tl_expr *root) {
  struct { tl_expr *e; uint32_t next; } st[64];
  uint32_t n = 0;
  st[n++].e = root, st[0].next = 0;
  while (n) {
    tl_expr *e = st[n - 1].e;
    if (st[n - 1].next < e->nkid && n < 64) {
      tl_expr *k = e->kid[st[n - 1].next++];
      st[n].e = k, st[n++].next = 0;
      continue;
    }
    tl_expr_finalize(g->m, NULL, e);
    n--;
  }
}

/* A function type of numbers only (0..2 params, 0..1 result). */
static uint32_t gc_scalar_type(gen *g) {
  tl_type p[2], r = pick(g, 5) ? TL_I32 + pick(g, 4) : TL_NONE;
  uint32_t n = pick(g, 3);
  for (uint32_t i = 0; i < n; i++) p[i] = TL_I32 + pick(g, 4);
  return tl_functype_intern(g->m, n == 0 ? TL_NONE : n == 1 ? p[0] : tl_type_tuple(g->m, p, n), r);
}

/* 0..3 GC globals, after the functions are declared (ref.func needs their
 * types); global.get finds them from then on. */
static void gc_globals(gen *g) {
  for (uint32_t n = pick(g, 4); n; n--) {
    tl_type t = g->vt[g->gcvt + pick(g, g->nvt - g->gcvt)];
    g->cbudget = 16;
    tl_expr *init = gc_new(g, t, true, 0);
    if (!init) continue;
    gc_finalize_const(g, init);
    tl_global gl = {t, pick(g, 2) != 0, {0}, init, NULL};
    TL_VEC_PUSH(&g->m->globals, tl_global, gl);
    g->nglobal++;
  }
}

/* br_on_cast(_fail) targets narrowed to their operands' final types (their
 * glb). The IR allows a target outside its operand's type, but wasm does
 * not: the writer states the glb, and a re-read gives narrower branch types
 * than the IR had (a block typed from them changes: no fixed point). */
static void narrow_visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (!tl_op_is_br_on_cast(e->op) || !e->nkid || !tl_type_is_ref(e->kid[0]->type)) return;
  tl_type t = tl_type_glb(w->m, e->imm.idx2.b, e->kid[0]->type);
  if (t != e->imm.idx2.b) e->imm.idx2.b = t, *(bool *)w->ctx = true;
}

static void gc_narrow_casts(gen *g) {
  bool changed = true;
  for (int round = 0; changed && round < 8; round++) { /* types only narrow */
    changed = false;
    tl_walk_post(g->m, g->f, &g->f->body, narrow_visit, &changed);
    if (changed) tl_func_refinalize(g->m, g->f);
  }
}

static tl_expr *gc_leaf(gen *g, tl_type t) {
  g->cbudget = 8;
  tl_expr *e = gc_new(g, t, true, 0);
  return e ? e : node(g, TL_OP_UNREACHABLE, 0);
}

/* -------------------------------------------------------------- values */
static tl_type pick_type(gen *g) { return g->vt[pick(g, g->nvt)]; }

static tl_expr *make_tuple(gen *g, tl_type t) {
  if (g->depth < MAX_DEPTH && g->budget && pick(g, 3) == 0) {
    tl_expr *e = call_of(g, t, false);
    if (e) return e;
  }
  if (g->depth < MAX_DEPTH && g->budget && pick(g, 4) == 0) {
    g->depth++;
    tl_expr *e = block_of(g, t);
    g->depth--;
    return e;
  }
  uint32_t n = tl_type_arity(g->m, t);
  tl_expr *e = node(g, TL_OP_TUPLE_MAKE, n);
  for (uint32_t i = 0; i < n; i++) e->kid[i] = make(g, tl_type_at(g->m, t, i));
  return e;
}

static tl_expr *value(gen *g, tl_type t) {
  tl_expr *e = NULL;
  if (g->eh && one_in(g, 8) && (e = eh_value(g, t))) return e;
  if (g->gc && one_in(g, tl_type_is_ref(t) ? 2 : 5) && (e = gc_value(g, t))) return e;
  switch (pick(g, 16)) {
  case 0: break;
  case 1: case 2: case 3: case 4: case 5:
    e = op_of(g, t);
    break;
  case 6: e = block_of(g, t); break;
  case 7: e = if_of(g, t, true); break;
  case 8: e = call_of(g, t, false); break;
  case 9:
    e = local_of(g, t, TL_OP_LOCAL_TEE);
    if (e) e->kid[0] = make(g, t);
    break;
  case 10: {
    bool ref = tl_type_is_ref(t);
    e = node(g, ref || pick(g, 2) ? TL_OP_SELECT_T : TL_OP_SELECT, 3);
    if (e->op == TL_OP_SELECT_T) {
      if (!has(g, TL_FEAT_REFERENCE_TYPES)) { e->op = TL_OP_SELECT; if (ref) return constant(g, t); }
      else e->imm.index = t;
    }
    e->kid[0] = make(g, t);
    e->kid[1] = make(g, t);
    e->kid[2] = make(g, TL_I32);
    break;
  }
  case 11: {
    uint32_t l = label_of(g, t);
    if (l == TL_NO_LABEL) break;
    e = k2(g, TL_OP_BR_IF, make(g, t), make(g, TL_I32));
    e->imm.label = l;
    break;
  }
  case 12: e = loop_of(g, t); break;
  case 13: {
    tl_type tt = g->vt[pick(g, g->nvt)];
    tl_type parts[2] = {t, tt};
    bool first = pick(g, 2);
    if (!first) { parts[0] = tt; parts[1] = t; }
    if (!has(g, TL_FEAT_MULTIVALUE)) break;
    e = k1(g, TL_OP_TUPLE_EXTRACT, make_tuple(g, tl_type_tuple(g->m, parts, 2)));
    e->imm.index = first ? 0 : 1;
    break;
  }
  case 14:
    if (t == TL_FUNCREF || t == TL_EXTERNREF) e = table_op(g, TL_OP_TABLE_GET, t);
    else if (t == TL_I32 && has(g, TL_FEAT_REFERENCE_TYPES)) {
      uint32_t c = pick(g, 3);
      if (c == 0) e = table_op(g, TL_OP_TABLE_GROW, t);
      else {
        tl_type rt = TL_FUNCREF + pick(g, 2);
        e = k1(g, TL_OP_REF_IS_NULL, make(g, rt));
      }
    }
    break;
  case 15:
    /* unreachable-typed on purpose, but rarely: it poisons its parents */
    if (!one_in(g, 4)) break;
    if (one_in(g, 3)) e = node(g, TL_OP_UNREACHABLE, 0);
    else e = jump(g);
    break;
  }
  return e ? e : leaf(g, t);
}

static tl_expr *make(gen *g, tl_type t) {
  if (t == TL_NONE) return stmt(g);
  if (g->depth >= MAX_DEPTH || !g->budget) return tl_type_is_tuple(t) ? make_tuple(g, t) : leaf(g, t);
  g->depth++;
  g->budget--;
  tl_expr *e = tl_type_is_tuple(t) ? make_tuple(g, t) : value(g, t);
  g->depth--;
  return e;
}

/* ------------------------------------------------------------ statements */
static tl_expr *log_call(gen *g) {
  uint32_t i = pick(g, 4);
  tl_expr *e = k1(g, TL_OP_CALL, make(g, TL_I32 + i));
  e->imm.index = g->log_func[i];
  return e;
}

static tl_expr *stmt_inner(gen *g) {
  tl_expr *e = NULL;
  if (g->eh && one_in(g, 5) && (e = eh_stmt(g))) return e;
  if (g->gc && one_in(g, 4) && (e = gc_stmt(g))) return e;
  switch (pick(g, 20)) {
  case 0: return node(g, TL_OP_NOP, 0);
  case 1: case 2: {
    tl_type t = pick_type(g);
    e = local_of(g, t, TL_OP_LOCAL_SET);
    if (e) e->kid[0] = make(g, t);
    break;
  }
  case 3: {
    tl_type t = pick_type(g);
    uint32_t gi = global_of(g, t, true);
    if (gi == TL_NO_INDEX) break;
    e = k1(g, TL_OP_GLOBAL_SET, make(g, t));
    e->imm.index = gi;
    break;
  }
  case 4: {
    tl_type t = pick_type(g);
    if (has(g, TL_FEAT_MULTIVALUE) && one_in(g, 6)) {
      tl_type parts[2] = {t, pick_type(g)};
      t = tl_type_tuple(g->m, parts, 2);
    }
    return k1(g, TL_OP_DROP, make(g, t));
  }
  case 5: case 6: e = op_of(g, TL_NONE); break;
  case 7: return block_of(g, TL_NONE);
  case 8: return if_of(g, TL_NONE, pick(g, 2));
  case 9: return loop_of(g, TL_NONE);
  case 10: e = call_of(g, TL_NONE, false); break;
  case 11: {
    uint32_t l = label_of(g, TL_NONE);
    if (l == TL_NO_LABEL) break;
    e = k1(g, TL_OP_BR_IF, make(g, TL_I32));
    e->imm.label = l;
    break;
  }
  case 12:
    if (!has(g, TL_FEAT_REFERENCE_TYPES)) break;
    e = table_op(g, pick(g, 2) ? TL_OP_TABLE_SET : TL_OP_TABLE_FILL, TL_NONE);
    break;
  case 13: case 14: return log_call(g);
  case 15:
    if (!one_in(g, 3)) break;
    if (has(g, TL_FEAT_TAIL_CALL) && pick(g, 2))
      e = g->gc && one_in(g, 3) ? gc_call_ref(g, g->result, true) : call_of(g, g->result, true);
    if (!e) e = pick(g, 3) ? jump(g) : node(g, TL_OP_UNREACHABLE, 0);
    break;
  default: {
    tl_type t = pick_type(g);
    e = local_of(g, t, TL_OP_LOCAL_SET);
    if (e) e->kid[0] = make(g, t);
    break;
  }
  }
  return e ? e : log_call(g);
}

static tl_expr *stmt(gen *g) {
  if (g->depth >= MAX_DEPTH || !g->budget) return node(g, TL_OP_NOP, 0);
  g->depth++;
  g->budget--;
  tl_expr *e = stmt_inner(g);
  g->depth--;
  return e;
}

/* ---------------------------------------------------------------- module */
static tl_type random_results(gen *g) {
  uint32_t n = pick(g, 3);
  if (n == 2 && !has(g, TL_FEAT_MULTIVALUE)) n = 1;
  tl_type t[2];
  for (uint32_t i = 0; i < n; i++) t[i] = pick_type(g);
  return n == 0 ? TL_NONE : n == 1 ? t[0] : tl_type_tuple(g->m, t, 2);
}

static tl_type random_params(gen *g) {
  uint32_t n = pick(g, 4);
  tl_type t[3];
  for (uint32_t i = 0; i < n; i++) t[i] = pick_type(g);
  return n == 0 ? TL_NONE : n == 1 ? t[0] : tl_type_tuple(g->m, t, n);
}

static bool js_type(tl_module *m, tl_type t) {
  if (tl_type_has_gc(m, t)) return false; /* exports give and take scalars only */
  for (uint32_t i = 0; i < tl_type_arity(m, t); i++)
    if (tl_type_at(m, t, i) == TL_V128 || tl_type_at(m, t, i) == TL_EXNREF) return false;
  return true;
}

static void build_body(gen *g, uint32_t fi, uint32_t max_nodes) {
  tl_module *m = g->m;
  g->f = TL_FUNC(m, fi);
  g->result = TL_FTYPE(m, g->f->type)->results;
  uint32_t nv = pick(g, 6), from = g->f->nlocal;
  for (uint32_t i = 0; i < nv; i++) tl_func_add_local(m, g->f, pick_type(g));
  g->ninit = g->f->nlocal;
  g->nlab = 0;
  g->nehs = 0;
  g->depth = 0;
  g->budget = max_nodes;
  tl_expr *body = node(g, TL_OP_BLOCK, 0);
  body->imm.block.label = push_label(g, g->result);
  hang_check(g, body);
  if (g->gc) gc_init_locals(g, body, from);
  fill(g, body, g->result);
  g->nlab = 0;
  g->f->body = body;
  tl_func_refinalize(m, g->f);
  if (g->gc) gc_narrow_casts(g);
}

static tl_expr *const_init(gen *g, tl_type t) {
  if (t == TL_FUNCREF || t == TL_EXTERNREF) {
    tl_expr *e = node(g, TL_OP_REF_NULL, 0);
    e->imm.index = t;
    tl_expr_finalize(g->m, NULL, e);
    return e;
  }
  tl_expr *e = constant(g, t);
  if (has(g, TL_FEAT_EXTENDED_CONST) && (t == TL_I32 || t == TL_I64) && one_in(g, 3)) {
    tl_expr *b = constant(g, t);
    tl_expr_finalize(g->m, NULL, e);
    tl_expr_finalize(g->m, NULL, b);
    e = k2(g, t == TL_I32 ? TL_OP_I32_ADD : TL_OP_I64_MUL, e, b);
  }
  tl_expr_finalize(g->m, NULL, e);
  return e;
}

void tl_fuzz_seed_bytes(uint64_t seed, uint8_t *out, size_t n) {
  uint64_t x = seed;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (size_t k = 0; k < 8 && i + k < n; k++) out[i + k] = (uint8_t)(z >> (8 * k));
  }
}

static tl_module *generate(const uint8_t *data, size_t size, const tl_fuzz_options *opt) {
  gen *g = tl_calloc(1, sizeof *g);
  tl_module *m = tl_module_create();
  if (!g || !m) {
    tl_free(g);
    if (m) tl_module_free(m);
    return NULL;
  }
  g->p = data;
  g->n = size;
  g->m = m;
  uint32_t ask = opt ? opt->features : 0;
  uint32_t want = ask & TL_FEATURES_ALL ? ask & TL_FEATURES_ALL : TL_FEATURES_ALL;
  /* a prefix byte may switch optional features off (coverage of MVP-ish code) */
  uint32_t off = one_in(g, 4) ? u8(g) << 2 : 0;
  g->feats = want & ~(off & (TL_FEATURE_SIMD | TL_FEATURE_THREADS | TL_FEATURE_REFERENCE_TYPES |
                             TL_FEATURE_TAIL_CALL | TL_FEATURE_MULTIVALUE));
  tl_module_set_features(m, g->feats);
  uint32_t max_funcs = opt && opt->max_funcs ? opt->max_funcs : 6;
  uint32_t max_nodes = opt && opt->max_nodes ? opt->max_nodes : 250;
  g->vt[g->nvt++] = TL_I32;
  g->vt[g->nvt++] = TL_I64;
  g->vt[g->nvt++] = TL_F32;
  g->vt[g->nvt++] = TL_F64;
  g->vt[g->nvt++] = TL_I32;
  if (has(g, TL_FEAT_SIMD)) g->vt[g->nvt++] = TL_V128;
  if (has(g, TL_FEAT_REFERENCE_TYPES)) {
    g->vt[g->nvt++] = TL_FUNCREF;
    g->vt[g->nvt++] = TL_EXTERNREF;
  }
  g->eh = has(g, TL_FEAT_EXCEPTION_HANDLING) && !(ask & TL_FUZZ_EH_OFF) &&
          ((ask & TL_FUZZ_EH_ON) || TL_FUZZ_EXEC_EH);
  g->eh_legacy = (ask & TL_FUZZ_EH_LEGACY) != 0;
  if (g->eh && !g->eh_legacy && has(g, TL_FEAT_REFERENCE_TYPES)) g->vt[g->nvt++] = TL_EXNREF;
  g->gc = (ask & TL_FUZZ_GC_ON) && has(g, TL_FEAT_GC | TL_FEAT_REFERENCE_TYPES);
  for (int op = 0; op < TL_NOPS && g->nops < MAX_OPS; op++)
    if (eligible(g, op)) g->ops[g->nops++] = (uint16_t)op;

  /* imports: the logging functions */
  static const char *const logs[4] = {"log-i32", "log-i64", "log-f32", "log-f64"};
  for (uint32_t i = 0; i < 4; i++)
    g->log_func[i] = tl_add_function_import(m, NULL, "fuzzing-support", logs[i],
                                            tl_add_type(m, TL_I32 + i, TL_NONE));
  /* globals: the hang limit, then a few of each kind */
  g->hang = tl_add_global(m, "hangLimit", TL_I32, true, tl_build_const_i32(m, TL_FUZZ_HANG_LIMIT));
  uint32_t ng = 1 + pick(g, 6);
  for (uint32_t i = 0; i < ng; i++) {
    tl_type t = pick_type(g);
    tl_add_global(m, NULL, t, pick(g, 4) != 0, const_init(g, t));
  }
  g->nglobal = ng + 1;
  if (g->gc) {
    m->typed_funcs = true; /* ref.func $f is (ref $t), as the reader makes it */
    m->gc_code = true;
    gc_types(g);
    g->gcvt = g->nvt;
    gc_value_types(g);
  }
  if (g->eh) eh_tags(g);
  /* memory, tables, segments */
  g->shared = has(g, TL_FEAT_THREADS) && pick(g, 2);
  g->feats &= g->shared ? ~0u : ~(uint32_t)TL_FEAT_THREADS;
  tl_set_memory(m, 1, 2, g->shared || pick(g, 2), g->shared, NULL);
  bool m64 = has(g, TL_FEAT_MEMORY64) && pick(g, 3) == 0;   /* memory 0 64-bit */
  TL_MEMORY(m, 0)->is64 = m64;
  g->nmem = 1;
  if (has(g, TL_FEAT_MULTI_MEMORY) && pick(g, 2)) {
    bool m64b = has(g, TL_FEAT_MEMORY64) && pick(g, 2);
    g->nmem += (m64b ? tl_add_memory64(m, 1, 3, true, g->shared) : tl_add_memory(m, 1, 3, true, g->shared)) == 1;
  }
  if (g->nmem == 1) g->feats &= ~(uint32_t)TL_FEAT_MULTI_MEMORY;
  g->table64 = has(g, TL_FEAT_MEMORY64) && pick(g, 4) == 0;
  bool any64 = g->table64;
  for (uint32_t i = 0; i < g->nmem; i++) any64 |= TL_MEMORY(m, i)->is64;
  if (!any64) g->feats &= ~(uint32_t)TL_FEAT_MEMORY64;
  uint32_t nf = 1 + pick(g, max_funcs);
  g->nfunc = 4 + nf;
  uint32_t ndef_types = 0, types[8];
  for (uint32_t i = 0; i < 1 + pick(g, 4); i++)
    types[ndef_types++] = tl_functype_intern(m, random_params(g), random_results(g));
  /* GC function types: each gets a function (ref.func then has one) */
  uint32_t ngcf = 0, gcf[MAX_DEFS];
  for (uint32_t i = 0; g->gc && i < g->ndef; i++)
    if (TL_FTYPE(m, g->def[i])->kind == TL_DT_FUNC) gcf[ngcf++] = g->def[i];
  /* and a type exports can have (numbers only), for a function or two:
   * what they return is how the heap is compared */
  uint32_t nexp = g->gc ? 1 + pick(g, 2) : 0, scalar = g->gc ? gc_scalar_type(g) : 0;
  if (nf < ngcf + nexp) nf = ngcf + nexp, g->nfunc = 4 + nf;
  for (uint32_t i = 0; i < nf; i++)
    tl_add_function(m, NULL, i < ngcf ? gcf[i] : i < ngcf + nexp ? scalar : types[pick(g, ndef_types)], NULL, 0,
                    NULL);
  if (g->gc) gc_globals(g);
  uint32_t all[64], na = 0;
  for (uint32_t i = 0; i < g->nfunc && na < 64; i++) all[na++] = i;
  if (g->table64) tl_add_table64(m, TL_FUNCREF, g->nfunc, 0, false);
  else tl_add_table(m, TL_FUNCREF, g->nfunc, 0, false);
  if (has(g, TL_FEAT_REFERENCE_TYPES)) {
    g->has_ext_table = true;
    g->ext_table = tl_add_table(m, TL_EXTERNREF, 2, 8, true);
  }
  tl_add_active_element_segment(m, 0, g->table64 ? tl_build_const_i64(m, 0) : tl_build_const_i32(m, 0), all, na);
  uint8_t bytes[16];
  for (int i = 0; i < 16; i++) bytes[i] = (uint8_t)u8(g);
  int32_t at = (int32_t)pick(g, 64);
  tl_add_data_segment(m, true, 0, m64 ? tl_build_const_i64(m, at) : tl_build_const_i32(m, at), bytes, 16);
  bool bulk = has(g, TL_FEAT_BULK_MEMORY);
  if (bulk) {
    tl_add_passive_element_segment(m, all, na < 3 ? na : 3);
    tl_add_data_segment(m, false, 0, NULL, bytes, 8);
  } else {
    /* the op table only uses segment 0 and 1 of each kind; without bulk
     * memory no op names them */
  }
  tl_module_set_features(m, g->feats);
  /* bodies */
  for (uint32_t i = 0; i < nf; i++) build_body(g, 4 + i, max_nodes);
  /* exports: every function JS can call, with a hang-limit reset before each */
  uint32_t reset = tl_add_function(m, "hangLimitInitializer", tl_add_type(m, TL_NONE, TL_NONE),
                                   NULL, 0, NULL);
  {
    tl_expr *set = k1(g, TL_OP_GLOBAL_SET, ci32(g, TL_FUZZ_HANG_LIMIT));
    set->imm.index = g->hang;
    tl_function_set_body(m, reset, set);
  }
  char name[32];
  for (uint32_t i = 0; i < nf; i++) {
    tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, 4 + i)->type);
    if (!js_type(m, ft->params) || !js_type(m, ft->results)) continue;
    snprintf(name, sizeof name, "hang_reset_%u", i);
    tl_add_export(m, TL_EXPORT_FUNC, reset, name);
    snprintf(name, sizeof name, "func_%u", i);
    tl_add_export(m, TL_EXPORT_FUNC, 4 + i, name);
  }
  tl_free(g);
  return m;
}

typedef struct {
  const uint8_t *data;
  size_t size;
  const tl_fuzz_options *opt;
  tl_module *m;
} generate_call;

static tl_status generate_in_scope(void *c, tl_error *err) {
  generate_call *g = c;
  g->m = generate(g->data, g->size, g->opt);
  return g->m ? TL_OK : tl_nomem(err, "generate");
}

/* In an out-of-memory scope (oom.c): NULL when out of memory. */
tl_module *tl_fuzz_generate(const uint8_t *data, size_t size, const tl_fuzz_options *opt) {
  generate_call g = {data, size, opt, NULL};
  tl_error err;
  return tl_oom_run(NULL, generate_in_scope, &g, &err, "generate") == TL_OK ? g.m : NULL;
}
