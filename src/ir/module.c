/* module.c — creating and destroying modules, functions, locals and labels. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

static void module_teardown(void *m) { tl_module_destroy(m); }

tl_module *tl_module_alloc(void) {
  tl_module *m = tl_calloc(1, sizeof *m);
  if (!m) return NULL;
  tl_arena_init(&m->arena);
  tl_arena_init(&m->nodes);
  m->chunks = tl_chunk_cache_new(); /* NULL: nothing is cached */
  m->features = tl_features_default();
  tl_oom_guard_add(&m->guard, module_teardown, m);
  return m;
}

void tl_module_destroy(tl_module *m) {
  if (!m) return;
  tl_oom_guard_remove(&m->guard);
  tl_vec *vecs[] = {&m->types, &m->funcs, &m->globals, &m->memories, &m->tables,
                    &m->tags, &m->exports, &m->elems, &m->datas, &m->customs, &m->debug_files};
  for (size_t i = 0; i < m->funcs.n; i++) tl_locmap_free(TL_FUNC(m, i)->locs);
  tl_nodes_destroy(m);
  tl_chunk_cache_free(m->chunks);
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) tl_vec_free(vecs[i]);
  tl_free(m->tuple_hash);
  tl_free(m->group_hash);
  tl_memarg_free_big(m);
  tl_arena_free(&m->arena);
  tl_free(m);
}

void tl_module_free(tl_module *m) { tl_module_destroy(m); }
uint32_t tl_module_features(const tl_module *m) { return m->features; }
void tl_module_set_features(tl_module *m, uint32_t features) { m->features = features; }

tl_func *tl_module_add_func(tl_module *m) {
  tl_func f;
  memset(&f, 0, sizeof f);
  TL_VEC_PUSH(&m->funcs, tl_func, f);
  return TL_FUNC(m, m->funcs.n - 1);
}

tl_functype *tl_func_type(const tl_module *m, const tl_func *f) { return TL_FTYPE(m, f->type); }

uint32_t tl_func_nparams(const tl_module *m, const tl_func *f) {
  return tl_type_arity(m, tl_func_type(m, f)->params);
}

/* Locals and label names live in the arena; growing copies them into an
 * array twice the size (local_cap / label_cap say how much room there is). */
uint32_t tl_func_add_local(tl_module *m, tl_func *f, tl_type t) {
  uint32_t n = f->nlocal;
  if (n == f->local_cap) {
    uint32_t cap = n ? n * 2 : 4;
    tl_type *nl = TL_NEWN(&m->arena, tl_type, cap);
    if (n) memcpy(nl, f->local, n * sizeof *nl);
    f->local = nl;
    if (f->local_name) {
      const char **nn = TL_NEWN(&m->arena, const char *, cap);
      memcpy(nn, f->local_name, n * sizeof *nn);
      f->local_name = nn;
    }
    if (f->local_orig) {
      uint32_t *no = TL_NEWN(&m->arena, uint32_t, cap);
      memcpy(no, f->local_orig, n * sizeof *no);
      f->local_orig = no;
    }
    f->local_cap = cap;
  }
  f->local[n] = t;
  if (f->local_name) f->local_name[n] = NULL;
  if (f->local_orig) f->local_orig[n] = TL_NO_INDEX;
  f->nlocal = n + 1;
  return n;
}

uint32_t tl_func_add_var(tl_module *m, tl_func *f, tl_type t) {
  bool keep = f->has_scratch_base && f->scratch_base >= f->nlocal;
  uint32_t n = tl_func_add_local(m, f, t);
  if (keep) f->scratch_base = f->nlocal;
  else f->has_scratch_base = false;
  return n;
}

uint32_t tl_func_new_label(tl_module *m, tl_func *f) {
  if (f->label_name && f->nlabel == f->label_cap) {
    uint32_t n = f->nlabel, cap = n ? n * 2 : 4;
    const char **nn = TL_NEWN(&m->arena, const char *, cap);
    if (n) memcpy(nn, f->label_name, n * sizeof *nn);
    f->label_name = nn;
    f->label_cap = cap;
  }
  if (f->label_name) f->label_name[f->nlabel] = NULL;
  return f->nlabel++;
}

/* Tuple-typed locals (scratch locals the reader makes for multi-value
 * code) become several consecutive wasm locals when written or printed.
 * base[i] is the first wasm local of IR local i; base[nlocal] is the total.
 * The caller frees the array. */
uint32_t *tl_func_local_map(const tl_module *m, const tl_func *f) {
  uint32_t *base = tl_malloc((f->nlocal + 1) * sizeof *base);
  if (!base) tl_arena_oom((tl_arena *)&m->arena); /* the entry point's longjmp (aborts if none) */
  uint32_t n = 0;
  for (uint32_t i = 0; i < f->nlocal; i++) {
    base[i] = n;
    n += tl_type_is_tuple(f->local[i]) ? tl_type_arity(m, f->local[i]) : 1;
  }
  base[f->nlocal] = n;
  return base;
}
