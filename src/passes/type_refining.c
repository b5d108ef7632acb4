/* type_refining.c — type-refining (closed world): each reference field of
 * a private struct type gets the lub of every value written to it
 * (struct.new operands, struct.new_default's null, struct.set values),
 * values from allocations flowing to supertypes and from sets to the whole
 * hierarchy; a field nothing writes keeps its type, and a subtype's field
 * stays under its supertype's (equal when mutable). The type rewriter
 * applies it; reads retype by refinalizing. Arrays are left alone. */
#include "passes.h"

typedef struct {
  tl_module *m;
  tl_type_rewrite *rw;
  tl_type **nw;   /* per canonical struct type: lub of allocated values per field */
  tl_type **st;   /* the same for struct.set values */
} tr_ctx;

static bool is_struct(const tl_type_rewrite *rw, uint32_t c) {
  return rw->canon[c] == c && rw->def[c].kind == TL_DT_STRUCT;
}

static void note(tr_ctx *c, tl_type **tab, uint32_t idx, uint32_t field, tl_type t) {
  uint32_t k = c->rw->canon[idx];
  if (field >= c->rw->def[k].nfields || !tl_type_is_ref(c->rw->def[k].fields[field].type)) return;
  tab[k][field] = tl_type_lub(c->m, tab[k][field], t);
}

/* struct.set T i (struct.get T i ...): a field copied into itself. */
static bool is_self_copy(const tr_ctx *c, const tl_expr *set) {
  const tl_expr *v = set->kid[1];
  return v->op == TL_OP_STRUCT_GET && v->imm.idx2.b == set->imm.idx2.b &&
         c->rw->canon[v->imm.idx2.a] == c->rw->canon[set->imm.idx2.a];
}

static void scan_visit(tl_walk *w, tl_expr **slot) {
  tr_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_STRUCT_NEW) {
    for (uint32_t i = 0; i < e->nkid; i++) note(c, c->nw, e->imm.index, i, e->kid[i]->type);
  } else if (e->op == TL_OP_STRUCT_NEW_DEFAULT) {
    const tl_deftype *d = &c->rw->def[c->rw->canon[e->imm.index]];
    for (uint32_t i = 0; i < d->nfields; i++)
      if (tl_type_is_ref(d->fields[i].type))
        note(c, c->nw, e->imm.index, i, tl_ref(tl_heap_bottom(c->m, tl_ref_heap(d->fields[i].type)), true));
  } else if (e->op == TL_OP_STRUCT_SET && e->nkid == 2 && !is_self_copy(c, e)) {
    note(c, c->st, e->imm.idx2.a, e->imm.idx2.b, e->kid[1]->type);
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

/* Fields shared with the supertype: up (deepest first) lubs a type's into
 * its supertype's; down (shallowest first) its supertype's into a type's. */
static void propagate(tr_ctx *c, tl_type **tab, const uint32_t *order, uint32_t n, bool down) {
  for (uint32_t k = 0; k < n; k++) {
    uint32_t t = order[down ? k : n - 1 - k], s = c->rw->def[t].super;
    if (s == TL_NO_SUPER) continue;
    for (uint32_t i = 0; i < c->rw->def[s].nfields; i++) {
      if (down) tab[t][i] = tl_type_lub(c->m, tab[t][i], tab[s][i]);
      else tab[s][i] = tl_type_lub(c->m, tab[s][i], tab[t][i]);
    }
  }
}

/* Type t's new fields (supertypes decided first); whether any changed. */
static bool decide(tr_ctx *c, uint32_t t) {
  tl_deftype *d = &c->rw->def[t];
  if (c->rw->pub[t]) return false;
  bool changed = false;
  const tl_deftype *s = d->super != TL_NO_SUPER ? &c->rw->def[d->super] : NULL;
  for (uint32_t i = 0; i < d->nfields; i++) {
    tl_field *f = &d->fields[i];
    if (!tl_type_is_ref(f->type)) continue;
    tl_type want = tl_type_lub(c->m, c->nw[t][i], c->st[t][i]);
    if (want == TL_UNREACHABLE) want = f->type;
    if (s && i < s->nfields && (f->mut || !tl_type_sub(c->m, want, s->fields[i].type))) want = s->fields[i].type;
    changed |= want != f->type;
    f->type = want;
  }
  return changed;
}

static tl_type **field_table(tl_type_rewrite *rw) {
  tl_type **tab = TL_NEWN(&rw->arena, tl_type *, rw->n);
  for (uint32_t i = 0; i < rw->n; i++) {
    if (!is_struct(rw, i)) continue;
    tab[i] = TL_NEWN(&rw->arena, tl_type, rw->def[i].nfields ? rw->def[i].nfields : 1);
    for (uint32_t f = 0; f < rw->def[i].nfields; f++) tab[i][f] = TL_UNREACHABLE;
  }
  return tab;
}

static tl_status refine(tl_pass_ctx *ctx, tl_type_rewrite *rw) {
  tr_ctx c = {ctx->m, rw, field_table(rw), field_table(rw)};
  tl_walk_module(ctx->m, scan_visit, &c);
  uint32_t *order = TL_NEWN(&rw->arena, uint32_t, rw->n);
  uint32_t n = by_depth(rw, order);
  propagate(&c, c.nw, order, n, false);
  propagate(&c, c.st, order, n, false);
  propagate(&c, c.st, order, n, true);
  bool changed = false;
  for (uint32_t k = 0; k < n; k++) changed |= decide(&c, order[k]);
  return changed ? tl_type_rewrite_apply(ctx->m, rw, ctx->err) : TL_OK;
}

tl_status tl_pass_type_refining(tl_pass_ctx *ctx) { return tl_type_pass_run(ctx, false, refine); }
