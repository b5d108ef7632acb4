/* registry.c — the pass registry (expanded from passes.def) and the runner.
 * Function passes run over the functions on a small pthread pool: each
 * worker takes the next function (biggest first); the module arena is
 * locked while they run. A pass only touches its own function, so the
 * output does not depend on the thread count or the order functions finish
 * in. A run of consecutive function passes is stacked: a worker runs all of
 * them on one function while it is in cache, then takes the next function
 * (unless each pass is timed or validated on its own). -optimizing module
 * passes run their function pipeline the same way on the functions they
 * changed (tl_run_func_passes_on). Node memory: a sweep before each
 * top-level stack and after the last pass frees what no body uses, and each
 * body a top-level stack ran on moves to a block of its own, freeing its
 * old one (expr.c), so one pass run's garbage does not outlive it.
 * Lazy bodies (tl_read_options.lazy_bodies) are decoded where first needed:
 * by the worker that runs a stack on the function, or all at once (on the
 * pool) before a module pass that is not of a _LAZY kind. */
#include "passes.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PASS_FN_FUNC(id) TL_PASS_FUNC, tl_pass_##id, NULL, false, false, false, false, false
#define PASS_FN_FUNC_EH(id) TL_PASS_FUNC, tl_pass_##id, NULL, true, false, false, false, false
#define PASS_FN_FUNC_GC(id) TL_PASS_FUNC, tl_pass_##id, NULL, true, true, false, false, false
#define PASS_FN_FUNC_TRAPS(id) TL_PASS_FUNC, tl_pass_##id, NULL, true, false, false, true, false
#define PASS_FN_MODULE(id) TL_PASS_MODULE, NULL, tl_pass_##id, true, false, false, false, false
#define PASS_FN_MODULE_LAZY(id) TL_PASS_MODULE, NULL, tl_pass_##id, true, false, false, false, true
#define PASS_FN_MODULE_IFACE(id) TL_PASS_MODULE, NULL, tl_pass_##id, true, false, true, false, false
#define PASS_FN_MODULE_IFACE_LAZY(id) TL_PASS_MODULE, NULL, tl_pass_##id, true, false, true, false, true
#define PASS_FN_MODULE_TRAPS(id) TL_PASS_MODULE, NULL, tl_pass_##id, true, false, false, true, false
static const tl_pass_info registry[] = {
#define PASS(id, name, help, kind) {name, help, PASS_FN_##kind(id)},
#include "passes.def"
#undef PASS
};
enum { NPASSES = sizeof registry / sizeof registry[0] };

const tl_pass_info *tl_pass_find(const char *name) {
  for (uint32_t i = 0; i < NPASSES; i++)
    if (!strcmp(registry[i].name, name)) return &registry[i];
  return NULL;
}

const tl_pass_info *tl_pass_at(uint32_t i) { return i < NPASSES ? &registry[i] : NULL; }

const char *tl_pass_arg_get(const tl_pass_ctx *c, const char *key) {
  for (uint32_t i = 0; i < c->nargs; i++)
    if (!strcmp(c->args[i].key, key)) return c->args[i].value;
  return NULL;
}

void tl_pass_output(const tl_pass_ctx *c, const char *text, size_t len) {
  if (c->opt && c->opt->on_output && len) c->opt->on_output(c->opt->user, text, len);
}

const char *tl_pass_name(uint32_t i) { return i < NPASSES ? registry[i].name : NULL; }
const char *tl_pass_help(uint32_t i) { return i < NPASSES ? registry[i].help : NULL; }
bool tl_pass_changes_interface(uint32_t i) { return i < NPASSES && registry[i].iface; }
bool tl_pass_keeps_behaviour(uint32_t i) { return i < NPASSES && !registry[i].iface && !registry[i].traps; }

/* ---- the pool ----------------------------------------------------------- */
/* A parallel loop: workers take the next k and call fn(user, item(k)). */
typedef struct {
  atomic_uint next;
  uint32_t n;
  const uint32_t *order;   /* items; NULL: k itself */
  void (*fn)(void *user, uint32_t i);
  void *user;
  tl_oom_ctx scope;        /* the starting thread's */
  atomic_bool oom;         /* a worker ran out of memory: the rest stop */
} loop;

static void take_items(void *arg) {
  loop *l = arg;
  for (;;) {
    uint32_t k = atomic_fetch_add(&l->next, 1);
    if (k >= l->n || atomic_load(&l->oom)) break;
    l->fn(l->user, l->order ? l->order[k] : k);
  }
}

static void *worker(void *arg) {
  loop *l = arg;
  if (!tl_oom_worker(&l->scope, take_items, l)) atomic_store(&l->oom, true);
  return NULL;
}

static uint32_t default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 64 ? 64 : (uint32_t)n;
}

static uint32_t threads_for(const tl_pass_ctx *ctx, uint32_t n) {
  uint32_t t = ctx->opt && ctx->opt->threads ? ctx->opt->threads : default_threads();
  return t > n ? n : t;
}

/* The calling thread is a worker too; the arena is locked meanwhile. Out
 * of memory in any worker fails the caller's scope once all are joined. */
static void run_loop(tl_module *m, loop *l, uint32_t threads) {
  l->scope = tl_oom_here();
  atomic_init(&l->oom, false);
  /* one thread, or out of memory for the thread ids: this thread alone */
  pthread_t *tid = threads <= 1 ? NULL : tl_scratch_calloc(threads, sizeof *tid);
  if (!tid) {
    take_items(l);
    return;
  }
  pthread_mutex_t lock;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&lock, &attr);
  void *outer = m->arena.lock;
  m->arena.lock = &lock;
  uint32_t started = 0;
  for (; started + 1 < threads; started++)
    if (pthread_create(&tid[started], NULL, worker, l)) break;
  worker(l);
  for (uint32_t i = 0; i < started; i++) pthread_join(tid[i], NULL);
  tl_free(tid);
  m->arena.lock = outer;
  pthread_mutex_destroy(&lock);
  pthread_mutexattr_destroy(&attr);
  if (atomic_load(&l->oom)) tl_oom_fail();
}

void tl_run_parallel(tl_pass_ctx *ctx, uint32_t n, void (*fn)(void *user, uint32_t i), void *user) {
  loop l = {0, n, NULL, fn, user, {0}, false};
  run_loop(ctx->m, &l, ctx->m->arena.lock ? 1 : threads_for(ctx, n));
}

/* ---- parallel function passes ------------------------------------------ */
/* Only the failure with the lowest function index is kept (the one that
 * reports, whatever the scheduling), not an error per function. */
typedef struct {
  tl_pass_ctx *ctx;
  const tl_pass_info *const *pass;   /* the stack, run in order */
  uint32_t npass;
  bool own;           /* each body moves to a block of its own afterwards */
  pthread_mutex_t lock;  /* guards the three below */
  uint32_t failed;    /* lowest failing function index; UINT32_MAX: none */
  tl_status status;   /* its status */
  tl_error err;       /* its error */
} job;

static void fail_at(job *j, uint32_t i, tl_status s, const tl_error *e) {
  pthread_mutex_lock(&j->lock);
  if (i < j->failed) {
    j->failed = i;
    j->status = s;
    j->err = *e;
  }
  pthread_mutex_unlock(&j->lock);
}

static void run_stack(void *user, uint32_t i) {
  job *j = user;
  tl_func *f = TL_FUNC(j->ctx->m, i);
  tl_pass_ctx c = *j->ctx;
  tl_error e = {0};
  tl_status s = TL_OK;
  c.err = &e;
  if (j->own) tl_nodes_begin(j->ctx->m, i);
  if (f->lazy) s = tl_func_decode(j->ctx->m, i, &e); /* first touch */
  int eh = -1; /* whether f holds EH nodes: found out when a pass needs it */
  /* A pass that does not model GC (kind FUNC_GC, issue 24) skips a
   * function that holds GC instructions or types. */
  bool gc_mod = j->ctx->m->features & TL_FEAT_GC;
  int gc = gc_mod ? -1 : 0; /* whether f holds them: found out when a pass needs it */
  bool ran = false;
  for (uint32_t p = 0; p < j->npass && s == TL_OK && f->body; p++) {
    if (!j->pass[p]->eh && eh < 0) eh = tl_expr_has_eh(f->body);
    if (!j->pass[p]->eh && eh) continue; /* it does not model exceptions */
    if (!j->pass[p]->gc && gc < 0) gc = tl_func_has_gc(j->ctx->m, f);
    if (!j->pass[p]->gc && gc) continue; /* it does not model GC */
    s = j->pass[p]->func(&c, f);
    /* With GC, after every pass (the next one must see valid IR): a pass
     * may leave a node's type a supertype of what it now computes (an
     * operand became non-null, a value's type was refined), so types are
     * made exact again; and it may have removed the set a non-nullable
     * local's read relied on, so local init is fixed (the read becomes a
     * ref.as_non_null, which may trap, before a later pass could move a
     * trap of its own past the read: tilt-fuzz opt --gc --seed 71207170418,
     * coalesce-locals then merge-blocks in one stack). */
    ran = true;
    if (s == TL_OK && gc_mod && f->body && gc < 0) gc = tl_func_has_gc(j->ctx->m, f);
    if (s == TL_OK && gc > 0 && f->body) {
      tl_func_refinalize(j->ctx->m, f);
      tl_func_fix_local_init(j->ctx->m, f);
    }
  }
  /* (a function without GC types or instructions: local init once, for
   * typed function references) */
  if (s == TL_OK && ran && gc_mod && gc <= 0 && f->body) tl_func_fix_local_init(j->ctx->m, f);
  if (j->own) tl_nodes_end(j->ctx->m, i);
  if (s != TL_OK) fail_at(j, i, s, &e);
}

static tl_status first_failure(job *j, tl_error *err) {
  if (j->failed == UINT32_MAX) return TL_OK;
  if (err) {
    *err = j->err;
    err->func_index = j->failed;
  }
  return j->status;
}

/* Biggest first, so that no big function starts last and leaves the other
 * workers idle (ties by index). Only the schedule depends on this. */
typedef struct {
  uint64_t size;
  uint32_t index;
} sized;

static int by_size_desc(const void *a, const void *b) {
  const sized *x = a, *y = b;
  if (x->size != y->size) return x->size < y->size ? 1 : -1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The size a body was read with (bytes; cheap, and while the passes run
 * over every body the read is a good enough guide), else, or when exact,
 * its node count (a body still lazy has only its bytes). */
static uint64_t size_of(tl_func *f, bool exact) {
  return f->code_size && (!exact || f->lazy) ? f->code_size : f->body ? tl_expr_count(f->body) : 0;
}

static void order_by_size(tl_module *m, uint32_t *order, uint32_t n, bool exact) {
  sized *s = tl_scratch_realloc(NULL, (size_t)n + 1, sizeof *s);
  if (!s) return; /* only the schedule depends on the order */
  for (uint32_t k = 0; k < n; k++) s[k] = (sized){size_of(TL_FUNC(m, order[k]), exact), order[k]};
  qsort(s, n, sizeof *s, by_size_desc);
  for (uint32_t k = 0; k < n; k++) order[k] = s[k].index;
  tl_free(s);
}

void tl_order_by_size(tl_module *m, uint32_t *order, uint32_t n) { order_by_size(m, order, n, false); }

/* Runs the stack p[0..np) on each function with a body and which[i] set
 * (every function if which is NULL). */
static tl_status run_func_passes(tl_pass_ctx *ctx, const tl_pass_info *const *p, uint32_t np,
                                 const uint8_t *which, bool own) {
  tl_module *m = ctx->m;
  uint32_t nf = (uint32_t)m->funcs.n;
  uint32_t *order = tl_scratch_realloc(NULL, (size_t)nf + 1, sizeof *order);
  if (!order) return tl_nomem(ctx->err, "function pass runner");
  job j = {.ctx = ctx, .pass = p, .npass = np, .own = own, .failed = UINT32_MAX};
  pthread_mutex_init(&j.lock, NULL);
  loop l = {0, 0, order, run_stack, &j, {0}, false};
  for (uint32_t i = 0; i < nf; i++)
    if (tl_func_defined(TL_FUNC(m, i)) && (!which || which[i])) order[l.n++] = i;
  uint32_t threads = m->arena.lock ? 1 : threads_for(ctx, l.n);
  /* a chosen few (the -optimizing module passes' changed functions) may
   * have grown far beyond their read size: counted */
  if (threads > 1) order_by_size(m, order, l.n, which != NULL);
  run_loop(m, &l, threads);
  tl_status s = first_failure(&j, ctx->err);
  pthread_mutex_destroy(&j.lock);
  tl_free(order);
  return s;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t module_size(tl_module *m) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < m->funcs.n; i++)
    if (TL_FUNC(m, i)->body) n += tl_expr_count(TL_FUNC(m, i)->body);
  return n;
}

/* The error after pass `name` left the module invalid: the validator's,
 * prefixed, keeping its function index. */
static tl_status after_pass(tl_error *err, const char *name) {
  char msg[sizeof err->msg];
  uint32_t fi = err->func_index;
  memcpy(msg, err->msg, sizeof msg);
  tl_status s = tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "after pass %s: %.100s", name, msg);
  err->func_index = fi;
  return s;
}

/* The debugging run of tl_run_func_passes_on: pass by pass over `which`,
 * each validated and reported as OUTER/PASS. */
static tl_status run_debugged(tl_pass_ctx *ctx, const tl_pass_info *const *p, uint32_t np,
                              const uint8_t *which) {
  const tl_pass_options *opt = ctx->opt;
  tl_status s = TL_OK;
  for (uint32_t k = 0; k < np && s == TL_OK; k++) {
    char name[96];
    snprintf(name, sizeof name, "%s/%s", ctx->pass ? ctx->pass : "?", p[k]->name);
    double t0 = now_seconds();
    s = run_func_passes(ctx, &p[k], 1, which, false);
    /* only the bodies the pass ran on: the module pass around it (inlining
     * moves bodies out) may be mid-way; it is validated whole after */
    if (s == TL_OK && opt->validate_each && tl_validate_funcs(ctx->m, which, ctx->err) != TL_OK)
      s = after_pass(ctx->err, name);
    if (opt->on_pass_done) opt->on_pass_done(opt->user, name, now_seconds() - t0, module_size(ctx->m));
  }
  return s;
}

tl_status tl_run_func_passes_on(tl_pass_ctx *ctx, const char *const *names, uint32_t n, const uint8_t *which) {
  const tl_pass_info **stack = tl_scratch_calloc((size_t)n + 1, sizeof *stack);
  if (!stack) return tl_nomem(ctx->err, "function pass runner");
  uint32_t np = 0;
  for (uint32_t k = 0; k < n; k++) {
    const tl_pass_info *pi = tl_pass_find(names[k]);
    if (pi && pi->kind == TL_PASS_FUNC) stack[np++] = pi;
  }
  bool debugged = ctx->opt->validate_each || ctx->opt->on_pass_done;
  tl_status s = !np ? TL_OK
              : debugged ? run_debugged(ctx, stack, np, which)
                         : run_func_passes(ctx, stack, np, which, false);
  tl_free(stack);
  return s;
}

/* The bytes a body was read from no longer describe it once passes ran;
 * the JIT, which compiles those bytes, then asks for the module to be
 * written and read back instead of running stale code. */
static void forget_body_bytes(tl_module *m, uint32_t npasses) {
  if (!npasses) return;
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    if (TL_FUNC(m, i)->lazy) continue; /* untouched: its bytes are its body */
    TL_FUNC(m, i)->code = NULL;
    TL_FUNC(m, i)->code_size = 0;
  }
}

/* ---- lazy bodies ---------------------------------------------------------- */
bool tl_module_has_lazy(const tl_module *m) {
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    if (TL_FUNC(m, i)->lazy) return true;
  return false;
}

/* Every lazy body decoded: the runner with an empty stack (run_stack
 * decodes on first touch), on the pool, biggest first. */
tl_status tl_module_decode_all(tl_module *m, tl_error *err) {
  if (!tl_module_has_lazy(m)) return TL_OK;
  uint8_t *which = tl_scratch_calloc(m->funcs.n + 1, 1);
  if (!which) return tl_nomem(err, "decoding bodies");
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++) which[i] = TL_FUNC(m, i)->lazy;
  tl_pass_options po = {.threads = m->threads};
  tl_pass_ctx ctx = {.m = m, .err = err, .opt = &po};
  tl_status s = run_func_passes(&ctx, NULL, 0, which, !m->capi); /* C API users may hold nodes */
  tl_free(which);
  return s;
}

static void mark_one(void *user, uint32_t i) { tl_nodes_sweep_mark(user, i); }

/* tl_nodes_sweep, its bodies marked on the pool */
static void sweep(tl_pass_ctx *ctx) {
  if (!tl_nodes_sweep_begin(ctx->m)) return;
  tl_run_parallel(ctx, (uint32_t)ctx->m->funcs.n, mark_one, ctx->m);
  tl_nodes_sweep_end(ctx->m);
}

/* opt->on_bodies_decoded, once the last lazy body has been decoded; *told
 * starts true when none was lazy. */
static void tell_decoded(tl_module *m, const tl_pass_options *opt, bool *told) {
  if (*told || tl_module_has_lazy(m)) return;
  *told = true;
  if (opt->on_bodies_decoded) opt->on_bodies_decoded(opt->user);
}

static tl_status run_passes_impl(tl_module *m, const char *const *names, uint32_t n,
                               const tl_pass_options *opt, tl_error *err) {
  tl_pass_options none = {0};
  if (!opt) opt = &none;
  tl_pass_arg *args = tl_calloc(opt->nargs + 1, sizeof *args);
  if (!args) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  for (uint32_t i = 0; i < opt->nargs; i++) args[i] = (tl_pass_arg){opt->arg_keys[i], opt->arg_values[i]};
  tl_pass_ctx ctx = {m, args, opt->nargs, err, opt, NULL};
  const tl_pass_info **stack = tl_calloc(n + 1, sizeof *stack);
  if (!stack) {
    tl_free(args);
    return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  }
  bool one_by_one = opt->validate_each || opt->on_pass_done;
  bool told = !tl_module_has_lazy(m);
  tl_status s = TL_OK;
  for (uint32_t i = 0; i < n && s == TL_OK;) {
    uint32_t np = 0;
    for (; i + np < n; np++) {
      const tl_pass_info *p = tl_pass_find(names[i + np]);
      if (!p) {
        if (np) break;   /* run the stack first, then report */
        s = tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "unknown pass '%s'", names[i]);
        break;
      }
      if (p->kind != TL_PASS_FUNC && np) break;
      stack[np] = p;
      if (p->kind != TL_PASS_FUNC || one_by_one) { np++; break; }
    }
    if (s != TL_OK) break;
    const tl_pass_info *p = stack[0];
    ctx.pass = p->name;
    double t0 = now_seconds();
    if (p->kind == TL_PASS_FUNC) sweep(&ctx);
    /* a module pass that reads bodies sees them all decoded */
    if (p->kind != TL_PASS_FUNC && !p->lazy) s = tl_module_decode_all(m, err);
    if (s == TL_OK) tell_decoded(m, opt, &told);
    /* C API users may hold nodes: bodies stay where they are */
    if (s == TL_OK)
      s = p->kind == TL_PASS_FUNC ? run_func_passes(&ctx, stack, np, NULL, !m->capi) : p->module(&ctx);
    if (s == TL_OK) tell_decoded(m, opt, &told);
    /* a module pass may have changed a function's type under its ref.funcs */
    if (s == TL_OK && p->kind != TL_PASS_FUNC && m->typed_funcs) tl_module_retype_ref_funcs(m);
    /* and may have moved a non-nullable local's set away from its reads */
    bool gc_used = s == TL_OK && p->kind != TL_PASS_FUNC && (m->features & TL_FEAT_GC) && tl_module_uses_gc(m);
    for (uint32_t k = m->nimported_funcs; s == TL_OK && p->kind != TL_PASS_FUNC && (m->features & TL_FEAT_GC) &&
                                          k < m->funcs.n; k++)
      if (!TL_FUNC(m, k)->lazy && TL_FUNC(m, k)->body) {
        if (gc_used) tl_func_refinalize(m, TL_FUNC(m, k)); /* (types made exact, as after function passes) */
        tl_func_fix_local_init(m, TL_FUNC(m, k));
      }
    i += np;
    if (s == TL_OK && opt->validate_each && tl_validate_module(m, err) != TL_OK)
      s = after_pass(err, p->name);
    if (opt->on_pass_done) opt->on_pass_done(opt->user, p->name, now_seconds() - t0, module_size(m));
  }
  tl_free(stack);
  tl_free(args);
  forget_body_bytes(m, n);
  sweep(&ctx);
  return s;
}

typedef struct {
  tl_module *m;
  const char *const *names;
  uint32_t n;
  const tl_pass_options *opt;
} passes_call;

static tl_status passes_in_scope(void *c, tl_error *err) {
  passes_call *p = c;
  return run_passes_impl(p->m, p->names, p->n, p->opt, err);
}

/* In an out-of-memory scope (oom.c): out of memory anywhere in the passes
 * is TL_E_NOMEM, and the module can then only be freed. */
tl_status tl_module_run_passes(tl_module *m, const char *const *names, uint32_t n,
                               const tl_pass_options *opt, tl_error *err) {
  passes_call p = {m, names, n, opt};
  return tl_oom_run(m, passes_in_scope, &p, err, "passes");
}
