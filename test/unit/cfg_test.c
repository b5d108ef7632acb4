/* cfg_test.c — the relooper (CFG structuring) against a direct walk of the
 * graph. Every block logs its id to an import; conditions and switch values
 * come from a second import that replays a fixed pseudo-random sequence.
 * The structured function runs in the interpreter and must produce the
 * same trace as the reference walker; it must validate; reducible graphs
 * must need no label variable and no copied block. Also the seed 000
 * examples: the diamond, the for loop (sum 25), and the irreducible "goto
 * into the middle of a loop" printing 1 2 1 2 for f(0,2) and 2 1 2 for
 * f(1,2). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilt.h"

enum { MAX_TRACE = 300, MAX_BLOCKS = 40 };

typedef struct {
  uint32_t seed;         /* the decision sequence */
  uint32_t trace[MAX_TRACE];
  uint32_t n;
} run_state;

static uint32_t next_decision(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

static tl_status host_log(tl_host_call *call, void *user, const tl_value *args, tl_value *res,
                          tl_error *err) {
  (void)call; (void)res;
  run_state *st = user;
  if (st->n == MAX_TRACE) {
    snprintf(err->msg, sizeof err->msg, "trace limit");
    return TL_E_TRAP;
  }
  st->trace[st->n++] = (uint32_t)args[0].of.i32;
  return TL_OK;
}

static tl_status host_next(tl_host_call *call, void *user, const tl_value *args, tl_value *res,
                           tl_error *err) {
  (void)call; (void)args; (void)err;
  run_state *st = user;
  res[0].type = TL_VAL_I32;
  res[0].of.i32 = (int32_t)next_decision(&st->seed);
  return TL_OK;
}

/* ---- random graphs ------------------------------------------------------ */
typedef struct {
  uint32_t n;
  uint8_t kind[MAX_BLOCKS];        /* 0 exit, 1 goto, 2 conditional, 3 switch */
  uint32_t nsucc[MAX_BLOCKS];
  uint32_t succ[MAX_BLOCKS][4];    /* for 2: cond targets then default; 3: cases 0..k-2, default */
} graph;

static uint32_t rnd(uint32_t *s, uint32_t n) { return next_decision(s) % n; }

/* reducible: back edges only to an ancestor on the DFS tree chain we build
 * (a structured program shape); irreducible: any target. */
static void gen_graph(graph *g, uint32_t seed, bool reducible) {
  uint32_t s = seed;
  g->n = 2 + rnd(&s, MAX_BLOCKS - 2);
  for (uint32_t b = 0; b < g->n; b++) {
    uint32_t r = rnd(&s, 10);
    g->kind[b] = b + 1 == g->n ? 0 : r < 1 ? 0 : r < 4 ? 1 : r < 8 ? 2 : 3;
    g->nsucc[b] = g->kind[b] == 0 ? 0 : g->kind[b] == 1 ? 1 : g->kind[b] == 2 ? 2 + rnd(&s, 2) : 2 + rnd(&s, 3);
    for (uint32_t k = 0; k < g->nsucc[b]; k++) {
      uint32_t t;
      if (reducible) {
        /* forward anywhere, or back to a block that dominates b in a
         * forward-only chain: only b itself or b's loop "header" 0..b when
         * every block between has a single entry is hard to know, so use
         * self-loops and forward edges only, plus back edges to 0. */
        uint32_t r2 = rnd(&s, 10);
        t = r2 == 0 ? 0 : r2 == 1 ? b : b + 1 + rnd(&s, g->n - b - 1 ? g->n - b - 1 : 1);
        if (t >= g->n) t = g->n - 1;
      } else {
        t = rnd(&s, g->n);
      }
      g->succ[b][k] = t;
    }
  }
}

/* The reference: walk the graph directly. */
static void walk_graph(const graph *g, run_state *st) {
  uint32_t b = 0;
  for (;;) {
    if (st->n == MAX_TRACE) return;
    st->trace[st->n++] = b;
    uint32_t ns = g->nsucc[b];
    if (g->kind[b] == 0) return;
    if (g->kind[b] == 1) {
      b = g->succ[b][0];
    } else if (g->kind[b] == 2) {
      uint32_t k = 0;
      for (; k + 1 < ns; k++)
        if (next_decision(&st->seed) & 1) break;
      b = g->succ[b][k];
    } else {
      uint32_t v = next_decision(&st->seed) % (ns + 1); /* value ns: no case, default */
      b = g->succ[b][v < ns - 1 ? v : ns - 1];
    }
  }
}

typedef struct {
  tl_module *m;
  uint32_t log, next, fn;
} wmod;

static wmod new_module(void) {
  wmod w;
  w.m = tl_module_create();
  tl_type_t i32 = TL_TYPE_I32;
  uint32_t t_log = tl_add_type(w.m, i32, TL_TYPE_NONE), t_next = tl_add_type(w.m, TL_TYPE_NONE, i32);
  uint32_t t_run = tl_add_type(w.m, TL_TYPE_NONE, TL_TYPE_NONE);
  w.log = tl_add_function_import(w.m, "log", "env", "log", t_log);
  w.next = tl_add_function_import(w.m, "next", "env", "next", t_next);
  w.fn = tl_add_function(w.m, "run", t_run, NULL, 0, NULL);
  tl_add_export(w.m, 0, w.fn, "run");
  return w;
}

static tl_expr_ref log_call(wmod *w, int32_t id) {
  tl_expr_ref arg = tl_build_const_i32(w->m, id);
  return tl_build_call(w->m, w->log, &arg, 1);
}

static tl_expr_ref next_call(wmod *w) { return tl_build_call(w->m, w->next, NULL, 0); }

static tl_relooper *build_relooper(wmod *w, const graph *g, uint64_t budget) {
  tl_relooper *r = tl_relooper_create(w->m, w->fn);
  tl_relooper_set_split_budget(r, budget);
  tl_rblock id[MAX_BLOCKS];
  for (uint32_t b = 0; b < g->n; b++) {
    if (g->kind[b] == 3) {
      tl_expr_ref v = tl_build_binary(w->m, "i32.rem_u", next_call(w),
                                      tl_build_const_i32(w->m, (int32_t)g->nsucc[b] + 1));
      id[b] = tl_relooper_add_block_with_switch(r, log_call(w, (int32_t)b), v);
    } else {
      id[b] = tl_relooper_add_block(r, log_call(w, (int32_t)b));
    }
  }
  for (uint32_t b = 0; b < g->n; b++) {
    uint32_t ns = g->nsucc[b];
    for (uint32_t k = 0; k < ns; k++) {
      uint32_t t = g->succ[b][k];
      if (g->kind[b] == 3) {
        uint32_t c = k;
        ck_assert_int_eq(tl_relooper_add_branch_for_switch(r, id[b], id[t], k + 1 < ns ? &c : NULL,
                                                           k + 1 < ns ? 1 : 0, NULL), TL_OK);
      } else {
        tl_expr_ref cond = k + 1 < ns ? tl_build_binary(w->m, "i32.and", next_call(w),
                                                        tl_build_const_i32(w->m, 1))
                                      : NULL;
        ck_assert_int_eq(tl_relooper_add_branch(r, id[b], id[t], cond, NULL), TL_OK);
      }
    }
  }
  return r;
}

static void run_module(tl_module *m, run_state *st) {
  tl_store *s = tl_store_new();
  tl_linker *l = tl_linker_new();
  uint32_t i32 = TL_VAL_I32;
  tl_linker_define(l, "env", "log", tl_host_func_new(s, &i32, 1, NULL, 0, host_log, st));
  tl_linker_define(l, "env", "next", tl_host_func_new(s, NULL, 0, &i32, 1, host_next, st));
  tl_error err;
  tl_instance *inst = tl_instantiate(s, m, l, &err);
  ck_assert_msg(inst != NULL, "instantiate: %s", err.msg);
  uint32_t nres;
  tl_status rc = tl_invoke(inst, "run", NULL, 0, NULL, 0, &nres, &err);
  ck_assert_msg(rc == TL_OK || (rc == TL_E_TRAP && st->n == MAX_TRACE), "run: %s", err.msg);
  tl_linker_free(l);
  tl_store_free(s);
}

/* Counts calls to the log import in the structured code (= copies of blocks). */
static uint32_t count_calls(tl_expr_ref e, uint32_t log) {
  uint32_t n = 0;
  tl_expr_ref stack[4096];
  uint32_t sp = 0;
  stack[sp++] = e;
  while (sp) {
    tl_expr_ref x = stack[--sp];
    if (tl_expr_get_op(x) == tl_op_lookup("call") && tl_expr_num_kids(x) == 1 &&
        tl_expr_get_op(tl_expr_get_kid(x, 0)) == tl_op_lookup("i32.const"))
      n++;
    (void)log;
    for (uint32_t i = 0; i < tl_expr_num_kids(x) && sp < 4096; i++)
      if (tl_expr_get_kid(x, i)) stack[sp++] = tl_expr_get_kid(x, i);
  }
  return n;
}

static uint32_t reachable_blocks(const graph *g) {
  uint8_t seen[MAX_BLOCKS] = {0};
  uint32_t stack[MAX_BLOCKS], sp = 0, n = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  while (sp) {
    uint32_t b = stack[--sp];
    n++;
    for (uint32_t k = 0; k < g->nsucc[b]; k++)
      if (!seen[g->succ[b][k]]) {
        seen[g->succ[b][k]] = 1;
        stack[sp++] = g->succ[b][k];
      }
  }
  return n;
}

static void check_graph(uint32_t seed, bool reducible, uint64_t budget) {
  graph g;
  gen_graph(&g, seed, reducible);
  wmod w = new_module();
  tl_relooper *r = build_relooper(&w, &g, budget);
  tl_expr_ref body = tl_relooper_render(r, 0, UINT32_MAX);
  ck_assert_ptr_nonnull(body);
  uint64_t dispatches, sets, split;
  tl_relooper_stats(r, &dispatches, &sets, &split);
  tl_relooper_dispose(r);
  if (reducible) {
    /* our generator's graphs: back edges only to block 0 or self-loops,
     * both dominate their sources, so the graph is reducible */
    ck_assert_msg(dispatches == 0 && sets == 0 && split == 0,
                  "seed %u: reducible graph needed a dispatch (%llu) or split (%llu)", seed,
                  (unsigned long long)dispatches, (unsigned long long)split);
    ck_assert_uint_eq(count_calls(body, w.log), reachable_blocks(&g));
  }
  ck_assert_int_eq(tl_function_set_body(w.m, w.fn, body), TL_OK);
  tl_error err;
  ck_assert_msg(tl_module_validate(w.m, &err) == TL_OK, "seed %u: %s", seed, err.msg);
  run_state a = {seed * 7u + 1, {0}, 0}, b = a;
  walk_graph(&g, &a);
  run_module(w.m, &b);
  ck_assert_msg(a.n == b.n, "seed %u: trace lengths %u vs %u", seed, a.n, b.n);
  ck_assert_msg(!memcmp(a.trace, b.trace, a.n * sizeof a.trace[0]), "seed %u: traces differ", seed);
  tl_module_free(w.m);
}

START_TEST(random_reducible_graphs) {
  for (uint32_t seed = 1; seed <= 1500; seed++) check_graph(seed, true, 0);
}
END_TEST

START_TEST(random_irreducible_graphs_dispatch) {
  for (uint32_t seed = 1; seed <= 1500; seed++) check_graph(seed, false, 0);
}
END_TEST

START_TEST(random_irreducible_graphs_split) {
  for (uint32_t seed = 1; seed <= 1500; seed++) check_graph(seed, false, 200);
}
END_TEST

/* ---- seed 000: goto into the middle of a loop ---------------------------- */
typedef struct { int32_t out[16]; uint32_t n; } prints;

static tl_status host_print(tl_host_call *call, void *user, const tl_value *args, tl_value *res,
                            tl_error *err) {
  (void)call; (void)res; (void)err;
  prints *p = user;
  if (p->n < 16) p->out[p->n++] = args[0].of.i32;
  return TL_OK;
}

static void run_f(tl_module *m, int32_t skip, int32_t k, prints *p) {
  tl_store *s = tl_store_new();
  tl_linker *l = tl_linker_new();
  uint32_t i32 = TL_VAL_I32;
  tl_linker_define(l, "env", "print_i32", tl_host_func_new(s, &i32, 1, NULL, 0, host_print, p));
  tl_error err;
  tl_instance *inst = tl_instantiate(s, m, l, &err);
  ck_assert_msg(inst != NULL, "%s", err.msg);
  tl_value args[2] = {{TL_VAL_I32, {.i32 = skip}}, {TL_VAL_I32, {.i32 = k}}};
  uint32_t nres;
  ck_assert_int_eq(tl_invoke(inst, "f", args, 2, NULL, 0, &nres, &err), TL_OK);
  tl_linker_free(l);
  tl_store_free(s);
}

static tl_module *build_irreducible(uint64_t budget, uint64_t *dispatches) {
  tl_module *m = tl_module_create();
  uint32_t t_print = tl_add_type(m, TL_TYPE_I32, TL_TYPE_NONE);
  tl_type_t two[2] = {TL_TYPE_I32, TL_TYPE_I32};
  uint32_t t_f = tl_add_type(m, tl_build_tuple(m, two, 2), TL_TYPE_NONE);
  uint32_t print = tl_add_function_import(m, "print", "env", "print_i32", t_print);
  uint32_t f = tl_add_function(m, "f", t_f, NULL, 0, NULL);
  tl_add_export(m, 0, f, "f");
  tl_relooper *r = tl_relooper_create(m, f);
  tl_relooper_set_split_budget(r, budget);
  tl_expr_ref one = tl_build_const_i32(m, 1), two_ = tl_build_const_i32(m, 2);
  tl_rblock entry = tl_relooper_add_block(r, NULL);
  tl_rblock top = tl_relooper_add_block(r, tl_build_call(m, print, &one, 1));
  tl_expr_ref dec = tl_build_local_set(m, f, 1, tl_build_binary(m, "i32.sub", tl_build_local_get(m, f, 1),
                                                                 tl_build_const_i32(m, 1)));
  tl_expr_ref mid_code[2] = {tl_build_call(m, print, &two_, 1), dec};
  tl_rblock middle = tl_relooper_add_block(r, tl_build_block(m, f, TL_LABEL_NONE, mid_code, 2, TL_TYPE_NONE));
  tl_rblock exit = tl_relooper_add_block(r, NULL);
  tl_relooper_add_branch(r, entry, middle, tl_build_local_get(m, f, 0), NULL);
  tl_relooper_add_branch(r, entry, top, NULL, NULL);
  tl_relooper_add_branch(r, top, middle, NULL, NULL);
  tl_relooper_add_branch(r, middle, top, tl_build_binary(m, "i32.gt_s", tl_build_local_get(m, f, 1),
                                                         tl_build_const_i32(m, 0)), NULL);
  tl_relooper_add_branch(r, middle, exit, NULL, NULL);
  tl_expr_ref body = tl_relooper_render(r, entry, UINT32_MAX);
  tl_relooper_stats(r, dispatches, NULL, NULL);
  tl_relooper_dispose(r);
  ck_assert_int_eq(tl_function_set_body(m, f, body), TL_OK);
  tl_error err;
  ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "%s", err.msg);
  return m;
}

static void check_seed_irreducible(uint64_t budget, bool expect_dispatch) {
  uint64_t dispatches = 0;
  tl_module *m = build_irreducible(budget, &dispatches);
  ck_assert(expect_dispatch ? dispatches > 0 : dispatches == 0);
  prints a = {{0}, 0}, b = {{0}, 0};
  run_f(m, 0, 2, &a);
  run_f(m, 1, 2, &b);
  ck_assert_uint_eq(a.n, 4);
  ck_assert(a.out[0] == 1 && a.out[1] == 2 && a.out[2] == 1 && a.out[3] == 2);
  ck_assert_uint_eq(b.n, 3);
  ck_assert(b.out[0] == 2 && b.out[1] == 1 && b.out[2] == 2);
  tl_module_free(m);
}

START_TEST(seed_irreducible_dispatch) { check_seed_irreducible(0, true); }
END_TEST
START_TEST(seed_irreducible_split) { check_seed_irreducible(1000, false); }
END_TEST

/* ---- seed 000: the for loop (sum of odd i below 10 = 25) ------------------ */
START_TEST(seed_for_loop) {
  tl_module *m = tl_module_create();
  uint32_t t = tl_add_type(m, TL_TYPE_NONE, TL_TYPE_I32);
  tl_type_t vars[2] = {TL_TYPE_I32, TL_TYPE_I32};
  uint32_t f = tl_add_function(m, "main", t, vars, 2, NULL); /* $i = 0, $sum = 1 */
  tl_add_export(m, 0, f, "main");
  tl_relooper *r = tl_relooper_create(m, f);
#define GET(i) tl_build_local_get(m, f, i)
#define C(v) tl_build_const_i32(m, v)
  tl_rblock b0 = tl_relooper_add_block(r, NULL);
  tl_rblock b1 = tl_relooper_add_block(r, NULL);
  tl_rblock b2 = tl_relooper_add_block(r, NULL);
  tl_rblock b3 = tl_relooper_add_block(r, tl_build_local_set(m, f, 1, tl_build_binary(m, "i32.add", GET(1), GET(0))));
  tl_rblock b4 = tl_relooper_add_block(r, tl_build_local_set(m, f, 0, tl_build_binary(m, "i32.add", GET(0), C(1))));
  tl_rblock b5 = tl_relooper_add_block(r, tl_build_return(m, GET(1)));
  tl_relooper_add_branch(r, b0, b1, NULL, NULL);
  tl_relooper_add_branch(r, b1, b5, tl_build_binary(m, "i32.ge_s", GET(0), C(10)), NULL);
  tl_relooper_add_branch(r, b1, b2, NULL, NULL);
  tl_relooper_add_branch(r, b2, b4, tl_build_unary(m, "i32.eqz", tl_build_binary(m, "i32.rem_s", GET(0), C(2))), NULL);
  tl_relooper_add_branch(r, b2, b3, NULL, NULL);
  tl_relooper_add_branch(r, b3, b4, NULL, NULL);
  tl_relooper_add_branch(r, b4, b1, NULL, NULL);
  tl_expr_ref body = tl_relooper_render(r, b0, UINT32_MAX);
  uint64_t dispatches, sets, split;
  tl_relooper_stats(r, &dispatches, &sets, &split);
  ck_assert(dispatches == 0 && sets == 0 && split == 0);
  tl_relooper_dispose(r);
  tl_expr_ref kids[2] = {body, tl_build_unreachable(m)};
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_block(m, f, TL_LABEL_NONE, kids, 2, TL_TYPE_AUTO)), TL_OK);
  tl_error err;
  ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "%s", err.msg);
  tl_store *s = tl_store_new();
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_ptr_nonnull(inst);
  tl_value res;
  uint32_t nres;
  ck_assert_int_eq(tl_invoke(inst, "main", NULL, 0, &res, 1, &nres, &err), TL_OK);
  ck_assert_int_eq(res.of.i32, 25);
  tl_store_free(s);
  tl_module_free(m);
#undef GET
#undef C
}
END_TEST

/* ---- seed 000: the diamond ----------------------------------------------- */
START_TEST(seed_diamond) {
  tl_module *m = tl_module_create();
  uint32_t t = tl_add_type(m, TL_TYPE_I32, TL_TYPE_I32);
  tl_type_t var = TL_TYPE_I32;
  uint32_t f = tl_add_function(m, "diamond", t, &var, 1, NULL);
  tl_add_export(m, 0, f, "diamond");
  tl_relooper *r = tl_relooper_create(m, f);
  tl_rblock b0 = tl_relooper_add_block(r, NULL);
  tl_rblock b1 = tl_relooper_add_block(r, tl_build_local_set(m, f, 1, tl_build_const_i32(m, 10)));
  tl_rblock b2 = tl_relooper_add_block(r, tl_build_local_set(m, f, 1, tl_build_const_i32(m, 20)));
  tl_rblock b3 = tl_relooper_add_block(r, tl_build_return(m, tl_build_binary(m, "i32.add",
                                          tl_build_local_get(m, f, 1), tl_build_const_i32(m, 1))));
  tl_relooper_add_branch(r, b0, b2, tl_build_local_get(m, f, 0), NULL);
  tl_relooper_add_branch(r, b0, b1, NULL, NULL);
  tl_relooper_add_branch(r, b1, b3, NULL, NULL);
  tl_relooper_add_branch(r, b2, b3, NULL, NULL);
  tl_expr_ref body = tl_relooper_render_and_dispose(r, b0, UINT32_MAX);
  tl_expr_ref kids[2] = {body, tl_build_unreachable(m)};
  ck_assert_int_eq(tl_function_set_body(m, f, tl_build_block(m, f, TL_LABEL_NONE, kids, 2, TL_TYPE_AUTO)), TL_OK);
  tl_error err;
  ck_assert_msg(tl_module_validate(m, &err) == TL_OK, "%s", err.msg);
  tl_store *s = tl_store_new();
  tl_instance *inst = tl_instantiate(s, m, NULL, &err);
  ck_assert_ptr_nonnull(inst);
  for (int32_t c = 0; c < 2; c++) {
    tl_value arg = {TL_VAL_I32, {.i32 = c}}, res;
    uint32_t nres;
    ck_assert_int_eq(tl_invoke(inst, "diamond", &arg, 1, &res, 1, &nres, &err), TL_OK);
    ck_assert_int_eq(res.of.i32, c ? 21 : 11);
  }
  tl_store_free(s);
  tl_module_free(m);
}
END_TEST

/* A 100,000-block chain with a loop structures without deep recursion. */
START_TEST(large_graph) {
  wmod w = new_module();
  tl_relooper *r = tl_relooper_create(w.m, w.fn);
  enum { N = 100000 };
  for (uint32_t b = 0; b < N; b++) tl_relooper_add_block(r, NULL);
  for (uint32_t b = 0; b + 1 < N; b++) {
    if (b % 7 == 3) tl_relooper_add_branch(r, b, b + 2 < N ? b + 2 : b + 1, tl_build_binary(w.m, "i32.and", next_call(&w), tl_build_const_i32(w.m, 1)), NULL);
    if (b % 1000 == 999) tl_relooper_add_branch(r, b, b - 500, tl_build_binary(w.m, "i32.and", next_call(&w), tl_build_const_i32(w.m, 1)), NULL);
    tl_relooper_add_branch(r, b, b + 1, NULL, NULL);
  }
  tl_expr_ref body = tl_relooper_render_and_dispose(r, 0, UINT32_MAX);
  ck_assert_ptr_nonnull(body);
  ck_assert_int_eq(tl_function_set_body(w.m, w.fn, body), TL_OK);
  tl_error err;
  ck_assert_msg(tl_module_validate(w.m, &err) == TL_OK, "%s", err.msg);
  tl_module_free(w.m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cfg");
  TCase *tc = tcase_create("cfg");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, seed_diamond);
  tcase_add_test(tc, seed_for_loop);
  tcase_add_test(tc, seed_irreducible_dispatch);
  tcase_add_test(tc, seed_irreducible_split);
  tcase_add_test(tc, random_reducible_graphs);
  tcase_add_test(tc, random_irreducible_graphs_dispatch);
  tcase_add_test(tc, random_irreducible_graphs_split);
  tcase_add_test(tc, large_graph);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
