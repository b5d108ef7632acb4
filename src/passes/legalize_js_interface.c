/* legalize_js_interface.c — wasm-opt's legalize-js-interface and
 * legalize-js-interface-minimally: JS (without BigInt integration) cannot
 * pass i64 across the boundary, so
 *  - an export whose function has an i64 param or result points instead to
 *    a stub legalstub$F taking each i64 as two i32s (low, high) and
 *    returning an i64's low half, its high half passed to the import
 *    env.setTempRet0 (a function named setTempRet0 if the module has one);
 *  - an import with i64 becomes legalimport$F (the same module and name,
 *    the legal signature), and every call, ref.func and table entry of the
 *    old one goes to legalfunc$F, a stub of the original type that splits
 *    the i64 arguments and joins an i64 result from the returned low half
 *    and env.getTempRet0's high half. The old import is removed.
 * Minimally: only exports named dynCall_* and env.invoke_* imports.
 * --pass-arg legalize-js-interface-export-originals: each legalized export
 * of a defined function (not dynCall_*) is also exported as orig$NAME.
 * New imports go after the existing ones, in the order Binaryen 108 adds
 * them (setTempRet0 for the exports first, then per import getTempRet0
 * and its legalimport$), stubs at the end: the import order is what emcc's
 * metadata lists.
 * Assumes: nothing. Guarantees: a valid module; no i64 at the boundary. */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_module *m;
  bool full, originals;
  uint32_t ni0;            /* imports before the pass */
  uint8_t *exp_legal;      /* per export: gets a stub */
  uint8_t *imp_legal;      /* per original import: replaced */
  uint32_t *legal_imp;     /* per original import: its legalimport$ */
  uint32_t set_temp, get_temp;
} legalizer;

static bool has_i64(const tl_module *m, uint32_t type) {
  const tl_functype *t = TL_FTYPE(m, type);
  for (uint32_t i = 0; i < tl_type_arity(m, t->params); i++)
    if (tl_type_at(m, t->params, i) == TL_I64) return true;
  return t->results == TL_I64;
}

static bool starts(const char *s, uint32_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return s && len >= n && !memcmp(s, prefix, n);
}

static bool export_wanted(const legalizer *g, const tl_export *e) {
  return g->full || starts(e->name, tl_name_len(e->name, e->name_len), "dynCall_");
}

static bool import_wanted(const legalizer *g, const tl_func *f) {
  if (g->full) return true;
  const tl_importname *n = &f->imp;
  return tl_name_eq(n->module, n->module_len, "env", 3) &&
         starts(n->name, tl_name_len(n->name, n->name_len), "invoke_");
}

/* "PREFIX" + the function's name (its index when it has none). */
static char *stub_name(tl_module *m, const char *prefix, uint32_t fi) {
  const char *n = TL_FUNC(m, fi)->name;
  char num[16];
  if (!n) snprintf(num, sizeof num, "%u", fi), n = num;
  size_t len = strlen(prefix) + strlen(n);
  char *s = tl_arena_alloc(&m->arena, len + 1, 1);
  snprintf(s, len + 1, "%s%s", prefix, n);
  return s;
}

/* A function named `name`, else the import env.name, else a new import. */
static uint32_t temp_ret(tl_module *m, const char *name, tl_type params, tl_type results) {
  uint32_t i = tl_module_find_func_named(m, name);
  if (i != TL_NO_INDEX) return i;
  for (i = 0; i < m->nimported_funcs; i++) {
    tl_importname *n = &TL_FUNC(m, i)->imp;
    if (tl_name_eq(n->module, n->module_len, "env", 3) &&
        tl_name_eq(n->name, n->name_len, name, (uint32_t)strlen(name)))
      return i;
  }
  return tl_module_add_func_import(m, "env", name, tl_functype_intern(m, params, results), name);
}

/* The signature with each i64 param as two i32s and an i64 result as i32. */
static uint32_t legal_type(tl_module *m, uint32_t type) {
  tl_functype t = *TL_FTYPE(m, type);
  uint32_t np = tl_type_arity(m, t.params), n = 0;
  tl_type ps[2 * np + 1];
  for (uint32_t i = 0; i < np; i++) {
    tl_type p = tl_type_at(m, t.params, i);
    ps[n++] = p == TL_I64 ? TL_I32 : p;
    if (p == TL_I64) ps[n++] = TL_I32;
  }
  return tl_functype_intern(m, tl_type_tuple(m, ps, n), t.results == TL_I64 ? TL_I32 : t.results);
}

static tl_expr *get(tl_module *m, tl_func *f, uint32_t i) { return tl_make_local_get(m, f, i); }
static tl_expr *shr32(tl_module *m, tl_expr *x) {
  return tl_make_binary(m, TL_OP_I64_SHR_U, x, tl_make_const_i64(m, 32));
}
static tl_expr *low(tl_module *m, tl_expr *x) { return tl_make_unary(m, TL_OP_I32_WRAP_I64, x); }
static tl_expr *high(tl_module *m, tl_expr *x) { return low(m, shr32(m, x)); }
/* (i64.or (extend_u lo) (i64.shl (extend_u hi) 32)) */
static tl_expr *join(tl_module *m, tl_expr *lo, tl_expr *hi) {
  tl_expr *h = tl_make_binary(m, TL_OP_I64_SHL, tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, hi),
                              tl_make_const_i64(m, 32));
  return tl_make_binary(m, TL_OP_I64_OR, tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, lo), h);
}

static void set_body(tl_module *m, tl_func *f, tl_expr **kids, uint32_t n) {
  f->body = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, kids, n);
}

/* legalstub$F: legal params joined into F's, F's i64 result split. */
static uint32_t export_stub(legalizer *g, uint32_t fi) {
  tl_module *m = g->m;
  uint32_t type = TL_FUNC(m, fi)->type;
  tl_functype t = *TL_FTYPE(m, type);
  uint32_t s = tl_module_add_func_defined(m, legal_type(m, type), stub_name(m, "legalstub$", fi));
  tl_func *f = TL_FUNC(m, s);
  uint32_t np = tl_type_arity(m, t.params), k = 0;
  tl_expr *args[np + 1];
  for (uint32_t i = 0; i < np; i++) {
    bool wide = tl_type_at(m, t.params, i) == TL_I64;
    args[i] = wide ? join(m, get(m, f, k), get(m, f, k + 1)) : get(m, f, k);
    k += wide ? 2 : 1;
  }
  tl_expr *call = tl_make_call(m, f, fi, args, np);
  if (t.results != TL_I64) {
    set_body(m, f, &call, 1);
    return s;
  }
  uint32_t v = tl_func_add_var(m, f, TL_I64);
  tl_expr *hi = high(m, get(m, f, v));
  tl_expr *kids[3] = {tl_make_local_set(m, f, v, call, false), tl_make_call(m, f, g->set_temp, &hi, 1),
                      low(m, get(m, f, v))};
  set_body(m, f, kids, 3);
  return s;
}

/* legalfunc$F: F's type; calls legalimport$F with the i64s split. */
static uint32_t import_stub(legalizer *g, uint32_t fi, uint32_t legal) {
  tl_module *m = g->m;
  tl_functype t = *TL_FTYPE(m, TL_FUNC(m, fi)->type);
  uint32_t s = tl_module_add_func_defined(m, TL_FUNC(m, fi)->type, stub_name(m, "legalfunc$", fi));
  tl_func *f = TL_FUNC(m, s);
  uint32_t np = tl_type_arity(m, t.params), n = 0;
  tl_expr *args[2 * np + 1];
  for (uint32_t i = 0; i < np; i++) {
    if (tl_type_at(m, t.params, i) != TL_I64) {
      args[n++] = get(m, f, i);
      continue;
    }
    args[n++] = low(m, get(m, f, i));
    args[n++] = high(m, get(m, f, i));
  }
  tl_expr *call = tl_make_call(m, f, legal, args, n);
  if (t.results == TL_I64) call = join(m, call, tl_make_call(m, f, g->get_temp, NULL, 0));
  set_body(m, f, &call, 1);
  return s;
}

/* Which exports and imports change; the imports they need, added. */
static bool plan(legalizer *g) {
  tl_module *m = g->m;
  bool need_set = false, need_get = false;
  for (size_t i = 0; i < m->exports.n; i++) {
    tl_export *e = TL_EXPORT(m, i);
    if (e->kind != TL_EXTERN_FUNC || !has_i64(m, TL_FUNC(m, e->index)->type) || !export_wanted(g, e))
      continue;
    g->exp_legal[i] = 1;
    need_set |= TL_FTYPE(m, TL_FUNC(m, e->index)->type)->results == TL_I64;
  }
  if (need_set && temp_ret(m, "setTempRet0", TL_I32, TL_NONE) == TL_NO_INDEX) return false;
  for (uint32_t i = 0; i < g->ni0; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (!has_i64(m, f->type) || !import_wanted(g, f)) continue;
    g->imp_legal[i] = 1;
    need_get |= TL_FTYPE(m, f->type)->results == TL_I64;
    if (TL_FTYPE(m, f->type)->results == TL_I64 &&
        temp_ret(m, "getTempRet0", TL_NONE, TL_I32) == TL_NO_INDEX)
      return false;
    f = TL_FUNC(m, i);
    g->legal_imp[i] = tl_module_add_func_import(m, (const char *)f->imp.module, f->imp.name,
                                                legal_type(m, f->type), stub_name(m, "legalimport$", i));
    if (g->legal_imp[i] == TL_NO_INDEX) return false;
  }
  /* Found again: imports added since moved a defined one. */
  g->set_temp = need_set ? temp_ret(m, "setTempRet0", TL_I32, TL_NONE) : TL_NO_INDEX;
  g->get_temp = need_get ? temp_ret(m, "getTempRet0", TL_NONE, TL_I32) : TL_NO_INDEX;
  return true;
}

static bool legalize_exports(legalizer *g) {
  tl_module *m = g->m;
  size_t n = m->exports.n;
  uint32_t *stub_of = tl_scratch_calloc(m->funcs.n + n + 1, sizeof *stub_of);
  if (!stub_of) return false;
  for (size_t i = 0; i < n; i++) {
    tl_export *e = TL_EXPORT(m, i);
    if (!g->exp_legal[i]) continue;
    uint32_t fi = e->index;
    if (!stub_of[fi]) stub_of[fi] = export_stub(g, fi) + 1;
    e = TL_EXPORT(m, i);
    e->index = stub_of[fi] - 1;
    uint32_t len = tl_name_len(e->name, e->name_len);
    if (!g->originals || fi < m->nimported_funcs || starts(e->name, len, "dynCall_")) continue;
    char *name = tl_arena_alloc(&m->arena, len + 6, 1);
    memcpy(name, "orig$", 5);
    memcpy(name + 5, e->name, len);
    name[len + 5] = 0;
    tl_export orig = {name, TL_EXTERN_FUNC, fi, len + 5};
    TL_VEC_PUSH(&m->exports, tl_export, orig);
  }
  tl_free(stub_of);
  return true;
}

/* Stubs for the replaced imports; then everything that used an old import
 * uses its stub, and the old imports go. */
static bool legalize_imports(legalizer *g) {
  tl_module *m = g->m;
  uint32_t nf = (uint32_t)m->funcs.n;
  uint32_t *remap = tl_scratch_calloc(nf + g->ni0 + 1, sizeof *remap);
  uint8_t *drop = tl_scratch_calloc(nf + g->ni0 + 1, 1);
  if (!remap || !drop) return tl_free(remap), tl_free(drop), false;
  for (uint32_t i = 0; i < nf + g->ni0; i++) remap[i] = i;
  bool any = false;
  for (uint32_t i = 0; i < g->ni0; i++) {
    if (!g->imp_legal[i]) continue;
    remap[i] = import_stub(g, i, g->legal_imp[i]);
    drop[i] = any = 1;
  }
  bool ok = true;
  if (any) {
    tl_module_remap_funcs(m, remap);
    ok = tl_module_remove_funcs(m, drop);
  }
  tl_free(remap);
  tl_free(drop);
  return ok;
}

static tl_status legalize(tl_pass_ctx *ctx, bool full) {
  tl_module *m = ctx->m;
  const char *orig = tl_pass_arg_get(ctx, "legalize-js-interface-export-originals");
  legalizer g = {m, full, orig && *orig, m->nimported_funcs, NULL, NULL, NULL, 0, 0};
  g.exp_legal = tl_scratch_calloc(m->exports.n + 1, 1);
  g.imp_legal = tl_scratch_calloc(g.ni0 + 1, 1);
  g.legal_imp = tl_scratch_calloc(g.ni0 + 1, sizeof *g.legal_imp);
  bool ok = g.exp_legal && g.imp_legal && g.legal_imp && plan(&g);
  ok = ok && legalize_exports(&g) && legalize_imports(&g);
  tl_free(g.exp_legal);
  tl_free(g.imp_legal);
  tl_free(g.legal_imp);
  return ok ? TL_OK : tl_nomem(ctx->err, "legalize-js-interface");
}

tl_status tl_pass_legalize_js_interface(tl_pass_ctx *ctx) { return legalize(ctx, true); }
tl_status tl_pass_legalize_js_interface_minimally(tl_pass_ctx *ctx) { return legalize(ctx, false); }
