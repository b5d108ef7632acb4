/* interp_compile.c — compiles one function's tree IR, once, into the
 * interpreter's linear code (tl_ins rows): operands in postorder, control as
 * jumps whose targets are patched through per-label chains (Lua jump lists
 * threaded through the `a` field). Operand stack heights are known
 * statically, so a branch carries the slot height of its target and how
 * many slots it keeps. Iterative with an explicit work stack: no C recursion
 * on nesting depth. Code after a node of type unreachable is never emitted.
 * Exception handling costs nothing at run time until a throw: a try or
 * try_table body becomes a row range in the function's handler table
 * (tl_handler), catch arms follow the body, try_table clauses become
 * landing rows that branch to their labels, and a try with catches keeps
 * its caught exception in a hidden slot after the locals (for rethrow).
 * GC instructions get their runtime types and field layouts resolved here
 * (interp_gc.c); br_on_cast(_fail) is a test that pushes a condition, then
 * a conditional branch. */
#include "interp_impl.h"

#include <stdlib.h>

#define NOFIX UINT32_MAX

typedef struct {
  uint32_t h0;      /* slot height at the construct's start */
  uint32_t keep;    /* slots a branch to it carries */
  uint32_t loop_pc; /* loop start, or NOFIX */
  uint32_t head;    /* chain of rows to patch with the end pc */
  bool is_func;     /* the function body: branches return */
  uint32_t hctx;    /* the exception handler in effect just inside it now
                       (a delegate to it goes there; TL_HNONE: the caller) */
  uint32_t exn_slot; /* try with catches: the slot keeping the caught
                        exception (rethrow names the try) */
} lbl;

typedef struct {
  tl_expr *e;
  uint32_t i;       /* next kid to compile */
  uint32_t h0;      /* height before the node */
  uint32_t fix;     /* if: the BRZ row; later the JMP over the else arm;
                       try, try_table: the chain of JMPs to the end */
  uint32_t hid;     /* try, try_table: its handler */
  uint32_t outer;   /* try, try_table: the handler in effect around it */
} wk;

typedef struct {
  tl_module *m;
  tl_instance *inst;
  tl_func *f;
  tl_vec code;      /* tl_ins */
  uint32_t h, maxh;
  uint32_t *lmap;
  lbl *labels;
  uint32_t nres;    /* result slots */
  tl_vec handlers;  /* tl_handler, numbered as their bodies begin */
  tl_vec arms;      /* tl_harm */
  uint32_t cur_h;   /* innermost handler in effect (TL_HNONE: none) */
  uint32_t exn_next; /* next free exception-keeping slot */
  tl_vec work;      /* wk: compile_body's stack */
} cc;

uint32_t tl_interp_slots(const tl_module *m, tl_type t) {
  if (t == TL_NONE || t == TL_UNREACHABLE) return 0;
  return tl_type_is_tuple(t) ? tl_type_arity(m, t) : 1;
}

static uint32_t pc(cc *c) { return (uint32_t)c->code.n; }

static tl_ins *emit(cc *c, uint32_t op, uint32_t a, uint64_t b) {
  tl_ins in = {(uint16_t)op, 0, a, {b}};
  TL_VEC_PUSH(&c->code, tl_ins, in);
  return &TL_VEC_AT(&c->code, tl_ins, c->code.n - 1);
}

static void patch_chain(cc *c, uint32_t head, uint32_t target) {
  while (head != NOFIX) {
    tl_ins *in = &TL_VEC_AT(&c->code, tl_ins, head);
    head = in->a;
    in->a = target;
  }
}

static void grow_h(cc *c, uint32_t n) {
  c->h += n;
  if (c->h > c->maxh) c->maxh = c->h;
}

/* A branch to label l from height c->h. cond: taken only if the popped
 * condition (already off c->h) is nonzero. */
static void emit_br(cc *c, uint32_t l, bool cond) {
  lbl *L = &c->labels[l];
  if (L->is_func) {
    if (cond) {
      uint32_t skip = pc(c);
      emit(c, X_BRZ, NOFIX, 0);
      emit(c, X_RET, c->nres, 0);
      TL_VEC_AT(&c->code, tl_ins, skip).a = pc(c);
    } else {
      emit(c, X_RET, c->nres, 0);
    }
    return;
  }
  uint32_t keep = L->keep;
  tl_ins *in;
  if (c->h - keep == L->h0)
    in = emit(c, cond ? X_BRNZ : X_JMP, 0, 0);
  else
    in = emit(c, cond ? X_BRIF : X_BR, 0, (uint64_t)L->h0 | (uint64_t)keep << 32);
  if (L->loop_pc != NOFIX) {
    in->a = L->loop_pc;
  } else {
    in->a = L->head;
    L->head = pc(c) - 1;
  }
}

static void emit_br_table(cc *c, tl_expr *e) {
  uint32_t n = e->imm.table->n;
  emit(c, X_BRTABLE, 0, 0)->u.b = n;
  for (uint32_t i = 0; i <= n; i++) {
    uint32_t l = i < n ? e->imm.table->targets[i] : e->imm.table->def;
    lbl *L = &c->labels[l];
    tl_ins *in;
    if (L->is_func) {
      in = emit(c, X_RET, c->nres, 0);
      continue;
    }
    in = emit(c, X_BR, 0, (uint64_t)L->h0 | (uint64_t)L->keep << 32);
    if (L->loop_pc != NOFIX) {
      in->a = L->loop_pc;
    } else {
      in->a = L->head;
      L->head = pc(c) - 1;
    }
  }
}

static void enter_label(cc *c, tl_expr *e, uint32_t h0) {
  uint32_t l = e->imm.block.label;
  if (l == TL_NO_LABEL || l >= c->f->nlabel) return;
  lbl *L = &c->labels[l];
  L->h0 = h0;
  L->head = NOFIX;
  L->is_func = false;
  L->hctx = c->cur_h;
  L->exn_slot = NOFIX;
  if (e->op == TL_OP_LOOP) {
    L->keep = 0;
    L->loop_pc = pc(c);
  } else {
    L->keep = tl_interp_slots(c->m, e->type);
    L->loop_pc = NOFIX;
  }
}

static void leave_label(cc *c, tl_expr *e) {
  uint32_t l = e->imm.block.label;
  if (l == TL_NO_LABEL || l >= c->f->nlabel || e->op == TL_OP_LOOP) return;
  patch_chain(c, c->labels[l].head, pc(c));
  c->labels[l].head = NOFIX;
}

static uint32_t lslot(cc *c, uint32_t idx, uint32_t *n) {
  *n = tl_interp_slots(c->m, c->f->local[idx]);
  return c->lmap[idx];
}

/* Emits a non-control node whose operands are on the stack. */
static void emit_op(cc *c, tl_expr *e) {
  const tl_opinfo *oi = &tl_ops[e->op];
  uint32_t n;
  switch (e->op) {
  case TL_OP_NOP: case TL_OP_TUPLE_MAKE: return;
  case TL_OP_BR: emit_br(c, e->imm.label, false); return;
  case TL_OP_BR_IF: c->h--; emit_br(c, e->imm.label, true); return;
  case TL_OP_BR_TABLE: c->h--; emit_br_table(c, e); return;
  case TL_OP_BR_ON_NULL: /* a null goes to the label (which takes no value) */
    emit(c, X_ISNULL, 0, 0);
    grow_h(c, 1), c->h--; /* room for the test's i32 */
    emit_br(c, e->imm.label, true);
    return;
  case TL_OP_BR_ON_NON_NULL: /* a non-null goes to the label with it; a null is dropped */
    emit(c, X_NONNULL, 0, 0);
    grow_h(c, 1), c->h--;
    emit_br(c, e->imm.label, true);
    emit(c, X_DROPN, 1, 0);
    return;
  case TL_OP_RETURN: emit(c, X_RET, c->nres, 0); return;
  case TL_OP_DROP:
    n = tl_interp_slots(c->m, e->kid[0]->type);
    if (n) emit(c, X_DROPN, n, 0);
    return;
  case TL_OP_TUPLE_EXTRACT:
    emit(c, X_EXTRACT, e->imm.index, 0)->n = (uint16_t)tl_interp_slots(c->m, e->kid[0]->type);
    return;
  case TL_OP_LOCAL_GET: case TL_OP_LOCAL_SET: case TL_OP_LOCAL_TEE: {
    uint32_t s = lslot(c, e->imm.index, &n);
    uint32_t op = e->op;
    if (n != 1 || c->f->local[e->imm.index] == TL_V128) op = op == TL_OP_LOCAL_GET ? X_LGETN : op == TL_OP_LOCAL_SET ? X_LSETN : X_LTEEN;
    emit(c, op, s, n);
    return;
  }
  case TL_OP_I32_CONST: emit(c, e->op, 0, (uint64_t)(uint32_t)e->imm.i32); return;
  case TL_OP_I64_CONST: emit(c, e->op, 0, (uint64_t)e->imm.i64); return;
  case TL_OP_F32_CONST: emit(c, e->op, 0, e->imm.f32); return;
  case TL_OP_F64_CONST: emit(c, e->op, 0, e->imm.f64); return;
  case TL_OP_V128_CONST: case TL_OP_I8X16_SHUFFLE: emit(c, e->op, 0, 0)->u.p = e->imm.v128; return;
  case TL_OP_GLOBAL_GET: case TL_OP_GLOBAL_SET:
    emit(c, e->op, e->imm.index, 0)->n = TL_GLOBAL(c->m, e->imm.index)->type == TL_V128;
    return;
  case TL_OP_SELECT: case TL_OP_SELECT_T:
    emit(c, e->op, 0, 0)->n = e->type == TL_V128;
    return;
  case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT:
    emit(c, e->op, e->imm.idx2.a, e->imm.idx2.b);
    return;
  case TL_OP_RETHROW: emit(c, X_RETHROW, c->labels[e->imm.label].exn_slot, 0); return;
  default: break;
  }
  if (tl_interp_is_gc(e->op)) {   /* br_on_cast(_fail): the test pushes whether to branch */
    tl_interp_gc_compile(c->inst, e, emit(c, e->op, 0, 0));
    if (tl_op_is_br_on_cast(e->op)) emit_br(c, e->imm.idx2.a, true);
    return;
  }
  switch (oi->imm) {
  case TL_IMM_MEMARG: case TL_IMM_MEMARG_LANE: {
    tl_memarg ma = e->imm.mem; /* a copy: e is packed */
    if (e->imm.mem.mem) emit(c, X_MEMSEL, e->imm.mem.mem, 0);
    emit(c, e->op, tl_memory_is64(c->m, e->imm.mem.mem) ? XA_ADDR64 : 0,
         tl_memarg_offset(c->m, &ma))->n = e->imm.mem.lane;
    if (e->imm.mem.mem) emit(c, X_MEMSEL, 0, 0);
    return;
  }
  case TL_IMM_LANE:
    emit(c, e->op, 0, e->imm.mem.offset)->n = e->imm.mem.lane;
    return;
  case TL_IMM_MEM_COPY: case TL_IMM_MEM_INIT: case TL_IMM_TABLE_INIT: case TL_IMM_TABLE_COPY:
    emit(c, e->op, e->imm.idx2.a, e->imm.idx2.b);
    return;
  default:
    emit(c, e->op, e->imm.index, 0);
    return;
  }
}

static void push_wk(tl_vec *st, tl_expr *e, uint32_t h) {
  wk w = {e, 0, h, NOFIX, TL_HNONE, TL_HNONE};
  TL_VEC_PUSH(st, wk, w);
}

/* Block and loop bodies: drop values of non-last kids; stop after a kid
 * that cannot complete. Returns the next kid or NULL when done. */
static tl_expr *list_next(cc *c, wk *w) {
  tl_expr *e = w->e;
  if (w->i > 0) {
    tl_expr *prev = e->kid[w->i - 1];
    if (prev->type == TL_UNREACHABLE) return NULL;
    if (w->i < e->nkid) {
      uint32_t n = tl_interp_slots(c->m, prev->type);
      if (n) {
        emit(c, X_DROPN, n, 0);
        c->h -= n;
      }
    }
  }
  return w->i < e->nkid ? e->kid[w->i++] : NULL;
}

static tl_expr *if_next(cc *c, wk *w) {
  tl_expr *e = w->e;
  switch (w->i++) {
  case 0: return e->kid[0];
  case 1:
    if (e->kid[0]->type == TL_UNREACHABLE) return NULL;
    c->h--;
    w->fix = pc(c);
    emit(c, X_BRZ, NOFIX, 0);
    enter_label(c, e, c->h);
    return e->kid[1];
  case 2: {
    tl_ins *brz = &TL_VEC_AT(&c->code, tl_ins, w->fix);
    if (e->nkid < 3 || !e->kid[2]) {
      brz->a = pc(c);
      w->fix = NOFIX;
      return NULL;
    }
    uint32_t brzi = w->fix;
    w->fix = NOFIX;
    if (e->kid[1]->type != TL_UNREACHABLE) {
      w->fix = pc(c);
      emit(c, X_JMP, NOFIX, 0);
    }
    TL_VEC_AT(&c->code, tl_ins, brzi).a = pc(c);
    c->h = w->h0;
    return e->kid[2];
  }
  default: return NULL;
  }
}

static tl_expr *op_next(wk *w) {
  tl_expr *e = w->e;
  if (w->i > 0 && e->kid[w->i - 1]->type == TL_UNREACHABLE) return NULL;
  return w->i < e->nkid ? e->kid[w->i++] : NULL;
}

/* ---- exception handling: a try or try_table body is a handler's range;
 * legacy catch arms follow the body; try_table clauses become landing rows
 * that branch to their labels (the runtime puts the payload on the stack). */
static tl_handler *handler(cc *c, uint32_t id) { return &TL_VEC_AT(&c->handlers, tl_handler, id); }

static bool try_has_catches(const tl_expr *e) {
  return e->nkid > 1 && e->kid[e->nkid - 1]->op != TL_OP_DELEGATE;
}

/* Opens the handler of try / try_table e at the current row. */
static void open_handler(cc *c, wk *w, uint8_t kind) {
  tl_expr *e = w->e;
  tl_handler h = {pc(c), 0, c->cur_h, c->h, NOFIX, 0, 0, kind};
  if (kind == TL_H_CATCH) h.exn_slot = c->exn_next++;
  w->hid = (uint32_t)c->handlers.n;
  w->outer = c->cur_h;
  TL_VEC_PUSH(&c->handlers, tl_handler, h);
  c->cur_h = w->hid;
  enter_label(c, e, c->h);
  uint32_t l = e->imm.block.label;
  if (l != TL_NO_LABEL && l < c->f->nlabel) c->labels[l].exn_slot = h.exn_slot;
}

/* The body is done: close the range, jump over what follows. */
static void close_handler(cc *c, wk *w) {
  tl_expr *e = w->e;
  handler(c, w->hid)->end = pc(c);
  handler(c, w->hid)->arm0 = (uint32_t)c->arms.n;   /* nested handlers' arms come first */
  /* a legacy try's arms are compiled one by one, and tries nested in an
   * arm add theirs in between: its own are reserved here, contiguous */
  if (e->op == TL_OP_TRY)
    for (uint32_t i = 1; i < e->nkid; i++)
      if (e->kid[i]->op != TL_OP_DELEGATE) TL_VEC_PUSH(&c->arms, tl_harm, ((tl_harm){0}));
  c->cur_h = w->outer;
  uint32_t l = e->imm.block.label;
  if (l != TL_NO_LABEL && l < c->f->nlabel) c->labels[l].hctx = w->outer;
  if (e->kid[0]->type != TL_UNREACHABLE) {
    emit(c, X_JMP, w->fix, 0);
    w->fix = pc(c) - 1;
  }
}

static void add_arm(cc *c, wk *w, uint32_t tag, uint32_t slot, bool ref) {
  tl_harm a = {tag, pc(c), slot, ref};
  tl_handler *h = handler(c, w->hid);
  if (w->e->op == TL_OP_TRY) TL_VEC_AT(&c->arms, tl_harm, h->arm0 + h->narm) = a; /* reserved */
  else TL_VEC_PUSH(&c->arms, tl_harm, a);
  h->narm++;
}

/* Legacy try: body, then each catch arm's handler. */
static tl_expr *try_next(cc *c, wk *w) {
  tl_expr *e = w->e;
  uint32_t i = w->i++;
  if (i == 0) {
    open_handler(c, w, try_has_catches(e) ? TL_H_CATCH : TL_H_DELEGATE);
    return e->kid[0];
  }
  if (i == 1) close_handler(c, w);
  else if (i < e->nkid && e->kid[i - 1]->kid[0]->type != TL_UNREACHABLE) {
    emit(c, X_JMP, w->fix, 0);
    w->fix = pc(c) - 1;
  }
  c->h = w->h0;
  if (i >= e->nkid) return NULL;
  tl_expr *arm = e->kid[i];
  if (arm->op == TL_OP_DELEGATE) {
    uint32_t l = arm->imm.label;
    handler(c, w->hid)->next = l < c->f->nlabel ? c->labels[l].hctx : TL_HNONE;
    return NULL;
  }
  if (arm->op == TL_OP_CATCH) {
    uint32_t local = arm->imm.idx2.a;
    add_arm(c, w, arm->imm.idx2.b, local == TL_NO_INDEX ? NOFIX : c->lmap[local], false);
  } else {
    add_arm(c, w, NOFIX, NOFIX, false);
  }
  return arm->kid[0];
}

/* try_table: body, then one landing row per clause. */
static tl_expr *try_table_next(cc *c, wk *w) {
  tl_expr *e = w->e;
  if (w->i++ == 0) {
    open_handler(c, w, TL_H_TABLE);
    return e->kid[0];
  }
  close_handler(c, w);
  for (uint32_t i = 1; i < e->nkid; i++) {
    tl_expr *cl = e->kid[i];
    bool all = cl->op == TL_OP_TT_CATCH_ALL || cl->op == TL_OP_TT_CATCH_ALL_REF;
    bool ref = cl->op == TL_OP_TT_CATCH_REF || cl->op == TL_OP_TT_CATCH_ALL_REF;
    add_arm(c, w, all ? NOFIX : cl->imm.idx2.b, NOFIX, ref);
    c->h = w->h0;
    grow_h(c, tl_interp_slots(c->m, cl->type));
    emit_br(c, cl->imm.idx2.a, false);
  }
  c->h = w->h0;
  return NULL;
}

static void finish(cc *c, wk *w) {
  tl_expr *e = w->e;
  bool ctl = tl_ops[e->op].flags & TL_F_CONTROL;
  bool dead = !ctl && w->i > 0 && e->kid[w->i - 1]->type == TL_UNREACHABLE;
  switch (e->op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: leave_label(c, e); break;
  case TL_OP_TRY: case TL_OP_TRY_TABLE:
    patch_chain(c, w->fix, pc(c));
    leave_label(c, e);
    break;
  case TL_OP_IF:
    if (w->fix != NOFIX) TL_VEC_AT(&c->code, tl_ins, w->fix).a = pc(c);
    if (e->kid[0]->type != TL_UNREACHABLE) leave_label(c, e);
    break;
  default:
    if (!dead) emit_op(c, e);
    break;
  }
  c->h = w->h0;
  if (e->type != TL_UNREACHABLE) grow_h(c, tl_interp_slots(c->m, e->type));
}

static void compile_body(cc *c, tl_expr *body, bool is_func) {
  tl_vec *st = &c->work;  /* in c: freed by compile() if out of memory unwinds */
  push_wk(st, body, c->h);
  uint32_t fl = body->imm.block.label;
  if (is_func && fl != TL_NO_LABEL && fl < c->f->nlabel) {
    enter_label(c, body, c->h);
    c->labels[fl].is_func = true;
  }
  while (st->n) {
    wk *w = &TL_VEC_AT(st, wk, st->n - 1);
    tl_expr *e = w->e, *next;
    if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) {
      if (w->i == 0 && e != body) enter_label(c, e, c->h);
      next = list_next(c, w);
    } else if (e->op == TL_OP_IF) {
      next = if_next(c, w);
    } else if (e->op == TL_OP_TRY) {
      next = try_next(c, w);
    } else if (e->op == TL_OP_TRY_TABLE) {
      next = try_table_next(c, w);
    } else {
      next = op_next(w);
    }
    if (next) {
      push_wk(st, next, c->h);
      continue;
    }
    finish(c, w);
    st->n--;
  }
  tl_vec_free(st);
  if (body->type != TL_UNREACHABLE) emit(c, X_RET, c->nres, 0);
}

static void count_catching_try(tl_walk *w, tl_expr **slot) {
  if ((*slot)->op == TL_OP_TRY && try_has_catches(*slot)) (*(uint32_t *)w->ctx)++;
}

/* The code of body into c (its scratch freed by the caller). */
static tl_code *compile_into(cc *c, tl_instance *inst, tl_func *f, tl_expr *body, bool is_func,
                             tl_type results) {
  tl_module *m = inst->m;
  c->m = m;
  c->inst = inst;
  c->f = f;
  c->labels = tl_scratch_calloc(f->nlabel + 1, sizeof *c->labels);
  if (!c->labels) return NULL;
  c->lmap = tl_func_local_map(m, f);
  c->nres = tl_interp_slots(m, results);
  uint32_t np = is_func ? tl_func_nparams(m, f) : 0;
  c->cur_h = TL_HNONE;
  uint32_t nexn = 0;
  if (tl_expr_has_eh(body)) tl_walk_post_only(m, f, &body, count_catching_try, &nexn, TL_F_EH);
  c->exn_next = c->lmap[f->nlocal];
  c->h = c->maxh = c->lmap[f->nlocal] + nexn;
  compile_body(c, body, is_func);
  tl_code *code = TL_NEW(&inst->s->arena, tl_code);
  code->n = (uint32_t)c->code.n;
  code->ins = TL_NEWN(&inst->s->arena, tl_ins, c->code.n ? c->code.n : 1);
  if (c->code.n) memcpy(code->ins, c->code.p, c->code.n * sizeof(tl_ins));
  code->nparam_slots = np < f->nlocal ? c->lmap[np] : c->lmap[f->nlocal];
  code->nlocal_slots = c->lmap[f->nlocal] + nexn;
  code->frame_slots = c->maxh + 1;
  code->nhandlers = (uint32_t)c->handlers.n;
  if (c->handlers.n) {
    code->handlers = TL_NEWN(&inst->s->arena, tl_handler, c->handlers.n);
    memcpy(code->handlers, c->handlers.p, c->handlers.n * sizeof(tl_handler));
    code->arms = TL_NEWN(&inst->s->arena, tl_harm, c->arms.n + 1);
    if (c->arms.n) memcpy(code->arms, c->arms.p, c->arms.n * sizeof(tl_harm));
  }
  return code;
}

typedef struct {
  cc c;
  tl_instance *inst;
  tl_func *f;
  tl_expr *body;
  bool is_func;
  tl_type results;
  tl_code *out;
} compile_call;

static void compile_run(void *arg) {
  compile_call *k = arg;
  k->out = compile_into(&k->c, k->inst, k->f, k->body, k->is_func, k->results);
}

/* NULL when out of memory (vector growth and the store's arena included:
 * tl_oom_worker catches them here, as execution must not be unwound). */
static tl_code *compile(tl_instance *inst, tl_func *f, tl_expr *body, bool is_func, tl_type results) {
  compile_call k = {{0}, inst, f, body, is_func, results, NULL};
  tl_oom_ctx here = tl_oom_here();
  if (!tl_oom_worker(&here, compile_run, &k)) k.out = NULL;
  tl_vec_free(&k.c.handlers);
  tl_vec_free(&k.c.arms);
  tl_free(k.c.lmap);
  tl_free(k.c.labels);
  tl_vec_free(&k.c.code);
  tl_vec_free(&k.c.work);
  return k.out;
}

tl_status tl_interp_compile(tl_instance *inst, uint32_t fidx, tl_code **out, tl_error *err) {
  tl_func *f = TL_FUNC(inst->m, fidx);
  if (!f->body) return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "function has no body");
  *out = compile(inst, f, f->body, true, tl_func_type(inst->m, f)->results);
  return *out ? TL_OK : tl_nomem(err, "interpreter");
}

tl_status tl_interp_compile_expr(tl_instance *inst, tl_func *f, tl_expr *e, tl_code **out) {
  tl_expr wrap;
  memset(&wrap, 0, sizeof wrap);
  wrap.op = TL_OP_BLOCK;
  wrap.type = e->type;
  wrap.nkid = 1;
  wrap.kid = &e;
  wrap.imm.block.label = TL_NO_LABEL;
  wrap.imm.block.bt = TL_NO_INDEX;
  *out = compile(inst, f, &wrap, false, e->type);
  return *out ? TL_OK : TL_E_NOMEM;
}
