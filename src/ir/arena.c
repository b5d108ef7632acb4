/* arena.c — bump allocation in chunks, the chunk cache, and the malloc'd
 * scratch vectors. A module's arenas own every node, name and vector of that
 * module; nothing is freed alone. Big chunks are mapped directly, so that
 * their untouched pages cost no memory and freeing them returns it at once.
 * An arena with a chunk cache (a module's node scratch) and big body blocks
 * give their chunks back to the cache and take them from it again, so that
 * work done function by function does not map and unmap (and fault in) the
 * same memory for each function. On allocation failure the arena longjmps
 * to a->oom when its user set one, and otherwise fails the scope
 * (tl_oom_fail, oom.c). */
#include "ir.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#define TL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_ASAN 1
#endif
#endif
#ifdef TL_ASAN
#include <sanitizer/asan_interface.h>
#endif

struct tl_arena_chunk {
  tl_arena_chunk *next;
  size_t size;             /* bytes of data[] */
  bool mapped;             /* mmap'd, not malloc'd */
  max_align_t data[];
};

enum { CHUNK_MIN = 64 * 1024, MAP_MIN = 256 * 1024 };

/* Under AddressSanitizer every chunk comes from malloc, which it checks
 * (and cached chunks are poisoned, so that a use after giving back is
 * caught). */
#ifdef TL_ASAN
#define MAP_CHUNKS 0
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define MAP_CHUNKS 1
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static size_t round_page(size_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (n + page - 1) & ~(page - 1);
}

/* A new chunk of at least size bytes; mapped when map or big, and then
 * with its pages in place when fill (the caller writes them all at once:
 * one call instead of a page fault per page). */
static tl_arena_chunk *chunk_new(size_t size, bool map, bool fill) {
  size_t bytes = sizeof(tl_arena_chunk) + size;
  if (MAP_CHUNKS && (map || bytes >= MAP_MIN)) {
    bytes = round_page(bytes);
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (fill ? MAP_POPULATE : 0);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED) return NULL;
    tl_arena_chunk *c = p;
    c->size = bytes - sizeof *c;
    c->mapped = true;
    return c;
  }
  tl_arena_chunk *c = malloc(bytes);
  if (!c) return NULL;
  c->size = size;
  c->mapped = false;
  return c;
}

static void chunk_release(tl_arena_chunk *c) {
  if (c->mapped) munmap(c, sizeof *c + c->size);
  else free(c);
}

/* ---- the chunk cache ------------------------------------------------------
 * Chunks given back wait here for the next taker: the best fit, whose tail
 * is cut off and kept when it is SPLIT_MIN or more past what was asked
 * (mapped chunks only). What the cache holds is resident, so it holds
 * little: at most four times the demand (the biggest recent request, which
 * decays by a sixteenth per request, as the pass runner and the reader take
 * the biggest functions first) and CACHE_MAX bytes, in at most CACHE_NMAX
 * chunks; the oldest go first. */
enum { CACHE_MAX = 32 << 20, CACHE_NMAX = 64, SPLIT_MIN = 64 * 1024 };

struct tl_chunk_cache {
  pthread_mutex_t lock;
  tl_arena_chunk *head;    /* newest first */
  size_t bytes;            /* data bytes of the chunks held */
  size_t demand;
  uint32_t n;
};

tl_chunk_cache *tl_chunk_cache_new(void) {
  tl_chunk_cache *k = calloc(1, sizeof *k);
  if (k) pthread_mutex_init(&k->lock, NULL);
  return k;
}

static void release_all(tl_arena_chunk *c) {
  while (c) {
    tl_arena_chunk *next = c->next;
    UNPOISON(c->data, c->size);
    chunk_release(c);
    c = next;
  }
}

void tl_chunk_cache_trim(tl_chunk_cache *k) {
  if (!k) return;
  pthread_mutex_lock(&k->lock);
  tl_arena_chunk *all = k->head;
  k->head = NULL;
  k->bytes = k->demand = 0;
  k->n = 0;
  pthread_mutex_unlock(&k->lock);
  release_all(all);
}

void tl_chunk_cache_free(tl_chunk_cache *k) {
  if (!k) return;
  tl_chunk_cache_trim(k);
  pthread_mutex_destroy(&k->lock);
  free(k);
}

size_t tl_chunk_cache_held(tl_chunk_cache *k) {
  if (!k) return 0;
  pthread_mutex_lock(&k->lock);
  size_t n = k->bytes;
  pthread_mutex_unlock(&k->lock);
  return n;
}

static void push(tl_chunk_cache *k, tl_arena_chunk *c) {
  POISON(c->data, c->size);
  c->next = k->head;
  k->head = c;
  k->bytes += c->size;
  k->n++;
}

/* Unlinks the oldest chunks while the cache holds too much; returns them. */
static tl_arena_chunk *overflow(tl_chunk_cache *k) {
  size_t cap = k->demand < CACHE_MAX / 4 ? 4 * k->demand : CACHE_MAX;
  tl_arena_chunk *out = NULL;
  while (k->head && (k->bytes > cap || k->n > CACHE_NMAX)) {
    tl_arena_chunk **l = &k->head;
    while ((*l)->next) l = &(*l)->next;
    tl_arena_chunk *c = *l;
    *l = NULL;
    k->bytes -= c->size;
    k->n--;
    c->next = out;
    out = c;
  }
  return out;
}

/* c's first size bytes (page-rounded) stay c; the rest becomes a chunk of
 * its own, returned (NULL when c is not mapped or the rest is small). */
static tl_arena_chunk *split(tl_arena_chunk *c, size_t size) {
  size_t keep = round_page(sizeof *c + size), all = sizeof *c + c->size;
  if (!c->mapped || all < keep + SPLIT_MIN) return NULL;
  tl_arena_chunk *t = (tl_arena_chunk *)((uint8_t *)c + keep);
  t->size = all - keep - sizeof *t;
  t->mapped = true;
  c->size = keep - sizeof *c;
  return t;
}

/* A chunk of at least size bytes that can serve it without waste: mapped
 * (split), or at most twice as big. */
static bool fits(const tl_arena_chunk *c, size_t size) {
  return c->size >= size && (c->mapped || c->size / 2 <= size);
}

static tl_arena_chunk *cache_take(tl_chunk_cache *k, size_t size) {
  if (!k) return NULL;
  pthread_mutex_lock(&k->lock);
  k->demand = size > k->demand - k->demand / 16 ? size : k->demand - k->demand / 16;
  tl_arena_chunk **best = NULL;
  for (tl_arena_chunk **l = &k->head; *l; l = &(*l)->next)
    if (fits(*l, size) && (!best || (*l)->size < (*best)->size)) best = l;
  tl_arena_chunk *c = best ? *best : NULL, *t = NULL;
  if (c) {
    *best = c->next;
    k->bytes -= c->size;
    k->n--;
    UNPOISON(c->data, c->size);
    if ((t = split(c, size))) push(k, t);
  }
  tl_arena_chunk *out = overflow(k);
  pthread_mutex_unlock(&k->lock);
  release_all(out);
  return c;
}

/* Keeps c (false: k is NULL or c too big to keep; the caller releases it). */
static bool cache_give(tl_chunk_cache *k, tl_arena_chunk *c) {
  if (!k || c->size > CACHE_MAX) return false;
  pthread_mutex_lock(&k->lock);
  push(k, c);
  tl_arena_chunk *out = overflow(k);
  pthread_mutex_unlock(&k->lock);
  release_all(out);
  return true;
}

static tl_arena_chunk *chunk_get(tl_chunk_cache *k, size_t size, bool fill) {
  if (tl_alloc_fails_now()) return NULL;
  tl_arena_chunk *c = cache_take(k, size);
  return c ? c : chunk_new(size, k != NULL, fill);
}

static void chunk_put(tl_chunk_cache *k, tl_arena_chunk *c) {
  if (!cache_give(k, c)) chunk_release(c);
}

static tl_arena_chunk *chunk_of(void *p) {
  return (tl_arena_chunk *)((uint8_t *)p - offsetof(tl_arena_chunk, data));
}

void *tl_chunk_alloc(tl_chunk_cache *k, size_t n) {
  tl_arena_chunk *c = chunk_get(k, n ? n : 1, true);
  return c ? c->data : NULL;
}

void tl_chunk_free(tl_chunk_cache *k, void *p) {
  if (p) chunk_put(k, chunk_of(p));
}

/* Only whole pages inside [p, p + n) are touched. Kernels before 5.14 (no
 * MADV_POPULATE_WRITE) ignore it. */
void tl_prefault(void *p, size_t n) {
#ifdef MADV_POPULATE_WRITE
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + n) & ~(page - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
  (void)p, (void)n;
#endif
}

/* ---- arenas ---------------------------------------------------------------- */

__attribute__((noreturn)) static void out_of_memory(tl_arena *a) {
  if (a && a->oom) longjmp(*a->oom, 1);
  tl_oom_fail();
}

void tl_arena_oom(tl_arena *a) { out_of_memory(a); }

void tl_arena_init(tl_arena *a) { memset(a, 0, sizeof *a); }

void tl_arena_free(tl_arena *a) {
  tl_arena_chunk *c = a->head;
  while (c) {
    tl_arena_chunk *next = c->next;
    chunk_put(a->cache, c);
    c = next;
  }
  a->head = NULL;
  a->p = a->end = NULL;
  a->total = 0;
}

void tl_arena_reset(tl_arena *a) {
  if (!a->head) return;
  tl_arena_chunk *keep = a->head;
  while (keep->next) keep = keep->next; /* the oldest chunk is last */
  tl_arena_chunk *c = a->head;
  while (c != keep) {
    tl_arena_chunk *next = c->next;
    chunk_put(a->cache, c);
    c = next;
  }
  keep->next = NULL;
  a->head = keep;
  a->p = (uint8_t *)keep->data;
  a->end = a->p + keep->size;
  a->total = keep->size;
}

size_t tl_arena_chunks(const tl_arena *a, const void **lo, size_t *size, size_t cap) {
  size_t n = 0;
  for (const tl_arena_chunk *c = a->head; c; c = c->next, n++)
    if (n < cap) {
      lo[n] = c->data;
      size[n] = c->size;
    }
  return n;
}

void tl_arena_drop_chunks(tl_arena *a, const uint8_t *drop) {
  if (!a->head) return;
  tl_arena_chunk **link = &a->head->next;
  for (size_t i = 1; *link; i++) {
    tl_arena_chunk *c = *link;
    if (!drop[i]) {
      link = &c->next;
      continue;
    }
    *link = c->next;
    a->total -= c->size;
    chunk_put(a->cache, c);
  }
}

static bool new_chunk(tl_arena *a, size_t need) {
  size_t size = a->total < CHUNK_MIN ? CHUNK_MIN : a->total; /* doubles */
  if (size < need) size = need;
  if (size > SIZE_MAX / 2) return false;
  tl_arena_chunk *c = chunk_get(a->cache, size, false);
  if (!c) return false;
  c->next = a->head;
  a->head = c;
  a->p = (uint8_t *)c->data;
  a->end = a->p + c->size;
  a->total += c->size;
  return true;
}

/* NULL when out of memory (the caller lets go of any lock, then fails). */
void *tl_arena_try_alloc(tl_arena *a, size_t n, size_t align) {
  if (n == 0) n = 1;
  uintptr_t p = ((uintptr_t)a->p + (align - 1)) & ~(uintptr_t)(align - 1);
  if (!a->p || p > (uintptr_t)a->end || n > (size_t)((uintptr_t)a->end - p)) {
    if (n > SIZE_MAX - align || !new_chunk(a, n + align)) return NULL;
    p = ((uintptr_t)a->p + (align - 1)) & ~(uintptr_t)(align - 1);
  }
  a->p = (uint8_t *)(p + n);
  return (void *)p;
}

void *tl_arena_alloc(tl_arena *a, size_t n, size_t align) {
  void *p;
  if (!a->lock) {
    p = tl_arena_try_alloc(a, n, align);
  } else {
    pthread_mutex_lock(a->lock);
    p = tl_arena_try_alloc(a, n, align);
    pthread_mutex_unlock(a->lock);
  }
  if (!p) out_of_memory(a);
  return p;
}

void *tl_arena_zalloc(tl_arena *a, size_t n, size_t align) {
  void *p = tl_arena_alloc(a, n, align);
  memset(p, 0, n);
  return p;
}

char *tl_arena_strndup(tl_arena *a, const char *s, size_t n) {
  char *d = tl_arena_alloc(a, n + 1, 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

/* tl_vec and tl_buf growth cannot report failure: out of memory is the
 * scope's (tl_oom_fail). A vector inside the module the scope runs on is
 * the module's, not scratch (see oom.c). */
void tl_vec_grow(tl_vec *v, size_t elem, size_t want) {
  if (!tl_vec_try_grow(v, elem, want)) tl_oom_fail();
}

bool tl_vec_try_grow(tl_vec *v, size_t elem, size_t want) {
  if (want <= v->cap) return true;
  size_t cap = v->cap ? v->cap * 2 : 8;
  while (cap < want) cap *= 2;
  if (cap > SIZE_MAX / elem) return false;
  void *p = tl_oom_owned_by_module(v) ? tl_mod_grow_block(v->p, cap * elem)
                                      : tl_grow_block(v->p, v->cap * elem, cap * elem);
  if (!p) return false;
  v->p = p;
  v->cap = cap;
  return true;
}

void tl_vec_free(tl_vec *v) {
  tl_free(v->p);
  v->p = NULL;
  v->n = v->cap = 0;
}

void tl_vec_grow_inl(tl_vec *v, size_t elem, size_t want, const void *inl) {
  if (want <= v->cap) return;
  if (v->p != inl) {
    tl_vec_grow(v, elem, want);
    return;
  }
  tl_vec h = {0};
  tl_vec_grow(&h, elem, want > 2 * v->cap ? want : 2 * v->cap);
  memcpy(h.p, v->p, v->n * elem);
  v->p = h.p, v->cap = h.cap;
}

void tl_vec_free_inl(tl_vec *v, const void *inl) {
  if (v->p != inl) tl_free(v->p);
  v->p = NULL, v->n = v->cap = 0;
}

void tl_buf_grow(tl_buf *b, size_t want) {
  if (want <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < want) cap *= 2;
  uint8_t *q = tl_grow_block(b->p, b->cap, cap);
  if (!q) tl_oom_fail();
  b->p = q;
  b->cap = cap;
}

void tl_buf_printf(tl_buf *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    tl_buf_put(b, small, (size_t)n);
    return;
  }
  char *big = tl_malloc((size_t)n + 1);
  if (!big) tl_oom_fail();
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  tl_buf_put(b, big, (size_t)n);
  tl_free(big);
}

void tl_buf_free(tl_buf *b) {
  tl_free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}
