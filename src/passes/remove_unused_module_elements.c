/* remove_unused_module_elements.c — remove functions, globals, tables,
 * memories (imported ones too), passive segments and types that nothing
 * reachable uses. Roots:
 * exports, the start function, and everything active segments mention
 * (active segments run at instantiation and may trap, so they stay),
 * except an active segment that cannot trap (a constant offset, in bounds
 * of its table's or memory's initial size) into a defined table or memory:
 * what it writes can be seen only through that table or memory, so it is
 * used only once they are (and goes with them).
 * Function bodies are walked once, in parallel (tl_run_parallel), each
 * collecting its nodes that carry an index; segment/global expressions
 * once as they become used. Reachability then follows just those lists,
 * and renumbering rewrites the kept ones (nothing when all is used).
 * A defined function that only elem segments name (no call, ref.func,
 * export or start) is kept but its body becomes unreachable when nothing
 * can call it: no reachable call_indirect uses its signature, no table is
 * imported or exported, and no table.get reads a table (as Binaryen's
 * "referenced but not used" functions). What only its old body used goes.
 * A tag goes when no throw, catch or try_table clause names it and it is
 * not exported (an exception of it could not be thrown nor told apart).
 * Lazy bodies (still bytes) are not decoded: their index immediates are
 * listed from the bytes (tl_code_refs) and renumbered there (tl_code_remap).
 * A passive segment nothing uses goes, but one that declares functions a
 * reachable ref.func names stays, declarative, with just those.
 * Guarantees: same behaviour; indices renumbered consistently everywhere. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

/* the index spaces, as tl_code_refs numbers them */
enum { K_FUNC = TL_SPACE_FUNC, K_GLOBAL = TL_SPACE_GLOBAL, K_TABLE = TL_SPACE_TABLE, K_MEMORY = TL_SPACE_MEMORY,
       K_ELEM = TL_SPACE_ELEM, K_DATA = TL_SPACE_DATA, K_TYPE = TL_SPACE_TYPE, K_TAG = TL_SPACE_TAG,
       NKINDS = TL_NSPACES };
/* Export kinds (TL_EXTERN_*) as index spaces. */
static const int extern_kinds[] = {K_FUNC, K_TABLE, K_MEMORY, K_GLOBAL, K_TAG};

typedef struct {
  tl_module *m;
  uint8_t *used[NKINDS];
  uint32_t *remap[NKINDS];
  size_t count[NKINDS];
  tl_vec work;     /* functions whose bodies are still to scan */
  tl_vec refs;     /* tl_expr *: the scanned module-level nodes that carry an index */
  tl_vec *frefs;   /* per function: tl_expr *, its body's nodes that carry one */
  tl_vec *lrefs;   /* per lazy function: tl_code_ref, its bytes' index immediates */
  uint8_t *scanned[NKINDS];  /* globals, elems, datas whose expressions were scanned */
  uint8_t *live;   /* functions whose bodies are scanned (used[K_FUNC]: kept) */
  uint8_t *called; /* types a reachable call_indirect uses */
  uint8_t *reffed; /* functions a reachable ref.func names (they must stay declared) */
  tl_vec deferred; /* uint32_t: functions only elem segments name so far */
  bool open;       /* a table may be read from outside or by table.get */
} rume;

static void use(rume *r, int kind, uint32_t i) {
  if (i >= r->count[kind]) return;
  if (kind == K_FUNC) {
    if (r->live[i]) return;
    r->live[i] = r->used[K_FUNC][i] = 1;
    TL_VEC_PUSH(&r->work, uint32_t, i);
    use(r, K_TYPE, TL_FUNC(r->m, i)->type);
    return;
  }
  r->used[kind][i] = 1;
  if (kind == K_TAG) use(r, K_TYPE, TL_TAG(r->m, i)->type);
}

/* A function an elem segment names: kept; its body is scanned once it can
 * be called (see settle). Imports have no body: simply used. */
static void use_elem_func(rume *r, uint32_t i) {
  if (i >= r->count[K_FUNC] || r->used[K_FUNC][i]) return;
  if (i < r->m->nimported_funcs) {
    use(r, K_FUNC, i);
    return;
  }
  r->used[K_FUNC][i] = 1;
  use(r, K_TYPE, TL_FUNC(r->m, i)->type);
  TL_VEC_PUSH(&r->deferred, uint32_t, i);
}

/* Whether a node names an index (what note uses and rewrite renumbers). */
static bool carries(const tl_expr *e) {
  switch (tl_ops[e->op].imm) {
  case TL_IMM_FUNC: case TL_IMM_GLOBAL: case TL_IMM_TABLE: case TL_IMM_CALL_INDIRECT:
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: case TL_IMM_MEM: case TL_IMM_MEM_COPY:
  case TL_IMM_MEM_INIT: case TL_IMM_DATA: case TL_IMM_ELEM: case TL_IMM_TABLE_INIT:
  case TL_IMM_TABLE_COPY: case TL_IMM_TAG: case TL_IMM_CATCH: case TL_IMM_TYPE: return true;
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: case TL_IMM_TYPE_DATA: case TL_IMM_TYPE_ELEM:
  case TL_IMM_TYPE_TYPE: return true;
  case TL_IMM_CLAUSE: return e->op == TL_OP_TT_CATCH || e->op == TL_OP_TT_CATCH_REF;
  case TL_IMM_BLOCK: case TL_IMM_TRY_TABLE: return e->imm.block.bt != TL_NO_INDEX;
  default: return false;
  }
}

/* What a node that carries an index uses. */
static void note(rume *r, const tl_expr *e) {
  switch (tl_ops[e->op].imm) {
  case TL_IMM_FUNC:
    use(r, K_FUNC, e->imm.index);
    if (e->op == TL_OP_REF_FUNC && e->imm.index < r->count[K_FUNC]) r->reffed[e->imm.index] = 1;
    break;
  case TL_IMM_GLOBAL: use(r, K_GLOBAL, e->imm.index); break;
  case TL_IMM_TABLE:
    use(r, K_TABLE, e->imm.index);
    if (e->op == TL_OP_TABLE_GET) r->open = true;
    break;
  case TL_IMM_CALL_INDIRECT:
    use(r, K_TYPE, e->imm.idx2.a);
    use(r, K_TABLE, e->imm.idx2.b);
    if (e->imm.idx2.a < r->count[K_TYPE]) r->called[e->imm.idx2.a] = 1;
    break;
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: use(r, K_MEMORY, e->imm.mem.mem); break;
  case TL_IMM_MEM: use(r, K_MEMORY, e->imm.index); break;
  case TL_IMM_MEM_COPY: use(r, K_MEMORY, e->imm.idx2.a); use(r, K_MEMORY, e->imm.idx2.b); break;
  case TL_IMM_MEM_INIT: use(r, K_DATA, e->imm.idx2.a); use(r, K_MEMORY, e->imm.idx2.b); break;
  case TL_IMM_DATA: use(r, K_DATA, e->imm.index); break;
  case TL_IMM_ELEM: use(r, K_ELEM, e->imm.index); break;
  case TL_IMM_TABLE_INIT: use(r, K_ELEM, e->imm.idx2.a); use(r, K_TABLE, e->imm.idx2.b); break;
  case TL_IMM_TABLE_COPY: use(r, K_TABLE, e->imm.idx2.a); use(r, K_TABLE, e->imm.idx2.b); break;
  case TL_IMM_BLOCK: case TL_IMM_TRY_TABLE: use(r, K_TYPE, e->imm.block.bt); break;
  case TL_IMM_TAG: use(r, K_TAG, e->imm.index); break;
  case TL_IMM_TYPE: use(r, K_TYPE, e->imm.index); break;
  case TL_IMM_CATCH: case TL_IMM_CLAUSE: use(r, K_TAG, e->imm.idx2.b); break;   /* (carries: catch, catch_ref) */
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: use(r, K_TYPE, e->imm.idx2.a); break;
  case TL_IMM_TYPE_DATA: use(r, K_TYPE, e->imm.idx2.a); use(r, K_DATA, e->imm.idx2.b); break;
  case TL_IMM_TYPE_ELEM: use(r, K_TYPE, e->imm.idx2.a); use(r, K_ELEM, e->imm.idx2.b); break;
  case TL_IMM_TYPE_TYPE: use(r, K_TYPE, e->imm.idx2.a); use(r, K_TYPE, e->imm.idx2.b); break;
  default: break;
  }
}

/* What an index immediate of a lazy body uses (note's rules, from bytes). */
static void note_ref(rume *r, const tl_code_ref *ref) {
  use(r, ref->space, ref->index);
  if (ref->op == TL_OP_TABLE_GET) r->open = true;
  if (ref->op == TL_OP_REF_FUNC && ref->space == K_FUNC && ref->index < r->count[K_FUNC]) r->reffed[ref->index] = 1;
  if (tl_ops[ref->op].imm == TL_IMM_CALL_INDIRECT && ref->space == K_TYPE && ref->index < r->count[K_TYPE])
    r->called[ref->index] = 1;
}

static void push_ref(void *v, const tl_code_ref *ref) { TL_VEC_PUSH((tl_vec *)v, tl_code_ref, *ref); }

static void scan_visit(tl_walk *w, tl_expr **slot) {
  rume *r = w->ctx;
  if (!carries(*slot)) return;
  note(r, *slot);
  TL_VEC_PUSH(&r->refs, tl_expr *, *slot);
}

/* A module-level expression (global init, segment offset or item). */
static void scan(rume *r, tl_expr **e) {
  if (*e) tl_walk_post(r->m, NULL, e, scan_visit, r);
}

/* Collecting one body's nodes that carry an index (on the pool: touches
 * only frefs[i]). */
static void collect_visit(tl_walk *w, tl_expr **slot) {
  if (carries(*slot)) TL_VEC_PUSH((tl_vec *)w->ctx, tl_expr *, *slot);
}

static void collect_one(void *user, uint32_t k) {
  rume *r = user;
  uint32_t i = r->m->nimported_funcs + k;
  tl_func *f = TL_FUNC(r->m, i);
  if (f->lazy) tl_code_refs(r->m, f->code, f->code_size, push_ref, &r->lrefs[i]);
  else if (f->body) tl_walk_post(r->m, f, &f->body, collect_visit, &r->frefs[i]);
}

/* A constant segment offset, else false. */
static bool const_offset(const tl_expr *e, uint64_t *out) {
  if (!e) return false;
  if (e->op == TL_OP_I32_CONST) *out = (uint32_t)e->imm.i32;
  else if (e->op == TL_OP_I64_CONST) *out = (uint64_t)e->imm.i64;
  else return false;
  return true;
}

/* An active segment whose writes only its (defined) table or memory can
 * show, and which cannot trap: not a root. */
static bool elem_unseen(const tl_module *m, uint32_t i) {
  const tl_elem *s = TL_ELEM(m, i);
  uint64_t off;
  if (s->table < m->nimported_tables || s->table >= m->tables.n || !const_offset(s->offset, &off)) return false;
  return off <= TL_TABLE(m, s->table)->min && s->n <= TL_TABLE(m, s->table)->min - off;
}

static bool data_unseen(const tl_module *m, uint32_t i) {
  const tl_data *d = TL_DATA(m, i);
  uint64_t off;
  if (d->mem < m->nimported_memories || d->mem >= m->memories.n || !const_offset(d->offset, &off)) return false;
  const tl_memory *mem = TL_MEMORY(m, d->mem);
  if (mem->min > (UINT64_MAX >> 16)) return false;
  uint64_t bytes = mem->min << 16;
  return off <= bytes && d->size <= bytes - off;
}

static void mark_roots(rume *r) {
  tl_module *m = r->m;
  /* GC types name each other (and nodes name them) by index: they stay */
  if (tl_module_uses_gc(m)) { /* (ref.func's types: the runner retypes them) */
    for (uint32_t i = 0; i < m->types.n; i++) use(r, K_TYPE, i);
    /* elem segments' functions reach code as references too (array.new_elem,
     * call_ref), and call_indirect takes subtypes: each may be called */
    r->open = true;
  }
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    if (x->kind <= TL_EXTERN_TAG) use(r, extern_kinds[x->kind], x->index);
  }
  if (m->has_start) use(r, K_FUNC, m->start);
  for (uint32_t i = 0; i < m->elems.n; i++)
    if (TL_ELEM(m, i)->mode == TL_SEG_ACTIVE && !elem_unseen(m, i)) use(r, K_ELEM, i);
  for (uint32_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->mode == TL_SEG_ACTIVE && !data_unseen(m, i)) use(r, K_DATA, i);
  /* Imports are not roots: an unused one goes, as in wasm-opt (the module
   * then asks less of its host at instantiation). */
}

/* Segments and globals pull in what their expressions use; repeat until
 * nothing new is found. Each expression is scanned once. */
static bool scan_once(rume *r, int kind, uint32_t i) {
  if (!r->used[kind][i] || r->scanned[kind][i]) return false;
  r->scanned[kind][i] = 1;
  return true;
}

static void propagate(rume *r) {
  tl_module *m = r->m;
  bool again = true;
  while (again) {
    again = false;
    while (r->work.n) {
      uint32_t fi = TL_VEC_AT(&r->work, uint32_t, --r->work.n);
      const tl_vec *v = &r->frefs[fi], *l = &r->lrefs[fi];
      for (size_t k = 0; k < v->n; k++) note(r, TL_VEC_AT(v, tl_expr *, k));
      for (size_t k = 0; k < l->n; k++) note_ref(r, &TL_VEC_AT(l, tl_code_ref, k));
    }
    for (uint32_t i = 0; i < m->globals.n; i++)
      if (scan_once(r, K_GLOBAL, i)) {
        scan(r, &TL_GLOBAL(m, i)->init);
        again = true;
      }
    for (uint32_t i = 0; i < m->tables.n; i++)
      if (TL_TABLE(m, i)->init && scan_once(r, K_TABLE, i)) {
        scan(r, &TL_TABLE(m, i)->init);
        again = true;
      }
    /* the active segments left out of the roots, once their table or
       memory is used */
    for (uint32_t i = 0; i < m->elems.n; i++)
      if (TL_ELEM(m, i)->mode == TL_SEG_ACTIVE && r->used[K_TABLE][TL_ELEM(m, i)->table]) use(r, K_ELEM, i);
    for (uint32_t i = 0; i < m->datas.n; i++)
      if (TL_DATA(m, i)->mode == TL_SEG_ACTIVE && r->used[K_MEMORY][TL_DATA(m, i)->mem]) use(r, K_DATA, i);
    for (uint32_t i = 0; i < m->elems.n; i++) {
      tl_elem *s = TL_ELEM(m, i);
      if (!scan_once(r, K_ELEM, i)) continue;
      if (s->mode == TL_SEG_ACTIVE) use(r, K_TABLE, s->table);
      scan(r, &s->offset);
      for (uint32_t j = 0; j < s->n; j++) {
        tl_expr *it = s->item[j];
        if (it && it->op == TL_OP_REF_FUNC) {
          use_elem_func(r, it->imm.index);
          TL_VEC_PUSH(&r->refs, tl_expr *, it);
        } else {
          scan(r, &s->item[j]);
        }
      }
      again = true;
    }
    for (uint32_t i = 0; i < m->datas.n; i++) {
      tl_data *d = TL_DATA(m, i);
      if (!scan_once(r, K_DATA, i)) continue;
      if (d->mode == TL_SEG_ACTIVE) use(r, K_MEMORY, d->mem);
      scan(r, &d->offset);
      again = true;
    }
  }
}

static bool same_sig(tl_module *m, uint32_t a, uint32_t b) {
  return a == b || (TL_FTYPE(m, a)->params == TL_FTYPE(m, b)->params &&
                    TL_FTYPE(m, a)->results == TL_FTYPE(m, b)->results);
}

static bool sig_called(rume *r, uint32_t type) {
  for (uint32_t t = 0; t < r->count[K_TYPE]; t++)
    if (r->called[t] && same_sig(r->m, t, type)) return true;
  return false;
}

/* Propagate until no deferred function can be called any more. */
static void settle(rume *r) {
  tl_module *m = r->m;
  for (uint32_t i = 0; i < m->tables.n; i++)
    if (i < m->nimported_tables) r->open = true;
  for (uint32_t i = 0; i < m->exports.n; i++)
    if (TL_EXPORT(m, i)->kind == TL_EXTERN_TABLE) r->open = true;
  bool more = true;
  while (more) {
    propagate(r);
    more = false;
    for (size_t k = 0; k < r->deferred.n; k++) {
      uint32_t fi = TL_VEC_AT(&r->deferred, uint32_t, k);
      if (r->live[fi] || !(r->open || sig_called(r, TL_FUNC(m, fi)->type))) continue;
      use(r, K_FUNC, fi);
      more = true;
    }
  }
}

/* ref.func $f needs $f declared (an elem segment, export or global): an
 * unused passive, declarative or unseen active segment that declares a function a reachable ref.func
 * names stays, as a declarative segment of just those functions. */
static void keep_declarations(rume *r) {
  tl_module *m = r->m;
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *s = TL_ELEM(m, i);
    if (r->used[K_ELEM][i]) continue; /* (an unused active one: unseen) */
    uint32_t n = 0;
    for (uint32_t j = 0; j < s->n; j++) {
      tl_expr *it = s->item[j];
      if (it && it->op == TL_OP_REF_FUNC && it->imm.index < r->count[K_FUNC] && r->reffed[it->imm.index])
        s->item[n++] = it;
    }
    if (!n) continue;
    s->n = n;
    s->mode = TL_SEG_DECLARATIVE;
    s->offset = NULL;
    s->table = 0;
    r->used[K_ELEM][i] = 1;
    for (uint32_t j = 0; j < n; j++) TL_VEC_PUSH(&r->refs, tl_expr *, s->item[j]); /* renumbered */
  }
}

/* A kept function nothing can call: its body becomes unreachable (unless
 * it is already empty and has no locals: `unreachable` would add a byte). */
static void empty_body(tl_module *m, tl_func *f) {
  uint32_t np = tl_func_nparams(m, f);
  if (f->body && f->body->nkid == 0 && f->nlocal == np) return;
  if (f->lazy && f->code_size == 2 && f->code[0] == 0 && f->code[1] == 0x0b) return; /* the same, as bytes */
  f->nlocal = np;
  if (f->has_scratch_base && f->scratch_base > np) f->scratch_base = np;
  f->nlabel = 1;
  f->lazy = false;
  tl_expr *u = tl_make_unreachable(m);
  f->body = tl_make_block(m, TL_OP_BLOCK, 0, &u, 1);
  f->code = NULL;
  f->code_size = 0;
  tl_func_refinalize(m, f);
}

static void rewrite(rume *r, tl_expr *e) {
  uint32_t *const *mp = r->remap;
  switch (tl_ops[e->op].imm) {
  case TL_IMM_FUNC: e->imm.index = mp[K_FUNC][e->imm.index]; break;
  case TL_IMM_GLOBAL: e->imm.index = mp[K_GLOBAL][e->imm.index]; break;
  case TL_IMM_TABLE: e->imm.index = mp[K_TABLE][e->imm.index]; break;
  case TL_IMM_CALL_INDIRECT:
    e->imm.idx2.a = mp[K_TYPE][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_TABLE][e->imm.idx2.b];
    break;
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: e->imm.mem.mem = mp[K_MEMORY][e->imm.mem.mem]; break;
  case TL_IMM_MEM: e->imm.index = mp[K_MEMORY][e->imm.index]; break;
  case TL_IMM_MEM_COPY:
    e->imm.idx2.a = mp[K_MEMORY][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_MEMORY][e->imm.idx2.b];
    break;
  case TL_IMM_MEM_INIT:
    e->imm.idx2.a = mp[K_DATA][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_MEMORY][e->imm.idx2.b];
    break;
  case TL_IMM_DATA: e->imm.index = mp[K_DATA][e->imm.index]; break;
  case TL_IMM_ELEM: e->imm.index = mp[K_ELEM][e->imm.index]; break;
  case TL_IMM_TABLE_INIT:
    e->imm.idx2.a = mp[K_ELEM][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_TABLE][e->imm.idx2.b];
    break;
  case TL_IMM_TABLE_COPY:
    e->imm.idx2.a = mp[K_TABLE][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_TABLE][e->imm.idx2.b];
    break;
  case TL_IMM_BLOCK: case TL_IMM_TRY_TABLE:
    if (e->imm.block.bt != TL_NO_INDEX) e->imm.block.bt = mp[K_TYPE][e->imm.block.bt];
    break;
  case TL_IMM_TAG: e->imm.index = mp[K_TAG][e->imm.index]; break;
  case TL_IMM_TYPE: e->imm.index = mp[K_TYPE][e->imm.index]; break;
  case TL_IMM_CATCH: case TL_IMM_CLAUSE: e->imm.idx2.b = mp[K_TAG][e->imm.idx2.b]; break;
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: e->imm.idx2.a = mp[K_TYPE][e->imm.idx2.a]; break;
  case TL_IMM_TYPE_DATA:
    e->imm.idx2.a = mp[K_TYPE][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_DATA][e->imm.idx2.b];
    break;
  case TL_IMM_TYPE_ELEM:
    e->imm.idx2.a = mp[K_TYPE][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_ELEM][e->imm.idx2.b];
    break;
  case TL_IMM_TYPE_TYPE:
    e->imm.idx2.a = mp[K_TYPE][e->imm.idx2.a];
    e->imm.idx2.b = mp[K_TYPE][e->imm.idx2.b];
    break;
  default: break;
  }
}

/* Keep the used entries of one index space, in order; fill its remap. */
static void compact(rume *r, int kind, tl_vec *v, size_t elem) {
  uint32_t out = 0;
  for (size_t i = 0; i < v->n; i++) {
    r->remap[kind][i] = out;
    if (!r->used[kind][i]) {
      if (kind == K_FUNC) tl_func_forget_locs((tl_func *)((char *)v->p + i * elem)); /* its locations go too */
      continue;
    }
    if (out != i) memmove((char *)v->p + out * elem, (char *)v->p + i * elem, elem);
    out++;
  }
  v->n = out;
}

static uint32_t count_used(rume *r, int kind, uint32_t below) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < below; i++) n += r->used[kind][i];
  return n;
}

/* A kept lazy body's bytes with the renumbered spaces' indices rewritten
 * (changed[k]: space k was renumbered). */
static void remap_lazy(rume *r, tl_func *f, const bool *changed) {
  uint32_t *map[NKINDS] = {0};
  for (int k = 0; k < NKINDS; k++)
    if (changed[k]) map[k] = r->remap[k];
  tl_func_remap_code(r->m, f, map);
}

static void rewrite_all(rume *r, bool renumbered, const bool *changed) {
  tl_module *m = r->m;
  if (!renumbered) return;
  for (uint32_t i = 0; i < m->funcs.n; i++) TL_FUNC(m, i)->type = r->remap[K_TYPE][TL_FUNC(m, i)->type];
  for (size_t i = 0; i < r->refs.n; i++) rewrite(r, TL_VEC_AT(&r->refs, tl_expr *, i));
  for (uint32_t i = 0; i < r->count[K_FUNC]; i++) {
    if (!r->live[i]) continue; /* dropped, or its old body gone (empty_body) */
    const tl_vec *v = &r->frefs[i];
    for (size_t k = 0; k < v->n; k++) rewrite(r, TL_VEC_AT(v, tl_expr *, k));
    if (r->lrefs[i].n) remap_lazy(r, TL_FUNC(m, r->remap[K_FUNC][i]), changed);
  }
  for (uint32_t i = 0; i < m->elems.n; i++) TL_ELEM(m, i)->table = r->remap[K_TABLE][TL_ELEM(m, i)->table];
  for (uint32_t i = 0; i < m->datas.n; i++) TL_DATA(m, i)->mem = r->remap[K_MEMORY][TL_DATA(m, i)->mem];
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    if (x->kind <= TL_EXTERN_TAG) x->index = r->remap[extern_kinds[x->kind]][x->index];
  }
  for (uint32_t i = 0; i < m->tags.n; i++) TL_TAG(m, i)->type = r->remap[K_TYPE][TL_TAG(m, i)->type];
  if (m->has_start) m->start = r->remap[K_FUNC][m->start];
}

tl_status tl_pass_remove_unused_module_elements(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  rume r = {.m = m, .count = {m->funcs.n, m->globals.n, m->tables.n, m->memories.n, m->elems.n,
                              m->datas.n, m->types.n, m->tags.n}};
  r.live = tl_calloc(m->funcs.n + 1, 1);
  r.reffed = tl_calloc(m->funcs.n + 1, 1);
  r.called = tl_calloc(m->types.n + 1, 1);
  r.frefs = tl_calloc(m->funcs.n + 1, sizeof *r.frefs);
  r.lrefs = tl_calloc(m->funcs.n + 1, sizeof *r.lrefs);
  for (int k = 0; k < NKINDS; k++) {
    r.used[k] = tl_calloc(r.count[k] + 1, 1);
    r.scanned[k] = tl_calloc(r.count[k] + 1, 1);
    r.remap[k] = tl_calloc(r.count[k] + 1, sizeof(uint32_t));
    if (!r.used[k] || !r.scanned[k] || !r.remap[k] || !r.live || !r.reffed || !r.called || !r.frefs || !r.lrefs) {
      for (int j = 0; j <= k; j++) {
        tl_free(r.used[j]);
        tl_free(r.scanned[j]);
        tl_free(r.remap[j]);
      }
      tl_free(r.live);
      tl_free(r.reffed);
      tl_free(r.called);
      tl_free(r.frefs);
      tl_free(r.lrefs);
      return TL_E_NOMEM;
    }
  }
  tl_run_parallel(ctx, (uint32_t)(m->funcs.n - m->nimported_funcs), collect_one, &r);
  mark_roots(&r);
  settle(&r);
  keep_declarations(&r);
  for (size_t k = 0; k < r.deferred.n; k++) {
    uint32_t fi = TL_VEC_AT(&r.deferred, uint32_t, k);
    if (!r.live[fi]) empty_body(m, TL_FUNC(m, fi));
  }
  tl_vec *vecs[NKINDS] = {&m->funcs, &m->globals, &m->tables, &m->memories, &m->elems, &m->datas, &m->types,
                          &m->tags};
  size_t sizes[NKINDS] = {sizeof(tl_func), sizeof(tl_global), sizeof(tl_table), sizeof(tl_memory),
                          sizeof(tl_elem), sizeof(tl_data), sizeof(tl_functype), sizeof(tl_tag)};
  m->nimported_funcs = count_used(&r, K_FUNC, m->nimported_funcs);
  m->nimported_globals = count_used(&r, K_GLOBAL, m->nimported_globals);
  m->nimported_tables = count_used(&r, K_TABLE, m->nimported_tables);
  m->nimported_memories = count_used(&r, K_MEMORY, m->nimported_memories);
  m->nimported_tags = count_used(&r, K_TAG, m->nimported_tags);
  bool renumbered = false, changed[NKINDS];
  for (int k = 0; k < NKINDS; k++) {
    size_t before = vecs[k]->n;
    compact(&r, k, vecs[k], sizes[k]);
    renumbered |= changed[k] = vecs[k]->n != before;
  }
  if (changed[K_TYPE]) tl_types_rehash(m);
  rewrite_all(&r, renumbered, changed);
  for (int k = 0; k < NKINDS; k++) {
    tl_free(r.used[k]);
    tl_free(r.scanned[k]);
    tl_free(r.remap[k]);
  }
  tl_vec_free(&r.work);
  tl_vec_free(&r.refs);
  for (size_t i = 0; i < r.count[K_FUNC]; i++) tl_vec_free(&r.frefs[i]), tl_vec_free(&r.lrefs[i]);
  tl_free(r.frefs);
  tl_free(r.lrefs);
  tl_vec_free(&r.deferred);
  tl_free(r.live);
  tl_free(r.reffed);
  tl_free(r.called);
  return TL_OK;
}
