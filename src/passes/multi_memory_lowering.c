/* multi_memory_lowering.c — wasm-opt's multi-memory-lowering and
 * multi-memory-lowering-with-bounds-checks: the memories of a module become
 * one, laid end to end (memory 0 first), for engines without multi-memory.
 *
 * Memory k > 0 starts at a byte offset kept in a new mutable global
 * (initially the sum of the initial sizes before it); each access to it
 * adds that offset to its address. memory.size k and memory.grow k become
 * calls of added functions: a memory's size is the distance to the next
 * one's start (the last one's, to the end); growing memory k grows the
 * whole memory, moves the memories after k up (memory.copy), clears the
 * pages k gained (they held the next memory's start) and moves the later
 * offsets; it fails (-1) past k's own maximum or when the whole cannot
 * grow. Active data segments of memory k add its initial offset (a global
 * offset needs extended-const, which is then enabled).
 *
 * With bounds checks every access (to memory 0 too) first compares its
 * end with its memory's size, and out of bounds runs a load that is out of
 * bounds in any memory (address 0xffffffff, offset 4): the trap and its
 * reason are the original's, so the module behaves the same (kind MODULE).
 * Without them an access past the end of memory k reads or writes memory
 * k+1 where it trapped before (kind MODULE_TRAPS: the same behaviour only
 * where no access is out of bounds).
 *
 * Operands evaluated after an address may call a function that grows a
 * memory and so moves the offsets: such operands (anything but a constant
 * or a local/global read) are first stored in locals, in order.
 * Refused (an error, nothing changed): an imported or exported memory
 * other than 0's export (the host would see the whole), an imported memory
 * (its size is the host's), shared and unshared memories together, 64-bit
 * memories, initial sizes adding up past 4 GiB. Shared memories lower as
 * on one thread: another thread may see a grow's move half done. Known differences that remain: an active segment that
 * overruns its memory but not the whole no longer traps at instantiation;
 * growing memories that are all empty by 65536 pages at once fails.
 * Assumes: nothing. Guarantees: a valid module with at most one memory. */
#include "passes.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  tl_module *m;
  bool checks;
  uint32_t n;           /* memories before lowering */
  uint32_t off0;        /* global index of memory 1's offset; memory k's is off0 + k - 1 */
  uint32_t size_fn0;    /* function index of size_0; grow_k is size_fn0 + n + k */
  uint64_t *max_pages;  /* per memory: its maximum (65536 when it has none) */
} lower;

static tl_expr *i32c(tl_module *m, uint32_t v) { return tl_make_const_i32(m, (int32_t)v); }

static tl_expr *global_get(tl_module *m, uint32_t g) {
  tl_expr *e = tl_expr_new(m, TL_OP_GLOBAL_GET, 0);
  e->imm.index = g;
  tl_expr_finalize(m, NULL, e);
  return e;
}

static tl_expr *global_set(tl_module *m, uint32_t g, tl_expr *v) {
  tl_expr *e = tl_expr_new(m, TL_OP_GLOBAL_SET, 1);
  e->imm.index = g;
  e->kid[0] = v;
  tl_expr_finalize(m, NULL, e);
  return e;
}

/* Memory k's start in bytes (memory 0: 0). */
static tl_expr *start_of(lower *l, uint32_t k) {
  return k ? global_get(l->m, l->off0 + k - 1) : i32c(l->m, 0);
}

static tl_expr *op0(tl_module *m, tl_func *f, tl_op op, uint32_t index) {
  tl_expr *e = tl_expr_new(m, op, 0);
  e->imm.index = index;
  tl_expr_finalize(m, f, e);
  return e;
}

static tl_expr *op1(tl_module *m, tl_func *f, tl_op op, uint32_t index, tl_expr *a) {
  tl_expr *e = tl_expr_new(m, op, 1);
  e->imm.index = index;
  e->kid[0] = a;
  tl_expr_finalize(m, f, e);
  return e;
}

static tl_expr *op3(tl_module *m, tl_func *f, tl_op op, tl_expr *a, tl_expr *b, tl_expr *c) {
  tl_expr *e = tl_expr_new(m, op, 3);
  e->kid[0] = a, e->kid[1] = b, e->kid[2] = c;
  e->imm.idx2.a = e->imm.idx2.b = 0;
  tl_expr_finalize(m, f, e);
  return e;
}

static tl_expr *if_then(tl_module *m, tl_func *f, tl_expr *cond, tl_expr *then) {
  tl_expr *e = tl_expr_new(m, TL_OP_IF, 2);
  e->kid[0] = cond;
  e->kid[1] = then;
  e->imm.block.label = TL_NO_LABEL;
  e->imm.block.bt = TL_NO_INDEX;
  tl_expr_finalize(m, f, e);
  return e;
}

static tl_expr *ret(tl_module *m, tl_func *f, tl_expr *v) {
  tl_expr *e = tl_expr_new(m, TL_OP_RETURN, 1);
  e->kid[0] = v;
  tl_expr_finalize(m, f, e);
  return e;
}

/* Memory k's size in bytes, as an i64. */
static tl_expr *bytes_of(lower *l, tl_func *f, uint32_t k) {
  tl_module *m = l->m;
  tl_expr *end;
  if (k + 1 < l->n) {
    end = tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, start_of(l, k + 1));
  } else {
    tl_expr *pages = tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, op0(m, f, TL_OP_MEMORY_SIZE, 0));
    end = tl_make_binary(m, TL_OP_I64_SHL, pages, tl_make_const_i64(m, 16));
  }
  return tl_make_binary(m, TL_OP_I64_SUB, end, tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, start_of(l, k)));
}

/* if (addr + extra > bytes of k) trap as an out-of-bounds access does. */
static tl_expr *check(lower *l, tl_func *f, uint32_t k, tl_expr *addr, tl_expr *extra64) {
  tl_module *m = l->m;
  tl_expr *end = tl_make_binary(m, TL_OP_I64_ADD, tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, addr), extra64);
  tl_expr *oob = tl_make_binary(m, TL_OP_I64_GT_U, end, bytes_of(l, f, k));
  tl_expr *load = tl_expr_new(m, TL_OP_I32_LOAD, 1);
  load->kid[0] = i32c(m, UINT32_MAX);
  load->imm.mem = (tl_memarg){.offset = 4, .align = 2};
  tl_expr_finalize(m, f, load);
  return if_then(m, f, oob, tl_make_drop(m, load));
}

static tl_expr *moved(lower *l, uint32_t k, tl_expr *addr) {
  return k ? tl_make_binary(l->m, TL_OP_I32_ADD, addr, start_of(l, k)) : addr;
}

static bool simple(const tl_expr *e) {
  return e->op == TL_OP_I32_CONST || e->op == TL_OP_I64_CONST || e->op == TL_OP_F32_CONST ||
         e->op == TL_OP_F64_CONST || e->op == TL_OP_LOCAL_GET || e->op == TL_OP_GLOBAL_GET;
}

/* The operands in locals when a later one is not simple or a check reads
 * them: kid[i] becomes a local.get, its set goes to pre[]. */
static uint32_t spill(lower *l, tl_func *f, tl_expr *e, bool always, tl_expr **pre) {
  bool need = always;
  for (uint32_t i = 1; i < e->nkid && !need; i++) need = !simple(e->kid[i]);
  if (!need) return 0;
  for (uint32_t i = 0; i < e->nkid; i++) {
    uint32_t t = tl_func_add_var(l->m, f, e->kid[i]->type);
    pre[i] = tl_make_local_set(l->m, f, t, e->kid[i], false);
    e->kid[i] = tl_make_local_get(l->m, f, t);
  }
  return e->nkid;
}

static tl_expr *copy_get(lower *l, tl_func *f, const tl_expr *get) {
  return tl_make_local_get(l->m, f, get->imm.index);
}

/* A memarg access or bulk op of memory k: addresses moved, checked. */
static void lower_access(lower *l, tl_func *f, tl_expr **slot) {
  tl_module *m = l->m;
  tl_expr *e = *slot;
  const tl_opinfo *oi = &tl_ops[e->op];
  tl_expr *pre[8] = {NULL};
  uint32_t np = spill(l, f, e, l->checks, pre);
  tl_expr *chk[2] = {NULL, NULL};
  uint32_t nc = 0;
  switch (oi->imm) {
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: {
    uint32_t k = e->imm.mem.mem;
    uint64_t extra = (uint64_t)e->imm.mem.offset + (1u << tl_op_natural_align(e->op));
    if (l->checks) chk[nc++] = check(l, f, k, copy_get(l, f, e->kid[0]), tl_make_const_i64(m, (int64_t)extra));
    e->kid[0] = moved(l, k, e->kid[0]);
    e->imm.mem.mem = 0;
    break;
  }
  case TL_IMM_MEM: { /* memory.fill: dest, value, length */
    uint32_t k = e->imm.index;
    if (l->checks)
      chk[nc++] = check(l, f, k, copy_get(l, f, e->kid[0]), tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, copy_get(l, f, e->kid[2])));
    e->kid[0] = moved(l, k, e->kid[0]);
    e->imm.index = 0;
    break;
  }
  case TL_IMM_MEM_COPY: { /* dest memory a, source memory b */
    uint32_t a = e->imm.idx2.a, b = e->imm.idx2.b;
    if (l->checks) {
      chk[nc++] = check(l, f, b, copy_get(l, f, e->kid[1]), tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, copy_get(l, f, e->kid[2])));
      chk[nc++] = check(l, f, a, copy_get(l, f, e->kid[0]), tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, copy_get(l, f, e->kid[2])));
    }
    e->kid[0] = moved(l, a, e->kid[0]);
    e->kid[1] = moved(l, b, e->kid[1]);
    e->imm.idx2.a = e->imm.idx2.b = 0;
    break;
  }
  case TL_IMM_MEM_INIT: { /* data idx2.a into memory idx2.b */
    uint32_t k = e->imm.idx2.b;
    if (l->checks)
      chk[nc++] = check(l, f, k, copy_get(l, f, e->kid[0]), tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, copy_get(l, f, e->kid[2])));
    e->kid[0] = moved(l, k, e->kid[0]);
    e->imm.idx2.b = 0;
    break;
  }
  default: return;
  }
  tl_expr_finalize(m, f, e);
  if (!np && !nc) return;
  tl_expr *kids[12];
  uint32_t n = 0;
  for (uint32_t i = 0; i < np; i++) kids[n++] = pre[i];
  for (uint32_t i = 0; i < nc; i++) kids[n++] = chk[i];
  kids[n++] = e;
  *slot = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, n);
}

static void visit(tl_walk *w, tl_expr **slot) {
  lower *l = w->ctx;
  tl_expr *e = *slot;
  const tl_opinfo *oi = &tl_ops[e->op];
  if (e->op == TL_OP_MEMORY_SIZE) {
    *slot = tl_make_call(l->m, w->f, l->size_fn0 + e->imm.index, NULL, 0);
    return;
  }
  if (e->op == TL_OP_MEMORY_GROW) {
    tl_expr *d = e->kid[0];
    *slot = tl_make_call(l->m, w->f, l->size_fn0 + l->n + e->imm.index, &d, 1);
    return;
  }
  bool mem = oi->imm == TL_IMM_MEMARG || oi->imm == TL_IMM_MEMARG_LANE ||
             (oi->imm == TL_IMM_MEM && e->op == TL_OP_MEMORY_FILL) || oi->imm == TL_IMM_MEM_COPY ||
             oi->imm == TL_IMM_MEM_INIT;
  if (!mem) return;
  if (e->type == TL_UNREACHABLE) { /* never runs: only the index changes */
    if (oi->imm == TL_IMM_MEMARG || oi->imm == TL_IMM_MEMARG_LANE) e->imm.mem.mem = 0;
    else if (oi->imm == TL_IMM_MEM) e->imm.index = 0;
    else if (oi->imm == TL_IMM_MEM_COPY) e->imm.idx2.a = e->imm.idx2.b = 0;
    else e->imm.idx2.b = 0;
    return;
  }
  lower_access(l, w->f, slot);
}

/* size_k: () -> i32 pages. */
static void make_size(lower *l, uint32_t k) {
  tl_module *m = l->m;
  tl_func *f = TL_FUNC(m, l->size_fn0 + k);
  tl_expr *pages;
  if (k + 1 < l->n) {
    tl_expr *bytes = k ? tl_make_binary(m, TL_OP_I32_SUB, start_of(l, k + 1), start_of(l, k)) : start_of(l, 1);
    pages = tl_make_binary(m, TL_OP_I32_SHR_U, bytes, i32c(m, 16));
  } else {
    pages = tl_make_binary(m, TL_OP_I32_SUB, op0(m, f, TL_OP_MEMORY_SIZE, 0),
                           tl_make_binary(m, TL_OP_I32_SHR_U, start_of(l, k), i32c(m, 16)));
  }
  f->body = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, &pages, 1);
}

/* grow_k: (delta i32) -> i32, the old size in pages or -1. */
static void make_grow(lower *l, uint32_t k) {
  tl_module *m = l->m;
  tl_func *f = TL_FUNC(m, l->size_fn0 + l->n + k);
  uint32_t old = tl_func_add_var(m, f, TL_I32), total = k + 1 < l->n ? tl_func_add_var(m, f, TL_I32) : 0;
  tl_expr *kids[16];
  uint32_t n = 0;
  kids[n++] = tl_make_local_set(m, f, old, tl_make_call(m, f, l->size_fn0 + k, NULL, 0), false);
  /* delta 0: the size; past k's maximum (or 65535 pages at once): -1 */
  kids[n++] = if_then(m, f, tl_make_unary(m, TL_OP_I32_EQZ, tl_make_local_get(m, f, 0)), ret(m, f, tl_make_local_get(m, f, old)));
  tl_expr *want = tl_make_binary(m, TL_OP_I64_ADD, tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, tl_make_local_get(m, f, old)),
                                 tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, tl_make_local_get(m, f, 0)));
  uint64_t cap = l->max_pages[k] < 65535 ? l->max_pages[k] : 65535;
  kids[n++] = if_then(m, f, tl_make_binary(m, TL_OP_I64_GT_U, want, tl_make_const_i64(m, (int64_t)cap)), ret(m, f, i32c(m, UINT32_MAX)));
  if (k + 1 < l->n) kids[n++] = tl_make_local_set(m, f, total, op0(m, f, TL_OP_MEMORY_SIZE, 0), false);
  tl_expr *grow = op1(m, f, TL_OP_MEMORY_GROW, 0, tl_make_local_get(m, f, 0));
  kids[n++] = if_then(m, f, tl_make_binary(m, TL_OP_I32_EQ, grow, i32c(m, UINT32_MAX)), ret(m, f, i32c(m, UINT32_MAX)));
  if (k + 1 < l->n) {
    tl_expr *by = tl_make_binary(m, TL_OP_I32_SHL, tl_make_local_get(m, f, 0), i32c(m, 16));
    tl_expr *len = tl_make_binary(m, TL_OP_I32_SUB, tl_make_binary(m, TL_OP_I32_SHL, tl_make_local_get(m, f, total), i32c(m, 16)),
                                  start_of(l, k + 1));
    kids[n++] = op3(m, f, TL_OP_MEMORY_COPY, tl_make_binary(m, TL_OP_I32_ADD, start_of(l, k + 1), by), start_of(l, k + 1), len);
    by = tl_make_binary(m, TL_OP_I32_SHL, tl_make_local_get(m, f, 0), i32c(m, 16));
    kids[n++] = op3(m, f, TL_OP_MEMORY_FILL, start_of(l, k + 1), i32c(m, 0), by);
    for (uint32_t j = k + 1; j < l->n; j++) {
      by = tl_make_binary(m, TL_OP_I32_SHL, tl_make_local_get(m, f, 0), i32c(m, 16));
      kids[n++] = global_set(m, l->off0 + j - 1, tl_make_binary(m, TL_OP_I32_ADD, start_of(l, j), by));
      if (n == 15) { /* many memories: fold what there is into a block */
        tl_expr *b = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, kids, n);
        kids[0] = b, n = 1;
      }
    }
  }
  kids[n++] = tl_make_local_get(m, f, old);
  f->body = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, kids, n);
}

static tl_status refuse(tl_pass_ctx *ctx, const char *why, uint32_t k) {
  return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "multi-memory-lowering: memory %u %s", k, why);
}

/* What lowering cannot do: refused before anything changes. */
static tl_status can_lower(tl_pass_ctx *ctx, uint64_t *total) {
  tl_module *m = ctx->m;
  *total = 0;
  for (uint32_t k = 0; k < m->memories.n; k++) {
    tl_memory *mem = TL_MEMORY(m, k);
    if (k < m->nimported_memories) return refuse(ctx, "is imported (its size is the host's)", k);
    if (mem->shared != TL_MEMORY(m, 0)->shared) return refuse(ctx, "is shared and memory 0 is not, or the reverse", k);
    if (mem->is64) return refuse(ctx, "is 64-bit", k);
    *total += mem->min;
  }
  for (size_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    if (x->kind == TL_EXTERN_MEMORY && x->index) return refuse(ctx, "is exported (the host would see them all)", x->index);
  }
  if (*total > 65536) return refuse(ctx, "and the others start at more than 4 GiB in all", (uint32_t)m->memories.n - 1);
  return TL_OK;
}

static void move_segments(lower *l, const uint64_t *start) {
  tl_module *m = l->m;
  for (size_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    if (d->mode != TL_SEG_ACTIVE || !d->mem) continue;
    uint32_t k = d->mem;
    d->mem = 0;
    if (d->offset->op == TL_OP_I32_CONST) {
      d->offset = i32c(m, (uint32_t)d->offset->imm.i32 + (uint32_t)start[k]);
    } else {
      d->offset = tl_make_binary(m, TL_OP_I32_ADD, d->offset, i32c(m, (uint32_t)start[k]));
      m->features |= TL_FEAT_EXTENDED_CONST;
    }
  }
}

static tl_status run(tl_pass_ctx *ctx, bool checks) {
  tl_module *m = ctx->m;
  m->features &= ~(tl_features)TL_FEAT_MULTI_MEMORY;
  if (m->memories.n <= 1) return TL_OK;
  uint64_t total;
  tl_status st = can_lower(ctx, &total);
  if (st) return st;
  uint32_t n = (uint32_t)m->memories.n;
  uint64_t start[n], maxp[n];
  bool all_max = true;
  uint64_t sum_max = 0;
  for (uint32_t k = 0, at = 0; k < n; k++) {
    tl_memory *mem = TL_MEMORY(m, k);
    start[k] = (uint64_t)at << 16;
    at += (uint32_t)mem->min;
    maxp[k] = mem->has_max ? mem->max : 65536;
    all_max &= mem->has_max;
    sum_max += maxp[k];
  }
  lower l = {m, checks, n, (uint32_t)m->globals.n, (uint32_t)m->funcs.n, maxp};
  char name[48];
  for (uint32_t k = 1; k < n; k++) {
    snprintf(name, sizeof name, "memory%u_byte_offset", k);
    tl_global g = {.type = TL_I32, .mut = true, .name = tl_arena_strndup(&m->arena, name, strlen(name)),
                   .init = i32c(m, (uint32_t)start[k])};
    TL_VEC_PUSH(&m->globals, tl_global, g);
  }
  uint32_t size_t_ = tl_functype_intern(m, TL_NONE, TL_I32), grow_t = tl_functype_intern(m, TL_I32, TL_I32);
  for (uint32_t k = 0; k < n; k++) {
    snprintf(name, sizeof name, "memory%u_size", k);
    tl_module_add_func_defined(m, size_t_, name);
  }
  for (uint32_t k = 0; k < n; k++) {
    snprintf(name, sizeof name, "memory%u_grow", k);
    tl_module_add_func_defined(m, grow_t, name);
  }
  for (uint32_t i = m->nimported_funcs; i < l.size_fn0; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, visit, &l);
  move_segments(&l, start);
  tl_memory one = *TL_MEMORY(m, 0);
  one.min = total;
  one.has_max = all_max;
  one.max = all_max ? (sum_max < 65536 ? sum_max : 65536) : 0;
  m->memories.n = 1;
  *TL_MEMORY(m, 0) = one;
  for (uint32_t k = 0; k < n; k++) make_size(&l, k);
  for (uint32_t k = 0; k < n; k++) make_grow(&l, k);
  return TL_OK;
}

tl_status tl_pass_multi_memory_lowering(tl_pass_ctx *ctx) { return run(ctx, false); }
tl_status tl_pass_multi_memory_lowering_with_bounds_checks(tl_pass_ctx *ctx) { return run(ctx, true); }
