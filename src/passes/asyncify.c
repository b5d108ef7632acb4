/* asyncify.c — wasm-opt's --asyncify (emcc -sASYNCIFY): functions that may
 * be on the stack when an import pauses the program are rewritten so the
 * stack can be unwound to the host and later rewound to the same point.
 *
 * Analysis: an import may pause if asyncify-imports lists it (module.base,
 * `*` wildcards; every import when there is no list, none under
 * asyncify-ignore-imports); an indirect call may unless
 * asyncify-ignore-indirect; a function may if it calls one that may
 * (propagated to direct callers), with the remove-, add- and only-lists
 * (function names, `*` wildcards, `@file` response files) adjusting it.
 * Imports asyncify.start_unwind/stop_rewind pause; a function calling
 * asyncify.stop_unwind/start_rewind is runtime and never instrumented.
 *
 * Each instrumented function is flattened (flatten, dce) and rewritten:
 * code that cannot pause runs only in the normal state (`if state == 0`);
 * a call that can runs when normal or, when rewinding, when it is the call
 * the saved index names; after it, unwinding branches out of the body to a
 * tail that pushes the call index and the function's locals on the
 * asyncify stack and returns a zero. Entered while rewinding, the function
 * first pops its locals and the call index. An if whose arms can pause is
 * split so that rewinding passes through both arms. The added globals
 * __asyncify_state (0 normal, 1 unwinding, 2 rewinding) and
 * __asyncify_data (the {stack position, stack end} struct) and the
 * exported asyncify_start_unwind/stop_unwind/start_rewind/stop_rewind/
 * get_state are Binaryen's interface, which Emscripten's JS drives.
 * asyncify-asserts adds checks that uninstrumented functions never see the
 * state change across a call. With optimizing on (-O1 and up) the
 * instrumented functions then get the function pipeline.
 * Refused (an error, nothing changed): tail calls or exception handling in
 * an instrumented function, reference-typed locals there (found again
 * after flatten among its temps: then the module has changed), the pass run
 * already, several memories without asyncify-memory, an only-list with an
 * add- or remove-list. A module without a memory gets one page, as with
 * Binaryen. Kind MODULE_IFACE: the module gains exports the
 * host must drive. */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NORMAL = 0, UNWINDING = 1, REWINDING = 2 };
enum { F_CHANGE = 1, F_BOTTOM = 2, F_DONE = 4 }; /* tl_expr.aux bits during the rewrite */

typedef struct {
  bool change, top, bottom, removed, added;
} finfo;

typedef struct {
  char **item;
  uint32_t n;
} namelist;

typedef struct {
  tl_pass_ctx *ctx;
  tl_module *m;
  finfo *fi;
  bool indirect_changes;
  uint32_t state, data;       /* the globals */
  uint32_t mem;
  bool m64;
  tl_type ptr;
  uint32_t asy[4];            /* imports asyncify.start_unwind, stop_unwind, start_rewind, stop_rewind */
  /* per function being rewritten */
  tl_func *f;
  uint32_t rewind, unwind_label, nidx;
  tl_status err;
  uint32_t call_tmp[8];       /* a local per type receiving a pausing call's value: */
  tl_type call_tmp_type[8];   /* not saved (what it holds when unwinding is no real */
  uint32_t ncall_tmp;         /* value; the resumed call writes it) */
  uint8_t *live;              /* per local (nlive of them): live after a pausing
                                 call, so saved; NULL: save every local */
  uint32_t nlive;
} asy;

/* ---- lists ------------------------------------------------------------------------- */

/* Glob match with '*' for any run of characters. */
static bool glob(const char *p, const char *s) {
  const char *star = NULL, *back = NULL;
  while (*s) {
    if (*p == '*') star = p++, back = s;
    else if (*p == *s) p++, s++;
    else if (star) p = star + 1, s = ++back;
    else return false;
  }
  while (*p == '*') p++;
  return !*p;
}

static bool list_match(const namelist *l, const char *name) {
  if (!name) return false;
  for (uint32_t i = 0; i < l->n; i++)
    if (glob(l->item[i], name)) return true;
  return false;
}

static void list_free(namelist *l) {
  for (uint32_t i = 0; i < l->n; i++) tl_free(l->item[i]);
  tl_free(l->item);
  *l = (namelist){0};
}

static char *trimmed(const char *s, size_t n) {
  while (n && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')) s++, n--;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) n--;
  char *r = tl_malloc(n + 1);
  if (!r) return NULL;
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

/* Items separated by commas outside parentheses (C++ signatures keep their
 * commas) or by newlines. */
static bool list_split(namelist *l, const char *s) {
  size_t cap = 0;
  for (const char *p = s; *p;) {
    int depth = 0;
    const char *q = p;
    for (; *q && *q != '\n' && !(*q == ',' && depth <= 0); q++)
      depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
    char *item = trimmed(p, (size_t)(q - p));
    if (!item) return false;
    if (*item) {
      if (l->n == cap) {
        char **grown = tl_realloc(l->item, (cap = cap ? cap * 2 : 8) * sizeof *l->item);
        if (!grown) {
          tl_free(item);
          return false;
        }
        l->item = grown;
      }
      l->item[l->n++] = item;
    } else {
      tl_free(item);
    }
    p = *q ? q + 1 : q;
  }
  return true;
}

/* --pass-arg KEY@VALUE, VALUE@FILE reading the list from FILE. */
static tl_status list_arg(asy *a, const char *key, const char *alt, namelist *l) {
  const char *v = tl_pass_arg_get(a->ctx, key);
  if (!v && alt) v = tl_pass_arg_get(a->ctx, alt);
  if (!v) return TL_OK;
  if (*v != '@') return list_split(l, v) ? TL_OK : tl_nomem(a->ctx->err, "asyncify");
  FILE *fp = fopen(v + 1, "rb");
  if (!fp) return tl_errorf(a->ctx->err, TL_E_IO, TL_NO_OFFSET, "asyncify: cannot read %s's list file '%s'", key, v + 1);
  tl_buf b = {0};
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) tl_buf_put(&b, chunk, got);
  fclose(fp);
  tl_buf_put(&b, "", 1);
  bool ok = list_split(l, (const char *)b.p);
  tl_buf_free(&b);
  return ok ? TL_OK : tl_nomem(a->ctx->err, "asyncify");
}

/* ---- analysis ---------------------------------------------------------------------- */

static bool import_is(const tl_func *f, const char *base) {
  return f->imp.module && tl_name_eq(f->imp.module, f->imp.module_len, "asyncify", 8) &&
         tl_name_eq(f->imp.name, f->imp.name_len, base, (uint32_t)strlen(base));
}

static bool import_pauses(const tl_func *f, const namelist *imports, bool all, bool none) {
  if (import_is(f, "start_unwind") || import_is(f, "stop_rewind")) return true;
  if (none) return false;
  if (all) return true;
  char full[1024];
  snprintf(full, sizeof full, "%.*s.%.*s", (int)tl_name_len(f->imp.module, f->imp.module_len), f->imp.module,
           (int)tl_name_len(f->imp.name, f->imp.name_len), f->imp.name);
  return list_match(imports, full);
}

typedef struct {
  asy *a;
  uint32_t self;
  tl_vec *edges;   /* uint32_t pairs (caller, callee) */
  tl_status st;
} scan_ctx;

static void scan_call(tl_walk *w, tl_expr **slot) {
  scan_ctx *s = w->ctx;
  asy *a = s->a;
  tl_expr *e = *slot;
  finfo *me = &a->fi[s->self];
  if (e->op == TL_OP_RETURN_CALL || e->op == TL_OP_RETURN_CALL_INDIRECT) {
    TL_VEC_PUSH(s->edges, uint32_t, s->self);
    TL_VEC_PUSH(s->edges, uint32_t, UINT32_MAX); /* a tail call: refused if s->self is instrumented */
  }
  if (e->op == TL_OP_CALL_INDIRECT || e->op == TL_OP_RETURN_CALL_INDIRECT) {
    if (a->indirect_changes) me->change = true;
    return;
  }
  if (e->op != TL_OP_CALL && e->op != TL_OP_RETURN_CALL) return;
  uint32_t c = e->imm.index;
  if (c == a->asy[0] || c == a->asy[3]) me->change = me->top = true;
  else if (c == a->asy[1] || c == a->asy[2]) me->bottom = true;
  TL_VEC_PUSH(s->edges, uint32_t, s->self);
  TL_VEC_PUSH(s->edges, uint32_t, c);
}

/* A function's name for messages: its name, module.base for an unnamed
 * import, else its index. */
static const char *fname(const tl_module *m, uint32_t i, char *buf, size_t n) {
  const tl_func *f = TL_FUNC(m, i);
  if (f->name) return f->name;
  if (f->imp.module)
    snprintf(buf, n, "%.*s.%.*s", (int)tl_name_len(f->imp.module, f->imp.module_len), f->imp.module,
             (int)tl_name_len(f->imp.name, f->imp.name_len), f->imp.name);
  else
    snprintf(buf, n, "function %u", i);
  return buf;
}

/* asyncify-verbose: Binaryen's decision log, to the pass output. */
static void verbose(asy *a, const char *fmt, uint32_t fi, uint32_t why) {
  if (!tl_pass_arg_get(a->ctx, "asyncify-verbose")) return;
  char line[1200], b1[300], b2[300];
  int n = snprintf(line, sizeof line, fmt, fname(a->m, fi, b1, sizeof b1), why == TL_NO_INDEX ? "" : fname(a->m, why, b2, sizeof b2));
  if (n > 0) tl_pass_output(a->ctx, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* Fills a->fi: which functions may pause (need instrumenting unless top). */
static tl_status analyze(asy *a, tl_vec *edges) {
  tl_module *m = a->m;
  namelist imports = {0}, remove = {0}, add = {0}, only = {0};
  tl_status s = list_arg(a, "asyncify-imports", NULL, &imports);
  if (!s) s = list_arg(a, "asyncify-removelist", "asyncify-blacklist", &remove);
  if (!s) s = list_arg(a, "asyncify-addlist", NULL, &add);
  if (!s) s = list_arg(a, "asyncify-onlylist", "asyncify-whitelist", &only);
  if (!s && only.n && (remove.n || add.n))
    s = tl_errorf(a->ctx->err, TL_E_INVALID, TL_NO_OFFSET,
                  "asyncify: an only-list cannot be used together with an add- or remove-list");
  bool all = !tl_pass_arg_get(a->ctx, "asyncify-imports"), none = tl_pass_arg_get(a->ctx, "asyncify-ignore-imports");
  bool propagate_add = tl_pass_arg_get(a->ctx, "asyncify-propagate-addlist");
  for (uint32_t i = 0; i < m->funcs.n && !s; i++) {
    tl_func *f = TL_FUNC(m, i);
    finfo *fi = &a->fi[i];
    if (i < m->nimported_funcs) {
      fi->change = import_pauses(f, &imports, all, none);
      if (fi->change) verbose(a, "[asyncify] %s is an import that can change the state%s\n", i, TL_NO_INDEX);
      continue;
    }
    scan_ctx sc = {a, i, edges, TL_OK};
    tl_walk_post_only(m, f, &f->body, scan_call, &sc, TL_F_CALL);
    if (fi->bottom) fi->change = false;
    if (list_match(&remove, f->name)) fi->removed = true, fi->change = false;
    if (propagate_add && list_match(&add, f->name)) fi->change = fi->added = true;
  }
  if (!s) {
    /* propagate to direct callers, to a fixed point over the edge list */
    bool again = true;
    while (again) {
      again = false;
      for (size_t k = 0; k + 1 < edges->n; k += 2) {
        uint32_t caller = TL_VEC_AT(edges, uint32_t, k), callee = TL_VEC_AT(edges, uint32_t, k + 1);
        if (callee == UINT32_MAX || !a->fi[callee].change) continue;
        finfo *c = &a->fi[caller];
        if (c->change || c->bottom || c->removed) continue;
        c->change = again = true;
        verbose(a, "[asyncify] %s can change the state due to %s\n", caller, callee);
      }
    }
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
      finfo *fi = &a->fi[i];
      const char *name = TL_FUNC(m, i)->name;
      if (only.n) fi->change = fi->added = list_match(&only, name);
      else if (!propagate_add && list_match(&add, name)) fi->change = fi->added = true;
    }
  }
  list_free(&imports);
  list_free(&remove);
  list_free(&add);
  list_free(&only);
  return s;
}

static bool instrumented(const asy *a, uint32_t i) {
  return i >= a->m->nimported_funcs && a->fi[i].change && !a->fi[i].top;
}

/* ---- builders ---------------------------------------------------------------------- */

static tl_expr *global_get(asy *a, uint32_t g) {
  tl_expr *e = tl_expr_new(a->m, TL_OP_GLOBAL_GET, 0);
  e->imm.index = g;
  tl_expr_finalize(a->m, NULL, e);
  return e;
}

static tl_expr *global_set(asy *a, uint32_t g, tl_expr *v) {
  tl_expr *e = tl_expr_new(a->m, TL_OP_GLOBAL_SET, 1);
  e->imm.index = g;
  e->kid[0] = v;
  tl_expr_finalize(a->m, NULL, e);
  return e;
}

static tl_expr *state_is(asy *a, int st) {
  if (st == NORMAL) return tl_make_unary(a->m, TL_OP_I32_EQZ, global_get(a, a->state));
  return tl_make_binary(a->m, TL_OP_I32_EQ, global_get(a, a->state), tl_make_const_i32(a->m, st));
}

static tl_expr *make_if(asy *a, tl_func *f, tl_expr *cond, tl_expr *then, tl_expr *els) {
  tl_expr *e = tl_expr_new(a->m, TL_OP_IF, els ? 3 : 2);
  e->kid[0] = cond;
  e->kid[1] = then;
  if (els) e->kid[2] = els;
  e->imm.block.label = TL_NO_LABEL;
  e->imm.block.bt = TL_NO_INDEX;
  tl_expr_finalize(a->m, f, e);
  return e;
}

static tl_expr *block2(asy *a, tl_expr *x, tl_expr *y) {
  tl_expr *k[2] = {x, y};
  return tl_make_block(a->m, TL_OP_BLOCK, TL_NO_LABEL, k, 2);
}

static tl_expr *ptr_const(asy *a, uint64_t v) {
  return a->m64 ? tl_make_const_i64(a->m, (int64_t)v) : tl_make_const_i32(a->m, (int32_t)v);
}

static tl_expr *mem_op(asy *a, tl_op op, uint32_t off, uint8_t align, tl_expr *addr, tl_expr *v) {
  tl_expr *e = tl_expr_new(a->m, op, v ? 2 : 1);
  e->imm.mem = (tl_memarg){.mem = (uint16_t)a->mem, .align = align};
  tl_memarg_set_offset(a->m, &e->imm.mem, off);
  e->kid[0] = addr;
  if (v) e->kid[1] = v;
  tl_expr_finalize(a->m, NULL, e);
  return e;
}

static tl_op ptr_load(asy *a) { return a->m64 ? TL_OP_I64_LOAD : TL_OP_I32_LOAD; }

/* The stack position, data->pos. */
static tl_expr *stack_pos(asy *a) { return mem_op(a, ptr_load(a), 0, a->m64 ? 3 : 2, global_get(a, a->data), NULL); }

/* data->pos += delta. */
static tl_expr *stack_bump(asy *a, int64_t delta) {
  tl_expr *sum = tl_make_binary(a->m, a->m64 ? TL_OP_I64_ADD : TL_OP_I32_ADD, stack_pos(a), ptr_const(a, (uint64_t)delta));
  return mem_op(a, a->m64 ? TL_OP_I64_STORE : TL_OP_I32_STORE, 0, a->m64 ? 3 : 2, global_get(a, a->data), sum);
}

static uint32_t type_bytes(tl_type t) {
  switch (t) {
  case TL_I32: case TL_F32: return 4;
  case TL_I64: case TL_F64: return 8;
  case TL_V128: return 16;
  default: return 0;
  }
}

static tl_op load_of(tl_type t) {
  switch (t) {
  case TL_I32: return TL_OP_I32_LOAD;
  case TL_I64: return TL_OP_I64_LOAD;
  case TL_F32: return TL_OP_F32_LOAD;
  case TL_F64: return TL_OP_F64_LOAD;
  default: return TL_OP_V128_LOAD;
  }
}

static tl_op store_of(tl_type t) {
  switch (t) {
  case TL_I32: return TL_OP_I32_STORE;
  case TL_I64: return TL_OP_I64_STORE;
  case TL_F32: return TL_OP_F32_STORE;
  case TL_F64: return TL_OP_F64_STORE;
  default: return TL_OP_V128_STORE;
  }
}

/* ---- the control-flow rewrite (on flat IR) ------------------------------------------- */

static bool may_pause_call(asy *a, const tl_expr *e) {
  if (e->op == TL_OP_CALL) return a->fi[e->imm.index].change;
  if (e->op == TL_OP_CALL_INDIRECT) return a->indirect_changes || a->fi[a->f - TL_FUNC(a->m, 0)].added;
  return false;
}

static bool is_bottom_call(asy *a, const tl_expr *e) {
  return e->op == TL_OP_CALL && (e->imm.index == a->asy[1] || e->imm.index == a->asy[2]);
}

static bool flagged(const tl_expr *e) { return (e->aux & (F_CHANGE | F_BOTTOM)) == F_CHANGE; }

/* Code run only in the normal state. */
static tl_expr *maybe_skip(asy *a, tl_expr *e) {
  tl_expr *r = make_if(a, a->f, state_is(a, NORMAL), e, NULL);
  r->aux = F_DONE;
  return r;
}

static uint32_t call_tmp(asy *a, tl_type t) {
  for (uint32_t i = 0; i < a->ncall_tmp; i++)
    if (a->call_tmp_type[i] == t) return a->call_tmp[i];
  uint32_t l = tl_func_add_var(a->m, a->f, t);
  if (a->ncall_tmp < 8) { /* past 8 types a temp each, saved like any local */
    a->call_tmp_type[a->ncall_tmp] = t;
    a->call_tmp[a->ncall_tmp++] = l;
  }
  return l;
}

/* A call statement that may pause: run it when normal or when rewinding to
 * it; after it, unwinding leaves for the body's tail with its index. A
 * local.set of its value goes through a temp so an unwind writes nothing. */
static tl_expr *call_support(asy *a, tl_expr *s) {
  tl_module *m = a->m;
  tl_expr *after = NULL;
  if (s->op == TL_OP_LOCAL_SET) {
    tl_expr *call = s->kid[0];
    uint32_t tmp = call_tmp(a, call->type);
    after = tl_make_local_set(m, a->f, s->imm.index, tl_make_local_get(m, a->f, tmp), false);
    s = tl_make_local_set(m, a->f, tmp, call, false);
  }
  uint32_t idx = a->nidx++;
  tl_expr *br = tl_expr_new(m, TL_OP_BR, 1);
  br->imm.label = a->unwind_label;
  br->kid[0] = tl_make_const_i32(m, (int32_t)idx);
  tl_expr_finalize(m, a->f, br);
  tl_expr *check = make_if(a, a->f, state_is(a, UNWINDING), br, after);
  tl_expr *go = tl_make_binary(m, TL_OP_I32_OR, state_is(a, NORMAL),
                               tl_make_binary(m, TL_OP_I32_EQ, tl_make_local_get(m, a->f, a->rewind), tl_make_const_i32(m, (int32_t)idx)));
  tl_expr *r = make_if(a, a->f, go, block2(a, s, check), NULL);
  r->aux = F_DONE;
  return r;
}

static bool is_call_stmt(const tl_expr *e) {
  if (e->op == TL_OP_LOCAL_SET || e->op == TL_OP_DROP) e = e->kid[0];
  return e->op == TL_OP_CALL || e->op == TL_OP_CALL_INDIRECT;
}

static tl_status unexpected(asy *a, const tl_expr *e) {
  if (!a->err)
    a->err = tl_errorf(a->ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                       "asyncify (internal): function %u: a %s that may pause is not in flat form", (uint32_t)(a->f - TL_FUNC(a->m, 0)),
                       tl_ops[e->op].text);
  return a->err;
}

/* A block whose statements include some that may pause (already rewritten):
 * each run of the others becomes one skipped-when-rewinding chunk. */
static void rewrite_block(asy *a, tl_expr *b) {
  tl_module *m = a->m;
  uint32_t out = 0;
  for (uint32_t i = 0; i < b->nkid;) {
    if (b->kid[i]->aux & F_DONE) {
      b->kid[out++] = b->kid[i++];
      continue;
    }
    uint32_t j = i;
    while (j < b->nkid && !(b->kid[j]->aux & F_DONE)) j++;
    tl_expr *chunk = j - i == 1 ? b->kid[i] : tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, &b->kid[i], j - i);
    b->kid[out++] = maybe_skip(a, chunk);
    i = j;
  }
  b->nkid = out;
}

/* An if with an arm that may pause: rewinding goes through both arms
 * (each guarded so only the right one runs normally). */
static tl_expr *rewrite_if(asy *a, tl_expr *e) {
  tl_module *m = a->m;
  tl_func *f = a->f;
  if (flagged(e->kid[0])) return unexpected(a, e->kid[0]), e;
  for (uint32_t k = 1; k < e->nkid; k++)
    if (!(e->kid[k]->aux & F_DONE)) e->kid[k] = maybe_skip(a, e->kid[k]);
  uint32_t label = e->imm.block.label;
  tl_expr *r;
  if (e->nkid == 2) {
    r = make_if(a, f, tl_make_binary(m, TL_OP_I32_OR, e->kid[0], state_is(a, REWINDING)), e->kid[1], NULL);
  } else {
    uint32_t c = tl_func_add_var(m, f, TL_I32);
    tl_expr *pre = maybe_skip(a, tl_make_local_set(m, f, c, e->kid[0], false));
    tl_expr *one = make_if(a, f, tl_make_binary(m, TL_OP_I32_OR, tl_make_local_get(m, f, c), state_is(a, REWINDING)), e->kid[1], NULL);
    tl_expr *two = make_if(a, f,
                           tl_make_binary(m, TL_OP_I32_OR, tl_make_unary(m, TL_OP_I32_EQZ, tl_make_local_get(m, f, c)),
                                          state_is(a, REWINDING)),
                           e->kid[2], NULL);
    tl_expr *k[3] = {pre, one, two};
    r = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 3);
  }
  if (label != TL_NO_LABEL) { /* branches to the if now leave a block of that label */
    tl_expr *k[1] = {r};
    r = tl_make_block(m, TL_OP_BLOCK, label, k, 1);
  }
  return r;
}

static void flow_post(tl_walk *w, tl_expr **slot) {
  asy *a = w->ctx;
  tl_expr *e = *slot;
  uint32_t bits = 0;
  for (uint32_t k = 0; k < e->nkid; k++)
    if (e->kid[k]) bits |= e->kid[k]->aux & (F_CHANGE | F_BOTTOM);
  if (may_pause_call(a, e)) bits |= F_CHANGE;
  if (is_bottom_call(a, e)) bits |= F_BOTTOM;
  e->aux = bits;
  if (!flagged(e) || a->err) return;
  if (tl_type_is_concrete(e->type) && e->op != TL_OP_CALL && e->op != TL_OP_CALL_INDIRECT) {
    unexpected(a, e); /* a value around a call that may pause: not flat */
    return;
  }
  tl_expr *parent = tl_walk_parent(w, 1);
  if ((e->op == TL_OP_CALL || e->op == TL_OP_CALL_INDIRECT) && parent &&
      (parent->op == TL_OP_LOCAL_SET || parent->op == TL_OP_DROP))
    return; /* the statement around it is rewritten */
  tl_expr *r;
  switch (e->op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: rewrite_block(a, e); r = e; break;
  case TL_OP_IF: r = rewrite_if(a, e); break;
  default:
    if (!is_call_stmt(e) || tl_type_is_concrete(e->type)) {
      unexpected(a, e);
      return;
    }
    r = call_support(a, e);
  }
  r->aux = F_DONE | F_CHANGE;
  *slot = r;
}

/* ---- locals ------------------------------------------------------------------------ */

static bool saved(const asy *a, uint32_t l, uint32_t nsave) {
  if (l >= nsave) return false;
  if (a->live && l < a->nlive && !a->live[l]) return false; /* the rewrite's own locals (an if's condition) are kept */
  for (uint32_t i = 0; i < a->ncall_tmp; i++)
    if (a->call_tmp[i] == l) return false;
  return true;
}

/* Pushes (unwinding: store) or pops (rewinding: load) the saved locals;
 * the bytes they take. */
static tl_expr *locals_io(asy *a, uint32_t nsave, bool save, uint32_t *total) {
  tl_module *m = a->m;
  tl_func *f = a->f;
  uint32_t bytes = 0;
  for (uint32_t l = 0; l < nsave; l++)
    if (saved(a, l, nsave)) bytes += type_bytes(f->local[l]) ? type_bytes(f->local[l]) : 0;
  for (uint32_t l = 0; l < nsave; l++)
    if (saved(a, l, nsave) && tl_type_is_tuple(f->local[l]))
      for (uint32_t i = 0; i < tl_type_arity(m, f->local[l]); i++) bytes += type_bytes(tl_type_at(m, f->local[l], i));
  *total = bytes;
  if (!bytes) return tl_make_nop(m);
  uint32_t base = tl_func_add_var(m, f, a->ptr);
  tl_expr *b = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, NULL, 0);
  if (!save) tl_expr_push_kid(m, b, stack_bump(a, -(int64_t)bytes));
  tl_expr_push_kid(m, b, tl_make_local_set(m, f, base, stack_pos(a), false));
  uint32_t off = 0;
  for (uint32_t l = 0; l < nsave; l++) {
    if (!saved(a, l, nsave)) continue;
    tl_type t = f->local[l];
    uint32_t n = tl_type_is_tuple(t) ? tl_type_arity(m, t) : 1;
    tl_expr *parts = n > 1 && !save ? tl_expr_new(m, TL_OP_TUPLE_MAKE, n) : NULL;
    for (uint32_t i = 0; i < n; i++) {
      tl_type ct = n > 1 ? tl_type_at(m, t, i) : t;
      if (save) {
        tl_expr *v = tl_make_local_get(m, f, l);
        if (n > 1) {
          tl_expr *x = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 1);
          x->imm.index = i;
          x->kid[0] = v;
          tl_expr_finalize(m, f, x);
          v = x;
        }
        tl_expr_push_kid(m, b, mem_op(a, store_of(ct), off, 2, tl_make_local_get(m, f, base), v));
      } else {
        tl_expr *v = mem_op(a, load_of(ct), off, 2, tl_make_local_get(m, f, base), NULL);
        if (parts) parts->kid[i] = v;
        else tl_expr_push_kid(m, b, tl_make_local_set(m, f, l, v, false));
      }
      off += type_bytes(ct);
    }
    if (parts) {
      tl_expr_finalize(m, f, parts);
      tl_expr_push_kid(m, b, tl_make_local_set(m, f, l, parts, false));
    }
  }
  if (save) tl_expr_push_kid(m, b, stack_bump(a, bytes));
  tl_expr_finalize(m, f, b);
  return b;
}

/* Refusals for a function about to be instrumented (before flatten: EH
 * too; after it again, for the reference-typed temps it made: the module
 * has changed by then). */
static tl_status check_func(asy *a, uint32_t i, bool before) {
  tl_func *f = TL_FUNC(a->m, i);
  if (before && f->body && tl_expr_has_eh(f->body))
    return tl_errorf(a->ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                     "asyncify: function %u (%s) would be instrumented but has exception handling, which asyncify does not support", i,
                     f->name ? f->name : "unnamed");
  if (before && f->body && (a->m->features & TL_FEAT_GC) && tl_func_has_gc(a->m, f))
    return tl_errorf(a->ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                     "asyncify: function %u (%s) would be instrumented but uses GC types or instructions, which flatten does not handle yet", i,
                     f->name ? f->name : "unnamed");
  for (uint32_t l = 0; l < f->nlocal; l++) {
    tl_type t = f->local[l];
    uint32_t n = tl_type_is_tuple(t) ? tl_type_arity(a->m, t) : 1;
    for (uint32_t k = 0; k < n; k++)
      if (!type_bytes(n > 1 ? tl_type_at(a->m, t, k) : t))
        return tl_errorf(a->ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                         "asyncify: function %u (%s) would be instrumented but has a local of reference type, which cannot be saved to memory",
                         i, f->name ? f->name : "unnamed");
  }
  return TL_OK;
}

/* Liveness probe: a call that may pause. A call_indirect's target index is
 * read again when rewinding runs the call once more, so its local must be
 * restored too: it is noted in live[] here. */
static bool pausing_call(void *ctx, const tl_expr *e) {
  asy *a = ctx;
  if (!may_pause_call(a, e)) return false;
  const tl_expr *target = e->op == TL_OP_CALL_INDIRECT && e->nkid ? e->kid[e->nkid - 1] : NULL;
  if (target && target->op == TL_OP_LOCAL_GET && target->imm.index < a->nlive) a->live[target->imm.index] = 1;
  else if (target && target->op != TL_OP_I32_CONST && target->op != TL_OP_I64_CONST)
    memset(a->live, 1, a->nlive); /* not flat: keep every local */
  return true;
}

/* Which locals the function saves: those live just after a call that may
 * pause (what runs after it reads them, when resumed). Out of memory:
 * all of them, as before. */
static void find_saved(asy *a, uint32_t fi) {
  tl_func *f = a->f = TL_FUNC(a->m, fi);
  a->nlive = f->nlocal;
  a->live = tl_calloc((size_t)f->nlocal + 1, 1);
  if (a->live && !tl_locals_live_after(a->m, f, pausing_call, a, a->live)) {
    tl_free(a->live);
    a->live = NULL;
  }
}

/* The rewrite of one flat function: the control flow, then the entry
 * (rewinding: load the locals, then pop the call index under them) and the
 * unwind tail (push the call index, save the locals, return a zero). The
 * locals saved are those live after a pausing call (find_saved), but for
 * the call temps and the rewrite's own. All of it is in place before any
 * optimizing: an optimizer that saw the function without the loads could
 * take a local set only in skipped code as still zero when rewinding. */
static tl_status instrument(asy *a, uint32_t fi) {
  tl_module *m = a->m;
  tl_func *f = a->f = TL_FUNC(m, fi);
  a->nidx = a->ncall_tmp = 0;
  a->err = TL_OK;
  tl_type results = tl_func_type(m, f)->results;
  a->unwind_label = tl_func_new_label(m, f);
  a->rewind = tl_func_add_var(m, f, TL_I32);
  tl_walk w = {0};
  w.m = m;
  w.f = f;
  w.ctx = a;
  w.post = flow_post;
  tl_walk_run(&w, &f->body);
  if (a->err) return a->err;
  uint32_t nsave = f->nlocal, total;
  tl_expr *body = f->body->aux & F_DONE ? f->body : maybe_skip(a, f->body);
  tl_expr *barrier = results == TL_NONE ? tl_expr_new(m, TL_OP_RETURN, 0) : tl_make_unreachable(m);
  if (barrier->op == TL_OP_RETURN) tl_expr_finalize(m, f, barrier);
  tl_expr *inner[2] = {body, barrier};
  uint32_t uidx = tl_func_add_var(m, f, TL_I32);
  tl_expr *pop_idx = block2(a, stack_bump(a, -4), tl_make_local_set(m, f, a->rewind, mem_op(a, TL_OP_I32_LOAD, 0, 2, stack_pos(a), NULL), false));
  tl_expr *k[6] = {make_if(a, f, state_is(a, REWINDING), block2(a, locals_io(a, nsave, false, &total), pop_idx), NULL),
                   tl_make_local_set(m, f, uidx, tl_make_block(m, TL_OP_BLOCK, a->unwind_label, inner, 2), false),
                   mem_op(a, TL_OP_I32_STORE, 0, 2, stack_pos(a), tl_make_local_get(m, f, uidx)), stack_bump(a, 4),
                   locals_io(a, nsave, true, &total), NULL};
  uint32_t nk = 5;
  if (results != TL_NONE) k[nk++] = tl_make_zero(m, results);
  f->body = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, nk);
  tl_func_refinalize(m, f);
  return TL_OK;
}

/* asyncify-asserts: an uninstrumented function traps if the state changes
 * across a call it makes. */
typedef struct {
  asy *a;
  uint32_t old;
} assert_ctx;

static void assert_call(tl_walk *w, tl_expr **slot) {
  assert_ctx *c = w->ctx;
  asy *a = c->a;
  tl_module *m = a->m;
  tl_expr *e = *slot;
  if (e->op != TL_OP_CALL && e->op != TL_OP_CALL_INDIRECT) return;
  tl_expr *bad = make_if(a, w->f, tl_make_binary(m, TL_OP_I32_NE, global_get(a, a->state), tl_make_local_get(m, w->f, c->old)),
                         tl_make_unreachable(m), NULL);
  if (!tl_type_is_concrete(e->type)) {
    if (e->type == TL_NONE) *slot = block2(a, e, bad);
    return;
  }
  uint32_t t = tl_func_add_var(m, w->f, e->type);
  tl_expr *k[3] = {tl_make_local_set(m, w->f, t, e, false), bad, tl_make_local_get(m, w->f, t)};
  *slot = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 3);
}

static void add_asserts(asy *a, uint32_t fi) {
  tl_module *m = a->m;
  tl_func *f = TL_FUNC(m, fi);
  if (!f->body) return;
  assert_ctx c = {a, tl_func_add_var(m, f, TL_I32)};
  tl_walk_post_only(m, f, &f->body, assert_call, &c, TL_F_CALL);
  tl_expr *k[2] = {tl_make_local_set(m, f, c.old, global_get(a, a->state), false), f->body};
  f->body = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 2);
  tl_func_refinalize(m, f);
}

/* ---- the module's interface ------------------------------------------------------------ */

static uint32_t add_global(asy *a, tl_type t, const char *name, bool import) {
  tl_module *m = a->m;
  if (import) return tl_module_add_global_import(m, "env", name, t, name); /* mutable below */
  tl_global g = {.type = t, .mut = true, .name = name};
  g.init = t == TL_I64 ? tl_make_const_i64(m, 0) : tl_make_const_i32(m, 0);
  TL_VEC_PUSH(&m->globals, tl_global, g);
  return (uint32_t)m->globals.n - 1;
}

static void add_export(tl_module *m, const char *name, uint8_t kind, uint32_t index) {
  tl_export e = {name, kind, index, 0};
  TL_VEC_PUSH(&m->exports, tl_export, e);
}

/* asyncify_start_unwind(data) etc.: set the state (and data), then trap if
 * the stack position is past its end. */
static uint32_t add_control(asy *a, const char *name, bool takes_data, int st) {
  tl_module *m = a->m;
  uint32_t fi = tl_module_add_func_defined(m, tl_functype_intern(m, takes_data ? a->ptr : TL_NONE, TL_NONE), name);
  tl_func *f = TL_FUNC(m, fi);
  tl_expr *b = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, NULL, 0);
  tl_expr_push_kid(m, b, global_set(a, a->state, tl_make_const_i32(m, st)));
  if (takes_data) tl_expr_push_kid(m, b, global_set(a, a->data, tl_make_local_get(m, f, 0)));
  tl_expr *end = mem_op(a, ptr_load(a), a->m64 ? 8 : 4, a->m64 ? 3 : 2, global_get(a, a->data), NULL);
  tl_expr_push_kid(m, b, make_if(a, f, tl_make_binary(m, a->m64 ? TL_OP_I64_GT_U : TL_OP_I32_GT_U, stack_pos(a), end), tl_make_unreachable(m), NULL));
  tl_expr_finalize(m, f, b);
  f->body = b;
  add_export(m, f->name, TL_EXTERN_FUNC, fi);
  return fi;
}

static void add_interface(asy *a, uint32_t *made) {
  tl_module *m = a->m;
  made[0] = add_control(a, "asyncify_start_unwind", true, UNWINDING);
  made[1] = add_control(a, "asyncify_stop_unwind", false, NORMAL);
  made[2] = add_control(a, "asyncify_start_rewind", true, REWINDING);
  made[3] = add_control(a, "asyncify_stop_rewind", false, NORMAL);
  uint32_t gs = tl_module_add_func_defined(m, tl_functype_intern(m, TL_NONE, TL_I32), "asyncify_get_state");
  tl_func *f = TL_FUNC(m, gs);
  tl_expr *k[1] = {global_get(a, a->state)};
  f->body = tl_make_block(m, TL_OP_BLOCK, f->body->imm.block.label, k, 1);
  add_export(m, f->name, TL_EXTERN_FUNC, gs);
}

/* Calls to the asyncify.* imports go to the functions made; the imports go. */
typedef struct {
  const uint32_t *from, *to;
} redirect_ctx;

static void redirect(tl_walk *w, tl_expr **slot) {
  redirect_ctx *r = w->ctx;
  tl_expr *e = *slot;
  if (e->op != TL_OP_CALL) return;
  for (int i = 0; i < 4; i++)
    if (r->from[i] != TL_NO_INDEX && e->imm.index == r->from[i]) e->imm.index = r->to[i];
}

static tl_status drop_asyncify_imports(asy *a, const uint32_t *made) {
  tl_module *m = a->m;
  bool any = false;
  for (int i = 0; i < 4; i++) any |= a->asy[i] != TL_NO_INDEX;
  if (!any) return TL_OK;
  redirect_ctx r = {a->asy, made};
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, redirect, &r, TL_F_CALL);
  uint8_t *drop = tl_calloc(m->funcs.n, 1);
  if (!drop) return tl_nomem(a->ctx->err, "asyncify");
  for (int i = 0; i < 4; i++)
    if (a->asy[i] != TL_NO_INDEX) drop[a->asy[i]] = 1;
  bool ok = tl_module_remove_funcs(m, drop);
  tl_free(drop);
  return ok ? TL_OK : tl_nomem(a->ctx->err, "asyncify");
}

static tl_status pick_memory(asy *a) {
  tl_module *m = a->m;
  if (m->memories.n == 0) { /* as Binaryen: one page for the host's asyncify stack */
    tl_memory mem = {.min = 1, .max = 1, .has_max = true, .name = "asyncify_memory"};
    TL_VEC_PUSH(&m->memories, tl_memory, mem);
  }
  a->mem = 0;
  if (m->memories.n > 1) {
    const char *want = tl_pass_arg_get(a->ctx, "asyncify-memory");
    int32_t x = want ? tl_module_find_export(m, want) : -1;
    if (x < 0 || TL_EXPORT(m, x)->kind != TL_EXTERN_MEMORY)
      return tl_errorf(a->ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                       "asyncify: the module has several memories; name the exported one for the asyncify stack with --pass-arg=asyncify-memory@NAME");
    a->mem = TL_EXPORT(m, x)->index;
  }
  a->m64 = tl_memory_is64(m, a->mem);
  a->ptr = a->m64 ? TL_I64 : TL_I32;
  return TL_OK;
}

static tl_status refuse_tail_calls(asy *a, const tl_vec *edges) {
  for (size_t k = 0; k + 1 < edges->n; k += 2) {
    uint32_t caller = TL_VEC_AT(edges, uint32_t, k);
    if (TL_VEC_AT(edges, uint32_t, k + 1) == UINT32_MAX && instrumented(a, caller))
      return tl_errorf(a->ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                       "asyncify: function %u (%s) would be instrumented but makes a tail call, which asyncify does not support", caller,
                       TL_FUNC(a->m, caller)->name ? TL_FUNC(a->m, caller)->name : "unnamed");
  }
  return TL_OK;
}

static void find_asyncify_imports(asy *a) {
  static const char *const names[4] = {"start_unwind", "stop_unwind", "start_rewind", "stop_rewind"};
  for (int k = 0; k < 4; k++) {
    a->asy[k] = TL_NO_INDEX;
    for (uint32_t i = 0; i < a->m->nimported_funcs; i++)
      if (import_is(TL_FUNC(a->m, i), names[k])) a->asy[k] = i;
  }
}

/* Before flatten: a function's value leaves through return, so the body
 * the rewrite sees is none-typed statements. */
static void value_to_return(asy *a, uint32_t fi) {
  tl_func *f = TL_FUNC(a->m, fi);
  if (!f->body || !tl_type_is_concrete(f->body->type)) return;
  tl_expr *r = tl_expr_new(a->m, TL_OP_RETURN, 1);
  r->kid[0] = f->body;
  tl_expr_finalize(a->m, f, r);
  tl_expr *k[1] = {r};
  f->body = tl_make_block(a->m, TL_OP_BLOCK, TL_NO_LABEL, k, 1);
  tl_func_refinalize(a->m, f);
}

/* With optimizing on, the function pipeline on the instrumented functions. */
static tl_status optimize(asy *a, const uint8_t *which) {
  if (a->ctx->opt->optimize_level <= 0) return TL_OK;
  const char *names[64];
  uint32_t n = tl_pipeline_function(a->ctx->opt, names, 64);
  return tl_run_func_passes_on(a->ctx, names, n, which);
}

tl_status tl_pass_asyncify(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  asy a = {.ctx = ctx, .m = m};
  if (tl_module_find_export(m, "asyncify_start_unwind") >= 0)
    return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "asyncify: the module exports asyncify_start_unwind already (the pass ran)");
  if (tl_pass_arg_get(ctx, "asyncify-in-secondary-memory"))
    return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "asyncify: asyncify-in-secondary-memory is not supported");
  tl_status s = pick_memory(&a);
  if (s) return s;
  a.indirect_changes = !tl_pass_arg_get(ctx, "asyncify-ignore-indirect");
  find_asyncify_imports(&a);
  a.fi = tl_calloc(m->funcs.n + 1, sizeof *a.fi);
  uint8_t *which = tl_calloc(m->funcs.n + 1, 1);
  if (!a.fi || !which) {
    tl_free(a.fi);
    tl_free(which);
    return tl_nomem(ctx->err, "asyncify");
  }
  tl_vec edges = {0};
  s = analyze(&a, &edges);
  if (!s) s = refuse_tail_calls(&a, &edges);
  tl_vec_free(&edges);
  uint32_t nf = (uint32_t)m->funcs.n;
  for (uint32_t i = m->nimported_funcs; i < nf && !s; i++)
    if (instrumented(&a, i)) {
      s = check_func(&a, i, true);
      which[i] = 1;
    }
  if (s) goto out;
  bool import_globals = tl_pass_arg_get(ctx, "asyncify-import-globals") || tl_pass_arg_get(ctx, "asyncify-relocatable");
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (which[i]) value_to_return(&a, i);
  /* flat form, and when optimizing fewer locals to save (passes that keep it flat) */
  static const char *const flat[] = {"flatten", "dce"};
  static const char *const fewer[] = {"remove-unused-names", "simplify-locals-nonesting", "reorder-locals",
                                      "coalesce-locals", "simplify-locals-nonesting", "reorder-locals", "merge-blocks"};
  s = tl_run_func_passes_on(ctx, flat, 2, which);
  /* flatten's temps are scratch locals, which coalesce-locals leaves
   * alone for the writer to elide; here they must merge (each one left is
   * saved and restored) */
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    if (which[i]) TL_FUNC(m, i)->has_scratch_base = false;
  if (!s && ctx->opt->optimize_level > 0) s = tl_run_func_passes_on(ctx, fewer, 7, which);
  for (uint32_t i = m->nimported_funcs; i < nf && !s; i++)
    if (which[i]) s = check_func(&a, i, false);
  if (s) goto out;
  /* globals after the passes: an imported global shifts defined ones */
  a.state = add_global(&a, TL_I32, "__asyncify_state", import_globals);
  a.data = add_global(&a, a.ptr, "__asyncify_data", import_globals);
  if (import_globals) TL_GLOBAL(m, a.state)->mut = TL_GLOBAL(m, a.data)->mut = true;
  if (tl_pass_arg_get(ctx, "asyncify-export-globals")) {
    add_export(m, "__asyncify_state", TL_EXTERN_GLOBAL, a.state);
    add_export(m, "__asyncify_data", TL_EXTERN_GLOBAL, a.data);
  }
  for (uint32_t i = m->nimported_funcs; i < nf && !s; i++)
    if (which[i]) {
      find_saved(&a, i);
      s = instrument(&a, i);
      tl_free(a.live);
      a.live = NULL;
    }
  if (!s && tl_pass_arg_get(ctx, "asyncify-asserts"))
    for (uint32_t i = m->nimported_funcs; i < nf; i++)
      if (!which[i]) add_asserts(&a, i);
  if (!s) s = optimize(&a, which);
  if (s) goto out;
  uint32_t made[4];
  add_interface(&a, made);
  s = drop_asyncify_imports(&a, made);
out:
  tl_free(which);
  tl_free(a.fi);
  return s;
}
