/* type.c — value types, interned tuples and function types of a module.
 * Tuples are interned per module with xxhash and open addressing, so equal
 * tuples have equal tl_type ids and comparing types is comparing integers. */
#include "ir.h"

#include <string.h>
#include <stdlib.h>
#include <xxhash.h>

static const char *const basic_names[TL_NBASIC] = {
  "none", "unreachable", "i32", "i64", "f32", "f64", "v128", "funcref", "externref",
};

const char *tl_type_name(tl_type t) { return t < TL_NBASIC ? basic_names[t] : "tuple"; }

static tl_tuple *tuple_of(const tl_module *m, tl_type t) {
  return &TL_VEC_AT(&m->tuples, tl_tuple, t - TL_TUPLE_BASE);
}

static void rehash(tl_module *m, uint32_t cap) {
  free(m->tuple_hash);
  m->tuple_hash = calloc(cap, sizeof(uint32_t));
  if (!m->tuple_hash) abort();
  m->tuple_hash_cap = cap;
  for (uint32_t i = 0; i < m->tuples.n; i++) {
    uint32_t h = (uint32_t)TL_VEC_AT(&m->tuples, tl_tuple, i).hash & (cap - 1);
    while (m->tuple_hash[h]) h = (h + 1) & (cap - 1);
    m->tuple_hash[h] = i + 1;
  }
}

tl_type tl_type_tuple(tl_module *m, const tl_type *t, uint32_t n) {
  if (n == 0) return TL_NONE;
  if (n == 1) return t[0];
  uint64_t hash = XXH3_64bits(t, n * sizeof *t);
  if ((m->tuples.n + 1) * 2 > m->tuple_hash_cap)
    rehash(m, m->tuple_hash_cap ? m->tuple_hash_cap * 2 : 16);
  uint32_t cap = m->tuple_hash_cap, h = (uint32_t)hash & (cap - 1);
  for (; m->tuple_hash[h]; h = (h + 1) & (cap - 1)) {
    tl_tuple *tu = &TL_VEC_AT(&m->tuples, tl_tuple, m->tuple_hash[h] - 1);
    if (tu->hash == hash && tu->n == n && !memcmp(tu->t, t, n * sizeof *t))
      return TL_TUPLE_BASE + m->tuple_hash[h] - 1;
  }
  tl_tuple tu = {n, TL_NEWN(&m->arena, tl_type, n), hash};
  memcpy(tu.t, t, n * sizeof *t);
  TL_VEC_PUSH(&m->tuples, tl_tuple, tu);
  m->tuple_hash[h] = (uint32_t)m->tuples.n;
  return TL_TUPLE_BASE + (tl_type)m->tuples.n - 1;
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
  tl_functype ft = {params, results};
  TL_VEC_PUSH(&m->types, tl_functype, ft);
  return (uint32_t)m->types.n - 1;
}
