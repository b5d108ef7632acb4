/* interp.c — constant folding with the reference interpreter
 * (tl_interp_eval): a pure expression of a function is compiled as a body
 * of its own and run in a scratch store (src/runtime). Execution itself is
 * interp_exec.c over code from interp_compile.c. */
#include "interp_impl.h"

#include <stdlib.h>

/* ------------------------------------------------- constant folding */
typedef struct { uint8_t *def; uint32_t nlabel; bool bad; int pass; } purity;

static bool defined_label(purity *p, uint32_t l) { return l < p->nlabel && p->def[l]; }

static void pure_visit(tl_walk *w, tl_expr **slot) {
  purity *p = w->ctx;
  tl_expr *e = *slot;
  const tl_opinfo *oi = &tl_ops[e->op];
  if (p->pass == 0) {
    if ((oi->flags & TL_F_CONTROL) && e->imm.block.label < p->nlabel) p->def[e->imm.block.label] = 1;
    return;
  }
  const uint32_t effects = TL_F_READS_MEM | TL_F_WRITES_MEM | TL_F_READS_TABLE | TL_F_WRITES_TABLE |
                           TL_F_READS_LOCAL | TL_F_WRITES_LOCAL | TL_F_READS_GLOBAL |
                           TL_F_WRITES_GLOBAL | TL_F_CALL | TL_F_EH; /* EH: not run (yet) */
  /* gc: objects would die with the scratch store, and it has no runtime types */
  if ((oi->flags & effects) || e->op == TL_OP_RETURN || e->op == TL_OP_REF_FUNC || tl_op_is_gc(e->op)) p->bad = true;
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) {
    if (!defined_label(p, e->imm.label)) p->bad = true;
  } else if (e->op == TL_OP_BR_TABLE) {
    if (!defined_label(p, e->imm.table->def)) p->bad = true;
    for (uint32_t i = 0; i < e->imm.table->n; i++)
      if (!defined_label(p, e->imm.table->targets[i])) p->bad = true;
  }
}

/* *oom set (and false) when out of memory. */
static bool is_pure(tl_module *m, tl_func *f, tl_expr *e, bool *oom) {
  purity p = {tl_scratch_calloc(f->nlabel + 1, 1), f->nlabel, false, 0};
  if (!p.def) return !(*oom = true);
  tl_expr *root = e;
  tl_walk_post(m, f, &root, pure_visit, &p);
  p.pass = 1;
  tl_walk_post(m, f, &root, pure_visit, &p);
  tl_free(p.def);
  return !p.bad;
}

/* tl_interp_eval's instance. A pure expression calls nothing and reads no
 * global, table, segment or tag, so none of those arrays is made: each of
 * them is as long as the module's index space, and zeroing them for every
 * expression folded made precompute quadratic on big modules (one
 * instance per candidate). mems stays: the interpreter caches memory 0. */
static tl_instance *eval_instance(tl_store *s, tl_module *m) {
  tl_instance *inst = TL_NEW(&s->arena, tl_instance);
  inst->s = s;
  inst->m = m;
  inst->mems = TL_NEWN(&s->arena, tl_meminst *, m->memories.n + 1);
  inst->next = s->insts;
  s->insts = inst;
  return inst;
}

/* The stack code needs when it calls nothing: its own frame (which
 * tl_interp_run_code checks against the stack) and no frame records, in
 * place of the 16 MB stack tl_interp_stacks_ready makes. */
static bool eval_stack(tl_store *s, const tl_code *code) {
  s->nstack = code->frame_slots;
  s->stack = tl_malloc(s->nstack * sizeof *s->stack);
  s->max_depth = 1;
  s->frames = tl_malloc(sizeof *s->frames);
  return s->stack && s->frames;
}

tl_status tl_interp_eval(tl_module *m, tl_func *f, tl_expr *e, tl_value *out, uint32_t maxout,
                         uint32_t *nout, uint64_t fuel, tl_error *err) {
  *nout = 0;
  bool oom = false;
  if (!is_pure(m, f, e, &oom))
    return oom ? tl_nomem(err, "eval") : tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "expression has effects or leaves");
  uint32_t n = e->type == TL_UNREACHABLE ? 0 : tl_type_arity(m, e->type);
  if (n > maxout) return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "too many results");
  tl_store *s = tl_store_new();
  if (!s) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  s->fuel = fuel;
  tl_instance *inst = eval_instance(s, m);
  tl_code *code;
  tl_v *res = NULL;
  if (tl_interp_compile_expr(inst, f, e, &code) || !eval_stack(s, code) ||
      !(res = tl_scratch_calloc(n + 1, sizeof *res))) {
    tl_store_free(s);
    return tl_nomem(err, "eval");
  }
  tl_status st = tl_interp_run_code(s, inst, code, NULL, 0, res, err);
  for (uint32_t i = 0; st == TL_OK && i < n; i++) {
    out[i].type = tl_type_at(m, e->type, i);
    memcpy(&out[i].of, &res[i], sizeof out[i].of);
  }
  if (st == TL_OK) *nout = n;
  tl_free(res);
  tl_store_free(s);
  return st;
}
