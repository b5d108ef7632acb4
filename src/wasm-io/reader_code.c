/* reader_code.c — the code section: function bodies from stack code to the
 * tree IR, validating as it goes (types, indices, alignment, lanes, labels,
 * features), with an explicit value stack and control stack (no recursion).
 * Guarantees: order of effects is kept (values popped from under statements
 * are spilled to scratch locals), code after br/return/unreachable becomes
 * unreachable-typed nodes, multi-value becomes tuple nodes and block params
 * scratch locals (see ir.h); branches to loops with params set those locals
 * first (br_table through trampoline blocks with fresh labels, so wasm label
 * i maps to an IR label through rctx.lmap). Every node is finalized when it
 * is made; labeled constructs with tl_block_finalize and the branch types
 * collected per label as the branches are read. A big code section's
 * bodies are decoded on the pass pool, with the same result (see "the
 * parallel decode" below). */
#include "reader_int.h"

#include "../passes/passes.h"   /* tl_run_parallel: bodies on the pass pool */

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LOCALS_MAX = 50000 };

/* A value-stack entry. t is the wasm stack type: TL_NONE for a statement
 * (no value), TL_UNREACHABLE for a bottom value made in dead code, else a
 * value type or a tuple. e may be NULL for a hole left by a moved value. */
typedef struct { tl_expr *e; tl_type t; } entry;

/* K_TRY: a try's body; K_CATCH / K_CATCH_ALL: in its arm (node: the TRY,
 * whose last kid is the arm); K_TRY_TABLE: node is the TRY_TABLE. */
typedef struct {
  uint8_t kind;
  bool unreachable;        /* stack is polymorphic */
  uint32_t height;         /* first entry of this frame */
  uint32_t dead;           /* entries below are statements */
  uint32_t nval;           /* value entries (t != TL_NONE) in the frame */
  uint32_t label;
  tl_type params, results;
  uint32_t bt;             /* type index of the block type, or TL_NO_INDEX */
  uint32_t pbase;          /* first param scratch local */
  uint32_t tramp;          /* br_table being read: trampoline label, or TL_NO_LABEL */
  tl_expr *node;           /* IF: the node (cond set; then arm after else);
                              TRY, TRY_TABLE: the node (kids pushed as read) */
  bool has_loc;            /* an input source map's location of the construct */
  tl_debugloc loc;
  uint32_t lsets;          /* rctx.lsets when the frame (or its arm) began */
} frame;


#define STK(x) (&(x)->c->stack)
#define TOPF(x) (&TL_VEC_AT(&(x)->c->frames, frame, (x)->c->frames.n - 1))
#define BRT(x, l) TL_VEC_AT(&(x)->c->labels, tl_type, (l))

static void par_free(rctx *c);

void code_scratch_free(rctx *c) {
  par_free(c);
  tl_vec_free(&c->stack);
  tl_vec_free(&c->frames);
  tl_vec_free(&c->labels);
  tl_vec_free(&c->lmap);
  tl_vec_free(&c->lmap_off);
  tl_vec_free(&c->cstack);
  tl_vec_free(&c->cframes);
  tl_vec_free(&c->ctypes);
  tl_vec_free(&c->lset);
  tl_vec_free(&c->lsets);
}

tl_status rdc_fail(fctx *x, tl_status code, const char *fmt, ...) {
  char msg[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return rd_fail_at(x->r, x->at, code, "%s", msg);
}

const char *rdc_tname(tl_type t) {
  if (t == TL_UNREACHABLE) return "any";
  return tl_type_is_tuple(t) ? "tuple" : tl_type_name(t);
}

/* ------------------------------------------------------------ the stack */
static void push(fctx *x, tl_expr *e, tl_type t) {
  entry en = {e, t};
  if (t != TL_NONE) TOPF(x)->nval++;
  TL_VEC_PUSH(STK(x), entry, en);
}

static entry *ent(fctx *x, size_t i) { return &TL_VEC_AT(STK(x), entry, i); }

static uint32_t floor_of(frame *fr) { return fr->dead > fr->height ? fr->dead : fr->height; }

/* A decode worker grows its body's locals with malloc (the arena's out of
 * memory would jump to the main thread); they move to the arena after. */
static void grow_own_locals(fctx *x) {
  tl_func *f = x->f;
  tl_type **own = x->c->own_locals;
  uint32_t cap = f->local_cap ? f->local_cap * 2 : 8;
  tl_type *nl = tl_scratch_realloc(*own, cap, sizeof *nl);
  if (!nl) longjmp(*x->c->oom, 1);
  if (!*own && f->nlocal) memcpy(nl, f->local, f->nlocal * sizeof *nl); /* from the arena */
  f->local = *own = nl;
  f->local_cap = cap;
}

static uint32_t scratch(fctx *x, tl_type t) {
  if (x->c->own_locals && x->f->nlocal == x->f->local_cap) grow_own_locals(x);
  return tl_func_add_local(x->m, x->f, t);
}

static tl_expr *get_local(fctx *x, uint32_t idx) { return tl_make_local_get(x->m, x->f, idx); }

static tl_expr *set_local(fctx *x, uint32_t idx, tl_expr *v) {
  return tl_make_local_set(x->m, x->f, idx, v, false);
}

static bool is_const(const tl_expr *e) {
  switch (e->op) {
  case TL_OP_I32_CONST: case TL_OP_I64_CONST: case TL_OP_F32_CONST: case TL_OP_F64_CONST:
  case TL_OP_V128_CONST: case TL_OP_REF_NULL: case TL_OP_REF_FUNC: return true;
  default: return false;
  }
}

/* tuple.extract of a tuple scratch local: those are set once, before any
 * of their extracts is pushed, so reading one later is like a constant. */
static bool is_scratch_extract(fctx *x, const tl_expr *e) {
  return e->op == TL_OP_TUPLE_EXTRACT && e->kid[0]->op == TL_OP_LOCAL_GET && e->kid[0]->imm.index >= x->nwasm &&
         tl_type_is_tuple(x->f->local[e->kid[0]->imm.index]);
}

/* Entry i holds a tuple: store it in a scratch local and push one
 * tuple.extract per component. */
static void split_tuple(fctx *x, size_t i) {
  entry *en = ent(x, i);
  tl_type t = en->t;
  tl_expr *e = en->e;
  uint32_t n = tl_type_arity(x->m, t), tmp = 0;
  bool dead = e->type == TL_UNREACHABLE;
  en->t = TL_NONE;
  TOPF(x)->nval--;
  if (!dead) {
    tmp = scratch(x, t);
    ent(x, i)->e = set_local(x, tmp, e);
  }
  for (uint32_t k = 0; k < n; k++) {
    tl_expr *v;
    if (dead) {
      v = tl_make_unreachable(x->m);
    } else {
      v = tl_expr_new(x->m, TL_OP_TUPLE_EXTRACT, 1);
      v->kid[0] = get_local(x, tmp);
      v->imm.index = k;
      tl_expr_finalize(x->m, x->f, v);
    }
    push(x, v, tl_type_at(x->m, t, k));
  }
}

/* Pops one value: NULL when there is none and the stack is not
 * polymorphic; a fresh unreachable (type bottom) when it is. */
static tl_expr *pop1(fctx *x, tl_type *t) {
  frame *fr = TOPF(x);
  for (;;) {
    while (STK(x)->n > floor_of(fr) && !ent(x, STK(x)->n - 1)->e) STK(x)->n--; /* trailing holes */
    size_t lo = floor_of(fr), i = STK(x)->n;
    if (!fr->nval) i = lo; /* no value in the frame: skip the scan */
    while (i > lo && ent(x, i - 1)->t == TL_NONE) i--;
    if (i == lo) {
      *t = TL_UNREACHABLE;
      return fr->unreachable ? tl_make_unreachable(x->m) : NULL;
    }
    entry *en = ent(x, i - 1);
    if (tl_type_is_tuple(en->t)) {
      split_tuple(x, i - 1);
      continue;
    }
    tl_expr *e = en->e;
    *t = en->t;
    fr->nval--;
    if (i == STK(x)->n) {
      STK(x)->n--;
      return e;
    }
    /* Statements lie above the value: keep the order of effects. */
    en->t = TL_NONE;
    if (e->type == TL_UNREACHABLE) return tl_make_unreachable(x->m);
    if (is_const(e) || is_scratch_extract(x, e)) {
      en->e = NULL;
      return e;
    }
    uint32_t tmp = scratch(x, *t);
    en->e = set_local(x, tmp, e);
    return get_local(x, tmp);
  }
}

/* Pops one value of type want (TL_UNREACHABLE: any); *got (if given)
 * receives its stack type. */
static tl_status pop_typed(fctx *x, tl_type want, tl_expr **out, tl_type *got) {
  tl_type t;
  tl_expr *e = pop1(x, &t);
  if (got) *got = t;
  if (!e)
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected %s but nothing on stack", x->opname,
                rdc_tname(want));
  if (t != want && want != TL_UNREACHABLE && !tl_type_sub(x->m, t, want))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected %s but got %s", x->opname, rdc_tname(want),
                rdc_tname(t));
  *out = e;
  return TL_OK;
}

static tl_status pop_want(fctx *x, tl_type want, tl_expr **out) { return pop_typed(x, want, out, NULL); }

static tl_status pop_any(fctx *x, tl_expr **out, tl_type *t) {
  *out = pop1(x, t);
  if (!*out) return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected a value but nothing on stack", x->opname);
  return TL_OK;
}

/* Pops the values of type `want` (none, one or a tuple) as one node (NULL
 * for none). types[] (if given) receives the stack type of each. */
static tl_status pop_vals(fctx *x, tl_type want, tl_expr **out, tl_type *types) {
  tl_module *m = x->m;
  uint32_t n = tl_type_arity(m, want);
  *out = NULL;
  if (n == 0) return TL_OK;
  size_t top = STK(x)->n;
  if (n > 1 && top > floor_of(TOPF(x)) && ent(x, top - 1)->t == want) {
    *out = ent(x, top - 1)->e;
    STK(x)->n--;
    TOPF(x)->nval--;
    for (uint32_t k = 0; types && k < n; k++) types[k] = tl_type_at(m, want, k);
    return TL_OK;
  }
  tl_expr *tm = n > 1 ? tl_expr_new(m, TL_OP_TUPLE_MAKE, n) : NULL;
  for (uint32_t k = n; k-- > 0;) {
    tl_expr *v;
    tl_type t;
    TRY(pop_any(x, &v, &t));
    tl_type w = tl_type_at(m, want, k);
    if (t != w && !tl_type_sub(m, t, w))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in %s, expected %s but got %s", x->opname, rdc_tname(w),
                  rdc_tname(t));
    if (types) types[k] = t;
    if (tm) tm->kid[k] = v;
    else *out = v;
  }
  if (tm) {
    tl_expr_finalize(m, x->f, tm);
    *out = tm;
  }
  return TL_OK;
}

/* After br, br_table, return, unreachable: the frame's values are dead
 * (kept as dropped statements) and the stack becomes polymorphic. */
static void set_unreachable(fctx *x) {
  frame *fr = TOPF(x);
  for (size_t i = floor_of(fr); i < STK(x)->n; i++) {
    entry *en = ent(x, i);
    if (en->t == TL_NONE) continue;
    en->t = TL_NONE;
    if (tl_type_is_concrete(en->e->type)) en->e = tl_make_drop(x->m, en->e);
  }
  fr->unreachable = true;
  fr->dead = (uint32_t)STK(x)->n;
  fr->nval = 0;
}

/* --------------------------------------------------------------- frames */
static tl_type label_type(frame *fr) { return fr->kind == K_LOOP ? fr->params : fr->results; }

static tl_status get_label(fctx *x, uint32_t depth, frame **out) {
  if (depth >= x->c->frames.n) return rdc_fail(x, TL_E_INVALID, "unknown label %u", depth);
  *out = &TL_VEC_AT(&x->c->frames, frame, x->c->frames.n - 1 - depth);
  return TL_OK;
}

static void note_branch(fctx *x, uint32_t label, tl_expr *br) {
  BRT(x, label) = tl_type_lub(x->m, BRT(x, label), tl_branch_value_type(br));
}

static uint32_t new_label(fctx *x) {
  uint32_t l = tl_func_new_label(x->m, x->f);
  tl_type u = TL_UNREACHABLE;
  TL_VEC_PUSH(&x->c->labels, tl_type, u);
  return l;
}

static void push_params(fctx *x, frame *fr) {
  uint32_t n = tl_type_arity(x->m, fr->params);
  for (uint32_t k = 0; k < n; k++) push(x, get_local(x, fr->pbase + k), tl_type_at(x->m, fr->params, k));
}

/* Opens a block/loop/if whose params are already popped into v (a node of
 * type params, or NULL); they go to scratch locals set before the block. */
static void open_frame(fctx *x, uint8_t kind, tl_type params, tl_type results, uint32_t bt, tl_expr *v) {
  tl_module *m = x->m;
  uint32_t n = tl_type_arity(m, params), pbase = x->f->nlocal;
  for (uint32_t k = 0; k < n; k++) scratch(x, tl_type_at(m, params, k));
  for (uint32_t k = 0; k < n; k++) {
    tl_expr *vk = v;
    if (n > 1) vk = v->op == TL_OP_TUPLE_MAKE ? v->kid[k] : NULL;
    if (!vk) { /* a whole tuple node: store it once, then extract */
      uint32_t tmp = scratch(x, params);
      push(x, set_local(x, tmp, v), TL_NONE);
      for (uint32_t j = 0; j < n; j++) {
        tl_expr *ex = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 1);
        ex->kid[0] = get_local(x, tmp);
        ex->imm.index = j;
        tl_expr_finalize(m, x->f, ex);
        push(x, set_local(x, pbase + j, ex), TL_NONE);
      }
      break;
    }
    push(x, set_local(x, pbase + k, vk), TL_NONE);
  }
  frame fr = {.kind = kind, .height = (uint32_t)STK(x)->n, .label = TL_NO_LABEL, .params = params,
              .results = results, .bt = bt, .pbase = pbase, .tramp = TL_NO_LABEL,
              .lsets = (uint32_t)x->c->lsets.n};
  if (kind != K_FUNC) {
    fr.label = new_label(x);
    if (x->c->label_map) TL_VEC_PUSH(&x->c->lmap, uint32_t, fr.label);
  }
  TL_VEC_PUSH(&x->c->frames, frame, fr);
  push_params(x, TOPF(x));
}

/* Pops the frame's results and collects its entries as a kid list. */
static tl_status close_list(fctx *x, tl_expr ***kids, uint32_t *nk) {
  frame *fr = TOPF(x);
  tl_expr *res;
  TRY(pop_vals(x, fr->results, &res, NULL));
  size_t lo = fr->height, n = 0;
  for (size_t i = floor_of(fr); i < STK(x)->n; i++)
    if (ent(x, i)->t != TL_NONE)
      return rdc_fail(x, TL_E_INVALID, "type mismatch at end of %s: values remain on the stack",
                  fr->kind == K_FUNC ? "function" : "block");
  for (size_t i = lo; i < STK(x)->n; i++) n += ent(x, i)->e != NULL;
  tl_expr **k = tl_node_alloc(x->m, (n + 1) * sizeof *k, _Alignof(tl_expr *));
  n = 0;
  for (size_t i = lo; i < STK(x)->n; i++)
    if (ent(x, i)->e) k[n++] = ent(x, i)->e;
  if (res) k[n++] = res;
  STK(x)->n = lo;
  *kids = k;
  *nk = (uint32_t)n;
  return TL_OK;
}

static tl_expr *make_list(fctx *x, tl_op op, uint32_t label, tl_expr **kids, uint32_t n) {
  tl_expr *e = tl_expr_new(x->m, op, 0);
  e->kid = kids;
  e->nkid = n, e->kcap = 0;
  e->imm.block.label = label;
  return e;
}

static tl_expr *make_arm(fctx *x, tl_expr **kids, uint32_t n) {
  if (n == 0) return tl_make_nop(x->m);
  if (n == 1) return kids[0];
  tl_expr *b = make_list(x, TL_OP_BLOCK, TL_NO_LABEL, kids, n);
  tl_block_finalize(x->m, b, TL_UNREACHABLE);
  return b;
}

/* ------------------------------------------------ local initialization */
/* A local without a default value (a non-nullable reference) must be set
 * before it is read; a set counts until the end of the block (or arm) it
 * is in (the 3.0 rule). Bodies without such a local skip all of it. */
static void linit_start(fctx *x) {
  rctx *c = x->c;
  c->linit = false;
  c->lsets.n = 0;
  if (c->trusted) return;
  uint32_t np = tl_func_nparams(x->m, x->f);
  for (uint32_t i = np; i < x->nwasm && !c->linit; i++) c->linit = !tl_type_defaultable(x->f->local[i]);
  if (!c->linit) return;
  c->lset.n = 0;
  tl_vec_grow(&c->lset, 1, x->nwasm);
  uint8_t *set = c->lset.p;
  for (uint32_t i = 0; i < x->nwasm; i++) set[i] = i < np || tl_type_defaultable(x->f->local[i]);
  c->lset.n = x->nwasm;
}

static void linit_set(fctx *x, uint32_t idx) {
  rctx *c = x->c;
  if (!c->linit || ((uint8_t *)c->lset.p)[idx]) return;
  ((uint8_t *)c->lset.p)[idx] = 1;
  TL_VEC_PUSH(&c->lsets, uint32_t, idx);
}

static tl_status linit_get(fctx *x, uint32_t idx) {
  if (x->c->linit && !((uint8_t *)x->c->lset.p)[idx])
    return rdc_fail(x, TL_E_INVALID, "uninitialized local %u", idx);
  return TL_OK;
}

/* The sets since frame fr (or its arm) began end with it. */
static void linit_reset(fctx *x, const frame *fr) {
  rctx *c = x->c;
  if (!c->linit) return;
  while (c->lsets.n > fr->lsets) ((uint8_t *)c->lset.p)[TL_VEC_AT(&c->lsets, uint32_t, --c->lsets.n)] = 0;
}

static tl_status do_else(fctx *x) {
  frame *fr = TOPF(x);
  if (fr->kind != K_IF) return rdc_fail(x, TL_E_MALFORMED, "else without matching if");
  tl_expr **kids;
  uint32_t n;
  TRY(close_list(x, &kids, &n));
  fr = TOPF(x);
  linit_reset(x, fr);
  fr->node->kid[1] = make_arm(x, kids, n);
  fr->kind = K_ELSE;
  fr->unreachable = false;
  fr->dead = 0;
  fr->nval = 0;
  push_params(x, fr);
  return TL_OK;
}

static tl_expr *param_value(fctx *x, frame *fr) {
  uint32_t n = tl_type_arity(x->m, fr->params);
  if (n == 1) return get_local(x, fr->pbase);
  tl_expr *tm = tl_expr_new(x->m, TL_OP_TUPLE_MAKE, n);
  for (uint32_t k = 0; k < n; k++) tm->kid[k] = get_local(x, fr->pbase + k);
  tl_expr_finalize(x->m, x->f, tm);
  return tm;
}

/* The arm just closed: a try's (or try_table's) body, or its last arm's
 * handler. */
static void put_arm(fctx *x, frame *fr, tl_expr *arm) {
  tl_expr *e = fr->node;
  if (fr->kind == K_TRY || fr->kind == K_TRY_TABLE) {
    e->kid[0] = arm;
    return;
  }
  tl_expr *a = e->kid[e->nkid - 1];
  a->kid[0] = arm;
  tl_expr_finalize(x->m, x->f, a);
}

/* `end`: closes the innermost frame; returns true in *done for the
 * function's own. */
static tl_status do_end(fctx *x, bool *done) {
  tl_expr **kids;
  uint32_t n;
  TRY(close_list(x, &kids, &n));
  frame fr = *TOPF(x);
  x->c->frames.n--;
  linit_reset(x, &fr);
  tl_expr *e;
  switch (fr.kind) {
  case K_FUNC:
    x->f->body = make_list(x, TL_OP_BLOCK, 0, kids, n);
    tl_block_finalize(x->m, x->f->body, BRT(x, 0));
    *done = true;
    return TL_OK;
  case K_BLOCK:
  case K_LOOP:
    e = make_list(x, fr.kind == K_LOOP ? TL_OP_LOOP : TL_OP_BLOCK, fr.label, kids, n);
    break;
  case K_TRY: case K_CATCH: case K_CATCH_ALL: case K_TRY_TABLE:
    e = fr.node;
    put_arm(x, &fr, make_arm(x, kids, n));
    break;
  case K_IF:
    if (fr.params != fr.results)
      return rdc_fail(x, TL_E_INVALID, "type mismatch: if without else must have matching param and result types");
    e = fr.node;
    e->kid[1] = make_arm(x, kids, n);
    if (fr.params != TL_NONE) {
      e->kid[2] = param_value(x, &fr);
      e->nkid = 3;
    }
    break;
  default:
    e = fr.node;
    e->kid[2] = make_arm(x, kids, n);
    e->nkid = 3;
    break;
  }
  e->imm.block.bt = fr.bt;
  tl_block_finalize(x->m, e, fr.kind == K_LOOP ? TL_UNREACHABLE : BRT(x, fr.label));
  push(x, e, fr.results);
  return TL_OK;
}

/* ----------------------------------------------------------- immediates */
tl_status rdc_blocktype(fctx *x, tl_type *params, tl_type *results, uint32_t *bt) {
  tl_module *m = x->m;
  rd *r = x->r;
  *bt = TL_NO_INDEX;
  *params = *results = TL_NONE;
  if (r->p < r->end && *r->p == 0x40) {
    r->p++;
    return TL_OK;
  }
  /* a value type: its byte is a negative one-byte s33 (0x41-0x7f) */
  const uint8_t *at = r->p;
  if (r->p < r->end && *r->p > 0x40 && *r->p < 0x80) {
    tl_status s = rd_valtype(x->c, r, results);
    if (s == TL_E_MALFORMED) return rd_fail_at(r, at, s, "malformed block type 0x%02x", *at);
    return s;
  }
  int64_t idx;
  TRY(rd_s33(r, &idx, "block type"));
  if (idx < 0) return rd_fail_at(r, at, TL_E_MALFORMED, "malformed block type");
  if ((uint64_t)idx >= m->types.n) return rd_fail_at(r, at, TL_E_INVALID, "unknown type %lld", (long long)idx);
  tl_functype *ft = TL_FTYPE(m, idx);
  *params = ft->params;
  *results = ft->results;
  *bt = (uint32_t)idx;
  if (ft->params != TL_NONE || tl_type_is_tuple(ft->results))
    TRY(need_feature(x->c, r, at, TL_FEAT_MULTIVALUE, "block parameters or multiple results"));
  return TL_OK;
}

static tl_status need_mem(fctx *x, uint32_t idx) {
  if (idx >= x->m->memories.n) return rdc_fail(x, TL_E_INVALID, "unknown memory %u in %s", idx, x->opname);
  return TL_OK;
}

tl_status rdc_need_table(fctx *x, uint32_t idx) {
  if (idx >= x->m->tables.n) return rdc_fail(x, TL_E_INVALID, "unknown table %u in %s", idx, x->opname);
  return TL_OK;
}

static tl_status zero_byte(fctx *x) {
  uint8_t b;
  const uint8_t *at = x->r->p;
  TRY(rd_byte(x->r, &b, "reserved byte"));
  if (b) return rd_fail_at(x->r, at, TL_E_MALFORMED, "zero byte expected in %s", x->opname);
  return TL_OK;
}

/* A memory index immediate (memory.size, memory.fill, ...): a u32 since
 * multi-memory, where it was one zero byte. */
static tl_status rd_memidx(fctx *x, uint32_t *idx) {
  const uint8_t *at = x->r->p;
  TRY(rd_u32(x->r, idx, "memory index"));
  if (*idx || x->r->p != at + 1) TRY(need_feature(x->c, x->r, at, TL_FEAT_MULTI_MEMORY, "a memory index"));
  return need_mem(x, *idx);
}

/* A memarg offset: a u64 with memory64 (above UINT32_MAX invalid on a
 * 32-bit memory), a u32 without. */
static tl_status rd_offset(fctx *x, uint32_t mem, uint64_t *off) {
  const uint8_t *at = x->r->p;
  if (!(x->c->feat & TL_FEAT_MEMORY64)) {
    uint32_t v;
    TRY(rd_u32(x->r, &v, "offset"));
    *off = v;
    return TL_OK;
  }
  TRY(rd_u64(x->r, off, "offset"));
  if (*off > UINT32_MAX && !tl_memory_is64(x->m, mem))
    return rd_fail_at(x->r, at, TL_E_INVALID, "offset out of range in %s: %" PRIu64 " on a 32-bit memory", x->opname, *off);
  return TL_OK;
}

/* align, [memory index when bit 6 of align is set], offset. */
static tl_status rd_memarg(fctx *x, int op, tl_memarg *ma) {
  uint32_t align, mem = 0;
  uint64_t off;
  const uint8_t *at = x->r->p;
  TRY(rd_u32(x->r, &align, "alignment"));
  if (align >= 0x80) return rd_fail_at(x->r, at, TL_E_MALFORMED, "malformed memop flags in %s", x->opname);
  if (align & 0x40) {
    align &= ~0x40u;
    TRY(rd_memidx(x, &mem));
  }
  TRY(need_mem(x, mem));
  TRY(rd_offset(x, mem, &off));
  ma->align = align;
  if (!x->check) tl_memarg_set_offset(x->m, ma, off); /* may intern: not while checking */
  ma->mem = (uint16_t)mem;
  uint32_t nat = tl_op_natural_align(op);
  if (tl_ops[op].flags & TL_F_ATOMIC) {
    if (align != nat) return rdc_fail(x, TL_E_INVALID, "alignment must be equal to natural in %s", x->opname);
  } else if (align > nat) {
    return rdc_fail(x, TL_E_INVALID, "alignment must not be larger than natural in %s", x->opname);
  }
  return TL_OK;
}

static uint32_t lane_count(int op) {
  const char *t = tl_ops[op].text;
  if (tl_ops[op].imm == TL_IMM_MEMARG_LANE) return 16u >> tl_op_natural_align(op);
  if (!strncmp(t, "i8x16", 5)) return 16;
  if (!strncmp(t, "i16x8", 5)) return 8;
  if (!strncmp(t, "i64x2", 5) || !strncmp(t, "f64x2", 5)) return 2;
  return 4;
}

static tl_status rd_lane(fctx *x, int op, uint8_t *lane) {
  TRY(rd_byte(x->r, lane, "lane index"));
  if (*lane >= lane_count(op)) return rdc_fail(x, TL_E_INVALID, "invalid lane index %u in %s", *lane, x->opname);
  return TL_OK;
}

static tl_status need_data(fctx *x, uint32_t idx) {
  if (x->c->trusted) return TL_OK;
  if (!x->m->has_datacount) return rdc_fail(x, TL_E_MALFORMED, "data count section required for %s", x->opname);
  if (idx >= x->c->datacount) return rdc_fail(x, TL_E_INVALID, "unknown data segment %u", idx);
  return TL_OK;
}

static tl_status need_elem(fctx *x, uint32_t idx) {
  if (idx >= x->m->elems.n) return rdc_fail(x, TL_E_INVALID, "unknown elem segment %u", idx);
  return TL_OK;
}

/* Immediates of the opcode families with a regular signature. */
tl_status rdc_imm(fctx *x, int op, tl_imm *im) {
  rd *r = x->r;
  tl_module *m = x->m;
  const uint8_t *b;
  switch (tl_ops[op].imm) {
  case TL_IMM_NONE: return TL_OK;
  case TL_IMM_I32: return rd_s32(r, &im->i32, "i32 constant");
  case TL_IMM_I64: return rd_s64(r, &im->i64, "i64 constant");
  case TL_IMM_F32: TRY(rd_bytes(r, 4, &b, "f32 constant")); memcpy(&im->f32, b, 4); return TL_OK;
  case TL_IMM_F64: TRY(rd_bytes(r, 8, &b, "f64 constant")); memcpy(&im->f64, b, 8); return TL_OK;
  case TL_IMM_V128:
  case TL_IMM_SHUFFLE:
    TRY(rd_bytes(r, 16, &b, tl_ops[op].imm == TL_IMM_V128 ? "v128 constant" : "shuffle lanes"));
    for (int i = 0; tl_ops[op].imm == TL_IMM_SHUFFLE && i < 16; i++)
      if (b[i] >= 32) return rdc_fail(x, TL_E_INVALID, "invalid lane index %u in %s", b[i], x->opname);
    if (x->check) return TL_OK; /* nothing kept */
    im->v128 = tl_node_alloc(m, 16, 8);
    memcpy(im->v128, b, 16);
    return TL_OK;
  case TL_IMM_MEMARG: return rd_memarg(x, op, &im->mem);
  case TL_IMM_MEMARG_LANE: TRY(rd_memarg(x, op, &im->mem)); return rd_lane(x, op, &im->mem.lane);
  case TL_IMM_LANE: return rd_lane(x, op, &im->mem.lane);
  case TL_IMM_MEM: return rd_memidx(x, &im->index);
  case TL_IMM_MEM_COPY: TRY(rd_memidx(x, &im->idx2.a)); return rd_memidx(x, &im->idx2.b);
  case TL_IMM_MEM_INIT:
    TRY(rd_u32(r, &im->idx2.a, "data index"));
    TRY(rd_memidx(x, &im->idx2.b));
    return need_data(x, im->idx2.a);
  case TL_IMM_DATA: TRY(rd_u32(r, &im->index, "data index")); return need_data(x, im->index);
  case TL_IMM_ELEM: TRY(rd_u32(r, &im->index, "elem index")); return need_elem(x, im->index);
  case TL_IMM_TABLE: TRY(rd_u32(r, &im->index, "table index")); return rdc_need_table(x, im->index);
  case TL_IMM_TABLE_INIT:
    TRY(rd_u32(r, &im->idx2.a, "elem index"));
    TRY(rd_u32(r, &im->idx2.b, "table index"));
    TRY(need_elem(x, im->idx2.a));
    TRY(rdc_need_table(x, im->idx2.b));
    if (!tl_type_sub(m, tl_elem_type(TL_ELEM(m, im->idx2.a)), TL_TABLE(m, im->idx2.b)->elem))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in table.init: element and table types differ");
    return TL_OK;
  case TL_IMM_TABLE_COPY:
    TRY(rd_u32(r, &im->idx2.a, "table index"));
    TRY(rd_u32(r, &im->idx2.b, "table index"));
    TRY(rdc_need_table(x, im->idx2.a));
    TRY(rdc_need_table(x, im->idx2.b));
    if (!tl_type_sub(m, TL_TABLE(m, im->idx2.b)->elem, TL_TABLE(m, im->idx2.a)->elem))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in table.copy: table types differ");
    return TL_OK;
  case TL_IMM_FENCE: return zero_byte(x);
  case TL_IMM_TYPE:
    TRY(rd_u32(r, &im->index, "type index"));
    if (im->index >= m->types.n) return rdc_fail(x, TL_E_INVALID, "unknown type %u", im->index);
    return TL_OK;
  case TL_IMM_FUNC:
    TRY(rd_u32(r, &im->index, "function index"));
    if (im->index >= m->funcs.n) return rdc_fail(x, TL_E_INVALID, "unknown function %u", im->index);
    if (op == TL_OP_REF_FUNC && !x->c->trusted && !is_declared(x->c, im->index))
      return rdc_fail(x, TL_E_INVALID, "undeclared function reference %u", im->index);
    return TL_OK;
  default: return rdc_fail(x, TL_E_MALFORMED, "unexpected immediate in %s", x->opname);
  }
}

/* An opcode whose sig lists its operands: pop them, make the node. */
static tl_status do_plain(fctx *x, int op) {
  const tl_opinfo *oi = &tl_ops[op];
  tl_imm im;
  memset(&im, 0, sizeof im);
  TRY(rdc_imm(x, op, &im));
  tl_expr *e = tl_expr_new(x->m, (tl_op)op, oi->nops);
  e->imm = im;
  uint32_t wide = (oi->flags & TL_F_INDEXED) ? tl_index64_mask(x->m, op, im) : 0;
  for (uint32_t k = oi->nops; k-- > 0;) TRY(pop_want(x, wide >> k & 1 ? TL_I64 : oi->ops[k], &e->kid[k]));
  tl_expr_finalize(x->m, x->f, e);
  push(x, e, wide & TL_IDX64_RESULT ? TL_I64 : op == TL_OP_REF_FUNC ? tl_ref_func_precise(x->m, e->imm.index) : oi->result);
  if (oi->flags & TL_F_NORETURN) set_unreachable(x);
  return TL_OK;
}

/* ------------------------------------------------------- special opcodes */
static tl_status do_block(fctx *x, int op) {
  tl_type params, results;
  uint32_t bt;
  TRY(rdc_blocktype(x, &params, &results, &bt));
  tl_expr *cond = NULL, *v;
  if (op == TL_OP_IF) TRY(pop_want(x, TL_I32, &cond));
  TRY(pop_vals(x, params, &v, NULL));
  uint8_t kind = op == TL_OP_BLOCK ? K_BLOCK : op == TL_OP_LOOP ? K_LOOP : op == TL_OP_IF ? K_IF : K_TRY;
  open_frame(x, kind, params, results, bt, v);
  if (op == TL_OP_TRY) {
    tl_expr *e = tl_expr_new(x->m, TL_OP_TRY, 0);
    e->imm.block.label = TOPF(x)->label;
    tl_expr_push_kid(x->m, e, NULL); /* the body, at its end */
    TOPF(x)->node = e;
  }
  if (op == TL_OP_IF) {
    tl_expr *e = tl_expr_new(x->m, TL_OP_IF, 3);
    e->nkid = 2;
    e->kid[0] = cond;
    e->imm.block.label = TOPF(x)->label;
    TOPF(x)->node = e;
  }
  return TL_OK;
}

/* A branch to a loop with params: set its param locals from v first. */
static tl_expr *loop_branch(fctx *x, frame *target, tl_expr *br, tl_expr *v) {
  tl_module *m = x->m;
  uint32_t n = tl_type_arity(m, target->params);
  tl_expr *b = tl_expr_new(m, TL_OP_BLOCK, 0);
  uint32_t tmp = 0;
  bool whole = n > 1 && v->op != TL_OP_TUPLE_MAKE;
  if (whole) {
    tmp = scratch(x, target->params);
    tl_expr_push_kid(m, b, set_local(x, tmp, v));
  }
  for (uint32_t k = 0; k < n; k++) {
    tl_expr *vk = n == 1 ? v : whole ? NULL : v->kid[k];
    if (whole) {
      vk = tl_expr_new(m, TL_OP_TUPLE_EXTRACT, 1);
      vk->kid[0] = get_local(x, tmp);
      vk->imm.index = k;
      tl_expr_finalize(m, x->f, vk);
    }
    tl_expr_push_kid(m, b, set_local(x, target->pbase + k, vk));
  }
  tl_expr_push_kid(m, b, br);
  tl_block_finalize(m, b, TL_UNREACHABLE);
  return b;
}

static tl_status do_br(fctx *x) {
  uint32_t depth;
  frame *t = NULL;
  TRY(rd_u32(x->r, &depth, "label"));
  TRY(get_label(x, depth, &t));
  tl_type lt = label_type(t);
  bool loop = t->kind == K_LOOP, func = t->kind == K_FUNC;
  uint32_t label = func ? 0 : t->label;
  tl_expr *v;
  TRY(pop_vals(x, lt, &v, NULL));
  tl_expr *br = tl_expr_new(x->m, TL_OP_BR, loop || !v ? 0 : 1);
  br->imm.label = label;
  if (!loop && v) br->kid[0] = v;
  tl_expr_finalize(x->m, x->f, br);
  if (!loop) note_branch(x, label, br);
  if (loop && v) br = loop_branch(x, t, br, v);
  push(x, br, TL_NONE);
  set_unreachable(x);
  return TL_OK;
}

static tl_status do_br_if(fctx *x) {
  uint32_t depth;
  frame *t = NULL;
  TRY(rd_u32(x->r, &depth, "label"));
  TRY(get_label(x, depth, &t));
  tl_type lt = label_type(t);
  bool loop = t->kind == K_LOOP;
  uint32_t label = t->kind == K_FUNC ? 0 : t->label;
  tl_module *m = x->m;
  tl_expr *cond, *v;
  TRY(pop_want(x, TL_I32, &cond));
  if (loop && lt != TL_NONE) { /* keep the values: temps, then a guarded branch */
    TRY(pop_vals(x, lt, &v, NULL));
    uint32_t tmp = scratch(x, lt);
    frame tgt = *t;
    push(x, set_local(x, tmp, v), TL_NONE);
    tl_expr *br = tl_expr_new(m, TL_OP_BR, 0);
    br->imm.label = label;
    br->type = TL_UNREACHABLE;
    tl_expr *iff = tl_expr_new(m, TL_OP_IF, 2);
    iff->kid[0] = cond;
    iff->kid[1] = loop_branch(x, &tgt, br, get_local(x, tmp));
    tl_block_finalize(m, iff, TL_UNREACHABLE);
    push(x, iff, TL_NONE);
    push(x, get_local(x, tmp), lt);
    return TL_OK;
  }
  TRY(pop_vals(x, lt, &v, NULL));
  tl_expr *br = tl_expr_new(m, TL_OP_BR_IF, v ? 2 : 1);
  br->imm.label = label;
  br->kid[0] = v ? v : cond;
  if (v) br->kid[1] = cond;
  tl_expr_finalize(m, x->f, br);
  if (!loop) note_branch(x, label, br);
  push(x, br, lt);
  return TL_OK;
}

/* br_table with values to loops with params: each such loop gets a fresh
 * block label T that receives the values, then sets the loop's param
 * locals and branches to the loop. Redirects targets[]; returns how many. */
static uint32_t tramp_labels(fctx *x, frame **fr, uint32_t *targets, uint32_t n) {
  uint32_t nt = 0;
  for (uint32_t i = 0; i <= n; i++) {
    if (fr[i]->kind != K_LOOP) continue;
    if (fr[i]->tramp == TL_NO_LABEL) {
      fr[i]->tramp = new_label(x);
      nt++;
    }
    targets[i] = fr[i]->tramp;
  }
  return nt;
}

/* Wraps the br_table e: block $T (e) is followed by the loop's branch. */
static tl_expr *trampolines(fctx *x, frame **fr, uint32_t n, tl_expr *e) {
  tl_module *m = x->m;
  for (uint32_t i = 0; i <= n; i++) {
    uint32_t t = fr[i]->tramp;
    if (fr[i]->kind != K_LOOP || t == TL_NO_LABEL) continue;
    fr[i]->tramp = TL_NO_LABEL;
    tl_expr **kid = tl_node_alloc(m, sizeof *kid, _Alignof(tl_expr *));
    kid[0] = e;
    tl_expr *b = make_list(x, TL_OP_BLOCK, t, kid, 1);
    tl_block_finalize(m, b, BRT(x, t));
    tl_expr *br = tl_expr_new(m, TL_OP_BR, 0);
    br->imm.label = fr[i]->label;
    br->type = TL_UNREACHABLE;
    e = loop_branch(x, fr[i], br, b);
  }
  return e;
}

static tl_status do_br_table(fctx *x) {
  tl_module *m = x->m;
  uint32_t n, depth;
  TRY(rd_count(x->r, &n, 1, "br_table targets"));
  tl_brtable *bt = tl_brtable_new(m, n + 1); /* the default read into targets[n] */
  uint32_t *targets = bt->targets;
  frame **fr = tl_malloc((n + 1) * sizeof *fr);
  if (!fr) return rdc_fail(x, TL_E_NOMEM, "out of memory");
  tl_status s = TL_OK;
  for (uint32_t i = 0; i <= n && !s; i++) {
    s = rd_u32(x->r, &depth, "label");
    if (!s) s = get_label(x, depth, &fr[i]);
  }
  tl_type lt = s ? TL_NONE : label_type(fr[n]);
  uint32_t ar = tl_type_arity(m, lt);
  tl_type *types = tl_calloc(ar + 1, sizeof *types);
  tl_expr *cond = NULL, *v = NULL;
  if (!types) s = rdc_fail(x, TL_E_NOMEM, "out of memory");
  if (!s) s = pop_want(x, TL_I32, &cond);
  if (!s) s = pop_vals(x, lt, &v, types);
  for (uint32_t i = 0; i <= n && !s; i++) {
    tl_type ti = label_type(fr[i]);
    if (tl_type_arity(m, ti) != ar) s = rdc_fail(x, TL_E_INVALID, "type mismatch in br_table: label arities differ");
    for (uint32_t k = 0; k < ar && !s; k++)
      if (!tl_type_sub(m, types[k], tl_type_at(m, ti, k)))
        s = rdc_fail(x, TL_E_INVALID, "type mismatch in br_table: label types differ");
    if (!s) targets[i] = fr[i]->kind == K_FUNC ? 0 : fr[i]->label;
  }
  tl_free(types);
  if (s) {
    tl_free(fr);
    return s;
  }
  uint32_t ntramp = ar ? tramp_labels(x, fr, targets, n) : 0;
  tl_expr *e = tl_expr_new(m, TL_OP_BR_TABLE, v ? 2 : 1);
  e->kid[0] = v ? v : cond;
  if (v) e->kid[1] = cond;
  bt->n = n;
  bt->def = targets[n];
  e->imm.table = bt;
  tl_expr_finalize(m, x->f, e);
  for (uint32_t i = 0; i <= n; i++)
    if (fr[i]->kind != K_LOOP || ar) note_branch(x, targets[i], e);
  if (ntramp) e = trampolines(x, fr, n, e);
  tl_free(fr);
  push(x, e, TL_NONE);
  set_unreachable(x);
  return TL_OK;
}

static tl_status do_return(fctx *x) {
  tl_expr *v;
  TRY(pop_vals(x, tl_func_type(x->m, x->f)->results, &v, NULL));
  tl_expr *e = tl_expr_new(x->m, TL_OP_RETURN, v ? 1 : 0);
  if (v) e->kid[0] = v;
  tl_expr_finalize(x->m, x->f, e);
  e->type = TL_UNREACHABLE;
  push(x, e, TL_NONE);
  set_unreachable(x);
  return TL_OK;
}

tl_status rdc_callee(fctx *x, int op, uint32_t *a, uint32_t *b, tl_functype **ft) {
  tl_module *m = x->m;
  bool ind = op == TL_OP_CALL_INDIRECT || op == TL_OP_RETURN_CALL_INDIRECT;
  bool tail = op == TL_OP_RETURN_CALL || op == TL_OP_RETURN_CALL_INDIRECT;
  *b = 0;
  if (ind) {
    TRY(rd_u32(x->r, a, "type index"));
    TRY(rd_u32(x->r, b, "table index"));
    if (*a >= m->types.n) return rdc_fail(x, TL_E_INVALID, "unknown type %u", *a);
    TRY(rdc_need_table(x, *b));
    if (!tl_type_sub(m, TL_TABLE(m, *b)->elem, TL_FUNCREF))
      return rdc_fail(x, TL_E_INVALID, "type mismatch: %s on a table of %s", x->opname,
                      rdc_tname(TL_TABLE(m, *b)->elem));
    *ft = TL_FTYPE(m, *a);
    if ((*ft)->kind != TL_DT_FUNC) return rdc_fail(x, TL_E_INVALID, "type %u is not a function type", *a);
  } else {
    TRY(rd_u32(x->r, a, "function index"));
    if (*a >= m->funcs.n) return rdc_fail(x, TL_E_INVALID, "unknown function %u", *a);
    *ft = tl_func_type(m, TL_FUNC(m, *a));
  }
  if (tail && !tl_type_sub(m, (*ft)->results, tl_func_type(m, x->f)->results))
    return rdc_fail(x, TL_E_INVALID, "type mismatch in %s: callee results differ from the caller's", x->opname);
  return TL_OK;
}

/* call, call_indirect and their return_ forms. */
static tl_status do_call(fctx *x, int op) {
  tl_module *m = x->m;
  bool ind = op == TL_OP_CALL_INDIRECT || op == TL_OP_RETURN_CALL_INDIRECT;
  bool tail = op == TL_OP_RETURN_CALL || op == TL_OP_RETURN_CALL_INDIRECT;
  uint32_t a, b;
  tl_functype *ft;
  TRY(rdc_callee(x, op, &a, &b, &ft));
  uint32_t np = tl_type_arity(m, ft->params);
  tl_expr *e = tl_expr_new(m, (tl_op)op, np + ind);
  if (ind) {
    e->imm.idx2.a = a;
    e->imm.idx2.b = b;
    TRY(pop_want(x, tl_table_is64(m, b) ? TL_I64 : TL_I32, &e->kid[np]));
  } else {
    e->imm.index = a;
  }
  for (uint32_t k = np; k-- > 0;) TRY(pop_want(x, tl_type_at(m, ft->params, k), &e->kid[k]));
  tl_expr_finalize(m, x->f, e);
  if (tail) {
    e->type = TL_UNREACHABLE;
    push(x, e, TL_NONE);
    set_unreachable(x);
  } else {
    push(x, e, ft->results);
  }
  return TL_OK;
}

tl_status rdc_select_type(fctx *x, int op, tl_type *want) {
  *want = TL_UNREACHABLE;
  if (op != TL_OP_SELECT_T) return TL_OK;
  uint32_t n;
  TRY(rd_u32(x->r, &n, "select type count"));
  if (n != 1) return rdc_fail(x, TL_E_INVALID, "invalid result arity in select");
  return rd_valtype(x->c, x->r, want);
}

static tl_status do_select(fctx *x, int op) {
  tl_type want, t1, t2;
  TRY(rdc_select_type(x, op, &want));
  tl_expr *e = tl_expr_new(x->m, (tl_op)op, 3);
  TRY(pop_want(x, TL_I32, &e->kid[2]));
  if (op == TL_OP_SELECT_T) {
    TRY(pop_want(x, want, &e->kid[1]));
    TRY(pop_want(x, want, &e->kid[0]));
    e->imm.index = want;
    t1 = want;
  } else {
    TRY(pop_any(x, &e->kid[1], &t2));
    TRY(pop_typed(x, t2, &e->kid[0], &t1));
    if (t1 == TL_UNREACHABLE) t1 = t2;
    if (tl_type_is_ref(t1)) return rdc_fail(x, TL_E_INVALID, "type mismatch: select without type on reference values");
  }
  tl_expr_finalize(x->m, x->f, e);
  push(x, e, t1);
  return TL_OK;
}

static tl_status do_local(fctx *x, int op) {
  uint32_t idx;
  TRY(rd_u32(x->r, &idx, "local index"));
  if (idx >= x->nwasm) return rdc_fail(x, TL_E_INVALID, "unknown local %u", idx);
  tl_type t = x->f->local[idx];
  if (op == TL_OP_LOCAL_GET) {
    TRY(linit_get(x, idx));
    push(x, get_local(x, idx), t);
    return TL_OK;
  }
  tl_expr *v;
  TRY(pop_want(x, t, &v));
  linit_set(x, idx);
  tl_expr *e = tl_make_local_set(x->m, x->f, idx, v, op == TL_OP_LOCAL_TEE);
  push(x, e, op == TL_OP_LOCAL_TEE ? t : TL_NONE);
  return TL_OK;
}

tl_status rdc_global(fctx *x, int op, uint32_t *idx) {
  TRY(rd_u32(x->r, idx, "global index"));
  if (*idx >= x->m->globals.n) return rdc_fail(x, TL_E_INVALID, "unknown global %u", *idx);
  if (op == TL_OP_GLOBAL_SET && !TL_GLOBAL(x->m, *idx)->mut)
    return rdc_fail(x, TL_E_INVALID, "global is immutable: global.set %u", *idx);
  return TL_OK;
}

static tl_status do_global(fctx *x, int op) {
  uint32_t idx;
  TRY(rdc_global(x, op, &idx));
  tl_global *g = TL_GLOBAL(x->m, idx);
  tl_expr *e = tl_expr_new(x->m, (tl_op)op, op == TL_OP_GLOBAL_SET);
  e->imm.index = idx;
  if (op == TL_OP_GLOBAL_SET) TRY(pop_want(x, g->type, &e->kid[0]));
  tl_expr_finalize(x->m, x->f, e);
  push(x, e, op == TL_OP_GLOBAL_GET ? g->type : TL_NONE);
  return TL_OK;
}

uint32_t rdc_table_sig(fctx *x, int op, uint32_t idx, tl_type sig[3], tl_type *res) {
  tl_type rt = TL_TABLE(x->m, idx)->elem, it = TL_TABLE(x->m, idx)->is64 ? TL_I64 : TL_I32;
  uint32_t n = 0;
  *res = TL_NONE;
  switch (op) {
  case TL_OP_TABLE_GET: sig[n++] = it; *res = rt; break;
  case TL_OP_TABLE_SET: sig[n++] = it; sig[n++] = rt; break;
  case TL_OP_TABLE_GROW: sig[n++] = rt; sig[n++] = it; *res = it; break;
  default: sig[n++] = it; sig[n++] = rt; sig[n++] = it; break;
  }
  return n;
}

/* table.get/set/grow/fill (table.size is plain). */
static tl_status do_table(fctx *x, int op) {
  uint32_t idx;
  TRY(rd_u32(x->r, &idx, "table index"));
  TRY(rdc_need_table(x, idx));
  tl_type sig[3], res;
  uint32_t n = rdc_table_sig(x, op, idx, sig, &res);
  tl_expr *e = tl_expr_new(x->m, (tl_op)op, n);
  e->imm.index = idx;
  for (uint32_t k = n; k-- > 0;) TRY(pop_want(x, sig[k], &e->kid[k]));
  tl_expr_finalize(x->m, x->f, e);
  push(x, e, res);
  return TL_OK;
}

/* ---------------------------------------------------- exception handling */
tl_status rdc_need_tag(fctx *x, uint32_t *tag) {
  TRY(rd_u32(x->r, tag, "tag index"));
  if (*tag >= x->m->tags.n) return rdc_fail(x, TL_E_INVALID, "unknown tag %u", *tag);
  return TL_OK;
}

/* Pushes the payload of a catch arm: its local, or its components. */
static void push_payload(fctx *x, uint32_t p, tl_type t) {
  uint32_t n = tl_type_arity(x->m, t);
  if (n == 1) {
    push(x, get_local(x, p), t);
    return;
  }
  for (uint32_t k = 0; k < n; k++) {
    tl_expr *v = tl_expr_new(x->m, TL_OP_TUPLE_EXTRACT, 1);
    v->kid[0] = get_local(x, p);
    v->imm.index = k;
    tl_expr_finalize(x->m, x->f, v);
    push(x, v, tl_type_at(x->m, t, k));
  }
}

/* catch / catch_all: closes the body or the arm before, opens an arm whose
 * stack starts with the tag's params (from the arm's payload local). */
/* `catch T; local.set N` where N is a declared local (not a param) of
 * exactly T's one value type: N itself is the payload local (the local.set
 * is consumed), so the form the writer and printer give reads back as it
 * was instead of gaining a scratch local each time. TL_NO_INDEX otherwise
 * (nothing consumed). */
static uint32_t payload_set_local(fctx *x, tl_type pt) {
  rd *r = x->r;
  if (tl_type_is_tuple(pt) || r->p >= r->end || *r->p != 0x21) return TL_NO_INDEX;
  const uint8_t *at = r->p;
  uint32_t idx, nparam = tl_type_arity(x->m, TL_FTYPE(x->m, x->f->type)->params);
  r->p++;
  if (rd_u32(r, &idx, "local index") != TL_OK || idx < nparam || idx >= x->nwasm || x->f->local[idx] != pt) {
    r->p = at;
    return TL_NO_INDEX;
  }
  return idx;
}

tl_status rdc_catch(fctx *x, int op, uint8_t kind, uint32_t *tag) {
  *tag = 0;
  if (kind != K_TRY && kind != K_CATCH)
    return rdc_fail(x, TL_E_MALFORMED, kind == K_CATCH_ALL ? "%s after catch_all" : "%s without a matching try",
                    x->opname);
  return op == TL_OP_CATCH ? rdc_need_tag(x, tag) : TL_OK;
}

static tl_status do_catch(fctx *x, int op) {
  frame *fr = TOPF(x);
  uint32_t tag;
  TRY(rdc_catch(x, op, fr->kind, &tag));
  tl_expr **kids;
  uint32_t n;
  TRY(close_list(x, &kids, &n));
  fr = TOPF(x);
  linit_reset(x, fr);
  put_arm(x, fr, make_arm(x, kids, n));
  tl_expr *arm = tl_expr_new(x->m, (tl_op)op, 1);
  tl_type pt = op == TL_OP_CATCH ? tl_tag_params(x->m, tag) : TL_NONE;
  uint32_t p = pt != TL_NONE ? payload_set_local(x, pt) : TL_NO_INDEX;
  bool named = p != TL_NO_INDEX;
  if (named) linit_set(x, p);
  if (!named && pt != TL_NONE) p = scratch(x, pt);
  if (op == TL_OP_CATCH) arm->imm.idx2.a = p, arm->imm.idx2.b = tag;
  fr = TOPF(x); /* scratch may not move frames, but stay safe */
  tl_expr_push_kid(x->m, fr->node, arm);
  fr->kind = op == TL_OP_CATCH ? K_CATCH : K_CATCH_ALL;
  fr->unreachable = false;
  fr->dead = 0;
  fr->nval = 0;
  if (p != TL_NO_INDEX && !named) push_payload(x, p, pt);
  return TL_OK;
}

/* delegate L ends a try without arms; L counts from outside the try. */
static tl_status do_delegate(fctx *x) {
  frame *fr = TOPF(x);
  if (fr->kind != K_TRY) return rdc_fail(x, TL_E_MALFORMED, "delegate without a matching try");
  uint32_t depth;
  TRY(rd_u32(x->r, &depth, "label"));
  tl_expr **kids;
  uint32_t n;
  TRY(close_list(x, &kids, &n));
  frame tf = *TOPF(x);
  x->c->frames.n--;
  linit_reset(x, &tf);
  frame *t = NULL;
  TRY(get_label(x, depth, &t));
  tl_expr *d = tl_expr_new(x->m, TL_OP_DELEGATE, 0);
  d->imm.label = t->kind == K_FUNC ? 0 : t->label;
  tl_expr *e = tf.node;
  e->kid[0] = make_arm(x, kids, n);
  tl_expr_push_kid(x->m, e, d);
  e->imm.block.bt = tf.bt;
  tl_block_finalize(x->m, e, BRT(x, tf.label));
  push(x, e, tf.results);
  return TL_OK;
}

static tl_status do_throw(fctx *x) {
  uint32_t tag;
  TRY(rdc_need_tag(x, &tag));
  tl_type pt = tl_tag_params(x->m, tag);
  uint32_t n = tl_type_arity(x->m, pt);
  tl_expr *e = tl_expr_new(x->m, TL_OP_THROW, n);
  e->imm.index = tag;
  for (uint32_t k = n; k-- > 0;) TRY(pop_want(x, tl_type_at(x->m, pt, k), &e->kid[k]));
  tl_expr_finalize(x->m, x->f, e);
  push(x, e, TL_NONE);
  set_unreachable(x);
  return TL_OK;
}

static tl_status do_rethrow(fctx *x) {
  uint32_t depth;
  frame *t = NULL;
  TRY(rd_u32(x->r, &depth, "label"));
  TRY(get_label(x, depth, &t));
  if (t->kind != K_CATCH && t->kind != K_CATCH_ALL)
    return rdc_fail(x, TL_E_INVALID, "invalid rethrow label %u: not a catch", depth);
  tl_expr *e = tl_expr_new(x->m, TL_OP_RETHROW, 0);
  e->imm.label = t->label;
  tl_expr_finalize(x->m, x->f, e);
  push(x, e, TL_NONE);
  set_unreachable(x);
  return TL_OK;
}

/* One try_table clause: kind, tag, label (outside the try_table), and what
 * it sends there against the label's type. */
static tl_status rd_clause(fctx *x, tl_expr **out) {
  const uint8_t *at = x->r->p;
  uint8_t kind;
  uint32_t tag = 0, depth;
  TRY(rd_byte(x->r, &kind, "catch kind"));
  if (kind > 3) return rd_fail_at(x->r, at, TL_E_MALFORMED, "malformed catch clause kind %u", kind);
  if (kind < 2) TRY(rdc_need_tag(x, &tag));
  TRY(rd_u32(x->r, &depth, "label"));
  frame *t = NULL;
  TRY(get_label(x, depth, &t));
  tl_expr *e = tl_expr_new(x->m, (tl_op)(TL_OP_TT_CATCH + kind), 0);
  e->imm.idx2.a = t->kind == K_FUNC ? 0 : t->label;
  e->imm.idx2.b = tag;
  tl_expr_finalize(x->m, x->f, e);
  tl_type lt = label_type(t);
  if (!tl_clause_fits(x->m, e, lt)) {
    if (t->kind == K_LOOP && lt != TL_NONE)
      return rdc_fail(x, TL_E_UNSUPPORTED, "try_table catch to a loop with parameters is not supported");
    return rdc_fail(x, TL_E_INVALID, "type mismatch in catch clause: sends %s to a label of %s", rdc_tname(e->type),
                rdc_tname(lt));
  }
  if (t->kind != K_LOOP) note_branch(x, e->imm.label, e);
  *out = e;
  return TL_OK;
}

static tl_status do_try_table(fctx *x) {
  tl_type params, results;
  uint32_t bt, n;
  TRY(rdc_blocktype(x, &params, &results, &bt));
  TRY(rd_count(x->r, &n, 2, "catch clauses"));
  tl_expr *e = tl_expr_new(x->m, TL_OP_TRY_TABLE, n + 1);
  for (uint32_t i = 0; i < n; i++) TRY(rd_clause(x, &e->kid[i + 1]));
  tl_expr *v;
  TRY(pop_vals(x, params, &v, NULL));
  open_frame(x, K_TRY_TABLE, params, results, bt, v);
  e->imm.block.label = TOPF(x)->label;
  TOPF(x)->node = e;
  return TL_OK;
}

tl_status rdc_ref_null(fctx *x, tl_type *t) { return rd_null_heaptype(x->c, x->r, t); }

static tl_status do_special(fctx *x, int op, bool *done) {
  tl_module *m = x->m;
  tl_expr *e;
  tl_type t;
  switch (op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_IF: case TL_OP_TRY: return do_block(x, op);
  case TL_OP_CATCH: case TL_OP_CATCH_ALL: return do_catch(x, op);
  case TL_OP_DELEGATE: return do_delegate(x);
  case TL_OP_THROW: return do_throw(x);
  case TL_OP_RETHROW: return do_rethrow(x);
  case TL_OP_THROW_REF:
    e = tl_expr_new(m, TL_OP_THROW_REF, 1);
    TRY(pop_want(x, TL_EXNREF, &e->kid[0]));
    tl_expr_finalize(m, x->f, e);
    push(x, e, TL_NONE);
    set_unreachable(x);
    return TL_OK;
  case TL_OP_TRY_TABLE: return do_try_table(x);
  case TL_OP_ELSE: return do_else(x);
  case TL_OP_END: return do_end(x, done);
  case TL_OP_BR: return do_br(x);
  case TL_OP_BR_IF: return do_br_if(x);
  case TL_OP_BR_TABLE: return do_br_table(x);
  case TL_OP_RETURN: return do_return(x);
  case TL_OP_CALL: case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL: case TL_OP_RETURN_CALL_INDIRECT:
    return do_call(x, op);
  case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF: case TL_OP_REF_AS_NON_NULL: case TL_OP_BR_ON_NULL:
  case TL_OP_BR_ON_NON_NULL:
    return rdg_instr(x, op);
  case TL_OP_DROP:
    TRY(pop_any(x, &e, &t));
    push(x, tl_make_drop(m, e), TL_NONE);
    return TL_OK;
  case TL_OP_SELECT: case TL_OP_SELECT_T: return do_select(x, op);
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: return do_local(x, op);
  case TL_OP_GLOBAL_GET: case TL_OP_GLOBAL_SET: return do_global(x, op);
  case TL_OP_TABLE_GET: case TL_OP_TABLE_SET: case TL_OP_TABLE_GROW: case TL_OP_TABLE_FILL:
    return do_table(x, op);
  case TL_OP_REF_NULL: {
    tl_type rt;
    TRY(rdc_ref_null(x, &rt));
    e = tl_expr_new(m, TL_OP_REF_NULL, 0);
    e->imm.index = rt;
    tl_expr_finalize(m, x->f, e);
    push(x, e, e->imm.index);
    return TL_OK;
  }
  case TL_OP_REF_IS_NULL:
    e = tl_expr_new(m, TL_OP_REF_IS_NULL, 1);
    TRY(pop_any(x, &e->kid[0], &t));
    if (t != TL_UNREACHABLE && !tl_type_is_ref(t))
      return rdc_fail(x, TL_E_INVALID, "type mismatch in ref.is_null, expected a reference but got %s", rdc_tname(t));
    tl_expr_finalize(m, x->f, e);
    push(x, e, TL_I32);
    return TL_OK;
  default:
    if (tl_op_is_gc(op)) return rdg_instr(x, op);
    return rdc_fail(x, TL_E_MALFORMED, "unexpected opcode %s", x->opname);
  }
}

/* ------------------------------------------------- for reader_gc.c */
tl_status rdc_pop(fctx *x, tl_type want, tl_expr **out, tl_type *got) { return pop_typed(x, want, out, got); }
void rdc_push(fctx *x, tl_expr *e, tl_type t) { push(x, e, t); }
void rdc_set_unreachable(fctx *x) { set_unreachable(x); }

/* A cast node of the operand in local tmp: ref.test/ref.cast to t. */
static tl_expr *cast_of(fctx *x, int op, tl_type t, uint32_t tmp) {
  tl_expr *e = tl_expr_new(x->m, (tl_op)op, 1);
  e->imm.index = t;
  e->kid[0] = get_local(x, tmp);
  tl_expr_finalize(x->m, x->f, e);
  return e;
}

static tl_expr *get_non_null(fctx *x, uint32_t tmp, bool need) {
  tl_expr *g = get_local(x, tmp);
  return need ? tl_make_unary(x->m, TL_OP_REF_AS_NON_NULL, g) : g;
}

/* The first k types of t (none, one, or a tuple of them). */
static tl_type prefix_type(tl_module *m, tl_type t, uint32_t k) {
  if (k <= 1) return k ? tl_type_at(m, t, 0) : TL_NONE;
  tl_type small[16], *v = k <= 16 ? small : tl_malloc(k * sizeof *v);
  if (!v) tl_arena_oom(&m->arena);
  for (uint32_t i = 0; i < k; i++) v[i] = tl_type_at(m, t, i);
  tl_type r = tl_type_tuple(m, v, k);
  if (v != small) tl_free(v);
  return r;
}

/* The values a lowered br_on_* sends: the k values below the reference
 * (kept in local tv), then the reference's (ref, or NULL: none). */
static tl_expr *sent_values(fctx *x, uint32_t k, uint32_t tv, tl_expr *ref) {
  uint32_t n = k + (ref != NULL);
  if (n == 0) return NULL;
  if (n == 1) return ref ? ref : get_local(x, tv);
  tl_expr *t = tl_expr_new(x->m, TL_OP_TUPLE_MAKE, n);
  for (uint32_t i = 0; i < k; i++) {
    tl_expr *g = get_local(x, tv);
    if (k > 1) {
      tl_expr *ex = tl_expr_new(x->m, TL_OP_TUPLE_EXTRACT, 1);
      ex->kid[0] = g;
      ex->imm.index = i;
      tl_expr_finalize(x->m, x->f, ex);
      g = ex;
    }
    t->kid[i] = g;
  }
  if (ref) t->kid[k] = ref;
  tl_expr_finalize(x->m, x->f, t);
  return t;
}

/* br_on_null, br_on_non_null, br_on_cast(_fail) to a loop, or to a label
 * that takes more than the reference (the IR's br_on_* send one value or
 * none to a block): lowered. The operand v (of stack type in, popped) goes
 * to a scratch local, the values below it that the label takes too to
 * another; `if (test) (br label values)` (a loop's branch sets its params)
 * is followed by those values again and the fallthrough reference.
 * cast: the target type; fall: the stack type the reference leaves. */
tl_status rdc_br_on_lowered(fctx *x, int op, uint32_t depth, tl_expr *v, tl_type in, tl_type cast, tl_type fall) {
  tl_module *m = x->m;
  frame *t = NULL;
  TRY(get_label(x, depth, &t));
  frame tgt = *t;
  if (in == TL_UNREACHABLE) { /* never branches */
    if (op != TL_OP_BR_ON_NON_NULL) push(x, v, fall);
    return TL_OK;
  }
  tl_type lt = label_type(&tgt);
  uint32_t n = tl_type_arity(m, lt), k = op == TL_OP_BR_ON_NULL ? n : n - 1, tv = 0;
  tl_type tk = prefix_type(m, lt, k);
  if (k) { /* they were computed before v: set first */
    tl_expr *vals;
    TRY(pop_vals(x, tk, &vals, NULL));
    tv = scratch(x, tk);
    push(x, set_local(x, tv, vals), TL_NONE);
  }
  uint32_t tmp = scratch(x, in);
  push(x, set_local(x, tmp, v), TL_NONE);
  bool nul = tl_type_is_ref(cast) && tl_ref_nullable(cast) && tl_ref_nullable(in);
  tl_expr *cond, *ref = NULL, *after = NULL;
  switch (op) {
  case TL_OP_BR_ON_NULL:
    cond = tl_make_unary(m, TL_OP_REF_IS_NULL, get_local(x, tmp));
    after = get_non_null(x, tmp, tl_ref_nullable(in));
    break;
  case TL_OP_BR_ON_NON_NULL:
    cond = tl_make_unary(m, TL_OP_I32_EQZ, tl_make_unary(m, TL_OP_REF_IS_NULL, get_local(x, tmp)));
    ref = get_non_null(x, tmp, tl_ref_nullable(in));
    break;
  case TL_OP_BR_ON_CAST:
    cond = cast_of(x, TL_OP_REF_TEST, cast, tmp);
    ref = cast_of(x, TL_OP_REF_CAST, cast, tmp);
    after = get_non_null(x, tmp, nul);
    break;
  default:
    cond = tl_make_unary(m, TL_OP_I32_EQZ, cast_of(x, TL_OP_REF_TEST, cast, tmp));
    ref = get_non_null(x, tmp, nul);
    after = cast_of(x, TL_OP_REF_CAST, cast, tmp);
    break;
  }
  tl_expr *sent = sent_values(x, k, tv, ref), *arm;
  bool loop = tgt.kind == K_LOOP;
  tl_expr *br = tl_expr_new(m, TL_OP_BR, loop || !sent ? 0 : 1);
  br->imm.label = tgt.kind == K_FUNC ? 0 : tgt.label;
  if (loop) {
    br->type = TL_UNREACHABLE;
    arm = sent ? loop_branch(x, &tgt, br, sent) : br;
  } else {
    if (sent) br->kid[0] = sent;
    tl_expr_finalize(m, x->f, br);
    note_branch(x, br->imm.label, br);
    arm = br;
  }
  tl_expr *iff = tl_expr_new(m, TL_OP_IF, 2);
  iff->imm.block.label = new_label(x); /* as the text of it reads back */
  iff->kid[0] = cond;
  iff->kid[1] = arm;
  tl_block_finalize(m, iff, TL_UNREACHABLE);
  push(x, iff, TL_NONE);
  if (k) push(x, get_local(x, tv), tk);
  if (after) push(x, after, fall);
  return TL_OK;
}
void rdc_note_branch(fctx *x, uint32_t label, tl_expr *br) { note_branch(x, label, br); }
tl_status rdc_need_data(fctx *x, uint32_t idx) { return need_data(x, idx); }
tl_status rdc_need_elem(fctx *x, uint32_t idx) { return need_elem(x, idx); }
tl_status rdc_br_target(fctx *x, uint32_t depth, uint32_t *label, tl_type *lt, bool *loop) {
  frame *t = NULL;
  TRY(get_label(x, depth, &t));
  *lt = label_type(t);
  *loop = t->kind == K_LOOP;
  *label = t->kind == K_FUNC ? 0 : t->label;
  return TL_OK;
}

/* With an input source map: the instruction, then its location (the map's
 * at its offset) to the node it made, the new top of the stack if it is of
 * its kind; a construct gets the location of its block/loop/if/try, kept in
 * its frame until its end makes the node. */
static tl_status located(fctx *x, int op, bool *done) {
  uint32_t at = (uint32_t)(x->at - x->r->base);
  tl_debugloc dl = tl_dwarf_loc(at - x->c->code_start, 0);
  const tl_debugloc *l = x->c->dwarf ? &dl : tl_srcmap_at(x->c->smap, x->c->body_start, at);
  size_t n0 = STK(x)->n;
  tl_expr *top0 = n0 ? ent(x, n0 - 1)->e : NULL;
  bool end = op == TL_OP_END, has = false;
  tl_debugloc construct = {0};
  if (end && x->c->frames.n) has = TOPF(x)->has_loc, construct = TOPF(x)->loc;
  TRY(tl_ops[op].nops != TL_SIG_SPECIAL ? do_plain(x, op) : do_special(x, op, done));
  bool opens = op == TL_OP_BLOCK || op == TL_OP_LOOP || op == TL_OP_IF || op == TL_OP_TRY ||
               op == TL_OP_TRY_TABLE;
  if (opens && l) TOPF(x)->has_loc = true, TOPF(x)->loc = *l;
  size_t n = STK(x)->n;
  tl_expr *top = n ? ent(x, n - 1)->e : NULL;
  if (!top || (top == top0 && n == n0) || tl_loc_get(x->f, top)) return TL_OK;
  if (end && has && (tl_ops[top->op].flags & TL_F_CONTROL)) tl_loc_set(x->f, top, construct);
  else if (!end && l && top->op == op) tl_loc_set(x->f, top, *l);
  return TL_OK;
}

tl_status rdc_opcode(fctx *x, int *out) {
  rd *r = x->r;
  x->at = r->p;
  uint8_t b;
  uint32_t code = 0;
  TRY(rd_byte(r, &b, "opcode"));
  bool pfx = b >= 0xfb && b <= 0xfe;
  if (pfx) TRY(rd_u32(r, &code, "opcode"));
  int op = pfx ? tl_op_decode(b, code) : tl_op_decode(0, b);
  if (op < 0 || tl_ops[op].pfx == 0xff) {
    if (pfx) return rdc_fail(x, TL_E_MALFORMED, "illegal opcode 0x%02x %u", b, code);
    return rdc_fail(x, TL_E_MALFORMED, "illegal opcode 0x%02x", b);
  }
  x->opname = tl_ops[op].text;
  *out = op;
  if ((tl_ops[op].feat & TL_FEAT_GC) && !x->m->gc_code) { /* typed ref.func from now on (reader.c) */
    __atomic_store_n(&x->m->gc_code, true, __ATOMIC_RELAXED);
    __atomic_store_n(&x->m->typed_funcs, true, __ATOMIC_RELAXED);
  }
  return need_feature(x->c, r, x->at, tl_ops[op].feat, x->opname);
}

static tl_status rd_instr(fctx *x, bool *done) {
  int op;
  TRY(rdc_opcode(x, &op));
  if (x->c->smap || x->c->dwarf) return located(x, op, done);
  if (tl_ops[op].nops != TL_SIG_SPECIAL) return do_plain(x, op);
  return do_special(x, op, done);
}

/* With an input source map: the locations mapped exactly at the body's
 * local declarations and at its final end. */
static void mark_prolog_epilog(rctx *c, tl_func *f, uint32_t start, uint32_t size) {
  if (c->dwarf) {
    f->prolog = tl_dwarf_loc(start - c->code_start, TL_LOC_DWARF_START);
    f->epilog = tl_dwarf_loc(start + size - 1 - c->code_start, TL_LOC_DWARF_END);
    return;
  }
  const tl_debugloc *p = tl_srcmap_at(c->smap, start, start);
  const tl_debugloc *e = tl_srcmap_at(c->smap, start + size - 1, start + size - 1);
  if (p) f->prolog = *p;
  if (e) f->epilog = *e;
}

/* Locals: count them all first (limit before allocating), then fill. */
tl_status rdc_locals(fctx *x) {
  rd *r = x->r;
  tl_module *m = x->m;
  tl_func *f = x->f;
  uint32_t n, np = tl_func_nparams(m, f);
  const uint8_t *start = r->p;
  TRY(rd_count(r, &n, 2, "local declarations"));
  uint64_t total = np;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k;
    tl_type t;
    const uint8_t *at = r->p;
    TRY(rd_u32(r, &k, "local count"));
    total += k;
    if (total > LOCALS_MAX) return rd_fail_at(r, at, TL_E_LIMIT, "too many locals: more than %u", LOCALS_MAX);
    TRY(rd_valtype(x->c, r, &t));
  }
  uint32_t cap = (uint32_t)total + 8;
  if (x->c->own_locals) { /* the scan made room in the arena, unless it saw something wrong */
    if (!f->local || f->local_cap != cap) {
      f->local = *x->c->own_locals = tl_scratch_realloc(NULL, cap, sizeof(tl_type));
      if (!f->local) longjmp(*x->c->oom, 1);
    }
  } else {
    f->local = TL_NEWN(&m->arena, tl_type, cap);
  }
  f->local_cap = cap;
  f->nlocal = 0;
  tl_functype *ft = tl_func_type(m, f);
  for (uint32_t i = 0; i < np; i++) f->local[f->nlocal++] = tl_type_at(m, ft->params, i);
  r->p = start;
  TRY(rd_u32(r, &n, "local declarations"));
  for (uint32_t i = 0; i < n; i++) {
    uint32_t k;
    tl_type t;
    TRY(rd_u32(r, &k, "local count"));
    TRY(rd_valtype(x->c, r, &t));
    for (uint32_t j = 0; j < k; j++) f->local[f->nlocal++] = t;
  }
  x->nwasm = f->nlocal;
  f->has_scratch_base = true;
  f->scratch_base = f->nlocal;
  if (!x->check) linit_start(x);
  return TL_OK;
}

/* The code of a body, its locals read: to IR, as f->body. */
static tl_status rd_code(fctx *x) {
  rctx *c = x->c;
  rd *r = x->r;
  c->stack.n = c->frames.n = c->labels.n = 0;
  if (c->label_map) TL_VEC_PUSH(&c->lmap_off, size_t, c->lmap.n);
  x->f->nlabel = 0;
  new_label(x); /* label 0: the function's own */
  open_frame(x, K_FUNC, TL_NONE, tl_func_type(x->m, x->f)->results, TL_NO_INDEX, NULL);
  bool done = false;
  while (!done) {
    if (r->p >= r->end) return rd_fail(r, TL_E_MALFORMED, "unexpected end of function body (missing end)");
    TRY(rd_instr(x, &done));
  }
  if (r->p != r->end) return rd_fail(r, TL_E_MALFORMED, "junk after end of function body");
  return TL_OK;
}

/* Body fi from r: decoded, or with c->lazy checked and left as bytes. */
static tl_status rd_body(rctx *c, rd *r, uint32_t fi) {
  if (c->lazy) {
    const uint8_t *start = r->p;
    c->chk_decode = false;
    tl_status s = rd_check_body(c, r, fi);
    if (!c->chk_decode) return s;
    r->p = start; /* an instruction the checker leaves to the decoder */
  }
  fctx x = {c, r, c->m, TL_FUNC(c->m, fi), 0, r->p, "function", false};
  x.f->body_offset = (uint32_t)(r->p - r->base);
  TRY(rdc_locals(&x));
  return rd_code(&x);
}

/* ---------------------------------------------- lazy bodies, decoded */
/* A body the checker passed: its code (after the local declarations, which
 * f->local already holds) to IR. Nothing can be invalid; what could still
 * fail is memory (the caller's scope) or a bug, reported as such. */
static tl_status decode_checked(tl_module *m, uint32_t fi, tl_error *err) {
  tl_func *f = TL_FUNC(m, fi);
  rctx c = {0};
  c.m = m;
  c.err = err;
  c.feat = TL_FEAT_ALL;
  c.trusted = true;
  c.threads = 1;
  rd r = {f->code, f->code + f->code_size, f->code, err, fi};
  fctx x = {&c, &r, m, f, f->nlocal, r.p, "function", false};
  uint32_t n, k;
  tl_type t;
  tl_status s = rd_u32(&r, &n, "local declarations");
  for (uint32_t i = 0; i < n && !s; i++)
    if (!(s = rd_u32(&r, &k, "local count"))) s = rd_valtype(&c, &r, &t);
  if (!s) s = rd_code(&x);
  code_scratch_free(&c);
  return s;
}

tl_status tl_func_decode(tl_module *m, uint32_t fi, tl_error *err) {
  tl_func *f = TL_FUNC(m, fi);
  if (!f->lazy) return TL_OK;
  tl_error e = {0};
  tl_status s = decode_checked(m, fi, &e);
  if (s == TL_E_NOMEM) return tl_nomem(err, "decoding a body");
  if (s) return tl_errorf(err, s, e.offset, "function %u: decoding a checked body failed (a reader bug): %.120s", fi, e.msg);
  f->lazy = false;
  return TL_OK;
}

/* ------------------------------------------------ the parallel decode */
/* A cheap sequential scan finds the bodies (size-prefixed) and makes room
 * for their locals in the arena; workers decode them biggest first, each
 * with its own rctx scratch, error and out-of-memory jump, and allocate
 * nothing in the module arena (more locals than the room are malloc'd);
 * then, in index order on this thread, such locals and the body bytes go
 * to the arena and the label maps are joined. So the IR, the label and
 * local numbering and the arena's contents do not depend on the thread
 * count (bodies intern no tuples: their types come from the type section),
 * and the error is the one of the lowest failing body, as read in order. */
#ifndef TILT_READ_PAR_MIN_BYTES /* tests build with 0: every module in parallel */
#define TILT_READ_PAR_MIN_BYTES (256 * 1024)
#endif
static const size_t par_min_bytes = TILT_READ_PAR_MIN_BYTES;

typedef struct {
  const uint8_t *b;
  uint32_t size;
  uint32_t w;              /* the worker context that read it */
  uint32_t lo, hi;         /* its labels in that context's lmap */
  tl_type *own;            /* its locals if they outgrew the room: malloc'd */
} pbody;

typedef struct {
  rctx c;                  /* the reading context's copy, with scratch of its own */
  tl_error err;
  bool busy;
} wctx;

typedef struct {
  rctx *c;
  const uint8_t *base;
  pbody *body;
  uint32_t *order;         /* function indices, biggest body first */
  uint32_t n;
  pthread_mutex_t lock;    /* guards w, nw and the failure */
  wctx **w;
  uint32_t nw;
  _Atomic uint32_t failed; /* lowest failing body, UINT32_MAX: none */
  tl_status status;
  tl_error err;
} par;

static void par_free(rctx *c) {
  par *p = c->par;
  if (!p) return;
  for (uint32_t i = 0; p->body && i < p->n; i++) tl_free(p->body[i].own);
  for (uint32_t k = 0; k < p->nw; k++) {
    rctx *wc = &p->w[k]->c;
    tl_vec_free(&wc->stack);
    tl_vec_free(&wc->frames);
    tl_vec_free(&wc->labels);
    tl_vec_free(&wc->lmap);
    tl_vec_free(&wc->lmap_off);
    tl_vec_free(&wc->cstack);
    tl_vec_free(&wc->cframes);
    tl_vec_free(&wc->ctypes);
    tl_free(p->w[k]);
  }
  tl_free(p->w);
  tl_free(p->body);
  tl_free(p->order);
  pthread_mutex_destroy(&p->lock);
  tl_free(p);
  c->par = NULL;
}

static void par_fail(par *p, uint32_t i, tl_status s, const tl_error *e) {
  pthread_mutex_lock(&p->lock);
  if (i < atomic_load(&p->failed)) {
    atomic_store(&p->failed, i);
    p->status = s;
    p->err = *e;
  }
  pthread_mutex_unlock(&p->lock);
}

/* A free worker context (at most one per thread is busy) and its index in
 * p->w (*k), or NULL. p->w moves as it grows: read it under the lock. */
static wctx *take_ctx(par *p, uint32_t *k_out) {
  uint32_t k = UINT32_MAX;
  pthread_mutex_lock(&p->lock);
  for (uint32_t j = 0; j < p->nw && k == UINT32_MAX; j++)
    if (!p->w[j]->busy) k = j;
  if (k == UINT32_MAX) {
    wctx **nw = tl_scratch_realloc(p->w, (size_t)p->nw + 1, sizeof *nw);
    wctx *w = nw ? tl_scratch_calloc(1, sizeof *w) : NULL;
    if (nw) p->w = nw;
    if (w) {
      w->c = *p->c; /* shares the read-only state: module, features, declared */
      w->c.stack = w->c.frames = w->c.labels = w->c.lmap = w->c.lmap_off = (tl_vec){0};
      w->c.cstack = w->c.cframes = w->c.ctypes = (tl_vec){0};
      w->c.err = &w->err;
      w->c.par = NULL;
      p->w[k = p->nw++] = w;
    }
  }
  wctx *w = k != UINT32_MAX ? p->w[k] : NULL;
  if (w) w->busy = true;
  pthread_mutex_unlock(&p->lock);
  *k_out = k;
  return w;
}

static void decode(par *p, wctx *w, uint32_t k, uint32_t i) {
  tl_module *m = p->c->m;
  uint32_t fi = m->nimported_funcs + i;
  pbody *pb = &p->body[i];
  jmp_buf jb;
  w->c.oom = &jb;
  w->c.own_locals = &pb->own;
  w->c.lmap_off.n = 0;
  pb->w = k;
  pb->lo = (uint32_t)w->c.lmap.n;
  tl_nodes_begin(m, fi);
  if (setjmp(jb)) {
    tl_nodes_end(m, TL_NO_INDEX); /* the scratch, unless its own move failed */
    tl_errorf(&w->err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
    par_fail(p, i, TL_E_NOMEM, &w->err);
    return;
  }
  tl_nodes_set_oom(&jb);
  rd br = {pb->b, pb->b + pb->size, p->base, &w->err, fi};
  tl_status s = rd_body(&w->c, &br, fi);
  tl_nodes_end(m, fi);
  pb->hi = (uint32_t)w->c.lmap.n;
  if (s) par_fail(p, i, s, &w->err);
}

static void par_one(void *user, uint32_t j) {
  par *p = user;
  uint32_t i = p->order[j] - p->c->m->nimported_funcs;
  if (i > atomic_load(&p->failed)) return; /* a body before it failed */
  uint32_t k;
  wctx *w = take_ctx(p, &k);
  if (!w) {
    tl_error e = {0};
    tl_errorf(&e, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
    par_fail(p, i, TL_E_NOMEM, &e);
    return;
  }
  decode(p, w, k, i);
  pthread_mutex_lock(&p->lock);
  w->busy = false;
  pthread_mutex_unlock(&p->lock);
}

/* Room in the arena for the locals body b declares, as rd_locals makes it;
 * none if anything looks wrong there (the decode then reports it). */
static void locals_room(tl_module *m, uint32_t fi, const uint8_t *b, const uint8_t *end) {
  tl_func *f = TL_FUNC(m, fi);
  uint32_t n, k;
  size_t len = tl_leb_read_u32(b, end, &n);
  uint64_t total = tl_func_nparams(m, f);
  if (!len || n > (size_t)(end - b - len) / 2) return;
  b += len;
  for (uint32_t i = 0; i < n; i++) {
    if (!(len = tl_leb_read_u32(b, end, &k)) || (size_t)(end - b) <= len) return;
    b += len + 1;
    if ((total += k) > LOCALS_MAX) return;
  }
  f->local_cap = (uint32_t)total + 8;
  f->local = TL_NEWN(&m->arena, tl_type, f->local_cap);
}

/* Bodies 0..n-1 decoded: their grown locals and bytes to the arena, labels joined. */
static void par_keep(rctx *c, par *p, uint32_t n) {
  tl_module *m = c->m;
  for (uint32_t i = 0; i < n; i++) {
    tl_func *f = TL_FUNC(m, m->nimported_funcs + i);
    pbody *pb = &p->body[i];
    if (pb->own) {
      tl_type *l = TL_NEWN(&m->arena, tl_type, f->local_cap);
      memcpy(l, pb->own, f->nlocal * sizeof *l);
      tl_free(pb->own);
      pb->own = NULL;
      f->local = l;
    }
    if (c->label_map) {
      rctx *wc = &p->w[pb->w]->c;
      TL_VEC_PUSH(&c->lmap_off, size_t, c->lmap.n);
      for (size_t k = pb->lo; k < pb->hi; k++) TL_VEC_PUSH(&c->lmap, uint32_t, TL_VEC_AT(&wc->lmap, uint32_t, k));
    }
    f->code_size = pb->size;
    if (c->no_body_bytes && !c->lazy) continue;
    f->code = rd_keep(c, pb->b, pb->size);
  }
}

static tl_status code_parallel(rctx *c, rd *r, uint32_t n) {
  tl_module *m = c->m;
  par *p = tl_scratch_calloc(1, sizeof *p);
  if (!p) return tl_errorf(c->err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  c->par = p;
  pthread_mutex_init(&p->lock, NULL);
  p->c = c;
  p->base = r->base;
  p->n = n;
  atomic_init(&p->failed, UINT32_MAX);
  p->body = tl_scratch_calloc(n, sizeof *p->body);
  p->order = tl_scratch_calloc(n, sizeof *p->order);
  if (!p->body || !p->order) return tl_errorf(c->err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  tl_status scan = TL_OK;
  uint32_t k = 0;
  for (; k < n; k++) { /* a failure here counts after the bodies before it */
    pbody *pb = &p->body[k];
    if ((scan = rd_u32(r, &pb->size, "function body size"))) break;
    if ((scan = rd_bytes(r, pb->size, &pb->b, "function body"))) break;
    locals_room(m, m->nimported_funcs + k, pb->b, pb->b + pb->size);
    TL_FUNC(m, m->nimported_funcs + k)->code_size = pb->size; /* what the order reads */
    p->order[k] = m->nimported_funcs + k;
  }
  tl_order_by_size(m, p->order, k); /* biggest first: no big body starts last */
  tl_pass_options po = {.threads = c->threads};
  tl_pass_ctx ctx = {.m = m, .opt = &po};
  /* a worker's stray arena out of memory (a failed malloc in finalize.c)
   * must not jump to this thread's frame: it aborts meanwhile */
  jmp_buf *oom = m->arena.oom;
  m->arena.oom = NULL;
  tl_run_parallel(&ctx, k, par_one, p); /* the workers leave c->err alone */
  m->arena.oom = oom;
  tl_status s = scan;
  if (atomic_load(&p->failed) != UINT32_MAX) {
    if (c->err) *c->err = p->err;
    s = p->status;
  } else {
    par_keep(c, p, k);
  }
  par_free(c);
  return s;
}

static bool worth_parallel(rctx *c, rd *r, uint32_t n) {
  return c->threads != 1 && n >= 2 && (size_t)(r->end - r->p) >= par_min_bytes;
}

tl_status rd_code_section(rctx *c, rd *r) {
  tl_module *m = c->m;
  uint32_t n;
  const uint8_t *at = r->p;
  c->code_start = (uint32_t)(at - r->base);
  TRY(rd_count(r, &n, 2, "function body"));
  if (n != c->nfunc_decl)
    return rd_fail_at(r, at, TL_E_MALFORMED, "function and code section have inconsistent lengths (%u, %u)",
                      c->nfunc_decl, n);
  if (worth_parallel(c, r, n)) return code_parallel(c, r, n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t size;
    const uint8_t *b;
    at = r->p;
    TRY(rd_u32(r, &size, "function body size"));
    TRY(rd_bytes(r, size, &b, "function body"));
    uint32_t fi = m->nimported_funcs + i;
    rd br = {b, b + size, r->base, r->err, fi};
    c->body_start = (uint32_t)(at - r->base);
    tl_nodes_begin(m, fi); /* the body into a block of its own */
    tl_status s = rd_body(c, &br, fi);
    tl_nodes_end(m, fi);
    if (s) return s;
    if (c->smap || c->dwarf) mark_prolog_epilog(c, TL_FUNC(m, fi), (uint32_t)(b - r->base), size);
    TL_FUNC(m, fi)->code_size = size; /* kept without the bytes too: the pass runner schedules by it */
    if (c->no_body_bytes && !c->lazy) continue;
    TL_FUNC(m, fi)->code = rd_keep(c, b, size);
  }
  return TL_OK;
}
