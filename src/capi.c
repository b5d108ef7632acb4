/* capi.c — the C API for building modules from scratch (tilt.h, "building
 * modules"). Owns argument checking: every entry point checks the indices,
 * labels and shapes the IR relies on before touching it, records why in
 * its state (m->capi) and returns an error value; bad arguments never abort. Every
 * expression builder funnels into one checked constructor (start + finish)
 * that reads the opcode table, so no instruction is listed here twice.
 * Assumes: function indices are imports first, so imports come first. */
#include "ir/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(TL_TYPE_NONE == TL_NONE && TL_TYPE_UNREACHABLE == TL_UNREACHABLE &&
                   TL_TYPE_I32 == TL_I32 && TL_TYPE_I64 == TL_I64 && TL_TYPE_F32 == TL_F32 &&
                   TL_TYPE_F64 == TL_F64 && TL_TYPE_V128 == TL_V128 &&
                   TL_TYPE_FUNCREF == TL_FUNCREF && TL_TYPE_EXTERNREF == TL_EXTERNREF &&
                   TL_TYPE_EXNREF == TL_EXNREF && TL_TYPE_EXNREF + 1 == TL_NBASIC,
               "tilt.h type numbers must match ir.h");
_Static_assert(TL_EXPORT_FUNC == TL_EXTERN_FUNC && TL_EXPORT_TABLE == TL_EXTERN_TABLE &&
                   TL_EXPORT_MEMORY == TL_EXTERN_MEMORY && TL_EXPORT_GLOBAL == TL_EXTERN_GLOBAL,
               "tilt.h export kinds must match ir.h");
_Static_assert(TL_LABEL_NONE == TL_NO_LABEL && TL_INVALID_INDEX == TL_NO_INDEX,
               "tilt.h sentinels must match ir.h");
_Static_assert(sizeof(tl_type_t) == sizeof(tl_type), "tl_type_t is tl_type");
_Static_assert(TL_VAL_I32 == TL_TYPE_I32 && TL_VAL_EXTERNREF == TL_TYPE_EXTERNREF,
               "execution value types match the building ones");

#define MAX_PAGES 65536u

/* ---- builder state ----------------------------------------------------- */
/* Branch types per label, per function: bt[l] is the lub of the values of
 * the branches built to label l. A labeled block built afterwards takes its
 * branch type from here instead of walking its subtree (which would make
 * building n nested labeled blocks cost n^2). A branch built but never
 * attached may thus skew a block's type until tl_function_set_body
 * re-finalizes the whole body exactly. */
typedef struct { tl_type *bt; uint32_t n; } label_types;

struct tl_capi {
  tl_error err;         /* the last failing call's reason */
  label_types *fn;      /* per function index */
  uint32_t nfn;
};

static struct tl_capi *state(tl_module *m) {
  if (!m->capi) m->capi = TL_NEW(&m->arena, struct tl_capi);
  return m->capi;
}

/* The branch-type slot of label l of function f (l < f->nlabel). Arrays
 * grow by doubling in the arena; new slots are unreachable (no branch). */
static tl_type *branch_type(tl_module *m, tl_func *f, uint32_t l) {
  struct tl_capi *c = state(m);
  uint32_t fi = (uint32_t)(f - TL_FUNC(m, 0));
  if (fi >= c->nfn) {
    uint32_t n = (uint32_t)m->funcs.n > 2 * c->nfn ? (uint32_t)m->funcs.n : 2 * c->nfn;
    label_types *nf = TL_NEWN(&m->arena, label_types, n);
    if (c->nfn) memcpy(nf, c->fn, c->nfn * sizeof *nf);
    c->fn = nf, c->nfn = n;
  }
  label_types *lt = &c->fn[fi];
  if (l >= lt->n) {
    uint32_t n = f->nlabel > 2 * lt->n ? f->nlabel : 2 * lt->n;
    tl_type *bt = TL_NEWN(&m->arena, tl_type, n);
    if (lt->n) memcpy(bt, lt->bt, lt->n * sizeof *bt);
    for (uint32_t i = lt->n; i < n; i++) bt[i] = TL_UNREACHABLE;
    lt->bt = bt, lt->n = n;
  }
  return &lt->bt[l];
}

/* Records branch e's value type for each label it targets. */
static void note_branch(tl_module *m, tl_func *f, const tl_expr *e) {
  tl_type vt = tl_branch_value_type(e);
  if (e->op != TL_OP_BR_TABLE) {
    tl_type *t = branch_type(m, f, e->imm.label);
    *t = tl_type_lub(m, *t, vt);
    return;
  }
  for (uint32_t i = 0; i <= e->imm.table->n; i++) {
    uint32_t l = i < e->imm.table->n ? e->imm.table->targets[i] : e->imm.table->def;
    tl_type *t = branch_type(m, f, l);
    *t = tl_type_lub(m, *t, vt);
  }
}

/* Types e from its kids (and, for a labeled block or if, from the branches
 * noted for its label). */
static void type_node(tl_module *m, tl_func *f, tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  if ((oi->flags & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL && e->op != TL_OP_LOOP) {
    tl_block_finalize(m, e, *branch_type(m, f, e->imm.block.label));
    return;
  }
  tl_expr_finalize(m, f, e);
  if ((oi->flags & TL_F_BRANCH) && f) note_branch(m, f, e);
}

/* ---- errors ------------------------------------------------------------ */
__attribute__((format(printf, 2, 3)))
static tl_status bad(tl_module *m, const char *fmt, ...) {
  tl_error *e = &state(m)->err;
  e->code = TL_E_INVALID;
  e->offset = TL_NO_OFFSET;
  e->func_index = TL_NO_FUNC;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return TL_E_INVALID;
}

static const tl_error oom_error = {.code = TL_E_NOMEM, .offset = TL_NO_OFFSET,
                                   .func_index = TL_NO_FUNC, .msg = "out of memory (building)"};

/* A public builder packs its arguments and runs its _impl through here, in
 * an out-of-memory scope on m (oom.c): out of memory leaves the call's
 * failure value, and the module's last error says so (the module can then
 * only be freed). */
static void capi_run(tl_module *m, void (*run)(void *call), void *call) {
  tl_oom_frame f;
  if (!m || !tl_oom_enter(&f, m)) {
    run(call);
    return;
  }
  if (!setjmp(f.jb)) {
    run(call);
    tl_oom_leave(&f, false);
    return;
  }
  tl_oom_leave(&f, true);
  m->capi_oom = true;
  if (m->capi) m->capi->err = oom_error;
}

const tl_error *tl_module_last_error(const tl_module *m) {
  static const tl_error none = {.code = TL_OK, .offset = TL_NO_OFFSET, .func_index = TL_NO_FUNC};
  if (!m) return NULL;
  return m->capi ? &m->capi->err : m->capi_oom ? &oom_error : &none;
}

static bool in_range(tl_module *m, uint32_t i, size_t n, const char *what, const char *who) {
  if (i < n) return true;
  bad(m, "%s: %s index %u out of range (%zu defined)", who, what, i, n);
  return false;
}

static const char *dup(tl_module *m, const char *s) {
  return s ? tl_arena_strndup(&m->arena, s, strlen(s)) : NULL;
}

/* ---- types ------------------------------------------------------------- */
static bool is_basic(tl_type t) { return t >= TL_I32 && t < TL_NBASIC; }

static bool is_value_type(const tl_module *m, tl_type t) {
  return is_basic(t) || (tl_type_is_tuple(t) && t - TL_TUPLE_BASE < m->ntuples);
}

static tl_type_t build_tuple_impl(tl_module *m, const tl_type_t *types, uint32_t n) {
  if (!m) return TL_TYPE_INVALID;
  if (n && !types) return bad(m, "tl_build_tuple: types is NULL"), TL_TYPE_INVALID;
  for (uint32_t i = 0; i < n; i++)
    if (!is_basic(types[i])) {
      bad(m, "tl_build_tuple: element %u is not a basic value type (%u)", i, types[i]);
      return TL_TYPE_INVALID;
    }
  return tl_type_tuple(m, types, n);
}

typedef struct {
  tl_module *m;
  const tl_type_t *types;
  uint32_t n;
  tl_type_t r;
} build_tuple_call;
static void build_tuple_run(void *c) {
  build_tuple_call *k_ = c;
  k_->r = build_tuple_impl(k_->m, k_->types, k_->n);
}
tl_type_t tl_build_tuple(tl_module *m, const tl_type_t *types, uint32_t n) {
  build_tuple_call k_ = {m, types, n, TL_TYPE_INVALID};
  capi_run(m, build_tuple_run, &k_);
  return k_.r;
}

static uint32_t add_type_impl(tl_module *m, tl_type_t params, tl_type_t results) {
  if (!m) return TL_INVALID_INDEX;
  if (params != TL_NONE && !is_value_type(m, params))
    return bad(m, "tl_add_type: bad params type %u", params), TL_INVALID_INDEX;
  if (results != TL_NONE && !is_value_type(m, results))
    return bad(m, "tl_add_type: bad results type %u", results), TL_INVALID_INDEX;
  return tl_functype_intern(m, params, results);
}

typedef struct {
  tl_module *m;
  tl_type_t params;
  tl_type_t results;
  uint32_t r;
} add_type_call;
static void add_type_run(void *c) {
  add_type_call *k_ = c;
  k_->r = add_type_impl(k_->m, k_->params, k_->results);
}
uint32_t tl_add_type(tl_module *m, tl_type_t params, tl_type_t results) {
  add_type_call k_ = {m, params, results, TL_INVALID_INDEX};
  capi_run(m, add_type_run, &k_);
  return k_.r;
}

/* ---- functions --------------------------------------------------------- */
tl_module *tl_module_create(void) { return tl_module_alloc(); }

uint32_t tl_function_count(const tl_module *m) { return m ? (uint32_t)m->funcs.n : 0; }

/* A defined (not imported) function, or NULL with the error recorded. */
static tl_func *defined_func(tl_module *m, uint32_t func, const char *who) {
  if (!in_range(m, func, m->funcs.n, "function", who)) return NULL;
  if (func < m->nimported_funcs) {
    bad(m, "%s: function %u is an import", who, func);
    return NULL;
  }
  tl_error e = {0};
  if (tl_func_decode(m, func, &e) != TL_OK) { /* a lazy body: its IR on first touch */
    bad(m, "%s: function %u: %s", who, func, e.msg);
    return NULL;
  }
  return TL_FUNC(m, func);
}

/* The function context of a builder: NULL for TL_NO_FUNC. */
static bool func_ctx(tl_module *m, uint32_t func, tl_func **out, const char *who) {
  *out = NULL;
  if (func == TL_NO_FUNC) return true;
  *out = defined_func(m, func, who);
  return *out != NULL;
}

static uint32_t add_function_impl(tl_module *m, const char *name, uint32_t type_index,
                         const tl_type_t *var_types, uint32_t n_vars, tl_expr_ref body) {
  const char *who = "tl_add_function";
  if (!m || !in_range(m, type_index, m->types.n, "type", who)) return TL_INVALID_INDEX;
  if (n_vars && !var_types) return bad(m, "%s: var_types is NULL", who), TL_INVALID_INDEX;
  for (uint32_t i = 0; i < n_vars; i++)
    if (!is_value_type(m, var_types[i]))
      return bad(m, "%s: var %u has bad type %u", who, i, var_types[i]), TL_INVALID_INDEX;
  tl_func *f = tl_module_add_func(m);
  f->type = type_index;
  f->name = dup(m, name);
  tl_type params = TL_FTYPE(m, type_index)->params;
  for (uint32_t i = 0, n = tl_type_arity(m, params); i < n; i++)
    tl_func_add_local(m, f, tl_type_at(m, params, i));
  for (uint32_t i = 0; i < n_vars; i++) tl_func_add_local(m, f, var_types[i]);
  f->body = tl_make_block(m, TL_OP_BLOCK, tl_func_new_label(m, f), NULL, 0);
  uint32_t idx = (uint32_t)m->funcs.n - 1;
  if (body && tl_function_set_body(m, idx, body) != TL_OK) {
    m->funcs.n--;
    return TL_INVALID_INDEX;
  }
  return idx;
}

typedef struct {
  tl_module *m;
  const char *name;
  uint32_t type_index;
  const tl_type_t *var_types;
  uint32_t n_vars;
  tl_expr_ref body;
  uint32_t r;
} add_function_call;
static void add_function_run(void *c) {
  add_function_call *k_ = c;
  k_->r = add_function_impl(k_->m, k_->name, k_->type_index, k_->var_types, k_->n_vars, k_->body);
}
uint32_t tl_add_function(tl_module *m, const char *name, uint32_t type_index,
                         const tl_type_t *var_types, uint32_t n_vars, tl_expr_ref body) {
  add_function_call k_ = {m, name, type_index, var_types, n_vars, body, TL_INVALID_INDEX};
  capi_run(m, add_function_run, &k_);
  return k_.r;
}

static uint32_t function_add_var_impl(tl_module *m, uint32_t func, tl_type_t t) {
  tl_func *f = m ? defined_func(m, func, "tl_function_add_var") : NULL;
  if (!f) return TL_INVALID_INDEX;
  if (!is_value_type(m, t))
    return bad(m, "tl_function_add_var: bad type %u", t), TL_INVALID_INDEX;
  return tl_func_add_local(m, f, t);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_type_t t;
  uint32_t r;
} function_add_var_call;
static void function_add_var_run(void *c) {
  function_add_var_call *k_ = c;
  k_->r = function_add_var_impl(k_->m, k_->func, k_->t);
}
uint32_t tl_function_add_var(tl_module *m, uint32_t func, tl_type_t t) {
  function_add_var_call k_ = {m, func, t, TL_INVALID_INDEX};
  capi_run(m, function_add_var_run, &k_);
  return k_.r;
}

static tl_label_t new_label_impl(tl_module *m, uint32_t func) {
  tl_func *f = m ? defined_func(m, func, "tl_new_label") : NULL;
  return f ? tl_func_new_label(m, f) : TL_LABEL_NONE;
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_label_t r;
} new_label_call;
static void new_label_run(void *c) {
  new_label_call *k_ = c;
  k_->r = new_label_impl(k_->m, k_->func);
}
tl_label_t tl_new_label(tl_module *m, uint32_t func) {
  new_label_call k_ = {m, func, TL_LABEL_NONE};
  capi_run(m, new_label_run, &k_);
  return k_.r;
}

/* Body check: every local and label a node names belongs to f (nodes built
 * for another function would index past f's arrays). */
typedef struct { tl_func *f; const tl_expr *bad; } body_check;

static bool labels_ok(tl_func *f, const tl_expr *e) {
  switch (tl_ops[e->op].imm) {
  case TL_IMM_BLOCK: return e->imm.block.label == TL_NO_LABEL || e->imm.block.label < f->nlabel;
  case TL_IMM_LABEL: case TL_IMM_BR_CAST: return e->imm.label < f->nlabel;
  case TL_IMM_BR_TABLE:
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      if (e->imm.table->targets[i] >= f->nlabel) return false;
    return e->imm.table->def < f->nlabel;
  case TL_IMM_LOCAL: return e->imm.index < f->nlocal;
  default: return true;
  }
}

static void check_visit(tl_walk *w, tl_expr **slot) {
  body_check *c = w->ctx;
  if (!c->bad && !labels_ok(c->f, *slot)) c->bad = *slot;
}

/* The label for a new body: an empty old body (the placeholder) hands its
 * label on, as nothing can branch to it. */
static uint32_t body_label(tl_module *m, tl_func *f) {
  if (f->body && f->body->nkid == 0) return f->body->imm.block.label;
  return tl_func_new_label(m, f);
}

static tl_status function_set_body_impl(tl_module *m, uint32_t func, tl_expr_ref body) {
  const char *who = "tl_function_set_body";
  if (!m) return TL_E_INVALID;
  tl_func *f = defined_func(m, func, who);
  if (!f) return TL_E_INVALID;
  if (!body) return bad(m, "%s: body is NULL", who);
  body_check c = {f, NULL};
  tl_walk_post(m, f, &body, check_visit, &c);
  if (c.bad)
    return bad(m, "%s: a %s node names a local or label function %u does not have", who,
               tl_ops[c.bad->op].text, func);
  if (body->op != TL_OP_BLOCK) body = tl_make_block(m, TL_OP_BLOCK, body_label(m, f), &body, 1);
  else if (body->imm.block.label == TL_NO_LABEL) body->imm.block.label = body_label(m, f);
  f->body = body;
  tl_func_refinalize(m, f);
  return TL_OK;
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_expr_ref body;
  tl_status r;
} function_set_body_call;
static void function_set_body_run(void *c) {
  function_set_body_call *k_ = c;
  k_->r = function_set_body_impl(k_->m, k_->func, k_->body);
}
tl_status tl_function_set_body(tl_module *m, uint32_t func, tl_expr_ref body) {
  function_set_body_call k_ = {m, func, body, TL_E_NOMEM};
  capi_run(m, function_set_body_run, &k_);
  return k_.r;
}

static uint32_t add_function_import_impl(tl_module *m, const char *name, const char *module,
                                const char *base, uint32_t type_index) {
  const char *who = "tl_add_function_import";
  if (!m || !in_range(m, type_index, m->types.n, "type", who)) return TL_INVALID_INDEX;
  if (!module || !base) return bad(m, "%s: module or base name is NULL", who), TL_INVALID_INDEX;
  if (m->funcs.n != m->nimported_funcs)
    return bad(m, "%s: imports must come before defined functions", who), TL_INVALID_INDEX;
  tl_func *f = tl_module_add_func(m);
  f->type = type_index;
  f->name = dup(m, name);
  f->imp.module = dup(m, module);
  f->imp.name = dup(m, base);
  m->nimported_funcs++;
  return (uint32_t)m->funcs.n - 1;
}

typedef struct {
  tl_module *m;
  const char *name;
  const char *module;
  const char *base;
  uint32_t type_index;
  uint32_t r;
} add_function_import_call;
static void add_function_import_run(void *c) {
  add_function_import_call *k_ = c;
  k_->r = add_function_import_impl(k_->m, k_->name, k_->module, k_->base, k_->type_index);
}
uint32_t tl_add_function_import(tl_module *m, const char *name, const char *module,
                                const char *base, uint32_t type_index) {
  add_function_import_call k_ = {m, name, module, base, type_index, TL_INVALID_INDEX};
  capi_run(m, add_function_import_run, &k_);
  return k_.r;
}

/* ---- globals, memory, tables ------------------------------------------- */
static uint32_t push_global(tl_module *m, const char *name, tl_type t, bool mut,
                            tl_expr *init, const char *module, const char *base) {
  tl_global g;
  memset(&g, 0, sizeof g);
  g.type = t;
  g.mut = mut;
  g.init = init;
  g.name = dup(m, name);
  g.imp.module = dup(m, module);
  g.imp.name = dup(m, base);
  TL_VEC_PUSH(&m->globals, tl_global, g);
  return (uint32_t)m->globals.n - 1;
}

static uint32_t add_global_impl(tl_module *m, const char *name, tl_type_t type, bool mutable_,
                       tl_expr_ref init) {
  if (!m) return TL_INVALID_INDEX;
  if (!is_basic(type)) return bad(m, "tl_add_global: bad type %u", type), TL_INVALID_INDEX;
  if (!init) return bad(m, "tl_add_global: init is NULL"), TL_INVALID_INDEX;
  return push_global(m, name, type, mutable_, init, NULL, NULL);
}

typedef struct {
  tl_module *m;
  const char *name;
  tl_type_t type;
  bool mutable_;
  tl_expr_ref init;
  uint32_t r;
} add_global_call;
static void add_global_run(void *c) {
  add_global_call *k_ = c;
  k_->r = add_global_impl(k_->m, k_->name, k_->type, k_->mutable_, k_->init);
}
uint32_t tl_add_global(tl_module *m, const char *name, tl_type_t type, bool mutable_,
                       tl_expr_ref init) {
  add_global_call k_ = {m, name, type, mutable_, init, TL_INVALID_INDEX};
  capi_run(m, add_global_run, &k_);
  return k_.r;
}

static uint32_t add_global_import_impl(tl_module *m, const char *name, const char *module,
                              const char *base, tl_type_t type, bool mutable_) {
  const char *who = "tl_add_global_import";
  if (!m) return TL_INVALID_INDEX;
  if (!is_basic(type)) return bad(m, "%s: bad type %u", who, type), TL_INVALID_INDEX;
  if (!module || !base) return bad(m, "%s: module or base name is NULL", who), TL_INVALID_INDEX;
  if (m->globals.n != m->nimported_globals)
    return bad(m, "%s: imports must come before defined globals", who), TL_INVALID_INDEX;
  m->nimported_globals++;
  return push_global(m, name, type, mutable_, NULL, module, base);
}

typedef struct {
  tl_module *m;
  const char *name;
  const char *module;
  const char *base;
  tl_type_t type;
  bool mutable_;
  uint32_t r;
} add_global_import_call;
static void add_global_import_run(void *c) {
  add_global_import_call *k_ = c;
  k_->r = add_global_import_impl(k_->m, k_->name, k_->module, k_->base, k_->type, k_->mutable_);
}
uint32_t tl_add_global_import(tl_module *m, const char *name, const char *module,
                              const char *base, tl_type_t type, bool mutable_) {
  add_global_import_call k_ = {m, name, module, base, type, mutable_, TL_INVALID_INDEX};
  capi_run(m, add_global_import_run, &k_);
  return k_.r;
}

static tl_status check_limits(tl_module *m, uint64_t initial, uint64_t maximum, bool has_max,
                              uint64_t limit, const char *who) {
  if (initial > limit) return bad(m, "%s: initial size %llu over %llu", who,
                                  (unsigned long long)initial, (unsigned long long)limit);
  if (has_max && (maximum > limit || maximum < initial))
    return bad(m, "%s: maximum %llu out of range", who, (unsigned long long)maximum);
  return TL_OK;
}

static tl_memory make_memory(uint32_t initial, uint32_t maximum, bool has_max, bool shared) {
  tl_memory mem;
  memset(&mem, 0, sizeof mem);
  mem.min = initial;
  mem.max = has_max ? maximum : 0;
  mem.has_max = has_max;
  mem.shared = shared;
  return mem;
}

static tl_status set_memory_impl(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max,
                        bool shared, const char *export_name) {
  const char *who = "tl_set_memory";
  if (!m) return TL_E_INVALID;
  if (check_limits(m, initial, maximum, has_max, MAX_PAGES, who)) return TL_E_INVALID;
  if (shared && !has_max) return bad(m, "%s: a shared memory needs a maximum", who);
  if (m->nimported_memories) return bad(m, "%s: memory 0 is imported", who);
  tl_memory mem = make_memory(initial, maximum, has_max, shared);
  if (m->memories.n) *TL_MEMORY(m, 0) = mem;
  else TL_VEC_PUSH(&m->memories, tl_memory, mem);
  return export_name ? tl_add_export(m, TL_EXPORT_MEMORY, 0, export_name) : TL_OK;
}

typedef struct {
  tl_module *m;
  uint32_t initial;
  uint32_t maximum;
  bool has_max;
  bool shared;
  const char *export_name;
  tl_status r;
} set_memory_call;
static void set_memory_run(void *c) {
  set_memory_call *k_ = c;
  k_->r = set_memory_impl(k_->m, k_->initial, k_->maximum, k_->has_max, k_->shared, k_->export_name);
}
tl_status tl_set_memory(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max,
                        bool shared, const char *export_name) {
  set_memory_call k_ = {m, initial, maximum, has_max, shared, export_name, TL_E_NOMEM};
  capi_run(m, set_memory_run, &k_);
  return k_.r;
}

static tl_status add_memory_import_impl(tl_module *m, const char *module, const char *base,
                               uint32_t initial, uint32_t maximum, bool has_max, bool shared) {
  const char *who = "tl_add_memory_import";
  if (!m) return TL_E_INVALID;
  if (check_limits(m, initial, maximum, has_max, MAX_PAGES, who)) return TL_E_INVALID;
  if (shared && !has_max) return bad(m, "%s: a shared memory needs a maximum", who);
  if (!module || !base) return bad(m, "%s: module or base name is NULL", who);
  if (m->memories.n) return bad(m, "%s: there is already a memory", who);
  tl_memory mem = make_memory(initial, maximum, has_max, shared);
  mem.imp.module = dup(m, module);
  mem.imp.name = dup(m, base);
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  m->nimported_memories++;
  return TL_OK;
}

typedef struct {
  tl_module *m;
  const char *module;
  const char *base;
  uint32_t initial;
  uint32_t maximum;
  bool has_max;
  bool shared;
  tl_status r;
} add_memory_import_call;
static void add_memory_import_run(void *c) {
  add_memory_import_call *k_ = c;
  k_->r = add_memory_import_impl(k_->m, k_->module, k_->base, k_->initial, k_->maximum, k_->has_max, k_->shared);
}
tl_status tl_add_memory_import(tl_module *m, const char *module, const char *base,
                               uint32_t initial, uint32_t maximum, bool has_max, bool shared) {
  add_memory_import_call k_ = {m, module, base, initial, maximum, has_max, shared, TL_E_NOMEM};
  capi_run(m, add_memory_import_run, &k_);
  return k_.r;
}

static uint32_t push_table(tl_module *m, tl_type elem, uint32_t initial, uint32_t maximum,
                           bool has_max, const char *module, const char *base,
                           const char *who);

static uint32_t add_memory_impl(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max, bool shared) {
  const char *who = "tl_add_memory";
  if (!m) return TL_INVALID_INDEX;
  if (check_limits(m, initial, maximum, has_max, MAX_PAGES, who)) return TL_INVALID_INDEX;
  if (shared && !has_max) return bad(m, "%s: a shared memory needs a maximum", who), TL_INVALID_INDEX;
  if (m->memories.n >= TL_MAX_MEMORIES) return bad(m, "%s: more than %u memories", who, TL_MAX_MEMORIES), TL_INVALID_INDEX;
  TL_VEC_PUSH(&m->memories, tl_memory, make_memory(initial, maximum, has_max, shared));
  return (uint32_t)m->memories.n - 1;
}

typedef struct {
  tl_module *m;
  uint32_t initial;
  uint32_t maximum;
  bool has_max;
  bool shared;
  uint32_t r;
} add_memory_call;
static void add_memory_run(void *c) {
  add_memory_call *k_ = c;
  k_->r = add_memory_impl(k_->m, k_->initial, k_->maximum, k_->has_max, k_->shared);
}
uint32_t tl_add_memory(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max, bool shared) {
  add_memory_call k_ = {m, initial, maximum, has_max, shared, TL_INVALID_INDEX};
  capi_run(m, add_memory_run, &k_);
  return k_.r;
}

static uint32_t add_memory64_impl(tl_module *m, uint64_t initial, uint64_t maximum, bool has_max, bool shared) {
  const char *who = "tl_add_memory64";
  if (!m) return TL_INVALID_INDEX;
  if (check_limits(m, initial, maximum, has_max, 1ull << 48, who)) return TL_INVALID_INDEX;
  if (shared && !has_max) return bad(m, "%s: a shared memory needs a maximum", who), TL_INVALID_INDEX;
  if (m->memories.n >= TL_MAX_MEMORIES) return bad(m, "%s: more than %u memories", who, TL_MAX_MEMORIES), TL_INVALID_INDEX;
  tl_memory mem = make_memory(0, 0, has_max, shared);
  mem.min = initial;
  mem.max = has_max ? maximum : 0;
  mem.is64 = true;
  TL_VEC_PUSH(&m->memories, tl_memory, mem);
  return (uint32_t)m->memories.n - 1;
}

typedef struct {
  tl_module *m;
  uint64_t initial;
  uint64_t maximum;
  bool has_max;
  bool shared;
  uint32_t r;
} add_memory64_call;
static void add_memory64_run(void *c) {
  add_memory64_call *k_ = c;
  k_->r = add_memory64_impl(k_->m, k_->initial, k_->maximum, k_->has_max, k_->shared);
}
uint32_t tl_add_memory64(tl_module *m, uint64_t initial, uint64_t maximum, bool has_max, bool shared) {
  add_memory64_call k_ = {m, initial, maximum, has_max, shared, TL_INVALID_INDEX};
  capi_run(m, add_memory64_run, &k_);
  return k_.r;
}

static uint32_t add_table64_impl(tl_module *m, tl_type_t elem_type, uint64_t initial, uint64_t maximum,
                        bool has_max) {
  const char *who = "tl_add_table64";
  if (!m) return TL_INVALID_INDEX;
  if (check_limits(m, initial, maximum, has_max, UINT64_MAX, who)) return TL_INVALID_INDEX;
  uint32_t i = push_table(m, elem_type, 0, 0, has_max, NULL, NULL, who);
  if (i == TL_INVALID_INDEX) return i;
  tl_table *t = TL_TABLE(m, i);
  t->min = initial;
  t->max = has_max ? maximum : 0;
  t->is64 = true;
  return i;
}

typedef struct {
  tl_module *m;
  tl_type_t elem_type;
  uint64_t initial;
  uint64_t maximum;
  bool has_max;
  uint32_t r;
} add_table64_call;
static void add_table64_run(void *c) {
  add_table64_call *k_ = c;
  k_->r = add_table64_impl(k_->m, k_->elem_type, k_->initial, k_->maximum, k_->has_max);
}
uint32_t tl_add_table64(tl_module *m, tl_type_t elem_type, uint64_t initial, uint64_t maximum,
                        bool has_max) {
  add_table64_call k_ = {m, elem_type, initial, maximum, has_max, TL_INVALID_INDEX};
  capi_run(m, add_table64_run, &k_);
  return k_.r;
}

static uint32_t push_table(tl_module *m, tl_type elem, uint32_t initial, uint32_t maximum,
                           bool has_max, const char *module, const char *base,
                           const char *who) {
  if (elem != TL_FUNCREF && elem != TL_EXTERNREF)
    return bad(m, "%s: element type %u is not a reference type", who, elem), TL_INVALID_INDEX;
  if (check_limits(m, initial, maximum, has_max, UINT32_MAX, who)) return TL_INVALID_INDEX;
  tl_table t;
  memset(&t, 0, sizeof t);
  t.elem = elem;
  t.min = initial;
  t.max = has_max ? maximum : 0;
  t.has_max = has_max;
  t.imp.module = dup(m, module);
  t.imp.name = dup(m, base);
  TL_VEC_PUSH(&m->tables, tl_table, t);
  return (uint32_t)m->tables.n - 1;
}

static uint32_t add_table_impl(tl_module *m, tl_type_t elem_type, uint32_t initial, uint32_t maximum,
                      bool has_max) {
  if (!m) return TL_INVALID_INDEX;
  return push_table(m, elem_type, initial, maximum, has_max, NULL, NULL, "tl_add_table");
}

typedef struct {
  tl_module *m;
  tl_type_t elem_type;
  uint32_t initial;
  uint32_t maximum;
  bool has_max;
  uint32_t r;
} add_table_call;
static void add_table_run(void *c) {
  add_table_call *k_ = c;
  k_->r = add_table_impl(k_->m, k_->elem_type, k_->initial, k_->maximum, k_->has_max);
}
uint32_t tl_add_table(tl_module *m, tl_type_t elem_type, uint32_t initial, uint32_t maximum,
                      bool has_max) {
  add_table_call k_ = {m, elem_type, initial, maximum, has_max, TL_INVALID_INDEX};
  capi_run(m, add_table_run, &k_);
  return k_.r;
}

static uint32_t add_table_import_impl(tl_module *m, const char *module, const char *base,
                             tl_type_t elem_type, uint32_t initial, uint32_t maximum,
                             bool has_max) {
  const char *who = "tl_add_table_import";
  if (!m) return TL_INVALID_INDEX;
  if (!module || !base) return bad(m, "%s: module or base name is NULL", who), TL_INVALID_INDEX;
  if (m->tables.n != m->nimported_tables)
    return bad(m, "%s: imports must come before defined tables", who), TL_INVALID_INDEX;
  uint32_t i = push_table(m, elem_type, initial, maximum, has_max, module, base, who);
  if (i != TL_INVALID_INDEX) m->nimported_tables++;
  return i;
}

typedef struct {
  tl_module *m;
  const char *module;
  const char *base;
  tl_type_t elem_type;
  uint32_t initial;
  uint32_t maximum;
  bool has_max;
  uint32_t r;
} add_table_import_call;
static void add_table_import_run(void *c) {
  add_table_import_call *k_ = c;
  k_->r = add_table_import_impl(k_->m, k_->module, k_->base, k_->elem_type, k_->initial, k_->maximum, k_->has_max);
}
uint32_t tl_add_table_import(tl_module *m, const char *module, const char *base,
                             tl_type_t elem_type, uint32_t initial, uint32_t maximum,
                             bool has_max) {
  add_table_import_call k_ = {m, module, base, elem_type, initial, maximum, has_max, TL_INVALID_INDEX};
  capi_run(m, add_table_import_run, &k_);
  return k_.r;
}

/* ---- exports, segments, start ------------------------------------------ */
static tl_status add_export_impl(tl_module *m, uint32_t kind, uint32_t internal_index,
                        const char *external_name) {
  const char *who = "tl_add_export";
  if (!m) return TL_E_INVALID;
  if (!external_name) return bad(m, "%s: name is NULL", who);
  static const char *const kinds[] = {"function", "table", "memory", "global"};
  size_t counts[] = {m->funcs.n, m->tables.n, m->memories.n, m->globals.n};
  if (kind > TL_EXPORT_GLOBAL) return bad(m, "%s: bad kind %u", who, kind);
  if (!in_range(m, internal_index, counts[kind], kinds[kind], who)) return TL_E_INVALID;
  tl_export x = {dup(m, external_name), (uint8_t)kind, internal_index, 0}; /* 0: C string */
  TL_VEC_PUSH(&m->exports, tl_export, x);
  return TL_OK;
}

typedef struct {
  tl_module *m;
  uint32_t kind;
  uint32_t internal_index;
  const char *external_name;
  tl_status r;
} add_export_call;
static void add_export_run(void *c) {
  add_export_call *k_ = c;
  k_->r = add_export_impl(k_->m, k_->kind, k_->internal_index, k_->external_name);
}
tl_status tl_add_export(tl_module *m, uint32_t kind, uint32_t internal_index,
                        const char *external_name) {
  add_export_call k_ = {m, kind, internal_index, external_name, TL_E_NOMEM};
  capi_run(m, add_export_run, &k_);
  return k_.r;
}

static uint32_t add_elem(tl_module *m, uint8_t mode, uint32_t table, tl_expr *offset,
                         const uint32_t *funcs, uint32_t n, const char *who) {
  if (!m) return TL_INVALID_INDEX;
  if (n && !funcs) return bad(m, "%s: funcs is NULL", who), TL_INVALID_INDEX;
  for (uint32_t i = 0; i < n; i++)
    if (!in_range(m, funcs[i], m->funcs.n, "function", who)) return TL_INVALID_INDEX;
  if (mode == TL_SEG_ACTIVE) {
    if (!in_range(m, table, m->tables.n, "table", who)) return TL_INVALID_INDEX;
    if (!offset) return bad(m, "%s: offset is NULL", who), TL_INVALID_INDEX;
  }
  tl_elem el;
  memset(&el, 0, sizeof el);
  el.mode = mode;
  el.table = mode == TL_SEG_ACTIVE ? table : 0;
  el.offset = mode == TL_SEG_ACTIVE ? offset : NULL;
  el.type = TL_FUNCREF;
  el.n = n;
  el.item = n ? TL_NEWN(&m->arena, tl_expr *, n) : NULL;
  for (uint32_t i = 0; i < n; i++) {
    el.item[i] = tl_expr_new(m, TL_OP_REF_FUNC, 0);
    el.item[i]->imm.index = funcs[i];
    tl_expr_finalize(m, NULL, el.item[i]);
  }
  TL_VEC_PUSH(&m->elems, tl_elem, el);
  return (uint32_t)m->elems.n - 1;
}

static uint32_t add_active_element_segment_impl(tl_module *m, uint32_t table, tl_expr_ref offset,
                                       const uint32_t *funcs, uint32_t n) {
  return add_elem(m, TL_SEG_ACTIVE, table, offset, funcs, n, "tl_add_active_element_segment");
}

typedef struct {
  tl_module *m;
  uint32_t table;
  tl_expr_ref offset;
  const uint32_t *funcs;
  uint32_t n;
  uint32_t r;
} add_active_element_segment_call;
static void add_active_element_segment_run(void *c) {
  add_active_element_segment_call *k_ = c;
  k_->r = add_active_element_segment_impl(k_->m, k_->table, k_->offset, k_->funcs, k_->n);
}
uint32_t tl_add_active_element_segment(tl_module *m, uint32_t table, tl_expr_ref offset,
                                       const uint32_t *funcs, uint32_t n) {
  add_active_element_segment_call k_ = {m, table, offset, funcs, n, TL_INVALID_INDEX};
  capi_run(m, add_active_element_segment_run, &k_);
  return k_.r;
}

static uint32_t add_passive_element_segment_impl(tl_module *m, const uint32_t *funcs, uint32_t n) {
  return add_elem(m, TL_SEG_PASSIVE, 0, NULL, funcs, n, "tl_add_passive_element_segment");
}

typedef struct {
  tl_module *m;
  const uint32_t *funcs;
  uint32_t n;
  uint32_t r;
} add_passive_element_segment_call;
static void add_passive_element_segment_run(void *c) {
  add_passive_element_segment_call *k_ = c;
  k_->r = add_passive_element_segment_impl(k_->m, k_->funcs, k_->n);
}
uint32_t tl_add_passive_element_segment(tl_module *m, const uint32_t *funcs, uint32_t n) {
  add_passive_element_segment_call k_ = {m, funcs, n, TL_INVALID_INDEX};
  capi_run(m, add_passive_element_segment_run, &k_);
  return k_.r;
}

static uint32_t add_declarative_element_segment_impl(tl_module *m, const uint32_t *funcs, uint32_t n) {
  return add_elem(m, TL_SEG_DECLARATIVE, 0, NULL, funcs, n,
                  "tl_add_declarative_element_segment");
}

typedef struct {
  tl_module *m;
  const uint32_t *funcs;
  uint32_t n;
  uint32_t r;
} add_declarative_element_segment_call;
static void add_declarative_element_segment_run(void *c) {
  add_declarative_element_segment_call *k_ = c;
  k_->r = add_declarative_element_segment_impl(k_->m, k_->funcs, k_->n);
}
uint32_t tl_add_declarative_element_segment(tl_module *m, const uint32_t *funcs, uint32_t n) {
  add_declarative_element_segment_call k_ = {m, funcs, n, TL_INVALID_INDEX};
  capi_run(m, add_declarative_element_segment_run, &k_);
  return k_.r;
}

static uint32_t add_data_segment_impl(tl_module *m, bool active, uint32_t memory, tl_expr_ref offset,
                             const void *bytes, uint32_t size) {
  const char *who = "tl_add_data_segment";
  if (!m) return TL_INVALID_INDEX;
  if (size && !bytes) return bad(m, "%s: bytes is NULL", who), TL_INVALID_INDEX;
  if (active) {
    if (!in_range(m, memory, m->memories.n, "memory", who)) return TL_INVALID_INDEX;
    if (!offset) return bad(m, "%s: offset is NULL", who), TL_INVALID_INDEX;
  }
  tl_data d;
  memset(&d, 0, sizeof d);
  d.mode = active ? TL_SEG_ACTIVE : TL_SEG_PASSIVE;
  d.mem = active ? memory : 0;
  d.offset = active ? offset : NULL;
  uint8_t *copy = size ? tl_arena_alloc(&m->arena, size, 1) : NULL;
  if (size) memcpy(copy, bytes, size);
  d.bytes = copy;
  d.size = size;
  TL_VEC_PUSH(&m->datas, tl_data, d);
  if (!active) m->has_datacount = true; /* memory.init/data.drop need it */
  return (uint32_t)m->datas.n - 1;
}

typedef struct {
  tl_module *m;
  bool active;
  uint32_t memory;
  tl_expr_ref offset;
  const void *bytes;
  uint32_t size;
  uint32_t r;
} add_data_segment_call;
static void add_data_segment_run(void *c) {
  add_data_segment_call *k_ = c;
  k_->r = add_data_segment_impl(k_->m, k_->active, k_->memory, k_->offset, k_->bytes, k_->size);
}
uint32_t tl_add_data_segment(tl_module *m, bool active, uint32_t memory, tl_expr_ref offset,
                             const void *bytes, uint32_t size) {
  add_data_segment_call k_ = {m, active, memory, offset, bytes, size, TL_INVALID_INDEX};
  capi_run(m, add_data_segment_run, &k_);
  return k_.r;
}

static tl_status set_start_impl(tl_module *m, uint32_t func) {
  if (!m) return TL_E_INVALID;
  if (!in_range(m, func, m->funcs.n, "function", "tl_set_start")) return TL_E_INVALID;
  m->has_start = true;
  m->start = func;
  return TL_OK;
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_status r;
} set_start_call;
static void set_start_run(void *c) {
  set_start_call *k_ = c;
  k_->r = set_start_impl(k_->m, k_->func);
}
tl_status tl_set_start(tl_module *m, uint32_t func) {
  set_start_call k_ = {m, func, TL_E_NOMEM};
  capi_run(m, set_start_run, &k_);
  return k_.r;
}

/* ---- the checked constructor ------------------------------------------- */
int tl_op_lookup(const char *text) { return text ? tl_op_by_name(text) : -1; }

const char *tl_op_name(int op) { return op >= 0 && op < TL_NOPS ? tl_ops[op].text : NULL; }

/* Operand counts of the SX rows (the others take exactly nops). */
static void special_arity(int op, uint32_t *lo, uint32_t *hi) {
  *lo = 0, *hi = UINT32_MAX;
  switch (op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_CALL: case TL_OP_RETURN_CALL: break;
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT: *lo = 1; break;
  case TL_OP_TUPLE_MAKE: *lo = 2; break;
  case TL_OP_IF: *lo = 2, *hi = 3; break;
  case TL_OP_BR: case TL_OP_RETURN: *hi = 1; break;
  case TL_OP_BR_IF: case TL_OP_BR_TABLE: *lo = 1, *hi = 2; break;
  case TL_OP_LOCAL_GET: case TL_OP_GLOBAL_GET: case TL_OP_REF_NULL: *hi = 0; break;
  case TL_OP_TABLE_SET: case TL_OP_TABLE_GROW: *lo = *hi = 2; break;
  case TL_OP_SELECT: case TL_OP_SELECT_T: case TL_OP_TABLE_FILL: *lo = *hi = 3; break;
  /* GC: struct.new and array.new_fixed take what their type says (validation checks) */
  case TL_OP_STRUCT_NEW: case TL_OP_ARRAY_NEW_FIXED: break;
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: *lo = 1; break;
  case TL_OP_STRUCT_NEW_DEFAULT: *hi = 0; break;
  case TL_OP_STRUCT_SET: case TL_OP_ARRAY_NEW: case TL_OP_ARRAY_NEW_DATA: case TL_OP_ARRAY_NEW_ELEM:
  case TL_OP_ARRAY_GET: case TL_OP_ARRAY_GET_S: case TL_OP_ARRAY_GET_U: case TL_OP_REF_EQ: *lo = *hi = 2; break;
  case TL_OP_ARRAY_SET: *lo = *hi = 3; break;
  case TL_OP_ARRAY_FILL: case TL_OP_ARRAY_INIT_DATA: case TL_OP_ARRAY_INIT_ELEM: *lo = *hi = 4; break;
  case TL_OP_ARRAY_COPY: *lo = *hi = 5; break;
  case TL_OP_REF_AS_NON_NULL: case TL_OP_BR_ON_NULL: case TL_OP_BR_ON_NON_NULL: case TL_OP_STRUCT_GET:
  case TL_OP_STRUCT_GET_S: case TL_OP_STRUCT_GET_U: case TL_OP_ARRAY_LEN: case TL_OP_REF_TEST: case TL_OP_REF_TEST_NULL:
  case TL_OP_REF_CAST: case TL_OP_REF_CAST_NULL: case TL_OP_BR_ON_CAST: case TL_OP_BR_ON_CAST_FAIL:
  case TL_OP_ANY_CONVERT_EXTERN: case TL_OP_EXTERN_CONVERT_ANY: case TL_OP_REF_I31: case TL_OP_I31_GET_S:
  case TL_OP_I31_GET_U: case TL_OP_TUPLE_EXTRACT:
    *lo = *hi = 1;
    break;
  }
}

/* Allocates a node of op with nkid (still empty) kids, after checking the
 * opcode, the function context and the operand count. */
static tl_expr *start(tl_module *m, uint32_t func, int op, uint32_t nkid, tl_func **f) {
  if (op < 0 || op >= TL_NOPS) return bad(m, "tl_build_op: unknown opcode %d", op), NULL;
  const tl_opinfo *oi = &tl_ops[op];
  if (oi->flags & TL_F_MARKER) return bad(m, "'%s' is not an instruction node", oi->text), NULL;
  if (!func_ctx(m, func, f, oi->text)) return NULL;
  uint32_t lo = oi->nops, hi = oi->nops;
  if (oi->nops == TL_SIG_SPECIAL) special_arity(op, &lo, &hi);
  if (nkid < lo || nkid > hi) {
    if (hi == UINT32_MAX) bad(m, "%s: %u operands given, takes at least %u", oi->text, nkid, lo);
    else bad(m, "%s: %u operands given, takes %u to %u", oi->text, nkid, lo, hi);
    return NULL;
  }
  return tl_expr_new(m, (tl_op)op, nkid);
}

static bool need_func(tl_module *m, tl_func *f, const char *who) {
  if (f) return true;
  bad(m, "%s: needs a function (func is TL_NO_FUNC)", who);
  return false;
}

static bool label_ok(tl_module *m, tl_func *f, tl_label_t l, const char *who) {
  if (!need_func(m, f, who)) return false;
  if (l < f->nlabel) return true;
  bad(m, "%s: label %u is not a label of this function (%u made)", who, l, f->nlabel);
  return false;
}

static bool set_br_table(tl_module *m, tl_func *f, tl_expr *e, const tl_imm_args *a) {
  const char *who = "br_table";
  if (a->ntargets && !a->targets) return bad(m, "%s: targets is NULL", who), false;
  for (uint32_t i = 0; i < a->ntargets; i++)
    if (!label_ok(m, f, a->targets[i], who)) return false;
  if (!label_ok(m, f, a->label, who)) return false;
  e->imm.table = tl_brtable_new(m, a->ntargets);
  e->imm.table->def = a->label;
  if (a->ntargets) memcpy(e->imm.table->targets, a->targets, a->ntargets * sizeof(uint32_t));
  return true;
}

/* Number of lanes of a lane op: from its name ("i16x8." -> 8), or for
 * the *_lane memory accesses from the lane size. */
static uint32_t lane_count(int op) {
  if (tl_ops[op].imm == TL_IMM_MEMARG_LANE) return 16u >> tl_op_natural_align(op);
  const char *x = strchr(tl_ops[op].text, 'x');
  return x ? (uint32_t)strtoul(x + 1, NULL, 10) : 0;
}

static bool set_memarg(tl_module *m, tl_expr *e, const tl_imm_args *a) {
  const char *who = tl_ops[e->op].text;
  uint32_t natural = tl_op_natural_align(e->op), lg = natural;
  if (a->align) {
    if (a->align & (a->align - 1))
      return bad(m, "%s: alignment %u is not a power of two", who, a->align), false;
    for (lg = 0; (1u << lg) < a->align; lg++) {}
    if (lg > natural)
      return bad(m, "%s: alignment %u over the natural %u", who, a->align, 1u << natural), false;
  }
  if (a->index > UINT16_MAX)
    return bad(m, "%s: memory index %u over %u", who, a->index, TL_MAX_MEMORIES - 1), false;
  /* above 4 GiB: out of line; the validator refuses it on a 32-bit memory */
  tl_memarg ma = e->imm.mem; /* a copy: e is packed */
  tl_memarg_set_offset(m, &ma, a->offset);
  e->imm.mem = ma;
  e->imm.mem.align = lg;
  e->imm.mem.mem = (uint16_t)a->index;
  if (tl_ops[e->op].imm == TL_IMM_MEMARG_LANE) {
    if (a->lane >= lane_count(e->op)) return bad(m, "%s: lane %u out of range", who, a->lane), false;
    e->imm.mem.lane = (uint8_t)a->lane;
  }
  return true;
}

static bool set_index2(tl_module *m, tl_expr *e, const tl_imm_args *a) {
  const char *who = tl_ops[e->op].text;
  e->imm.idx2.a = a->index;
  e->imm.idx2.b = a->index2;
  switch (tl_ops[e->op].imm) {
  case TL_IMM_CALL_INDIRECT: return in_range(m, a->index, m->types.n, "type", who);
  default: return true; /* tables, memories, segments: not checked here */
  }
}

static bool set_lane(tl_module *m, tl_expr *e, const tl_imm_args *a) {
  if (a->lane >= lane_count(e->op))
    return bad(m, "%s: lane %u out of range", tl_ops[e->op].text, a->lane), false;
  e->imm.mem.lane = (uint8_t)a->lane;
  return true;
}

static bool set_bytes(tl_module *m, tl_expr *e, const tl_imm_args *a) {
  memcpy(e->imm.v128, a->bytes, 16); /* tl_expr_new allocated them */
  if (e->op != TL_OP_I8X16_SHUFFLE) return true;
  for (int i = 0; i < 16; i++)
    if (a->bytes[i] >= 32) return bad(m, "i8x16.shuffle: lane index %u >= 32", a->bytes[i]), false;
  return true;
}

static bool set_type_imm(tl_module *m, tl_expr *e, const tl_imm_args *a) {
  e->imm.index = a->type;
  if (e->op == TL_OP_REF_NULL ? tl_type_is_ref(a->type) && tl_type_valid(m, a->type) : is_basic(a->type)) return true;
  return bad(m, "%s: bad type %u", tl_ops[e->op].text, a->type), false;
}

static bool set_tuple_index(tl_module *m, tl_expr *e, const tl_imm_args *a) {
  tl_type t = e->nkid && e->kid[0] ? e->kid[0]->type : TL_NONE;
  e->imm.index = a->index;
  if (t == TL_UNREACHABLE || (tl_type_is_tuple(t) && a->index < tl_type_arity(m, t))) return true;
  return bad(m, "tuple.extract: index %u of a non-tuple or too short tuple", a->index), false;
}

/* Fills e's immediates from a, checking the indices the node's type depends
 * on (and the labels, lanes and alignment); other indices are left to the
 * validator, so that code may be built before tables, memories and segments
 * are declared. */
/* The kind of type a GC instruction's type index must name (finalize.c
 * reads its fields): struct.*, array.*, call_ref. */
static bool gc_kind_ok(tl_module *m, int op, uint32_t idx) {
  int want = -1;
  const char *text = tl_ops[op].text;
  if (!strncmp(text, "struct.", 7)) want = TL_DT_STRUCT;
  else if (!strncmp(text, "array.", 6)) want = TL_DT_ARRAY;
  else if (op == TL_OP_CALL_REF || op == TL_OP_RETURN_CALL_REF) want = TL_DT_FUNC;
  if (want < 0 || TL_FTYPE(m, idx)->kind == want) return true;
  return bad(m, "%s: type %u is of the wrong kind", text, idx), false;
}

/* GC immediates (tl_imm_args): index (a type index) and index2 (field,
 * count, data, elem or source array type); ref.test/ref.cast: type (the
 * target reference type); br_on_cast(_fail): label and type. */
static bool set_gc_imm(tl_module *m, tl_func *f, tl_expr *e, const tl_imm_args *a) {
  const char *who = tl_ops[e->op].text;
  uint8_t k = tl_ops[e->op].imm;
  if (k == TL_IMM_CAST || k == TL_IMM_BR_CAST) {
    if (!tl_type_is_ref(a->type) || !tl_type_valid(m, a->type))
      return bad(m, "%s: bad reference type %u", who, a->type), false;
    if (k == TL_IMM_CAST) return e->imm.index = a->type, true;
    e->imm.idx2.a = a->label, e->imm.idx2.b = a->type;
    return label_ok(m, f, a->label, who);
  }
  e->imm.idx2.a = a->index, e->imm.idx2.b = a->index2;
  if (!in_range(m, a->index, m->types.n, "type", who) || !gc_kind_ok(m, e->op, a->index)) return false;
  switch (k) {
  case TL_IMM_TYPE_FIELD: return in_range(m, a->index2, TL_FTYPE(m, a->index)->nfields, "field", who);
  case TL_IMM_TYPE_TYPE:
    return in_range(m, a->index2, m->types.n, "type", who) && gc_kind_ok(m, e->op, a->index2);
  default: return true; /* count: checked against the operands by validation; segments: not here */
  }
}

static bool set_imm(tl_module *m, tl_func *f, tl_expr *e, const tl_imm_args *a) {
  const char *who = tl_ops[e->op].text;
  switch ((tl_imm_kind)tl_ops[e->op].imm) {
  case TL_IMM_NONE: case TL_IMM_FENCE: return true;
  case TL_IMM_BLOCK:
    e->imm.block.label = a->label;
    return a->label == TL_LABEL_NONE || label_ok(m, f, a->label, who);
  case TL_IMM_LABEL: e->imm.label = a->label; return label_ok(m, f, a->label, who);
  case TL_IMM_BR_TABLE: return set_br_table(m, f, e, a);
  case TL_IMM_FUNC: e->imm.index = a->index; return in_range(m, a->index, m->funcs.n, "function", who);
  case TL_IMM_TYPE:
    e->imm.index = a->index;
    return in_range(m, a->index, m->types.n, "type", who) && gc_kind_ok(m, e->op, a->index);
  case TL_IMM_LOCAL:
    e->imm.index = a->index;
    return need_func(m, f, who) && in_range(m, a->index, f->nlocal, "local", who);
  case TL_IMM_GLOBAL: e->imm.index = a->index; return in_range(m, a->index, m->globals.n, "global", who);
  case TL_IMM_TABLE: /* only table.get's type depends on its table */
    e->imm.index = a->index;
    return e->op != TL_OP_TABLE_GET || in_range(m, a->index, m->tables.n, "table", who);
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: return set_memarg(m, e, a);
  case TL_IMM_MEM: case TL_IMM_DATA: case TL_IMM_ELEM: e->imm.index = a->index; return true;
  case TL_IMM_CALL_INDIRECT: case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT:
  case TL_IMM_TABLE_INIT: case TL_IMM_TABLE_COPY: return set_index2(m, e, a);
  case TL_IMM_I32: e->imm.i32 = (int32_t)a->value; return true;
  case TL_IMM_I64: e->imm.i64 = a->value; return true;
  case TL_IMM_F32: e->imm.f32 = (uint32_t)a->value; return true;
  case TL_IMM_F64: e->imm.f64 = (uint64_t)a->value; return true;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: return set_bytes(m, e, a);
  case TL_IMM_LANE: return set_lane(m, e, a);
  case TL_IMM_REFTYPE: case TL_IMM_SELECT_T: return set_type_imm(m, e, a);
  case TL_IMM_TUPLE_INDEX: return set_tuple_index(m, e, a);
  case TL_IMM_TAG: case TL_IMM_CATCH: case TL_IMM_CLAUSE: case TL_IMM_TRY_TABLE:
    return bad(m, "%s: exception-handling nodes cannot be built through the C API yet", who), false;
  case TL_IMM_TYPE_FIELD: case TL_IMM_TYPE_COUNT: case TL_IMM_TYPE_DATA: case TL_IMM_TYPE_ELEM:
  case TL_IMM_TYPE_TYPE: case TL_IMM_CAST: case TL_IMM_BR_CAST:
    return set_gc_imm(m, f, e, a);
  }
  return bad(m, "%s: unknown immediate kind", who), false;
}

/* Completes a node whose kids are filled in: no NULL kids, immediates
 * checked, tuple.make elements basic; then finalized. */
static tl_expr *finish(tl_module *m, tl_func *f, tl_expr *e, const tl_imm_args *a) {
  static const tl_imm_args none = TL_IMM_ARGS_INIT;
  const char *who = tl_ops[e->op].text;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (!e->kid[i]) return bad(m, "%s: operand %u is NULL", who, i), NULL;
  if (e->op == TL_OP_TUPLE_MAKE)
    for (uint32_t i = 0; i < e->nkid; i++)
      if (!is_basic(e->kid[i]->type) && e->kid[i]->type != TL_UNREACHABLE)
        return bad(m, "tuple.make: element %u is not a basic value", i), NULL;
  if (!set_imm(m, f, e, a ? a : &none)) return NULL;
  type_node(m, f, e);
  return e;
}

static tl_expr_ref build_op_impl(tl_module *m, uint32_t func, int op, const tl_expr_ref *kids,
                        uint32_t nkid, const tl_imm_args *imm) {
  if (!m) return NULL;
  if (nkid && !kids) return bad(m, "tl_build_op: kids is NULL"), NULL;
  tl_func *f;
  tl_expr *e = start(m, func, op, nkid, &f);
  if (!e) return NULL;
  if (nkid) memcpy(e->kid, kids, nkid * sizeof *kids);
  return finish(m, f, e, imm);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  int op;
  const tl_expr_ref *kids;
  uint32_t nkid;
  const tl_imm_args *imm;
  tl_expr_ref r;
} build_op_call;
static void build_op_run(void *c) {
  build_op_call *k_ = c;
  k_->r = build_op_impl(k_->m, k_->func, k_->op, k_->kids, k_->nkid, k_->imm);
}
tl_expr_ref tl_build_op(tl_module *m, uint32_t func, int op, const tl_expr_ref *kids,
                        uint32_t nkid, const tl_imm_args *imm) {
  build_op_call k_ = {m, func, op, kids, nkid, imm, NULL};
  capi_run(m, build_op_run, &k_);
  return k_.r;
}

/* ---- shorthands -------------------------------------------------------- */
/* op < 0: named() failed and recorded why. */
static tl_expr *op0(tl_module *m, int op, const tl_imm_args *a) {
  if (op < 0) return NULL;
  return tl_build_op(m, TL_NO_FUNC, op, NULL, 0, a);
}
static tl_expr *op1(tl_module *m, int op, tl_expr *x, const tl_imm_args *a) {
  if (op < 0) return NULL;
  return tl_build_op(m, TL_NO_FUNC, op, &x, 1, a);
}
static tl_expr *op2(tl_module *m, int op, tl_expr *x, tl_expr *y, const tl_imm_args *a) {
  if (op < 0) return NULL;
  tl_expr *k[2] = {x, y};
  return tl_build_op(m, TL_NO_FUNC, op, k, 2, a);
}
static tl_expr *op3(tl_module *m, int op, tl_expr *x, tl_expr *y, tl_expr *z,
                    const tl_imm_args *a) {
  if (op < 0) return NULL;
  tl_expr *k[3] = {x, y, z};
  return tl_build_op(m, TL_NO_FUNC, op, k, 3, a);
}

/* The opcode named text, if its immediates are of kind imm (-1: any) and
 * it takes nops operands (-1: any); -1 with the error recorded otherwise. */
static int named(tl_module *m, const char *text, int imm, int nops, const char *who) {
  if (!m) return -1;
  int op = tl_op_lookup(text);
  if (op < 0) return bad(m, "%s: unknown instruction '%s'", who, text ? text : "(null)"), -1;
  const tl_opinfo *oi = &tl_ops[op];
  if ((imm >= 0 && oi->imm != imm) || (nops >= 0 && oi->nops != TL_SIG_SPECIAL && oi->nops != nops))
    return bad(m, "%s: '%s' does not fit this builder", who, text), -1;
  return op;
}

static tl_expr_ref build_const_i32_impl(tl_module *m, int32_t v) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = v;
  return op0(m, TL_OP_I32_CONST, &a);
}

typedef struct {
  tl_module *m;
  int32_t v;
  tl_expr_ref r;
} build_const_i32_call;
static void build_const_i32_run(void *c) {
  build_const_i32_call *k_ = c;
  k_->r = build_const_i32_impl(k_->m, k_->v);
}
tl_expr_ref tl_build_const_i32(tl_module *m, int32_t v) {
  build_const_i32_call k_ = {m, v, NULL};
  capi_run(m, build_const_i32_run, &k_);
  return k_.r;
}
static tl_expr_ref build_const_i64_impl(tl_module *m, int64_t v) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = v;
  return op0(m, TL_OP_I64_CONST, &a);
}

typedef struct {
  tl_module *m;
  int64_t v;
  tl_expr_ref r;
} build_const_i64_call;
static void build_const_i64_run(void *c) {
  build_const_i64_call *k_ = c;
  k_->r = build_const_i64_impl(k_->m, k_->v);
}
tl_expr_ref tl_build_const_i64(tl_module *m, int64_t v) {
  build_const_i64_call k_ = {m, v, NULL};
  capi_run(m, build_const_i64_run, &k_);
  return k_.r;
}
static tl_expr_ref build_const_f32_bits_impl(tl_module *m, uint32_t bits) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = bits;
  return op0(m, TL_OP_F32_CONST, &a);
}

typedef struct {
  tl_module *m;
  uint32_t bits;
  tl_expr_ref r;
} build_const_f32_bits_call;
static void build_const_f32_bits_run(void *c) {
  build_const_f32_bits_call *k_ = c;
  k_->r = build_const_f32_bits_impl(k_->m, k_->bits);
}
tl_expr_ref tl_build_const_f32_bits(tl_module *m, uint32_t bits) {
  build_const_f32_bits_call k_ = {m, bits, NULL};
  capi_run(m, build_const_f32_bits_run, &k_);
  return k_.r;
}
static tl_expr_ref build_const_f64_bits_impl(tl_module *m, uint64_t bits) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = (int64_t)bits;
  return op0(m, TL_OP_F64_CONST, &a);
}

typedef struct {
  tl_module *m;
  uint64_t bits;
  tl_expr_ref r;
} build_const_f64_bits_call;
static void build_const_f64_bits_run(void *c) {
  build_const_f64_bits_call *k_ = c;
  k_->r = build_const_f64_bits_impl(k_->m, k_->bits);
}
tl_expr_ref tl_build_const_f64_bits(tl_module *m, uint64_t bits) {
  build_const_f64_bits_call k_ = {m, bits, NULL};
  capi_run(m, build_const_f64_bits_run, &k_);
  return k_.r;
}
static tl_expr_ref build_const_f32_impl(tl_module *m, float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return tl_build_const_f32_bits(m, bits);
}

typedef struct {
  tl_module *m;
  float v;
  tl_expr_ref r;
} build_const_f32_call;
static void build_const_f32_run(void *c) {
  build_const_f32_call *k_ = c;
  k_->r = build_const_f32_impl(k_->m, k_->v);
}
tl_expr_ref tl_build_const_f32(tl_module *m, float v) {
  build_const_f32_call k_ = {m, v, NULL};
  capi_run(m, build_const_f32_run, &k_);
  return k_.r;
}
static tl_expr_ref build_const_f64_impl(tl_module *m, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return tl_build_const_f64_bits(m, bits);
}

typedef struct {
  tl_module *m;
  double v;
  tl_expr_ref r;
} build_const_f64_call;
static void build_const_f64_run(void *c) {
  build_const_f64_call *k_ = c;
  k_->r = build_const_f64_impl(k_->m, k_->v);
}
tl_expr_ref tl_build_const_f64(tl_module *m, double v) {
  build_const_f64_call k_ = {m, v, NULL};
  capi_run(m, build_const_f64_run, &k_);
  return k_.r;
}
static tl_expr_ref build_const_v128_impl(tl_module *m, const uint8_t bytes[16]) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  if (m && !bytes) return bad(m, "v128.const: bytes is NULL"), NULL;
  if (bytes) memcpy(a.bytes, bytes, 16);
  return op0(m, TL_OP_V128_CONST, &a);
}

typedef struct {
  tl_module *m;
  const uint8_t *bytes;
  tl_expr_ref r;
} build_const_v128_call;
static void build_const_v128_run(void *c) {
  build_const_v128_call *k_ = c;
  k_->r = build_const_v128_impl(k_->m, k_->bytes);
}
tl_expr_ref tl_build_const_v128(tl_module *m, const uint8_t bytes[16]) {
  build_const_v128_call k_ = {m, bytes, NULL};
  capi_run(m, build_const_v128_run, &k_);
  return k_.r;
}

static tl_expr_ref build_unary_impl(tl_module *m, const char *op, tl_expr_ref a) {
  return op1(m, named(m, op, TL_IMM_NONE, 1, "tl_build_unary"), a, NULL);
}

typedef struct {
  tl_module *m;
  const char *op;
  tl_expr_ref a;
  tl_expr_ref r;
} build_unary_call;
static void build_unary_run(void *c) {
  build_unary_call *k_ = c;
  k_->r = build_unary_impl(k_->m, k_->op, k_->a);
}
tl_expr_ref tl_build_unary(tl_module *m, const char *op, tl_expr_ref a) {
  build_unary_call k_ = {m, op, a, NULL};
  capi_run(m, build_unary_run, &k_);
  return k_.r;
}
static tl_expr_ref build_binary_impl(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b) {
  return op2(m, named(m, op, TL_IMM_NONE, 2, "tl_build_binary"), a, b, NULL);
}

typedef struct {
  tl_module *m;
  const char *op;
  tl_expr_ref a;
  tl_expr_ref b;
  tl_expr_ref r;
} build_binary_call;
static void build_binary_run(void *c) {
  build_binary_call *k_ = c;
  k_->r = build_binary_impl(k_->m, k_->op, k_->a, k_->b);
}
tl_expr_ref tl_build_binary(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b) {
  build_binary_call k_ = {m, op, a, b, NULL};
  capi_run(m, build_binary_run, &k_);
  return k_.r;
}
static tl_expr_ref build_ternary_impl(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b,
                             tl_expr_ref c) {
  return op3(m, named(m, op, TL_IMM_NONE, 3, "tl_build_ternary"), a, b, c, NULL);
}

typedef struct {
  tl_module *m;
  const char *op;
  tl_expr_ref a;
  tl_expr_ref b;
  tl_expr_ref c;
  tl_expr_ref r;
} build_ternary_call;
static void build_ternary_run(void *c) {
  build_ternary_call *k_ = c;
  k_->r = build_ternary_impl(k_->m, k_->op, k_->a, k_->b, k_->c);
}
tl_expr_ref tl_build_ternary(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b,
                             tl_expr_ref c) {
  build_ternary_call k_ = {m, op, a, b, c, NULL};
  capi_run(m, build_ternary_run, &k_);
  return k_.r;
}
static tl_expr_ref build_nop_impl(tl_module *m) { return op0(m, TL_OP_NOP, NULL); }

typedef struct {
  tl_module *m;
  tl_expr_ref r;
} build_nop_call;
static void build_nop_run(void *c) {
  build_nop_call *k_ = c;
  k_->r = build_nop_impl(k_->m);
}
tl_expr_ref tl_build_nop(tl_module *m) {
  build_nop_call k_ = {m, NULL};
  capi_run(m, build_nop_run, &k_);
  return k_.r;
}
static tl_expr_ref build_unreachable_impl(tl_module *m) { return op0(m, TL_OP_UNREACHABLE, NULL); }

typedef struct {
  tl_module *m;
  tl_expr_ref r;
} build_unreachable_call;
static void build_unreachable_run(void *c) {
  build_unreachable_call *k_ = c;
  k_->r = build_unreachable_impl(k_->m);
}
tl_expr_ref tl_build_unreachable(tl_module *m) {
  build_unreachable_call k_ = {m, NULL};
  capi_run(m, build_unreachable_run, &k_);
  return k_.r;
}
static tl_expr_ref build_drop_impl(tl_module *m, tl_expr_ref value) { return op1(m, TL_OP_DROP, value, NULL); }

typedef struct {
  tl_module *m;
  tl_expr_ref value;
  tl_expr_ref r;
} build_drop_call;
static void build_drop_run(void *c) {
  build_drop_call *k_ = c;
  k_->r = build_drop_impl(k_->m, k_->value);
}
tl_expr_ref tl_build_drop(tl_module *m, tl_expr_ref value) {
  build_drop_call k_ = {m, value, NULL};
  capi_run(m, build_drop_run, &k_);
  return k_.r;
}

static tl_expr_ref build_select_impl(tl_module *m, tl_expr_ref cond, tl_expr_ref if_true,
                            tl_expr_ref if_false, tl_type_t type) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.type = type;
  if (type == TL_TYPE_AUTO && if_true && if_false) {
    tl_type t = if_true->type != TL_UNREACHABLE ? if_true->type : if_false->type;
    if (!tl_type_is_ref(t)) return op3(m, TL_OP_SELECT, if_true, if_false, cond, NULL);
    a.type = t;
  }
  return op3(m, TL_OP_SELECT_T, if_true, if_false, cond, &a);
}

typedef struct {
  tl_module *m;
  tl_expr_ref cond;
  tl_expr_ref if_true;
  tl_expr_ref if_false;
  tl_type_t type;
  tl_expr_ref r;
} build_select_call;
static void build_select_run(void *c) {
  build_select_call *k_ = c;
  k_->r = build_select_impl(k_->m, k_->cond, k_->if_true, k_->if_false, k_->type);
}
tl_expr_ref tl_build_select(tl_module *m, tl_expr_ref cond, tl_expr_ref if_true,
                            tl_expr_ref if_false, tl_type_t type) {
  build_select_call k_ = {m, cond, if_true, if_false, type, NULL};
  capi_run(m, build_select_run, &k_);
  return k_.r;
}

/* ---- control ----------------------------------------------------------- */
static tl_expr *build_list(tl_module *m, uint32_t func, int op, tl_label_t label,
                           const tl_expr_ref *kids, uint32_t n, tl_type_t rt) {
  if (!m) return NULL;
  if (rt != TL_TYPE_AUTO && rt != TL_NONE && !is_value_type(m, rt))
    return bad(m, "%s: bad result type %u", tl_ops[op].text, rt), NULL;
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = label;
  tl_expr *e = tl_build_op(m, func, op, kids, n, &a);
  if (e && rt != TL_TYPE_AUTO && e->type != rt && e->type != TL_UNREACHABLE)
    return bad(m, "%s: contents have type %u, not the result type %u", tl_ops[op].text,
               e->type, rt), NULL;
  return e;
}

static tl_expr_ref build_block_impl(tl_module *m, uint32_t func, tl_label_t label,
                           const tl_expr_ref *kids, uint32_t n, tl_type_t result_type) {
  return build_list(m, func, TL_OP_BLOCK, label, kids, n, result_type);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_label_t label;
  const tl_expr_ref *kids;
  uint32_t n;
  tl_type_t result_type;
  tl_expr_ref r;
} build_block_call;
static void build_block_run(void *c) {
  build_block_call *k_ = c;
  k_->r = build_block_impl(k_->m, k_->func, k_->label, k_->kids, k_->n, k_->result_type);
}
tl_expr_ref tl_build_block(tl_module *m, uint32_t func, tl_label_t label,
                           const tl_expr_ref *kids, uint32_t n, tl_type_t result_type) {
  build_block_call k_ = {m, func, label, kids, n, result_type, NULL};
  capi_run(m, build_block_run, &k_);
  return k_.r;
}
static tl_expr_ref build_loop_impl(tl_module *m, uint32_t func, tl_label_t label,
                          const tl_expr_ref *kids, uint32_t n, tl_type_t result_type) {
  return build_list(m, func, TL_OP_LOOP, label, kids, n, result_type);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_label_t label;
  const tl_expr_ref *kids;
  uint32_t n;
  tl_type_t result_type;
  tl_expr_ref r;
} build_loop_call;
static void build_loop_run(void *c) {
  build_loop_call *k_ = c;
  k_->r = build_loop_impl(k_->m, k_->func, k_->label, k_->kids, k_->n, k_->result_type);
}
tl_expr_ref tl_build_loop(tl_module *m, uint32_t func, tl_label_t label,
                          const tl_expr_ref *kids, uint32_t n, tl_type_t result_type) {
  build_loop_call k_ = {m, func, label, kids, n, result_type, NULL};
  capi_run(m, build_loop_run, &k_);
  return k_.r;
}
static tl_expr_ref build_if_impl(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                        tl_expr_ref then_, tl_expr_ref else_) {
  tl_expr *k[3] = {cond, then_, else_};
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = label;
  return tl_build_op(m, func, TL_OP_IF, k, else_ ? 3 : 2, &a);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_label_t label;
  tl_expr_ref cond;
  tl_expr_ref then_;
  tl_expr_ref else_;
  tl_expr_ref r;
} build_if_call;
static void build_if_run(void *c) {
  build_if_call *k_ = c;
  k_->r = build_if_impl(k_->m, k_->func, k_->label, k_->cond, k_->then_, k_->else_);
}
tl_expr_ref tl_build_if(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                        tl_expr_ref then_, tl_expr_ref else_) {
  build_if_call k_ = {m, func, label, cond, then_, else_, NULL};
  capi_run(m, build_if_run, &k_);
  return k_.r;
}

static tl_expr_ref build_br_impl(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = label;
  return tl_build_op(m, func, TL_OP_BR, &value, value ? 1 : 0, &a);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_label_t label;
  tl_expr_ref value;
  tl_expr_ref r;
} build_br_call;
static void build_br_run(void *c) {
  build_br_call *k_ = c;
  k_->r = build_br_impl(k_->m, k_->func, k_->label, k_->value);
}
tl_expr_ref tl_build_br(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref value) {
  build_br_call k_ = {m, func, label, value, NULL};
  capi_run(m, build_br_run, &k_);
  return k_.r;
}
static tl_expr_ref build_br_if_impl(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                           tl_expr_ref value) {
  tl_expr *k[2] = {value ? value : cond, cond};
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = label;
  return tl_build_op(m, func, TL_OP_BR_IF, value ? k : k + 1, value ? 2 : 1, &a);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_label_t label;
  tl_expr_ref cond;
  tl_expr_ref value;
  tl_expr_ref r;
} build_br_if_call;
static void build_br_if_run(void *c) {
  build_br_if_call *k_ = c;
  k_->r = build_br_if_impl(k_->m, k_->func, k_->label, k_->cond, k_->value);
}
tl_expr_ref tl_build_br_if(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                           tl_expr_ref value) {
  build_br_if_call k_ = {m, func, label, cond, value, NULL};
  capi_run(m, build_br_if_run, &k_);
  return k_.r;
}
static tl_expr_ref build_br_table_impl(tl_module *m, uint32_t func, const tl_label_t *labels,
                              uint32_t n, tl_label_t default_label, tl_expr_ref index,
                              tl_expr_ref value) {
  tl_expr *k[2] = {value ? value : index, index};
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = default_label;
  a.targets = labels;
  a.ntargets = n;
  return tl_build_op(m, func, TL_OP_BR_TABLE, value ? k : k + 1, value ? 2 : 1, &a);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  const tl_label_t *labels;
  uint32_t n;
  tl_label_t default_label;
  tl_expr_ref index;
  tl_expr_ref value;
  tl_expr_ref r;
} build_br_table_call;
static void build_br_table_run(void *c) {
  build_br_table_call *k_ = c;
  k_->r = build_br_table_impl(k_->m, k_->func, k_->labels, k_->n, k_->default_label, k_->index, k_->value);
}
tl_expr_ref tl_build_br_table(tl_module *m, uint32_t func, const tl_label_t *labels,
                              uint32_t n, tl_label_t default_label, tl_expr_ref index,
                              tl_expr_ref value) {
  build_br_table_call k_ = {m, func, labels, n, default_label, index, value, NULL};
  capi_run(m, build_br_table_run, &k_);
  return k_.r;
}
static tl_expr_ref build_return_impl(tl_module *m, tl_expr_ref value) {
  return tl_build_op(m, TL_NO_FUNC, TL_OP_RETURN, &value, value ? 1 : 0, NULL);
}

typedef struct {
  tl_module *m;
  tl_expr_ref value;
  tl_expr_ref r;
} build_return_call;
static void build_return_run(void *c) {
  build_return_call *k_ = c;
  k_->r = build_return_impl(k_->m, k_->value);
}
tl_expr_ref tl_build_return(tl_module *m, tl_expr_ref value) {
  build_return_call k_ = {m, value, NULL};
  capi_run(m, build_return_run, &k_);
  return k_.r;
}

static tl_expr *call(tl_module *m, int op, uint32_t target, const tl_expr_ref *args,
                     uint32_t n) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = target;
  return tl_build_op(m, TL_NO_FUNC, op, args, n, &a);
}

/* args..., then the table index operand. */
static tl_expr *call_indirect(tl_module *m, int op, uint32_t table, uint32_t type_index,
                              tl_expr *target, const tl_expr_ref *args, uint32_t n) {
  if (!m) return NULL;
  if (n && !args) return bad(m, "%s: args is NULL", tl_ops[op].text), NULL;
  tl_func *f;
  tl_expr *e = start(m, TL_NO_FUNC, op, n + 1, &f);
  if (!e) return NULL;
  if (n) memcpy(e->kid, args, n * sizeof *args);
  e->kid[n] = target;
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = type_index;
  a.index2 = table;
  return finish(m, f, e, &a);
}

static tl_expr_ref build_call_impl(tl_module *m, uint32_t target, const tl_expr_ref *args, uint32_t n) {
  return call(m, TL_OP_CALL, target, args, n);
}

typedef struct {
  tl_module *m;
  uint32_t target;
  const tl_expr_ref *args;
  uint32_t n;
  tl_expr_ref r;
} build_call_call;
static void build_call_run(void *c) {
  build_call_call *k_ = c;
  k_->r = build_call_impl(k_->m, k_->target, k_->args, k_->n);
}
tl_expr_ref tl_build_call(tl_module *m, uint32_t target, const tl_expr_ref *args, uint32_t n) {
  build_call_call k_ = {m, target, args, n, NULL};
  capi_run(m, build_call_run, &k_);
  return k_.r;
}
static tl_expr_ref build_return_call_impl(tl_module *m, uint32_t target, const tl_expr_ref *args,
                                 uint32_t n) {
  return call(m, TL_OP_RETURN_CALL, target, args, n);
}

typedef struct {
  tl_module *m;
  uint32_t target;
  const tl_expr_ref *args;
  uint32_t n;
  tl_expr_ref r;
} build_return_call_call;
static void build_return_call_run(void *c) {
  build_return_call_call *k_ = c;
  k_->r = build_return_call_impl(k_->m, k_->target, k_->args, k_->n);
}
tl_expr_ref tl_build_return_call(tl_module *m, uint32_t target, const tl_expr_ref *args,
                                 uint32_t n) {
  build_return_call_call k_ = {m, target, args, n, NULL};
  capi_run(m, build_return_call_run, &k_);
  return k_.r;
}
static tl_expr_ref build_call_indirect_impl(tl_module *m, uint32_t table, uint32_t type_index,
                                   tl_expr_ref target, const tl_expr_ref *args, uint32_t n) {
  return call_indirect(m, TL_OP_CALL_INDIRECT, table, type_index, target, args, n);
}

typedef struct {
  tl_module *m;
  uint32_t table;
  uint32_t type_index;
  tl_expr_ref target;
  const tl_expr_ref *args;
  uint32_t n;
  tl_expr_ref r;
} build_call_indirect_call;
static void build_call_indirect_run(void *c) {
  build_call_indirect_call *k_ = c;
  k_->r = build_call_indirect_impl(k_->m, k_->table, k_->type_index, k_->target, k_->args, k_->n);
}
tl_expr_ref tl_build_call_indirect(tl_module *m, uint32_t table, uint32_t type_index,
                                   tl_expr_ref target, const tl_expr_ref *args, uint32_t n) {
  build_call_indirect_call k_ = {m, table, type_index, target, args, n, NULL};
  capi_run(m, build_call_indirect_run, &k_);
  return k_.r;
}
static tl_expr_ref build_return_call_indirect_impl(tl_module *m, uint32_t table, uint32_t type_index,
                                          tl_expr_ref target, const tl_expr_ref *args,
                                          uint32_t n) {
  return call_indirect(m, TL_OP_RETURN_CALL_INDIRECT, table, type_index, target, args, n);
}

typedef struct {
  tl_module *m;
  uint32_t table;
  uint32_t type_index;
  tl_expr_ref target;
  const tl_expr_ref *args;
  uint32_t n;
  tl_expr_ref r;
} build_return_call_indirect_call;
static void build_return_call_indirect_run(void *c) {
  build_return_call_indirect_call *k_ = c;
  k_->r = build_return_call_indirect_impl(k_->m, k_->table, k_->type_index, k_->target, k_->args, k_->n);
}
tl_expr_ref tl_build_return_call_indirect(tl_module *m, uint32_t table, uint32_t type_index,
                                          tl_expr_ref target, const tl_expr_ref *args,
                                          uint32_t n) {
  build_return_call_indirect_call k_ = {m, table, type_index, target, args, n, NULL};
  capi_run(m, build_return_call_indirect_run, &k_);
  return k_.r;
}

/* ---- variables --------------------------------------------------------- */
static tl_expr *local(tl_module *m, uint32_t func, int op, uint32_t index, tl_expr *value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = index;
  return tl_build_op(m, func, op, &value, op == TL_OP_LOCAL_GET ? 0 : 1, &a);
}
static tl_expr_ref build_local_get_impl(tl_module *m, uint32_t func, uint32_t index) {
  return local(m, func, TL_OP_LOCAL_GET, index, NULL);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  uint32_t index;
  tl_expr_ref r;
} build_local_get_call;
static void build_local_get_run(void *c) {
  build_local_get_call *k_ = c;
  k_->r = build_local_get_impl(k_->m, k_->func, k_->index);
}
tl_expr_ref tl_build_local_get(tl_module *m, uint32_t func, uint32_t index) {
  build_local_get_call k_ = {m, func, index, NULL};
  capi_run(m, build_local_get_run, &k_);
  return k_.r;
}
static tl_expr_ref build_local_set_impl(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value) {
  return local(m, func, TL_OP_LOCAL_SET, index, value);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  uint32_t index;
  tl_expr_ref value;
  tl_expr_ref r;
} build_local_set_call;
static void build_local_set_run(void *c) {
  build_local_set_call *k_ = c;
  k_->r = build_local_set_impl(k_->m, k_->func, k_->index, k_->value);
}
tl_expr_ref tl_build_local_set(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value) {
  build_local_set_call k_ = {m, func, index, value, NULL};
  capi_run(m, build_local_set_run, &k_);
  return k_.r;
}
static tl_expr_ref build_local_tee_impl(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value) {
  return local(m, func, TL_OP_LOCAL_TEE, index, value);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  uint32_t index;
  tl_expr_ref value;
  tl_expr_ref r;
} build_local_tee_call;
static void build_local_tee_run(void *c) {
  build_local_tee_call *k_ = c;
  k_->r = build_local_tee_impl(k_->m, k_->func, k_->index, k_->value);
}
tl_expr_ref tl_build_local_tee(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value) {
  build_local_tee_call k_ = {m, func, index, value, NULL};
  capi_run(m, build_local_tee_run, &k_);
  return k_.r;
}
static tl_expr_ref build_global_get_impl(tl_module *m, uint32_t index) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = index;
  return op0(m, TL_OP_GLOBAL_GET, &a);
}

typedef struct {
  tl_module *m;
  uint32_t index;
  tl_expr_ref r;
} build_global_get_call;
static void build_global_get_run(void *c) {
  build_global_get_call *k_ = c;
  k_->r = build_global_get_impl(k_->m, k_->index);
}
tl_expr_ref tl_build_global_get(tl_module *m, uint32_t index) {
  build_global_get_call k_ = {m, index, NULL};
  capi_run(m, build_global_get_run, &k_);
  return k_.r;
}
static tl_expr_ref build_global_set_impl(tl_module *m, uint32_t index, tl_expr_ref value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = index;
  return op1(m, TL_OP_GLOBAL_SET, value, &a);
}

typedef struct {
  tl_module *m;
  uint32_t index;
  tl_expr_ref value;
  tl_expr_ref r;
} build_global_set_call;
static void build_global_set_run(void *c) {
  build_global_set_call *k_ = c;
  k_->r = build_global_set_impl(k_->m, k_->index, k_->value);
}
tl_expr_ref tl_build_global_set(tl_module *m, uint32_t index, tl_expr_ref value) {
  build_global_set_call k_ = {m, index, value, NULL};
  capi_run(m, build_global_set_run, &k_);
  return k_.r;
}

/* ---- memory ------------------------------------------------------------ */
static tl_imm_args memarg(uint64_t offset, uint32_t align) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.offset = offset;
  a.align = align;
  return a;
}
static tl_imm_args idx(uint32_t index, uint32_t index2) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = index;
  a.index2 = index2;
  return a;
}

static tl_expr_ref build_load_impl(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                          tl_expr_ref ptr) {
  tl_imm_args a = memarg(offset, align);
  return op1(m, named(m, op, TL_IMM_MEMARG, 1, "tl_build_load"), ptr, &a);
}

typedef struct {
  tl_module *m;
  const char *op;
  uint64_t offset;
  uint32_t align;
  tl_expr_ref ptr;
  tl_expr_ref r;
} build_load_call;
static void build_load_run(void *c) {
  build_load_call *k_ = c;
  k_->r = build_load_impl(k_->m, k_->op, k_->offset, k_->align, k_->ptr);
}
tl_expr_ref tl_build_load(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                          tl_expr_ref ptr) {
  build_load_call k_ = {m, op, offset, align, ptr, NULL};
  capi_run(m, build_load_run, &k_);
  return k_.r;
}
static tl_expr_ref build_store_impl(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                           tl_expr_ref ptr, tl_expr_ref value) {
  tl_imm_args a = memarg(offset, align);
  return op2(m, named(m, op, TL_IMM_MEMARG, 2, "tl_build_store"), ptr, value, &a);
}

typedef struct {
  tl_module *m;
  const char *op;
  uint64_t offset;
  uint32_t align;
  tl_expr_ref ptr;
  tl_expr_ref value;
  tl_expr_ref r;
} build_store_call;
static void build_store_run(void *c) {
  build_store_call *k_ = c;
  k_->r = build_store_impl(k_->m, k_->op, k_->offset, k_->align, k_->ptr, k_->value);
}
tl_expr_ref tl_build_store(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                           tl_expr_ref ptr, tl_expr_ref value) {
  build_store_call k_ = {m, op, offset, align, ptr, value, NULL};
  capi_run(m, build_store_run, &k_);
  return k_.r;
}
static tl_expr_ref build_atomic_rmw3_impl(tl_module *m, const char *op, uint64_t offset,
                                 tl_expr_ref ptr, tl_expr_ref x, tl_expr_ref y) {
  tl_imm_args a = memarg(offset, 0);
  return op3(m, named(m, op, TL_IMM_MEMARG, 3, "tl_build_atomic_rmw3"), ptr, x, y, &a);
}

typedef struct {
  tl_module *m;
  const char *op;
  uint64_t offset;
  tl_expr_ref ptr;
  tl_expr_ref x;
  tl_expr_ref y;
  tl_expr_ref r;
} build_atomic_rmw3_call;
static void build_atomic_rmw3_run(void *c) {
  build_atomic_rmw3_call *k_ = c;
  k_->r = build_atomic_rmw3_impl(k_->m, k_->op, k_->offset, k_->ptr, k_->x, k_->y);
}
tl_expr_ref tl_build_atomic_rmw3(tl_module *m, const char *op, uint64_t offset,
                                 tl_expr_ref ptr, tl_expr_ref x, tl_expr_ref y) {
  build_atomic_rmw3_call k_ = {m, op, offset, ptr, x, y, NULL};
  capi_run(m, build_atomic_rmw3_run, &k_);
  return k_.r;
}
static tl_expr_ref build_atomic_fence_impl(tl_module *m) { return op0(m, TL_OP_ATOMIC_FENCE, NULL); }

typedef struct {
  tl_module *m;
  tl_expr_ref r;
} build_atomic_fence_call;
static void build_atomic_fence_run(void *c) {
  build_atomic_fence_call *k_ = c;
  k_->r = build_atomic_fence_impl(k_->m);
}
tl_expr_ref tl_build_atomic_fence(tl_module *m) {
  build_atomic_fence_call k_ = {m, NULL};
  capi_run(m, build_atomic_fence_run, &k_);
  return k_.r;
}

static tl_expr_ref build_memory_size_impl(tl_module *m, uint32_t memory) {
  tl_imm_args a = idx(memory, 0);
  return op0(m, TL_OP_MEMORY_SIZE, &a);
}

typedef struct {
  tl_module *m;
  uint32_t memory;
  tl_expr_ref r;
} build_memory_size_call;
static void build_memory_size_run(void *c) {
  build_memory_size_call *k_ = c;
  k_->r = build_memory_size_impl(k_->m, k_->memory);
}
tl_expr_ref tl_build_memory_size(tl_module *m, uint32_t memory) {
  build_memory_size_call k_ = {m, memory, NULL};
  capi_run(m, build_memory_size_run, &k_);
  return k_.r;
}
static tl_expr_ref build_memory_grow_impl(tl_module *m, uint32_t memory, tl_expr_ref delta) {
  tl_imm_args a = idx(memory, 0);
  return op1(m, TL_OP_MEMORY_GROW, delta, &a);
}

typedef struct {
  tl_module *m;
  uint32_t memory;
  tl_expr_ref delta;
  tl_expr_ref r;
} build_memory_grow_call;
static void build_memory_grow_run(void *c) {
  build_memory_grow_call *k_ = c;
  k_->r = build_memory_grow_impl(k_->m, k_->memory, k_->delta);
}
tl_expr_ref tl_build_memory_grow(tl_module *m, uint32_t memory, tl_expr_ref delta) {
  build_memory_grow_call k_ = {m, memory, delta, NULL};
  capi_run(m, build_memory_grow_run, &k_);
  return k_.r;
}
static tl_expr_ref build_memory_fill_impl(tl_module *m, uint32_t memory, tl_expr_ref dst,
                                 tl_expr_ref value, tl_expr_ref size) {
  tl_imm_args a = idx(memory, 0);
  return op3(m, TL_OP_MEMORY_FILL, dst, value, size, &a);
}

typedef struct {
  tl_module *m;
  uint32_t memory;
  tl_expr_ref dst;
  tl_expr_ref value;
  tl_expr_ref size;
  tl_expr_ref r;
} build_memory_fill_call;
static void build_memory_fill_run(void *c) {
  build_memory_fill_call *k_ = c;
  k_->r = build_memory_fill_impl(k_->m, k_->memory, k_->dst, k_->value, k_->size);
}
tl_expr_ref tl_build_memory_fill(tl_module *m, uint32_t memory, tl_expr_ref dst,
                                 tl_expr_ref value, tl_expr_ref size) {
  build_memory_fill_call k_ = {m, memory, dst, value, size, NULL};
  capi_run(m, build_memory_fill_run, &k_);
  return k_.r;
}
static tl_expr_ref build_memory_copy_impl(tl_module *m, uint32_t dst_memory, uint32_t src_memory,
                                 tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size) {
  tl_imm_args a = idx(dst_memory, src_memory);
  return op3(m, TL_OP_MEMORY_COPY, dst, src, size, &a);
}

typedef struct {
  tl_module *m;
  uint32_t dst_memory;
  uint32_t src_memory;
  tl_expr_ref dst;
  tl_expr_ref src;
  tl_expr_ref size;
  tl_expr_ref r;
} build_memory_copy_call;
static void build_memory_copy_run(void *c) {
  build_memory_copy_call *k_ = c;
  k_->r = build_memory_copy_impl(k_->m, k_->dst_memory, k_->src_memory, k_->dst, k_->src, k_->size);
}
tl_expr_ref tl_build_memory_copy(tl_module *m, uint32_t dst_memory, uint32_t src_memory,
                                 tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size) {
  build_memory_copy_call k_ = {m, dst_memory, src_memory, dst, src, size, NULL};
  capi_run(m, build_memory_copy_run, &k_);
  return k_.r;
}
static tl_expr_ref build_memory_init_impl(tl_module *m, uint32_t segment, uint32_t memory,
                                 tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size) {
  tl_imm_args a = idx(segment, memory);
  return op3(m, TL_OP_MEMORY_INIT, dst, offset, size, &a);
}

typedef struct {
  tl_module *m;
  uint32_t segment;
  uint32_t memory;
  tl_expr_ref dst;
  tl_expr_ref offset;
  tl_expr_ref size;
  tl_expr_ref r;
} build_memory_init_call;
static void build_memory_init_run(void *c) {
  build_memory_init_call *k_ = c;
  k_->r = build_memory_init_impl(k_->m, k_->segment, k_->memory, k_->dst, k_->offset, k_->size);
}
tl_expr_ref tl_build_memory_init(tl_module *m, uint32_t segment, uint32_t memory,
                                 tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size) {
  build_memory_init_call k_ = {m, segment, memory, dst, offset, size, NULL};
  capi_run(m, build_memory_init_run, &k_);
  return k_.r;
}
static tl_expr_ref build_data_drop_impl(tl_module *m, uint32_t segment) {
  tl_imm_args a = idx(segment, 0);
  return op0(m, TL_OP_DATA_DROP, &a);
}

typedef struct {
  tl_module *m;
  uint32_t segment;
  tl_expr_ref r;
} build_data_drop_call;
static void build_data_drop_run(void *c) {
  build_data_drop_call *k_ = c;
  k_->r = build_data_drop_impl(k_->m, k_->segment);
}
tl_expr_ref tl_build_data_drop(tl_module *m, uint32_t segment) {
  build_data_drop_call k_ = {m, segment, NULL};
  capi_run(m, build_data_drop_run, &k_);
  return k_.r;
}

/* ---- tables and references --------------------------------------------- */
static tl_expr_ref build_table_get_impl(tl_module *m, uint32_t table, tl_expr_ref index) {
  tl_imm_args a = idx(table, 0);
  return op1(m, TL_OP_TABLE_GET, index, &a);
}

typedef struct {
  tl_module *m;
  uint32_t table;
  tl_expr_ref index;
  tl_expr_ref r;
} build_table_get_call;
static void build_table_get_run(void *c) {
  build_table_get_call *k_ = c;
  k_->r = build_table_get_impl(k_->m, k_->table, k_->index);
}
tl_expr_ref tl_build_table_get(tl_module *m, uint32_t table, tl_expr_ref index) {
  build_table_get_call k_ = {m, table, index, NULL};
  capi_run(m, build_table_get_run, &k_);
  return k_.r;
}
static tl_expr_ref build_table_set_impl(tl_module *m, uint32_t table, tl_expr_ref index,
                               tl_expr_ref value) {
  tl_imm_args a = idx(table, 0);
  return op2(m, TL_OP_TABLE_SET, index, value, &a);
}

typedef struct {
  tl_module *m;
  uint32_t table;
  tl_expr_ref index;
  tl_expr_ref value;
  tl_expr_ref r;
} build_table_set_call;
static void build_table_set_run(void *c) {
  build_table_set_call *k_ = c;
  k_->r = build_table_set_impl(k_->m, k_->table, k_->index, k_->value);
}
tl_expr_ref tl_build_table_set(tl_module *m, uint32_t table, tl_expr_ref index,
                               tl_expr_ref value) {
  build_table_set_call k_ = {m, table, index, value, NULL};
  capi_run(m, build_table_set_run, &k_);
  return k_.r;
}
static tl_expr_ref build_table_size_impl(tl_module *m, uint32_t table) {
  tl_imm_args a = idx(table, 0);
  return op0(m, TL_OP_TABLE_SIZE, &a);
}

typedef struct {
  tl_module *m;
  uint32_t table;
  tl_expr_ref r;
} build_table_size_call;
static void build_table_size_run(void *c) {
  build_table_size_call *k_ = c;
  k_->r = build_table_size_impl(k_->m, k_->table);
}
tl_expr_ref tl_build_table_size(tl_module *m, uint32_t table) {
  build_table_size_call k_ = {m, table, NULL};
  capi_run(m, build_table_size_run, &k_);
  return k_.r;
}
static tl_expr_ref build_table_grow_impl(tl_module *m, uint32_t table, tl_expr_ref value,
                                tl_expr_ref delta) {
  tl_imm_args a = idx(table, 0);
  return op2(m, TL_OP_TABLE_GROW, value, delta, &a);
}

typedef struct {
  tl_module *m;
  uint32_t table;
  tl_expr_ref value;
  tl_expr_ref delta;
  tl_expr_ref r;
} build_table_grow_call;
static void build_table_grow_run(void *c) {
  build_table_grow_call *k_ = c;
  k_->r = build_table_grow_impl(k_->m, k_->table, k_->value, k_->delta);
}
tl_expr_ref tl_build_table_grow(tl_module *m, uint32_t table, tl_expr_ref value,
                                tl_expr_ref delta) {
  build_table_grow_call k_ = {m, table, value, delta, NULL};
  capi_run(m, build_table_grow_run, &k_);
  return k_.r;
}
static tl_expr_ref build_table_fill_impl(tl_module *m, uint32_t table, tl_expr_ref dst,
                                tl_expr_ref value, tl_expr_ref size) {
  tl_imm_args a = idx(table, 0);
  return op3(m, TL_OP_TABLE_FILL, dst, value, size, &a);
}

typedef struct {
  tl_module *m;
  uint32_t table;
  tl_expr_ref dst;
  tl_expr_ref value;
  tl_expr_ref size;
  tl_expr_ref r;
} build_table_fill_call;
static void build_table_fill_run(void *c) {
  build_table_fill_call *k_ = c;
  k_->r = build_table_fill_impl(k_->m, k_->table, k_->dst, k_->value, k_->size);
}
tl_expr_ref tl_build_table_fill(tl_module *m, uint32_t table, tl_expr_ref dst,
                                tl_expr_ref value, tl_expr_ref size) {
  build_table_fill_call k_ = {m, table, dst, value, size, NULL};
  capi_run(m, build_table_fill_run, &k_);
  return k_.r;
}
static tl_expr_ref build_table_copy_impl(tl_module *m, uint32_t dst_table, uint32_t src_table,
                                tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size) {
  tl_imm_args a = idx(dst_table, src_table);
  return op3(m, TL_OP_TABLE_COPY, dst, src, size, &a);
}

typedef struct {
  tl_module *m;
  uint32_t dst_table;
  uint32_t src_table;
  tl_expr_ref dst;
  tl_expr_ref src;
  tl_expr_ref size;
  tl_expr_ref r;
} build_table_copy_call;
static void build_table_copy_run(void *c) {
  build_table_copy_call *k_ = c;
  k_->r = build_table_copy_impl(k_->m, k_->dst_table, k_->src_table, k_->dst, k_->src, k_->size);
}
tl_expr_ref tl_build_table_copy(tl_module *m, uint32_t dst_table, uint32_t src_table,
                                tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size) {
  build_table_copy_call k_ = {m, dst_table, src_table, dst, src, size, NULL};
  capi_run(m, build_table_copy_run, &k_);
  return k_.r;
}
static tl_expr_ref build_table_init_impl(tl_module *m, uint32_t segment, uint32_t table,
                                tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size) {
  tl_imm_args a = idx(segment, table);
  return op3(m, TL_OP_TABLE_INIT, dst, offset, size, &a);
}

typedef struct {
  tl_module *m;
  uint32_t segment;
  uint32_t table;
  tl_expr_ref dst;
  tl_expr_ref offset;
  tl_expr_ref size;
  tl_expr_ref r;
} build_table_init_call;
static void build_table_init_run(void *c) {
  build_table_init_call *k_ = c;
  k_->r = build_table_init_impl(k_->m, k_->segment, k_->table, k_->dst, k_->offset, k_->size);
}
tl_expr_ref tl_build_table_init(tl_module *m, uint32_t segment, uint32_t table,
                                tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size) {
  build_table_init_call k_ = {m, segment, table, dst, offset, size, NULL};
  capi_run(m, build_table_init_run, &k_);
  return k_.r;
}
static tl_expr_ref build_elem_drop_impl(tl_module *m, uint32_t segment) {
  tl_imm_args a = idx(segment, 0);
  return op0(m, TL_OP_ELEM_DROP, &a);
}

typedef struct {
  tl_module *m;
  uint32_t segment;
  tl_expr_ref r;
} build_elem_drop_call;
static void build_elem_drop_run(void *c) {
  build_elem_drop_call *k_ = c;
  k_->r = build_elem_drop_impl(k_->m, k_->segment);
}
tl_expr_ref tl_build_elem_drop(tl_module *m, uint32_t segment) {
  build_elem_drop_call k_ = {m, segment, NULL};
  capi_run(m, build_elem_drop_run, &k_);
  return k_.r;
}
static tl_expr_ref build_ref_null_impl(tl_module *m, tl_type_t type) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.type = type;
  return op0(m, TL_OP_REF_NULL, &a);
}

typedef struct {
  tl_module *m;
  tl_type_t type;
  tl_expr_ref r;
} build_ref_null_call;
static void build_ref_null_run(void *c) {
  build_ref_null_call *k_ = c;
  k_->r = build_ref_null_impl(k_->m, k_->type);
}
tl_expr_ref tl_build_ref_null(tl_module *m, tl_type_t type) {
  build_ref_null_call k_ = {m, type, NULL};
  capi_run(m, build_ref_null_run, &k_);
  return k_.r;
}
static tl_expr_ref build_ref_is_null_impl(tl_module *m, tl_expr_ref value) {
  return op1(m, TL_OP_REF_IS_NULL, value, NULL);
}

typedef struct {
  tl_module *m;
  tl_expr_ref value;
  tl_expr_ref r;
} build_ref_is_null_call;
static void build_ref_is_null_run(void *c) {
  build_ref_is_null_call *k_ = c;
  k_->r = build_ref_is_null_impl(k_->m, k_->value);
}
tl_expr_ref tl_build_ref_is_null(tl_module *m, tl_expr_ref value) {
  build_ref_is_null_call k_ = {m, value, NULL};
  capi_run(m, build_ref_is_null_run, &k_);
  return k_.r;
}
static tl_expr_ref build_ref_func_impl(tl_module *m, uint32_t func) {
  tl_imm_args a = idx(func, 0);
  return op0(m, TL_OP_REF_FUNC, &a);
}

typedef struct {
  tl_module *m;
  uint32_t func;
  tl_expr_ref r;
} build_ref_func_call;
static void build_ref_func_run(void *c) {
  build_ref_func_call *k_ = c;
  k_->r = build_ref_func_impl(k_->m, k_->func);
}
tl_expr_ref tl_build_ref_func(tl_module *m, uint32_t func) {
  build_ref_func_call k_ = {m, func, NULL};
  capi_run(m, build_ref_func_run, &k_);
  return k_.r;
}

/* ---- SIMD lanes, tuples ------------------------------------------------ */
static tl_expr_ref build_simd_extract_impl(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.lane = lane;
  return op1(m, named(m, op, TL_IMM_LANE, 1, "tl_build_simd_extract"), vec, &a);
}

typedef struct {
  tl_module *m;
  const char *op;
  tl_expr_ref vec;
  uint8_t lane;
  tl_expr_ref r;
} build_simd_extract_call;
static void build_simd_extract_run(void *c) {
  build_simd_extract_call *k_ = c;
  k_->r = build_simd_extract_impl(k_->m, k_->op, k_->vec, k_->lane);
}
tl_expr_ref tl_build_simd_extract(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane) {
  build_simd_extract_call k_ = {m, op, vec, lane, NULL};
  capi_run(m, build_simd_extract_run, &k_);
  return k_.r;
}
static tl_expr_ref build_simd_replace_impl(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane,
                                  tl_expr_ref value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.lane = lane;
  return op2(m, named(m, op, TL_IMM_LANE, 2, "tl_build_simd_replace"), vec, value, &a);
}

typedef struct {
  tl_module *m;
  const char *op;
  tl_expr_ref vec;
  uint8_t lane;
  tl_expr_ref value;
  tl_expr_ref r;
} build_simd_replace_call;
static void build_simd_replace_run(void *c) {
  build_simd_replace_call *k_ = c;
  k_->r = build_simd_replace_impl(k_->m, k_->op, k_->vec, k_->lane, k_->value);
}
tl_expr_ref tl_build_simd_replace(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane,
                                  tl_expr_ref value) {
  build_simd_replace_call k_ = {m, op, vec, lane, value, NULL};
  capi_run(m, build_simd_replace_run, &k_);
  return k_.r;
}
static tl_expr_ref build_simd_shuffle_impl(tl_module *m, tl_expr_ref x, tl_expr_ref y,
                                  const uint8_t lanes[16]) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  if (m && !lanes) return bad(m, "i8x16.shuffle: lanes is NULL"), NULL;
  if (lanes) memcpy(a.bytes, lanes, 16);
  return op2(m, TL_OP_I8X16_SHUFFLE, x, y, &a);
}

typedef struct {
  tl_module *m;
  tl_expr_ref x;
  tl_expr_ref y;
  const uint8_t *lanes;
  tl_expr_ref r;
} build_simd_shuffle_call;
static void build_simd_shuffle_run(void *c) {
  build_simd_shuffle_call *k_ = c;
  k_->r = build_simd_shuffle_impl(k_->m, k_->x, k_->y, k_->lanes);
}
tl_expr_ref tl_build_simd_shuffle(tl_module *m, tl_expr_ref x, tl_expr_ref y,
                                  const uint8_t lanes[16]) {
  build_simd_shuffle_call k_ = {m, x, y, lanes, NULL};
  capi_run(m, build_simd_shuffle_run, &k_);
  return k_.r;
}
static tl_expr_ref build_simd_mem_lane_impl(tl_module *m, const char *op, uint64_t offset,
                                   uint32_t align, uint8_t lane, tl_expr_ref ptr,
                                   tl_expr_ref vec) {
  tl_imm_args a = memarg(offset, align);
  a.lane = lane;
  return op2(m, named(m, op, TL_IMM_MEMARG_LANE, 2, "tl_build_simd_mem_lane"), ptr, vec, &a);
}

typedef struct {
  tl_module *m;
  const char *op;
  uint64_t offset;
  uint32_t align;
  uint8_t lane;
  tl_expr_ref ptr;
  tl_expr_ref vec;
  tl_expr_ref r;
} build_simd_mem_lane_call;
static void build_simd_mem_lane_run(void *c) {
  build_simd_mem_lane_call *k_ = c;
  k_->r = build_simd_mem_lane_impl(k_->m, k_->op, k_->offset, k_->align, k_->lane, k_->ptr, k_->vec);
}
tl_expr_ref tl_build_simd_mem_lane(tl_module *m, const char *op, uint64_t offset,
                                   uint32_t align, uint8_t lane, tl_expr_ref ptr,
                                   tl_expr_ref vec) {
  build_simd_mem_lane_call k_ = {m, op, offset, align, lane, ptr, vec, NULL};
  capi_run(m, build_simd_mem_lane_run, &k_);
  return k_.r;
}

static tl_expr_ref build_tuple_make_impl(tl_module *m, const tl_expr_ref *values, uint32_t n) {
  return tl_build_op(m, TL_NO_FUNC, TL_OP_TUPLE_MAKE, values, n, NULL);
}

typedef struct {
  tl_module *m;
  const tl_expr_ref *values;
  uint32_t n;
  tl_expr_ref r;
} build_tuple_make_call;
static void build_tuple_make_run(void *c) {
  build_tuple_make_call *k_ = c;
  k_->r = build_tuple_make_impl(k_->m, k_->values, k_->n);
}
tl_expr_ref tl_build_tuple_make(tl_module *m, const tl_expr_ref *values, uint32_t n) {
  build_tuple_make_call k_ = {m, values, n, NULL};
  capi_run(m, build_tuple_make_run, &k_);
  return k_.r;
}
static tl_expr_ref build_tuple_extract_impl(tl_module *m, tl_expr_ref tuple, uint32_t index) {
  tl_imm_args a = idx(index, 0);
  return op1(m, TL_OP_TUPLE_EXTRACT, tuple, &a);
}

typedef struct {
  tl_module *m;
  tl_expr_ref tuple;
  uint32_t index;
  tl_expr_ref r;
} build_tuple_extract_call;
static void build_tuple_extract_run(void *c) {
  build_tuple_extract_call *k_ = c;
  k_->r = build_tuple_extract_impl(k_->m, k_->tuple, k_->index);
}
tl_expr_ref tl_build_tuple_extract(tl_module *m, tl_expr_ref tuple, uint32_t index) {
  build_tuple_extract_call k_ = {m, tuple, index, NULL};
  capi_run(m, build_tuple_extract_run, &k_);
  return k_.r;
}

/* ---- inspecting -------------------------------------------------------- */
tl_type_t tl_expr_get_type(tl_expr_ref e) { return e ? e->type : TL_TYPE_INVALID; }
int tl_expr_get_op(tl_expr_ref e) { return e ? e->op : -1; }
uint32_t tl_expr_num_kids(tl_expr_ref e) { return e ? e->nkid : 0; }
tl_expr_ref tl_expr_get_kid(tl_expr_ref e, uint32_t i) { return e && i < e->nkid ? e->kid[i] : NULL; }
