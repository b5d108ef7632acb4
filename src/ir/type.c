/* type.c — value types, interned tuples, the module's defined types (rec
 * groups canonicalized iso-recursively), subtyping and least upper bounds.
 * Tuples are interned per module with xxhash and open addressing, and rec
 * groups are hash-consed the same way, so equal types have equal tl_type
 * ids and comparing types is comparing integers (DESIGN.md, "Types"). */
#include "ir.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <xxhash.h>

static const char *const basic_names[TL_NBASIC] = {
  "none", "unreachable", "i32", "i64", "f32", "f64", "v128", "funcref", "externref", "exnref",
};

static const char *const heap_names[TL_HT_NABSTRACT] = {
  "func", "nofunc", "extern", "noextern", "any", "eq", "i31", "struct", "array", "none", "exn", "noexn",
};
/* The short names of nullable abstract references (NULL: none). */
static const char *const short_names[TL_HT_NABSTRACT] = {
  "funcref", "nullfuncref", "externref", "nullexternref", "anyref", "eqref", "i31ref", "structref",
  "arrayref", "nullref", "exnref", "nullexnref",
};

static void ref_name(tl_type t, char *b, size_t n) {
  uint32_t ht = tl_ref_heap(t);
  bool null = tl_ref_nullable(t);
  if (ht < TL_HT_NABSTRACT && null) snprintf(b, n, "%s", short_names[ht]);
  else if (ht < TL_HT_NABSTRACT) snprintf(b, n, "(ref %s)", heap_names[ht]);
  else snprintf(b, n, "(ref %s%u)", null ? "null " : "", ht - TL_HT_DEF);
}

/* Error messages name types without a module: a small ring of buffers per
 * thread holds the names of reference types. */
const char *tl_type_name(tl_type t) {
  if (t < TL_NBASIC) return basic_names[t];
  if (tl_type_is_tuple(t)) return "tuple";
  static _Thread_local char ring[4][40];
  static _Thread_local unsigned k;
  char *b = ring[k++ & 3];
  ref_name(t, b, sizeof ring[0]);
  return b;
}

const char *tl_heap_name(uint32_t ht) { return ht < TL_HT_NABSTRACT ? heap_names[ht] : NULL; }

void tl_type_print(const tl_module *m, tl_type t, char *b, size_t n) {
  if (!tl_type_is_tuple(t)) {
    if (t < TL_NBASIC) snprintf(b, n, "%s", basic_names[t]);
    else ref_name(t, b, n);
    return;
  }
  size_t k = (size_t)snprintf(b, n, "(tuple");
  for (uint32_t i = 0; i < tl_type_arity(m, t) && k < n; i++) {
    b[k++] = ' ';
    if (k < n) tl_type_print(m, tl_type_at(m, t, i), b + k, n - k);
    k += strlen(b + k);
  }
  if (k + 1 < n) b[k++] = ')', b[k] = 0;
}

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

/* A plain function type: final, no supertype, a rec group of its own. */
static bool is_plain_func(const tl_deftype *d) {
  return d->kind == TL_DT_FUNC && !d->open && d->super == TL_NO_SUPER && d->nrec == 1;
}

uint32_t tl_functype_intern(tl_module *m, tl_type params, tl_type results) {
  for (uint32_t i = 0; i < m->types.n; i++) {
    tl_functype *ft = TL_FTYPE(m, i);
    if (ft->params == params && ft->results == results && is_plain_func(ft)) return ft->canon;
  }
  tl_deftype d = {.params = params, .results = results, .kind = TL_DT_FUNC, .super = TL_NO_SUPER};
  char err[8];
  tl_types_add_group(m, &d, 1, err, sizeof err); /* a plain type is always valid */
  return (uint32_t)m->types.n - 1;
}

/* ------------------------------------------------------- defined types */
/* Rec groups are canonicalized as they are added: a group's key is its
 * types' structure with references into the group written relative to
 * its start and references out of it by canonical index. A group with
 * the key of an earlier canonical group takes that group's indices as
 * its types' canon. */
typedef struct { uint32_t *k; size_t n, cap; } key;

static void key_put(key *k, uint32_t v) {
  if (k->n == k->cap) {
    size_t cap = k->cap ? k->cap * 2 : 64;
    uint32_t *p = tl_realloc(k->k, cap * sizeof *p);
    if (!p) return; /* the caller checks k->n against what it put */
    k->k = p, k->cap = cap;
  }
  k->k[k->n++] = v;
}

static void key_type(const tl_module *m, key *k, tl_type t, uint32_t g0, uint32_t gn) {
  uint32_t n = tl_type_arity(m, t);
  if (tl_type_is_tuple(t)) key_put(k, 0xfffffff0u), key_put(k, n);
  for (uint32_t i = 0; i < n || (i == 0 && n == 0); i++) {
    tl_type c = n ? tl_type_at(m, t, i) : t;
    uint32_t ht = c >= TL_REF_BASE ? tl_ref_heap(c) : 0;
    if (c >= TL_REF_BASE && tl_heap_is_def(ht)) {
      uint32_t x = ht - TL_HT_DEF;
      bool in = x >= g0 && x < g0 + gn;
      key_put(k, in ? 0xfffffff1u : 0xfffffff2u);
      key_put(k, (in ? x - g0 : TL_FTYPE(m, x)->canon) << 1 | (c & 1));
    } else {
      key_put(k, c);
    }
    if (!n) break;
  }
}

static void key_group(const tl_module *m, key *k, uint32_t g0, uint32_t gn) {
  k->n = 0;
  for (uint32_t i = g0; i < g0 + gn; i++) {
    const tl_deftype *d = TL_FTYPE(m, i);
    key_put(k, d->kind | (uint32_t)d->open << 2);
    uint32_t s = d->super;
    key_put(k, s == TL_NO_SUPER ? UINT32_MAX : s >= g0 && s < g0 + gn ? 0x80000000u | (s - g0)
                                                                    : TL_FTYPE(m, s)->canon);
    if (d->kind == TL_DT_FUNC) {
      key_type(m, k, d->params, g0, gn);
      key_put(k, 0xfffffff3u);
      key_type(m, k, d->results, g0, gn);
    } else {
      key_put(k, d->nfields);
      for (uint32_t f = 0; f < d->nfields; f++) {
        key_put(k, d->fields[f].pack | (uint32_t)d->fields[f].mut << 2);
        key_type(m, k, d->fields[f].type, g0, gn);
      }
    }
  }
}

/* t with the references into [g0, g0 + gn) renamed to canonical indices. */
static tl_type canon_type(tl_module *m, tl_type t, uint32_t g0, uint32_t gn) {
  if (tl_type_is_tuple(t)) {
    uint32_t n = tl_type_arity(m, t);
    tl_type *c = TL_NEWN(&m->arena, tl_type, n);
    for (uint32_t i = 0; i < n; i++) c[i] = canon_type(m, tl_type_at(m, t, i), g0, gn);
    return tl_type_tuple(m, c, n);
  }
  if (t < TL_REF_BASE || !tl_heap_is_def(tl_ref_heap(t))) return t;
  uint32_t x = tl_ref_heap(t) - TL_HT_DEF;
  return tl_ref_def(TL_FTYPE(m, x)->canon, tl_ref_nullable(t));
}

static bool refs_ok(const tl_module *m, tl_type t, uint32_t end) {
  for (uint32_t i = 0, n = tl_type_arity(m, t); i < n; i++) {
    tl_type c = tl_type_at(m, t, i);
    if (c >= TL_REF_BASE && tl_heap_is_def(tl_ref_heap(c)) && tl_ref_heap(c) - TL_HT_DEF >= end) return false;
  }
  return true;
}

static bool field_sub(const tl_module *m, const tl_field *a, const tl_field *b) {
  if (a->mut != b->mut || a->pack != b->pack) return false;
  return a->mut ? a->type == b->type : tl_type_sub(m, a->type, b->type);
}

/* d (canonical references) against its declared supertype s. */
static bool matches_super(const tl_module *m, const tl_deftype *d, const tl_deftype *s) {
  if (d->kind != s->kind) return false;
  if (d->kind == TL_DT_FUNC)
    return tl_type_sub(m, s->params, d->params) && tl_type_sub(m, d->results, s->results);
  if (d->kind == TL_DT_ARRAY) return field_sub(m, &d->fields[0], &s->fields[0]);
  if (d->nfields < s->nfields) return false;
  for (uint32_t i = 0; i < s->nfields; i++)
    if (!field_sub(m, &d->fields[i], &s->fields[i])) return false;
  return true;
}

static uint32_t group_slot(const tl_module *m, uint32_t h, const key *k, key *tmp, uint32_t gn) {
  uint32_t cap = m->group_hash_cap;
  for (uint32_t i = h & (cap - 1);; i = (i + 1) & (cap - 1)) {
    uint32_t g = m->group_hash[i];
    if (!g) return i;
    g--;
    if (TL_FTYPE(m, g)->nrec != gn) continue;
    key_group(m, tmp, g, gn);
    if (tmp->n == k->n && !memcmp(tmp->k, k->k, k->n * sizeof *k->k)) return i;
  }
}

static void group_rehash(tl_module *m, key *tmp) {
  uint32_t cap = m->group_hash_cap ? m->group_hash_cap * 2 : 64;
  uint32_t *old = m->group_hash, ocap = m->group_hash_cap;
  uint32_t *t = tl_mod_calloc(cap, sizeof *t);
  if (!t) tl_arena_oom(&m->arena);
  m->group_hash = t, m->group_hash_cap = cap;
  for (uint32_t i = 0; i < ocap; i++) {
    if (!old[i]) continue;
    uint32_t g = old[i] - 1, gn = TL_FTYPE(m, g)->nrec;
    key_group(m, tmp, g, gn);
    uint32_t h = (uint32_t)XXH3_64bits(tmp->k, tmp->n * sizeof *tmp->k);
    uint32_t j = h & (cap - 1);
    while (t[j]) j = (j + 1) & (cap - 1);
    t[j] = old[i];
  }
  tl_free(old);
}

#define FAILG(...) (snprintf(err, errn, __VA_ARGS__), false)

bool tl_types_add_group(tl_module *m, const tl_deftype *t, uint32_t n, char *err, size_t errn) {
  uint32_t g0 = (uint32_t)m->types.n;
  if (n == 0) return true; /* (rec): nothing to add (its key would be empty) */
  for (uint32_t i = 0; i < n; i++) {
    tl_deftype d = t[i];
    d.rec = g0, d.nrec = n, d.canon = g0 + i, d.depth = 0;
    if (d.kind != TL_DT_FUNC && d.nfields) {
      tl_field *f = TL_NEWN(&m->arena, tl_field, d.nfields);
      memcpy(f, d.fields, d.nfields * sizeof *f);
      d.fields = f;
    }
    TL_VEC_PUSH(&m->types, tl_deftype, d);
  }
  uint32_t end = g0 + n;
  for (uint32_t i = g0; i < end; i++) {
    tl_deftype *d = TL_FTYPE(m, i);
    bool ok = d->kind == TL_DT_FUNC ? refs_ok(m, d->params, end) && refs_ok(m, d->results, end) : true;
    for (uint32_t f = 0; f < d->nfields; f++) ok = ok && refs_ok(m, d->fields[f].type, end);
    if (!ok) return m->types.n = g0, FAILG("type %u: unknown type", i);
    if (d->super != TL_NO_SUPER && d->super >= i) return m->types.n = g0, FAILG("type %u: unknown type %u (supertype)", i, d->super);
  }
  key k = {0}, tmp = {0};
  key_group(m, &k, g0, n);
  if ((m->ngroups + 1) * 2 > m->group_hash_cap) group_rehash(m, &tmp);
  uint32_t h = (uint32_t)XXH3_64bits(k.k, k.n * sizeof *k.k);
  uint32_t slot = group_slot(m, h, &k, &tmp, n);
  bool nomem = !k.k || (k.n && !tmp.k && m->group_hash[slot]);
  tl_free(k.k), tl_free(tmp.k);
  if (nomem) tl_arena_oom(&m->arena);
  uint32_t same = m->group_hash[slot];
  if (same) {
    for (uint32_t i = 0; i < n; i++) TL_FTYPE(m, g0 + i)->canon = same - 1 + i;
  } else {
    m->group_hash[slot] = g0 + 1;
    m->ngroups++;
  }
  for (uint32_t i = g0; i < end; i++) {
    tl_deftype *d = TL_FTYPE(m, i);
    if (d->kind == TL_DT_FUNC) {
      d->params = canon_type(m, d->params, g0, n);
      d->results = canon_type(m, d->results, g0, n);
    }
    for (uint32_t f = 0; f < d->nfields; f++) d->fields[f].type = canon_type(m, d->fields[f].type, g0, n);
  }
  for (uint32_t i = g0; i < end; i++) { /* supers first: a field may name a later member */
    tl_deftype *d = TL_FTYPE(m, i);
    if (d->super == TL_NO_SUPER) continue;
    tl_deftype *s = TL_FTYPE(m, d->super);
    d->super = s->canon;
    d->depth = s->depth + 1;
    if (!s->open) return FAILG("type %u: supertype %u is final", i, d->super);
    if (d->depth > 63) return FAILG("type %u: subtyping depth over 63", i);
  }
  for (uint32_t i = g0; i < end; i++) {
    tl_deftype *d = TL_FTYPE(m, i);
    if (d->super != TL_NO_SUPER && !matches_super(m, d, TL_FTYPE(m, d->super)))
      return FAILG("type %u: does not match its supertype %u", i, d->super);
  }
  return true;
}

void tl_types_rehash(tl_module *m) {
  size_t n = m->types.n;
  tl_deftype *t = tl_malloc((n ? n : 1) * sizeof *t);
  if (!t) tl_arena_oom(&m->arena);
  memcpy(t, m->types.p, n * sizeof *t);
  m->types.n = 0;
  m->ngroups = 0;
  if (m->group_hash) memset(m->group_hash, 0, m->group_hash_cap * sizeof *m->group_hash);
  char err[8];
  for (size_t i = 0; i < n; i++) {
    t[i].super = TL_NO_SUPER;
    tl_types_add_group(m, &t[i], 1, err, sizeof err);
  }
  tl_free(t);
}

uint32_t tl_heap_in_group(const tl_module *m, uint32_t self, uint32_t ht) {
  const tl_deftype *d = TL_FTYPE(m, self);
  uint32_t g0 = d->rec, rep = TL_FTYPE(m, g0)->canon;
  if (ht < TL_HT_DEF || rep == g0) return ht;
  uint32_t c = ht - TL_HT_DEF;
  return c >= rep && c < rep + d->nrec ? TL_HT_DEF + g0 + (c - rep) : ht;
}

bool tl_type_valid(const tl_module *m, tl_type t) {
  if (tl_type_is_tuple(t)) return t - TL_TUPLE_BASE < m->ntuples;
  if (t < TL_NBASIC) return true;
  if (t < TL_REF_BASE) return false;
  uint32_t ht = tl_ref_heap(t);
  if (ht < TL_HT_NABSTRACT) return true;
  return ht >= TL_HT_DEF && ht - TL_HT_DEF < m->types.n && tl_heap_def(m, ht)->canon == ht - TL_HT_DEF;
}

bool tl_module_uses_gc(const tl_module *m) {
  if (m->gc_code || tl_module_has_gc_types(m)) return true;
  for (uint32_t i = 0; i < m->globals.n; i++)
    if (TL_GLOBAL(m, i)->type >= TL_REF_BASE) return true;
  for (uint32_t i = 0; i < m->tables.n; i++)
    if (TL_TABLE(m, i)->elem >= TL_REF_BASE) return true;
  for (uint32_t i = 0; i < m->elems.n; i++)
    if (TL_ELEM(m, i)->type >= TL_REF_BASE) return true;
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    const tl_func *f = TL_FUNC(m, i);
    for (uint32_t l = 0; l < f->nlocal; l++)
      for (uint32_t k = 0, n = tl_type_arity(m, f->local[l]); k < n; k++)
        if (tl_type_at(m, f->local[l], k) >= TL_REF_BASE) return true;
  }
  return false;
}

bool tl_module_has_gc_types(const tl_module *m) {
  for (uint32_t i = 0; i < m->types.n; i++) {
    const tl_deftype *d = TL_FTYPE(m, i);
    if (!is_plain_func(d)) return true;
    if (!refs_ok(m, d->params, 0) || !refs_ok(m, d->results, 0)) return true;
    for (uint32_t k = 0, n = tl_type_arity(m, d->params); k < n; k++)
      if (tl_type_at(m, d->params, k) >= TL_REF_BASE) return true;
    for (uint32_t k = 0, n = tl_type_arity(m, d->results); k < n; k++)
      if (tl_type_at(m, d->results, k) >= TL_REF_BASE) return true;
  }
  return false;
}

/* ------------------------------------------------------------ subtyping */
static uint32_t def_kind_top(uint32_t kind) {
  return kind == TL_DT_FUNC ? TL_HT_FUNC : kind == TL_DT_STRUCT ? TL_HT_STRUCT : TL_HT_ARRAY;
}

uint32_t tl_heap_top(const tl_module *m, uint32_t ht) {
  if (tl_heap_is_def(ht)) return tl_heap_def(m, ht)->kind == TL_DT_FUNC ? TL_HT_FUNC : TL_HT_ANY;
  switch (ht) {
  case TL_HT_FUNC: case TL_HT_NOFUNC: return TL_HT_FUNC;
  case TL_HT_EXTERN: case TL_HT_NOEXTERN: return TL_HT_EXTERN;
  case TL_HT_EXN: case TL_HT_NOEXN: return TL_HT_EXN;
  default: return TL_HT_ANY;
  }
}

uint32_t tl_heap_bottom(const tl_module *m, uint32_t ht) {
  switch (tl_heap_top(m, ht)) {
  case TL_HT_FUNC: return TL_HT_NOFUNC;
  case TL_HT_EXTERN: return TL_HT_NOEXTERN;
  case TL_HT_EXN: return TL_HT_NOEXN;
  default: return TL_HT_NONE;
  }
}

/* The next heap type above ht (ht itself at a top). */
static uint32_t heap_up(const tl_module *m, uint32_t ht) {
  if (tl_heap_is_def(ht)) {
    const tl_deftype *d = tl_heap_def(m, ht);
    return d->super != TL_NO_SUPER ? TL_HT_DEF + d->super : def_kind_top(d->kind);
  }
  switch (ht) {
  case TL_HT_I31: case TL_HT_STRUCT: case TL_HT_ARRAY: return TL_HT_EQ;
  case TL_HT_EQ: return TL_HT_ANY;
  case TL_HT_NONE: case TL_HT_NOFUNC: case TL_HT_NOEXTERN: case TL_HT_NOEXN: return tl_heap_top(m, ht);
  default: return ht;
  }
}

bool tl_heap_sub(const tl_module *m, uint32_t a, uint32_t b) {
  if (a == b) return true;
  uint32_t top = tl_heap_top(m, a);
  if (top != tl_heap_top(m, b)) return false;
  if (b == top || a == tl_heap_bottom(m, a)) return true;
  if (b == tl_heap_bottom(m, b)) return false;
  if (tl_heap_is_def(a) && tl_heap_is_def(b)) {
    const tl_deftype *da = tl_heap_def(m, a), *db = tl_heap_def(m, b);
    if (da->depth <= db->depth) return false;
    while (da->depth > db->depth) da = TL_FTYPE(m, da->super);
    return da->canon == db->canon;
  }
  if (tl_heap_is_def(b)) return false; /* an abstract type under a defined one: only bottoms */
  for (uint32_t x = a; x != top; x = heap_up(m, x))
    if (x == b) return true;
  return false;
}

bool tl_type_sub(const tl_module *m, tl_type a, tl_type b) {
  if (a == b || a == TL_UNREACHABLE) return true;
  if (tl_type_is_tuple(a) || tl_type_is_tuple(b)) {
    uint32_t n = tl_type_arity(m, a);
    if (!tl_type_is_tuple(a) || !tl_type_is_tuple(b) || n != tl_type_arity(m, b)) return false;
    for (uint32_t i = 0; i < n; i++)
      if (!tl_type_sub(m, tl_type_at(m, a, i), tl_type_at(m, b, i))) return false;
    return true;
  }
  if (!tl_type_is_ref(a) || !tl_type_is_ref(b)) return false;
  if (tl_ref_nullable(a) && !tl_ref_nullable(b)) return false;
  return tl_heap_sub(m, tl_ref_heap(a), tl_ref_heap(b));
}

bool tl_type_is_subtype(const tl_module *m, tl_type_t a, tl_type_t b) {
  return m && tl_type_valid(m, a) && tl_type_valid(m, b) && tl_type_sub(m, a, b);
}

static uint32_t heap_lub(const tl_module *m, uint32_t a, uint32_t b) {
  if (tl_heap_sub(m, a, b)) return b; /* a bottom is under a defined type, but not on its path up */
  for (uint32_t x = a;; x = heap_up(m, x)) {
    if (tl_heap_sub(m, b, x)) return x;
    if (x == heap_up(m, x)) return x; /* a top b is not under: no bound */
  }
}

tl_type tl_type_lub(const tl_module *m, tl_type a, tl_type b) {
  if (a == TL_UNREACHABLE) return b;
  if (a == b || b == TL_UNREACHABLE) return a;
  if (tl_type_is_ref(a) && tl_type_is_ref(b)) {
    uint32_t ha = tl_ref_heap(a), hb = tl_ref_heap(b);
    if (tl_heap_top(m, ha) != tl_heap_top(m, hb)) return a;
    return tl_ref(heap_lub(m, ha, hb), tl_ref_nullable(a) || tl_ref_nullable(b));
  }
  if (tl_type_is_tuple(a) && tl_type_is_tuple(b) && tl_type_arity(m, a) == tl_type_arity(m, b)) {
    uint32_t n = tl_type_arity(m, a);
    tl_type small[16], *t = n <= 16 ? small : tl_malloc(n * sizeof *t);
    if (!t) tl_arena_oom((tl_arena *)&m->arena);
    for (uint32_t i = 0; i < n; i++) t[i] = tl_type_lub(m, tl_type_at(m, a, i), tl_type_at(m, b, i));
    tl_type r = tl_type_tuple((tl_module *)m, t, n);
    if (t != small) tl_free(t);
    return r;
  }
  return a;
}

/* ------------------------------------------------- across two modules */
/* Linking compares the types of two modules: a defined type of ma and one
 * of mb are the same when their rec groups have the same structure and
 * they sit at the same place in them (iso-recursive equality), references
 * out of the groups naming equal types in turn. A worklist of group pairs
 * (each assumed equal while it is checked) replaces recursion. */
typedef struct { uint32_t a, b; } gpair;
typedef struct { const tl_module *ma, *mb; uint32_t ga, gb, n; tl_vec *work; } across;

static uint32_t canon_group(const tl_module *m, uint32_t x) { return TL_FTYPE(m, TL_FTYPE(m, x)->canon)->rec; }

/* Defined types x (of ma) and y (of mb), by canonical index: same place
 * in their groups, and the groups queued for comparison (or the group
 * being compared, for references into it). */
static bool def_match(across *c, uint32_t x, uint32_t y) {
  uint32_t gx = canon_group(c->ma, x), gy = canon_group(c->mb, y);
  x = TL_FTYPE(c->ma, x)->canon, y = TL_FTYPE(c->mb, y)->canon;
  if (x - gx != y - gy) return false;
  bool inx = gx == c->ga, iny = gy == c->gb;
  if (inx || iny) return inx && iny;
  TL_VEC_PUSH(c->work, gpair, ((gpair){gx, gy}));
  return true;
}

static bool type_match(across *c, tl_type a, tl_type b) {
  if (tl_type_is_tuple(a) || tl_type_is_tuple(b)) {
    uint32_t n = tl_type_arity(c->ma, a);
    if (!tl_type_is_tuple(a) || !tl_type_is_tuple(b) || n != tl_type_arity(c->mb, b)) return false;
    for (uint32_t i = 0; i < n; i++)
      if (!type_match(c, tl_type_at(c->ma, a, i), tl_type_at(c->mb, b, i))) return false;
    return true;
  }
  bool da = a >= TL_REF_BASE && tl_heap_is_def(tl_ref_heap(a));
  bool db = b >= TL_REF_BASE && tl_heap_is_def(tl_ref_heap(b));
  if (!da || !db) return a == b;
  return tl_ref_nullable(a) == tl_ref_nullable(b) &&
         def_match(c, tl_ref_heap(a) - TL_HT_DEF, tl_ref_heap(b) - TL_HT_DEF);
}

static bool deftype_match(across *c, const tl_deftype *x, const tl_deftype *y) {
  if (x->kind != y->kind || x->open != y->open || x->nfields != y->nfields) return false;
  if ((x->super == TL_NO_SUPER) != (y->super == TL_NO_SUPER)) return false;
  if (x->super != TL_NO_SUPER && !def_match(c, x->super, y->super)) return false;
  if (x->kind == TL_DT_FUNC) return type_match(c, x->params, y->params) && type_match(c, x->results, y->results);
  for (uint32_t f = 0; f < x->nfields; f++) {
    const tl_field *a = &x->fields[f], *b = &y->fields[f];
    if (a->pack != b->pack || a->mut != b->mut || !type_match(c, a->type, b->type)) return false;
  }
  return true;
}

static bool groups_match(across *c, uint32_t ga, uint32_t gb) {
  c->ga = ga, c->gb = gb, c->n = TL_FTYPE(c->ma, ga)->nrec;
  if (c->n != TL_FTYPE(c->mb, gb)->nrec) return false;
  for (uint32_t i = 0; i < c->n; i++)
    if (!deftype_match(c, TL_FTYPE(c->ma, ga + i), TL_FTYPE(c->mb, gb + i))) return false;
  return true;
}

static bool def_equal_across(const tl_module *ma, uint32_t x, const tl_module *mb, uint32_t y) {
  tl_vec work = {0}, seen = {0};
  across c = {ma, mb, UINT32_MAX, UINT32_MAX, 0, &work};
  bool ok = def_match(&c, x, y);
  while (ok && work.n) {
    gpair g = TL_VEC_AT(&work, gpair, --work.n);
    bool done = false;
    for (size_t i = 0; i < seen.n && !done; i++)
      done = TL_VEC_AT(&seen, gpair, i).a == g.a && TL_VEC_AT(&seen, gpair, i).b == g.b;
    if (done) continue;
    TL_VEC_PUSH(&seen, gpair, g);
    ok = groups_match(&c, g.a, g.b);
  }
  tl_vec_free(&work);
  tl_vec_free(&seen);
  return ok;
}

bool tl_heap_sub_across(const tl_module *ma, uint32_t a, const tl_module *mb, uint32_t b) {
  if (!tl_heap_is_def(b)) return tl_heap_sub(ma, a, b);
  if (!tl_heap_is_def(a)) return tl_heap_sub(mb, a, b);
  for (uint32_t x = a - TL_HT_DEF;; x = TL_FTYPE(ma, x)->super) {
    if (def_equal_across(ma, x, mb, b - TL_HT_DEF)) return true;
    if (TL_FTYPE(ma, x)->super == TL_NO_SUPER) return false;
  }
}

bool tl_type_sub_across(const tl_module *ma, tl_type a, const tl_module *mb, tl_type b) {
  if (ma == mb) return tl_type_sub(ma, a, b);
  if (tl_type_is_tuple(a) || tl_type_is_tuple(b)) {
    uint32_t n = tl_type_arity(ma, a);
    if (!tl_type_is_tuple(a) || !tl_type_is_tuple(b) || n != tl_type_arity(mb, b)) return false;
    for (uint32_t i = 0; i < n; i++)
      if (!tl_type_sub_across(ma, tl_type_at(ma, a, i), mb, tl_type_at(mb, b, i))) return false;
    return true;
  }
  if (!tl_type_is_ref(a) || !tl_type_is_ref(b)) return a == b;
  if (tl_ref_nullable(a) && !tl_ref_nullable(b)) return false;
  return tl_heap_sub_across(ma, tl_ref_heap(a), mb, tl_ref_heap(b));
}

/* The greatest lower bound of two reference types of one hierarchy: the
 * lower of the two heap types when one is under the other, else the
 * hierarchy's bottom; nullable only if both are. */
tl_type tl_type_glb(const tl_module *m, tl_type a, tl_type b) {
  if (a == TL_UNREACHABLE || b == TL_UNREACHABLE || !tl_type_is_ref(a) || !tl_type_is_ref(b)) return a;
  uint32_t ha = tl_ref_heap(a), hb = tl_ref_heap(b);
  uint32_t h = tl_heap_sub(m, ha, hb) ? ha : tl_heap_sub(m, hb, ha) ? hb : tl_heap_bottom(m, ha);
  return tl_ref(h, tl_ref_nullable(a) && tl_ref_nullable(b));
}
