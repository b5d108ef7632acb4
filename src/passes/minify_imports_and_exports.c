/* minify_imports_and_exports.c — wasm-opt's minify-imports,
 * minify-imports-and-exports and minify-imports-and-exports-and-modules:
 * import names (and export names) become short JS identifiers, and the
 * old => new mapping is reported (tl_pass_output) so the JS side can be
 * renamed to match. Emscripten's emcc parses that report.
 *  - Which imports: those of module "env" or "wasi_*"; every import when
 *    modules are minified too (their module name then becomes "a").
 *    Visited memories, tables, globals, functions, tags, each in index order.
 *  - Exports (second and third forms): all, after the imports.
 *  - A name is keyed by itself alone (as Binaryen 105-108 do): the same
 *    old name, import or export, gets the same new name.
 *  - New names come in the order the names are first seen: "a".."z",
 *    "A".."Z", "_", "$", then longer ones, skipping short JS reserved words.
 *  - The report is one "OLD => NEW\n" line per name, sorted by NEW
 *    bytewise: Binaryen 105-108's format, which emcc 3.1.x reads.
 * Assumes: nothing. Guarantees: valid module; only names change. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char **name;       /* the slot to rename */
  uint32_t *len;           /* its length slot */
  const char *old;         /* the old bytes (copied pointer) */
  uint32_t old_len;
  uint32_t seq;            /* order seen */
  uint32_t id;             /* which distinct old name */
} entry;

typedef struct {
  const char *old, *neu;
  uint32_t old_len, neu_len;
} pair;

static const char initial[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$";
static const char later[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$0123456789";

/* Short JS reserved words (and "env") a generated name must not be. */
static bool reserved(const char *s) {
  static const char *const words[] = {"do", "if", "in", "for", "new", "try", "var", "env",
                                      "let", "case", "else", "enum", "void", "this", "with"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (!strcmp(s, words[i])) return true;
  return false;
}

/* Candidate k: its first character cycles fastest over `initial`; the
 * rest is k / 54 as a bijective base-64 numeral over `later`, least
 * significant digit first (so no candidate repeats or is skipped). */
static void candidate(uint64_t k, char out[16]) {
  uint32_t n = 0;
  out[n++] = initial[k % (sizeof initial - 1)];
  for (uint64_t q = k / (sizeof initial - 1); q; q = (q - 1) / (sizeof later - 1))
    out[n++] = later[(q - 1) % (sizeof later - 1)];
  out[n] = 0;
}

/* The next name of the sequence; *k is the next candidate to try. */
static void next_name(uint64_t *k, char out[16]) {
  do candidate((*k)++, out);
  while (reserved(out));
}

static int cmp_old(const entry *x, const entry *y) {
  uint32_t n = x->old_len < y->old_len ? x->old_len : y->old_len;
  int c = memcmp(x->old, y->old, n);
  if (c) return c;
  return x->old_len < y->old_len ? -1 : x->old_len > y->old_len;
}

static int by_old(const void *a, const void *b) {
  const entry *x = a, *y = b;
  int c = cmp_old(x, y);
  return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_seq(const void *a, const void *b) {
  const entry *x = a, *y = b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_new(const void *a, const void *b) {
  const pair *x = a, *y = b;
  return strcmp(x->neu, y->neu);
}

typedef struct {
  tl_vec entries;          /* entry */
  bool modules;            /* minify every import, not just env / wasi_* */
} collect;

static void add(collect *c, const char **name, uint32_t *len) {
  entry e = {name, len, *name, tl_name_len(*name, *len), (uint32_t)c->entries.n, 0};
  TL_VEC_PUSH(&c->entries, entry, e);
}

static void add_import(collect *c, tl_importname *imp) {
  uint32_t ml = tl_name_len(imp->module, imp->module_len);
  bool env = tl_name_eq(imp->module, ml, "env", 3);
  bool wasi = ml >= 5 && !memcmp(imp->module, "wasi_", 5);
  if (c->modules || env || wasi) add(c, &imp->name, &imp->name_len);
}

static void collect_imports(tl_module *m, collect *c) {
  for (uint32_t i = 0; i < m->nimported_memories; i++) add_import(c, &TL_MEMORY(m, i)->imp);
  for (uint32_t i = 0; i < m->nimported_tables; i++) add_import(c, &TL_TABLE(m, i)->imp);
  for (uint32_t i = 0; i < m->nimported_globals; i++) add_import(c, &TL_GLOBAL(m, i)->imp);
  for (uint32_t i = 0; i < m->nimported_funcs; i++) add_import(c, &TL_FUNC(m, i)->imp);
  for (uint32_t i = 0; i < m->nimported_tags; i++) add_import(c, &TL_TAG(m, i)->imp);
}

/* Numbers the distinct old names (e->id) in the order first seen; returns
 * how many there are. Leaves the entries in seen order. */
static uint32_t number_names(entry *e, size_t n) {
  if (!n) return 0;
  qsort(e, n, sizeof *e, by_old);
  uint32_t first = 0;
  for (size_t i = 0; i < n; i++) {
    if (!i || cmp_old(&e[i], &e[i - 1])) first = e[i].seq;
    e[i].id = first;   /* provisional: the seq of the name's first sighting */
  }
  qsort(e, n, sizeof *e, by_seq);
  uint32_t distinct = 0;
  for (size_t i = 0; i < n; i++)   /* e[i].id <= i: already final when read */
    e[i].id = e[i].id == e[i].seq ? distinct++ : e[e[i].id].id;
  return distinct;
}

/* The "OLD => NEW" lines, sorted by NEW, to the pass output. */
static tl_status report(tl_pass_ctx *ctx, pair *p, uint32_t n) {
  qsort(p, n, sizeof *p, by_new);
  tl_buf b = {0};
  for (uint32_t i = 0; i < n; i++) {
    tl_buf_put(&b, p[i].old, p[i].old_len);
    tl_buf_put(&b, " => ", 4);
    tl_buf_put(&b, p[i].neu, p[i].neu_len);
    tl_buf_byte(&b, '\n');
  }
  tl_pass_output(ctx, (const char *)b.p, b.n);
  tl_buf_free(&b);
  return TL_OK;
}

static void set_module(tl_importname *imp, const char *a) {
  imp->module = a;
  imp->module_len = 1;
}

/* Every import's module becomes a (one character). */
static void one_module(tl_module *m, const char *a) {
  for (uint32_t i = 0; i < m->nimported_memories; i++) set_module(&TL_MEMORY(m, i)->imp, a);
  for (uint32_t i = 0; i < m->nimported_tables; i++) set_module(&TL_TABLE(m, i)->imp, a);
  for (uint32_t i = 0; i < m->nimported_globals; i++) set_module(&TL_GLOBAL(m, i)->imp, a);
  for (uint32_t i = 0; i < m->nimported_funcs; i++) set_module(&TL_FUNC(m, i)->imp, a);
  for (uint32_t i = 0; i < m->nimported_tags; i++) set_module(&TL_TAG(m, i)->imp, a);
}

static tl_status minify(tl_pass_ctx *ctx, bool exports, bool modules) {
  tl_module *m = ctx->m;
  collect c = {.modules = modules};
  collect_imports(m, &c);
  if (exports)
    for (uint32_t i = 0; i < m->exports.n; i++) add(&c, &TL_EXPORT(m, i)->name, &TL_EXPORT(m, i)->name_len);
  entry *e = c.entries.p;
  uint32_t distinct = number_names(e, c.entries.n);
  pair *p = tl_scratch_calloc(distinct + 1, sizeof *p);
  if (!p) return tl_vec_free(&c.entries), tl_nomem(ctx->err, "minify-imports");
  uint64_t k = 0;
  for (size_t i = 0; i < c.entries.n; i++) {
    pair *q = &p[e[i].id];
    if (!q->neu) {
      char buf[16];
      next_name(&k, buf);
      *q = (pair){e[i].old, tl_arena_strndup(&m->arena, buf, strlen(buf)), e[i].old_len,
                  (uint32_t)strlen(buf)};
    }
    *e[i].name = q->neu;
    *e[i].len = q->neu_len;
  }
  tl_status s = report(ctx, p, distinct);
  tl_free(p);
  tl_vec_free(&c.entries);
  if (modules) one_module(m, tl_arena_strndup(&m->arena, "a", 1));
  return s;
}

tl_status tl_pass_minify_imports(tl_pass_ctx *ctx) { return minify(ctx, false, false); }
tl_status tl_pass_minify_imports_and_exports(tl_pass_ctx *ctx) { return minify(ctx, true, false); }
tl_status tl_pass_minify_imports_and_exports_and_modules(tl_pass_ctx *ctx) {
  return minify(ctx, true, true);
}
