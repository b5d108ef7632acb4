/* metadce.c — meta dead-code elimination (Binaryen's wasm-metadce, which
 * emcc runs at -O3/-Os/-Oz): DCE over a graph the module is only a part of.
 * The caller (emcc) gives the JS side as a JSON array of nodes
 *   {"name": N, "reaches": [N...], "root": true, "export": E, "import": [M, B]}
 * and this file adds the module's side, named as Binaryen 105-108 name it:
 *   func$NAME$K, global$NAME$K, tag$NAME$K for defined functions, globals
 *   and tags (NAME from the name section, else Binaryen's default: the
 *   defined position, "global$I", "tag$I"), export$E$K for exports the
 *   graph does not name; K counts every name made, from 0.
 * Edges: an export reaches what it exports; a function what it calls,
 * the globals it reads or writes, the tags it throws or catches; a global
 * the globals its initializer reads. An import is the graph node naming
 * its [module, base] (GOT.func / GOT.mem count as env). Roots: the graph's
 * and the functions active element segments hold.
 * Then: exports nothing reaches are removed, remove-unused-module-elements
 * and reorder-functions run, and the names of the graph's nodes nothing
 * reaches (JS and module side) are returned sorted bytewise.
 * The graph is read with json.c's scanner (values of other keys skipped). */
#include "passes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(x) do { tl_status s_ = (x); if (s_) return s_; } while (0)

/* ---- a map from byte strings to dense ids (open addressing) ------------ */
typedef struct {
  tl_buf bytes;            /* the keys, back to back */
  tl_vec key;              /* uint64_t: offset << 32 | length, per id */
  uint32_t *slot;          /* id + 1, 0 = empty */
  uint32_t cap;            /* a power of two */
} smap;

static uint64_t hash(const char *s, uint32_t n) {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
  return h;
}

static const char *smap_key(const smap *m, uint32_t id, uint32_t *len) {
  uint64_t k = TL_VEC_AT(&m->key, uint64_t, id);
  *len = (uint32_t)k;
  return (const char *)m->bytes.p + (k >> 32);
}

static bool smap_grow(smap *m) {
  uint32_t cap = m->cap ? m->cap * 2 : 256;
  uint32_t *slot = tl_scratch_calloc(cap, sizeof *slot);
  if (!slot) return false;
  for (uint32_t id = 0; id < m->key.n; id++) {
    uint32_t len;
    const char *s = smap_key(m, id, &len);
    uint64_t h = hash(s, len);
    while (slot[h & (cap - 1)]) h++;
    slot[h & (cap - 1)] = id + 1;
  }
  tl_free(m->slot);
  m->slot = slot;
  m->cap = cap;
  return true;
}

/* The id of s (added if absent and add is set); UINT32_MAX if absent or
 * out of memory (*nomem then set). */
static uint32_t smap_get(smap *m, const char *s, uint32_t n, bool add, bool *nomem) {
  if (m->cap) {
    for (uint64_t h = hash(s, n);; h++) {
      uint32_t id = m->slot[h & (m->cap - 1)];
      if (!id) break;
      uint32_t len;
      const char *k = smap_key(m, id - 1, &len);
      if (len == n && !memcmp(k, s, n)) return id - 1;
    }
  }
  if (!add) return UINT32_MAX;
  if ((m->key.n + 1) * 2 > m->cap && !smap_grow(m)) return *nomem = true, UINT32_MAX;
  uint32_t id = (uint32_t)m->key.n;
  TL_VEC_PUSH(&m->key, uint64_t, (uint64_t)m->bytes.n << 32 | n);
  tl_buf_put(&m->bytes, s, n);
  uint64_t h = hash(s, n);
  while (m->slot[h & (m->cap - 1)]) h++;
  m->slot[h & (m->cap - 1)] = id + 1;
  return id;
}

static void smap_free(smap *m) {
  tl_buf_free(&m->bytes);
  tl_vec_free(&m->key);
  tl_free(m->slot);
}

/* ---- the graph ---------------------------------------------------------- */
enum { NO_NODE = UINT32_MAX };

typedef struct { uint32_t from, to, gen; } edge;

typedef struct {
  tl_module *m;
  tl_error *err;
  bool nomem;
  smap names;              /* node names; a node's id is its name's id */
  tl_vec exists;           /* uint8_t per id: a node of the graph (not only reached) */
  tl_vec gen;              /* uint32_t per id: the JSON object that defined it last */
  tl_vec edges;            /* edge: gen is the defining object, or UINT32_MAX */
  tl_vec roots;            /* uint32_t */
  smap exports;            /* export name -> node (export_node[id]) */
  tl_vec export_node;      /* uint32_t */
  smap imports;            /* module + base -> node (import_node[id]) */
  tl_vec import_node;      /* uint32_t */
  uint32_t counter;        /* K in the names made for the module's side */
  uint32_t *func_node, *global_node, *tag_node; /* per index: node */
} graph;

static uint32_t node_id(graph *g, const char *s, uint32_t n) {
  uint32_t id = smap_get(&g->names, s, n, true, &g->nomem);
  while (id != NO_NODE && g->exists.n <= id) {
    TL_VEC_PUSH(&g->exists, uint8_t, 0);
    TL_VEC_PUSH(&g->gen, uint32_t, UINT32_MAX);
  }
  return id;
}

static void add_edge(graph *g, uint32_t from, uint32_t to, uint32_t gen) {
  if (from == NO_NODE || to == NO_NODE) return;
  TL_VEC_PUSH(&g->edges, edge, ((edge){from, to, gen}));
}

/* Map values: key -> value, for the exports and imports maps. */
static void map_set(graph *g, smap *m, tl_vec *vals, const char *k, uint32_t n, uint32_t v) {
  uint32_t id = smap_get(m, k, n, true, &g->nomem);
  if (id == NO_NODE) return;
  while (vals->n <= id) TL_VEC_PUSH(vals, uint32_t, NO_NODE);
  TL_VEC_AT(vals, uint32_t, id) = v;
}

static uint32_t map_find(graph *g, smap *m, tl_vec *vals, const char *k, uint32_t n) {
  uint32_t id = smap_get(m, k, n, false, &g->nomem);
  return id == NO_NODE ? NO_NODE : TL_VEC_AT(vals, uint32_t, id);
}

/* An import's key: module (GOT.func / GOT.mem read as env), a NUL-free
 * length prefix, base. */
static uint32_t import_key(const char *mod, uint32_t ml, const char *base, uint32_t bl, tl_buf *out) {
  if (tl_name_eq(mod, ml, "GOT.func", 8) || tl_name_eq(mod, ml, "GOT.mem", 7)) mod = "env", ml = 3;
  out->n = 0;
  tl_buf_printf(out, "%" PRIu32 ":", ml);
  tl_buf_put(out, mod, ml);
  tl_buf_put(out, base, bl);
  return (uint32_t)out->n;
}

/* ---- the JSON graph ----------------------------------------------------- */
static tl_status jfail(graph *g, tl_json *j, const char *what) {
  (void)g;
  return tl_json_fail(j, what);
}

/* What one object of the array says. */
typedef struct {
  bool has_name, root, has_export, has_import;
  tl_buf name, exp, imp;   /* imp: the import key */
  tl_buf reach;            /* the reached names, each as u32 length + bytes */
} jnode;

/* An array of strings, appended to into each as a u32 length + bytes. */
static tl_status jstrings(graph *g, tl_json *j, uint32_t *count, tl_buf *into) {
  if (!tl_json_eat(j, '[')) return jfail(g, j, "expected an array of strings");
  *count = 0;
  if (tl_json_eat(j, ']')) return TL_OK;
  do {
    TRY(tl_json_string(j));
    uint32_t n = (uint32_t)j->str.n;
    tl_buf_put(into, &n, sizeof n);
    tl_buf_put(into, j->str.p, j->str.n);
    ++*count;
  } while (tl_json_eat(j, ','));
  if (!tl_json_eat(j, ']')) return jfail(g, j, "expected ',' or ']'");
  return TL_OK;
}

/* The k-th string of a jstrings buffer. */
static const char *jstrings_at(const tl_buf *b, uint32_t k, uint32_t *len) {
  size_t at = 0;
  for (;; k--) {
    memcpy(len, b->p + at, 4);
    if (!k) return (const char *)b->p + at + 4;
    at += 4 + *len;
  }
}

static tl_status jmember(graph *g, tl_json *j, jnode *n) {
  TRY(tl_json_string(j));
  char key[8] = {0};
  if (j->str.n < sizeof key) memcpy(key, j->str.p, j->str.n);
  if (!tl_json_eat(j, ':')) return jfail(g, j, "expected ':'");
  uint32_t count;
  if (!strcmp(key, "name")) {
    TRY(tl_json_string(j));
    n->name.n = 0;
    tl_buf_put(&n->name, j->str.p, j->str.n);
    n->has_name = true;
  } else if (!strcmp(key, "reaches")) {
    n->reach.n = 0;
    return jstrings(g, j, &count, &n->reach);
  } else if (!strcmp(key, "root")) {
    if (!tl_json_word(j, "true")) return jfail(g, j, "node.root, if present, must be true");
    n->root = true;
  } else if (!strcmp(key, "export")) {
    TRY(tl_json_string(j));
    n->exp.n = 0;
    tl_buf_put(&n->exp, j->str.p, j->str.n);
    n->has_export = true;
  } else if (!strcmp(key, "import")) {
    tl_buf two = {0};
    tl_status s = jstrings(g, j, &count, &two);
    if (s == TL_OK && count != 2) s = jfail(g, j, "node.import must be an array of two strings");
    if (s == TL_OK) {
      uint32_t ml, bl;
      const char *mod = jstrings_at(&two, 0, &ml), *base = jstrings_at(&two, 1, &bl);
      import_key(mod, ml, base, bl, &n->imp);
    }
    tl_buf_free(&two);
    n->has_import = s == TL_OK;
    return s;
  } else {
    return tl_json_skip(j);
  }
  return TL_OK;
}

/* Enters object number k (its "gen") into the graph. */
static void jcommit(graph *g, jnode *n, uint32_t k) {
  uint32_t id = node_id(g, (const char *)n->name.p, (uint32_t)n->name.n);
  if (id == NO_NODE) return;
  TL_VEC_AT(&g->exists, uint8_t, id) = 1;
  TL_VEC_AT(&g->gen, uint32_t, id) = k;   /* a later definition replaces its reaches */
  for (size_t at = 0; at + 4 <= n->reach.n;) {
    uint32_t len;
    memcpy(&len, n->reach.p + at, 4);
    uint32_t to = node_id(g, (const char *)n->reach.p + at + 4, len);
    add_edge(g, id, to, k);
    at += 4 + len;
  }
  if (n->root) TL_VEC_PUSH(&g->roots, uint32_t, id);
  if (n->has_export) map_set(g, &g->exports, &g->export_node, (const char *)n->exp.p, (uint32_t)n->exp.n, id);
  if (n->has_import) map_set(g, &g->imports, &g->import_node, (const char *)n->imp.p, (uint32_t)n->imp.n, id);
}

static tl_status jobject(graph *g, tl_json *j, jnode *n, uint32_t k) {
  n->has_name = n->root = n->has_export = n->has_import = false;
  n->reach.n = 0;
  const char *start = j->p;
  if (!tl_json_eat(j, '{')) return jfail(g, j, "nodes must be JSON objects");
  if (!tl_json_eat(j, '}')) {
    do TRY(jmember(g, j, n));
    while (tl_json_eat(j, ','));
    if (!tl_json_eat(j, '}')) return jfail(g, j, "expected ',' or '}'");
  }
  if (!n->has_name) return j->p = start, jfail(g, j, "a node must have a name");
  jcommit(g, n, k);
  return TL_OK;
}

static tl_status read_graph(graph *g, const char *text, size_t len) {
  tl_json j = {text, text + len, text, {0}, g->err, "graph"};
  jnode n = {0};
  tl_status s = TL_OK;
  if (!tl_json_eat(&j, '[')) s = jfail(g, &j, "the graph must be a JSON array of nodes");
  else if (!tl_json_eat(&j, ']')) {
    uint32_t k = 0;
    do s = jobject(g, &j, &n, k++);
    while (s == TL_OK && tl_json_eat(&j, ','));
    if (s == TL_OK && !tl_json_eat(&j, ']')) s = jfail(g, &j, "expected ',' or ']'");
  }
  tl_json_free(&j);
  tl_buf_free(&n.name);
  tl_buf_free(&n.exp);
  tl_buf_free(&n.imp);
  tl_buf_free(&n.reach);
  return s;
}

/* ---- the module's side -------------------------------------------------- */
/* A fresh node PREFIX$NAME$K (K past any name the graph already has). */
static uint32_t make_node(graph *g, const char *prefix, const char *name, uint32_t name_len) {
  tl_buf b = {0};
  uint32_t id = NO_NODE;
  for (;;) {
    b.n = 0;
    tl_buf_printf(&b, "%s$", prefix);
    tl_buf_put(&b, name, name_len);
    tl_buf_printf(&b, "$%" PRIu32, g->counter++);
    uint32_t old = smap_get(&g->names, (const char *)b.p, (uint32_t)b.n, false, &g->nomem);
    if (old != NO_NODE && TL_VEC_AT(&g->exists, uint8_t, old)) continue;
    id = node_id(g, (const char *)b.p, (uint32_t)b.n);
    if (id != NO_NODE) TL_VEC_AT(&g->exists, uint8_t, id) = 1;
    break;
  }
  tl_buf_free(&b);
  return id;
}

/* The name Binaryen gives a defined item: the name section's, else its
 * default (dflt with the defined position). */
static uint32_t item_name(const char *name, const char *dflt, uint32_t pos, char buf[32], const char **out) {
  if (name) return *out = name, (uint32_t)strlen(name);
  *out = buf;
  return (uint32_t)snprintf(buf, 32, "%s%" PRIu32, dflt, pos);
}

/* The node an import stands for: the graph's for its [module, base], else
 * one made for it (it is no node of the graph: never reported unused). */
static uint32_t import_node(graph *g, const tl_importname *imp, const char *dflt, uint32_t pos) {
  tl_buf key = {0};
  uint32_t n = import_key(imp->module, tl_name_len(imp->module, imp->module_len), imp->name,
                          tl_name_len(imp->name, imp->name_len), &key);
  uint32_t id = map_find(g, &g->imports, &g->import_node, (const char *)key.p, n);
  if (id == NO_NODE) {
    tl_buf b = {0};
    tl_buf_printf(&b, "importId$%s%" PRIu32 "$%" PRIu32, dflt, pos, g->counter++);
    id = node_id(g, (const char *)b.p, (uint32_t)b.n);
    map_set(g, &g->imports, &g->import_node, (const char *)key.p, n, id);
    tl_buf_free(&b);
  }
  tl_buf_free(&key);
  return id;
}

static void name_items(graph *g) {
  tl_module *m = g->m;
  char buf[32];
  const char *name;
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    uint32_t n = item_name(TL_FUNC(m, i)->name, "", i - m->nimported_funcs, buf, &name);
    g->func_node[i] = make_node(g, "func", name, n);
  }
  for (uint32_t i = m->nimported_globals; i < m->globals.n; i++) {
    uint32_t n = item_name(TL_GLOBAL(m, i)->name, "global$", i - m->nimported_globals, buf, &name);
    g->global_node[i] = make_node(g, "global", name, n);
  }
  for (uint32_t i = m->nimported_tags; i < m->tags.n; i++) {
    uint32_t n = item_name(TL_TAG(m, i)->name, "tag$", i - m->nimported_tags, buf, &name);
    g->tag_node[i] = make_node(g, "tag", name, n);
  }
  for (uint32_t i = 0; i < m->nimported_funcs; i++)
    g->func_node[i] = import_node(g, &TL_FUNC(m, i)->imp, "fimport$", i);
  for (uint32_t i = 0; i < m->nimported_globals; i++)
    g->global_node[i] = import_node(g, &TL_GLOBAL(m, i)->imp, "gimport$", i);
  for (uint32_t i = 0; i < m->nimported_tags; i++)
    g->tag_node[i] = import_node(g, &TL_TAG(m, i)->imp, "eimport$", i);
}

/* The node an export stands for, and its edge to what it exports. */
static void link_exports(graph *g) {
  tl_module *m = g->m;
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    uint32_t len = tl_name_len(x->name, x->name_len);
    uint32_t id = map_find(g, &g->exports, &g->export_node, x->name, len);
    if (id == NO_NODE) {
      id = make_node(g, "export", x->name, len);
      map_set(g, &g->exports, &g->export_node, x->name, len, id);
    }
    uint32_t to = x->kind == TL_EXTERN_FUNC ? g->func_node[x->index]
                  : x->kind == TL_EXTERN_GLOBAL ? g->global_node[x->index]
                  : x->kind == TL_EXTERN_TAG ? g->tag_node[x->index] : NO_NODE;
    add_edge(g, id, to, UINT32_MAX);
  }
}

typedef struct { graph *g; uint32_t from; } scan;

static void scan_visit(tl_walk *w, tl_expr **slot) {
  scan *s = w->ctx;
  const tl_expr *e = *slot;
  uint32_t to = NO_NODE;
  switch (e->op) {
  case TL_OP_CALL: case TL_OP_RETURN_CALL: to = s->g->func_node[e->imm.index]; break;
  case TL_OP_GLOBAL_GET: case TL_OP_GLOBAL_SET: to = s->g->global_node[e->imm.index]; break;
  case TL_OP_THROW: to = s->g->tag_node[e->imm.index]; break;
  case TL_OP_CATCH: case TL_OP_TT_CATCH: case TL_OP_TT_CATCH_REF: to = s->g->tag_node[e->imm.idx2.b]; break;
  default: return;
  }
  add_edge(s->g, s->from, to, UINT32_MAX);
}

/* Bodies and global initializers; active element segments' functions are
 * roots (the table may be called from outside). */
static void scan_module(graph *g) {
  tl_module *m = g->m;
  for (uint32_t i = m->nimported_globals; i < m->globals.n; i++) {
    scan s = {g, g->global_node[i]};
    if (TL_GLOBAL(m, i)->init) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, scan_visit, &s);
  }
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    scan s = {g, g->func_node[i]};
    tl_func *f = TL_FUNC(m, i);
    if (f->body) tl_walk_post(m, f, &f->body, scan_visit, &s);
  }
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    if (el->mode != TL_SEG_ACTIVE) continue;
    for (uint32_t k = 0; k < el->n; k++)
      if (el->item[k] && el->item[k]->op == TL_OP_REF_FUNC && g->func_node[el->item[k]->imm.index] != NO_NODE)
        TL_VEC_PUSH(&g->roots, uint32_t, g->func_node[el->item[k]->imm.index]);
  }
}

/* ---- DCE ---------------------------------------------------------------- */
/* reached[id] for every node the roots reach (edges of a node's earlier
 * JSON definitions do not count). Adjacency as offsets into sorted edges. */
static uint8_t *reach(graph *g) {
  size_t n = g->exists.n, ne = g->edges.n;
  uint8_t *seen = tl_scratch_calloc(n + 1, 1);
  uint32_t *start = tl_scratch_calloc(n + 2, sizeof *start);
  uint32_t *to = tl_scratch_calloc(ne + 1, sizeof *to);
  uint32_t *stack = tl_scratch_calloc(n + 1, sizeof *stack);
  if (!seen || !start || !to || !stack) {
    tl_free(seen), tl_free(start), tl_free(to), tl_free(stack);
    return NULL;
  }
  const edge *e = g->edges.p;
  const uint32_t *gen = g->gen.p;
  for (size_t k = 0; k < ne; k++)
    if (e[k].gen == UINT32_MAX || e[k].gen == gen[e[k].from]) start[e[k].from + 2]++;
  for (size_t i = 2; i < n + 2; i++) start[i] += start[i - 1];
  for (size_t k = 0; k < ne; k++)
    if (e[k].gen == UINT32_MAX || e[k].gen == gen[e[k].from]) to[start[e[k].from + 1]++] = e[k].to;
  uint32_t sp = 0;
  for (size_t k = 0; k < g->roots.n; k++) {
    uint32_t r = TL_VEC_AT(&g->roots, uint32_t, k);
    if (!seen[r]) seen[r] = 1, stack[sp++] = r;
  }
  while (sp) {
    uint32_t v = stack[--sp];
    for (uint32_t k = start[v]; k < start[v + 1]; k++)
      if (!seen[to[k]]) seen[to[k]] = 1, stack[sp++] = to[k];
  }
  tl_free(start), tl_free(to), tl_free(stack);
  return seen;
}

typedef struct { const char *s; uint32_t len; } str;

static int by_bytes(const void *a, const void *b) {
  const str *x = a, *y = b;
  int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
  return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

/* The graph's nodes nothing reaches, one name a line, sorted bytewise. */
static char *unused_text(graph *g, const uint8_t *seen) {
  size_t n = 0;
  str *v = tl_scratch_calloc(g->exists.n + 1, sizeof *v);
  if (!v) return NULL;
  for (uint32_t id = 0; id < g->exists.n; id++)
    if (TL_VEC_AT(&g->exists, uint8_t, id) && !seen[id]) v[n].s = smap_key(&g->names, id, &v[n].len), n++;
  qsort(v, n, sizeof *v, by_bytes);
  tl_buf b = {0};
  for (size_t k = 0; k < n; k++) {
    tl_buf_put(&b, v[k].s, v[k].len);
    tl_buf_byte(&b, '\n');
  }
  tl_buf_byte(&b, 0);
  tl_free(v);
  return (char *)b.p;
}

static void remove_unreached_exports(graph *g, const uint8_t *seen) {
  tl_module *m = g->m;
  size_t kept = 0;
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    uint32_t id = map_find(g, &g->exports, &g->export_node, x->name, tl_name_len(x->name, x->name_len));
    if (id != NO_NODE && !seen[id]) continue;
    TL_VEC_AT(&m->exports, tl_export, kept++) = *x;
  }
  m->exports.n = kept;
}

static void graph_free(graph *g) {
  smap_free(&g->names);
  smap_free(&g->exports);
  smap_free(&g->imports);
  tl_vec_free(&g->exists);
  tl_vec_free(&g->gen);
  tl_vec_free(&g->edges);
  tl_vec_free(&g->roots);
  tl_vec_free(&g->export_node);
  tl_vec_free(&g->import_node);
  tl_free(g->func_node), tl_free(g->global_node), tl_free(g->tag_node);
}

static tl_status build(graph *g, const char *text, size_t len) {
  tl_module *m = g->m;
  g->func_node = tl_scratch_calloc(m->funcs.n + 1, sizeof(uint32_t));
  g->global_node = tl_scratch_calloc(m->globals.n + 1, sizeof(uint32_t));
  g->tag_node = tl_scratch_calloc(m->tags.n + 1, sizeof(uint32_t));
  if (!g->func_node || !g->global_node || !g->tag_node) return tl_nomem(g->err, "metadce");
  TRY(read_graph(g, text, len));
  name_items(g);
  link_exports(g);
  scan_module(g);
  return g->nomem ? tl_nomem(g->err, "metadce") : TL_OK;
}

static tl_status metadce_impl(tl_module *m, const char *graph_json, size_t len,
                            const tl_pass_options *opt, char **unused, tl_error *err) {
  graph g = {.m = m, .err = err};
  *unused = NULL;
  tl_status s = build(&g, graph_json, len);
  uint8_t *seen = s == TL_OK ? reach(&g) : NULL;
  if (s == TL_OK && !seen) s = tl_nomem(err, "metadce");
  if (s == TL_OK && !(*unused = unused_text(&g, seen))) s = tl_nomem(err, "metadce");
  if (s == TL_OK) remove_unreached_exports(&g, seen);
  tl_free(seen);
  graph_free(&g);
  if (s != TL_OK) return s;
  static const char *const after[] = {"remove-unused-module-elements", "reorder-functions"};
  s = tl_module_run_passes(m, after, 2, opt, err);
  if (s != TL_OK) tl_free(*unused), *unused = NULL;
  return s;
}

typedef struct {
  tl_module *m;
  const char *graph_json;
  size_t len;
  const tl_pass_options *opt;
  char **unused;
} metadce_call;

static tl_status metadce_in_scope(void *c, tl_error *err) {
  metadce_call *p = c;
  return metadce_impl(p->m, p->graph_json, p->len, p->opt, p->unused, err);
}

tl_status tl_module_metadce(tl_module *m, const char *graph_json, size_t len,
                            const tl_pass_options *opt, char **unused, tl_error *err) {
  metadce_call p = {m, graph_json, len, opt, unused};
  tl_status s = tl_oom_run(m, metadce_in_scope, &p, err, "metadce");
  if (s != TL_OK) *unused = NULL; /* freed with the rest when out of memory */
  return s;
}
