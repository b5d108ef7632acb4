/* fpcast_emu.c — wasm-opt's fpcast-emu (emcc
 * -sEMULATE_FUNCTION_POINTER_CASTS): indirect calls whose signature does
 * not match the callee's work as C programs that cast function pointers
 * expect. Every function an active or passive element segment names (what
 * can be in a table; declarative ones stay) is replaced there by a
 * thunk byn$fpcast-emu$NAME of one signature for all, N i64 params and an
 * i64 result (N: --pass-arg max-func-params@N, default 16); the thunk
 * converts its params to the function's types (wrap, reinterpret), calls
 * it and converts the result back (extend_u, reinterpret; none gives 0).
 * Every call_indirect takes that signature: its operands converted to i64
 * and padded with zeros, its i64 result converted to the type it had. A
 * return_call_indirect becomes return (call_indirect ...) (the result needs
 * converting, so it is no longer a tail call). A function code still takes
 * with ref.func stays declared (a declarative segment is added).
 * Refused (an error, nothing changed): a v128 or reference param or result
 * (no i64 form), an indirect call with more than N operands, thunks already
 * there (the pass ran). Kind MODULE_IFACE: the table's functions change
 * signature for the host too. */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_module *m;
  uint32_t n;           /* ABI params */
  uint32_t abi;         /* the ABI function type */
} fpcast;

static bool scalar(tl_type t) { return t == TL_I32 || t == TL_I64 || t == TL_F32 || t == TL_F64; }

/* Whether every param and result of type ti has an i64 form, and at most n params. */
static bool convertible(tl_module *m, uint32_t ti, uint32_t n) {
  tl_functype *ft = TL_FTYPE(m, ti);
  uint32_t np = tl_type_arity(m, ft->params), nr = tl_type_arity(m, ft->results);
  if (np > n || nr > 1 || (nr && !scalar(ft->results))) return false;
  for (uint32_t i = 0; i < np; i++)
    if (!scalar(tl_type_at(m, ft->params, i))) return false;
  return true;
}

/* v (of type t) as the i64 the ABI passes. */
static tl_expr *to_abi(tl_module *m, tl_expr *v, tl_type t) {
  switch (t) {
  case TL_I32: return tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, v);
  case TL_F32: return tl_make_unary(m, TL_OP_I64_EXTEND_I32_U, tl_make_unary(m, TL_OP_I32_REINTERPRET_F32, v));
  case TL_F64: return tl_make_unary(m, TL_OP_I64_REINTERPRET_F64, v);
  case TL_NONE: {
    tl_expr *k[2] = {v, tl_make_const_i64(m, 0)};
    return tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 2);
  }
  default: return v;   /* i64; unreachable never runs */
  }
}

/* The ABI's i64 v as a value of type t (none: dropped). */
static tl_expr *from_abi(tl_module *m, tl_expr *v, tl_type t) {
  switch (t) {
  case TL_I32: return tl_make_unary(m, TL_OP_I32_WRAP_I64, v);
  case TL_F32: return tl_make_unary(m, TL_OP_F32_REINTERPRET_I32, tl_make_unary(m, TL_OP_I32_WRAP_I64, v));
  case TL_F64: return tl_make_unary(m, TL_OP_F64_REINTERPRET_I64, v);
  case TL_NONE: return tl_make_drop(m, v);
  default: return v;
  }
}

static void thunk_name(tl_module *m, uint32_t fi, char *out, size_t n) {
  const char *name = TL_FUNC(m, fi)->name;
  if (name) snprintf(out, n, "byn$fpcast-emu$%s", name);
  else snprintf(out, n, "byn$fpcast-emu$%u", fi);
}

/* byn$fpcast-emu$F: (i64 x n) -> i64, calling F. */
static uint32_t make_thunk(fpcast *c, uint32_t fi) {
  tl_module *m = c->m;
  char name[512];
  thunk_name(m, fi, name, sizeof name);
  uint32_t t = tl_module_add_func_defined(m, c->abi, name);
  tl_func *th = TL_FUNC(m, t);
  tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, fi)->type);
  uint32_t np = tl_type_arity(m, ft->params);
  tl_expr **args = tl_scratch_calloc(np + 1, sizeof *args);
  if (!args) return TL_NO_INDEX;
  for (uint32_t i = 0; i < np; i++) args[i] = from_abi(m, tl_make_local_get(m, th, i), tl_type_at(m, ft->params, i));
  tl_expr *body = to_abi(m, tl_make_call(m, th, fi, args, np), ft->results);
  tl_free(args);
  th->body = tl_make_block(m, TL_OP_BLOCK, th->body->imm.block.label, &body, 1);
  return t;
}

static void lower_call(tl_walk *w, tl_expr **slot) {
  fpcast *c = w->ctx;
  tl_module *m = c->m;
  tl_expr *e = *slot;
  if (e->op != TL_OP_CALL_INDIRECT && e->op != TL_OP_RETURN_CALL_INDIRECT) return;
  tl_functype *ft = TL_FTYPE(m, e->imm.idx2.a);
  uint32_t np = e->nkid - 1;
  tl_expr *ci = tl_expr_new(m, TL_OP_CALL_INDIRECT, c->n + 1);
  ci->imm.idx2.a = c->abi;
  ci->imm.idx2.b = e->imm.idx2.b;
  for (uint32_t i = 0; i < c->n; i++)
    ci->kid[i] = i < np ? to_abi(m, e->kid[i], tl_type_at(m, ft->params, i)) : tl_make_const_i64(m, 0);
  ci->kid[c->n] = e->kid[np];
  tl_expr_finalize(m, w->f, ci);
  tl_expr *r = ci->type == TL_UNREACHABLE ? ci : from_abi(m, ci, ft->results);
  if (e->op == TL_OP_RETURN_CALL_INDIRECT) {
    tl_expr *ret = tl_expr_new(m, TL_OP_RETURN, ft->results == TL_NONE ? 0 : 1);
    if (ft->results == TL_NONE) {
      tl_expr *k[2] = {r, ret};
      tl_expr_finalize(m, w->f, ret);
      r = tl_make_block(m, TL_OP_BLOCK, TL_NO_LABEL, k, 2);
    } else {
      ret->kid[0] = r;
      tl_expr_finalize(m, w->f, ret);
      r = ret;
    }
  }
  *slot = r;
}

typedef struct { fpcast *c; bool bad; uint32_t type; } scan;

static void scan_call(tl_walk *w, tl_expr **slot) {
  scan *s = w->ctx;
  tl_expr *e = *slot;
  if ((e->op == TL_OP_CALL_INDIRECT || e->op == TL_OP_RETURN_CALL_INDIRECT) && !s->bad &&
      !convertible(s->c->m, e->imm.idx2.a, s->c->n)) {
    s->bad = true;
    s->type = e->imm.idx2.a;
  }
}

static tl_status refuse(tl_pass_ctx *ctx, const char *fmt, uint32_t a) {
  char msg[200];
  snprintf(msg, sizeof msg, fmt, a);
  return tl_errorf(ctx->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "fpcast-emu: %s", msg);
}

/* A function code takes with ref.func must stay declared: those whose
 * table entries became thunks go into a declarative segment. */
typedef struct { const uint32_t *thunk; uint32_t nf; uint8_t *used; bool any; } declared;

static void note_ref(tl_walk *w, tl_expr **slot) {
  declared *d = w->ctx;
  uint32_t f = (*slot)->imm.index;
  if ((*slot)->op == TL_OP_REF_FUNC && f < d->nf && d->thunk[f] > 1) d->used[f] = 1, d->any = true;
}

static bool keep_declared(tl_module *m, const uint32_t *thunk, uint32_t nf) {
  declared d = {thunk, nf, tl_scratch_calloc(nf + 1, 1), false};
  if (!d.used) return false;
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    tl_walk_post(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, note_ref, &d);
  for (uint32_t i = m->nimported_globals; i < m->globals.n; i++) tl_walk_post(m, NULL, &TL_GLOBAL(m, i)->init, note_ref, &d);
  for (uint32_t i = m->nimported_tables; i < m->tables.n; i++)
    if (TL_TABLE(m, i)->init) tl_walk_post(m, NULL, &TL_TABLE(m, i)->init, note_ref, &d);
  if (d.any) {
    tl_elem el = {.mode = TL_SEG_DECLARATIVE, .type = TL_FUNCREF};
    for (uint32_t f = 0; f < nf; f++) el.n += d.used[f];
    el.item = TL_NEWN(&m->arena, tl_expr *, el.n);
    for (uint32_t f = 0, k = 0; f < nf; f++) {
      if (!d.used[f]) continue;
      el.item[k] = tl_expr_new(m, TL_OP_REF_FUNC, 0);
      el.item[k]->imm.index = f;
      tl_expr_finalize(m, NULL, el.item[k++]);
    }
    TL_VEC_PUSH(&m->elems, tl_elem, el);
  }
  tl_free(d.used);
  return true;
}

tl_status tl_pass_fpcast_emu(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  const char *arg = tl_pass_arg_get(ctx, "max-func-params");
  char *end = NULL;
  unsigned long n = arg ? strtoul(arg, &end, 10) : 16;
  if (arg && (!*arg || *end || n > 1000))
    return tl_errorf(ctx->err, TL_E_INVALID, TL_NO_OFFSET, "fpcast-emu: max-func-params@%s is not a count", arg);
  tl_type *ps = tl_scratch_calloc(n + 1, sizeof *ps);
  if (!ps) return tl_nomem(ctx->err, "fpcast-emu");
  for (uint32_t i = 0; i < n; i++) ps[i] = TL_I64;
  fpcast c = {m, (uint32_t)n, tl_functype_intern(m, tl_type_tuple(m, ps, (uint32_t)n), TL_I64)};
  tl_free(ps);
  /* what cannot be done, found before anything changes */
  uint32_t nf = (uint32_t)m->funcs.n;
  uint32_t *thunk = tl_scratch_calloc(nf + 1, sizeof *thunk);   /* per function: its thunk + 1 */
  if (!thunk) return tl_nomem(ctx->err, "fpcast-emu");
  tl_status st = TL_OK;
  char name[512];
  for (size_t s = 0; s < m->elems.n && !st; s++)
    for (uint32_t j = 0; j < TL_ELEM(m, s)->n && TL_ELEM(m, s)->mode != TL_SEG_DECLARATIVE && !st; j++) {
      tl_expr *it = TL_ELEM(m, s)->item[j];
      if (!it || it->op != TL_OP_REF_FUNC || thunk[it->imm.index]) continue;
      thunk[it->imm.index] = 1;
      thunk_name(m, it->imm.index, name, sizeof name);
      if (!convertible(m, TL_FUNC(m, it->imm.index)->type, c.n))
        st = refuse(ctx, "function %u in a table has more params than max-func-params, or one of a type with no i64 form", it->imm.index);
      else if (tl_module_find_func_named(m, name) != TL_NO_INDEX)
        st = refuse(ctx, "a thunk of function %u is there already (did the pass run?)", it->imm.index);
    }
  scan sc = {&c, false, 0};
  for (uint32_t i = m->nimported_funcs; i < nf && !st && !sc.bad; i++)
    tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, scan_call, &sc, TL_F_CALL);
  if (!st && sc.bad)
    st = refuse(ctx, "an indirect call of type %u has more operands than max-func-params, or one with no i64 form", sc.type);
  if (st) {
    tl_free(thunk);
    return st;
  }
  for (uint32_t i = m->nimported_funcs; i < nf; i++)
    tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, lower_call, &c, TL_F_CALL);
  for (size_t s = 0; s < m->elems.n; s++)
    for (uint32_t j = 0; j < TL_ELEM(m, s)->n && TL_ELEM(m, s)->mode != TL_SEG_DECLARATIVE; j++) {
      tl_expr *it = TL_ELEM(m, s)->item[j];
      if (!it || it->op != TL_OP_REF_FUNC || it->imm.index >= nf) continue;
      uint32_t f = it->imm.index;
      if (thunk[f] == 1) {
        uint32_t t = make_thunk(&c, f);
        if (t == TL_NO_INDEX) {
          tl_free(thunk);
          return tl_nomem(ctx->err, "fpcast-emu");
        }
        thunk[f] = t + 1;
      }
      it->imm.index = thunk[f] - 1;
    }
  st = keep_declared(m, thunk, nf) ? TL_OK : tl_nomem(ctx->err, "fpcast-emu");
  tl_free(thunk);
  return st;
}
