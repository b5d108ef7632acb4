/* type.c — value types, interned tuples and function types of a module.
 * Tuples are interned per module with xxhash and open addressing, so equal
 * tuples have equal tl_type ids and comparing types is comparing integers. */
#include "ir.h"

#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <xxhash.h>

static const char *const basic_names[TL_NBASIC] = {
  "none", "unreachable", "i32", "i64", "f32", "f64", "v128", "funcref", "externref", "exnref",
};

const char *tl_type_name(tl_type t) { return t < TL_NBASIC ? basic_names[t] : "tuple"; }

static tl_tuple *tuple_at(const tl_module *m, uint32_t i) {
  return &m->tuple_block[i >> 10][i & 1023];
}

static tl_tuple *tuple_of(const tl_module *m, tl_type t) { return tuple_at(m, t - TL_TUPLE_BASE); }

/* Out of memory, the old table stays while it has a free slot (probes get
 * longer); with none, it is the arena's out of memory (a longjmp to the
 * entry point's handler, as for any other module allocation). */
static void rehash(tl_module *m, uint32_t cap) {
  uint32_t *t = tl_mod_calloc(cap, sizeof(uint32_t));
  if (!t) {
    if (m->tuple_hash && m->ntuples + 1 < m->tuple_hash_cap) return;
    tl_arena_oom(&m->arena);
  }
  tl_free(m->tuple_hash);
  m->tuple_hash = t;
  m->tuple_hash_cap = cap;
  for (uint32_t i = 0; i < m->ntuples; i++) {
    uint32_t h = (uint32_t)tuple_at(m, i)->hash & (cap - 1);
    while (m->tuple_hash[h]) h = (h + 1) & (cap - 1);
    m->tuple_hash[h] = i + 1;
  }
}

static tl_type intern_tuple(tl_module *m, const tl_type *t, uint32_t n);

/* Function passes may intern tuples concurrently: they take the arena's
 * lock, which is recursive (the arena allocation inside takes it again). */
tl_type tl_type_tuple(tl_module *m, const tl_type *t, uint32_t n) {
  if (n == 0) return TL_NONE;
  if (n == 1) return t[0];
  void *lock = m->arena.lock;
  if (!lock) return intern_tuple(m, t, n);
  pthread_mutex_lock(lock);
  tl_type r = intern_tuple(m, t, n);
  pthread_mutex_unlock(lock);
  return r;
}

static tl_type intern_tuple(tl_module *m, const tl_type *t, uint32_t n) {
  uint64_t hash = XXH3_64bits(t, n * sizeof *t);
  if ((m->ntuples + 1) * 2 > m->tuple_hash_cap)
    rehash(m, m->tuple_hash_cap ? m->tuple_hash_cap * 2 : 16);
  uint32_t cap = m->tuple_hash_cap, h = (uint32_t)hash & (cap - 1);
  for (; m->tuple_hash[h]; h = (h + 1) & (cap - 1)) {
    tl_tuple *tu = tuple_at(m, m->tuple_hash[h] - 1);
    if (tu->hash == hash && tu->n == n && !memcmp(tu->t, t, n * sizeof *t))
      return TL_TUPLE_BASE + m->tuple_hash[h] - 1;
  }
  uint32_t id = m->ntuples;
  /* readers cap types at 1,000,000 (as V8); only an API-built module can
   * fill the table, and it gets the arena's out of memory */
  if (id >= 4096 * 1024) tl_arena_oom(&m->arena);
  if (!m->tuple_block[id >> 10]) m->tuple_block[id >> 10] = TL_NEWN(&m->arena, tl_tuple, 1024);
  tl_tuple *tu = tuple_at(m, id);
  tu->n = n;
  tu->t = TL_NEWN(&m->arena, tl_type, n);
  tu->hash = hash;
  memcpy(tu->t, t, n * sizeof *t);
  m->ntuples = id + 1;
  m->tuple_hash[h] = id + 1;
  return TL_TUPLE_BASE + id;
}

uint32_t tl_type_arity(const tl_module *m, tl_type t) {
  if (t == TL_NONE || t == TL_UNREACHABLE) return 0;
  if (!tl_type_is_tuple(t)) return 1;
  return tuple_of(m, t)->n;
}

tl_type tl_type_at(const tl_module *m, tl_type t, uint32_t i) {
  if (!tl_type_is_tuple(t)) return t;
  return tuple_of(m, t)->t[i];
}

uint32_t tl_functype_intern(tl_module *m, tl_type params, tl_type results) {
  for (uint32_t i = 0; i < m->types.n; i++) {
    tl_functype *ft = TL_FTYPE(m, i);
    if (ft->params == params && ft->results == results) return i;
  }
  tl_functype ft = {params, results, NULL};
  TL_VEC_PUSH(&m->types, tl_functype, ft);
  return (uint32_t)m->types.n - 1;
}
