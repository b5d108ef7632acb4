/* simplify_locals.c — simplify-locals and its variants (-notee,
 * -nostructure, -notee-nostructure, -nonesting).
 * Sinking: a local.set in a block/loop list moves into the first later get
 * of its local when that get is reached in straight-line code (only through
 * non-loop nodes, blocks, and if conditions) and nothing evaluated in
 * between conflicts with the value (effects.c-style flags, locals by index).
 * A single-use get becomes the value; with several gets it becomes a
 * local.tee (not in -notee, and only when nothing in between branches).
 * The first round sinks single uses only (as Binaryen's first cycle): a
 * value that reads x can then sink past a get of x before x's set is
 * teed into that get (store (get a) (get v) -> store (tee a A) (V[get a])).
 * Structure (not in -nostructure): an if whose arms both end in a set of the
 * same local becomes a set of an if with a result; a block nothing branches
 * to that ends in a set becomes a set of the block; so does a labeled block
 * whose branches (br / br_if, no br_table) each follow a set of the same
 * local, the branches then carrying the values (a labeled if likewise; for
 * a br_if or the block's end, the set of a constant or a get may be a few
 * kids earlier when those kids neither touch the local nor branch nor
 * call; at the block's end, so may a set of another value that only
 * reads locals, past sets of others). A
 * one-armed if ending in a set of x becomes set x (if c a (get x)); a value
 * without effects may sink into such an else; at the end, such sets whose
 * value nothing took are turned back (they are 3 bytes bigger).
 * Sets of locals that are never read become drops of their values (or
 * nothing when the value has no effects). Tuple-typed locals are left alone.
 * -nonesting only sinks into a get that is the whole value of another set.
 * Assumes: valid IR with up-to-date types. Guarantees: the same behaviour,
 * valid IR (refinalized), linear work per round (scans are budgeted). */
#include "passes.h"

#include <assert.h>
#include <stdlib.h>

enum { LOOP_FX = 1u << 31, LOAD_TRAP = 1u << 30, SCAN_BUDGET = 256, ROUNDS = 8 };
/* TL_VEC_PUSH that calls tl_vec_grow only when the vector is full */
#define PUSH(v, T, x) do { if ((v)->n == (v)->cap) tl_vec_grow((v), sizeof(T), (v)->n + 1); \
    ((T *)(v)->p)[(v)->n++] = (x); } while (0)
static const uint32_t SIDE = TL_F_WRITES_MEM | TL_F_WRITES_TABLE | TL_F_WRITES_GLOBAL | TL_F_CALL |
                             TL_F_TRAPS | TL_F_ATOMIC | TL_F_BRANCH | TL_F_NORETURN | LOOP_FX | LOAD_TRAP;

typedef struct {
  tl_module *m;
  tl_func *f;
  bool tee, structure, nesting;
  bool eh;                  /* f has exception handling (tl_expr_has_eh) */
  bool first;               /* the first round: single uses only, no tees */
  bool deferred;            /* the first round left a tee for the next */
  bool changed;
  bool retype;              /* a node was replaced by one of another type */
  uint32_t nif1;            /* one-armed ifs given a result (undone at the end if unused) */
  bool cand;                /* a branched block/if ends in a set: try block returns */
  uint32_t *nget;           /* gets per local */
  uint32_t *nbr;            /* branches per label (structure only) */
  tl_vec reads, writes;     /* locals the value being sunk reads / writes */
  tl_vec stack;             /* scan frames */
} sl_ctx;

/* opaque: may not run (a loop, an if arm); then: in the then arm of an if
 * whose else is the target (else_get), which runs only when the value is not
 * needed, so only reads of x not after a set of x there and branches matter
 * (1: straight-line in that arm, 2: in a loop or if arm inside it) */
typedef struct { tl_expr **slot; uint32_t next; bool opaque; uint8_t then; } frame;

/* A plain memory load's only side effect is its out-of-bounds trap
 * (LOAD_TRAP): two of them may swap, the trap (and its message) is the same.
 * In a function with exception handling, whatever may throw (a call, a
 * throw) may also branch to a catch of this function that reads locals:
 * it counts as a branch, so no set moves past it where other gets of its
 * local exist, and no value that writes locals (or may throw) moves past
 * it (or past sets of other locals). */
static uint32_t own_flags(const sl_ctx *c, const tl_expr *e) {
  uint32_t fl = tl_ops[e->op].flags;
  if (e->op == TL_OP_LOOP) fl |= LOOP_FX;
  if (c->eh && (fl & (TL_F_CALL | TL_F_THROWS))) fl |= TL_F_BRANCH;
  const uint32_t load = TL_F_TRAPS | TL_F_READS_MEM;
  if ((fl & (load | TL_F_WRITES_MEM | TL_F_ATOMIC | TL_F_CALL)) == load) fl = (fl & ~TL_F_TRAPS) | LOAD_TRAP;
  return fl;
}

static bool conflict(uint32_t a, uint32_t b) {
  if ((a & SIDE) && (b & SIDE) && ((a | b) & SIDE & ~LOAD_TRAP)) return true;
  /* a value that sets other locals cannot move past a branch: where it
   * goes those locals may be read without the value having run */
  if ((a & TL_F_WRITES_LOCAL) && (b & (TL_F_BRANCH | TL_F_NORETURN))) return true;
  /* nor can a value that branches move past sets of other locals: when it
   * branches they would not have run, and the target may read them */
  if ((a & TL_F_BRANCH) && (b & TL_F_WRITES_LOCAL)) return true;
  const uint32_t all = TL_F_CALL | TL_F_ATOMIC;
  struct { uint32_t r, w; } kinds[] = {{TL_F_READS_MEM, TL_F_WRITES_MEM},
                                        {TL_F_READS_TABLE, TL_F_WRITES_TABLE},
                                        {TL_F_READS_GLOBAL, TL_F_WRITES_GLOBAL}};
  for (int k = 0; k < 3; k++) {
    uint32_t r = kinds[k].r | kinds[k].w | all, w = kinds[k].w | all;
    if (((a & w) && (b & r)) || ((b & w) && (a & r))) return true;
  }
  return false;
}

/* A try_table clause: a branch to imm.idx2.a when it catches. */
static bool is_clause(const tl_expr *e) { return tl_ops[e->op].imm == TL_IMM_CLAUSE; }

static bool in_vec(const tl_vec *v, uint32_t x) {
  for (size_t i = 0; i < v->n; i++)
    if (TL_VEC_AT(v, uint32_t, i) == x) return true;
  return false;
}

static bool is_set(const tl_expr *e) { return e->op == TL_OP_LOCAL_SET || e->op == TL_OP_LOCAL_TEE; }

static inline void sum_node(sl_ctx *c, const tl_expr *e, uint32_t *flags) {
  *flags |= own_flags(c, e);
  if (e->op == TL_OP_LOCAL_GET) PUSH(&c->reads, uint32_t, e->imm.index);
  uint32_t w = tl_written_local(e);
  if (w != TL_NO_INDEX) PUSH(&c->writes, uint32_t, w);
}

/* Kid k of e runs only on some paths, or is where a value that may throw
 * would be caught by another handler: a catch arm, or the body of a try or
 * try_table for a value that may throw (aflags). */
static bool eh_opaque(const tl_expr *e, uint32_t k, uint32_t aflags) {
  if (e->op == TL_OP_TRY) return k >= 1 || (aflags & (TL_F_CALL | TL_F_THROWS));
  return e->op == TL_OP_TRY_TABLE && k == 0 && (aflags & (TL_F_CALL | TL_F_THROWS));
}

/* Flags and locals of the value; false if it is too big to bother. */
static bool summarize(sl_ctx *c, tl_expr *v, uint32_t *flags) {
  c->reads.n = c->writes.n = c->stack.n = 0;
  *flags = 0;
  uint32_t budget = SCAN_BUDGET;
  tl_vec *st = &c->stack;
  PUSH(st, frame, ((frame){NULL, 0, false, 0}));
  TL_VEC_AT(st, frame, 0).slot = &v;
  while (st->n) {
    tl_expr *e = *TL_VEC_AT(st, frame, --st->n).slot;
    if (!budget--) return false;
    sum_node(c, e, flags);
    /* leaves are taken here, not pushed: the result is the same in any
     * order (flags and the two sets; false when more than the budget) */
    for (uint32_t i = 0; i < e->nkid; i++) {
      tl_expr *k = e->kid[i];
      if (!k) continue;
      if (k->nkid) {
        PUSH(st, frame, ((frame){&e->kid[i], 0, false, 0}));
      } else {
        if (!budget--) return false;
        sum_node(c, k, flags);
      }
    }
  }
  return true;
}

/* Arm k of if e is an else that is just a get of x (a one-armed if given a
 * result): a value with no effects may sink into it, running only there. */
static bool else_get(const tl_expr *e, uint32_t k, uint32_t x, uint32_t aflags) {
  return k == 2 && e->kid[2]->op == TL_OP_LOCAL_GET && e->kid[2]->imm.index == x &&
         !(aflags & (SIDE | TL_F_WRITES_LOCAL));
}

/* A branch whose only target is l. */
static bool only_to(const tl_expr *e, uint32_t l) {
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) return e->imm.label == l;
  if (e->op != TL_OP_BR_TABLE || e->imm.table->def != l) return false;
  for (uint32_t i = 0; i < e->imm.table->n; i++)
    if (e->imm.table->targets[i] != l) return false;
  return true;
}

/* Whether the get at slot (the frames above it are on st) is the else of
 * an if: 1 if the if's value is then set to x, so the value sinks without a
 * tee (it would be dead; a branch out of the then arm is ruled out by
 * find_target); -1 if not (a tee would set x on that path only); else 0. */
static int else_target(const tl_vec *st, tl_expr **slot, uint32_t x) {
  if (!st->n) return 0;
  const tl_expr *p = *TL_VEC_AT(st, frame, st->n - 1).slot;
  if (p->op != TL_OP_IF || slot != &p->kid[2]) return 0;
  const tl_expr *g = st->n > 1 ? *TL_VEC_AT(st, frame, st->n - 2).slot : NULL;
  return g && is_set(g) && g->imm.index == x ? 1 : -1;
}

/* The slot of the first get of x after list->kid[i] that a set there can
 * sink into, or NULL. *plain: the value goes there without a tee even
 * though x has other gets. */
static tl_expr **find_target(sl_ctx *c, tl_expr *list, uint32_t i, uint32_t x, uint32_t aflags,
                             bool tee_ok, bool *plain) {
  uint32_t budget = SCAN_BUDGET, bflags = 0;
  bool covered = false; /* x was set in the then arm (see frame) */
  uint32_t then_label = TL_NO_LABEL;
  tl_vec *st = &c->stack;
  for (uint32_t j = i + 1; j < list->nkid; j++) {
    st->n = 0;
    PUSH(st, frame, ((frame){&list->kid[j], 0, false, 0}));
    while (st->n) {
      frame *fr = &TL_VEC_AT(st, frame, st->n - 1), done;
      tl_expr *e = *fr->slot;
      if (fr->next < e->nkid) {
        uint32_t k = fr->next++;
        if (!e->kid[k]) continue;
        bool op = fr->opaque || e->op == TL_OP_LOOP || (e->op == TL_OP_IF && k >= 1 && !else_get(e, k, x, aflags)) ||
                  eh_opaque(e, k, aflags);
        uint8_t then = 0;
        if (fr->then) then = fr->then == 2 || e->op == TL_OP_LOOP || (e->op == TL_OP_IF && k >= 1) ? 2 : 1;
        else if (e->op == TL_OP_IF && k == 1 && e->nkid == 3 && else_get(e, 2, x, aflags))
          then = 1, then_label = e->imm.block.label;
        done = (frame){&e->kid[k], 0, op, then};
        if (e->kid[k]->nkid) {
          PUSH(st, frame, done);
          continue;
        }
        e = e->kid[k]; /* a leaf: done now, as if pushed and popped (e's frame is the top) */
      } else {
        done = *fr;
        st->n--;
      }
      if (!budget--) return NULL;
      if (done.then) {
        if (e->op == TL_OP_LOCAL_GET && e->imm.index == x && !covered) return NULL;
        if (is_set(e) && e->imm.index == x && done.then == 1) covered = true;
        /* x is read after the if only past its end or a branch out */
        if (c->nget[x] > 1 && (own_flags(c, e) & TL_F_BRANCH) && !only_to(e, then_label)) return NULL;
        continue;
      }
      if (e->op == TL_OP_LOCAL_GET && e->imm.index == x) {
        if (done.opaque) return NULL;
        if (!c->nesting) {
          tl_expr *p = st->n ? *TL_VEC_AT(st, frame, st->n - 1).slot : NULL;
          if (!p || p->op != TL_OP_LOCAL_SET) return NULL;
        }
        int et = else_target(st, done.slot, x);
        *plain = et > 0;
        if (c->nget[x] > 1 && !et && !tee_ok && c->tee) c->deferred = true; /* a tee next round */
        if (c->nget[x] > 1 && (et < 0 || (!et && !tee_ok))) return NULL;
        return done.slot;
      }
      if (e->op == TL_OP_LOCAL_GET && in_vec(&c->writes, e->imm.index)) return NULL;
      uint32_t w = tl_written_local(e);
      if (w != TL_NO_INDEX && (w == x || in_vec(&c->reads, w) || in_vec(&c->writes, w))) return NULL;
      /* both tests depend on bflags only (and are false for 0) */
      uint32_t nb = bflags | own_flags(c, e);
      if (nb == bflags) continue;
      bflags = nb;
      if (c->nget[x] > 1 && (bflags & (TL_F_BRANCH | TL_F_NORETURN))) return NULL;
      if (conflict(aflags, bflags)) return NULL;
    }
  }
  return NULL;
}

static void sink_list(sl_ctx *c, tl_expr *list) {
  bool nop = false; /* the list holds a nop (made here or before): compact it */
  for (uint32_t i = 0; i + 1 < list->nkid; i++) {
    tl_expr *set = list->kid[i];
    if (set->op != TL_OP_LOCAL_SET) {
      nop |= set->op == TL_OP_NOP;
      continue;
    }
    uint32_t x = set->imm.index;
    tl_expr *v = set->kid[0];
    if (!tl_type_is_concrete(v->type) || tl_type_is_tuple(c->f->local[x]) || !c->nget[x]) continue;
    uint32_t aflags;
    if (!summarize(c, v, &aflags)) continue;
    bool tee_ok = c->tee && !c->first;
    bool plain = false;
    tl_expr **slot = find_target(c, list, i, x, aflags, tee_ok, &plain);
    if (!slot) continue;
    if (c->nget[x] > 1 && !plain) {
      set->op = TL_OP_LOCAL_TEE;
      tl_expr_finalize(c->m, c->f, set);
      *slot = set;
    } else {
      *slot = v;
      c->retype |= v->type != c->f->local[x]; /* GC: a subtype of the get's */
    }
    c->nget[x]--;
    list->kid[i] = tl_make_nop(c->m);
    c->changed = nop = true;
  }
  if (!nop && (!list->nkid || list->kid[list->nkid - 1]->op != TL_OP_NOP)) return;
  uint32_t out = 0;
  for (uint32_t i = 0; i < list->nkid; i++)
    if (list->kid[i]->op != TL_OP_NOP) list->kid[out++] = list->kid[i];
  list->nkid = out;
}

/* The set ending an arm or a list, or NULL. */
static tl_expr **last_set(tl_expr **arm) {
  tl_expr *a = *arm;
  if (a->op == TL_OP_BLOCK && a->imm.block.label == TL_NO_LABEL && a->nkid) arm = &a->kid[a->nkid - 1];
  return (*arm)->op == TL_OP_LOCAL_SET ? arm : NULL;
}

static bool unbranched(sl_ctx *c, const tl_expr *e) {
  uint32_t l = e->imm.block.label;
  return l == TL_NO_LABEL || (l < c->f->nlabel && !c->nbr[l]);
}

/* if c (...; set x a) (...; set x b)  ->  set x (if (result T) c (...; a) (...; b)) */
static tl_expr *structure_if(sl_ctx *c, tl_expr *e) {
  if (e->nkid != 3 || e->type != TL_NONE || !unbranched(c, e)) return NULL;
  tl_expr **s1 = last_set(&e->kid[1]), **s2 = last_set(&e->kid[2]);
  if (!s1 || !s2 || (*s1)->imm.index != (*s2)->imm.index) return NULL;
  uint32_t x = (*s1)->imm.index;
  if (tl_type_is_tuple(c->f->local[x])) return NULL;
  tl_expr *set = *s1;
  *s1 = set->kid[0];
  *s2 = (*s2)->kid[0];
  for (int k = 1; k <= 2; k++)
    if (e->kid[k]->op == TL_OP_BLOCK) tl_expr_finalize(c->m, c->f, e->kid[k]);
  e->imm.block.bt = TL_NO_INDEX;
  tl_block_finalize(c->m, e, TL_UNREACHABLE); /* unbranched: no walk */
  /* both values were set to x: their lub is under its type (GC: maybe
   * strictly), and x's set takes it */
  assert(tl_type_sub(c->m, e->type, c->f->local[x]));
  set->kid[0] = e;
  tl_expr_finalize(c->m, c->f, set);
  return set;
}

/* if c (...; set x a)  ->  set x (if (result T) c (...; a) (get x)) */
static tl_expr *structure_if1(sl_ctx *c, tl_expr *e) {
  if (e->nkid != 2 || e->type != TL_NONE || !unbranched(c, e)) return NULL;
  tl_expr **s = last_set(&e->kid[1]);
  if (!s) return NULL;
  uint32_t x = (*s)->imm.index;
  if (tl_type_is_tuple(c->f->local[x]) || (*s)->kid[0]->type != c->f->local[x]) return NULL;
  tl_expr *set = *s;
  *s = set->kid[0];
  if (e->kid[1]->op == TL_OP_BLOCK) tl_expr_finalize(c->m, c->f, e->kid[1]);
  tl_expr_push_kid(c->m, e, tl_make_local_get(c->m, c->f, x));
  c->nget[x]++, c->nif1++;
  e->imm.block.bt = TL_NO_INDEX;
  tl_block_finalize(c->m, e, TL_UNREACHABLE);
  set->kid[0] = e;
  tl_expr_finalize(c->m, c->f, set);
  return set;
}

/* The inverse, when the set stayed a set (nothing took the if's value):
 * set x (if c (...; a) (get x))  ->  if c (...; set x a), 3 bytes smaller. */
static void unif1_visit(tl_walk *w, tl_expr **slot) {
  sl_ctx *c = w->ctx;
  tl_expr *set = *slot, *e = set->op == TL_OP_LOCAL_SET ? set->kid[0] : NULL;
  if (!e || e->op != TL_OP_IF || e->nkid != 3 || !unbranched(c, e)) return;
  uint32_t x = set->imm.index;
  tl_expr *get = e->kid[2], **arm = &e->kid[1];
  if (get->op != TL_OP_LOCAL_GET || get->imm.index != x || (*arm)->type != c->f->local[x]) return;
  tl_expr *a = *arm;
  if (a->op == TL_OP_BLOCK && a->imm.block.label == TL_NO_LABEL && a->nkid) arm = &a->kid[a->nkid - 1];
  set->kid[0] = *arm;
  tl_expr_finalize(c->m, c->f, set);
  *arm = set;
  if (a->op == TL_OP_BLOCK) tl_expr_finalize(c->m, c->f, a);
  e->nkid = 2;
  tl_block_finalize(c->m, e, TL_UNREACHABLE);
  c->retype |= e->type != set->type;
  *slot = e;
}

/* block (...; set x a)  ->  set x (block (result T) ...; a) */
static tl_expr *structure_block(sl_ctx *c, tl_expr *e, bool root) {
  if (root || e->type != TL_NONE || !e->nkid || !unbranched(c, e)) return NULL;
  tl_expr **s = &e->kid[e->nkid - 1];
  if ((*s)->op != TL_OP_LOCAL_SET || tl_type_is_tuple(c->f->local[(*s)->imm.index])) return NULL;
  if (!tl_type_is_concrete((*s)->kid[0]->type)) return NULL;
  tl_expr *set = *s;
  *s = set->kid[0];
  e->imm.block.bt = TL_NO_INDEX;
  tl_block_finalize(c->m, e, TL_UNREACHABLE);
  set->kid[0] = e;
  tl_expr_finalize(c->m, c->f, set);
  return set;
}

/* Block returns with branches (structure only). A labeled block that ends
 * in a set of x, where every branch to it is a br / br_if without a value
 * right after a set of x in the same list, becomes a set of x of a block
 * with a result: the br carries the set's value; the br_if carries a tee of
 * it (the fall-through path still sees x) and is dropped. No br_table. */
typedef struct { tl_expr *list, *br; uint32_t i, j, next; } brec; /* br at kid i, its set at kid j */

typedef struct {
  sl_ctx *c;
  uint32_t *nbr, *nrec, *head; /* per label: branches, recorded ones, first record */
  tl_vec recs;                 /* brec */
  tl_vec cands;                /* tl_expr **: the labeled blocks and ifs, pre-order */
} br_ctx;

static bool is_plain_set(const sl_ctx *c, const tl_expr *e) {
  return e->op == TL_OP_LOCAL_SET && !tl_type_is_tuple(c->f->local[e->imm.index]) &&
         e->kid[0]->type == c->f->local[e->imm.index];
}

/* Whether the kids of list between j and i (exclusive) let the set at j
 * move down to the branch at i: its value only reads locals (no memory,
 * globals, calls or traps), and those kids neither read nor write x, nor
 * write a local the value reads, nor branch, call or end the function (a
 * path leaving from there would miss the set). */
static bool set_moves(sl_ctx *c, tl_expr *list, uint32_t j, uint32_t i) {
  const tl_expr *set = list->kid[j];
  uint32_t x = set->imm.index, vfl, budget = SCAN_BUDGET;
  const uint32_t reads = TL_F_READS_MEM | TL_F_READS_TABLE | TL_F_READS_GLOBAL;
  if (!summarize(c, set->kid[0], &vfl) || (vfl & (SIDE | reads | TL_F_WRITES_LOCAL))) return false;
  tl_vec *st = &c->stack;
  st->n = 0;
  for (uint32_t k = j + 1; k < i; k++) PUSH(st, frame, ((frame){&list->kid[k], 0, false, 0}));
  while (st->n) {
    const tl_expr *e = *TL_VEC_AT(st, frame, --st->n).slot;
    if (!budget--) return false;
    if (own_flags(c, e) & (TL_F_BRANCH | TL_F_NORETURN | TL_F_CALL | LOOP_FX)) return false;
    uint32_t w = tl_written_local(e);
    if ((e->op == TL_OP_LOCAL_GET && e->imm.index == x) || w == x) return false;
    if (w != TL_NO_INDEX && in_vec(&c->reads, w)) return false;
    for (uint32_t k = 0; k < e->nkid; k++)
      if (e->kid[k]) PUSH(st, frame, ((frame){&e->kid[k], 0, false, 0}));
  }
  return true;
}

/* The kid of list that the branch at kid i (or the end of the list, i ==
 * nkid) takes its set from: the set right before it, or when early, the
 * nearest earlier set of a constant or a get that can move down to it (see
 * set_moves); UINT32_MAX if none. */
enum { SET_LOOKBACK = 8 };
static uint32_t branch_set(sl_ctx *c, tl_expr *list, uint32_t i, bool early) {
  if (is_plain_set(c, list->kid[i - 1])) return i - 1;
  if (!early) return UINT32_MAX;
  for (uint32_t j = i - 1; j-- > 0 && i - j <= SET_LOOKBACK;) {
    const tl_expr *s = list->kid[j];
    if (!is_plain_set(c, s)) continue;
    tl_op vop = s->kid[0]->op;
    bool movable = vop == TL_OP_LOCAL_GET || vop == TL_OP_I32_CONST || vop == TL_OP_I64_CONST ||
                   vop == TL_OP_F32_CONST || vop == TL_OP_F64_CONST;
    return movable && set_moves(c, list, j, i) ? j : UINT32_MAX;
  }
  return UINT32_MAX;
}

static void rec_node(br_ctx *b, tl_expr *e) {
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || tl_op_is_br_on(e->op)) { /* br_on_*: never recorded */
    b->nbr[e->imm.label]++;
  } else if (e->op == TL_OP_BR_TABLE) {
    b->nbr[e->imm.table->def] = UINT32_MAX / 2; /* never all recorded */
    for (uint32_t i = 0; i < e->imm.table->n; i++) b->nbr[e->imm.table->targets[i]] = UINT32_MAX / 2;
  } else if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) {
    for (uint32_t i = 1; i < e->nkid; i++) {
      tl_expr *br = e->kid[i];
      bool plain = (br->op == TL_OP_BR && !br->nkid) || (br->op == TL_OP_BR_IF && br->nkid == 1);
      /* not for a br: an arm [..., set, ..., br] is a tail code-folding
       * can merge with equal ones, which a br with a value stops (sql-wasm
       * -Os: +23 B) */
      uint32_t j = plain ? branch_set(b->c, e, i, br->op == TL_OP_BR_IF) : UINT32_MAX;
      if (j == UINT32_MAX) continue;
      uint32_t l = br->imm.label;
      PUSH(&b->recs, brec, ((brec){e, br, i, j, b->head[l]}));
      b->head[l] = (uint32_t)b->recs.n - 1;
      b->nrec[l]++;
    }
  }
}

/* Whether a and b may be the same expression (op, type, immediates, kids);
 * true when they are too big to tell within the fixed stack. */
static bool maybe_same(const tl_expr *a, const tl_expr *b) {
  enum { CAP = 64 };
  const tl_expr *st[CAP];
  uint32_t n = 0;
  st[n++] = a, st[n++] = b;
  while (n) {
    b = st[--n], a = st[--n];
    if (a->op != b->op || a->type != b->type || a->nkid != b->nkid) return false;
    switch (tl_ops[a->op].imm) {
    case TL_IMM_NONE: break;
    case TL_IMM_I32: if (a->imm.i32 != b->imm.i32) return false; break;
    case TL_IMM_I64: if (a->imm.i64 != b->imm.i64) return false; break;
    case TL_IMM_F32: if (a->imm.f32 != b->imm.f32) return false; break;
    case TL_IMM_F64: if (a->imm.f64 != b->imm.f64) return false; break;
    case TL_IMM_LOCAL: case TL_IMM_GLOBAL: if (a->imm.index != b->imm.index) return false; break;
    default: return false;
    }
    for (uint32_t k = 0; k < a->nkid; k++) {
      if (!a->kid[k] || !b->kid[k]) return false;
      if (n + 2 > CAP) return true;
      st[n++] = a->kid[k], st[n++] = b->kid[k];
    }
  }
  return true;
}

/* The set of x ending block e's list: its last kid, or the nearest set of
 * x a few kids before the end whose value can move there (set_moves): a
 * constant or a get with no set of another local after it (a copy past
 * those is better left for coalescing: web-tree-sitter's printf_core),
 * or any other value that the kid before the set (or one of its operands)
 * does not compute too: there the writer's stack code shares the two with
 * a tee (web-tree-sitter's printf_core again, -O2: +10 B). __fwritex's
 * line-buffer split, inlined or not: -22 B in every c-O0 program.
 * UINT32_MAX if none. */
static uint32_t block_end_set(sl_ctx *c, tl_expr *e, uint32_t x) {
  uint32_t i = e->nkid;
  bool other = false;
  for (uint32_t j = i; j-- > 0 && i - j <= SET_LOOKBACK;) {
    const tl_expr *s = e->kid[j];
    if (!is_plain_set(c, s)) continue;
    if (s->imm.index != x) {
      other = true;
      continue;
    }
    if (j == i - 1) return j;
    tl_op vop = s->kid[0]->op;
    bool movable = vop == TL_OP_LOCAL_GET || vop == TL_OP_I32_CONST || vop == TL_OP_I64_CONST ||
                   vop == TL_OP_F32_CONST || vop == TL_OP_F64_CONST;
    if (movable && other) return UINT32_MAX;
    if (!set_moves(c, e, j, i)) return UINT32_MAX;
    if (movable || !j) return j;
    const tl_expr *prev = e->kid[j - 1], *v = s->kid[0];
    bool dup = maybe_same(prev, v);
    for (uint32_t k = 0; k < prev->nkid && !dup; k++) dup = prev->kid[k] && maybe_same(prev->kid[k], v);
    return dup ? UINT32_MAX : j;
  }
  return UINT32_MAX;
}

/* The sets ending e (a block's list ending in a set of x, or each arm of
 * an if), all of one local; how many, or 0. */
static int end_sets(sl_ctx *c, tl_expr *e, uint32_t x, tl_expr ***out) {
  int n = 0;
  if (e->op == TL_OP_BLOCK) {
    uint32_t j = block_end_set(c, e, x);
    if (j == UINT32_MAX) return 0;
    out[n++] = &e->kid[j];
  } else {
    for (uint32_t k = 1; k < e->nkid; k++)
      if (!(out[n++] = last_set(&e->kid[k]))) return 0;
  }
  for (int i = 0; i < n; i++)
    if (!is_plain_set(c, *out[i]) || (*out[i])->imm.index != (*out[0])->imm.index) return 0;
  return n;
}

static tl_expr *block_return(br_ctx *b, tl_expr *e) {
  sl_ctx *c = b->c;
  uint32_t l = e->imm.block.label;
  tl_expr **ends[2];
  if (e->type != TL_NONE || l == TL_NO_LABEL || !b->nbr[l] || b->nbr[l] != b->nrec[l]) return NULL;
  brec *first = &TL_VEC_AT(&b->recs, brec, b->head[l]);
  int nend = end_sets(c, e, first->list->kid[first->j]->imm.index, ends);
  if (!nend) return NULL;
  tl_expr *last = *ends[0];
  uint32_t x = last->imm.index;
  for (uint32_t r = b->head[l]; r != UINT32_MAX; r = TL_VEC_AT(&b->recs, brec, r).next) {
    brec *rc = &TL_VEC_AT(&b->recs, brec, r);
    tl_expr *s = rc->list->kid[rc->j];
    if (rc->list->kid[rc->i] != rc->br || !is_plain_set(c, s) || s->imm.index != x) return NULL;
  }
  for (uint32_t r = b->head[l]; r != UINT32_MAX; r = TL_VEC_AT(&b->recs, brec, r).next) {
    brec *rc = &TL_VEC_AT(&b->recs, brec, r);
    tl_expr *s = rc->list->kid[rc->j], *br = rc->br;
    tl_expr *nb = tl_expr_new(c->m, br->op, br->nkid + 1);
    nb->imm = br->imm;
    if (br->op == TL_OP_BR) {
      nb->kid[0] = s->kid[0];
    } else {
      s->op = TL_OP_LOCAL_TEE;
      tl_expr_finalize(c->m, c->f, s);
      nb->kid[0] = s, nb->kid[1] = br->kid[0];
    }
    tl_expr_finalize(c->m, c->f, nb);
    rc->list->kid[rc->i] = br->op == TL_OP_BR ? nb : tl_make_drop(c->m, nb);
    rc->list->kid[rc->j] = tl_make_nop(c->m);
  }
  if (e->op == TL_OP_BLOCK && ends[0] != &e->kid[e->nkid - 1]) { /* an earlier set: its value goes last */
    *ends[0] = tl_make_nop(c->m);
    tl_expr_push_kid(c->m, e, last->kid[0]);
  } else {
    for (int i = 0; i < nend; i++) *ends[i] = (*ends[i])->kid[0];
  }
  if (e->op == TL_OP_IF) {
    for (uint32_t k = 1; k < e->nkid; k++)
      if (e->kid[k]->op == TL_OP_BLOCK) tl_expr_finalize(c->m, c->f, e->kid[k]);
    if (e->nkid == 2) tl_expr_push_kid(c->m, e, tl_make_local_get(c->m, c->f, x)), c->nget[x]++;
  }
  e->imm.block.bt = TL_NO_INDEX;
  tl_block_finalize(c->m, e, c->f->local[x]);
  last->kid[0] = e;
  tl_expr_finalize(c->m, c->f, last);
  return last;
}

/* Records the branches after sets (rec_node) and the slots of the labeled
 * blocks and ifs (but the body), in pre-order over an explicit stack. False
 * when out of memory. */
static bool rec_all(br_ctx *b, tl_func *f) {
  uint32_t cap = 64, n = 0;
  tl_expr ***st = tl_scratch_realloc(NULL, cap, sizeof *st);
  if (!st) return false;
  st[n++] = &f->body;
  while (n) {
    tl_expr **slot = st[--n], *e = *slot;
    rec_node(b, e);
    if ((e->op == TL_OP_BLOCK || e->op == TL_OP_IF) && e->imm.block.label != TL_NO_LABEL && slot != &f->body)
      PUSH(&b->cands, tl_expr **, slot);
    if (n + e->nkid > cap) {
      uint32_t ncap = 2 * (n + e->nkid);
      tl_expr ***p = tl_scratch_realloc(st, ncap, sizeof *st);
      if (!p) {
        tl_free(st);
        return false;
      }
      st = p, cap = ncap;
    }
    /* a leaf is only counted (a br without a value; rec_node does nothing
     * else with leaves, and an empty block is no candidate: nothing ends it
     * in a set), so its place in the order does not matter */
    for (uint32_t i = e->nkid; i-- > 0;) {
      tl_expr *k = e->kid[i];
      if (k && k->nkid) st[n++] = &e->kid[i];
      else if (k && k->op == TL_OP_BR) b->nbr[k->imm.label]++;
      else if (k && is_clause(k)) b->nbr[k->imm.idx2.a] = UINT32_MAX / 2; /* never recorded */
    }
  }
  tl_free(st);
  return true;
}

/* False when out of memory (f unchanged by it). */
static bool block_returns(sl_ctx *c) {
  tl_func *f = c->f;
  if (f->nlabel < 2) return true;
  uint32_t *per = tl_scratch_calloc(3 * (size_t)f->nlabel, sizeof(uint32_t)); /* nbr, nrec, head */
  if (!per) return false;
  br_ctx b = {c, per, per + f->nlabel, per + 2 * (size_t)f->nlabel, {0}, {0}};
  for (uint32_t l = 0; l < f->nlabel; l++) b.head[l] = UINT32_MAX;
  bool ok = rec_all(&b, f);
  bool before = c->changed;
  c->changed = false;
  bool any = false;
  for (uint32_t l = 0; l < f->nlabel && !any && ok; l++) any = b.nbr[l] && b.nbr[l] == b.nrec[l];
  /* Inner blocks first, as a post-order walk would take them: reverse
   * pre-order. A rewrite changes only its own slot and what is inside its
   * block (the branches to it), so the slots of the blocks around it, and
   * of those beside it, stay where they were. */
  for (size_t k = any ? b.cands.n : 0; k-- > 0;) {
    tl_expr **slot = TL_VEC_AT(&b.cands, tl_expr **, k);
    tl_expr *r = block_return(&b, *slot);
    if (r) *slot = r, c->changed = true;
  }
  if (c->changed) tl_func_refinalize(c->m, f);
  c->changed |= before;
  tl_free(per);
  tl_vec_free(&b.recs), tl_vec_free(&b.cands);
  return ok;
}

/* Whether v has effects (a side effect or a local write anywhere in it). */
static bool has_fx(sl_ctx *c, tl_expr *v) {
  tl_vec *st = &c->stack;
  st->n = 0;
  PUSH(st, frame, ((frame){NULL, 0, false, 0}));
  TL_VEC_AT(st, frame, 0).slot = &v;
  while (st->n) {
    tl_expr *e = *TL_VEC_AT(st, frame, --st->n).slot;
    if ((own_flags(c, e) & SIDE) || tl_written_local(e) != TL_NO_INDEX) return true;
    for (uint32_t i = 0; i < e->nkid; i++)
      if (e->kid[i]) PUSH(st, frame, ((frame){&e->kid[i], 0, false, 0}));
  }
  return false;
}

/* The gets of a value that goes away leave the counts. */
static void uncount_visit(tl_walk *w, tl_expr **slot) {
  sl_ctx *c = w->ctx;
  if ((*slot)->op == TL_OP_LOCAL_GET) c->nget[(*slot)->imm.index]--;
}

/* Called only on blocks, loops, ifs and local sets / tees (the walk
 * skips every other node: nothing here acts on them). */
static void sl_visit(tl_walk *w, tl_expr **slot) {
  sl_ctx *c = w->ctx;
  tl_expr *e = *slot;
  tl_type before = e->type;
  if (e->op == TL_OP_BLOCK || e->op == TL_OP_LOOP) sink_list(c, e);
  if (c->structure) {
    if ((e->op == TL_OP_BLOCK || e->op == TL_OP_IF) && e->type == TL_NONE && !unbranched(c, e)) {
      if (e->op == TL_OP_IF) c->cand |= last_set(&e->kid[1]) != NULL;
      else c->cand |= e->nkid && branch_set(c, e, e->nkid, true) != UINT32_MAX;
    }
    tl_expr *r = NULL;
    if (e->op == TL_OP_IF) r = e->nkid == 2 ? structure_if1(c, e) : structure_if(c, e);
    else if (e->op == TL_OP_BLOCK) r = structure_block(c, e, slot == &w->f->body);
    if (r) *slot = e = r, c->changed = true;
  }
  if (is_set(e) && !c->nget[e->imm.index] && !tl_type_is_tuple(c->f->local[e->imm.index])) {
    tl_expr *v = e->kid[0];
    if (e->op == TL_OP_LOCAL_TEE) *slot = v;
    else if (has_fx(c, v)) *slot = tl_make_drop(c->m, v);
    else *slot = tl_make_nop(c->m), tl_walk_post(c->m, c->f, &e->kid[0], uncount_visit, c);
    c->changed = true;
  }
  /* Sinking keeps every type but a GC refinement (a get becomes a value of
   * a subtype: retype set there) or becomes a tee of its type;
   * a replacement here may not (a set of an unreachable value). */
  c->retype |= (*slot)->type != before;
}

static inline void count_node(sl_ctx *c, const tl_expr *e) {
  if (e->op == TL_OP_LOCAL_GET) {
    c->nget[e->imm.index]++;
  } else if (c->nbr && (e->op == TL_OP_BR || e->op == TL_OP_BR_IF || tl_op_is_br_on(e->op))) {
    c->nbr[e->imm.label]++;
  } else if (c->nbr && e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++) c->nbr[e->imm.table->targets[i]]++;
    c->nbr[e->imm.table->def]++;
  } else if (c->nbr && is_clause(e)) {
    c->nbr[e->imm.idx2.a]++;
  }
}

/* Gets per local and, with structure, branches per label (as the labels
 * of every target of a br_table), in one pass over the nodes (counted as
 * they are pushed; leaves are not pushed). False when out of memory. */
static bool count_uses(sl_ctx *c) {
  uint32_t cap = 64, n = 0;
  tl_expr **st = tl_scratch_realloc(NULL, cap, sizeof *st);
  if (!st) return false;
  st[n++] = c->f->body;
  count_node(c, c->f->body);
  while (n) {
    tl_expr *e = st[--n];
    if (n + e->nkid > cap) {
      uint32_t ncap = 2 * (n + e->nkid);
      tl_expr **p = tl_scratch_realloc(st, ncap, sizeof *st);
      if (!p) {
        tl_free(st);
        return false;
      }
      st = p, cap = ncap;
    }
    for (uint32_t i = e->nkid; i-- > 0;) {
      tl_expr *k = e->kid[i];
      if (!k) continue;
      count_node(c, k);
      if (k->nkid) st[n++] = k;
    }
  }
  tl_free(st);
  return true;
}

static tl_status simplify(tl_pass_ctx *ctx, tl_func *f, bool tee, bool structure, bool nesting) {
  if (!f->body) return TL_OK;
  sl_ctx c = {.m = ctx->m, .f = f, .tee = tee, .structure = structure, .nesting = nesting,
              .eh = tl_expr_has_eh(f->body),
              .nget = tl_scratch_calloc((size_t)f->nlocal + 1, sizeof(uint32_t)),
              .nbr = structure ? tl_scratch_calloc((size_t)f->nlabel + 1, sizeof(uint32_t)) : NULL};
  /* Counted once: the rounds keep nget up to date, and branches are never
   * added or removed (only given values), so the label counts hold too. */
  if (!c.nget || (structure && !c.nbr) || !count_uses(&c)) {
    tl_free(c.nget), tl_free(c.nbr);
    return tl_nomem(ctx->err, "simplify-locals");
  }
  bool oom = false;
  for (int round = 0; round < ROUNDS; round++) {
    c.changed = c.cand = c.retype = false;
    c.first = round == 0, c.deferred = false;
    tl_walk_post_only(ctx->m, f, &f->body, sl_visit, &c, TL_F_CONTROL | TL_F_WRITES_LOCAL);
    if (c.retype) tl_func_refinalize(ctx->m, f);
    if (structure && c.cand && round + 1 < ROUNDS && !block_returns(&c)) {
      oom = true; /* the function is valid as this round left it */
      break;
    }
    if (!c.changed && !c.deferred) break;
  }
  if (c.nif1) {
    c.retype = false;
    tl_walk_post_only(ctx->m, f, &f->body, unif1_visit, &c, TL_F_WRITES_LOCAL);
    if (c.retype) tl_func_refinalize(ctx->m, f);
  }
  tl_free(c.nget), tl_free(c.nbr);
  tl_vec_free(&c.reads), tl_vec_free(&c.writes), tl_vec_free(&c.stack);
  return oom ? tl_nomem(ctx->err, "simplify-locals") : TL_OK;
}

tl_status tl_pass_simplify_locals(tl_pass_ctx *c, tl_func *f) { return simplify(c, f, true, true, true); }
tl_status tl_pass_simplify_locals_notee(tl_pass_ctx *c, tl_func *f) { return simplify(c, f, false, true, true); }
tl_status tl_pass_simplify_locals_nostructure(tl_pass_ctx *c, tl_func *f) { return simplify(c, f, true, false, true); }
tl_status tl_pass_simplify_locals_notee_nostructure(tl_pass_ctx *c, tl_func *f) {
  return simplify(c, f, false, false, true);
}
tl_status tl_pass_simplify_locals_nonesting(tl_pass_ctx *c, tl_func *f) { return simplify(c, f, false, false, false); }
