/* safe_heap.c — wasm-opt's safe-heap (emcc -sSAFE_HEAP=1): every load and
 * store of memory 0 (plain, atomic, v128.load/store) becomes a call of a
 * checking function, as Binaryen 108 names them:
 *   SAFE_HEAP_LOAD_<type>_<bytes>_[U_]<align | A>(ptr, offset)
 *   SAFE_HEAP_STORE_<type>_<bytes>_<align | A>(ptr, offset, value)
 * (U_: an unsigned narrow integer load; A: atomic). Each computes
 * addr = ptr + offset and calls the import env.segfault when addr is 0
 * (below 1024 with --low-memory-unused) or addr + bytes is past the top
 * of the sbrk heap, and env.alignfault when addr is not a multiple of the
 * alignment the access claims; then it does the access at addr. The heap
 * top is read through env.emscripten_get_sbrk_ptr (imported, else the
 * defined function exported under that name, else an sbrk import, called
 * with 0; else the import is added). Only the checking functions the
 * module uses are added (Binaryen adds them all; unused ones go at -O
 * anyway), and one a function of that name already is, is reused.
 * Not instrumented: the SAFE_HEAP_* functions (a second run adds no checks
 * of the checks), and as in Binaryen the start function and what it calls
 * (directly, transitively: __wasm_init_memory runs before sbrk's value
 * exists), the sbrk-pointer function itself, accesses of other memories,
 * and SIMD loads other than v128.load. Kind MODULE_IFACE: the module then
 * needs env.segfault and env.alignfault from its host. */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_module *m;
  bool m64, low;            /* memory 0 is 64-bit; --low-memory-unused */
  uint32_t sbrk_ptr, sbrk;  /* emscripten_get_sbrk_ptr or sbrk (TL_NO_INDEX: not that one) */
  uint32_t segfault, alignfault;
  uint32_t *helper;         /* per (op, log2 align): the checking function + 1, 0 none */
  uint8_t *skip;            /* per function: not instrumented */
} heap;

#define KEY(op, a) ((uint32_t)(op) * 8u + (a))

static bool wanted(const heap *h, const tl_expr *e) {
  return (tl_is_load(e->op) || tl_is_store(e->op)) && e->imm.mem.mem == 0 && e->type != TL_UNREACHABLE &&
         !(h->m64 && tl_memarg_offset(h->m, &e->imm.mem) > UINT32_MAX) && e->imm.mem.align <= 4;
}

/* SAFE_HEAP_LOAD_i32_1_U_1 and the like. */
static void helper_name(int op, uint32_t align, char *out, size_t n) {
  const tl_opinfo *o = &tl_ops[op];
  bool load = tl_is_load(op), atomic = o->flags & TL_F_ATOMIC;
  tl_type t = load ? o->result : o->ops[1];
  uint32_t bytes = 1u << tl_op_natural_align(op);
  size_t tl = strlen(o->text);
  bool u = load && tl > 2 && !strcmp(o->text + tl - 2, "_u");   /* narrow and unsigned */
  char al[16];
  if (atomic) snprintf(al, sizeof al, "A");
  else snprintf(al, sizeof al, "%u", 1u << align);
  snprintf(out, n, "SAFE_HEAP_%s_%s_%u_%s%s", load ? "LOAD" : "STORE", tl_type_name(t), bytes, u ? "U_" : "", al);
}

/* ---- the checking functions ------------------------------------------------------ */
static tl_expr *ptr_const(heap *h, uint64_t v) {
  return h->m64 ? tl_make_const_i64(h->m, (int64_t)v) : tl_make_const_i32(h->m, (int32_t)(uint32_t)v);
}

static tl_expr *if_call(tl_module *m, tl_func *f, tl_expr *cond, uint32_t callee) {
  tl_expr *e = tl_expr_new(m, TL_OP_IF, 2);
  e->kid[0] = cond;
  e->kid[1] = tl_make_call(m, f, callee, NULL, 0);
  e->imm.block.label = TL_NO_LABEL;
  e->imm.block.bt = TL_NO_INDEX;
  tl_expr_finalize(m, f, e);
  return e;
}

/* e (an i32 or i64 pointer) as memory 0's address type: the sbrk
 * functions a module has may have been made for a memory of the other
 * width (safe-heap, then memory64-lowering, then safe-heap again). */
static tl_expr *as_ptr(heap *h, tl_expr *e) {
  if (e->type == TL_I64 && !h->m64) return tl_make_unary(h->m, TL_OP_I32_WRAP_I64, e);
  if (e->type == TL_I32 && h->m64) return tl_make_unary(h->m, TL_OP_I64_EXTEND_I32_U, e);
  return e;
}

/* The heap's top: *emscripten_get_sbrk_ptr(), or sbrk(0). */
static tl_expr *heap_top(heap *h, tl_func *f) {
  tl_module *m = h->m;
  if (h->sbrk != TL_NO_INDEX) {
    tl_type pt = TL_FTYPE(m, TL_FUNC(m, h->sbrk)->type)->params;
    tl_expr *zero = pt == TL_I64 ? tl_make_const_i64(m, 0) : tl_make_const_i32(m, 0);
    return as_ptr(h, tl_make_call(m, f, h->sbrk, &zero, 1));
  }
  tl_expr *ld = tl_expr_new(m, h->m64 ? TL_OP_I64_LOAD : TL_OP_I32_LOAD, 1);
  ld->kid[0] = as_ptr(h, tl_make_call(m, f, h->sbrk_ptr, NULL, 0));
  ld->imm.mem = (tl_memarg){.align = h->m64 ? 3 : 2};
  tl_expr_finalize(m, f, ld);
  return ld;
}

/* if (addr == 0 [or < 1024] | addr + bytes > top) segfault();
 * if (addr & (align - 1)) alignfault(); */
static void checks(heap *h, tl_func *f, uint32_t a, uint32_t bytes, uint32_t align, tl_expr **kids, uint32_t *n) {
  tl_module *m = h->m;
  tl_type pt = h->m64 ? TL_I64 : TL_I32;
  tl_op low = h->low ? (h->m64 ? TL_OP_I64_LT_U : TL_OP_I32_LT_U) : (h->m64 ? TL_OP_I64_EQ : TL_OP_I32_EQ);
  tl_expr *bad_low = tl_make_binary(m, low, tl_make_local_get(m, f, a), ptr_const(h, h->low ? 1024 : 0));
  tl_expr *end = tl_make_binary(m, h->m64 ? TL_OP_I64_ADD : TL_OP_I32_ADD, tl_make_local_get(m, f, a), ptr_const(h, bytes));
  tl_expr *bad_high = tl_make_binary(m, h->m64 ? TL_OP_I64_GT_U : TL_OP_I32_GT_U, end, heap_top(h, f));
  kids[(*n)++] = if_call(m, f, tl_make_binary(m, TL_OP_I32_OR, bad_low, bad_high), h->segfault);
  if (align > 1) {
    tl_expr *bits = tl_make_local_get(m, f, a);
    if (pt == TL_I64) bits = tl_make_unary(m, TL_OP_I32_WRAP_I64, bits);
    kids[(*n)++] = if_call(m, f, tl_make_binary(m, TL_OP_I32_AND, bits, tl_make_const_i32(m, (int32_t)align - 1)), h->alignfault);
  }
}

/* The function for op at alignment 2^align: params (ptr, offset[, value]). */
static uint32_t make_helper(heap *h, int op, uint32_t align) {
  tl_module *m = h->m;
  char name[80];
  helper_name(op, align, name, sizeof name);
  const tl_opinfo *o = &tl_ops[op];
  bool load = tl_is_load(op);
  tl_type pt = h->m64 ? TL_I64 : TL_I32, vt = load ? o->result : o->ops[1];
  tl_type ps[3] = {pt, pt, vt};
  uint32_t type = tl_functype_intern(m, tl_type_tuple(m, ps, load ? 2 : 3), load ? vt : TL_NONE);
  /* one of that name with that signature (the pass ran before) is reused;
   * a name taken otherwise (its params changed since, say) gets a suffix */
  uint32_t fi;
  for (size_t len = strlen(name); (fi = tl_module_find_func_named(m, name)) != TL_NO_INDEX && len + 1 < sizeof name; len++) {
    const tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, fi)->type);
    if (ft->params == TL_FTYPE(m, type)->params && ft->results == TL_FTYPE(m, type)->results) return fi;
    name[len] = '_', name[len + 1] = 0;
  }
  fi = tl_module_add_func_defined(m, type, name);
  tl_func *f = TL_FUNC(m, fi);
  uint32_t a = tl_func_add_var(m, f, pt);
  tl_expr *kids[4];
  uint32_t n = 0;
  kids[n++] = tl_make_local_set(m, f, a, tl_make_binary(m, h->m64 ? TL_OP_I64_ADD : TL_OP_I32_ADD,
                                                          tl_make_local_get(m, f, 0), tl_make_local_get(m, f, 1)), false);
  checks(h, f, a, 1u << tl_op_natural_align(op), 1u << align, kids, &n);
  tl_expr *acc = tl_expr_new(m, (tl_op)op, load ? 1 : 2);
  acc->kid[0] = tl_make_local_get(m, f, a);
  if (!load) acc->kid[1] = tl_make_local_get(m, f, 2);
  acc->imm.mem = (tl_memarg){.align = (uint8_t)align};
  tl_expr_finalize(m, f, acc);
  kids[n++] = acc;
  f->body = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, kids, n);
  return fi;
}

/* ---- instrumenting ------------------------------------------------------------------ */
static void note_access(tl_walk *w, tl_expr **slot) {
  heap *h = w->ctx;
  if (wanted(h, *slot)) h->helper[KEY((*slot)->op, (*slot)->imm.mem.align)] = 1;
}

static void replace_access(tl_walk *w, tl_expr **slot) {
  heap *h = w->ctx;
  tl_expr *e = *slot;
  if (!wanted(h, e)) return;
  tl_expr *args[3] = {e->kid[0], ptr_const(h, tl_memarg_offset(h->m, &e->imm.mem)), e->nkid > 1 ? e->kid[1] : NULL};
  *slot = tl_make_call(h->m, w->f, h->helper[KEY(e->op, e->imm.mem.align)] - 1, args, e->nkid > 1 ? 3 : 2);
}

/* The start function and everything it calls directly, transitively. */
typedef struct { heap *h; uint32_t *work, n, nf; } reach;

static void reach_call(tl_walk *w, tl_expr **slot) {
  reach *r = w->ctx;
  tl_expr *e = *slot;
  if ((e->op != TL_OP_CALL && e->op != TL_OP_RETURN_CALL) || e->imm.index >= r->nf || r->h->skip[e->imm.index]) return;
  r->h->skip[e->imm.index] = 1;
  r->work[r->n++] = e->imm.index;
}

static bool skip_start(heap *h, uint32_t nf) {
  tl_module *m = h->m;
  if (!m->has_start) return true;
  reach r = {h, tl_malloc((nf + 1) * sizeof(uint32_t)), 0, nf};
  if (!r.work) return false;
  h->skip[m->start] = 1;
  r.work[r.n++] = m->start;
  while (r.n) {
    tl_func *f = TL_FUNC(m, r.work[--r.n]);
    if (f->body) tl_walk_post_only(m, f, &f->body, reach_call, &r, TL_F_CALL);
  }
  tl_free(r.work);
  return true;
}

static uint32_t exported_func(tl_module *m, const char *name) {
  int32_t x = tl_module_find_export(m, name);
  return x >= 0 && TL_EXPORT(m, x)->kind == TL_EXTERN_FUNC ? TL_EXPORT(m, x)->index : TL_NO_INDEX;
}

/* The imports: env.segfault, env.alignfault and, unless the module has
 * emscripten_get_sbrk_ptr (imported or exported) or imports sbrk,
 * env.emscripten_get_sbrk_ptr, all added first (each renumbers the
 * defined functions); then their indices. */
static bool find_imports(heap *h) {
  tl_module *m = h->m;
  uint32_t none = tl_functype_intern(m, TL_NONE, TL_NONE);
  uint32_t ptr_type = tl_functype_intern(m, TL_NONE, h->m64 ? TL_I64 : TL_I32);
  bool have = tl_module_env_import(m, "emscripten_get_sbrk_ptr", TL_NO_INDEX) != TL_NO_INDEX ||
              exported_func(m, "emscripten_get_sbrk_ptr") != TL_NO_INDEX ||
              tl_module_env_import(m, "sbrk", TL_NO_INDEX) != TL_NO_INDEX;
  if ((!have && tl_module_env_import(m, "emscripten_get_sbrk_ptr", ptr_type) == TL_NO_INDEX) ||
      tl_module_env_import(m, "segfault", none) == TL_NO_INDEX ||
      tl_module_env_import(m, "alignfault", none) == TL_NO_INDEX)
    return false;
  h->segfault = tl_module_env_import(m, "segfault", TL_NO_INDEX);
  h->alignfault = tl_module_env_import(m, "alignfault", TL_NO_INDEX);
  h->sbrk_ptr = tl_module_env_import(m, "emscripten_get_sbrk_ptr", TL_NO_INDEX);
  if (h->sbrk_ptr == TL_NO_INDEX) h->sbrk_ptr = exported_func(m, "emscripten_get_sbrk_ptr");
  h->sbrk = h->sbrk_ptr == TL_NO_INDEX ? tl_module_env_import(m, "sbrk", TL_NO_INDEX) : TL_NO_INDEX;
  return true;
}

static bool is_ptr_type(tl_type t) { return t == TL_I32 || t == TL_I64; }

/* The sbrk function found must be () -> pointer or (pointer) -> pointer
 * (i32 or i64, whatever memory 0 is now: as_ptr converts). */
static tl_status check_sbrk_type(tl_pass_ctx *ctx, const heap *h) {
  tl_module *m = ctx->m;
  uint32_t fi = h->sbrk != TL_NO_INDEX ? h->sbrk : h->sbrk_ptr;
  const tl_functype *t = TL_FTYPE(m, TL_FUNC(m, fi)->type);
  bool ok = is_ptr_type(t->results) && (h->sbrk != TL_NO_INDEX ? is_ptr_type(t->params) : t->params == TL_NONE);
  if (ok) return TL_OK;
  return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "safe-heap: function %u (%s) has another type than %s",
                   fi, h->sbrk != TL_NO_INDEX ? "sbrk" : "emscripten_get_sbrk_ptr",
                   h->sbrk != TL_NO_INDEX ? "(pointer) -> pointer" : "() -> pointer");
}

tl_status tl_pass_safe_heap(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  heap h = {.m = m, .m64 = tl_memory_is64(m, 0), .low = ctx->opt->low_memory_unused};
  heap pre = h;                 /* lookups only, before anything is added */
  pre.sbrk_ptr = tl_module_env_import(m, "emscripten_get_sbrk_ptr", TL_NO_INDEX);
  if (pre.sbrk_ptr == TL_NO_INDEX) pre.sbrk_ptr = exported_func(m, "emscripten_get_sbrk_ptr");
  pre.sbrk = pre.sbrk_ptr == TL_NO_INDEX ? tl_module_env_import(m, "sbrk", TL_NO_INDEX) : TL_NO_INDEX;
  if (pre.sbrk_ptr != TL_NO_INDEX || pre.sbrk != TL_NO_INDEX) {
    tl_status bad = check_sbrk_type(ctx, &pre);
    if (bad) return bad;
  }
  if (!find_imports(&h)) return tl_nomem(ctx->err, "safe-heap");
  uint32_t nf = (uint32_t)m->funcs.n;
  h.helper = tl_calloc((size_t)TL_NOPS * 8, sizeof *h.helper);
  h.skip = tl_calloc(nf + 1, 1);
  if (!h.helper || !h.skip) {
    tl_free(h.helper);
    tl_free(h.skip);
    return tl_nomem(ctx->err, "safe-heap");
  }
  if (!skip_start(&h, nf)) {
    tl_free(h.helper);
    tl_free(h.skip);
    return tl_nomem(ctx->err, "safe-heap");
  }
  if (h.sbrk_ptr != TL_NO_INDEX) h.skip[h.sbrk_ptr] = 1;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)   /* the checks themselves (the pass ran before) */
    if (TL_FUNC(m, i)->name && !strncmp(TL_FUNC(m, i)->name, "SAFE_HEAP_", 10)) h.skip[i] = 1;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (!h.skip[i]) tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, note_access, &h, TL_F_READS_MEM | TL_F_WRITES_MEM);
  for (uint32_t op = 0; op < TL_NOPS; op++)
    for (uint32_t a = 0; a < 8; a++)
      if (h.helper[KEY(op, a)]) h.helper[KEY(op, a)] = make_helper(&h, (int)op, a) + 1;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (!h.skip[i]) tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, replace_access, &h, TL_F_READS_MEM | TL_F_WRITES_MEM);
  tl_free(h.helper);
  tl_free(h.skip);
  return TL_OK;
}
