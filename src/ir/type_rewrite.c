/* type_rewrite.c — changing the module's defined types.
 * Closed world: a caller edits the new definitions of private types
 * (fields, params, results, supertype) or maps types to other heap types;
 * apply rebuilds the type section: the public rec groups as they are, then
 * the private types still used in one new rec group (supertypes first).
 * Open world (tl_types_compact): no type changes; the rec groups something
 * names are kept whole, each canonical group once, ordered by use
 * (type_order.c). Either way every type and type index of the module is
 * renamed; bodies are decoded and refinalized; unused types and duplicate
 * groups are dropped. */
#include "ir.h"

#include <stdio.h>

enum { PH_MARK, PH_REMAP };

typedef struct {
  tl_module *m;
  tl_type_rewrite *rw;
  uint8_t phase;
  uint8_t *used;      /* MARK: canonical old types something names */
  tl_vec work;        /* MARK: uint32_t, types to scan */
  uint32_t *newpos;   /* old canonical index -> new module index */
  uint32_t npub;      /* the public types come first in the new order */
  tl_deftype *old;    /* the old section (public types are copied from it) */
  bool built;         /* the new section is in place */
  uint32_t *uses;     /* MARK, open world: how often each canonical type is written */
  bool quiet;         /* MARK: what is marked now is not written (a node's type) */
} rw_ctx;

static uint32_t canon_of(const tl_module *m, uint32_t idx) { return TL_FTYPE(m, idx)->canon; }

/* Each old canonical defined type named by t (its components). */
static void each_def(const tl_module *m, tl_type t, void (*fn)(void *, uint32_t), void *user) {
  for (uint32_t i = 0, n = tl_type_arity(m, t); i < n; i++) {
    tl_type c = tl_type_at(m, t, i);
    if (c >= TL_REF_BASE && tl_heap_is_def(tl_ref_heap(c))) fn(user, tl_ref_heap(c) - TL_HT_DEF);
  }
}

/* The types a definition names: supertype, params and results, fields. */
static void def_refs(const tl_module *m, const tl_deftype *d, void (*fn)(void *, uint32_t), void *user) {
  if (d->super != TL_NO_SUPER) fn(user, d->super);
  if (d->kind == TL_DT_FUNC) {
    each_def(m, d->params, fn, user);
    each_def(m, d->results, fn, user);
  }
  for (uint32_t f = 0; f < d->nfields; f++) each_def(m, d->fields[f].type, fn, user);
}

/* ---- public types ------------------------------------------------------ */
typedef struct { const tl_module *m; uint8_t *pub; tl_vec *work; } pub_ctx;

static void pub_note(void *user, uint32_t idx) {
  pub_ctx *p = user;
  uint32_t c = canon_of(p->m, idx);
  if (p->pub[c]) return;
  p->pub[c] = 1;
  TL_VEC_PUSH(p->work, uint32_t, c);
}

static void pub_note_type(pub_ctx *p, tl_type t) { each_def(p->m, t, pub_note, p); }

static void pub_roots(pub_ctx *p) {
  const tl_module *m = p->m;
  for (uint32_t i = 0; i < m->nimported_funcs; i++) pub_note(p, TL_FUNC(m, i)->type);
  for (uint32_t i = 0; i < m->nimported_globals; i++) pub_note_type(p, TL_GLOBAL(m, i)->type);
  for (uint32_t i = 0; i < m->nimported_tables; i++) pub_note_type(p, TL_TABLE(m, i)->elem);
  for (uint32_t i = 0; i < m->nimported_tags; i++) pub_note(p, TL_TAG(m, i)->type);
  for (uint32_t i = 0; i < m->exports.n; i++) {
    const tl_export *x = TL_EXPORT(m, i);
    if (x->kind == TL_EXTERN_FUNC) pub_note(p, TL_FUNC(m, x->index)->type);
    else if (x->kind == TL_EXTERN_GLOBAL) pub_note_type(p, TL_GLOBAL(m, x->index)->type);
    else if (x->kind == TL_EXTERN_TABLE) pub_note_type(p, TL_TABLE(m, x->index)->elem);
    else if (x->kind == TL_EXTERN_TAG) pub_note(p, TL_TAG(m, x->index)->type);
  }
}

/* What the exposed types reach: their rec groups, supertypes, params,
 * results and fields, transitively (Binaryen's closed-world public types). */
void tl_types_public(const tl_module *m, uint8_t *pub) {
  tl_vec work = {0};
  pub_ctx p = {m, pub, &work};
  memset(pub, 0, m->types.n);
  pub_roots(&p);
  while (work.n) {
    uint32_t c = TL_VEC_AT(&work, uint32_t, --work.n);
    const tl_deftype *d = TL_FTYPE(m, c);
    for (uint32_t k = d->rec; k < d->rec + d->nrec; k++) pub_note(&p, k);
    def_refs(m, d, pub_note, &p);
  }
  tl_vec_free(&work);
}

/* ---- begin / free ------------------------------------------------------ */
void tl_type_rewrite_begin(tl_module *m, tl_type_rewrite *rw) {
  uint32_t n = (uint32_t)m->types.n, n1 = n ? n : 1;
  memset(rw, 0, sizeof *rw);
  tl_arena_init(&rw->arena);
  rw->n = n;
  rw->def = TL_NEWN(&rw->arena, tl_deftype, n1);
  rw->map = TL_NEWN(&rw->arena, uint32_t, n1);
  rw->pub = TL_NEWN(&rw->arena, uint8_t, n1);
  rw->canon = TL_NEWN(&rw->arena, uint32_t, n1);
  for (uint32_t i = 0; i < n; i++) {
    tl_deftype d = *TL_FTYPE(m, i);
    if (d.nfields) {
      d.fields = TL_NEWN(&rw->arena, tl_field, d.nfields);
      memcpy(d.fields, TL_FTYPE(m, i)->fields, d.nfields * sizeof *d.fields);
    }
    if (d.super != TL_NO_SUPER) d.super = canon_of(m, d.super);
    rw->def[i] = d;
    rw->map[i] = TL_NO_INDEX;
    rw->canon[i] = d.canon;
  }
  tl_types_public(m, rw->pub);
}

void tl_type_rewrite_free(tl_type_rewrite *rw) { tl_arena_free(&rw->arena); }

/* ---- resolving maps ---------------------------------------------------- */
/* Heap type ht (old) after the maps: an abstract one or an old canonical
 * defined one that stays. A cycle of maps (a caller's bug) stops anywhere. */
static uint32_t resolve(const tl_type_rewrite *rw, uint32_t ht) {
  for (uint32_t k = 0; k <= rw->n && tl_heap_is_def(ht); k++) {
    uint32_t c = rw->canon[ht - TL_HT_DEF];
    ht = TL_HT_DEF + c;
    if (rw->map[c] == TL_NO_INDEX || rw->pub[c]) break;
    ht = rw->map[c];
  }
  return ht;
}

/* ---- marking what is used and renaming --------------------------------- */
static void mark(rw_ctx *c, uint32_t ht) {
  ht = resolve(c->rw, ht);
  if (!tl_heap_is_def(ht)) return;
  if (c->uses && !c->quiet) c->uses[ht - TL_HT_DEF]++;
  if (c->used[ht - TL_HT_DEF]) return;
  c->used[ht - TL_HT_DEF] = 1;
  TL_VEC_PUSH(&c->work, uint32_t, ht - TL_HT_DEF);
}

static void mark_idx(void *user, uint32_t idx) { mark(user, TL_HT_DEF + idx); }

/* An old heap type's new one: while the section is built, by new module
 * index (tl_types_add_group canonicalizes); after, by new canonical index. */
static uint32_t new_heap(rw_ctx *c, uint32_t ht) {
  ht = resolve(c->rw, ht);
  if (!tl_heap_is_def(ht)) return ht;
  uint32_t pos = c->newpos[ht - TL_HT_DEF];
  return TL_HT_DEF + (c->built ? TL_FTYPE(c->m, pos)->canon : pos);
}

/* t renamed (REMAP) or its types marked used (MARK). */
static tl_type tx(rw_ctx *c, tl_type t) {
  tl_module *m = c->m;
  if (tl_type_is_tuple(t)) {
    uint32_t n = tl_type_arity(m, t);
    tl_type small[16], *v = n <= 16 ? small : TL_NEWN(&c->rw->arena, tl_type, n);
    bool same = true;
    for (uint32_t i = 0; i < n; i++) v[i] = tx(c, tl_type_at(m, t, i)), same = same && v[i] == tl_type_at(m, t, i);
    return same ? t : tl_type_tuple(m, v, n);
  }
  if (t < TL_REF_BASE || !tl_heap_is_def(tl_ref_heap(t))) return t;
  if (c->phase == PH_MARK) return mark(c, tl_ref_heap(t)), t;
  return tl_ref(new_heap(c, tl_ref_heap(t)), tl_ref_nullable(t));
}

/* A type index immediate (module index) renamed or marked. */
static uint32_t ix(rw_ctx *c, uint32_t idx) {
  if (idx >= c->rw->n) return idx;
  if (c->phase == PH_MARK) return mark(c, TL_HT_DEF + idx), idx;
  uint32_t ht = resolve(c->rw, TL_HT_DEF + idx);
  return tl_heap_is_def(ht) ? c->newpos[ht - TL_HT_DEF] : idx;
}

static void visit_node(tl_walk *w, tl_expr **slot) {
  rw_ctx *c = w->ctx;
  tl_expr *e = *slot;
  int imm = tl_ops[e->op].imm;
  /* a node's type is written only as a block type */
  c->quiet = !((imm == TL_IMM_BLOCK || imm == TL_IMM_TRY_TABLE) && e->imm.block.bt == TL_NO_INDEX);
  e->type = tx(c, e->type);
  c->quiet = false;
  switch (imm) {
  case TL_IMM_BLOCK: case TL_IMM_TRY_TABLE:
    if (e->imm.block.bt != TL_NO_INDEX) e->imm.block.bt = ix(c, e->imm.block.bt);
    break;
  case TL_IMM_CALL_INDIRECT: case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: case TL_IMM_TYPE_DATA:
  case TL_IMM_TYPE_ELEM:
    e->imm.idx2.a = ix(c, e->imm.idx2.a);
    break;
  case TL_IMM_TYPE_TYPE:
    e->imm.idx2.a = ix(c, e->imm.idx2.a);
    e->imm.idx2.b = ix(c, e->imm.idx2.b);
    break;
  case TL_IMM_TYPE: e->imm.index = ix(c, e->imm.index); break;
  case TL_IMM_REFTYPE: case TL_IMM_SELECT_T: case TL_IMM_CAST: e->imm.index = tx(c, e->imm.index); break;
  case TL_IMM_BR_CAST: e->imm.idx2.b = tx(c, e->imm.idx2.b); break;
  default: break;
  }
}

/* Every type and type index the module (not its type section) holds. */
static void module_pass(rw_ctx *c) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    /* (while renaming, f->type is an old index into the old section) */
    uint32_t nparam = c->phase == PH_MARK ? tl_type_arity(m, TL_FTYPE(m, f->type)->params) : 0;
    f->type = ix(c, f->type);
    for (uint32_t l = 0; l < f->nlocal; l++) {
      c->quiet = l < nparam; /* params are written in the function type */
      f->local[l] = tx(c, f->local[l]);
    }
    c->quiet = false;
  }
  for (uint32_t i = 0; i < m->globals.n; i++) TL_GLOBAL(m, i)->type = tx(c, TL_GLOBAL(m, i)->type);
  for (uint32_t i = 0; i < m->tables.n; i++) TL_TABLE(m, i)->elem = tx(c, TL_TABLE(m, i)->elem);
  for (uint32_t i = 0; i < m->elems.n; i++) TL_ELEM(m, i)->type = tx(c, TL_ELEM(m, i)->type);
  for (uint32_t i = 0; i < m->tags.n; i++) TL_TAG(m, i)->type = ix(c, TL_TAG(m, i)->type);
  tl_walk_module(m, visit_node, c);
}

/* Open world: the rest of canonical type t's rec group (kept whole). */
static void mark_group(rw_ctx *c, uint32_t t) {
  const tl_deftype *d = TL_FTYPE(c->m, t);
  c->quiet = true;
  for (uint32_t k = d->rec; k < d->rec + d->nrec; k++) mark(c, TL_HT_DEF + k);
  c->quiet = false;
}

/* used[]: the private types something names after the maps, and what
 * their new definitions name in turn; in the open world every type so
 * named, its rec group and what they name, with uses[] counted. */
static void mark_used(rw_ctx *c) {
  c->phase = PH_MARK;
  module_pass(c);
  while (c->work.n) {
    uint32_t t = TL_VEC_AT(&c->work, uint32_t, --c->work.n);
    if (c->rw->open) mark_group(c, t), def_refs(c->m, &c->rw->def[t], mark_idx, c);
    else if (!c->rw->pub[t]) def_refs(c->m, &c->rw->def[t], mark_idx, c);
  }
}

/* ---- the new section --------------------------------------------------- */
/* Private type i after its unplaced private supertypes (top first). */
static uint32_t place_chain(rw_ctx *c, uint32_t i, uint32_t *order, uint32_t k) {
  tl_type_rewrite *rw = c->rw;
  uint32_t chain[72], nc = 0;
  for (uint32_t t = i; nc < 72;) {
    chain[nc++] = t;
    if (rw->def[t].super == TL_NO_SUPER) break;
    uint32_t s = resolve(rw, TL_HT_DEF + rw->def[t].super);
    if (!tl_heap_is_def(s) || rw->pub[s - TL_HT_DEF] || c->newpos[s - TL_HT_DEF] != TL_NO_INDEX) break;
    t = s - TL_HT_DEF;
  }
  while (nc) nc--, c->newpos[chain[nc]] = k, order[k++] = chain[nc];
  return k;
}

/* Public canonical groups in their order, then the used private types,
 * each after its supertype chain, else in their old order. */
static uint32_t new_order(rw_ctx *c, uint32_t *order) {
  tl_type_rewrite *rw = c->rw;
  uint32_t k = 0;
  for (uint32_t i = 0; i < rw->n; i++)
    if (rw->pub[i] && rw->canon[i] == i) c->newpos[i] = k, order[k++] = i;
  c->npub = k;
  for (uint32_t i = 0; i < rw->n; i++)
    if (!rw->pub[i] && c->used[i] && c->newpos[i] == TL_NO_INDEX) k = place_chain(c, i, order, k);
  return k;
}

/* Old canonical type t's new definition, in new module indices. */
static tl_deftype new_def(rw_ctx *c, uint32_t t) {
  tl_deftype d = c->rw->pub[t] ? c->old[t] : c->rw->def[t];
  if (c->rw->pub[t] && d.super != TL_NO_SUPER) d.super = c->rw->canon[d.super];
  if (d.super != TL_NO_SUPER) {
    uint32_t s = resolve(c->rw, TL_HT_DEF + d.super);
    d.super = tl_heap_is_def(s) ? c->newpos[s - TL_HT_DEF] : TL_NO_SUPER;
  }
  if (d.kind == TL_DT_FUNC) d.params = tx(c, d.params), d.results = tx(c, d.results);
  if (d.nfields) {
    tl_field *f = TL_NEWN(&c->rw->arena, tl_field, d.nfields);
    for (uint32_t i = 0; i < d.nfields; i++) f[i] = d.fields[i], f[i].type = tx(c, f[i].type);
    d.fields = f;
  }
  return d;
}

/* The private group, made distinct from every public group (the same
 * structure would make its types those public ones, and casts and
 * call_indirect would then accept what they rejected): when it is not,
 * brand types (structs of 1, 2... i8 fields) are appended until it is. */
static bool add_private(rw_ctx *c, tl_deftype *nd, uint32_t n, char *msg, size_t nmsg) {
  tl_module *m = c->m;
  for (uint32_t brand = 0;; brand++) {
    if (!tl_types_add_group(m, nd, n + brand, msg, nmsg)) return false;
    if (TL_FTYPE(m, c->npub)->canon == c->npub) return true;
    m->types.n = c->npub; /* a duplicate group is never in the group hash */
    tl_field *f = TL_NEWN(&c->rw->arena, tl_field, brand + 1);
    for (uint32_t i = 0; i <= brand; i++) f[i] = (tl_field){.type = TL_I32, .pack = TL_PACK_I8};
    nd[n + brand] = (tl_deftype){.kind = TL_DT_STRUCT, .super = TL_NO_SUPER, .nfields = brand + 1, .fields = f};
  }
}

static tl_status build_types(rw_ctx *c, const uint32_t *order, uint32_t n, tl_error *err) {
  tl_module *m = c->m;
  /* room for brand types: at most one per public group can be needed */
  tl_deftype *nd = TL_NEWN(&c->rw->arena, tl_deftype, n + c->npub + 1);
  for (uint32_t k = 0; k < n; k++) nd[k] = new_def(c, order[k]);
  m->types.n = 0;
  m->ngroups = 0;
  if (m->group_hash) memset(m->group_hash, 0, m->group_hash_cap * sizeof *m->group_hash);
  char msg[120];
  bool ok = true;
  for (uint32_t k = 0; k < c->npub && ok; k += c->old[order[k]].nrec)
    ok = tl_types_add_group(m, nd + k, c->old[order[k]].nrec, msg, sizeof msg);
  if (ok && n > c->npub) ok = add_private(c, nd + c->npub, n - c->npub, msg, sizeof msg);
  if (!ok) return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "type rewrite: %s", msg);
  c->built = true;
  return TL_OK;
}

static tl_status apply(tl_module *m, tl_type_rewrite *rw, tl_error *err) {
  uint32_t n1 = rw->n ? rw->n : 1;
  rw_ctx c = {.m = m, .rw = rw};
  c.used = TL_NEWN(&rw->arena, uint8_t, n1);
  c.newpos = TL_NEWN(&rw->arena, uint32_t, n1);
  memset(c.newpos, 0xff, n1 * sizeof *c.newpos);
  c.old = TL_NEWN(&rw->arena, tl_deftype, n1);
  memcpy(c.old, m->types.p, rw->n * sizeof *c.old);
  if (rw->open) c.uses = TL_NEWN(&rw->arena, uint32_t, n1);
  mark_used(&c);
  tl_vec_free(&c.work);
  uint32_t *order = TL_NEWN(&rw->arena, uint32_t, n1);
  uint32_t n = rw->open ? tl_types_order_groups(m, c.used, c.uses, order, c.newpos) : new_order(&c, order);
  if (rw->open) c.npub = n;
  c.phase = PH_REMAP;
  tl_status s = build_types(&c, order, n, err);
  if (s != TL_OK) return s;
  module_pass(&c);
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    if (TL_FUNC(m, i)->body) tl_func_refinalize(m, TL_FUNC(m, i));
  return TL_OK;
}

tl_status tl_type_rewrite_apply(tl_module *m, tl_type_rewrite *rw, tl_error *err) {
  if (rw->n != m->types.n) return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "type rewrite: the types changed");
  if (!rw->n) return TL_OK;
  tl_status s = tl_module_decode_all(m, err);
  return s != TL_OK ? s : apply(m, rw, err);
}

tl_status tl_types_compact(tl_module *m, tl_error *err) {
  if (!m->types.n) return TL_OK;
  tl_type_rewrite rw;
  tl_type_rewrite_begin(m, &rw);
  rw.open = true;
  memset(rw.pub, 1, rw.n); /* no definition changes */
  tl_status s = tl_type_rewrite_apply(m, &rw, err);
  tl_type_rewrite_free(&rw);
  return s;
}
