/* store.c — the runtime's store (tilt.h "execution"), shared by both
 * engines: the store and its stacks, host functions, globals, tables and
 * memories made by the embedder, and calling a function with typed values
 * (tl_func_call dispatches to the engine the store runs: tl_interp_run,
 * which hands JIT stores to tl_jit_run). A store owns everything it makes. */
#include "runtime.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ store */
static void store_teardown(void *s) { tl_store_free(s); }

tl_store *tl_store_new(void) {
  tl_store *s = tl_calloc(1, sizeof *s);
  if (!s) return NULL;
  tl_arena_init(&s->arena);
  s->max_depth = 10000;
  tl_oom_guard_add(&s->guard, store_teardown, s);
  return s;
}

void tl_store_free(tl_store *s) {
  if (!s) return;
  tl_oom_guard_remove(&s->guard);
  tl_jit_store_free(s);
  tl_gc_free(s);
  for (size_t i = 0; i < s->mems.n; i++) tl_mem_free(TL_VEC_AT(&s->mems, tl_meminst *, i));
  for (size_t i = 0; i < s->tables.n; i++) tl_free(TL_VEC_AT(&s->tables, tl_tableinst *, i)->e);
  tl_vec_free(&s->mems);
  tl_vec_free(&s->tables);
  tl_free(s->stack);
  tl_free(s->frames);
  tl_arena_free(&s->arena);
  tl_free(s);
}

void tl_store_set_fuel(tl_store *s, uint64_t fuel) { s->fuel = fuel; }
void tl_store_set_relaxed(tl_store *s, int profile) { s->relaxed = profile; }

void tl_store_set_engine(tl_store *s, int engine) { s->engine = engine; }

void tl_store_set_max_depth(tl_store *s, uint32_t frames) {
  s->max_depth = frames ? frames : 1;
  tl_free(s->frames);
  s->frames = NULL;
}


/* n zeroed bytes of the store's arena; NULL when out of memory. */
static void *store_zalloc(tl_store *s, size_t n, size_t align) {
  void *p = tl_arena_try_alloc(&s->arena, n, align);
  if (p) memset(p, 0, n);
  return p;
}
#define STORE_NEW(s, T) ((T *)store_zalloc((s), sizeof(T), _Alignof(T)))

static uint32_t *copy_types(tl_store *s, const uint32_t *p, uint32_t np, const uint32_t *r, uint32_t nr) {
  uint32_t *t = store_zalloc(s, (np + nr + 1) * sizeof *t, _Alignof(uint32_t));
  if (!t) return NULL;
  if (np) memcpy(t, p, np * sizeof *t);
  if (nr) memcpy(t + np, r, nr * sizeof *t);
  return t;
}

tl_funcinst *tl_store_func_new(tl_store *s, const uint32_t *params, uint32_t np, const uint32_t *results,
                               uint32_t nr, tl_host_fn fn, void *user) {
  tl_funcinst *f = STORE_NEW(s, tl_funcinst);
  uint32_t *types = f ? copy_types(s, params, np, results, nr) : NULL;
  if (!types) return NULL;
  f->np = np;
  f->nr = nr;
  f->types = types;
  f->host = fn;
  f->user = user;
  f->plain = true;
  return f;
}

tl_extern tl_host_func_new(tl_store *s, const uint32_t *params, uint32_t np, const uint32_t *results,
                           uint32_t nr, tl_host_fn fn, void *user) {
  return (tl_extern){TL_EXTERNKIND_FUNC, tl_store_func_new(s, params, np, results, nr, fn, user)};
}

tl_extern tl_host_func_of_type(tl_store *s, const tl_module *m, uint32_t type, tl_host_fn fn, void *user) {
  const tl_functype *ft = TL_FTYPE(m, type);
  uint32_t p[64], r[64], np = tl_type_arity(m, ft->params), nr = tl_type_arity(m, ft->results);
  if (np > 64 || nr > 64) return (tl_extern){TL_EXTERNKIND_FUNC, NULL};
  for (uint32_t k = 0; k < np; k++) p[k] = tl_type_at(m, ft->params, k);
  for (uint32_t k = 0; k < nr; k++) r[k] = tl_type_at(m, ft->results, k);
  return tl_host_func_new(s, p, np, r, nr, fn, user);
}

tl_extern tl_host_global_new(tl_store *s, tl_value v, bool mut) {
  tl_globalinst *g = STORE_NEW(s, tl_globalinst);
  if (!g) return (tl_extern){TL_EXTERNKIND_GLOBAL, NULL};
  g->type = v.type;
  g->mut = mut;
  memcpy(&g->v, &v.of, sizeof v.of);
  return (tl_extern){TL_EXTERNKIND_GLOBAL, g};
}

tl_tableinst *tl_store_table_new(tl_store *s, tl_type elem, uint64_t min, uint64_t max, bool has_max) {
  tl_tableinst *t = STORE_NEW(s, tl_tableinst);
  if (!t) return NULL;
  t->elem = elem;
  t->has_max = has_max;
  t->max = has_max && max < UINT32_MAX ? (uint32_t)max : UINT32_MAX;
  if (min > 10000000) return NULL;
  t->n = (uint32_t)min;
  t->cap = min ? (uint32_t)min : 1;
  t->e = tl_calloc(t->cap, sizeof *t->e);
  if (!t->e || !tl_vec_try_grow(&s->tables, sizeof t, s->tables.n + 1)) {
    tl_free(t->e);
    return NULL;
  }
  TL_VEC_AT(&s->tables, tl_tableinst *, s->tables.n++) = t;
  return t;
}

/* mm into the store's list (NULL, mm unmapped, when out of memory). */
static tl_meminst *keep_mem(tl_store *s, tl_meminst *mm) {
  if (!tl_vec_try_grow(&s->mems, sizeof mm, s->mems.n + 1)) {
    tl_mem_free(mm);
    return NULL;
  }
  TL_VEC_AT(&s->mems, tl_meminst *, s->mems.n++) = mm;
  return mm;
}

/* A 64-bit memory: limits up to 2^48 pages; what its reservation cannot
 * hold fails (NULL at creation, -1 from memory.grow). */
tl_meminst *tl_store_mem64_new(tl_store *s, uint64_t min, uint64_t max, bool has_max, bool shared) {
  tl_meminst *mm = STORE_NEW(s, tl_meminst);
  if (!mm) return NULL;
  mm->has_max = has_max;
  mm->max = has_max ? max : 1ull << 48;
  mm->shared = shared;
  mm->is64 = true;
  if (min > (TL_MEM_RESERVE / TL_PAGE) || !tl_mem_init(mm, min)) return NULL;
  return keep_mem(s, mm);
}

tl_meminst *tl_store_mem_new(tl_store *s, uint64_t min, uint64_t max, bool has_max, bool shared) {
  tl_meminst *mm = STORE_NEW(s, tl_meminst);
  if (!mm) return NULL;
  mm->has_max = has_max;
  mm->max = has_max && max < 65536 ? max : 65536;
  mm->shared = shared;
  if (min > 65536) return NULL;
  if (!tl_mem_init(mm, min)) return NULL;
  return keep_mem(s, mm);
}

tl_extern tl_host_table_new(tl_store *s, uint32_t elem, uint32_t min, uint32_t max, bool has_max) {
  return (tl_extern){TL_EXTERNKIND_TABLE, tl_store_table_new(s, elem, min, max, has_max)};
}

tl_extern tl_host_memory_new(tl_store *s, uint32_t min, uint32_t max, bool has_max) {
  return (tl_extern){TL_EXTERNKIND_MEMORY, tl_store_mem_new(s, min, max, has_max, false)};
}

tl_extern tl_host_memory64_new(tl_store *s, uint64_t min, uint64_t max, bool has_max) {
  return (tl_extern){TL_EXTERNKIND_MEMORY, tl_store_mem64_new(s, min, max, has_max, false)};
}

tl_extern tl_host_table64_new(tl_store *s, uint32_t elem, uint64_t min, uint64_t max, bool has_max) {
  tl_tableinst *t = tl_store_table_new(s, elem, min, max, has_max);
  if (t) t->is64 = true;
  return (tl_extern){TL_EXTERNKIND_TABLE, t};
}

tl_extern tl_host_shared_memory_new(tl_store *s, uint32_t min, uint32_t max) {
  return (tl_extern){TL_EXTERNKIND_MEMORY, tl_store_mem_new(s, min, max, true, true)};
}

tl_status tl_global_get(tl_extern g, tl_value *out) {
  tl_globalinst *gi = g.ptr;
  if (g.kind != TL_EXTERNKIND_GLOBAL || !gi) return TL_E_INVALID;
  out->type = gi->type;
  memcpy(&out->of, &gi->v, sizeof out->of);
  return TL_OK;
}

uint8_t *tl_host_memory(tl_host_call *call, uint64_t *size) {
  tl_instance *i = call ? call->inst : NULL;
  if (!i || !i->m->memories.n) {
    *size = 0;
    return NULL;
  }
  *size = i->mems[0]->pages * TL_PAGE;
  return i->mems[0]->data;
}

uint32_t tl_host_call_nresults(tl_host_call *call) { return call ? call->nresults : 0; }

void tl_func_type_of(tl_extern fn, const uint32_t **params, uint32_t *np, const uint32_t **results,
                     uint32_t *nr) {
  tl_funcinst *f = fn.ptr;
  *params = f->types;
  *np = f->np;
  *results = f->types + f->np;
  *nr = f->nr;
}


/* ------------------------------------------------------------------ calls */
/* A host value for parameter i: of its type, or a reference of a subtype
 * (an externref for a (ref extern) parameter, when it is not null). */
static bool arg_fits(const tl_funcinst *f, uint32_t i, const tl_value *a) {
  tl_type want = f->types[i];
  if (a->type == want) return true;
  if (!tl_type_is_ref(a->type) || !tl_type_is_ref(want)) return false;
  if (!tl_ref_nullable(want) && !a->of.ref) return false;
  return tl_type_sub_across(NULL, tl_ref_with_null(a->type, false), f->inst ? f->inst->m : NULL, want);
}

tl_status tl_func_call(tl_store *s, tl_extern fn, const tl_value *args, uint32_t nargs,
                       tl_value *results, uint32_t maxres, uint32_t *nres, tl_error *err) {
  tl_funcinst *f = fn.ptr;
  if (fn.kind != TL_EXTERNKIND_FUNC || !f)
    return tl_errorf(err, TL_E_LINK, TL_NO_OFFSET, "not a function");
  if (nargs != f->np || maxres < f->nr)
    return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "wrong number of arguments or results");
  for (uint32_t i = 0; i < nargs; i++)
    if (!arg_fits(f, i, &args[i]))
      return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "argument %u has the wrong type", i);
  for (uint32_t i = 0; i < nargs; i++)
    if (!tl_gc_ref_ok(s, args[i].type, (uint64_t)(uintptr_t)args[i].of.ref))
      return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET,
                       "argument %u: not a reference of its type (host externrefs must have bit 63 clear)", i);
  if (!tl_interp_stacks_ready(s)) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  uint32_t n = f->np > f->nr ? f->np : f->nr;
  tl_v *buf = tl_scratch_calloc(2 * (size_t)n + 1, sizeof *buf);
  if (!buf) return tl_nomem(err, "call");
  for (uint32_t i = 0; i < nargs; i++) memcpy(&buf[i], &args[i].of, sizeof args[i].of);
  tl_status st = tl_interp_run(s, f, buf, buf + n, err);
  if (st == TL_OK) {
    for (uint32_t i = 0; i < f->nr; i++) {
      results[i].type = f->types[f->np + i];
      memcpy(&results[i].of, &buf[n + i], sizeof results[i].of);
    }
    if (nres) *nres = f->nr;
  }
  tl_free(buf);
  return st;
}

tl_status tl_invoke(tl_instance *inst, const char *name, const tl_value *args, uint32_t nargs,
                    tl_value *results, uint32_t maxres, uint32_t *nres, tl_error *err) {
  return tl_invoke_n(inst, name, strlen(name), args, nargs, results, maxres, nres, err);
}

tl_status tl_invoke_n(tl_instance *inst, const char *name, size_t name_len, const tl_value *args,
                      uint32_t nargs, tl_value *results, uint32_t maxres, uint32_t *nres,
                      tl_error *err) {
  tl_extern x;
  if (tl_instance_export_n(inst, name, name_len, &x) || x.kind != TL_EXTERNKIND_FUNC)
    return tl_errorf(err, TL_E_LINK, TL_NO_OFFSET, "no exported function %.*s", (int)name_len,
                     name);
  return tl_func_call(inst->s, x, args, nargs, results, maxres, nres, err);
}


/* ------------------------------------------------------------- exceptions */
/* A new exception of tag t carrying the n slots at vals; NULL when out of memory. */
tl_exn *tl_exn_new(tl_store *s, const tl_taginst *t, const tl_v *vals) {
  uint32_t n = t->sig->np;
  tl_exn *x = tl_arena_try_alloc(&s->arena, sizeof *x + n * sizeof(tl_v), _Alignof(tl_exn));
  if (!x) return NULL;
  x->tag = t;
  x->n = n;
  x->next = NULL;
  if (n) {
    memcpy(x->v, vals, n * sizeof(tl_v));
    x->next = s->exns;
    s->exns = x;
  }
  return x;
}

/* TL_E_EXCEPTION naming x's tag: its export name, else its index. */
tl_status tl_exn_uncaught(tl_store *s, tl_exn *x, tl_error *err) {
  s->exn = x;
  const tl_module *m = x->tag->inst->m;
  for (size_t i = 0; i < m->exports.n; i++) {
    const tl_export *e = TL_EXPORT(m, i);
    if (e->kind == TL_EXTERN_TAG && e->index == x->tag->index)
      return tl_errorf(err, TL_E_EXCEPTION, TL_NO_OFFSET, "uncaught exception: tag %.*s",
                       (int)tl_name_len(e->name, e->name_len), e->name);
  }
  const tl_tag *t = TL_TAG(m, x->tag->index);
  if (t->name) return tl_errorf(err, TL_E_EXCEPTION, TL_NO_OFFSET, "uncaught exception: tag $%s", t->name);
  return tl_errorf(err, TL_E_EXCEPTION, TL_NO_OFFSET, "uncaught exception: tag %u", x->tag->index);
}

