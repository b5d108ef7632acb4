/* oom.c — out of memory is an error: the scope a public entry point runs
 * its work in, and the ledger of the scratch memory allocated under it.
 *
 * Every scratch allocation of the library (tl_malloc, tl_calloc,
 * tl_realloc, tl_scratch_*, tl_vec and tl_buf growth) made while a scope
 * runs on this thread is listed in the scope's ledger, and tl_free takes
 * it off. An allocation that has no way to report failure (vector or
 * buffer growth, an arena chunk, a module table) calls tl_oom_fail, which
 * longjmps to the scope: it frees what the ledger still lists (the memory
 * of the stack frames it unwound) and the entry point returns TL_E_NOMEM.
 * Memory the module owns (its vectors, its hash tables and body blocks:
 * tl_mod_*) is never listed, since the module outlives the failed call.
 * Worker threads run under the scope of the thread that started them
 * (tl_oom_worker) and share its ledger, which is locked per shard. Outside
 * any scope nothing is listed and tl_oom_fail aborts (a bug: an entry
 * point without a scope). Objects with memory of their own kinds (a
 * store's mappings) are guarded: a failure tears them down. The test hook tl_scratch_fail_nth fails the
 * n-th allocation of any of these kinds. */
#include "ir.h"

#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- the test hook -------------------------------------------------------- */
/* The countdown: the allocation that takes it from 1 to 0 fails. */
static _Atomic uint64_t fail_nth;

uint64_t tl_scratch_fail_nth(uint64_t n) { return atomic_exchange(&fail_nth, n); }

bool tl_alloc_fails_now(void) {
  uint64_t n = atomic_load_explicit(&fail_nth, memory_order_relaxed);
  if (!n) return false;
  while (n && !atomic_compare_exchange_weak(&fail_nth, &n, n - 1)) {}
  return n == 1;
}

/* ---- the ledger ------------------------------------------------------------- */
/* Open addressing per shard (0 empty, 1 deleted, else a block), grown at
 * half load so that an insert always finds a slot; lossy is set if growing
 * failed with the shard full (a block then goes unlisted: the only leak
 * left, and only when the ledger's own memory cannot be had). */
enum { SHARDS = 16, EMPTY = 0, DELETED = 1 };

typedef struct {
  pthread_mutex_t lock;
  uintptr_t *slot;
  size_t cap, used, live; /* used counts deleted slots too */
} shard;

struct tl_ledger {
  shard s[SHARDS];
  bool lossy;
  pthread_mutex_t guard_lock;
  tl_oom_guard guards;     /* a ring: objects to tear down on a failure */
};

static uint64_t hash(uintptr_t p) { return (uint64_t)(p >> 4) * 0x9E3779B97F4A7C15ull; }

static shard *shard_of(tl_ledger *l, uintptr_t p) { return &l->s[hash(p) >> 60]; }

static void place(uintptr_t *slot, size_t cap, uintptr_t p) {
  size_t i = (size_t)hash(p) & (cap - 1);
  while (slot[i] > DELETED) i = (i + 1) & (cap - 1);
  slot[i] = p;
}

static bool rehash(shard *s, size_t cap) {
  uintptr_t *t = calloc(cap, sizeof *t);
  if (!t) return false;
  for (size_t i = 0; i < s->cap; i++)
    if (s->slot[i] > DELETED) place(t, cap, s->slot[i]);
  free(s->slot);
  s->slot = t;
  s->cap = cap;
  s->used = s->live;
  return true;
}

static void ledger_add(tl_ledger *l, void *block) {
  uintptr_t p = (uintptr_t)block;
  shard *s = shard_of(l, p);
  pthread_mutex_lock(&s->lock);
  if ((s->used + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while ((s->live + 1) * 2 > cap / 2) cap *= 2; /* a quarter full after */
    if (!rehash(s, cap) && s->used + 1 >= s->cap) {
      l->lossy = true;
      pthread_mutex_unlock(&s->lock);
      return;
    }
  }
  size_t i = (size_t)hash(p) & (s->cap - 1);
  while (s->slot[i] > DELETED) i = (i + 1) & (s->cap - 1);
  if (s->slot[i] == EMPTY) s->used++;
  s->slot[i] = p;
  s->live++;
  pthread_mutex_unlock(&s->lock);
}

/* Takes block off; false if it was not listed. */
static bool ledger_remove(tl_ledger *l, void *block) {
  uintptr_t p = (uintptr_t)block;
  shard *s = shard_of(l, p);
  bool found = false;
  pthread_mutex_lock(&s->lock);
  if (s->cap)
    for (size_t i = (size_t)hash(p) & (s->cap - 1); s->slot[i] != EMPTY; i = (i + 1) & (s->cap - 1))
      if (s->slot[i] == p) {
        s->slot[i] = DELETED;
        s->live--;
        found = true;
        break;
      }
  pthread_mutex_unlock(&s->lock);
  return found;
}

static tl_ledger *ledger_new(void) {
  tl_ledger *l = calloc(1, sizeof *l);
  if (!l) return NULL;
  for (int i = 0; i < SHARDS; i++) pthread_mutex_init(&l->s[i].lock, NULL);
  pthread_mutex_init(&l->guard_lock, NULL);
  l->guards.next = l->guards.prev = &l->guards;
  return l;
}

/* The guarded objects: torn down (a failed call; their teardown takes
 * their blocks off the ledger) or let go (a call that worked). */
static void guards_end(tl_ledger *l, bool failed) {
  for (;;) {
    pthread_mutex_lock(&l->guard_lock);
    tl_oom_guard *g = l->guards.next;
    if (g == &l->guards) {
      pthread_mutex_unlock(&l->guard_lock);
      return;
    }
    g->prev->next = g->next;
    g->next->prev = g->prev;
    g->next = g->prev = NULL;
    g->ledger = NULL;
    pthread_mutex_unlock(&l->guard_lock);
    if (failed) g->teardown(g->arg);
  }
}

/* free_blocks: the blocks still listed are freed too (a failed call). */
static void ledger_free(tl_ledger *l, bool free_blocks) {
  pthread_mutex_destroy(&l->guard_lock);
  for (int i = 0; i < SHARDS; i++) {
    shard *s = &l->s[i];
    for (size_t k = 0; free_blocks && k < s->cap; k++)
      if (s->slot[k] > DELETED) free((void *)s->slot[k]);
    free(s->slot);
    pthread_mutex_destroy(&s->lock);
  }
  free(l);
}

/* ---- the scope of this thread --------------------------------------------- */
static _Thread_local struct {
  jmp_buf *jb;          /* where tl_oom_fail goes; NULL: abort */
  bool active;          /* in a scope */
  tl_ledger *ledger;    /* the scope's, made at its first listed block */
  const tl_module *m;   /* whose vectors are its own, not listed */
} here;

/* The scope's ledger, made if need be; NULL outside a scope or when it
 * cannot be made. A scope that lists nothing (most builder calls) costs a
 * setjmp. */
static tl_ledger *ledger_here(void) {
  if (here.active && !here.ledger) here.ledger = ledger_new();
  return here.ledger;
}

tl_oom_ctx tl_oom_here(void) {
  if (here.active && !ledger_here()) tl_oom_fail();
  return (tl_oom_ctx){here.ledger, here.m};
}

void tl_oom_guard_add(tl_oom_guard *g, void (*teardown)(void *arg), void *arg) {
  tl_ledger *l = ledger_here(); /* NULL: not guarded (only a leak, on failure) */
  g->teardown = teardown;
  g->arg = arg;
  g->ledger = l;
  g->next = g->prev = NULL;
  if (!l) return;
  pthread_mutex_lock(&l->guard_lock);
  g->next = l->guards.next;
  g->prev = &l->guards;
  g->next->prev = g;
  l->guards.next = g;
  pthread_mutex_unlock(&l->guard_lock);
}

void tl_oom_guard_remove(tl_oom_guard *g) {
  tl_ledger *l = g->ledger;
  if (!l || l != here.ledger) return; /* its scope ended (or is another's) */
  pthread_mutex_lock(&l->guard_lock);
  if (g->next) {
    g->prev->next = g->next;
    g->next->prev = g->prev;
    g->next = g->prev = NULL;
  }
  g->ledger = NULL;
  pthread_mutex_unlock(&l->guard_lock);
}

void tl_oom_fail(void) {
  if (here.jb) longjmp(*here.jb, 1);
  abort();
}

bool tl_oom_enter(tl_oom_frame *f, const tl_module *m) {
  if (here.active) return false; /* inside a scope already: it is the one */
  here.jb = &f->jb;
  here.active = true;
  here.ledger = NULL;
  here.m = m;
  return true;
}

void tl_oom_leave(tl_oom_frame *f, bool failed) {
  (void)f;
  if (failed) tl_nodes_abandon();
  here.jb = NULL;         /* a teardown out of memory aborts */
  tl_ledger *l = here.ledger;
  if (l) guards_end(l, failed); /* (their tl_free still takes blocks off) */
  here.active = false;
  here.ledger = NULL;
  here.m = NULL;
  /* a failed call returns nothing it allocated: what the ledger still lists
   * is what its unwound frames (or a worker's) held */
  if (l) ledger_free(l, failed);
}

tl_status tl_oom_run(const tl_module *m, tl_status (*fn)(void *ctx, tl_error *err), void *ctx,
                     tl_error *err, const char *what) {
  tl_oom_frame f;
  if (!tl_oom_enter(&f, m)) return fn(ctx, err);
  volatile tl_status st = TL_E_NOMEM;
  if (!setjmp(f.jb)) st = fn(ctx, err);
  else tl_nomem(err, what);
  if (st == TL_E_NOMEM && err && err->code != TL_E_NOMEM) tl_nomem(err, what);
  tl_oom_leave(&f, st == TL_E_NOMEM);
  return st;
}

bool tl_oom_worker(const tl_oom_ctx *ctx, void (*fn)(void *arg), void *arg) {
  jmp_buf jb, *outer_jb = here.jb;
  bool outer_active = here.active;
  tl_ledger *outer_ledger = here.ledger;
  const tl_module *outer_m = here.m;
  here.jb = &jb;
  here.active = ctx->ledger != NULL;
  here.ledger = ctx->ledger;
  here.m = ctx->m;
  /* a worker nested in a node build (the interpreter's compile inside a
   * pass) leaves that build alone; one that began it drops it */
  bool building = tl_nodes_active();
  bool ok = true;
  if (setjmp(jb)) {
    if (!building) tl_nodes_abandon();
    ok = false;
  } else {
    fn(arg);
  }
  here.jb = outer_jb;
  here.active = outer_active;
  here.ledger = outer_ledger;
  here.m = outer_m;
  return ok;
}

/* ---- allocation ----------------------------------------------------------- */
static void *listed(void *p) {
  if (!p || !here.active) return p;
  tl_ledger *l = ledger_here();
  if (!l) {
    free(p);
    return NULL;
  }
  ledger_add(l, p);
  return p;
}

void *tl_malloc(size_t n) {
  if (tl_alloc_fails_now()) return NULL;
  return listed(malloc(n ? n : 1));
}

void *tl_calloc(size_t n, size_t size) {
  if (tl_alloc_fails_now()) return NULL;
  return listed(calloc(n ? n : 1, size ? size : 1));
}

/* old bytes of p are kept (p stays valid when NULL is returned) */
static void *move_block(void *p, size_t old, size_t n, bool small) {
  if (tl_alloc_fails_now()) return NULL;
  bool was = p && here.ledger && ledger_remove(here.ledger, p);
  void *q;
  if (small || !p) {
    q = malloc(n);
    if (q && p) {
      memcpy(q, p, old < n ? old : n);
      free(p);
    }
  } else {
    q = realloc(p, n);
  }
  if (!q) {
    if (was) ledger_add(here.ledger, p);
    return NULL;
  }
  /* a block listed before stays listed; a new one is listed (if the
   * ledger cannot be made, q is only lost on a failure) */
  if (was || !p) {
    tl_ledger *l = ledger_here();
    if (l) ledger_add(l, q);
  }
  return q;
}

void *tl_realloc(void *p, size_t n) {
  if (!n) n = 1;
  return move_block(p, p ? malloc_usable_size(p) : 0, n, false);
}

void tl_oom_keep(void *p) {
  if (p && here.ledger) ledger_remove(here.ledger, p);
}

void tl_free(void *p) {
  if (!p) return;
  if (here.ledger) ledger_remove(here.ledger, p);
  free(p);
}

/* glibc serves small malloc and free from a per-thread cache without a
 * lock, but realloc always locks the arena, which the pass threads share:
 * small blocks are moved by hand instead. */
enum { SMALL_BLOCK = 1024 };

void *tl_grow_block(void *p, size_t old, size_t n) { return move_block(p, old, n, n <= SMALL_BLOCK); }

void *tl_scratch_realloc(void *p, size_t n, size_t size) {
  if (n == 0) n = 1;
  if (size && n > SIZE_MAX / size) return NULL;
  return tl_realloc(p, n * (size ? size : 1));
}

void *tl_scratch_calloc(size_t n, size_t size) {
  if (n == 0) n = 1;
  if (!size) size = 1;
  if (n > SIZE_MAX / size) return NULL;
  if (n * size > SMALL_BLOCK) return tl_calloc(n, size);
  void *p = tl_malloc(n * size); /* calloc locks; see SMALL_BLOCK */
  if (p) memset(p, 0, n * size);
  return p;
}

/* Module-owned memory: never listed (the module outlives a failed call). */
void *tl_mod_calloc(size_t n, size_t size) {
  if (tl_alloc_fails_now()) return NULL;
  if (size && n > SIZE_MAX / size) return NULL;
  return calloc(n ? n : 1, size ? size : 1);
}

void *tl_mod_malloc(size_t n) {
  if (tl_alloc_fails_now()) return NULL;
  return malloc(n ? n : 1);
}

bool tl_oom_owned_by_module(const void *v) {
  const char *p = v, *m = (const char *)here.m;
  return m && p >= m && p < m + sizeof(tl_module);
}

void *tl_mod_grow_block(void *p, size_t n) {
  if (tl_alloc_fails_now()) return NULL;
  return realloc(p, n);
}
