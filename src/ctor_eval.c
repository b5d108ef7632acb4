/* ctor_eval.c — Binaryen's wasm-ctor-eval (emcc -sEVAL_CTORS): run the
 * named exports (the global constructors, main) at build time in the
 * reference interpreter and keep what they did: memory as it ends up
 * becomes the data segments, mutable globals take their new values, the
 * evaluated exports are removed (a kept one returns its results as
 * constants). A call to an import, a trap, running out of fuel or anything
 * whose result cannot be written back stops the evaluation there, keeping
 * the exports evaluated before it. The export it stopped in is evaluated
 * in part where its body is a list of statements (as Binaryen does; emcc's
 * __wasm_call_ctors is a list of calls): the statements before the one
 * that failed are kept as done, and the export then names a copy of the
 * function holding the rest. Partial evaluation takes functions without
 * params, results or locals whose statements neither return nor branch out
 * of the body. */
#include "ir/ir.h"
#include "passes/passes.h"
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_value res[64];         /* an evaluated export's results */
  uint32_t nres;
} outcome;

typedef struct {
  tl_module *m;
  const tl_ctor_eval_options *o;
  tl_buf *log;
  uint8_t *mem;             /* the last good state: memory 0's bytes */
  uint64_t pages;
  tl_v *globals;            /* and every global's value */
  outcome *done;            /* per evaluated export, in order */
  uint32_t ndone;
  uint32_t nparts;          /* statements of export ndone evaluated (partial) */
} ce;

/* Scratch that runs out of memory ends the call (tl_oom_run's scope). */
static void *must(void *p) {
  if (!p) tl_oom_fail();
  return p;
}

/* ---- what can be evaluated and written back -------------------------------- */

/* Ops whose effects on tables and segments could not be written back. */
static bool unsupported_op(tl_op op) {
  switch (op) {
  case TL_OP_TABLE_SET: case TL_OP_TABLE_GROW: case TL_OP_TABLE_FILL: case TL_OP_TABLE_COPY:
  case TL_OP_TABLE_INIT: case TL_OP_ELEM_DROP: case TL_OP_DATA_DROP: case TL_OP_MEMORY_INIT:
    return true;
  default: return false;
  }
}

static void find_unsupported(tl_walk *w, tl_expr **slot) {
  const char **what = w->ctx;
  if (!*what && unsupported_op((*slot)->op)) *what = tl_ops[(*slot)->op].text;
}

/* Why the module cannot be evaluated at all, or NULL. */
static const char *module_refused(tl_module *m) {
  if (m->nimported_memories || m->nimported_tables || m->nimported_globals)
    return "imports a memory, table or global (its contents are not known)";
  if (m->memories.n > 1) return "more than one memory";
  if (m->has_start) return "a start function (it would run again)";
  for (size_t i = 0; i < m->datas.n; i++)
    if (TL_DATA(m, i)->mode != TL_SEG_ACTIVE) return "a passive data segment";
  const char *op = NULL;
  tl_walk_module(m, find_unsupported, &op);
  return op;
}

/* ---- imports: each call stops the evaluation ------------------------------- */
typedef struct {
  ce *c;
  uint32_t func;
} import_ctx;

static bool named(const tl_importname *imp, const char *module, const char *name) {
  return tl_name_eq(imp->module, imp->module_len, module, (uint32_t)strlen(module)) &&
         tl_name_eq(imp->name, imp->name_len, name, (uint32_t)strlen(name));
}

/* --ignore-external-input: WASI's args and environment are empty. */
static bool empty_input(tl_host_call *call, const tl_importname *imp, const tl_value *args,
                        tl_value *results) {
  static const char wasi[] = "wasi_snapshot_preview1";
  bool sizes = named(imp, wasi, "args_sizes_get") || named(imp, wasi, "environ_sizes_get");
  bool gets = named(imp, wasi, "args_get") || named(imp, wasi, "environ_get");
  if (!sizes && !gets) return false;
  if (sizes) {
    uint64_t size;
    uint8_t *mem = tl_host_memory(call, &size);
    uint32_t at = (uint32_t)args[0].of.i32;
    if (!mem || (uint64_t)at + 4 > size) return false;
    memset(mem + at, 0, 4);
  }
  results[0].type = TL_VAL_I32;
  results[0].of.i32 = 0;
  return true;
}

static tl_status import_called(tl_host_call *call, void *user, const tl_value *args, tl_value *results,
                               tl_error *err) {
  import_ctx *x = user;
  const tl_importname *imp = &TL_FUNC(x->c->m, x->func)->imp;
  if (x->c->o->ignore_external_input && empty_input(call, imp, args, results)) return TL_OK;
  return tl_errorf(err, TL_E_TRAP, TL_NO_OFFSET, "call import: %.*s.%.*s",
                   (int)tl_name_len(imp->module, imp->module_len), imp->module,
                   (int)tl_name_len(imp->name, imp->name_len), imp->name);
}

static void define_imports(ce *c, tl_store *s, tl_linker *l, import_ctx *ctx) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < m->nimported_funcs; i++) {
    ctx[i] = (import_ctx){c, i};
    tl_extern x = tl_host_func_of_type(s, m, TL_FUNC(m, i)->type, import_called, &ctx[i]);
    if (!x.ptr) continue; /* left unlinked: instantiation fails */
    const tl_importname *imp = &TL_FUNC(m, i)->imp;
    tl_linker_define_n(l, imp->module, tl_name_len(imp->module, imp->module_len), imp->name,
                       tl_name_len(imp->name, imp->name_len), x);
  }
}

/* A fresh instance of the module with every import stopping the evaluation. */
typedef struct {
  tl_store *s;
  tl_linker *l;
  import_ctx *ctx;
  tl_instance *inst;  /* NULL: instantiation failed (err) */
  tl_error err;
} run;

static void run_start(ce *c, run *r) {
  tl_module *m = c->m;
  memset(r, 0, sizeof *r);
  r->s = must(tl_store_new());
  r->l = must(tl_linker_new());
  r->ctx = must(tl_calloc(m->nimported_funcs + 1, sizeof *r->ctx));
  define_imports(c, r->s, r->l, r->ctx);
  r->inst = tl_instantiate(r->s, m, r->l, &r->err);
}

static void run_end(run *r) {
  tl_free(r->ctx);
  tl_linker_free(r->l);
  tl_store_free(r->s);
}

/* ---- the state kept after each evaluated export ---------------------------- */
static void save_state(ce *c, tl_instance *inst) {
  if (c->m->memories.n) {
    tl_meminst *mi = inst->mems[0];
    size_t bytes = (size_t)mi->pages * TL_PAGE;
    c->mem = must(tl_realloc(c->mem, bytes ? bytes : 1));
    memcpy(c->mem, mi->data, bytes);
    c->pages = mi->pages;
  }
  for (size_t i = 0; i < c->m->globals.n; i++) c->globals[i] = inst->globals[i]->v;
}

/* A mutable reference global that changed cannot be written back (its
 * value is a pointer into the store). */
static bool refs_unchanged(ce *c, tl_instance *inst) {
  for (size_t i = 0; i < c->m->globals.n; i++) {
    tl_global *g = TL_GLOBAL(c->m, i);
    if (g->mut && tl_type_is_ref(g->type) && inst->globals[i]->v.ref != c->globals[i].ref) return false;
  }
  return true;
}

static tl_value arg_zero(tl_type t) {
  tl_value v;
  memset(&v, 0, sizeof v);
  v.type = t;
  return v;
}

/* One export: true if it ran to the end (results in res[0..*nres)). */
static bool eval_one(ce *c, tl_store *s, tl_instance *inst, const char *name, tl_value *res,
                     uint32_t *nres) {
  tl_buf_printf(c->log, "trying to eval %s\n", name);
  int32_t x = tl_module_find_export(c->m, name);
  if (x < 0 || TL_EXPORT(c->m, x)->kind != TL_EXTERN_FUNC) {
    tl_buf_printf(c->log, "  ...stopping since could not find the export\n");
    return false;
  }
  const tl_func *f = TL_FUNC(c->m, TL_EXPORT(c->m, x)->index);
  tl_functype *ft = tl_func_type(c->m, f);
  uint32_t np = tl_type_arity(c->m, ft->params);
  if (np && !c->o->ignore_external_input) {
    tl_buf_printf(c->log, "  ...stopping due to params\n");
    return false;
  }
  if (np > 64 || tl_type_arity(c->m, ft->results) > 64) {
    tl_buf_printf(c->log, "  ...stopping due to too many params or results\n");
    return false;
  }
  tl_value args[64];
  for (uint32_t i = 0; i < np; i++) {
    tl_type t = tl_type_at(c->m, ft->params, i);
    if (tl_type_is_ref(t)) {
      tl_buf_printf(c->log, "  ...stopping due to non-zeroable param\n");
      return false;
    }
    args[i] = arg_zero(t);
  }
  tl_store_set_fuel(s, c->o->fuel ? c->o->fuel : 100000000);
  tl_error err = {0};
  if (tl_invoke(inst, name, args, np, res, 64, nres, &err) != TL_OK) {
    tl_buf_printf(c->log, "  ...stopping since could not eval: %s\n", err.msg);
    return false;
  }
  for (uint32_t i = 0; i < *nres; i++)
    if (res[i].type >= TL_VAL_FUNCREF) {
      tl_buf_printf(c->log, "  ...stopping due to a reference result\n");
      return false;
    }
  if (!refs_unchanged(c, inst)) {
    tl_buf_printf(c->log, "  ...stopping since a reference global changed\n");
    return false;
  }
  tl_buf_printf(c->log, "  ...success on %s.\n", name);
  return true;
}

/* ---- partial evaluation: an export's statements one by one ---------------- */
/* A statement that leaves the body (return, or a branch to its label). */
typedef struct {
  uint32_t body_label;
  bool leaves;
} leave_ctx;

static void find_leave(tl_walk *w, tl_expr **slot) {
  leave_ctx *x = w->ctx;
  const tl_expr *e = *slot;
  const tl_opinfo *o = &tl_ops[e->op];
  if (e->op == TL_OP_RETURN || e->op == TL_OP_RETURN_CALL || e->op == TL_OP_RETURN_CALL_INDIRECT ||
      e->op == TL_OP_RETURN_CALL_REF)
    x->leaves = true;
  else if ((o->flags & TL_F_BRANCH) && e->op != TL_OP_BR_TABLE && e->imm.label == x->body_label)
    x->leaves = true; /* br, br_if, br_on_*, try_table clauses */
  else if (e->op == TL_OP_BR_TABLE) {
    if (e->imm.table->def == x->body_label) x->leaves = true;
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      if (e->imm.table->targets[i] == x->body_label) x->leaves = true;
  }
}

/* The function export `name` names, when it can be evaluated in part. */
static tl_func *partial_candidate(ce *c, const char *name, uint32_t *fi) {
  int32_t x = tl_module_find_export(c->m, name);
  if (x < 0 || TL_EXPORT(c->m, x)->kind != TL_EXTERN_FUNC) return NULL;
  *fi = TL_EXPORT(c->m, x)->index;
  tl_func *f = TL_FUNC(c->m, *fi);
  tl_functype *ft = tl_func_type(c->m, f);
  if (*fi < c->m->nimported_funcs || !f->body || f->body->op != TL_OP_BLOCK || f->body->nkid < 2 ||
      ft->params != TL_NONE || ft->results != TL_NONE || f->nlocal)
    return NULL;
  leave_ctx lc = {f->body->imm.block.label, false};
  tl_walk_post(c->m, f, &f->body, find_leave, &lc);
  return lc.leaves ? NULL : f;
}

/* A function (appended, exported as "\1part.K") running statement k of f. */
static void add_part(ce *c, tl_func *f, uint32_t k, uint32_t type) {
  tl_module *m = c->m;
  tl_expr *stmt = f->body->kid[k];
  uint32_t label = f->body->imm.block.label, nlabel = f->nlabel;
  uint32_t pi = tl_module_add_func_defined(m, type, NULL);
  tl_func *p = TL_FUNC(m, pi);
  p->nlabel = nlabel;
  p->body = tl_make_block(m, TL_OP_BLOCK, label, &stmt, 1);
  tl_expr_finalize(m, p, p->body);
  char *name = tl_arena_alloc(&m->arena, 24, 1);
  snprintf(name, 24, "\1part.%u", k);
  tl_export e = {name, TL_EXTERN_FUNC, pi, 0};
  TL_VEC_PUSH(&m->exports, tl_export, e);
}

/* Runs the statements of function fi (the export the evaluation stopped in) one by one in a fresh instance
 * after the exports done before it; c->nparts gets how many completed,
 * c->mem / c->globals the state after them. The part functions and their
 * exports are gone again afterwards. */
static void evaluate_parts(ce *c, uint32_t fi) {
  tl_module *m = c->m;
  uint32_t n = TL_FUNC(m, fi)->body->nkid, nfuncs = (uint32_t)m->funcs.n, nexports = (uint32_t)m->exports.n;
  uint32_t type = tl_functype_intern(m, TL_NONE, TL_NONE);
  for (uint32_t k = 0; k < n; k++) add_part(c, TL_FUNC(m, fi), k, type); /* (appending moves functions) */
  run r;
  run_start(c, &r);
  tl_store *s = r.s;
  tl_instance *inst = r.inst;
  tl_error err = {0};
  tl_buf quiet = {0}, *log = c->log;
  c->log = &quiet; /* the exports before it succeed again, silently */
  bool again = inst != NULL;
  for (uint32_t i = 0; i < c->ndone && again; i++) {
    outcome r;
    again = eval_one(c, s, inst, c->o->ctors[i], r.res, &r.nres);
  }
  c->log = log;
  tl_buf_free(&quiet);
  for (uint32_t k = 0; k < n && again; k++) {
    char part[24];
    snprintf(part, sizeof part, "\1part.%u", k);
    tl_store_set_fuel(s, c->o->fuel ? c->o->fuel : 100000000);
    tl_value res[1];
    uint32_t nres = 0;
    err = (tl_error){0};
    if (tl_invoke(inst, part, NULL, 0, res, 1, &nres, &err) != TL_OK || !refs_unchanged(c, inst)) {
      tl_buf_printf(c->log, c->nparts ? "  ...partial evalling successful, but stopping since could not eval: %s\n"
                                      : "  ...stopping (in block) since could not eval: %s\n",
                    err.msg[0] ? err.msg : "a reference global changed");
      break;
    }
    save_state(c, inst);
    c->nparts = k + 1;
  }
  run_end(&r);
  for (uint32_t i = nfuncs; i < m->funcs.n; i++) tl_func_forget_locs(TL_FUNC(m, i));
  m->funcs.n = nfuncs;
  m->exports.n = nexports;
}

/* The export the evaluation stopped in names a copy of its function that
 * holds only the statements not evaluated. */
static void keep_rest(ce *c, const char *name) {
  tl_module *m = c->m;
  tl_export *x = TL_EXPORT(m, tl_module_find_export(m, name));
  uint32_t from = x->index;
  uint32_t fi = tl_module_add_func_defined(m, TL_FUNC(m, from)->type, NULL);
  tl_func *f = TL_FUNC(m, fi), *old = TL_FUNC(m, from);
  f->nlabel = old->nlabel;
  f->body = tl_expr_copy_from(m, f, old, f, old->body);
  uint32_t n = f->body->nkid - c->nparts;
  memmove(f->body->kid, f->body->kid + c->nparts, n * sizeof *f->body->kid);
  f->body->nkid = n;
  tl_expr_finalize(m, f, f->body);
  TL_EXPORT(m, tl_module_find_export(m, name))->index = fi;
}

/* ---- writing the state back ------------------------------------------------ */
static tl_expr *const_of(tl_module *m, tl_type t, const tl_v *v) {
  tl_expr *e = tl_make_zero(m, t);
  if (t == TL_I32) e->imm.i32 = (int32_t)v->i64;
  else if (t == TL_I64) e->imm.i64 = (int64_t)v->i64;
  else if (t == TL_F32) e->imm.f32 = (uint32_t)v->i64;
  else if (t == TL_F64) e->imm.f64 = v->i64;
  else if (t == TL_V128) tl_expr_v128(m, e, (const uint8_t *)v->w);
  return e;
}

static tl_expr *const_of_value(tl_module *m, const tl_value *v) {
  tl_v s;
  memset(&s, 0, sizeof s);
  if (v->type == TL_VAL_V128) memcpy(s.w, v->of.v128, 16);
  else s.i64 = v->type == TL_VAL_I32 ? (uint32_t)v->of.i32 : v->type == TL_VAL_F32 ? v->of.f32
                                                                                      : (uint64_t)v->of.i64;
  return const_of(m, v->type, &s);
}

/* Memory 0's bytes as active segments: the runs of non-zero bytes, joined
 * across gaps shorter than a segment's own overhead. */
#define GAP 8
static void write_memory(ce *c) {
  tl_module *m = c->m;
  if (!m->memories.n) return; /* no memory: no segments either */
  tl_memory *mem = TL_MEMORY(m, 0);
  if (c->pages > mem->min) mem->min = c->pages;
  size_t k = 0;
  for (size_t i = 0; i < m->datas.n; i++) /* all active on memory 0 (module_refused) */
    if (TL_DATA(m, i)->mem != 0) TL_VEC_AT(&m->datas, tl_data, k++) = *TL_DATA(m, i);
  m->datas.n = k;
  size_t n = (size_t)c->pages * TL_PAGE;
  for (size_t at = 0; at < n;) {
    while (at < n && !c->mem[at]) at++;
    if (at == n) break;
    size_t end = at, zeros = 0;
    for (size_t j = at; j < n && zeros < GAP; j++) {
      if (c->mem[j]) end = j + 1, zeros = 0;
      else zeros++;
    }
    tl_data d;
    memset(&d, 0, sizeof d);
    d.mode = TL_SEG_ACTIVE;
    d.offset = mem->is64 ? tl_make_const_i64(m, (int64_t)at) : tl_make_const_i32(m, (int32_t)at);
    uint8_t *bytes = tl_arena_alloc(&m->arena, end - at, 1);
    memcpy(bytes, c->mem + at, end - at);
    d.bytes = bytes;
    d.size = (uint32_t)(end - at);
    TL_VEC_PUSH(&m->datas, tl_data, d);
    at = end;
  }
}

static void write_globals(ce *c) {
  for (size_t i = 0; i < c->m->globals.n; i++) {
    tl_global *g = TL_GLOBAL(c->m, i);
    if (g->mut && !tl_type_is_ref(g->type)) g->init = const_of(c->m, g->type, &c->globals[i]);
  }
}

/* A kept export now names a new function returning its results. */
static void keep_export(ce *c, const char *name, const tl_value *res, uint32_t nres) {
  tl_module *m = c->m;
  tl_export *x = TL_EXPORT(m, tl_module_find_export(m, name));
  uint32_t fi = tl_module_add_func_defined(m, TL_FUNC(m, x->index)->type, NULL);
  tl_func *f = TL_FUNC(m, fi);
  for (uint32_t i = 0; i < nres; i++) tl_expr_push_kid(m, f->body, const_of_value(m, &res[i]));
  if (nres > 1) {
    tl_expr *t = tl_expr_new(m, TL_OP_TUPLE_MAKE, 0);
    for (uint32_t i = 0; i < nres; i++) tl_expr_push_kid(m, t, f->body->kid[i]);
    f->body->nkid = 0;
    tl_expr_finalize(m, f, t);
    tl_expr_push_kid(m, f->body, t);
  }
  tl_expr_finalize(m, f, f->body);
  x->index = fi;
}

/* Evaluates the exports in order while they succeed; c->done gets their
 * results and c->mem / c->globals the state after the last. */
static void evaluate(ce *c) {
  tl_module *m = c->m;
  run r;
  run_start(c, &r);
  tl_store *s = r.s;
  tl_instance *inst = r.inst;
  size_t stopped_at = 0; /* the log before the export it stopped in */
  if (!inst) {
    tl_buf_printf(c->log, "  ...stopping since could not create module instance: %s\n", r.err.msg);
  } else {
    c->globals = must(tl_calloc(m->globals.n + 1, sizeof *c->globals));
    c->done = must(tl_calloc(c->o->nctors + 1, sizeof *c->done));
    save_state(c, inst);
    for (; c->ndone < c->o->nctors; c->ndone++) {
      outcome *r = &c->done[c->ndone];
      stopped_at = c->log->n;
      if (!eval_one(c, s, inst, c->o->ctors[c->ndone], r->res, &r->nres)) break;
      save_state(c, inst);
    }
  }
  run_end(&r);
  uint32_t fi;
  if (inst && c->ndone < c->o->nctors && partial_candidate(c, c->o->ctors[c->ndone], &fi)) {
    c->log->n = stopped_at; /* its statements tell why it stopped */
    tl_buf_printf(c->log, "trying to eval %s\n", c->o->ctors[c->ndone]);
    evaluate_parts(c, fi);
  }
  if (inst && c->ndone < c->o->nctors) tl_buf_printf(c->log, "  ...stopping\n");
}

static bool is_kept(const tl_ctor_eval_options *o, const char *name) {
  for (uint32_t k = 0; k < o->nkept; k++)
    if (!strcmp(o->kept[k], name)) return true;
  return false;
}

static tl_status ctor_eval_in_scope(void *p, tl_error *err) {
  (void)err;
  ce *c = p;
  const char *why = module_refused(c->m);
  if (why) {
    tl_buf_printf(c->log, "  ...stopping since could not create module instance: %s\n", why);
    return TL_OK;
  }
  evaluate(c);
  if (!c->ndone && !c->nparts) return TL_OK;
  write_memory(c);
  write_globals(c);
  if (c->nparts) keep_rest(c, c->o->ctors[c->ndone]);
  for (uint32_t i = 0; i < c->ndone; i++) {
    const char *name = c->o->ctors[i];
    if (is_kept(c->o, name)) keep_export(c, name, c->done[i].res, c->done[i].nres);
    else tl_module_remove_export(c->m, (uint32_t)tl_module_find_export(c->m, name));
  }
  return TL_OK;
}

tl_status tl_module_ctor_eval(tl_module *m, const tl_ctor_eval_options *o, char **log, tl_error *err) {
  tl_buf b = {0};
  ce c = {m, o, &b, NULL, 0, NULL, NULL, 0, 0};
  tl_status s = tl_oom_run(m, ctor_eval_in_scope, &c, err, "ctor-eval");
  tl_free(c.mem);
  tl_free(c.globals);
  tl_free(c.done);
  tl_buf_byte(&b, 0);
  if (s == TL_OK && log) *log = (char *)b.p;
  else tl_buf_free(&b);
  return s;
}
