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
    *t = tl_type_lub(*t, vt);
    return;
  }
  for (uint32_t i = 0; i <= e->imm.table->n; i++) {
    uint32_t l = i < e->imm.table->n ? e->imm.table->targets[i] : e->imm.table->def;
    tl_type *t = branch_type(m, f, l);
    *t = tl_type_lub(*t, vt);
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

const tl_error *tl_module_last_error(const tl_module *m) {
  static const tl_error none = {.code = TL_OK, .offset = TL_NO_OFFSET, .func_index = TL_NO_FUNC};
  if (!m) return NULL;
  return m->capi ? &m->capi->err : &none;
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

tl_type_t tl_build_tuple(tl_module *m, const tl_type_t *types, uint32_t n) {
  if (!m) return TL_TYPE_INVALID;
  if (n && !types) return bad(m, "tl_build_tuple: types is NULL"), TL_TYPE_INVALID;
  for (uint32_t i = 0; i < n; i++)
    if (!is_basic(types[i])) {
      bad(m, "tl_build_tuple: element %u is not a basic value type (%u)", i, types[i]);
      return TL_TYPE_INVALID;
    }
  return tl_type_tuple(m, types, n);
}

uint32_t tl_add_type(tl_module *m, tl_type_t params, tl_type_t results) {
  if (!m) return TL_INVALID_INDEX;
  if (params != TL_NONE && !is_value_type(m, params))
    return bad(m, "tl_add_type: bad params type %u", params), TL_INVALID_INDEX;
  if (results != TL_NONE && !is_value_type(m, results))
    return bad(m, "tl_add_type: bad results type %u", results), TL_INVALID_INDEX;
  return tl_functype_intern(m, params, results);
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
  return TL_FUNC(m, func);
}

/* The function context of a builder: NULL for TL_NO_FUNC. */
static bool func_ctx(tl_module *m, uint32_t func, tl_func **out, const char *who) {
  *out = NULL;
  if (func == TL_NO_FUNC) return true;
  *out = defined_func(m, func, who);
  return *out != NULL;
}

uint32_t tl_add_function(tl_module *m, const char *name, uint32_t type_index,
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

uint32_t tl_function_add_var(tl_module *m, uint32_t func, tl_type_t t) {
  tl_func *f = m ? defined_func(m, func, "tl_function_add_var") : NULL;
  if (!f) return TL_INVALID_INDEX;
  if (!is_value_type(m, t))
    return bad(m, "tl_function_add_var: bad type %u", t), TL_INVALID_INDEX;
  return tl_func_add_local(m, f, t);
}

tl_label_t tl_new_label(tl_module *m, uint32_t func) {
  tl_func *f = m ? defined_func(m, func, "tl_new_label") : NULL;
  return f ? tl_func_new_label(m, f) : TL_LABEL_NONE;
}

/* Body check: every local and label a node names belongs to f (nodes built
 * for another function would index past f's arrays). */
typedef struct { tl_func *f; const tl_expr *bad; } body_check;

static bool labels_ok(tl_func *f, const tl_expr *e) {
  switch (tl_ops[e->op].imm) {
  case TL_IMM_BLOCK: return e->imm.block.label == TL_NO_LABEL || e->imm.block.label < f->nlabel;
  case TL_IMM_LABEL: return e->imm.label < f->nlabel;
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

tl_status tl_function_set_body(tl_module *m, uint32_t func, tl_expr_ref body) {
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

uint32_t tl_add_function_import(tl_module *m, const char *name, const char *module,
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

uint32_t tl_add_global(tl_module *m, const char *name, tl_type_t type, bool mutable_,
                       tl_expr_ref init) {
  if (!m) return TL_INVALID_INDEX;
  if (!is_basic(type)) return bad(m, "tl_add_global: bad type %u", type), TL_INVALID_INDEX;
  if (!init) return bad(m, "tl_add_global: init is NULL"), TL_INVALID_INDEX;
  return push_global(m, name, type, mutable_, init, NULL, NULL);
}

uint32_t tl_add_global_import(tl_module *m, const char *name, const char *module,
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

tl_status tl_set_memory(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max,
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

tl_status tl_add_memory_import(tl_module *m, const char *module, const char *base,
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

static uint32_t push_table(tl_module *m, tl_type elem, uint32_t initial, uint32_t maximum,
                           bool has_max, const char *module, const char *base,
                           const char *who);

uint32_t tl_add_memory(tl_module *m, uint32_t initial, uint32_t maximum, bool has_max, bool shared) {
  const char *who = "tl_add_memory";
  if (!m) return TL_INVALID_INDEX;
  if (check_limits(m, initial, maximum, has_max, MAX_PAGES, who)) return TL_INVALID_INDEX;
  if (shared && !has_max) return bad(m, "%s: a shared memory needs a maximum", who), TL_INVALID_INDEX;
  if (m->memories.n >= TL_MAX_MEMORIES) return bad(m, "%s: more than %u memories", who, TL_MAX_MEMORIES), TL_INVALID_INDEX;
  TL_VEC_PUSH(&m->memories, tl_memory, make_memory(initial, maximum, has_max, shared));
  return (uint32_t)m->memories.n - 1;
}

uint32_t tl_add_memory64(tl_module *m, uint64_t initial, uint64_t maximum, bool has_max, bool shared) {
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

uint32_t tl_add_table64(tl_module *m, tl_type_t elem_type, uint64_t initial, uint64_t maximum,
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

uint32_t tl_add_table(tl_module *m, tl_type_t elem_type, uint32_t initial, uint32_t maximum,
                      bool has_max) {
  if (!m) return TL_INVALID_INDEX;
  return push_table(m, elem_type, initial, maximum, has_max, NULL, NULL, "tl_add_table");
}

uint32_t tl_add_table_import(tl_module *m, const char *module, const char *base,
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

/* ---- exports, segments, start ------------------------------------------ */
tl_status tl_add_export(tl_module *m, uint32_t kind, uint32_t internal_index,
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
    el.item[i]->type = TL_FUNCREF;
  }
  TL_VEC_PUSH(&m->elems, tl_elem, el);
  return (uint32_t)m->elems.n - 1;
}

uint32_t tl_add_active_element_segment(tl_module *m, uint32_t table, tl_expr_ref offset,
                                       const uint32_t *funcs, uint32_t n) {
  return add_elem(m, TL_SEG_ACTIVE, table, offset, funcs, n, "tl_add_active_element_segment");
}

uint32_t tl_add_passive_element_segment(tl_module *m, const uint32_t *funcs, uint32_t n) {
  return add_elem(m, TL_SEG_PASSIVE, 0, NULL, funcs, n, "tl_add_passive_element_segment");
}

uint32_t tl_add_declarative_element_segment(tl_module *m, const uint32_t *funcs, uint32_t n) {
  return add_elem(m, TL_SEG_DECLARATIVE, 0, NULL, funcs, n,
                  "tl_add_declarative_element_segment");
}

uint32_t tl_add_data_segment(tl_module *m, bool active, uint32_t memory, tl_expr_ref offset,
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

tl_status tl_set_start(tl_module *m, uint32_t func) {
  if (!m) return TL_E_INVALID;
  if (!in_range(m, func, m->funcs.n, "function", "tl_set_start")) return TL_E_INVALID;
  m->has_start = true;
  m->start = func;
  return TL_OK;
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
  default: *lo = *hi = 1; break; /* drop, local.set/tee, global.set, table.get, ... */
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
  if (e->op == TL_OP_REF_NULL ? tl_type_is_ref(a->type) : is_basic(a->type)) return true;
  return bad(m, "%s: bad type %u", tl_ops[e->op].text, a->type), false;
}

static bool set_tuple_index(tl_module *m, tl_expr *e, const tl_imm_args *a) {
  tl_type t = e->kid[0] ? e->kid[0]->type : TL_NONE;
  e->imm.index = a->index;
  if (t == TL_UNREACHABLE || (tl_type_is_tuple(t) && a->index < tl_type_arity(m, t))) return true;
  return bad(m, "tuple.extract: index %u of a non-tuple or too short tuple", a->index), false;
}

/* Fills e's immediates from a, checking the indices the node's type depends
 * on (and the labels, lanes and alignment); other indices are left to the
 * validator, so that code may be built before tables, memories and segments
 * are declared. */
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

tl_expr_ref tl_build_op(tl_module *m, uint32_t func, int op, const tl_expr_ref *kids,
                        uint32_t nkid, const tl_imm_args *imm) {
  if (!m) return NULL;
  if (nkid && !kids) return bad(m, "tl_build_op: kids is NULL"), NULL;
  tl_func *f;
  tl_expr *e = start(m, func, op, nkid, &f);
  if (!e) return NULL;
  if (nkid) memcpy(e->kid, kids, nkid * sizeof *kids);
  return finish(m, f, e, imm);
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

tl_expr_ref tl_build_const_i32(tl_module *m, int32_t v) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = v;
  return op0(m, TL_OP_I32_CONST, &a);
}
tl_expr_ref tl_build_const_i64(tl_module *m, int64_t v) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = v;
  return op0(m, TL_OP_I64_CONST, &a);
}
tl_expr_ref tl_build_const_f32_bits(tl_module *m, uint32_t bits) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = bits;
  return op0(m, TL_OP_F32_CONST, &a);
}
tl_expr_ref tl_build_const_f64_bits(tl_module *m, uint64_t bits) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.value = (int64_t)bits;
  return op0(m, TL_OP_F64_CONST, &a);
}
tl_expr_ref tl_build_const_f32(tl_module *m, float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return tl_build_const_f32_bits(m, bits);
}
tl_expr_ref tl_build_const_f64(tl_module *m, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return tl_build_const_f64_bits(m, bits);
}
tl_expr_ref tl_build_const_v128(tl_module *m, const uint8_t bytes[16]) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  if (m && !bytes) return bad(m, "v128.const: bytes is NULL"), NULL;
  if (bytes) memcpy(a.bytes, bytes, 16);
  return op0(m, TL_OP_V128_CONST, &a);
}

tl_expr_ref tl_build_unary(tl_module *m, const char *op, tl_expr_ref a) {
  return op1(m, named(m, op, TL_IMM_NONE, 1, "tl_build_unary"), a, NULL);
}
tl_expr_ref tl_build_binary(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b) {
  return op2(m, named(m, op, TL_IMM_NONE, 2, "tl_build_binary"), a, b, NULL);
}
tl_expr_ref tl_build_ternary(tl_module *m, const char *op, tl_expr_ref a, tl_expr_ref b,
                             tl_expr_ref c) {
  return op3(m, named(m, op, TL_IMM_NONE, 3, "tl_build_ternary"), a, b, c, NULL);
}
tl_expr_ref tl_build_nop(tl_module *m) { return op0(m, TL_OP_NOP, NULL); }
tl_expr_ref tl_build_unreachable(tl_module *m) { return op0(m, TL_OP_UNREACHABLE, NULL); }
tl_expr_ref tl_build_drop(tl_module *m, tl_expr_ref value) { return op1(m, TL_OP_DROP, value, NULL); }

tl_expr_ref tl_build_select(tl_module *m, tl_expr_ref cond, tl_expr_ref if_true,
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

tl_expr_ref tl_build_block(tl_module *m, uint32_t func, tl_label_t label,
                           const tl_expr_ref *kids, uint32_t n, tl_type_t result_type) {
  return build_list(m, func, TL_OP_BLOCK, label, kids, n, result_type);
}
tl_expr_ref tl_build_loop(tl_module *m, uint32_t func, tl_label_t label,
                          const tl_expr_ref *kids, uint32_t n, tl_type_t result_type) {
  return build_list(m, func, TL_OP_LOOP, label, kids, n, result_type);
}
tl_expr_ref tl_build_if(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                        tl_expr_ref then_, tl_expr_ref else_) {
  tl_expr *k[3] = {cond, then_, else_};
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = label;
  return tl_build_op(m, func, TL_OP_IF, k, else_ ? 3 : 2, &a);
}

tl_expr_ref tl_build_br(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = label;
  return tl_build_op(m, func, TL_OP_BR, &value, value ? 1 : 0, &a);
}
tl_expr_ref tl_build_br_if(tl_module *m, uint32_t func, tl_label_t label, tl_expr_ref cond,
                           tl_expr_ref value) {
  tl_expr *k[2] = {value ? value : cond, cond};
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = label;
  return tl_build_op(m, func, TL_OP_BR_IF, value ? k : k + 1, value ? 2 : 1, &a);
}
tl_expr_ref tl_build_br_table(tl_module *m, uint32_t func, const tl_label_t *labels,
                              uint32_t n, tl_label_t default_label, tl_expr_ref index,
                              tl_expr_ref value) {
  tl_expr *k[2] = {value ? value : index, index};
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.label = default_label;
  a.targets = labels;
  a.ntargets = n;
  return tl_build_op(m, func, TL_OP_BR_TABLE, value ? k : k + 1, value ? 2 : 1, &a);
}
tl_expr_ref tl_build_return(tl_module *m, tl_expr_ref value) {
  return tl_build_op(m, TL_NO_FUNC, TL_OP_RETURN, &value, value ? 1 : 0, NULL);
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

tl_expr_ref tl_build_call(tl_module *m, uint32_t target, const tl_expr_ref *args, uint32_t n) {
  return call(m, TL_OP_CALL, target, args, n);
}
tl_expr_ref tl_build_return_call(tl_module *m, uint32_t target, const tl_expr_ref *args,
                                 uint32_t n) {
  return call(m, TL_OP_RETURN_CALL, target, args, n);
}
tl_expr_ref tl_build_call_indirect(tl_module *m, uint32_t table, uint32_t type_index,
                                   tl_expr_ref target, const tl_expr_ref *args, uint32_t n) {
  return call_indirect(m, TL_OP_CALL_INDIRECT, table, type_index, target, args, n);
}
tl_expr_ref tl_build_return_call_indirect(tl_module *m, uint32_t table, uint32_t type_index,
                                          tl_expr_ref target, const tl_expr_ref *args,
                                          uint32_t n) {
  return call_indirect(m, TL_OP_RETURN_CALL_INDIRECT, table, type_index, target, args, n);
}

/* ---- variables --------------------------------------------------------- */
static tl_expr *local(tl_module *m, uint32_t func, int op, uint32_t index, tl_expr *value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = index;
  return tl_build_op(m, func, op, &value, op == TL_OP_LOCAL_GET ? 0 : 1, &a);
}
tl_expr_ref tl_build_local_get(tl_module *m, uint32_t func, uint32_t index) {
  return local(m, func, TL_OP_LOCAL_GET, index, NULL);
}
tl_expr_ref tl_build_local_set(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value) {
  return local(m, func, TL_OP_LOCAL_SET, index, value);
}
tl_expr_ref tl_build_local_tee(tl_module *m, uint32_t func, uint32_t index, tl_expr_ref value) {
  return local(m, func, TL_OP_LOCAL_TEE, index, value);
}
tl_expr_ref tl_build_global_get(tl_module *m, uint32_t index) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = index;
  return op0(m, TL_OP_GLOBAL_GET, &a);
}
tl_expr_ref tl_build_global_set(tl_module *m, uint32_t index, tl_expr_ref value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.index = index;
  return op1(m, TL_OP_GLOBAL_SET, value, &a);
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

tl_expr_ref tl_build_load(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                          tl_expr_ref ptr) {
  tl_imm_args a = memarg(offset, align);
  return op1(m, named(m, op, TL_IMM_MEMARG, 1, "tl_build_load"), ptr, &a);
}
tl_expr_ref tl_build_store(tl_module *m, const char *op, uint64_t offset, uint32_t align,
                           tl_expr_ref ptr, tl_expr_ref value) {
  tl_imm_args a = memarg(offset, align);
  return op2(m, named(m, op, TL_IMM_MEMARG, 2, "tl_build_store"), ptr, value, &a);
}
tl_expr_ref tl_build_atomic_rmw3(tl_module *m, const char *op, uint64_t offset,
                                 tl_expr_ref ptr, tl_expr_ref x, tl_expr_ref y) {
  tl_imm_args a = memarg(offset, 0);
  return op3(m, named(m, op, TL_IMM_MEMARG, 3, "tl_build_atomic_rmw3"), ptr, x, y, &a);
}
tl_expr_ref tl_build_atomic_fence(tl_module *m) { return op0(m, TL_OP_ATOMIC_FENCE, NULL); }

tl_expr_ref tl_build_memory_size(tl_module *m, uint32_t memory) {
  tl_imm_args a = idx(memory, 0);
  return op0(m, TL_OP_MEMORY_SIZE, &a);
}
tl_expr_ref tl_build_memory_grow(tl_module *m, uint32_t memory, tl_expr_ref delta) {
  tl_imm_args a = idx(memory, 0);
  return op1(m, TL_OP_MEMORY_GROW, delta, &a);
}
tl_expr_ref tl_build_memory_fill(tl_module *m, uint32_t memory, tl_expr_ref dst,
                                 tl_expr_ref value, tl_expr_ref size) {
  tl_imm_args a = idx(memory, 0);
  return op3(m, TL_OP_MEMORY_FILL, dst, value, size, &a);
}
tl_expr_ref tl_build_memory_copy(tl_module *m, uint32_t dst_memory, uint32_t src_memory,
                                 tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size) {
  tl_imm_args a = idx(dst_memory, src_memory);
  return op3(m, TL_OP_MEMORY_COPY, dst, src, size, &a);
}
tl_expr_ref tl_build_memory_init(tl_module *m, uint32_t segment, uint32_t memory,
                                 tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size) {
  tl_imm_args a = idx(segment, memory);
  return op3(m, TL_OP_MEMORY_INIT, dst, offset, size, &a);
}
tl_expr_ref tl_build_data_drop(tl_module *m, uint32_t segment) {
  tl_imm_args a = idx(segment, 0);
  return op0(m, TL_OP_DATA_DROP, &a);
}

/* ---- tables and references --------------------------------------------- */
tl_expr_ref tl_build_table_get(tl_module *m, uint32_t table, tl_expr_ref index) {
  tl_imm_args a = idx(table, 0);
  return op1(m, TL_OP_TABLE_GET, index, &a);
}
tl_expr_ref tl_build_table_set(tl_module *m, uint32_t table, tl_expr_ref index,
                               tl_expr_ref value) {
  tl_imm_args a = idx(table, 0);
  return op2(m, TL_OP_TABLE_SET, index, value, &a);
}
tl_expr_ref tl_build_table_size(tl_module *m, uint32_t table) {
  tl_imm_args a = idx(table, 0);
  return op0(m, TL_OP_TABLE_SIZE, &a);
}
tl_expr_ref tl_build_table_grow(tl_module *m, uint32_t table, tl_expr_ref value,
                                tl_expr_ref delta) {
  tl_imm_args a = idx(table, 0);
  return op2(m, TL_OP_TABLE_GROW, value, delta, &a);
}
tl_expr_ref tl_build_table_fill(tl_module *m, uint32_t table, tl_expr_ref dst,
                                tl_expr_ref value, tl_expr_ref size) {
  tl_imm_args a = idx(table, 0);
  return op3(m, TL_OP_TABLE_FILL, dst, value, size, &a);
}
tl_expr_ref tl_build_table_copy(tl_module *m, uint32_t dst_table, uint32_t src_table,
                                tl_expr_ref dst, tl_expr_ref src, tl_expr_ref size) {
  tl_imm_args a = idx(dst_table, src_table);
  return op3(m, TL_OP_TABLE_COPY, dst, src, size, &a);
}
tl_expr_ref tl_build_table_init(tl_module *m, uint32_t segment, uint32_t table,
                                tl_expr_ref dst, tl_expr_ref offset, tl_expr_ref size) {
  tl_imm_args a = idx(segment, table);
  return op3(m, TL_OP_TABLE_INIT, dst, offset, size, &a);
}
tl_expr_ref tl_build_elem_drop(tl_module *m, uint32_t segment) {
  tl_imm_args a = idx(segment, 0);
  return op0(m, TL_OP_ELEM_DROP, &a);
}
tl_expr_ref tl_build_ref_null(tl_module *m, tl_type_t type) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.type = type;
  return op0(m, TL_OP_REF_NULL, &a);
}
tl_expr_ref tl_build_ref_is_null(tl_module *m, tl_expr_ref value) {
  return op1(m, TL_OP_REF_IS_NULL, value, NULL);
}
tl_expr_ref tl_build_ref_func(tl_module *m, uint32_t func) {
  tl_imm_args a = idx(func, 0);
  return op0(m, TL_OP_REF_FUNC, &a);
}

/* ---- SIMD lanes, tuples ------------------------------------------------ */
tl_expr_ref tl_build_simd_extract(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.lane = lane;
  return op1(m, named(m, op, TL_IMM_LANE, 1, "tl_build_simd_extract"), vec, &a);
}
tl_expr_ref tl_build_simd_replace(tl_module *m, const char *op, tl_expr_ref vec, uint8_t lane,
                                  tl_expr_ref value) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  a.lane = lane;
  return op2(m, named(m, op, TL_IMM_LANE, 2, "tl_build_simd_replace"), vec, value, &a);
}
tl_expr_ref tl_build_simd_shuffle(tl_module *m, tl_expr_ref x, tl_expr_ref y,
                                  const uint8_t lanes[16]) {
  tl_imm_args a = TL_IMM_ARGS_INIT;
  if (m && !lanes) return bad(m, "i8x16.shuffle: lanes is NULL"), NULL;
  if (lanes) memcpy(a.bytes, lanes, 16);
  return op2(m, TL_OP_I8X16_SHUFFLE, x, y, &a);
}
tl_expr_ref tl_build_simd_mem_lane(tl_module *m, const char *op, uint64_t offset,
                                   uint32_t align, uint8_t lane, tl_expr_ref ptr,
                                   tl_expr_ref vec) {
  tl_imm_args a = memarg(offset, align);
  a.lane = lane;
  return op2(m, named(m, op, TL_IMM_MEMARG_LANE, 2, "tl_build_simd_mem_lane"), ptr, vec, &a);
}

tl_expr_ref tl_build_tuple_make(tl_module *m, const tl_expr_ref *values, uint32_t n) {
  return tl_build_op(m, TL_NO_FUNC, TL_OP_TUPLE_MAKE, values, n, NULL);
}
tl_expr_ref tl_build_tuple_extract(tl_module *m, tl_expr_ref tuple, uint32_t index) {
  tl_imm_args a = idx(index, 0);
  return op1(m, TL_OP_TUPLE_EXTRACT, tuple, &a);
}

/* ---- inspecting -------------------------------------------------------- */
tl_type_t tl_expr_get_type(tl_expr_ref e) { return e ? e->type : TL_TYPE_INVALID; }
int tl_expr_get_op(tl_expr_ref e) { return e ? e->op : -1; }
uint32_t tl_expr_num_kids(tl_expr_ref e) { return e ? e->nkid : 0; }
tl_expr_ref tl_expr_get_kid(tl_expr_ref e, uint32_t i) { return e && i < e->nkid ? e->kid[i] : NULL; }
