/* remove_memory.c — wasm-opt's --remove-memory: the module keeps its code
 * but no longer initializes memory (emcc -sASYNCIFY_LAZY_LOAD_CODE: the
 * lazily loaded second module shares a memory the first already filled).
 * Data segments go; where code still names one (memory.init, data.drop,
 * array.new_data, array.init_data) the segments up to the last one named
 * stay so indices keep their meaning: an active one becomes an empty
 * passive one (after instantiation an active segment behaves as dropped,
 * and an empty passive segment behaves the same under memory.init and
 * data.drop), a passive one that is named keeps its bytes (they are not
 * memory's initialization but data code reads), an unnamed one is emptied.
 * Binaryen drops every segment, which leaves such modules invalid.
 * Lazy bodies stay bytes (their data indices are read with tl_code_refs). */
#include "passes.h"

typedef struct {
  uint8_t *named; /* per data index: some instruction names it */
} rm_ctx;

static void name_data(rm_ctx *c, uint32_t i) { c->named[i] = 1; }

static void visit(tl_walk *w, tl_expr **slot) {
  rm_ctx *c = w->ctx;
  const tl_expr *e = *slot;
  switch (tl_ops[e->op].imm) {
  case TL_IMM_MEM_INIT: name_data(c, e->imm.idx2.a); break;
  case TL_IMM_DATA: name_data(c, e->imm.index); break;
  case TL_IMM_TYPE_DATA: name_data(c, e->imm.idx2.b); break;
  default: break;
  }
}

static void lazy_ref(void *user, const tl_code_ref *r) {
  if (r->space == TL_SPACE_DATA) name_data(user, r->index);
}

tl_status tl_pass_remove_memory(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  rm_ctx c = {tl_calloc(m->datas.n + 1, 1)};
  if (!c.named) return tl_nomem(ctx->err, "remove-memory");
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) {
    tl_func *f = TL_FUNC(m, i);
    if (f->lazy) tl_code_refs(m, f->code, f->code_size, lazy_ref, &c);
    else if (f->body) tl_walk_post(m, f, &f->body, visit, &c);
  }
  size_t keep = 0;
  for (size_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    if (c.named[i]) keep = i + 1;
    if (d->mode == TL_SEG_ACTIVE || !c.named[i]) {
      d->mode = TL_SEG_PASSIVE;
      d->offset = NULL;
      d->size = 0;
    }
  }
  m->datas.n = keep;
  tl_free(c.named);
  return TL_OK;
}
