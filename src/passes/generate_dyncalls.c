/* generate_dyncalls.c — wasm-opt's generate-dyncalls and
 * generate-i64-dyncalls: for each signature of a function in a table's
 * first active element segment (tables in index order, items in order),
 * then of each env.invoke_* import (without its first, function pointer,
 * param), an exported thunk dynCall_SIG(fptr, args...) that call_indirects
 * table 0 (an imported env.__indirect_function_table if the module has no
 * table). SIG is the result's letter then the params' (v none, i i32,
 * j i64, f f32, d f64, V v128, F funcref, X externref). A signature whose
 * dynCall_ name a function or an export already has is skipped; the i64
 * form keeps only signatures with an i64 (JS calls the others through the
 * table itself). A signature with no name (several results, an exnref:
 * JS cannot call it) gets no thunk. fptr is an i64 when table 0 is
 * 64-bit (Emscripten's -sMEMORY64).
 * Assumes: nothing. Guarantees: a valid module; exports only added. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

static char sig_letter(tl_type t) {
  switch (t) {
  case TL_NONE: return 'v';
  case TL_I32: return 'i';
  case TL_I64: return 'j';
  case TL_F32: return 'f';
  case TL_F64: return 'd';
  case TL_V128: return 'V';
  case TL_FUNCREF: return 'F';
  case TL_EXTERNREF: return 'X';
  default: return 0;
  }
}

typedef struct {
  tl_pass_ctx *ctx;
  tl_module *m;
  bool only_i64;
} gen;

static bool sig_has_i64(tl_module *m, tl_type params, tl_type results) {
  for (uint32_t i = 0; i < tl_type_arity(m, params); i++)
    if (tl_type_at(m, params, i) == TL_I64) return true;
  return results == TL_I64;
}

static tl_status thunk(gen *g, tl_type params, tl_type results) {
  tl_module *m = g->m;
  if (g->only_i64 && !sig_has_i64(m, params, results)) return TL_OK;
  uint32_t np = tl_type_arity(m, params);
  char name[16 + np];
  size_t n = 0;
  memcpy(name, "dynCall_", 8), n = 8;
  name[n++] = sig_letter(results);
  for (uint32_t i = 0; i < np; i++) name[n++] = sig_letter(tl_type_at(m, params, i));
  name[n] = 0;
  if (strlen(name) != n) return TL_OK; /* no letter: JS cannot call it */
  if (tl_module_find_func_named(m, name) != TL_NO_INDEX || tl_module_find_export(m, name) >= 0)
    return TL_OK;
  if (!m->tables.n) {
    tl_table t = {.elem = TL_FUNCREF};
    t.imp = (tl_importname){"env", "__indirect_function_table", 0, 0};
    TL_VEC_PUSH(&m->tables, tl_table, t);
    m->nimported_tables = 1;
  }
  tl_type ps[np + 1];
  ps[0] = tl_table_is64(m, 0) ? TL_I64 : TL_I32;
  for (uint32_t i = 0; i < np; i++) ps[i + 1] = tl_type_at(m, params, i);
  uint32_t sig = tl_functype_intern(m, params, results);
  uint32_t fi = tl_module_add_func_defined(m, tl_functype_intern(m, tl_type_tuple(m, ps, np + 1), results),
                                           name);
  tl_func *f = TL_FUNC(m, fi);
  tl_expr *ci = tl_expr_new(m, TL_OP_CALL_INDIRECT, np + 1);
  ci->imm.idx2.a = sig;
  ci->imm.idx2.b = 0;
  for (uint32_t i = 0; i < np; i++) ci->kid[i] = tl_make_local_get(m, f, i + 1);
  ci->kid[np] = tl_make_local_get(m, f, 0);
  tl_expr_finalize(m, f, ci);
  f->body = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, &ci, 1);
  tl_export e = {f->name, TL_EXTERN_FUNC, fi, (uint32_t)n};
  TL_VEC_PUSH(&m->exports, tl_export, e);
  return TL_OK;
}

static tl_status table_thunks(gen *g, uint32_t table) {
  tl_module *m = g->m;
  for (size_t s = 0; s < m->elems.n; s++) {
    tl_elem *el = TL_ELEM(m, s);
    if (el->mode != TL_SEG_ACTIVE || el->table != table) continue;
    for (uint32_t j = 0; j < el->n; j++) {
      tl_expr *it = TL_ELEM(m, s)->item[j];
      if (it->op != TL_OP_REF_FUNC) continue;
      tl_functype t = *TL_FTYPE(m, TL_FUNC(m, it->imm.index)->type);
      tl_status st = thunk(g, t.params, t.results);
      if (st != TL_OK) return st;
    }
    return TL_OK;
  }
  return TL_OK;
}

/* The invoke imports' signatures without the function pointer. */
static tl_status invoke_thunks(gen *g) {
  tl_module *m = g->m;
  uint32_t ni = m->nimported_funcs;
  for (uint32_t i = 0; i < ni; i++) {
    tl_importname *n = &TL_FUNC(m, i)->imp;
    uint32_t len = tl_name_len(n->name, n->name_len);
    if (!tl_name_eq(n->module, n->module_len, "env", 3) || len < 7 || memcmp(n->name, "invoke_", 7))
      continue;
    tl_functype t = *TL_FTYPE(m, TL_FUNC(m, i)->type);
    uint32_t np = tl_type_arity(m, t.params);
    if (!np) continue;
    tl_type ps[np];
    for (uint32_t k = 1; k < np; k++) ps[k - 1] = tl_type_at(m, t.params, k);
    tl_status st = thunk(g, tl_type_tuple(m, ps, np - 1), t.results);
    if (st != TL_OK) return st;
  }
  return TL_OK;
}

static tl_status generate(tl_pass_ctx *ctx, bool only_i64) {
  gen g = {ctx, ctx->m, only_i64};
  uint32_t nt = (uint32_t)ctx->m->tables.n;
  for (uint32_t t = 0; t < nt; t++) {
    tl_status s = table_thunks(&g, t);
    if (s != TL_OK) return s;
  }
  return invoke_thunks(&g);
}

tl_status tl_pass_generate_dyncalls(tl_pass_ctx *ctx) { return generate(ctx, false); }
tl_status tl_pass_generate_i64_dyncalls(tl_pass_ctx *ctx) { return generate(ctx, true); }
