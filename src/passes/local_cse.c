/* local_cse.c — local-cse: after `local.set $x E` in a block/loop list,
 * where E is pure (no writes, calls, traps, branches or memory/table
 * reads) and not trivial, later copies of E are replaced by `local.get $x`
 * while nothing has written $x or a local or global E reads.
 * The scan goes forward through the following siblings in evaluation
 * order; it replaces copies outside loops only (inside a loop a later
 * write could run before an earlier-placed copy on the next iteration),
 * and stops at the first write of $x, of a local E reads, or of a global
 * (or a call) when E reads globals.
 * Assumes: valid IR with up-to-date types. Guarantees: the same behaviour;
 * budgeted scans (linear). */
#include "passes.h"

#include <string.h>

enum { SCAN_BUDGET = 1024, MAX_EXPR = 64 };

typedef struct { tl_expr **slot; uint32_t next; bool in_loop; } frame;

typedef struct {
  tl_module *m;
  tl_func *f;
  tl_vec st, frames, reads;
  bool reads_global;
  uint32_t size;
  bool changed;
} cse_ctx;

static const uint32_t IMPURE = TL_F_TRAPS | TL_F_READS_MEM | TL_F_WRITES_MEM | TL_F_READS_TABLE |
                               TL_F_WRITES_TABLE | TL_F_WRITES_LOCAL | TL_F_WRITES_GLOBAL | TL_F_CALL |
                               TL_F_BRANCH | TL_F_NORETURN | TL_F_CONTROL | TL_F_ATOMIC;

/* Pure, small, not a bare get/const; collects the locals it reads. */
static bool candidate(cse_ctx *c, tl_expr *v) {
  if (v->nkid == 0 || !tl_type_is_concrete(v->type) || tl_type_is_tuple(v->type)) return false;
  c->reads.n = 0, c->reads_global = false, c->size = 0;
  tl_vec *st = &c->st;
  st->n = 0;
  TL_VEC_PUSH(st, tl_expr *, v);
  while (st->n) {
    tl_expr *e = TL_VEC_AT(st, tl_expr *, --st->n);
    if (++c->size > MAX_EXPR) return false;
    if ((tl_ops[e->op].flags & IMPURE) || e->op == TL_OP_RETURN || e->op == TL_OP_TUPLE_MAKE ||
        e->op == TL_OP_TUPLE_EXTRACT || e->op == TL_OP_DROP)
      return false;
    if (e->op == TL_OP_LOCAL_GET) TL_VEC_PUSH(&c->reads, uint32_t, e->imm.index);
    if (tl_ops[e->op].flags & TL_F_READS_GLOBAL) c->reads_global = true;
    for (uint32_t i = 0; i < e->nkid; i++) {
      if (!e->kid[i]) return false;
      TL_VEC_PUSH(st, tl_expr *, e->kid[i]);
    }
  }
  return true;
}

static bool same_imm(const tl_expr *a, const tl_expr *b) {
  switch (tl_ops[a->op].imm) {
  case TL_IMM_NONE: case TL_IMM_FENCE: return true;
  case TL_IMM_I32: return a->imm.i32 == b->imm.i32;
  case TL_IMM_I64: return a->imm.i64 == b->imm.i64;
  case TL_IMM_F32: return a->imm.f32 == b->imm.f32;
  case TL_IMM_F64: return a->imm.f64 == b->imm.f64;
  case TL_IMM_V128: case TL_IMM_SHUFFLE: return !memcmp(a->imm.v128, b->imm.v128, 16);
  case TL_IMM_LANE: return a->imm.mem.lane == b->imm.mem.lane;
  case TL_IMM_LOCAL: case TL_IMM_GLOBAL: case TL_IMM_FUNC: case TL_IMM_REFTYPE:
  case TL_IMM_SELECT_T: case TL_IMM_TUPLE_INDEX:
    return a->imm.index == b->imm.index;
  default: return false;
  }
}

/* Structural equality of two small pure trees (size-bounded by the caller). */
static bool equal(const tl_expr *a, const tl_expr *b, uint32_t depth) {
  if (a->op != b->op || a->type != b->type || a->nkid != b->nkid || !same_imm(a, b)) return false;
  if (depth > MAX_EXPR) return false;
  for (uint32_t i = 0; i < a->nkid; i++)
    if (!equal(a->kid[i], b->kid[i], depth + 1)) return false; /* depth-bounded by MAX_EXPR */
  return true;
}

static bool in_reads(cse_ctx *c, uint32_t x) {
  for (size_t i = 0; i < c->reads.n; i++)
    if (TL_VEC_AT(&c->reads, uint32_t, i) == x) return true;
  return false;
}

static void scan(cse_ctx *c, tl_expr *list, uint32_t i, uint32_t x, tl_expr *v) {
  uint32_t budget = SCAN_BUDGET;
  tl_vec *st = &c->frames;
  for (uint32_t j = i + 1; j < list->nkid; j++) {
    st->n = 0;
    TL_VEC_PUSH(st, frame, ((frame){&list->kid[j], 0, false}));
    while (st->n) {
      frame *fr = &TL_VEC_AT(st, frame, st->n - 1);
      tl_expr *e = *fr->slot;
      if (fr->next == 0 && !fr->in_loop && e->op == v->op && equal(e, v, 0)) {
        *fr->slot = tl_make_local_get(c->m, c->f, x);
        c->changed = true;
        st->n--;
        continue;
      }
      if (fr->next < e->nkid) {
        uint32_t k = fr->next++;
        bool in_loop = fr->in_loop || e->op == TL_OP_LOOP; /* before the push moves fr */
        if (e->kid[k]) TL_VEC_PUSH(st, frame, ((frame){&e->kid[k], 0, in_loop}));
        continue;
      }
      st->n--;
      if (!budget--) return;
      if ((e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE) &&
          (e->imm.index == x || in_reads(c, e->imm.index)))
        return;
      if (c->reads_global && (tl_ops[e->op].flags & (TL_F_WRITES_GLOBAL | TL_F_CALL))) return;
    }
  }
}

static void do_list(cse_ctx *c, tl_expr *list) {
  for (uint32_t i = 0; i + 1 < list->nkid; i++) {
    tl_expr *s = list->kid[i];
    if (s->op != TL_OP_LOCAL_SET || tl_type_is_tuple(c->f->local[s->imm.index])) continue;
    tl_expr *v = s->kid[0];
    if (!candidate(c, v) || in_reads(c, s->imm.index) || v->type != c->f->local[s->imm.index]) continue;
    scan(c, list, i, s->imm.index, v);
  }
}

static void visit(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) do_list(w->ctx, e);
}

tl_status tl_pass_local_cse(tl_pass_ctx *ctx, tl_func *f) {
  cse_ctx c = {ctx->m, f, {0}, {0}, {0}, false, 0, false};
  tl_walk_post(ctx->m, f, &f->body, visit, &c);
  tl_vec_free(&c.st), tl_vec_free(&c.frames), tl_vec_free(&c.reads);
  if (c.changed) tl_func_refinalize(ctx->m, f);
  return TL_OK;
}
