/* link.c — the runtime's linker and instantiation, shared by both engines:
 * resolving imports by module/name and type, evaluating constant
 * expressions (extended-const included), applying active segments in order
 * with bounds checks, running the start function, and exports. */
#include "runtime.h"

#include <inttypes.h>
#include <stdlib.h>

/* Linker names are byte strings of explicit length (may hold NULs), copied
 * with a NUL after the bytes. */
typedef struct { char *module, *name; uint32_t module_len, name_len; tl_extern x; } lnk_entry;
typedef struct { char *module; uint32_t module_len; tl_host_fn fn; void *user; } lnk_fallback;
/* oom: a definition was lost to a failed allocation (the define calls
 * return nothing); instantiating with this linker fails with TL_E_NOMEM. */
struct tl_linker { tl_vec defs; tl_vec fallbacks; bool oom; };

/* ----------------------------------------------------------------- linker */
static char *dup_n(const char *s, size_t n) {
  char *d = tl_scratch_realloc(NULL, n + 1, 1);
  if (!d) return NULL;
  if (n) memcpy(d, s, n);
  d[n] = 0;
  return d;
}

/* Does IR name (p, plen: see tl_name_len) equal the bytes q[0..qn)? */
static bool name_is(const char *p, uint32_t plen, const char *q, size_t qn) {
  plen = tl_name_len(p, plen);
  return plen == qn && (!qn || !memcmp(p, q, qn));
}

tl_linker *tl_linker_new(void) { return tl_calloc(1, sizeof(tl_linker)); }

void tl_linker_free(tl_linker *l) {
  if (!l) return;
  for (size_t i = 0; i < l->defs.n; i++) {
    tl_free(TL_VEC_AT(&l->defs, lnk_entry, i).module);
    tl_free(TL_VEC_AT(&l->defs, lnk_entry, i).name);
  }
  for (size_t i = 0; i < l->fallbacks.n; i++) tl_free(TL_VEC_AT(&l->fallbacks, lnk_fallback, i).module);
  tl_vec_free(&l->defs);
  tl_vec_free(&l->fallbacks);
  tl_free(l);
}

/* x.ptr NULL: the host object could not be made (out of memory), which
 * instantiating with l then reports. */
void tl_linker_define_n(tl_linker *l, const char *module, size_t module_len, const char *name,
                        size_t name_len, tl_extern x) {
  if (!x.ptr) {
    l->oom = true;
    return;
  }
  lnk_entry e = {dup_n(module, module_len), dup_n(name, name_len), (uint32_t)module_len,
                 (uint32_t)name_len, x};
  if (!e.module || !e.name) {
    tl_free(e.module);
    tl_free(e.name);
    l->oom = true;
    return;
  }
  if (!tl_vec_try_grow(&l->defs, sizeof e, l->defs.n + 1)) {
    tl_free(e.module);
    tl_free(e.name);
    l->oom = true;
    return;
  }
  TL_VEC_AT(&l->defs, lnk_entry, l->defs.n++) = e;
}

void tl_linker_define(tl_linker *l, const char *module, const char *name, tl_extern x) {
  tl_linker_define_n(l, module, strlen(module), name, strlen(name), x);
}

static tl_extern export_of(tl_instance *inst, const tl_export *e) {
  switch (e->kind) {
  case TL_EXTERN_FUNC: return (tl_extern){TL_EXTERNKIND_FUNC, inst->funcs[e->index]};
  case TL_EXTERN_TABLE: return (tl_extern){TL_EXTERNKIND_TABLE, inst->tables[e->index]};
  case TL_EXTERN_MEMORY: return (tl_extern){TL_EXTERNKIND_MEMORY, inst->mems[e->index]};
  case TL_EXTERN_TAG: return (tl_extern){TL_EXTERNKIND_TAG, inst->tags[e->index]};
  default: return (tl_extern){TL_EXTERNKIND_GLOBAL, inst->globals[e->index]};
  }
}

void tl_linker_define_instance(tl_linker *l, const char *module, tl_instance *inst) {
  for (size_t i = 0; i < inst->m->exports.n; i++) {
    const tl_export *e = TL_EXPORT(inst->m, i);
    tl_linker_define_n(l, module, strlen(module), e->name, tl_name_len(e->name, e->name_len),
                       export_of(inst, e));
  }
}

void tl_linker_define_fallback(tl_linker *l, const char *module, tl_host_fn fn, void *user) {
  lnk_fallback f = {dup_n(module, strlen(module)), (uint32_t)strlen(module), fn, user};
  if (!f.module || !tl_vec_try_grow(&l->fallbacks, sizeof f, l->fallbacks.n + 1)) {
    tl_free(f.module);
    l->oom = true;
    return;
  }
  TL_VEC_AT(&l->fallbacks, lnk_fallback, l->fallbacks.n++) = f;
}

static bool lookup(tl_linker *l, const tl_importname *imp, tl_extern *out) {
  for (size_t i = l ? l->defs.n : 0; i-- > 0;) {
    lnk_entry *e = &TL_VEC_AT(&l->defs, lnk_entry, i);
    if (name_is(imp->module, imp->module_len, e->module, e->module_len) &&
        name_is(imp->name, imp->name_len, e->name, e->name_len)) {
      *out = e->x;
      return true;
    }
  }
  return false;
}

/* ---------------------------------------------------------- instantiation */
static void make_sig(tl_store *s, tl_module *m, uint32_t ti, tl_funcinst *out) {
  tl_functype *ft = TL_FTYPE(m, ti);
  out->np = tl_type_arity(m, ft->params);
  out->nr = tl_type_arity(m, ft->results);
  out->types = TL_NEWN(&s->arena, uint32_t, out->np + out->nr + 1);
  for (uint32_t i = 0; i < out->np; i++) out->types[i] = tl_type_at(m, ft->params, i);
  for (uint32_t i = 0; i < out->nr; i++) out->types[out->np + i] = tl_type_at(m, ft->results, i);
  out->plain = ft->nrec == 1 && !ft->open && ft->super == TL_NO_SUPER;
  for (uint32_t i = 0; i < out->np + out->nr; i++)
    if (out->types[i] >= TL_REF_BASE && tl_heap_is_def(tl_ref_heap(out->types[i]))) out->plain = false;
}

/* Types of two modules that are the same type (mutable globals, tables). */
static bool same_type(const tl_module *ma, tl_type a, const tl_module *mb, tl_type b) {
  return tl_type_sub_across(ma, a, mb, b) && tl_type_sub_across(mb, b, ma, a);
}

static tl_status link_fail(tl_error *err, const tl_importname *imp, const char *why) {
  return tl_errorf(err, TL_E_LINK, TL_NO_OFFSET, "%s: %s.%s", why, imp->module, imp->name);
}

static tl_status link_funcs(tl_instance *inst, tl_linker *l, tl_error *err) {
  tl_module *m = inst->m;
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    tl_funcinst *sig = &inst->sigs[f->type];
    if (i >= m->nimported_funcs) {
      tl_funcinst *fi = TL_NEW(&inst->s->arena, tl_funcinst);
      *fi = *sig;
      fi->inst = inst;
      fi->index = i;
      inst->funcs[i] = fi;
      continue;
    }
    tl_extern x;
    if (lookup(l, &f->imp, &x)) {
      if (x.kind != TL_EXTERNKIND_FUNC || !tl_interp_sig_eq(x.ptr, sig))
        return link_fail(err, &f->imp, "incompatible import type");
      inst->funcs[i] = x.ptr;
      continue;
    }
    lnk_fallback *fb = NULL;
    for (size_t k = 0; l && k < l->fallbacks.n; k++)
      if (name_is(f->imp.module, f->imp.module_len, TL_VEC_AT(&l->fallbacks, lnk_fallback, k).module,
                  TL_VEC_AT(&l->fallbacks, lnk_fallback, k).module_len))
        fb = &TL_VEC_AT(&l->fallbacks, lnk_fallback, k);
    if (!fb) return link_fail(err, &f->imp, "unknown import");
    inst->funcs[i] = tl_store_func_new(inst->s, sig->types, sig->np, sig->types + sig->np, sig->nr, fb->fn,
                               fb->user);
    if (!inst->funcs[i]) return tl_nomem(err, "instantiate");
    inst->funcs[i]->rtt = sig->rtt, inst->funcs[i]->plain = sig->plain;
  }
  return TL_OK;
}

/* Imported limits {n, max?} must fit within the declared {min, max?}. */
static bool limits_ok(uint64_t n, bool has_max, uint64_t max, uint64_t min, bool want_max,
                      uint64_t want) {
  if (n < min) return false;
  if (!want_max) return true;
  return has_max && max <= want;
}

static tl_status link_tables_mems(tl_instance *inst, tl_linker *l, tl_error *err) {
  tl_module *m = inst->m;
  for (uint32_t i = 0; i < m->tables.n; i++) {
    tl_table *t = TL_TABLE(m, i);
    if (i >= m->nimported_tables) {
      if (!(inst->tables[i] = tl_store_table_new(inst->s, t->elem, t->min, t->max, t->has_max)))
        return t->min > 10000000 ? tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "table too large")
                                 : tl_nomem(err, "instantiate");
      inst->tables[i]->is64 = t->is64;
      inst->tables[i]->m = m;
      continue;
    }
    tl_extern x;
    if (!lookup(l, &t->imp, &x)) return link_fail(err, &t->imp, "unknown import");
    tl_tableinst *ti = x.ptr;
    if (x.kind != TL_EXTERNKIND_TABLE || !same_type(ti->m, ti->elem, m, t->elem) || ti->is64 != t->is64 ||
        !limits_ok(ti->n, ti->has_max, ti->max, t->min, t->has_max, t->max))
      return link_fail(err, &t->imp, "incompatible import type");
    inst->tables[i] = ti;
  }
  for (uint32_t i = 0; i < m->memories.n; i++) {
    tl_memory *mem = TL_MEMORY(m, i);
    if (i >= m->nimported_memories) {
      if (!(inst->mems[i] = mem->is64 ? tl_store_mem64_new(inst->s, mem->min, mem->max, mem->has_max, mem->shared)
                                      : tl_store_mem_new(inst->s, mem->min, mem->max, mem->has_max, mem->shared)))
        return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory (memory %u: %" PRIu64 " pages)", i,
                         mem->min);
      continue;
    }
    tl_extern x;
    if (!lookup(l, &mem->imp, &x)) return link_fail(err, &mem->imp, "unknown import");
    tl_meminst *mi = x.ptr;
    if (x.kind != TL_EXTERNKIND_MEMORY || mi->shared != mem->shared || mi->is64 != mem->is64 ||
        !limits_ok(mi->pages, mi->has_max, mi->max, mem->min, mem->has_max, mem->max))
      return link_fail(err, &mem->imp, "incompatible import type");
    inst->mems[i] = mi;
  }
  return TL_OK;
}

/* Constant expressions: a post-order walk with a value stack. */
typedef struct { tl_instance *inst; tl_vec st; bool bad, oom; } cexpr;

/* The GC instructions of constant expressions: they allocate (no
 * collection runs during instantiation: the walk's stack is no root).
 * Pops their operands off c->st into *v; false when c is bad or out of memory. */
static bool cexpr_gc(cexpr *c, tl_expr *e, tl_v *v) {
  tl_v *st = c->st.p;
  size_t n = c->st.n;
  tl_store *s = c->inst->s;
  tl_gcobj *o = NULL;
  switch (e->op) {
  case TL_OP_REF_I31: if (!n) return false; v->i64 = (uint64_t)(st[n - 1].i32 & 0x7fffffffu) << 1 | 1; c->st.n--; return true;
  case TL_OP_ANY_CONVERT_EXTERN: case TL_OP_EXTERN_CONVERT_ANY:
    if (!n) return false;
    v->i64 = tl_gc_convert(st[n - 1].i64);
    c->st.n--;
    return true;
  case TL_OP_STRUCT_NEW: case TL_OP_STRUCT_NEW_DEFAULT: {
    const tl_rtt *t = tl_gc_rtt(c->inst, e->imm.index);
    uint32_t k = e->op == TL_OP_STRUCT_NEW ? t->nfields : 0;
    if (n < k) return false;
    o = tl_gc_struct_new(s, t, k ? st + n - k : NULL, NULL);
    c->st.n -= k;
    break;
  }
  case TL_OP_ARRAY_NEW: case TL_OP_ARRAY_NEW_DEFAULT: {
    uint32_t k = e->op == TL_OP_ARRAY_NEW ? 2 : 1;
    if (n < k) return false;
    o = tl_gc_array_new(s, tl_gc_rtt(c->inst, e->imm.index), st[n - 1].i32, k == 2 ? &st[n - 2] : NULL, NULL, NULL);
    c->st.n -= k;
    break;
  }
  case TL_OP_ARRAY_NEW_FIXED: {
    uint32_t k = e->imm.idx2.b;
    if (n < k) return false;
    o = tl_gc_array_new(s, tl_gc_rtt(c->inst, e->imm.idx2.a), k, NULL, st + n - k, NULL);
    c->st.n -= k;
    break;
  }
  default: return false;
  }
  if (!o) c->oom = true;
  v->i64 = (uint64_t)(uintptr_t)o;
  return o != NULL;
}

static void cexpr_visit(tl_walk *w, tl_expr **slot) {
  cexpr *c = w->ctx;
  tl_expr *e = *slot;
  tl_v v, *top = c->st.n ? &TL_VEC_AT(&c->st, tl_v, c->st.n - 1) : NULL;
  memset(&v, 0, sizeof v);
  switch (e->op) {
  case TL_OP_I32_CONST: v.i32 = (uint32_t)e->imm.i32; break;
  case TL_OP_I64_CONST: v.i64 = (uint64_t)e->imm.i64; break;
  case TL_OP_F32_CONST: v.i32 = e->imm.f32; break;
  case TL_OP_F64_CONST: v.i64 = e->imm.f64; break;
  case TL_OP_V128_CONST: memcpy(v.b, e->imm.v128, 16); break;
  case TL_OP_REF_NULL: v.ref = NULL; break;
  case TL_OP_REF_FUNC: v.ref = c->inst->funcs[e->imm.index]; break;
  case TL_OP_GLOBAL_GET: v = c->inst->globals[e->imm.index]->v; break;
  case TL_OP_I32_ADD: case TL_OP_I32_SUB: case TL_OP_I32_MUL:
  case TL_OP_I64_ADD: case TL_OP_I64_SUB: case TL_OP_I64_MUL: {
    if (c->st.n < 2) { c->bad = true; return; }
    tl_v b = *top, a = top[-1];
    c->st.n -= 2;
    switch (e->op) {
    case TL_OP_I32_ADD: v.i32 = a.i32 + b.i32; break;
    case TL_OP_I32_SUB: v.i32 = a.i32 - b.i32; break;
    case TL_OP_I32_MUL: v.i32 = a.i32 * b.i32; break;
    case TL_OP_I64_ADD: v.i64 = a.i64 + b.i64; break;
    case TL_OP_I64_SUB: v.i64 = a.i64 - b.i64; break;
    default: v.i64 = a.i64 * b.i64; break;
    }
    break;
  }
  default:
    if (!tl_op_is_gc(e->op) || !cexpr_gc(c, e, &v)) {
      c->bad = true;
      return;
    }
    break;
  }
  if (!tl_vec_try_grow(&c->st, sizeof v, c->st.n + 1)) {
    c->bad = c->oom = true;
    return;
  }
  TL_VEC_AT(&c->st, tl_v, c->st.n++) = v;
}

static tl_status eval_const(tl_instance *inst, tl_expr *e, tl_v *out, tl_error *err) {
  cexpr c = {inst, {0}, false, false};
  tl_expr *root = e;
  tl_walk_post(inst->m, NULL, &root, cexpr_visit, &c);
  bool ok = !c.bad && c.st.n == 1;
  if (ok) *out = TL_VEC_AT(&c.st, tl_v, 0);
  tl_vec_free(&c.st);
  if (c.oom) return tl_nomem(err, "instantiate");
  if (!ok) return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "unsupported constant expression");
  return TL_OK;
}

static tl_status link_globals(tl_instance *inst, tl_linker *l, tl_error *err) {
  tl_module *m = inst->m;
  for (uint32_t i = 0; i < m->globals.n; i++) {
    tl_global *g = TL_GLOBAL(m, i);
    if (i >= m->nimported_globals) {
      tl_globalinst *gi = TL_NEW(&inst->s->arena, tl_globalinst);
      gi->type = g->type;
      gi->mut = g->mut;
      gi->m = m;
      inst->globals[i] = gi;
      tl_status st = eval_const(inst, g->init, &gi->v, err);
      if (st) return st;
      continue;
    }
    tl_extern x;
    if (!lookup(l, &g->imp, &x)) return link_fail(err, &g->imp, "unknown import");
    tl_globalinst *gi = x.ptr;
    if (x.kind != TL_EXTERNKIND_GLOBAL || gi->mut != g->mut ||
        !(gi->mut ? same_type(gi->m, gi->type, m, g->type) : tl_type_sub_across(gi->m, gi->type, m, g->type)))
      return link_fail(err, &g->imp, "incompatible import type");
    inst->globals[i] = gi;
  }
  return TL_OK;
}

/* Tags: a defined tag is a new tag instance; an imported one is the
 * exporter's (same signature), so exceptions match across instances. */
static tl_status link_tags(tl_instance *inst, tl_linker *l, tl_error *err) {
  tl_module *m = inst->m;
  for (uint32_t i = 0; i < m->tags.n; i++) {
    tl_tag *t = TL_TAG(m, i);
    const tl_funcinst *sig = &inst->sigs[t->type];
    if (i >= m->nimported_tags) {
      tl_taginst *ti = TL_NEW(&inst->s->arena, tl_taginst);
      *ti = (tl_taginst){inst, i, sig};
      inst->tags[i] = ti;
      continue;
    }
    tl_extern x;
    if (!lookup(l, &t->imp, &x)) return link_fail(err, &t->imp, "unknown import");
    tl_taginst *ti = x.ptr;
    if (x.kind != TL_EXTERNKIND_TAG || !tl_interp_sig_eq(ti->sig, sig) || !tl_interp_sig_eq(sig, ti->sig))
      return link_fail(err, &t->imp, "incompatible import type");
    inst->tags[i] = ti;
  }
  return TL_OK;
}

/* Defined tables with an initializer: every element its value (after the
 * globals, which it may read). */
static tl_status init_tables(tl_instance *inst, tl_error *err) {
  tl_module *m = inst->m;
  for (uint32_t i = m->nimported_tables; i < m->tables.n; i++) {
    tl_table *t = TL_TABLE(m, i);
    if (!t->init) continue;
    tl_v v = {0};
    tl_status st = eval_const(inst, t->init, &v, err);
    if (st) return st;
    tl_tableinst *ti = inst->tables[i];
    for (uint32_t k = 0; k < ti->n; k++) ti->e[k] = v.ref;
  }
  return TL_OK;
}

static tl_status init_segments(tl_instance *inst, tl_error *err) {
  tl_module *m = inst->m;
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    inst->elem[i] = TL_NEWN(&inst->s->arena, void *, el->n + 1);
    inst->elem_n[i] = el->n;
    for (uint32_t k = 0; k < el->n; k++) {
      tl_v v = {0};
      tl_status st = eval_const(inst, el->item[k], &v, err);
      if (st) return st;
      inst->elem[i][k] = v.ref;
    }
  }
  for (uint32_t i = 0; i < m->datas.n; i++) inst->data_n[i] = TL_DATA(m, i)->size;
  for (uint32_t i = 0; i < m->elems.n; i++) {
    tl_elem *el = TL_ELEM(m, i);
    if (el->mode == TL_SEG_ACTIVE) {
      tl_v off = {0};
      tl_status st = eval_const(inst, el->offset, &off, err);
      if (st) return st;
      tl_tableinst *t = inst->tables[el->table];
      uint64_t at = t->is64 ? off.i64 : off.i32;
      if (at > t->n || t->n - at < el->n)
        return tl_errorf(err, TL_E_TRAP, TL_NO_OFFSET, "out of bounds table access");
      if (el->n) memcpy(t->e + at, inst->elem[i], el->n * sizeof(void *));
    }
    if (el->mode != TL_SEG_PASSIVE) inst->elem_n[i] = 0;
  }
  for (uint32_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    if (d->mode != TL_SEG_ACTIVE) continue;
    tl_v off = {0};
    tl_status st = eval_const(inst, d->offset, &off, err);
    if (st) return st;
    tl_meminst *mm = inst->mems[d->mem];
    uint64_t at = mm->is64 ? off.i64 : off.i32;
    if (at > mm->pages * TL_PAGE || mm->pages * TL_PAGE - at < d->size)
      return tl_errorf(err, TL_E_TRAP, TL_NO_OFFSET, "out of bounds memory access");
    if (d->size) memcpy(mm->data + at, d->bytes, d->size);
    inst->data_n[i] = 0;
  }
  return TL_OK;
}

tl_instance *tl_instance_new(tl_store *s, tl_module *m) {
  tl_instance *inst = TL_NEW(&s->arena, tl_instance);
  inst->s = s;
  inst->m = m;
  inst->funcs = TL_NEWN(&s->arena, tl_funcinst *, m->funcs.n + 1);
  inst->tables = TL_NEWN(&s->arena, tl_tableinst *, m->tables.n + 1);
  inst->mems = TL_NEWN(&s->arena, tl_meminst *, m->memories.n + 1);
  inst->globals = TL_NEWN(&s->arena, tl_globalinst *, m->globals.n + 1);
  inst->tags = TL_NEWN(&s->arena, tl_taginst *, m->tags.n + 1);
  inst->sigs = TL_NEWN(&s->arena, tl_funcinst, m->types.n + 1);
  inst->elem = TL_NEWN(&s->arena, void **, m->elems.n + 1);
  inst->elem_n = TL_NEWN(&s->arena, uint32_t, m->elems.n + 1);
  inst->data_n = TL_NEWN(&s->arena, uint32_t, m->datas.n + 1);
  inst->code = TL_NEWN(&s->arena, tl_code *, m->funcs.n + 1);
  for (uint32_t i = 0; i < m->types.n; i++) make_sig(s, m, i, &inst->sigs[i]);
  inst->next = s->insts;
  s->insts = inst;
  tl_gc_instance_types(inst);   /* runtime types: casts, call_indirect and imports match by them */
  return inst;
}

/* Linking allocates from the store's arena and evaluates constant
 * expressions: out of memory anywhere in it (the arena, a walk's stack) is
 * caught here (tl_oom_worker) and returned as TL_E_NOMEM; what was
 * allocated stays the store's. The start function runs outside, as it runs
 * host code. */
typedef struct {
  tl_store *s;
  tl_module *m;
  tl_linker *l;
  tl_error *err;
  tl_instance *inst;
} link_call;

static void link_run(void *arg) {
  link_call *k = arg;
  tl_instance *inst = tl_instance_new(k->s, k->m);
  tl_status st;
  if ((st = link_funcs(inst, k->l, k->err)) || (st = link_tables_mems(inst, k->l, k->err)) ||
      (st = link_globals(inst, k->l, k->err)) || (st = link_tags(inst, k->l, k->err)) ||
      (st = init_tables(inst, k->err)) || (st = init_segments(inst, k->err)))
    return;
  k->inst = inst;
}

static tl_instance *link_instance(tl_store *s, tl_module *m, tl_linker *l, tl_error *err) {
  link_call k = {s, m, l, err, NULL};
  tl_oom_ctx here = tl_oom_here();
  if (!tl_oom_worker(&here, link_run, &k)) {
    tl_nomem(err, "instantiate");
    return NULL;
  }
  return k.inst;
}

static tl_status decode_in_scope(void *m, tl_error *err) { return tl_module_decode_all(m, err); }

tl_instance *tl_instantiate(tl_store *s, tl_module *m, tl_linker *l, tl_error *err) {
  if (!tl_interp_stacks_ready(s) || (l && l->oom)) {
    tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
    return NULL;
  }
  /* lazy bodies (tl_read_options.lazy_bodies): the interpreter runs IR; the
   * JIT compiles the bytes */
  if (s->engine != TL_ENGINE_JIT && tl_module_has_lazy(m) &&
      tl_oom_run(m, decode_in_scope, m, err, "decode") != TL_OK)
    return NULL;
  if (s->engine == TL_ENGINE_JIT && tl_module_uses_gc(m)) {
    tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
              "the JIT does not run typed references or gc yet; use the interpreter (--interp)");
    return NULL;
  }
  tl_instance *inst = link_instance(s, m, l, err);
  if (!inst) return NULL;
  if (m->has_start) {
    tl_funcinst *f = inst->funcs[m->start];
    tl_v dummy[1];
    if (tl_interp_run(s, f, dummy, dummy, err)) return NULL;
  }
  return inst;
}

tl_status tl_instance_export(tl_instance *inst, const char *name, tl_extern *out) {
  return tl_instance_export_n(inst, name, strlen(name), out);
}

tl_status tl_instance_export_n(tl_instance *inst, const char *name, size_t len, tl_extern *out) {
  for (size_t i = 0; i < inst->m->exports.n; i++) {
    const tl_export *e = TL_EXPORT(inst->m, i);
    if (name_is(e->name, e->name_len, name, len)) {
      *out = export_of(inst, e);
      return TL_OK;
    }
  }
  return TL_E_LINK;
}

/* Function `index` of the instance's function space (internal: passes that
 * evaluate scratch modules call functions without exporting them). */
tl_status tl_instance_func(tl_instance *inst, uint32_t index, tl_extern *out) {
  if (index >= inst->m->funcs.n) return TL_E_LINK;
  *out = (tl_extern){TL_EXTERNKIND_FUNC, inst->funcs[index]};
  return TL_OK;
}

