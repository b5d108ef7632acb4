/* writer.c — tree IR to a binary module: header, the known sections in the
 * standard order (each only when non-empty), custom sections where they were,
 * and the name section with debug_names. Function bodies come from
 * writer_code.c and are written first, straight into the output, so the
 * block types they add and the data count they need are known before the
 * type section is written (then put in front). A consuming write
 * (tl_write_consume) frees each body once encoded.
 * Assumes an IR module that validates; guarantees minimal LEB128s and
 * deterministic bytes, or a TL_E_INVALID/TL_E_UNSUPPORTED error. */
#include "writer.h"

#include <stdlib.h>
#include <string.h>

/* Known sections in the order they must appear; the index is a "slot". */
static const uint8_t order[] = {1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11};
enum { NORDER = sizeof order };

/* ---- small encoders (LEB128 from leb128.c) ------------------------------ */
void wr_u64(tl_buf *b, uint64_t v) { tl_leb_write_u64(b, v); }
void wr_u32(tl_buf *b, uint32_t v) { tl_leb_write_u32(b, v); }
void wr_s64(tl_buf *b, int64_t v) { tl_leb_write_s64(b, v); }

void wr_name(tl_buf *b, const char *s) { wr_name_n(b, s, 0); }

/* A name of len bytes (may contain NUL; 0 = strlen, see tl_name_len). */
void wr_name_n(tl_buf *b, const char *s, uint32_t len) {
  uint32_t n = tl_name_len(s, len);
  wr_u32(b, n);
  if (n) tl_buf_put(b, s, n);
}

uint8_t wr_valtype_byte(tl_type t) {
  static const uint8_t bytes[TL_NBASIC] = {
      [TL_I32] = 0x7f, [TL_I64] = 0x7e, [TL_F32] = 0x7d, [TL_F64] = 0x7c,
      [TL_V128] = 0x7b, [TL_FUNCREF] = 0x70, [TL_EXTERNREF] = 0x6f, [TL_EXNREF] = 0x69};
  return t < TL_NBASIC ? bytes[t] : 0;
}

/* The byte of an abstract heap type (also its s33 form, and the short form
 * of its nullable reference). */
static const uint8_t heap_bytes[TL_HT_NABSTRACT] = {
  [TL_HT_FUNC] = 0x70, [TL_HT_NOFUNC] = 0x73, [TL_HT_EXTERN] = 0x6f, [TL_HT_NOEXTERN] = 0x72,
  [TL_HT_ANY] = 0x6e, [TL_HT_EQ] = 0x6d, [TL_HT_I31] = 0x6c, [TL_HT_STRUCT] = 0x6b,
  [TL_HT_ARRAY] = 0x6a, [TL_HT_NONE] = 0x71, [TL_HT_EXN] = 0x69, [TL_HT_NOEXN] = 0x74};

void wr_heaptype(tl_buf *b, uint32_t ht) {
  if (ht < TL_HT_NABSTRACT) tl_buf_byte(b, heap_bytes[ht]);
  else wr_s64(b, ht - TL_HT_DEF);
}

tl_status wr_valtype(wr *w, tl_buf *b, tl_type t) {
  uint8_t c = wr_valtype_byte(t);
  if (c) {
    tl_buf_byte(b, c);
    return TL_OK;
  }
  if (t < TL_REF_BASE) return WR_FAIL(w, TL_E_INVALID, "type %u is not a value type", (unsigned)t);
  uint32_t ht = tl_ref_heap(t);
  if (w->grp_n && ht >= TL_HT_DEF + w->grp_rep && ht < TL_HT_DEF + w->grp_rep + w->grp_n) {
    ht += w->grp_self - w->grp_rep;
    t = tl_ref(ht, tl_ref_nullable(t));
  }
  if (!(w->m->features & TL_FEAT_GC) && ht < TL_HT_DEF + (uint32_t)w->m->types.n) { /* the top, as wasm-opt */
    ht = tl_heap_top(w->m, ht);
    t = tl_ref(ht, true);
  }
  if (ht >= TL_HT_NABSTRACT + 0u && ht < TL_HT_DEF) return WR_FAIL(w, TL_E_INVALID, "bad heap type %u", ht);
  if (tl_ref_nullable(t) && ht < TL_HT_NABSTRACT) {
    tl_buf_byte(b, heap_bytes[ht]);
    return TL_OK;
  }
  tl_buf_byte(b, tl_ref_nullable(t) ? 0x63 : 0x64);
  wr_heaptype(b, ht);
  return TL_OK;
}

/* A result or parameter list: none, one value type, or a tuple. */
static tl_status put_types(wr *w, tl_buf *b, tl_type t) {
  uint32_t n = tl_type_arity(w->m, t);
  wr_u32(b, n);
  for (uint32_t i = 0; i < n; i++) TRY(wr_valtype(w, b, tl_type_at(w->m, t, i)));
  return TL_OK;
}

static void section(tl_buf *out, uint8_t id, tl_buf *body) {
  tl_buf_byte(out, id);
  wr_u32(out, (uint32_t)body->n);
  tl_buf_put(out, body->p, body->n);
  body->n = 0;
}

static void limits(tl_buf *b, uint64_t min, uint64_t max, bool has_max, bool shared, bool is64) {
  tl_buf_byte(b, (uint8_t)(has_max | shared << 1 | is64 << 2));
  wr_u64(b, min);
  if (has_max) wr_u64(b, max);
}

/* ---- the sections before code -------------------------------------------- */
static tl_status put_field(wr *w, tl_buf *b, const tl_field *f) {
  if (f->pack) tl_buf_byte(b, f->pack == TL_PACK_I8 ? 0x78 : 0x77);
  else TRY(wr_valtype(w, b, f->type));
  tl_buf_byte(b, f->mut);
  return TL_OK;
}

/* One type: (sub final? super? comptype), the plain form when final
 * without a supertype. */
static tl_status put_deftype(wr *w, tl_buf *b, uint32_t i) {
  const tl_deftype *d = TL_FTYPE(w->m, i);
  if (d->open || d->super != TL_NO_SUPER) {
    tl_buf_byte(b, d->open ? 0x50 : 0x4f);
    wr_u32(b, d->super != TL_NO_SUPER);
    if (d->super != TL_NO_SUPER) wr_u32(b, tl_heap_in_group(w->m, i, TL_HT_DEF + d->super) - TL_HT_DEF);
  }
  switch (d->kind) {
  case TL_DT_STRUCT:
    tl_buf_byte(b, 0x5f);
    wr_u32(b, d->nfields);
    for (uint32_t i = 0; i < d->nfields; i++) TRY(put_field(w, b, &d->fields[i]));
    return TL_OK;
  case TL_DT_ARRAY: tl_buf_byte(b, 0x5e); return put_field(w, b, &d->fields[0]);
  default:
    tl_buf_byte(b, 0x60);
    TRY(put_types(w, b, d->params));
    return put_types(w, b, d->results);
  }
}

/* Rec groups as the module has them (a group of one is written bare). */
static tl_status sec_type(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  uint32_t ngroups = 0;
  for (size_t i = 0; i < m->types.n; i += TL_FTYPE(m, i)->nrec ? TL_FTYPE(m, i)->nrec : 1) ngroups++;
  wr_u32(b, (uint32_t)(ngroups + w->extra.n));
  for (size_t i = 0; i < m->types.n;) {
    uint32_t n = TL_FTYPE(m, i)->nrec ? TL_FTYPE(m, i)->nrec : 1;
    if (n > 1 || TL_FTYPE(m, i)->nrec == 0) {
      tl_buf_byte(b, 0x4e);
      wr_u32(b, TL_FTYPE(m, i)->nrec);
    }
    uint32_t rep = TL_FTYPE(m, i)->canon;
    if (rep != i) w->grp_rep = rep, w->grp_self = (uint32_t)i, w->grp_n = n;
    for (uint32_t k = 0; k < n && i + k < m->types.n; k++) TRY(put_deftype(w, b, (uint32_t)(i + k)));
    w->grp_n = 0;
    i += n;
  }
  for (size_t i = 0; i < w->extra.n; i++) {
    tl_buf_byte(b, 0x60);
    tl_buf_byte(b, 0);
    TRY(put_types(w, b, TL_VEC_AT(&w->extra, tl_type, i)));
  }
  return TL_OK;
}

static tl_status import_name(wr *w, tl_buf *b, const tl_importname *imp, const char *what,
                             uint32_t i) {
  if (!imp->module || !imp->name)
    return WR_FAIL(w, TL_E_INVALID, "imported %s %u has no import name", what, i);
  wr_name_n(b, imp->module, imp->module_len);
  wr_name_n(b, imp->name, imp->name_len);
  return TL_OK;
}

static tl_status sec_import(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  wr_u32(b, m->nimported_funcs + m->nimported_tables + m->nimported_memories +
                m->nimported_globals + m->nimported_tags);
  for (uint32_t i = 0; i < m->nimported_funcs; i++) {
    TRY(import_name(w, b, &TL_FUNC(m, i)->imp, "function", i));
    tl_buf_byte(b, TL_EXTERN_FUNC);
    wr_u32(b, TL_FUNC(m, i)->type);
  }
  for (uint32_t i = 0; i < m->nimported_tables; i++) {
    tl_table *t = TL_TABLE(m, i);
    TRY(import_name(w, b, &t->imp, "table", i));
    tl_buf_byte(b, TL_EXTERN_TABLE);
    TRY(wr_valtype(w, b, t->elem));
    limits(b, t->min, t->max, t->has_max, false, t->is64);
  }
  for (uint32_t i = 0; i < m->nimported_memories; i++) {
    tl_memory *mem = TL_MEMORY(m, i);
    TRY(import_name(w, b, &mem->imp, "memory", i));
    tl_buf_byte(b, TL_EXTERN_MEMORY);
    limits(b, mem->min, mem->max, mem->has_max, mem->shared, mem->is64);
  }
  for (uint32_t i = 0; i < m->nimported_globals; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    TRY(import_name(w, b, &g->imp, "global", i));
    tl_buf_byte(b, TL_EXTERN_GLOBAL);
    TRY(wr_valtype(w, b, g->type));
    tl_buf_byte(b, g->mut);
  }
  for (uint32_t i = 0; i < m->nimported_tags; i++) {
    TRY(import_name(w, b, &TL_TAG(m, i)->imp, "tag", i));
    tl_buf_byte(b, TL_EXTERN_TAG);
    tl_buf_byte(b, 0x00); /* attribute: exception */
    wr_u32(b, TL_TAG(m, i)->type);
  }
  return TL_OK;
}

static tl_status sec_tag(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  wr_u32(b, (uint32_t)m->tags.n - m->nimported_tags);
  for (size_t i = m->nimported_tags; i < m->tags.n; i++) {
    tl_buf_byte(b, 0x00);
    wr_u32(b, TL_TAG(m, i)->type);
  }
  return TL_OK;
}

static tl_status sec_function(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  wr_u32(b, (uint32_t)m->funcs.n - m->nimported_funcs);
  for (size_t i = m->nimported_funcs; i < m->funcs.n; i++) wr_u32(b, TL_FUNC(m, i)->type);
  return TL_OK;
}

static tl_status sec_table(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  wr_u32(b, (uint32_t)m->tables.n - m->nimported_tables);
  for (size_t i = m->nimported_tables; i < m->tables.n; i++) {
    tl_table *t = TL_TABLE(m, i);
    bool init = t->init && !(t->init->op == TL_OP_REF_NULL && t->init->type == t->elem);
    if (init) tl_buf_byte(b, 0x40), tl_buf_byte(b, 0);
    TRY(wr_valtype(w, b, t->elem));
    limits(b, t->min, t->max, t->has_max, false, t->is64);
    if (init) TRY(wr_const_expr(w, b, &t->init, "table"));
  }
  return TL_OK;
}

static tl_status sec_memory(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  wr_u32(b, (uint32_t)m->memories.n - m->nimported_memories);
  for (size_t i = m->nimported_memories; i < m->memories.n; i++) {
    tl_memory *mem = TL_MEMORY(m, i);
    limits(b, mem->min, mem->max, mem->has_max, mem->shared, mem->is64);
  }
  return TL_OK;
}

static tl_status sec_global(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  wr_u32(b, (uint32_t)m->globals.n - m->nimported_globals);
  for (size_t i = m->nimported_globals; i < m->globals.n; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    TRY(wr_valtype(w, b, g->type));
    tl_buf_byte(b, g->mut);
    TRY(wr_const_expr(w, b, &g->init, "global"));
  }
  return TL_OK;
}

static tl_status sec_export(wr *w, tl_buf *b) {
  tl_module *m = w->m;
  wr_u32(b, (uint32_t)m->exports.n);
  for (size_t i = 0; i < m->exports.n; i++) {
    tl_export *e = TL_EXPORT(m, i);
    wr_name_n(b, e->name, e->name_len);
    tl_buf_byte(b, e->kind);
    wr_u32(b, e->index);
  }
  return TL_OK;
}

static tl_status sec_start(wr *w, tl_buf *b) {
  wr_u32(b, w->m->start);
  return TL_OK;
}

/* Element segments: flags 0-3 list function indices, 4-7 expressions; bit 0
 * passive/declarative, bit 1 explicit table (active) or declarative. */
static bool funcidx_form(const tl_elem *el) {
  if (el->exprs || el->type != TL_FUNCREF) return false;
  for (uint32_t i = 0; i < el->n; i++)
    if (!el->item[i] || el->item[i]->op != TL_OP_REF_FUNC) return false;
  return true;
}

static tl_status elem_seg(wr *w, tl_buf *b, tl_elem *el) {
  bool fidx = funcidx_form(el);
  uint8_t flags = el->mode == TL_SEG_PASSIVE ? 1 : el->mode == TL_SEG_DECLARATIVE ? 3
                  : (el->table == 0 && el->type == TL_FUNCREF) ? 0 : 2;
  if (!fidx) flags |= 4;
  wr_u32(b, flags);
  if (el->mode == TL_SEG_ACTIVE) {
    if (flags & 2) wr_u32(b, el->table);
    TRY(wr_const_expr(w, b, &el->offset, "element offset"));
  }
  if (flags & 3) {
    if (fidx) tl_buf_byte(b, 0x00);
    else TRY(wr_valtype(w, b, el->type));
  }
  wr_u32(b, el->n);
  for (uint32_t i = 0; i < el->n; i++) {
    if (fidx) wr_u32(b, el->item[i]->imm.index);
    else TRY(wr_const_expr(w, b, &el->item[i], "element item"));
  }
  return TL_OK;
}

static tl_status sec_elem(wr *w, tl_buf *b) {
  wr_u32(b, (uint32_t)w->m->elems.n);
  for (size_t i = 0; i < w->m->elems.n; i++) TRY(elem_seg(w, b, TL_ELEM(w->m, i)));
  return TL_OK;
}

static tl_status sec_datacount(wr *w, tl_buf *b) {
  wr_u32(b, (uint32_t)w->m->datas.n);
  return TL_OK;
}

static tl_status sec_data(wr *w, tl_buf *b) {
  wr_u32(b, (uint32_t)w->m->datas.n);
  for (size_t i = 0; i < w->m->datas.n; i++) {
    tl_data *d = TL_DATA(w->m, i);
    if (d->mode == TL_SEG_PASSIVE) {
      tl_buf_byte(b, 1);
    } else {
      wr_u32(b, d->mem ? 2 : 0);
      if (d->mem) wr_u32(b, d->mem);
      TRY(wr_const_expr(w, b, &d->offset, "data offset"));
    }
    wr_u32(b, d->size);
    tl_buf_put(b, d->bytes, d->size);
  }
  return TL_OK;
}

/* ---- the name section ------------------------------------------------------ */
static void subsection(tl_buf *sec, uint8_t id, tl_buf *sub) {
  if (!sub->n) return;
  section(sec, id, sub);
}

/* A name map over a vector of records whose name is at byte offset `off`. */
static void name_map(tl_buf *sub, tl_vec *v, size_t size, size_t off) {
  uint32_t n = 0;
  for (size_t i = 0; i < v->n; i++)
    n += *(const char **)((char *)v->p + i * size + off) != NULL;
  if (!n) return;
  wr_u32(sub, n);
  for (size_t i = 0; i < v->n; i++) {
    const char *s = *(const char **)((char *)v->p + i * size + off);
    if (!s) continue;
    wr_u32(sub, (uint32_t)i);
    wr_name(sub, s);
  }
}

static uint32_t named_locals(const tl_module *m, const tl_func *f) {
  uint32_t n = 0;
  if (!f->local_name) return 0;
  for (uint32_t i = 0; i < f->nlocal; i++)
    n += f->local_name[i] && !tl_type_is_tuple(f->local[i]);
  return n;
}

typedef struct { uint32_t index, local; } wr_lpair; /* wasm index, IR local */

static int by_wasm_index(const void *a, const void *b) {
  uint32_t x = ((const wr_lpair *)a)->index, y = ((const wr_lpair *)b)->index;
  return x < y ? -1 : x > y;
}

/* False when out of memory. */
static bool local_names(wr *w, tl_buf *sub) {
  tl_module *m = w->m;
  uint32_t nf = 0;
  for (size_t i = 0; i < m->funcs.n; i++) nf += named_locals(m, TL_FUNC(m, i)) != 0;
  if (!nf) return true;
  wr_u32(sub, nf);
  for (size_t i = 0; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    uint32_t n = named_locals(m, f);
    if (!n) continue;
    uint32_t *base = wr_local_map(w, (uint32_t)i);
    wr_lpair *by_index = tl_scratch_realloc(NULL, n + 1, sizeof *by_index);
    if (!base || !by_index) {
      tl_free(base), tl_free(by_index);
      return false;
    }
    /* in wasm index order (the writer may group locals by type); a local
     * the writer left out has no index and no name */
    uint32_t k = 0;
    for (uint32_t l = 0; l < f->nlocal; l++)
      if (f->local_name[l] && !tl_type_is_tuple(f->local[l]) && base[l] != TL_NO_INDEX)
        by_index[k++] = (wr_lpair){base[l], l};
    qsort(by_index, k, sizeof *by_index, by_wasm_index);
    wr_u32(sub, (uint32_t)i);
    wr_u32(sub, k);
    for (uint32_t j = 0; j < k; j++) {
      wr_u32(sub, by_index[j].index);
      wr_name(sub, f->local_name[by_index[j].local]);
    }
    tl_free(by_index);
    tl_free(base);
  }
  return true;
}

/* Label names were recorded by writer_code.c as {func, index, name} in
 * function order; group them per function. */
static void label_names(wr *w, tl_buf *sub) {
  tl_vec *v = &w->lnames;
  if (!v->n) return;
  uint32_t nf = 0;
  for (size_t i = 0; i < v->n; i++)
    nf += i == 0 || TL_VEC_AT(v, wr_lname, i).func != TL_VEC_AT(v, wr_lname, i - 1).func;
  wr_u32(sub, nf);
  for (size_t i = 0; i < v->n;) {
    size_t j = i;
    while (j < v->n && TL_VEC_AT(v, wr_lname, j).func == TL_VEC_AT(v, wr_lname, i).func) j++;
    wr_u32(sub, TL_VEC_AT(v, wr_lname, i).func);
    wr_u32(sub, (uint32_t)(j - i));
    for (; i < j; i++) {
      wr_u32(sub, TL_VEC_AT(v, wr_lname, i).index);
      wr_name(sub, TL_VEC_AT(v, wr_lname, i).name);
    }
  }
}

/* Subsection 10: struct types' field names, type -> (field -> name). */
static uint32_t named_fields(const tl_deftype *d) {
  uint32_t n = 0;
  for (uint32_t k = 0; d->kind == TL_DT_STRUCT && k < d->nfields; k++) n += d->fields[k].name != NULL;
  return n;
}

static void field_names(tl_module *m, tl_buf *sub) {
  uint32_t nt = 0;
  for (uint32_t i = 0; i < m->types.n; i++) nt += named_fields(TL_FTYPE(m, i)) != 0;
  if (!nt) return;
  wr_u32(sub, nt);
  for (uint32_t i = 0; i < m->types.n; i++) {
    const tl_deftype *d = TL_FTYPE(m, i);
    if (!named_fields(d)) continue;
    wr_u32(sub, i);
    wr_u32(sub, named_fields(d));
    for (uint32_t k = 0; k < d->nfields; k++)
      if (d->fields[k].name) wr_u32(sub, k), wr_name(sub, d->fields[k].name);
  }
}

static tl_status sec_name(wr *w, tl_buf *out) {
  tl_module *m = w->m;
  tl_buf sec = {0}, sub = {0};
  wr_name(&sec, "name");
  size_t head = sec.n;
  if (m->name) wr_name(&sub, m->name);
  subsection(&sec, 0, &sub);
  name_map(&sub, &m->funcs, sizeof(tl_func), offsetof(tl_func, name));
  subsection(&sec, 1, &sub);
  if (!local_names(w, &sub)) {
    tl_buf_free(&sec);
    tl_buf_free(&sub);
    return tl_nomem(w->err, "name section");
  }
  subsection(&sec, 2, &sub);
  label_names(w, &sub);
  subsection(&sec, 3, &sub);
  name_map(&sub, &m->types, sizeof(tl_functype), offsetof(tl_functype, name));
  subsection(&sec, 4, &sub);
  name_map(&sub, &m->tables, sizeof(tl_table), offsetof(tl_table, name));
  subsection(&sec, 5, &sub);
  name_map(&sub, &m->memories, sizeof(tl_memory), offsetof(tl_memory, name));
  subsection(&sec, 6, &sub);
  name_map(&sub, &m->globals, sizeof(tl_global), offsetof(tl_global, name));
  subsection(&sec, 7, &sub);
  name_map(&sub, &m->elems, sizeof(tl_elem), offsetof(tl_elem, name));
  subsection(&sec, 8, &sub);
  name_map(&sub, &m->datas, sizeof(tl_data), offsetof(tl_data, name));
  subsection(&sec, 9, &sub);
  field_names(m, &sub);
  subsection(&sec, 10, &sub);
  name_map(&sub, &m->tags, sizeof(tl_tag), offsetof(tl_tag, name));
  subsection(&sec, 11, &sub);
  if (sec.n > head) section(out, 0, &sec);
  tl_buf_free(&sec);
  tl_buf_free(&sub);
  return TL_OK;
}

static void custom(tl_buf *out, const tl_custom *c) {
  tl_buf_byte(out, 0);
  tl_buf hdr = {0};
  wr_name(&hdr, c->name);
  wr_u32(out, (uint32_t)(hdr.n + c->size));
  tl_buf_put(out, hdr.p, hdr.n);
  tl_buf_put(out, c->bytes, c->size);
  tl_buf_free(&hdr);
}

/* ---- putting it together ------------------------------------------------------ */
typedef tl_status (*sec_fn)(wr *, tl_buf *);

static bool written(wr *w, int slot) {
  tl_module *m = w->m;
  switch (order[slot]) {
  case 1: return m->types.n + w->extra.n > 0;
  case 2: return m->nimported_funcs + m->nimported_tables + m->nimported_memories +
                 m->nimported_globals + m->nimported_tags > 0;
  case 13: return m->tags.n > m->nimported_tags;
  case 3: case 10: return m->funcs.n > m->nimported_funcs;
  case 4: return m->tables.n > m->nimported_tables;
  case 5: return m->memories.n > m->nimported_memories;
  case 6: return m->globals.n > m->nimported_globals;
  case 7: return m->exports.n > 0;
  case 8: return m->has_start;
  case 9: return m->elems.n > 0;
  case 12: return m->has_datacount || w->uses_data;
  default: return m->datas.n > 0;
  }
}

/* The slot a custom section follows: its `after` section, or the nearest
 * earlier one that is written; -1 = before every known section. */
static int custom_slot(wr *w, const tl_custom *c) {
  int p = -1;
  if (c->after) {
    p = NORDER - 1;
    for (int i = 0; i < NORDER; i++)
      if (order[i] == c->after) p = i;
  }
  while (p >= 0 && !written(w, p)) p--;
  return p;
}

/* With tl_write_options.dwarf: c's rewritten bytes, if dwarf.c rewrote
 * it (the first section of its name: another is left out, as dwarf.c
 * read only the first); .debug_aranges, which it does not map, is left
 * out (NULL). */
static const tl_custom *dwarf_custom(const wr *w, const tl_custom *c, tl_custom *tmp) {
  if (!w->m->dwarf_locs || !w->opt->dwarf || strncmp(c->name, ".debug_", 7)) return c;
  if (!strcmp(c->name, ".debug_aranges")) return NULL;
  for (int k = 0; k < TL_DWARF_NSECS; k++)
    if (w->dwarf.has[k] && w->dwarf.bytes[k].n && !strcmp(c->name, tl_dwarf_names[k])) {
      for (size_t i = 0; i < w->m->customs.n; i++) {
        const tl_custom *first = &TL_VEC_AT(&w->m->customs, tl_custom, i);
        if (!strcmp(first->name, c->name)) {
          if (first != c) return NULL;
          break;
        }
      }
      *tmp = *c;
      tmp->bytes = w->dwarf.bytes[k].p;
      tmp->size = (uint32_t)w->dwarf.bytes[k].n;
      return tmp;
    }
  return c;
}

static void customs_at(wr *w, const tl_write_options *opt, tl_buf *out, int slot) {
  if (opt->strip_custom) return;
  for (size_t i = 0; i < w->m->customs.n; i++) {
    tl_custom *c = &TL_VEC_AT(&w->m->customs, tl_custom, i), tmp;
    if (opt->source_map_url && !strcmp(c->name, "sourceMappingURL")) continue; /* replaced */
    if (custom_slot(w, c) != slot) continue;
    const tl_custom *d = dwarf_custom(w, c, &tmp);
    if (d) custom(out, d);
  }
}

/* After the names, as Binaryen puts it. */
static void source_map_url(const tl_write_options *opt, tl_buf *out) {
  if (!opt->source_map_url) return;
  tl_custom c = {0};
  c.name = "sourceMappingURL";
  tl_buf url = {0};
  wr_name(&url, opt->source_map_url);
  c.bytes = url.p;
  c.size = url.n;
  custom(out, &c);
  tl_buf_free(&url);
}

/* A marker: write_module encodes the code section first, into `out`. */
static tl_status sec_code(wr *w, tl_buf *b) {
  (void)w;
  (void)b;
  return TL_OK;
}

/* out[start..) is the code section's body; puts `pre` (the bytes before
 * it) and the section header in front of it, in place. */
static size_t splice_code(tl_buf *out, size_t start, tl_buf *pre) {
  size_t n = out->n - start;
  tl_buf_byte(pre, 10);
  wr_u32(pre, (uint32_t)n);
  tl_buf_put(out, pre->p, pre->n);   /* room; the bytes move below */
  memmove(out->p + start + pre->n, out->p + start, n);
  memcpy(out->p + start, pre->p, pre->n);
  size_t moved = pre->n;
  tl_buf_free(pre);
  return moved;
}

/* Function fi's local map for DWARF (input index -> written index), in
 * *lm; false if it has none (not read with DWARF, or a pass merged its
 * locals) or on out of memory. */
static bool dwarf_locals(wr *w, uint32_t fi, tl_dwarf_locals *lm) {
  tl_func *f = TL_FUNC(w->m, fi);
  if (f->imp.module || f->prolog.file != TL_LOC_DWARF || f->prolog.col != TL_LOC_DWARF_START ||
      f->locals_unmapped)
    return false;
  uint32_t n = 0;
  for (uint32_t l = 0; l < f->nlocal; l++) {
    uint32_t o = f->local_orig ? f->local_orig[l] : l;
    if (o != TL_NO_INDEX && o + 1 > n) n = o + 1;
  }
  uint32_t *base = wr_local_map(w, fi), *map = tl_scratch_realloc(NULL, n + 1, sizeof *map);
  if (!base || !map) {
    tl_free(base), tl_free(map);
    return false;
  }
  for (uint32_t i = 0; i < n; i++) map[i] = TL_NO_INDEX;
  for (uint32_t l = 0; l < f->nlocal; l++) {
    uint32_t o = f->local_orig ? f->local_orig[l] : l;
    if (o != TL_NO_INDEX && !tl_type_is_tuple(f->local[l])) map[o] = base[l];
  }
  tl_free(base);
  *lm = (tl_dwarf_locals){f->prolog.line - 1, n, map};
  return true;
}

/* DWARF's addresses and local indices, for the code section at `code`. */
static tl_status update_dwarf(wr *w, uint32_t code) {
  tl_vec lms = {0};
  for (uint32_t i = 0; i < w->m->funcs.n; i++) {
    tl_dwarf_locals lm;
    if (dwarf_locals(w, i, &lm)) TL_VEC_PUSH(&lms, tl_dwarf_locals, lm);
  }
  tl_status s = tl_dwarf_update(w->m, w->smap.p, w->smap.n, code, lms.p, lms.n, NULL, &w->dwarf, w->err);
  for (size_t i = 0; i < lms.n; i++) tl_free(TL_VEC_AT(&lms, tl_dwarf_locals, i).map);
  tl_vec_free(&lms);
  return s;
}

/* Bodies first (the block types they add and the data count they need
 * shape the sections before them), straight into `out`; the sections
 * before the code section go to a buffer of their own and in front. */
static tl_status write_module(wr *w, const tl_write_options *opt, tl_buf *out) {
  static const sec_fn fns[NORDER] = {sec_type,   sec_import, sec_function, sec_table,
                                     sec_memory, sec_tag,    sec_global,   sec_export, sec_start,
                                     sec_elem,   sec_datacount, sec_code,  sec_data};
  size_t start = out->n;
  TRY(wr_code_section(w, out));
  int last = -1, code = -1;
  for (int p = 0; p < NORDER; p++) {
    if (!written(w, p)) continue;
    last = p;
    if (fns[p] == sec_code) code = p;
  }
  if (code < 0) out->n = start;
  tl_buf pre = {0}, body = {0};
  tl_buf *dst = code < 0 ? out : &pre;
  static const uint8_t magic[8] = {0, 'a', 's', 'm', 1, 0, 0, 0};
  tl_buf_put(dst, magic, sizeof magic);
  customs_at(w, opt, dst, -1);
  tl_status s = TL_OK;
  for (int p = 0; p < NORDER && !s; p++) {
    if (!written(w, p)) continue;
    if (p == code) {
      size_t moved = splice_code(out, start, &pre);
      for (size_t i = 0; i < w->smap.n; i++)   /* offsets in the module written */
        TL_VEC_AT(&w->smap, tl_srcmap_entry, i).offset += (uint32_t)(moved - start);
      dst = out;
      if (opt->dwarf && w->m->dwarf_locs && (s = update_dwarf(w, (uint32_t)moved))) break;
    } else {
      if ((s = fns[p](w, &body)) != TL_OK) break;
      section(dst, order[p], &body);
    }
    if (p == last && opt->debug_names && (s = sec_name(w, dst)) != TL_OK) break;
    if (p == last) source_map_url(opt, dst);
    customs_at(w, opt, dst, p);
  }
  if (!s && last < 0 && opt->debug_names) s = sec_name(w, dst);
  if (!s && last < 0) source_map_url(opt, dst);
  tl_buf_free(&body);
  tl_buf_free(&pre);
  return s;
}

static tl_status write_any(tl_module *m, const tl_write_options *opt, bool consume, tl_buf *out,
                           tl_error *err) {
  static const tl_write_options defaults = {0};
  wr w;
  memset(&w, 0, sizeof w);
  w.m = m;
  w.err = err;
  w.opt = opt ? opt : &defaults;
  w.want_locs = w.opt->source_map || (w.opt->dwarf && m->dwarf_locs);
  /* which body memory only its own function uses: the last sweep's index
   * (the pass runner ends with one); C API modules may share any node */
  w.consume = consume && !m->capi;
  if (w.consume && !m->node_index) tl_nodes_sweep(m);
  size_t start = out->n;
  tl_status s = write_module(&w, w.opt, out);
  if (s != TL_OK) out->n = start;
  if (s == TL_OK && w.opt->source_map) {
    tl_buf json = {0};
    tl_srcmap_write(m, w.smap.p, w.smap.n, &json);
    tl_buf_byte(&json, 0);
    *w.opt->source_map = (char *)json.p;
  }
  wr_free(&w);
  return s;
}

tl_status tl_write(tl_module *m, const tl_write_options *opt, tl_buf *out, tl_error *err) {
  return write_any(m, opt, false, out, err);
}

tl_status tl_write_consume(tl_module *m, const tl_write_options *opt, tl_buf *out,
                           tl_error *err) {
  return write_any(m, opt, true, out, err);
}
