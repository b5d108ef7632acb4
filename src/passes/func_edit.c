/* func_edit.c — editing a module's function and global index spaces for
 * the passes that add or drop imports and thunks (legalize-js-interface,
 * generate-dyncalls, Emscripten's finalize, memory64-lowering): a function
 * or global import inserted after the others, functions or globals removed, a defined function
 * appended with its params as locals. Every reference (calls, ref.func,
 * element items, exports, start, global.get/set) is renumbered; the
 * module stays valid when the caller removes only what nothing uses. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint32_t *remap;
  uint8_t imm;           /* TL_IMM_FUNC or TL_IMM_GLOBAL */
} remap_ctx;

static void remap_visit(tl_walk *w, tl_expr **slot) {
  const remap_ctx *r = w->ctx;
  tl_expr *e = *slot;
  if (tl_ops[e->op].imm == r->imm) e->imm.index = r->remap[e->imm.index];
}

void tl_module_remap_funcs(tl_module *m, const uint32_t *remap) {
  remap_ctx r = {remap, TL_IMM_FUNC};
  tl_walk_module(m, remap_visit, &r);
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_FUNC) TL_EXPORT(m, i)->index = remap[TL_EXPORT(m, i)->index];
  if (m->has_start) m->start = remap[m->start];
}

static void remap_globals(tl_module *m, const uint32_t *remap) {
  remap_ctx r = {remap, TL_IMM_GLOBAL};
  tl_walk_module(m, remap_visit, &r);
  for (size_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_GLOBAL) TL_EXPORT(m, i)->index = remap[TL_EXPORT(m, i)->index];
}

static const char *dup(tl_module *m, const char *s) {
  return s ? tl_arena_strndup(&m->arena, s, strlen(s)) : NULL;
}

uint32_t tl_module_add_func_import(tl_module *m, const char *module, const char *base,
                                   uint32_t type, const char *name) {
  uint32_t ni = m->nimported_funcs, nf = (uint32_t)m->funcs.n;
  uint32_t *remap = tl_scratch_calloc(nf + 1, sizeof *remap);
  if (!remap) return TL_NO_INDEX;
  for (uint32_t i = 0; i < nf; i++) remap[i] = i < ni ? i : i + 1;
  tl_module_remap_funcs(m, remap);
  tl_free(remap);
  tl_module_add_func(m);
  tl_func *fs = m->funcs.p;
  memmove(&fs[ni + 1], &fs[ni], (nf - ni) * sizeof *fs);
  memset(&fs[ni], 0, sizeof *fs);
  fs[ni].type = type;
  fs[ni].imp = (tl_importname){dup(m, module), dup(m, base), 0, 0};
  fs[ni].name = dup(m, name);
  m->nimported_funcs++;
  return ni;
}

uint32_t tl_module_env_import(tl_module *m, const char *name, uint32_t type) {
  for (uint32_t i = 0; i < m->nimported_funcs; i++) {
    tl_importname *n = &TL_FUNC(m, i)->imp;
    if (tl_name_eq(n->module, n->module_len, "env", 3) && tl_name_eq(n->name, n->name_len, name, (uint32_t)strlen(name)))
      return i;
  }
  return type == TL_NO_INDEX ? TL_NO_INDEX : tl_module_add_func_import(m, "env", name, type, name);
}

uint32_t tl_module_env_import_sig(tl_module *m, const char *name, const tl_type *params, uint32_t np,
                                  tl_type result) {
  uint32_t type = tl_functype_intern(m, tl_type_tuple(m, params, np), result);
  if (type == TL_NO_INDEX) return TL_NO_INDEX;
  for (uint32_t i = 0; i < m->nimported_funcs; i++) { /* one of that name and type */
    tl_importname *n = &TL_FUNC(m, i)->imp;
    if (tl_name_eq(n->module, n->module_len, "env", 3) && tl_name_eq(n->name, n->name_len, name, (uint32_t)strlen(name)) &&
        TL_FUNC(m, i)->type == type)
      return i;
  }
  return tl_module_add_func_import(m, "env", name, type, name);
}

uint32_t tl_module_add_global_import(tl_module *m, const char *module, const char *base,
                                     tl_type type, const char *name) {
  uint32_t ni = m->nimported_globals, ng = (uint32_t)m->globals.n;
  uint32_t *remap = tl_scratch_calloc(ng + 1, sizeof *remap);
  if (!remap) return TL_NO_INDEX;
  for (uint32_t i = 0; i < ng; i++) remap[i] = i < ni ? i : i + 1;
  remap_globals(m, remap);
  tl_free(remap);
  tl_global g = {.type = type, .imp = {dup(m, module), dup(m, base), 0, 0}, .name = dup(m, name)};
  TL_VEC_PUSH(&m->globals, tl_global, g);
  tl_global *gs = m->globals.p;
  memmove(&gs[ni + 1], &gs[ni], (ng - ni) * sizeof *gs);
  gs[ni] = g;
  m->nimported_globals++;
  return ni;
}

uint32_t tl_module_add_func_defined(tl_module *m, uint32_t type, const char *name) {
  tl_func *f = tl_module_add_func(m);
  f->type = type;
  f->name = dup(m, name);
  tl_type params = TL_FTYPE(m, type)->params;
  uint32_t np = tl_type_arity(m, params);
  for (uint32_t i = 0; i < np; i++) tl_func_add_local(m, f, tl_type_at(m, params, i));
  uint32_t l = tl_func_new_label(m, f);
  f->body = tl_make_block(m, TL_OP_BLOCK, l, NULL, 0);
  return (uint32_t)m->funcs.n - 1;
}

bool tl_module_remove_funcs(tl_module *m, const uint8_t *drop) {
  uint32_t nf = (uint32_t)m->funcs.n, n = 0, ni = 0;
  uint32_t *remap = tl_scratch_calloc(nf + 1, sizeof *remap);
  if (!remap) return false;
  for (uint32_t i = 0; i < nf; i++) {
    remap[i] = drop[i] ? UINT32_MAX : n++;
    if (!drop[i] && i < m->nimported_funcs) ni++;
  }
  tl_module_remap_funcs(m, remap);
  tl_func *fs = m->funcs.p;
  for (uint32_t i = 0; i < nf; i++) {
    if (drop[i]) tl_func_forget_locs(&fs[i]);
    else fs[remap[i]] = fs[i];
  }
  tl_free(remap);
  m->funcs.n = n;
  m->nimported_funcs = ni;
  return true;
}

bool tl_module_permute_globals(tl_module *m, const uint32_t *remap) {
  uint32_t ng = (uint32_t)m->globals.n;
  tl_global *old = tl_scratch_calloc(ng + 1, sizeof *old);
  if (!old) return false;
  memcpy(old, m->globals.p, ng * sizeof *old);
  remap_globals(m, remap);
  for (uint32_t i = 0; i < ng; i++) TL_VEC_AT(&m->globals, tl_global, remap[i]) = old[i];
  tl_free(old);
  return true;
}

bool tl_module_remove_globals(tl_module *m, const uint8_t *drop) {
  uint32_t ng = (uint32_t)m->globals.n, n = 0, ni = 0;
  uint32_t *remap = tl_scratch_calloc(ng + 1, sizeof *remap);
  if (!remap) return false;
  for (uint32_t i = 0; i < ng; i++) {
    remap[i] = drop[i] ? UINT32_MAX : n++;
    if (!drop[i] && i < m->nimported_globals) ni++;
  }
  remap_globals(m, remap);
  tl_global *gs = m->globals.p;
  for (uint32_t i = 0; i < ng; i++)
    if (!drop[i]) gs[remap[i]] = gs[i];
  tl_free(remap);
  m->globals.n = n;
  m->nimported_globals = ni;
  return true;
}

void tl_module_remove_export(tl_module *m, uint32_t i) {
  tl_export *es = m->exports.p;
  memmove(&es[i], &es[i + 1], (m->exports.n - i - 1) * sizeof *es);
  m->exports.n--;
}

int32_t tl_module_find_export(const tl_module *m, const char *name) {
  for (size_t i = 0; i < m->exports.n; i++) {
    const tl_export *e = TL_EXPORT(m, i);
    if (tl_name_eq(e->name, e->name_len, name, (uint32_t)strlen(name))) return (int32_t)i;
  }
  return -1;
}

uint32_t tl_module_find_func_named(const tl_module *m, const char *name) {
  for (uint32_t i = 0; i < m->funcs.n; i++)
    if (TL_FUNC(m, i)->name && !strcmp(TL_FUNC(m, i)->name, name)) return i;
  return TL_NO_INDEX;
}

tl_expr *tl_make_call(tl_module *m, tl_func *f, uint32_t callee, tl_expr **args, uint32_t n) {
  tl_expr *c = tl_expr_new(m, TL_OP_CALL, n);
  c->imm.index = callee;
  for (uint32_t i = 0; i < n; i++) c->kid[i] = args[i];
  tl_expr_finalize(m, f, c);
  return c;
}
