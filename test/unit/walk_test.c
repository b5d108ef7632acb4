/* walk_test.c — iterative walks (walk.c) and deep copy (expr.c): pre/post
 * order, skip, replacement through *slot, tl_walk_parent and depth, a
 * 1,000,000-deep chain on a 256 KiB thread stack, and tl_expr_copy giving
 * fresh labels to constructs defined inside the copy. */
#include "ir.h"

#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "check_main.h"

typedef struct {
  tl_expr *pre[32], *post[32], *pre_parent[32], *post_parent[32];
  uint32_t pre_depth[32];
  int npre, npost;
  tl_expr *skip_at;
} rec;

static void rec_pre(tl_walk *w, tl_expr **slot) {
  rec *r = w->ctx;
  r->pre_parent[r->npre] = tl_walk_parent(w, 1);
  r->pre_depth[r->npre] = w->depth;
  r->pre[r->npre++] = *slot;
  if (*slot == r->skip_at) w->skip = true;
}

static void rec_post(tl_walk *w, tl_expr **slot) {
  rec *r = w->ctx;
  r->post_parent[r->npost] = tl_walk_parent(w, 1);
  r->post[r->npost++] = *slot;
}

/* (block (i32.add c1 c2) (nop)) */
typedef struct { tl_module *m; tl_expr *blk, *add, *c1, *c2, *nop; } tree;

static tree mk_tree(void) {
  tree t;
  t.m = tl_module_alloc();
  t.c1 = tl_make_const_i32(t.m, 1);
  t.c2 = tl_make_const_i32(t.m, 2);
  t.add = tl_make_binary(t.m, TL_OP_I32_ADD, t.c1, t.c2);
  t.nop = tl_make_nop(t.m);
  tl_expr *k[2] = {tl_make_drop(t.m, t.add), t.nop};
  t.blk = tl_make_block(t.m, TL_OP_BLOCK, TL_NO_LABEL, k, 2);
  return t;
}

static void run(tl_expr **root, rec *r) {
  tl_walk w = {0};
  w.ctx = r;
  w.pre = rec_pre;
  w.post = rec_post;
  tl_walk_run(&w, root);
}

START_TEST(order) {
  tree t = mk_tree();
  tl_expr *drop = t.blk->kid[0];
  rec r = {0};
  run(&t.blk, &r);
  tl_expr *pre[] = {t.blk, drop, t.add, t.c1, t.c2, t.nop};
  tl_expr *post[] = {t.c1, t.c2, t.add, drop, t.nop, t.blk};
  ck_assert_int_eq(r.npre, 6);
  ck_assert_int_eq(r.npost, 6);
  for (int i = 0; i < 6; i++) {
    ck_assert_ptr_eq(r.pre[i], pre[i]);
    ck_assert_ptr_eq(r.post[i], post[i]);
  }
  /* parents and depths */
  tl_expr *pre_par[] = {NULL, t.blk, drop, t.add, t.add, t.blk};
  uint32_t depth[] = {0, 1, 2, 3, 3, 1};
  tl_expr *post_par[] = {t.add, t.add, drop, t.blk, t.blk, NULL};
  for (int i = 0; i < 6; i++) {
    ck_assert_ptr_eq(r.pre_parent[i], pre_par[i]);
    ck_assert_uint_eq(r.pre_depth[i], depth[i]);
    ck_assert_ptr_eq(r.post_parent[i], post_par[i]);
  }
  ck_assert_uint_eq(tl_expr_count(t.blk), 6);
  tl_module_destroy(t.m);
}
END_TEST

static void grand_pre(tl_walk *w, tl_expr **slot) {
  tl_expr **out = w->ctx;
  if ((*slot)->op == TL_OP_I32_CONST && !out[0]) {
    out[0] = tl_walk_parent(w, 2);
    out[1] = tl_walk_parent(w, 3);
    out[2] = tl_walk_parent(w, 4);
  }
}

START_TEST(parent_up) {
  tree t = mk_tree();
  tl_expr *out[3] = {0};
  tl_walk w = {0};
  w.ctx = out;
  w.pre = grand_pre;
  tl_walk_run(&w, &t.blk);
  ck_assert_ptr_eq(out[0], t.blk->kid[0]); /* c1 -> add -> drop */
  ck_assert_ptr_eq(out[1], t.blk);
  ck_assert_ptr_null(out[2]);             /* above the root */
  tl_module_destroy(t.m);
}
END_TEST

START_TEST(skip) {
  tree t = mk_tree();
  rec r = {0};
  r.skip_at = t.add;
  run(&t.blk, &r);
  ck_assert_int_eq(r.npre, 4); /* blk, drop, add, nop: not c1, c2 */
  for (int i = 0; i < r.npre; i++) ck_assert(r.pre[i] != t.c1 && r.pre[i] != t.c2);
  for (int i = 0; i < r.npost; i++) ck_assert(r.post[i] != t.c1 && r.post[i] != t.c2);
  ck_assert_ptr_eq(r.post[r.npost - 1], t.blk);
  tl_module_destroy(t.m);
}
END_TEST

/* post: every i32.const v becomes i32.const v*10; the parent then sees the
 * new node and refinalizes. */
static void scale_post(tl_walk *w, tl_expr **slot) {
  tl_expr *e = *slot;
  if (e->op == TL_OP_I32_CONST) *slot = tl_make_const_i32(w->m, e->imm.i32 * 10);
}

/* pre: nop becomes (drop (i32.const 7)); the walk descends into it. */
static void expand_pre(tl_walk *w, tl_expr **slot) {
  int *seen = w->ctx;
  if ((*slot)->op == TL_OP_NOP) *slot = tl_make_drop(w->m, tl_make_const_i32(w->m, 7));
  if ((*slot)->op == TL_OP_I32_CONST && (*slot)->imm.i32 == 7) (*seen)++;
}

START_TEST(replace) {
  tree t = mk_tree();
  tl_expr *old_c1 = t.c1;
  tl_walk_post(t.m, NULL, &t.blk, scale_post, NULL);
  ck_assert_ptr_ne(t.add->kid[0], old_c1);
  ck_assert_int_eq(t.add->kid[0]->imm.i32, 10);
  ck_assert_int_eq(t.add->kid[1]->imm.i32, 20);

  int seen = 0;
  tl_walk w = {0};
  w.m = t.m;
  w.ctx = &seen;
  w.pre = expand_pre;
  tl_walk_run(&w, &t.blk);
  ck_assert_int_eq(t.blk->kid[1]->op, TL_OP_DROP);
  ck_assert_int_eq(seen, 1); /* the replacement's child was walked */

  /* replacing the root itself */
  tl_expr *root = tl_make_const_i32(t.m, 3);
  tl_walk_post(t.m, NULL, &root, scale_post, NULL);
  ck_assert_int_eq(root->imm.i32, 30);
  tl_module_destroy(t.m);
}
END_TEST

/* NULL kids (an if without else written with nkid 3) are skipped. */
START_TEST(null_kids) {
  tl_module *m = tl_module_alloc();
  tl_expr *iff = tl_expr_new(m, TL_OP_IF, 3);
  iff->kid[0] = tl_make_const_i32(m, 1);
  iff->kid[1] = tl_make_nop(m);
  iff->kid[2] = NULL;
  ck_assert_uint_eq(tl_expr_count(iff), 3);
  tl_module_destroy(m);
}
END_TEST

/* ---- a 1,000,000-deep chain on a small stack ---- */
typedef struct { uint64_t pre, post, count; uint32_t maxdepth; int ok; } deep_res;

static void deep_pre(tl_walk *w, tl_expr **slot) {
  deep_res *r = w->ctx;
  r->pre++;
  if (w->depth > r->maxdepth) r->maxdepth = w->depth;
  (void)slot;
}

static void deep_post(tl_walk *w, tl_expr **slot) {
  deep_res *r = w->ctx;
  r->post++;
  if ((*slot)->op == TL_OP_I32_CONST && tl_walk_parent(w, 1)->op != TL_OP_I32_EQZ) r->ok = 0;
}

static void *deep_thread(void *arg) {
  deep_res *r = arg;
  enum { DEPTH = 1000000 };
  tl_module *m = tl_module_alloc();
  tl_expr *e = tl_make_const_i32(m, 0);
  for (int i = 0; i < DEPTH; i++) e = tl_make_unary(m, TL_OP_I32_EQZ, e);
  tl_walk w = {0};
  w.m = m;
  w.ctx = r;
  w.pre = deep_pre;
  w.post = deep_post;
  r->ok = 1;
  tl_walk_run(&w, &e);
  r->count = tl_expr_count(e);
  /* a deep copy is iterative too */
  tl_expr *c = tl_expr_copy(m, NULL, e);
  if (tl_expr_count(c) != DEPTH + 1 || c == e) r->ok = 0;
  tl_module_destroy(m);
  return NULL;
}

START_TEST(deep_chain) {
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, 256 * 1024);
  pthread_t th;
  deep_res r = {0};
  ck_assert_int_eq(pthread_create(&th, &at, deep_thread, &r), 0);
  pthread_join(th, NULL);
  pthread_attr_destroy(&at);
  ck_assert_uint_eq(r.pre, 1000001);
  ck_assert_uint_eq(r.post, 1000001);
  ck_assert_uint_eq(r.count, 1000001);
  ck_assert_uint_eq(r.maxdepth, 1000000);
  ck_assert_int_eq(r.ok, 1);
}
END_TEST

/* ---- tl_expr_copy ---- */
static tl_expr *br_to(tl_module *m, uint32_t l) {
  tl_expr *b = tl_expr_new(m, TL_OP_BR, 0);
  b->imm.label = l;
  b->type = TL_UNREACHABLE;
  return b;
}

START_TEST(copy_relabels) {
  tl_module *m = tl_module_alloc();
  tl_func *f = tl_module_add_func(m);
  f->type = tl_functype_intern(m, TL_NONE, TL_NONE);
  uint32_t outer = tl_func_new_label(m, f), inner = tl_func_new_label(m, f),
           lp = tl_func_new_label(m, f);
  /* (block $inner (loop $lp (br_if $lp c) (br_table $inner $lp $outer (c)))
   *                (br $outer)) — $outer lies outside the copied tree */
  tl_expr *bif = tl_expr_new(m, TL_OP_BR_IF, 1);
  bif->kid[0] = tl_make_const_i32(m, 1);
  bif->imm.label = lp;
  tl_expr *tab = tl_expr_new(m, TL_OP_BR_TABLE, 1);
  tab->kid[0] = tl_make_const_i32(m, 0);
  tab->imm.table = tl_brtable_new(m, 2);
  tab->imm.table->targets[0] = inner;
  tab->imm.table->targets[1] = lp;
  tab->imm.table->def = outer;
  tl_expr *lk[2] = {bif, tab};
  tl_expr *loop = tl_make_block(m, TL_OP_LOOP, lp, lk, 2);
  tl_expr *bk[2] = {loop, br_to(m, outer)};
  tl_expr *blk = tl_make_block(m, TL_OP_BLOCK, inner, bk, 2);

  tl_expr *c = tl_expr_copy(m, f, blk);
  ck_assert_uint_eq(f->nlabel, 5);
  ck_assert_ptr_ne(c, blk);
  uint32_t ni = c->imm.block.label, nl = c->kid[0]->imm.block.label;
  ck_assert(ni != inner && ni != lp && ni != outer && ni < f->nlabel);
  ck_assert(nl != inner && nl != lp && nl != outer && nl < f->nlabel && nl != ni);
  tl_expr *cl = c->kid[0];
  ck_assert_uint_eq(cl->kid[0]->imm.label, nl);           /* br_if to the copied loop */
  ck_assert_uint_eq(cl->kid[1]->imm.table->targets[0], ni); /* br_table remapped */
  ck_assert_uint_eq(cl->kid[1]->imm.table->targets[1], nl);
  ck_assert_uint_eq(cl->kid[1]->imm.table->def, outer);     /* outside: unchanged */
  ck_assert_uint_eq(c->kid[1]->imm.label, outer);
  ck_assert_ptr_ne(cl->kid[1]->imm.table, tab->imm.table);
  /* the original is untouched, nodes are not shared, types are copied */
  ck_assert_uint_eq(blk->imm.block.label, inner);
  ck_assert_uint_eq(tab->imm.table->targets[0], inner);
  ck_assert_ptr_ne(cl->kid[0]->kid[0], bif->kid[0]);
  ck_assert_uint_eq(c->type, blk->type);
  ck_assert_uint_eq(tl_expr_count(c), tl_expr_count(blk));
  tl_module_destroy(m);
}
END_TEST

/* tl_walk_post_only: post sees only the nodes whose op has one of the
 * flags, in the same order, with the same parents and depths. */
typedef struct { tl_expr *seen[8], *parent[8]; uint32_t depth[8]; int n; } only_rec;

static void only_post(tl_walk *w, tl_expr **slot) {
  only_rec *r = w->ctx;
  r->parent[r->n] = tl_walk_parent(w, 1);
  r->depth[r->n] = w->depth;
  r->seen[r->n++] = *slot;
}

START_TEST(post_only) {
  tree t = mk_tree();
  tl_expr *drop = t.blk->kid[0];
  only_rec r = {0};
  tl_walk_post_only(t.m, NULL, &t.blk, only_post, &r, TL_F_CONTROL);
  ck_assert_int_eq(r.n, 1);
  ck_assert_ptr_eq(r.seen[0], t.blk);
  ck_assert_ptr_null(r.parent[0]);
  only_rec q = {0};
  /* i32.add has no flags; drop, const and nop neither: nothing */
  tl_walk_post_only(t.m, NULL, &t.blk, only_post, &q, TL_F_BRANCH);
  ck_assert_int_eq(q.n, 0);
  /* a leaf root, and 0 = every node */
  only_rec z = {0};
  tl_walk_post_only(t.m, NULL, &t.blk, only_post, &z, 0);
  ck_assert_int_eq(z.n, 6);
  ck_assert_ptr_eq(z.seen[2], t.add);
  ck_assert_ptr_eq(z.parent[2], drop);
  ck_assert_uint_eq(z.depth[2], 2);
  only_rec l = {0};
  tl_walk_post_only(t.m, NULL, &t.nop, only_post, &l, TL_F_CONTROL);
  ck_assert_int_eq(l.n, 0);
  tl_module_destroy(t.m);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("walk");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, order);
  tcase_add_test(t, parent_up);
  tcase_add_test(t, skip);
  tcase_add_test(t, replace);
  tcase_add_test(t, null_kids);
  tcase_add_test(t, deep_chain);
  tcase_add_test(t, copy_relabels);
  tcase_add_test(t, post_only);
  suite_add_tcase(s, t);
  return s;
}

TL_CHECK_MAIN(suite)
