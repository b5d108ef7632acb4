/* reader_check.c — a function body validated from its bytes, without
 * building IR (lazy bodies: tl_read_options.lazy_bodies). One pass over the
 * bytes with a stack of value types and a stack of control frames, applying
 * the rules reader_code.c applies while it decodes (the immediates are read
 * by the same functions), so a body the checker passes decodes later
 * (tl_func_decode) without error, and a body it refuses gets the decoder's
 * error at the same offset. The locals are read into f->local as the
 * decoder reads them; the body stays in f->code with f->lazy set. */
#include "reader_int.h"

#include <string.h>

typedef struct {
  uint8_t kind;
  bool unreachable;        /* the stack is polymorphic */
  uint32_t height;         /* first value of this frame */
  tl_type params, results;
} cframe;

#define VALS(x) (&(x)->c->cstack)
#define FRAMES(x) (&(x)->c->cframes)
#define TYPES(x) (&(x)->c->ctypes)

static cframe *top(fctx *x) { return &TL_VEC_AT(FRAMES(x), cframe, FRAMES(x)->n - 1); }

static void push(fctx *x, tl_type t) { TL_VEC_PUSH(VALS(x), tl_type, t); }

/* The values of t (none, one or a tuple's), in order. */
static void push_all(fctx *x, tl_type t) {
  uint32_t n = tl_type_arity(x->m, t);
  if (n == 1) push(x, t);
  else
    for (uint32_t k = 0; k < n; k++) push(x, tl_type_at(x->m, t, k));
}

/* One value (TL_UNREACHABLE for bottom when the stack is polymorphic);
 * false when there is none. */
static bool pop1(fctx *x, tl_type *t) {
  cframe *fr = top(x);
  if (VALS(x)->n == fr->height) {
    *t = TL_UNREACHABLE;
    return fr->unreachable;
  }
  *t = TL_VEC_AT(VALS(x), tl_type, --VALS(x)->n);
  return true;
}

static tl_status mismatch(fctx *x, tl_type want, tl_type got) {
  return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected %s but got %s", x->opname, rdc_tname(want),
                  rdc_tname(got));
}

/* One value of type want (TL_UNREACHABLE: any); *got (if given) its type. */
static tl_status pop_want(fctx *x, tl_type want, tl_type *got) {
  tl_type t;
  if (!pop1(x, &t))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected %s but nothing on stack", x->opname,
                    rdc_tname(want));
  if (got) *got = t;
  if (t != want && want != TL_UNREACHABLE && !tl_type_sub(x->m, t, want)) return mismatch(x, want, t);
  return TL_OK;
}

static tl_status pop_any(fctx *x, tl_type *t) {
  if (!pop1(x, t)) return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected a value but nothing on stack", x->opname);
  return TL_OK;
}

/* The values of want, last first; with keep, their stack types go to
 * TYPES(x) in order. */
static tl_status pop_vals(fctx *x, tl_type want, bool keep) {
  uint32_t n = tl_type_arity(x->m, want);
  if (keep) {
    TYPES(x)->n = 0;
    if (n && TYPES(x)->cap < n) tl_vec_grow(TYPES(x), sizeof(tl_type), n);
    TYPES(x)->n = n;
  }
  for (uint32_t k = n; k-- > 0;) {
    tl_type t, w = n == 1 ? want : tl_type_at(x->m, want, k);
    TRY(pop_any(x, &t));
    if (t != w && !tl_type_sub(x->m, t, w)) return mismatch(x, w, t);
    if (keep) TL_VEC_AT(TYPES(x), tl_type, k) = t;
  }
  return TL_OK;
}

static void set_unreachable(fctx *x) {
  cframe *fr = top(x);
  VALS(x)->n = fr->height;
  fr->unreachable = true;
}

static void open_frame(fctx *x, uint8_t kind, tl_type params, tl_type results) {
  cframe fr = {kind, false, (uint32_t)VALS(x)->n, params, results};
  TL_VEC_PUSH(FRAMES(x), cframe, fr);
  push_all(x, params);
}

static tl_type label_type(const cframe *fr) { return fr->kind == K_LOOP ? fr->params : fr->results; }

static tl_status get_label(fctx *x, uint32_t depth, cframe **out) {
  if (depth >= FRAMES(x)->n) return rdc_fail(x, TL_E_INVALID, "unknown label %u", depth);
  *out = &TL_VEC_AT(FRAMES(x), cframe, FRAMES(x)->n - 1 - depth);
  return TL_OK;
}

static tl_status rd_label(fctx *x, cframe **out) {
  uint32_t depth;
  TRY(rd_u32(x->r, &depth, "label"));
  return get_label(x, depth, out);
}

/* The frame's results, and nothing else left on its stack. */
static tl_status close_frame(fctx *x) {
  cframe *fr = top(x);
  TRY(pop_vals(x, fr->results, false));
  fr = top(x);
  if (VALS(x)->n != fr->height)
    return rdc_fail(x, TL_E_INVALID, "type mismatch at end of %s: values remain on the stack",
                    fr->kind == K_FUNC ? "function" : "block");
  return TL_OK;
}

/* ------------------------------------------------------------- control */
static tl_status chk_block(fctx *x, int op) {
  tl_type params, results;
  uint32_t bt;
  TRY(rdc_blocktype(x, &params, &results, &bt));
  if (op == TL_OP_IF) TRY(pop_want(x, TL_I32, NULL));
  TRY(pop_vals(x, params, false));
  uint8_t kind = op == TL_OP_BLOCK ? K_BLOCK : op == TL_OP_LOOP ? K_LOOP : op == TL_OP_IF ? K_IF : K_TRY;
  open_frame(x, kind, params, results);
  return TL_OK;
}

static tl_status chk_else(fctx *x) {
  if (top(x)->kind != K_IF) return rdc_fail(x, TL_E_MALFORMED, "else without matching if");
  TRY(close_frame(x));
  cframe *fr = top(x);
  fr->kind = K_ELSE;
  fr->unreachable = false;
  push_all(x, fr->params);
  return TL_OK;
}

static tl_status chk_end(fctx *x, bool *done) {
  TRY(close_frame(x));
  cframe fr = *top(x);
  FRAMES(x)->n--;
  if (fr.kind == K_FUNC) {
    *done = true;
    return TL_OK;
  }
  if (fr.kind == K_IF && fr.params != fr.results)
    return rdc_fail(x, TL_E_INVALID, "type mismatch: if without else must have matching param and result types");
  push_all(x, fr.results);
  return TL_OK;
}

static tl_status chk_br(fctx *x, int op) {
  cframe *t = NULL;
  TRY(rd_label(x, &t));
  tl_type lt = label_type(t);
  if (op == TL_OP_BR_IF) TRY(pop_want(x, TL_I32, NULL));
  TRY(pop_vals(x, lt, false));
  if (op == TL_OP_BR_IF) push_all(x, lt);
  else set_unreachable(x);
  return TL_OK;
}

/* The labels are read twice: once to find them (errors in order), then,
 * with the values popped, to match each against the default's types. */
static tl_status chk_br_table(fctx *x) {
  uint32_t n;
  cframe *t = NULL;
  TRY(rd_count(x->r, &n, 1, "br_table targets"));
  const uint8_t *labels = x->r->p;
  for (uint32_t i = 0; i <= n; i++) TRY(rd_label(x, &t));
  tl_type lt = label_type(t);
  uint32_t ar = tl_type_arity(x->m, lt);
  TRY(pop_want(x, TL_I32, NULL));
  TRY(pop_vals(x, lt, true));
  const uint8_t *end = x->r->p;
  x->r->p = labels;
  for (uint32_t i = 0; i <= n; i++) {
    TRY(rd_label(x, &t));
    tl_type ti = label_type(t);
    if (tl_type_arity(x->m, ti) != ar) return rdc_fail(x, TL_E_INVALID, "type mismatch in br_table: label arities differ");
    for (uint32_t k = 0; k < ar; k++) {
      tl_type got = TL_VEC_AT(TYPES(x), tl_type, k);
      if (!tl_type_sub(x->m, got, ar == 1 ? ti : tl_type_at(x->m, ti, k)))
        return rdc_fail(x, TL_E_INVALID, "type mismatch in br_table: label types differ");
    }
  }
  x->r->p = end;
  set_unreachable(x);
  return TL_OK;
}

static tl_status chk_return(fctx *x) {
  TRY(pop_vals(x, tl_func_type(x->m, x->f)->results, false));
  set_unreachable(x);
  return TL_OK;
}

static tl_status chk_call(fctx *x, int op) {
  tl_module *m = x->m;
  uint32_t a, b;
  tl_functype *ft;
  TRY(rdc_callee(x, op, &a, &b, &ft));
  if (op == TL_OP_CALL_INDIRECT || op == TL_OP_RETURN_CALL_INDIRECT)
    TRY(pop_want(x, tl_table_is64(m, b) ? TL_I64 : TL_I32, NULL));
  uint32_t np = tl_type_arity(m, ft->params);
  for (uint32_t k = np; k-- > 0;) TRY(pop_want(x, tl_type_at(m, ft->params, k), NULL));
  if (op == TL_OP_RETURN_CALL || op == TL_OP_RETURN_CALL_INDIRECT) set_unreachable(x);
  else push_all(x, ft->results);
  return TL_OK;
}

static tl_status chk_select(fctx *x, int op) {
  tl_type want, t1 = TL_UNREACHABLE, t2 = TL_UNREACHABLE;
  TRY(rdc_select_type(x, op, &want));
  TRY(pop_want(x, TL_I32, NULL));
  if (op == TL_OP_SELECT_T) {
    TRY(pop_want(x, want, NULL));
    TRY(pop_want(x, want, NULL));
    push(x, want);
    return TL_OK;
  }
  TRY(pop_any(x, &t2));
  TRY(pop_want(x, t2, &t1));
  if (t1 == TL_UNREACHABLE) t1 = t2;
  if (tl_type_is_ref(t1)) return rdc_fail(x, TL_E_INVALID, "type mismatch: select without type on reference values");
  push(x, t1);
  return TL_OK;
}

static tl_status chk_local(fctx *x, int op) {
  uint32_t idx;
  TRY(rd_u32(x->r, &idx, "local index"));
  if (idx >= x->nwasm) return rdc_fail(x, TL_E_INVALID, "unknown local %u", idx);
  tl_type t = x->f->local[idx];
  if (op != TL_OP_LOCAL_GET) TRY(pop_want(x, t, NULL));
  if (op != TL_OP_LOCAL_SET) push(x, t);
  return TL_OK;
}

static tl_status chk_global(fctx *x, int op) {
  uint32_t idx;
  TRY(rdc_global(x, op, &idx));
  tl_global *g = TL_GLOBAL(x->m, idx);
  if (op == TL_OP_GLOBAL_GET) push(x, g->type);
  else TRY(pop_want(x, g->type, NULL));
  return TL_OK;
}

static tl_status chk_table(fctx *x, int op) {
  uint32_t idx;
  TRY(rd_u32(x->r, &idx, "table index"));
  TRY(rdc_need_table(x, idx));
  tl_type sig[3], res;
  uint32_t n = rdc_table_sig(x, op, idx, sig, &res);
  for (uint32_t k = n; k-- > 0;) TRY(pop_want(x, sig[k], NULL));
  if (res != TL_NONE) push(x, res);
  return TL_OK;
}

static tl_status chk_ref(fctx *x, int op) {
  tl_type t;
  if (op == TL_OP_REF_IS_NULL) {
    TRY(pop_any(x, &t));
    if (t != TL_UNREACHABLE && !tl_type_is_ref(t))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in ref.is_null, expected a reference but got %s", rdc_tname(t));
    push(x, TL_I32);
    return TL_OK;
  }
  TRY(rdc_ref_null(x, &t));
  push(x, t);
  return TL_OK;
}

/* -------------------------------------------------- exception handling */
static tl_status chk_catch(fctx *x, int op) {
  cframe *fr = top(x);
  uint32_t tag;
  TRY(rdc_catch(x, op, fr->kind, &tag));
  TRY(close_frame(x));
  fr = top(x);
  fr->kind = op == TL_OP_CATCH ? K_CATCH : K_CATCH_ALL;
  fr->unreachable = false;
  if (op == TL_OP_CATCH) push_all(x, tl_tag_params(x->m, tag));
  return TL_OK;
}

static tl_status chk_delegate(fctx *x) {
  if (top(x)->kind != K_TRY) return rdc_fail(x, TL_E_MALFORMED, "delegate without a matching try");
  uint32_t depth;
  TRY(rd_u32(x->r, &depth, "label"));
  TRY(close_frame(x));
  tl_type results = top(x)->results;
  FRAMES(x)->n--;
  cframe *t = NULL;
  TRY(get_label(x, depth, &t));
  push_all(x, results);
  return TL_OK;
}

static tl_status chk_throw(fctx *x, int op) {
  if (op == TL_OP_THROW_REF) {
    TRY(pop_want(x, TL_EXNREF, NULL));
  } else if (op == TL_OP_THROW) {
    uint32_t tag;
    TRY(rdc_need_tag(x, &tag));
    tl_type pt = tl_tag_params(x->m, tag);
    uint32_t n = tl_type_arity(x->m, pt);
    for (uint32_t k = n; k-- > 0;) TRY(pop_want(x, n == 1 ? pt : tl_type_at(x->m, pt, k), NULL));
  } else {
    uint32_t depth;
    cframe *t = NULL;
    TRY(rd_u32(x->r, &depth, "label"));
    TRY(get_label(x, depth, &t));
    if (t->kind != K_CATCH && t->kind != K_CATCH_ALL)
      return rdc_fail(x, TL_E_INVALID, "invalid rethrow label %u: not a catch", depth);
  }
  set_unreachable(x);
  return TL_OK;
}

/* A clause sends the tag's values (catch, catch_ref), then an exnref
 * (catch_ref, catch_all_ref), to a label outside the try_table. */
static tl_status chk_clause(fctx *x) {
  const uint8_t *at = x->r->p;
  uint8_t kind;
  uint32_t tag = 0;
  TRY(rd_byte(x->r, &kind, "catch kind"));
  if (kind > 3) return rd_fail_at(x->r, at, TL_E_MALFORMED, "malformed catch clause kind %u", kind);
  if (kind < 2) TRY(rdc_need_tag(x, &tag));
  cframe *t = NULL;
  TRY(rd_label(x, &t));
  tl_type pt = kind < 2 ? tl_tag_params(x->m, tag) : TL_NONE, lt = label_type(t);
  uint32_t np = tl_type_arity(x->m, pt), n = np + (kind & 1);
  bool same = tl_type_arity(x->m, lt) == n;
  for (uint32_t k = 0; same && k < n; k++) {
    tl_type want = n == 1 ? lt : tl_type_at(x->m, lt, k);
    tl_type sent = k == np ? tl_ref(TL_HT_EXN, false) : np == 1 ? pt : tl_type_at(x->m, pt, k);
    same = tl_type_sub(x->m, sent, want);
  }
  if (same) return TL_OK;
  if (t->kind == K_LOOP && lt != TL_NONE)
    return rdc_fail(x, TL_E_UNSUPPORTED, "try_table catch to a loop with parameters is not supported");
  return rdc_fail(x, TL_E_INVALID, "type mismatch in catch clause: sends %s to a label of %s",
                  n == 0 ? "none" : n > 1 ? "tuple" : rdc_tname(np ? pt : x->m->typed_funcs ? tl_ref(TL_HT_EXN, false) : TL_EXNREF), rdc_tname(lt));
}

static tl_status chk_try_table(fctx *x) {
  tl_type params, results;
  uint32_t bt, n;
  TRY(rdc_blocktype(x, &params, &results, &bt));
  TRY(rd_count(x->r, &n, 2, "catch clauses"));
  for (uint32_t i = 0; i < n; i++) TRY(chk_clause(x));
  TRY(pop_vals(x, params, false));
  open_frame(x, K_TRY_TABLE, params, results);
  return TL_OK;
}

/* ------------------------------------------------------------ the body */
/* An opcode whose sig lists its operands. */
static tl_status chk_plain(fctx *x, int op) {
  const tl_opinfo *oi = &tl_ops[op];
  tl_imm im;
  memset(&im, 0, sizeof im);
  TRY(rdc_imm(x, op, &im));
  uint32_t wide = (oi->flags & TL_F_INDEXED) ? tl_index64_mask(x->m, op, im) : 0;
  for (uint32_t k = oi->nops; k-- > 0;) TRY(pop_want(x, wide >> k & 1 ? TL_I64 : oi->ops[k], NULL));
  tl_type res = wide & TL_IDX64_RESULT ? TL_I64 : op == TL_OP_REF_FUNC ? tl_ref_func_precise(x->m, im.index) : oi->result;
  if (res != TL_NONE) push(x, res);
  if (oi->flags & TL_F_NORETURN) set_unreachable(x);
  return TL_OK;
}

static tl_status chk_special(fctx *x, int op, bool *done) {
  tl_type t;
  switch (op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_IF: case TL_OP_TRY: return chk_block(x, op);
  case TL_OP_CATCH: case TL_OP_CATCH_ALL: return chk_catch(x, op);
  case TL_OP_DELEGATE: return chk_delegate(x);
  case TL_OP_THROW: case TL_OP_RETHROW: case TL_OP_THROW_REF: return chk_throw(x, op);
  case TL_OP_TRY_TABLE: return chk_try_table(x);
  case TL_OP_ELSE: return chk_else(x);
  case TL_OP_END: return chk_end(x, done);
  case TL_OP_BR: case TL_OP_BR_IF: return chk_br(x, op);
  case TL_OP_BR_TABLE: return chk_br_table(x);
  case TL_OP_RETURN: return chk_return(x);
  case TL_OP_CALL: case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL: case TL_OP_RETURN_CALL_INDIRECT:
    return chk_call(x, op);
  case TL_OP_DROP: return pop_any(x, &t);
  case TL_OP_SELECT: case TL_OP_SELECT_T: return chk_select(x, op);
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: return chk_local(x, op);
  case TL_OP_GLOBAL_GET: case TL_OP_GLOBAL_SET: return chk_global(x, op);
  case TL_OP_TABLE_GET: case TL_OP_TABLE_SET: case TL_OP_TABLE_GROW: case TL_OP_TABLE_FILL:
    return chk_table(x, op);
  case TL_OP_REF_NULL: case TL_OP_REF_IS_NULL: return chk_ref(x, op);
  default:
    if (tl_ops[op].feat & TL_FEAT_GC) { /* typed references and gc: decoded, not checked */
      x->c->chk_decode = true;
      return TL_E_UNSUPPORTED;
    }
    return rdc_fail(x, TL_E_MALFORMED, "unexpected opcode %s", x->opname);
  }
}

tl_status rd_check_body(rctx *c, rd *r, uint32_t fi) {
  fctx x = {c, r, c->m, TL_FUNC(c->m, fi), 0, r->p, "function", true};
  x.f->body_offset = (uint32_t)(r->p - r->base);
  TRY(rdc_locals(&x));
  for (uint32_t i = tl_func_nparams(x.m, x.f); i < x.nwasm; i++)
    if (!tl_type_defaultable(x.f->local[i])) { /* local initialization: the decoder tracks it */
      c->chk_decode = true;
      return TL_E_UNSUPPORTED;
    }
  VALS(&x)->n = FRAMES(&x)->n = 0;
  open_frame(&x, K_FUNC, TL_NONE, tl_func_type(x.m, x.f)->results);
  bool done = false;
  while (!done) {
    if (r->p >= r->end) return rd_fail(r, TL_E_MALFORMED, "unexpected end of function body (missing end)");
    int op;
    TRY(rdc_opcode(&x, &op));
    TRY(tl_ops[op].nops != TL_SIG_SPECIAL ? chk_plain(&x, op) : chk_special(&x, op, &done));
  }
  if (r->p != r->end) return rd_fail(r, TL_E_MALFORMED, "junk after end of function body");
  x.f->lazy = true;
  x.f->body = NULL;
  return TL_OK;
}
