/* gto.c — global type optimization (closed world) on private struct types:
 * a field nothing reads anywhere in its hierarchy (struct.get through a
 * super- or subtype counts) is removed, from the supertype that brings it
 * down through its subtypes, so layouts stay prefixes without reordering;
 * a mutable field no struct.set writes becomes immutable. Writes to removed
 * fields keep their effects (operands dropped in order, a set's null check
 * kept). Public types stay. The type rewriter applies the new fields. */
#include "passes.h"

typedef struct {
  tl_module *m;
  tl_type_rewrite *rw;
  uint8_t **rd, **wr;   /* per canonical struct type and field: read, struct.set */
  uint32_t *oldnf;      /* fields before the pass */
  uint32_t **newidx;    /* per type: each old field's new index, TL_NO_INDEX
                           when removed; NULL when the layout is unchanged */
  bool changed;
} gto_ctx;

static bool is_struct(const tl_type_rewrite *rw, uint32_t c) {
  return rw->canon[c] == c && rw->def[c].kind == TL_DT_STRUCT;
}

static bool removable(tl_module *m, tl_func *f, tl_expr *e) {
  tl_effects fx;
  tl_effects_of(m, f, e, &fx);
  return tl_effects_removable(&fx);
}

static void mark(uint8_t **tab, const tl_type_rewrite *rw, uint32_t type, uint32_t field) {
  uint32_t c = rw->canon[type];
  if (tab[c] && field < rw->def[c].nfields) tab[c][field] = 1;
}

static void scan_visit(tl_walk *w, tl_expr **slot) {
  gto_ctx *c = w->ctx;
  tl_expr *e = *slot;
  switch (e->op) {
  case TL_OP_STRUCT_GET: case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U:
    mark(c->rd, c->rw, e->imm.idx2.a, e->imm.idx2.b);
    break;
  case TL_OP_STRUCT_SET: mark(c->wr, c->rw, e->imm.idx2.a, e->imm.idx2.b); break;
  case TL_OP_STRUCT_NEW: /* a constant expression has no locals to keep effects in */
    for (uint32_t i = 0; !w->f && i < e->nkid; i++)
      if (!removable(c->m, NULL, e->kid[i])) mark(c->rd, c->rw, e->imm.index, i);
    break;
  default: break;
  }
}

/* The private struct types (canonical), by increasing subtyping depth. */
static uint32_t by_depth(const tl_type_rewrite *rw, uint32_t *out) {
  uint32_t k = 0;
  for (uint32_t d = 0; d < 64; d++)
    for (uint32_t i = 0; i < rw->n; i++)
      if (is_struct(rw, i) && rw->def[i].depth == d) out[k++] = i;
  return k;
}

/* Marks over shared fields: up (deepest first), then down. */
static void propagate(const tl_type_rewrite *rw, uint8_t **tab, const uint32_t *order, uint32_t n) {
  for (uint32_t k = n; k-- > 0;) {
    uint32_t t = order[k], s = rw->def[t].super;
    for (uint32_t i = 0; s != TL_NO_SUPER && i < rw->def[s].nfields; i++) tab[s][i] |= tab[t][i];
  }
  for (uint32_t k = 0; k < n; k++) {
    uint32_t t = order[k], s = rw->def[t].super;
    for (uint32_t i = 0; s != TL_NO_SUPER && i < rw->def[s].nfields; i++) tab[t][i] |= tab[s][i];
  }
}

static uint8_t **mark_table(tl_type_rewrite *rw) {
  uint8_t **tab = TL_NEWN(&rw->arena, uint8_t *, rw->n);
  for (uint32_t i = 0; i < rw->n; i++)
    if (is_struct(rw, i)) tab[i] = TL_NEWN(&rw->arena, uint8_t, rw->def[i].nfields + 1);
  return tab;
}

/* Field i of t goes: unread in its hierarchy, and new in t or gone from
 * the supertype (decided first) too. */
static bool goes(const gto_ctx *c, uint32_t t, uint32_t i) {
  uint32_t s = c->rw->def[t].super;
  if (c->rd[t][i]) return false;
  if (s == TL_NO_SUPER || i >= c->oldnf[s]) return true;
  return !c->rw->pub[s] && c->newidx[s] && c->newidx[s][i] == TL_NO_INDEX;
}

/* Mutable, no set in its hierarchy, and immutable in the supertype. */
static bool freezes(const gto_ctx *c, uint32_t t, uint32_t i) {
  const tl_deftype *d = &c->rw->def[t];
  if (!d->fields[i].mut || c->wr[t][i]) return false;
  if (d->super == TL_NO_SUPER || i >= c->oldnf[d->super]) return true;
  uint32_t si = c->newidx[d->super] ? c->newidx[d->super][i] : i;
  return !c->rw->def[d->super].fields[si].mut;
}

static void decide(gto_ctx *c, uint32_t t) {
  tl_deftype *d = &c->rw->def[t];
  uint32_t n = d->nfields, k = 0;
  uint32_t *map = TL_NEWN(&c->rw->arena, uint32_t, n + 1);
  tl_field *f = TL_NEWN(&c->rw->arena, tl_field, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    if (goes(c, t, i)) { map[i] = TL_NO_INDEX; continue; }
    f[k] = d->fields[i];
    if (freezes(c, t, i)) f[k].mut = false, c->changed = true;
    map[i] = k++;
  }
  d->fields = f;
  if (k == n) return;
  d->nfields = k;
  c->newidx[t] = map;
  c->changed = true;
}

/* ---- instructions ---------------------------------------------------- */
static tl_expr *make_as_non_null(tl_module *m, tl_expr *ref) { return tl_make_unary(m, TL_OP_REF_AS_NON_NULL, ref); }

/* struct.set of a removed field: its operands' effects and the null check,
 * in their order (ref, value, then the trap). */
static tl_expr *drop_set(tl_module *m, tl_func *f, tl_expr *e) {
  tl_expr *ref = e->kid[0], *val = e->kid[1], *k[3];
  if (e->type == TL_UNREACHABLE) {
    k[0] = tl_make_drop(m, ref), k[1] = tl_make_drop(m, val);
    return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 2);
  }
  if (removable(m, f, val)) {
    k[0] = tl_make_drop(m, make_as_non_null(m, ref));
    return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 1);
  }
  uint32_t tmp = tl_func_add_var(m, f, tl_ref_with_null(ref->type, true));
  k[0] = tl_make_local_set(m, f, tmp, ref, false);
  k[1] = tl_make_drop(m, val);
  k[2] = tl_make_drop(m, make_as_non_null(m, tl_make_local_get(m, f, tmp)));
  return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 3);
}

/* struct.new without the removed operands (map[i] == TL_NO_INDEX). */
static tl_expr *fix_new(gto_ctx *c, tl_func *f, tl_expr *e, const uint32_t *map) {
  uint8_t small[64], *rm = e->nkid <= 64 ? small : TL_NEWN(&c->rw->arena, uint8_t, e->nkid);
  for (uint32_t i = 0; i < e->nkid; i++) rm[i] = map[i] == TL_NO_INDEX;
  tl_expr *r = tl_expr_remove_operands(c->m, f, e, rm);
  return r ? r : e; /* (a constant expression's removed operands are pure: never NULL) */
}

static void fix_visit(tl_walk *w, tl_expr **slot) {
  gto_ctx *c = w->ctx;
  tl_expr *e = *slot;
  bool field_op = e->op == TL_OP_STRUCT_GET || e->op == TL_OP_STRUCT_GET_S || e->op == TL_OP_STRUCT_GET_U ||
                  e->op == TL_OP_STRUCT_SET;
  if (field_op) {
    const uint32_t *map = c->newidx[c->rw->canon[e->imm.idx2.a]];
    if (!map) return;
    if (map[e->imm.idx2.b] != TL_NO_INDEX) e->imm.idx2.b = map[e->imm.idx2.b];
    else if (e->op == TL_OP_STRUCT_SET && w->f) *slot = drop_set(c->m, w->f, e);
  } else if (e->op == TL_OP_STRUCT_NEW) {
    const uint32_t *map = c->newidx[c->rw->canon[e->imm.index]];
    if (map) *slot = fix_new(c, w->f, e, map);
  }
}

static tl_status optimize(tl_pass_ctx *ctx, tl_type_rewrite *rw) {
  gto_ctx c = {ctx->m, rw, mark_table(rw), mark_table(rw), NULL, NULL, false};
  c.oldnf = TL_NEWN(&rw->arena, uint32_t, rw->n);
  c.newidx = TL_NEWN(&rw->arena, uint32_t *, rw->n);
  for (uint32_t i = 0; i < rw->n; i++) c.oldnf[i] = rw->def[i].nfields;
  tl_walk_module(ctx->m, scan_visit, &c);
  uint32_t *order = TL_NEWN(&rw->arena, uint32_t, rw->n);
  uint32_t n = by_depth(rw, order);
  propagate(rw, c.rd, order, n);
  propagate(rw, c.wr, order, n);
  for (uint32_t k = 0; k < n; k++)
    if (!rw->pub[order[k]]) decide(&c, order[k]);
  if (!c.changed) return TL_OK;
  tl_walk_module(ctx->m, fix_visit, &c);
  return tl_type_rewrite_apply(ctx->m, rw, ctx->err);
}

tl_status tl_pass_gto(tl_pass_ctx *ctx) { return tl_type_pass_run(ctx, false, optimize); }
