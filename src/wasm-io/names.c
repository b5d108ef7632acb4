/* names.c — the "name" custom section (module, function, local and label
 * names; type, table, memory, global, elem, data, field and tag names) and the
 * "target_features" section. A malformed name section is ignored as a
 * whole, as wasm-opt does: it is checked in a dry pass first and applied
 * only when every subsection parses. */
#include "reader_int.h"

#include <string.h>

typedef struct { rctx *c; rd r; bool apply; } nctx;

static bool name_str(nctx *n, const char **out) {
  uint32_t len;
  const uint8_t *s;
  if (rd_u32(&n->r, &len, "name") || rd_bytes(&n->r, len, &s, "name") || !utf8_valid(s, len)) return false;
  if (n->apply) *out = tl_arena_strndup(&n->c->m->arena, (const char *)s, len);
  return true;
}

/* Where the name of item idx of a namemap subsection goes, or NULL. */
static const char **name_slot(tl_module *m, uint8_t id, uint32_t idx) {
  switch (id) {
  case 1: return idx < m->funcs.n ? &TL_FUNC(m, idx)->name : NULL;
  case 4: return idx < m->types.n ? &TL_FTYPE(m, idx)->name : NULL;
  case 5: return idx < m->tables.n ? &TL_TABLE(m, idx)->name : NULL;
  case 6: return idx < m->memories.n ? &TL_MEMORY(m, idx)->name : NULL;
  case 7: return idx < m->globals.n ? &TL_GLOBAL(m, idx)->name : NULL;
  case 8: return idx < m->elems.n ? &TL_ELEM(m, idx)->name : NULL;
  case 9: return idx < m->datas.n ? &TL_DATA(m, idx)->name : NULL;
  case 11: return idx < m->tags.n ? &TL_TAG(m, idx)->name : NULL;
  default: return NULL;
  }
}

static bool name_map(nctx *n, uint8_t id) {
  uint32_t cnt;
  if (rd_count(&n->r, &cnt, 2, "names")) return false;
  for (uint32_t i = 0; i < cnt; i++) {
    uint32_t idx;
    const char *s = NULL;
    if (rd_u32(&n->r, &idx, "name index") || !name_str(n, &s)) return false;
    const char **slot = n->apply ? name_slot(n->c->m, id, idx) : NULL;
    if (slot) *slot = s;
  }
  return true;
}

/* IR label of wasm label idx (order of appearance) of function fi. */
static uint32_t ir_label(rctx *c, uint32_t fi, uint32_t idx) {
  uint32_t d = fi - c->m->nimported_funcs;
  if (fi < c->m->nimported_funcs || d >= c->lmap_off.n) return TL_NO_LABEL;
  size_t lo = TL_VEC_AT(&c->lmap_off, size_t, d);
  size_t hi = d + 1 < c->lmap_off.n ? TL_VEC_AT(&c->lmap_off, size_t, d + 1) : c->lmap.n;
  return idx < hi - lo ? TL_VEC_AT(&c->lmap, uint32_t, lo + idx) : TL_NO_LABEL;
}

/* The slot for local (id 2) or label (id 3) idx of function f. */
static const char **inner_slot(rctx *c, uint32_t fi, uint8_t id, uint32_t idx) {
  tl_module *m = c->m;
  tl_func *f = TL_FUNC(m, fi);
  if (id == 2) {
    if (idx >= f->nlocal) return NULL;
    if (!f->local_name) f->local_name = TL_NEWN(&m->arena, const char *, f->local_cap ? f->local_cap : 1);
    return &f->local_name[idx];
  }
  idx = ir_label(c, fi, idx);
  if (idx == TL_NO_LABEL || idx >= f->nlabel) return NULL;
  if (!f->label_name) {
    f->label_name = TL_NEWN(&m->arena, const char *, f->nlabel);
    f->label_cap = f->nlabel;
  }
  return &f->label_name[idx];
}

static bool indirect_map(nctx *n, uint8_t id) {
  tl_module *m = n->c->m;
  uint32_t cnt;
  if (rd_count(&n->r, &cnt, 2, "names")) return false;
  for (uint32_t i = 0; i < cnt; i++) {
    uint32_t fi, k;
    if (rd_u32(&n->r, &fi, "function index") || rd_count(&n->r, &k, 2, "names")) return false;
    bool f = n->apply && fi < m->funcs.n;
    for (uint32_t j = 0; j < k; j++) {
      uint32_t idx;
      const char *s = NULL;
      if (rd_u32(&n->r, &idx, "name index") || !name_str(n, &s)) return false;
      const char **slot = f ? inner_slot(n->c, fi, id, idx) : NULL;
      if (slot) *slot = s;
    }
  }
  return true;
}

/* Subsection 10: type -> (field -> name), for struct types. */
static bool field_map(nctx *n) {
  tl_module *m = n->c->m;
  uint32_t cnt;
  if (rd_count(&n->r, &cnt, 2, "names")) return false;
  for (uint32_t i = 0; i < cnt; i++) {
    uint32_t ti, k;
    if (rd_u32(&n->r, &ti, "type index") || rd_count(&n->r, &k, 2, "names")) return false;
    tl_deftype *d = n->apply && ti < m->types.n ? TL_FTYPE(m, ti) : NULL;
    for (uint32_t j = 0; j < k; j++) {
      uint32_t idx;
      const char *s = NULL;
      if (rd_u32(&n->r, &idx, "name index") || !name_str(n, &s)) return false;
      if (d && d->kind == TL_DT_STRUCT && idx < d->nfields) d->fields[idx].name = s;
    }
  }
  return true;
}

static bool name_pass(rctx *c, const uint8_t *p, size_t size, bool apply) {
  nctx n = {c, {p, p + size, p, NULL, TL_NO_FUNC}, apply};
  while (n.r.p < n.r.end) {
    uint8_t id;
    uint32_t len;
    const uint8_t *body;
    if (rd_byte(&n.r, &id, "subsection") || rd_u32(&n.r, &len, "size") || rd_bytes(&n.r, len, &body, "sub"))
      return false;
    nctx sub = {c, {body, body + len, p, NULL, TL_NO_FUNC}, apply};
    bool ok = true;
    if (id == 0) ok = name_str(&sub, &c->m->name);
    else if (id == 2 || id == 3) ok = indirect_map(&sub, id);
    else if (id == 10) ok = field_map(&sub);
    else if (id == 1 || (id >= 4 && id <= 9) || id == 11) ok = name_map(&sub, id);
    else sub.r.p = sub.r.end; /* unknown subsection: skip */
    if (!ok || sub.r.p != sub.r.end) return false;
  }
  return true;
}

void rd_name_section(rctx *c, const uint8_t *p, size_t n) {
  if (name_pass(c, p, n, false)) name_pass(c, p, n, true);
}

/* target_features uses LLVM's names; most match wasm-opt's. */
static tl_features llvm_feature(const char *name) {
  if (!strcmp(name, "atomics")) return TL_FEAT_THREADS;
  if (!strcmp(name, "simd128")) return TL_FEAT_SIMD;
  return tl_feature_by_name(name);
}

tl_features rd_target_features(const uint8_t *p, size_t n) {
  rd r = {p, p + n, p, NULL, TL_NO_FUNC};
  uint32_t cnt;
  tl_features f = 0;
  if (rd_count(&r, &cnt, 2, "features")) return 0;
  for (uint32_t i = 0; i < cnt; i++) {
    uint8_t prefix;
    uint32_t len;
    const uint8_t *s;
    char buf[64];
    if (rd_byte(&r, &prefix, "prefix") || rd_u32(&r, &len, "len") || rd_bytes(&r, len, &s, "name")) break;
    if (prefix != '+' || len >= sizeof buf) continue;
    memcpy(buf, s, len);
    buf[len] = 0;
    f |= llvm_feature(buf);
  }
  return f;
}
