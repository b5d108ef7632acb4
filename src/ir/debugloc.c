/* debugloc.c — debug locations, as source maps carry them: which source
 * file, line and column a node came from. A function's locations are a map
 * from its nodes to locations (tl_func.locs, NULL when it has none) that
 * the binary reader fills from an input source map, that moves and copies
 * of nodes carry (expr.c), and that the writer (an output source map) and
 * the printer (`;;@ file:line:col`) read. A node a pass makes anew has no
 * location, as in Binaryen. Also here: the source map format itself
 * (version 3: "sources" and the base64 VLQ "mappings" of one generated
 * line, whose columns are byte offsets in the binary). Lines count from 1
 * in the IR (the format's 0 is line 1), as Binaryen prints them. */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(x) do { tl_status s_ = (x); if (s_) return s_; } while (0)

struct tl_locmap {
  const tl_expr **key;     /* open addressing; NULL = empty */
  tl_debugloc *val;
  uint32_t n, cap;         /* cap: a power of two, or 0 */
  struct tl_locmap *moving; /* the map a body's move is filling (tl_loc_move_begin),
                              held here so that it goes with this one if the
                              move runs out of memory */
};

static uint32_t slot_of(const tl_locmap *lm, const tl_expr *e) {
  uint64_t h = (uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15ull;
  uint32_t i = (uint32_t)(h >> 32) & (lm->cap - 1);
  while (lm->key[i] && lm->key[i] != e) i = (i + 1) & (lm->cap - 1);
  return i;
}

const tl_debugloc *tl_loc_get(const tl_func *f, const tl_expr *e) {
  const tl_locmap *lm = f ? f->locs : NULL;
  if (!lm || !lm->n || !e) return NULL;
  uint32_t i = slot_of(lm, e);
  return lm->key[i] ? &lm->val[i] : NULL;
}

static tl_locmap *map_new(void) {
  tl_locmap *lm = tl_mod_calloc(1, sizeof *lm);
  if (!lm) tl_oom_fail();
  return lm;
}

static void map_put(tl_locmap *lm, const tl_expr *e, tl_debugloc l) {
  if ((lm->n + 1) * 4 > lm->cap * 3) {
    uint32_t cap = lm->cap ? lm->cap * 2 : 64;
    const tl_expr **key = tl_mod_calloc(cap, sizeof *key);
    tl_debugloc *val = key ? tl_mod_calloc(cap, sizeof *val) : NULL;
    if (!val) {
      tl_free(key);
      tl_oom_fail();
    }
    tl_locmap old = *lm;
    lm->key = key, lm->val = val, lm->cap = cap;
    for (uint32_t i = 0; i < old.cap; i++)
      if (old.key[i]) {
        uint32_t k = slot_of(lm, old.key[i]);
        lm->key[k] = old.key[i];
        lm->val[k] = old.val[i];
      }
    tl_free(old.key);
    tl_free(old.val);
  }
  uint32_t i = slot_of(lm, e);
  if (!lm->key[i]) lm->n++;
  lm->key[i] = e;
  lm->val[i] = l;
}

void tl_loc_set(tl_func *f, const tl_expr *e, tl_debugloc l) {
  if (!f->locs) f->locs = map_new();
  map_put(f->locs, e, l);
}

void tl_locmap_free(tl_locmap *lm) {
  if (!lm) return;
  tl_locmap_free(lm->moving);
  tl_free(lm->key);
  tl_free(lm->val);
  tl_free(lm);
}

void tl_func_forget_locs(tl_func *f) {
  tl_locmap_free(f->locs);
  f->locs = NULL;
}

/* ---- moving a body: the map follows its nodes ------------------------------ */
void tl_loc_move_begin(tl_locmap **fresh, const tl_func *f) {
  *fresh = f && f->locs && f->locs->n ? map_new() : NULL;
  if (!*fresh) return;
  tl_locmap_free(f->locs->moving);
  f->locs->moving = *fresh;
}

void tl_loc_moved(tl_locmap *fresh, const tl_func *f, const tl_expr *from, const tl_expr *to) {
  const tl_debugloc *l = tl_loc_get(f, from);
  if (l) map_put(fresh, to, *l);
}

void tl_loc_move_end(tl_locmap *fresh, tl_func *f) {
  if (!f || !f->locs) return;
  if (f->locs->moving == fresh) f->locs->moving = NULL;
  tl_locmap_free(f->locs);
  f->locs = fresh;
}

/* ---- the source map format ------------------------------------------------- */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c) {
  const char *k = c ? strchr(b64, c) : NULL;
  return k ? (int)(k - b64) : -1;
}

/* One base64 VLQ number at j->p (the mappings string, already decoded). */
static tl_status vlq(tl_json *j, const char *s, size_t n, size_t *at, int64_t *out) {
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 5) {
    int d = *at < n ? b64_value(s[*at]) : -1;
    if (d < 0 || shift > 35) {
      return tl_errorf(j->err, TL_E_MALFORMED, TL_NO_OFFSET,
                       "%s: mappings: %s at character %zu", j->what,
                       d < 0 ? "bad base64 VLQ digit" : "VLQ number too large", *at);
    }
    ++*at;
    v |= (uint64_t)(d & 31) << shift;
    if (!(d & 32)) break;
  }
  *out = v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
  return TL_OK;
}

static int by_offset(const void *a, const void *b) {
  const tl_srcmap_entry *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static bool segment_end(const char *s, size_t n, size_t at) {
  return at >= n || s[at] == ',' || s[at] == ';';
}

/* The mappings string: segments of 1 field (an offset with no location),
 * 4 (offset, source, line, column) or 5 (and a name, ignored), each field
 * a delta from the one of the segment before, separated by ','. */
static tl_status decode_mappings(tl_json *j, tl_srcmap *sm, uint32_t nfiles) {
  const char *s = (const char *)j->str.p;
  size_t n = j->str.n, at = 0;
  int64_t off = 0, file = 0, line = 1, col = 0, name = 0; /* lines count from 1 here, as in Binaryen */
  tl_vec *v = &sm->entries;
  while (at < n) {
    if (s[at] == ',') {
      at++;
      continue;
    }
    if (s[at] == ';')
      return tl_errorf(j->err, TL_E_MALFORMED, TL_NO_OFFSET,
                       "%s: mappings: a second generated line (';' at character %zu)", j->what, at);
    int64_t d;
    TRY(vlq(j, s, n, &at, &d));
    off += d;
    tl_srcmap_entry e = {0};
    if (off < 0 || off > UINT32_MAX)
      return tl_errorf(j->err, TL_E_MALFORMED, TL_NO_OFFSET, "%s: mappings: offset %lld out of range",
                       j->what, (long long)off);
    e.offset = (uint32_t)off;
    if (!segment_end(s, n, at)) {
      int64_t df, dl, dc;
      TRY(vlq(j, s, n, &at, &df));
      TRY(vlq(j, s, n, &at, &dl));
      TRY(vlq(j, s, n, &at, &dc));
      file += df, line += dl, col += dc;
      if (!segment_end(s, n, at)) {
        TRY(vlq(j, s, n, &at, &d));
        name += d;
      }
      if (file < 0 || file >= nfiles || line < 1 || line > UINT32_MAX || col < 0 || col > UINT32_MAX)
        return tl_errorf(j->err, TL_E_MALFORMED, TL_NO_OFFSET,
                         "%s: mappings: source %lld, line %lld, column %lld out of range (%u sources)",
                         j->what, (long long)file, (long long)line, (long long)col, nfiles);
      (void)name; /* names are not kept */
      e.has_loc = true;
      e.loc = (tl_debugloc){(uint32_t)file, (uint32_t)line, (uint32_t)col};
    }
    TL_VEC_PUSH(v, tl_srcmap_entry, e);
  }
  /* offsets only grow in a well-formed map; keep the last of equal ones */
  bool sorted = true;
  for (size_t i = 1; i < v->n && sorted; i++)
    sorted = TL_VEC_AT(v, tl_srcmap_entry, i - 1).offset <= TL_VEC_AT(v, tl_srcmap_entry, i).offset;
  if (!sorted) qsort(v->p, v->n, sizeof(tl_srcmap_entry), by_offset);
  return TL_OK;
}

tl_status tl_srcmap_parse(tl_module *m, tl_srcmap *sm, const char *text, size_t len, tl_error *err) {
  tl_json j = {text, text + len, text, {0}, err, "source map"};
  tl_status s = TL_OK;
  bool version = false, sources = false, mappings = false;
  tl_buf maps = {0};
  m->debug_files.n = 0;
  if (!tl_json_eat(&j, '{')) s = tl_json_fail(&j, "expected a JSON object");
  else if (!tl_json_eat(&j, '}')) {
    do {
      if ((s = tl_json_string(&j))) break;
      char key[16] = {0};
      if (j.str.n < sizeof key) memcpy(key, j.str.p, j.str.n);
      if (!tl_json_eat(&j, ':')) {
        s = tl_json_fail(&j, "expected ':'");
        break;
      }
      if (!strcmp(key, "version")) {
        double v;
        if ((s = tl_json_number(&j, &v))) break;
        if (v != 3) {
          s = tl_json_fail(&j, "version is not 3");
          break;
        }
        version = true;
      } else if (!strcmp(key, "sources")) {
        if (!tl_json_eat(&j, '[')) {
          s = tl_json_fail(&j, "sources is not an array");
          break;
        }
        if (!tl_json_eat(&j, ']')) {
          do {
            if ((s = tl_json_string(&j))) break;
            const char *name = tl_arena_strndup(&m->arena, (const char *)j.str.p, j.str.n);
            TL_VEC_PUSH(&m->debug_files, const char *, name);
          } while (tl_json_eat(&j, ','));
          if (s) break;
          if (!tl_json_eat(&j, ']')) {
            s = tl_json_fail(&j, "expected ',' or ']' in sources");
            break;
          }
        }
        sources = true;
      } else if (!strcmp(key, "mappings")) {
        if ((s = tl_json_string(&j))) break;
        maps.n = 0;
        tl_buf_put(&maps, j.str.p, j.str.n);
        mappings = true;
      } else if ((s = tl_json_skip(&j))) {
        break;
      }
    } while (tl_json_eat(&j, ','));
    if (!s && !tl_json_eat(&j, '}')) s = tl_json_fail(&j, "expected ',' or '}'");
  }
  if (!s) {
    tl_json_ws(&j);
    if (j.p != j.end) s = tl_json_fail(&j, "junk after the JSON object");
    else if (!version) s = tl_json_fail(&j, "no \"version\": 3");
    else if (!sources) s = tl_json_fail(&j, "no \"sources\"");
    else if (!mappings) s = tl_json_fail(&j, "no \"mappings\"");
  }
  if (!s) {
    j.str.n = 0;
    tl_buf_put(&j.str, maps.p, maps.n);
    s = decode_mappings(&j, sm, (uint32_t)m->debug_files.n);
  }
  tl_buf_free(&maps);
  tl_json_free(&j);
  return s;
}

/* The location of an instruction at `offset` of a function body that
 * starts at `start`: that of the last mapping at or before it, if it is
 * one with a location and inside the function (a location does not carry
 * over from one function to the next). */
const tl_debugloc *tl_srcmap_at(const tl_srcmap *sm, uint32_t start, uint32_t offset) {
  const tl_srcmap_entry *e = sm->entries.p;
  size_t lo = 0, hi = sm->entries.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (e[mid].offset <= offset) lo = mid + 1;
    else hi = mid;
  }
  if (!lo || e[lo - 1].offset < start || !e[lo - 1].has_loc) return NULL;
  return &e[lo - 1].loc;
}

void tl_srcmap_free(tl_srcmap *sm) { tl_vec_free(&sm->entries); }

bool tl_module_has_dwarf(const tl_module *m) { return m && m->dwarf_locs; }

/* ---- writing one ------------------------------------------------------------ */
static void put_vlq(tl_buf *b, int64_t v) {
  uint64_t u = v < 0 ? ((uint64_t)(-v) << 1) | 1 : (uint64_t)v << 1;
  do {
    uint32_t d = u & 31;
    u >>= 5;
    if (u) d |= 32;
    tl_buf_byte(b, (uint8_t)b64[d]);
  } while (u);
}

static void put_json_string(tl_buf *b, const char *s) {
  tl_buf_byte(b, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') tl_buf_byte(b, '\\'), tl_buf_byte(b, c);
    else if (c < 0x20) tl_buf_printf(b, "\\u%04x", c);
    else tl_buf_byte(b, c);
  }
  tl_buf_byte(b, '"');
}

void tl_srcmap_write(const tl_module *m, const tl_srcmap_entry *e, size_t n, tl_buf *out) {
  tl_buf_printf(out, "{\"version\":3,\"sources\":[");
  for (size_t i = 0; i < m->debug_files.n; i++) {
    if (i) tl_buf_byte(out, ',');
    put_json_string(out, TL_VEC_AT(&m->debug_files, const char *, i));
  }
  tl_buf_printf(out, "],\"names\":[],\"mappings\":\"");
  int64_t off = 0, file = 0, line = 1, col = 0;
  for (size_t i = 0; i < n; i++) {
    if (i) tl_buf_byte(out, ',');
    put_vlq(out, (int64_t)e[i].offset - off);
    off = e[i].offset;
    if (!e[i].has_loc || e[i].loc.file >= m->debug_files.n) continue; /* none, or a DWARF address */
    put_vlq(out, (int64_t)e[i].loc.file - file);
    put_vlq(out, (int64_t)e[i].loc.line - line);
    put_vlq(out, (int64_t)e[i].loc.col - col);
    file = e[i].loc.file, line = e[i].loc.line, col = e[i].loc.col;
  }
  tl_buf_printf(out, "\"}");
}
