/* registry.c — the pass registry (expanded from passes.def) and the runner.
 * Function passes run over the functions on a small pthread pool: each
 * worker takes the next function index; the module arena is locked while
 * they run. A pass only touches its own function, so the output does not
 * depend on the thread count or the order functions finish in. A run of
 * consecutive function passes is stacked: a worker runs all of them on one
 * function while it is in cache, then takes the next function (unless each
 * pass is timed or validated on its own). */
#include "passes.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PASS_FN_FUNC(id) tl_pass_##id, NULL
#define PASS_FN_MODULE(id) NULL, tl_pass_##id
static const tl_pass_info registry[] = {
#define PASS(id, name, help, kind) {name, help, TL_PASS_##kind, PASS_FN_##kind(id)},
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

const char *tl_pass_name(uint32_t i) { return i < NPASSES ? registry[i].name : NULL; }
const char *tl_pass_help(uint32_t i) { return i < NPASSES ? registry[i].help : NULL; }

/* ---- parallel function passes ------------------------------------------ */
typedef struct {
  tl_pass_ctx *ctx;
  const tl_pass_info *const *pass;   /* the stack, run in order */
  uint32_t npass;
  atomic_uint next;
  uint32_t nfuncs;
  tl_status *status;  /* per function */
  tl_error *errs;     /* per function */
} job;

static void *worker(void *arg) {
  job *j = arg;
  for (;;) {
    uint32_t i = atomic_fetch_add(&j->next, 1);
    if (i >= j->nfuncs) break;
    tl_func *f = TL_FUNC(j->ctx->m, i);
    if (!f->body) continue;
    tl_pass_ctx c = *j->ctx;
    c.err = &j->errs[i];
    for (uint32_t k = 0; k < j->npass && j->status[i] == TL_OK; k++)
      j->status[i] = j->pass[k]->func(&c, f);
  }
  return NULL;
}

static uint32_t default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 64 ? 64 : (uint32_t)n;
}

/* The first failing function (by index) reports, whatever the scheduling. */
static tl_status first_failure(job *j, tl_error *err) {
  for (uint32_t i = 0; i < j->nfuncs; i++) {
    if (j->status[i] == TL_OK) continue;
    if (err) {
      *err = j->errs[i];
      err->func_index = i;
    }
    return j->status[i];
  }
  return TL_OK;
}

static tl_status run_func_passes(tl_pass_ctx *ctx, const tl_pass_info *const *p, uint32_t np,
                                 uint32_t threads) {
  tl_module *m = ctx->m;
  job j = {ctx, p, np, 0, (uint32_t)m->funcs.n, calloc(m->funcs.n + 1, sizeof(tl_status)),
           calloc(m->funcs.n + 1, sizeof(tl_error))};
  if (!j.status || !j.errs) abort();
  if (threads == 0) threads = default_threads();
  if (threads > j.nfuncs) threads = j.nfuncs ? j.nfuncs : 1;
  if (threads <= 1) {
    worker(&j);
  } else {
    pthread_mutex_t lock;
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&lock, &attr);
    m->arena.lock = &lock;
    pthread_t *tid = calloc(threads, sizeof *tid);
    if (!tid) abort();
    uint32_t started = 0;
    for (; started < threads; started++)
      if (pthread_create(&tid[started], NULL, worker, &j)) break;
    if (started == 0) worker(&j);
    for (uint32_t i = 0; i < started; i++) pthread_join(tid[i], NULL);
    free(tid);
    m->arena.lock = NULL;
    pthread_mutex_destroy(&lock);
    pthread_mutexattr_destroy(&attr);
  }
  tl_status s = first_failure(&j, ctx->err);
  free(j.status);
  free(j.errs);
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

/* The bytes a body was read from no longer describe it once passes ran;
 * the JIT, which compiles those bytes, then asks for the module to be
 * written and read back instead of running stale code. */
static void forget_body_bytes(tl_module *m, uint32_t npasses) {
  if (!npasses) return;
  for (uint32_t i = 0; i < m->funcs.n; i++) {
    TL_FUNC(m, i)->code = NULL;
    TL_FUNC(m, i)->code_size = 0;
  }
}

tl_status tl_module_run_passes(tl_module *m, const char *const *names, uint32_t n,
                               const tl_pass_options *opt, tl_error *err) {
  tl_pass_options none = {0};
  if (!opt) opt = &none;
  tl_pass_arg *args = calloc(opt->nargs + 1, sizeof *args);
  if (!args) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  for (uint32_t i = 0; i < opt->nargs; i++) args[i] = (tl_pass_arg){opt->arg_keys[i], opt->arg_values[i]};
  tl_pass_ctx ctx = {m, args, opt->nargs, err, opt};
  const tl_pass_info **stack = calloc(n + 1, sizeof *stack);
  if (!stack) {
    free(args);
    return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  }
  bool one_by_one = opt->validate_each || opt->on_pass_done;
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
    double t0 = now_seconds();
    s = p->kind == TL_PASS_FUNC ? run_func_passes(&ctx, stack, np, opt->threads) : p->module(&ctx);
    i += np;
    if (s == TL_OK && opt->validate_each && tl_validate_module(m, err) != TL_OK) {
      char msg[sizeof err->msg];
      uint32_t fi = err->func_index;
      memcpy(msg, err->msg, sizeof msg);
      s = tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "after pass %s: %.100s", p->name, msg);
      err->func_index = fi;
    }
    if (opt->on_pass_done) opt->on_pass_done(opt->user, p->name, now_seconds() - t0, module_size(m));
  }
  free(stack);
  free(args);
  forget_body_bytes(m, n);
  return s;
}
