/* features.c — feature names as wasm-opt spells them, the default set, and
 * detecting which features a module uses (walks every function body). */
#include "ir.h"

#include <string.h>

static const struct { tl_features bit; const char *name; } names[] = {
  {TL_FEAT_MUTABLE_GLOBALS, "mutable-globals"},
  {TL_FEAT_SIGN_EXT, "sign-ext"},
  {TL_FEAT_NONTRAPPING_FPTOINT, "nontrapping-float-to-int"},
  {TL_FEAT_BULK_MEMORY, "bulk-memory"},
  {TL_FEAT_MULTIVALUE, "multivalue"},
  {TL_FEAT_REFERENCE_TYPES, "reference-types"},
  {TL_FEAT_SIMD, "simd"},
  {TL_FEAT_TAIL_CALL, "tail-call"},
  {TL_FEAT_EXTENDED_CONST, "extended-const"},
  {TL_FEAT_THREADS, "threads"},
  {TL_FEAT_EXCEPTION_HANDLING, "exception-handling"},
  {TL_FEAT_RELAXED_SIMD, "relaxed-simd"},
  {TL_FEAT_MULTI_MEMORY, "multimemory"},
  {TL_FEAT_MEMORY64, "memory64"},
  {TL_FEAT_GC, "gc"},
};

const char *tl_feature_name(tl_features single) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].bit == single) return names[i].name;
  return "mvp";
}

tl_features tl_feature_by_name(const char *name) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(names[i].name, name)) return names[i].bit;
  if (!strcmp(name, "nontrapping-fptoint")) return TL_FEAT_NONTRAPPING_FPTOINT;
  if (!strcmp(name, "sign-extension")) return TL_FEAT_SIGN_EXT;
  if (!strcmp(name, "multi-memory")) return TL_FEAT_MULTI_MEMORY;
  return 0;
}

/* wasm-opt's defaults follow LLVM's generic target. */
tl_features tl_features_default(void) {
  return TL_FEAT_MUTABLE_GLOBALS | TL_FEAT_SIGN_EXT | TL_FEAT_NONTRAPPING_FPTOINT |
         TL_FEAT_BULK_MEMORY;
}

uint32_t tl_features_default_set(void) { return tl_features_default(); }
uint32_t tl_feature_from_name(const char *name) { return tl_feature_by_name(name); }
const char *tl_feature_to_name(uint32_t f) { return tl_feature_name(f); }

/* Typed references to functions and externs need only reference types:
 * without gc the writer writes them as funcref / externref (their tops),
 * as wasm-opt does, so ref.func may be typed (ref $t) in any module. */
tl_features tl_type_features(const tl_module *m, tl_type t) {
  tl_features f = 0;
  for (uint32_t i = 0, n = tl_type_arity(m, t); i < n; i++) {
    tl_type c = tl_type_at(m, t, i);
    if (c == TL_V128) f |= TL_FEAT_SIMD;
    if (!tl_type_is_ref(c)) continue;
    f |= TL_FEAT_REFERENCE_TYPES;
    uint32_t top = tl_heap_top(m, tl_ref_heap(c));
    if (top == TL_HT_EXN) f |= TL_FEAT_EXCEPTION_HANDLING;
    if (top == TL_HT_ANY) f |= TL_FEAT_GC;
  }
  return f; /* several params are MVP; several results are checked by callers */
}
#define type_features tl_type_features

typedef struct { tl_module *m; tl_features f; } detect_ctx;

static void detect_visit(tl_walk *w, tl_expr **slot) {
  detect_ctx *c = w->ctx;
  tl_expr *e = *slot;
  c->f |= tl_ops[e->op].feat;
  c->f |= type_features(c->m, e->type);
  if (tl_type_is_tuple(e->type)) c->f |= TL_FEAT_MULTIVALUE;
  if (tl_ops[e->op].flags & TL_F_ATOMIC) c->f |= TL_FEAT_THREADS;
}

static tl_features expr_features(tl_module *m, tl_func *fn, tl_expr **root) {
  detect_ctx c = {m, 0};
  if (*root) tl_walk_post(m, fn, root, detect_visit, &c);
  return c.f;
}

tl_features tl_module_detect_features(tl_module *m) {
  tl_features f = 0;
  for (uint32_t i = 0; i < m->types.n; i++) {
    tl_functype *ft = TL_FTYPE(m, i);
    f |= type_features(m, ft->params) | type_features(m, ft->results);
    if (ft->kind != TL_DT_FUNC || ft->open || ft->super != TL_NO_SUPER || ft->nrec != 1) f |= TL_FEAT_GC;
    for (uint32_t k = 0; k < ft->nfields; k++) f |= type_features(m, ft->fields[k].type);
    if (tl_type_arity(m, ft->results) > 1) f |= TL_FEAT_MULTIVALUE;
  }
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    tl_func *fn = TL_FUNC(m, i);
    for (uint32_t l = 0; l < fn->nlocal; l++) f |= type_features(m, fn->local[l]);
    f |= expr_features(m, fn, &fn->body);
  }
  for (uint32_t i = 0; i < m->globals.n; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    f |= type_features(m, g->type) | expr_features(m, NULL, &g->init);
    if (g->mut && (g->imp.module || i < m->nimported_globals)) f |= TL_FEAT_MUTABLE_GLOBALS;
  }
  for (uint32_t i = 0; i < m->tables.n; i++) {
    tl_table *t = TL_TABLE(m, i);
    if (t->elem != TL_FUNCREF) f |= type_features(m, t->elem); /* an MVP table */
    if (t->init) f |= TL_FEAT_REFERENCE_TYPES | expr_features(m, NULL, &t->init);
  }
  for (uint32_t i = 0; i < m->memories.n; i++)
    if (TL_MEMORY(m, i)->shared) f |= TL_FEAT_THREADS;
  for (uint32_t i = 0; i < m->memories.n; i++)
    if (TL_MEMORY(m, i)->is64) f |= TL_FEAT_MEMORY64;
  for (uint32_t i = 0; i < m->tables.n; i++)
    if (TL_TABLE(m, i)->is64) f |= TL_FEAT_MEMORY64;
  if (m->memories.n > 1) f |= TL_FEAT_MULTI_MEMORY;
  if (m->tables.n > 1) f |= TL_FEAT_REFERENCE_TYPES;
  if (m->tags.n) f |= TL_FEAT_EXCEPTION_HANDLING;
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *e = TL_ELEM(m, i);
    if (e->mode != TL_SEG_ACTIVE || e->table != 0 || e->type != TL_FUNCREF)
      f |= TL_FEAT_BULK_MEMORY;
    if (e->type != TL_FUNCREF) f |= TL_FEAT_REFERENCE_TYPES;
  }
  for (uint32_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->mode == TL_SEG_PASSIVE) f |= TL_FEAT_BULK_MEMORY;
  return f;
}
