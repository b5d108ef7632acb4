/* arena.c — bump allocation in chunks, and the malloc'd scratch vectors.
 * A module's arenas own every node, name and vector of that module; nothing
 * is freed alone. Big chunks are mapped directly, so that their untouched
 * pages cost no memory and freeing them returns it at once. On allocation
 * failure the arena longjmps to a->oom when the public entry point set one,
 * and aborts otherwise (a bug: no entry point). */
#include "ir.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct tl_arena_chunk {
  tl_arena_chunk *next;
  size_t size;             /* bytes of data[] */
  bool mapped;             /* mmap'd, not malloc'd */
  max_align_t data[];
};

enum { CHUNK_MIN = 64 * 1024, MAP_MIN = 256 * 1024 };

/* Under AddressSanitizer every chunk comes from malloc, which it checks. */
#if defined(__SANITIZE_ADDRESS__)
#define MAP_CHUNKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MAP_CHUNKS 0
#endif
#endif
#ifndef MAP_CHUNKS
#define MAP_CHUNKS 1
#endif

static tl_arena_chunk *chunk_get(size_t size) {
  size_t bytes = sizeof(tl_arena_chunk) + size;
  if (MAP_CHUNKS && bytes >= MAP_MIN) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    bytes = (bytes + page - 1) & ~(page - 1);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

static void chunk_put(tl_arena_chunk *c) {
  if (c->mapped) munmap(c, sizeof *c + c->size);
  else free(c);
}

__attribute__((noreturn)) static void out_of_memory(tl_arena *a) {
  if (a && a->oom) longjmp(*a->oom, 1);
  abort();
}

void tl_arena_oom(tl_arena *a) { out_of_memory(a); }

void tl_arena_init(tl_arena *a) { memset(a, 0, sizeof *a); }

void tl_arena_free(tl_arena *a) {
  tl_arena_chunk *c = a->head;
  while (c) {
    tl_arena_chunk *next = c->next;
    chunk_put(c);
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
    chunk_put(c);
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
    chunk_put(c);
  }
}

static void new_chunk(tl_arena *a, size_t need) {
  size_t size = a->total < CHUNK_MIN ? CHUNK_MIN : a->total; /* doubles */
  if (size < need) size = need;
  if (size > SIZE_MAX / 2) out_of_memory(a);
  tl_arena_chunk *c = chunk_get(size);
  if (!c) out_of_memory(a);
  c->next = a->head;
  a->head = c;
  a->p = (uint8_t *)c->data;
  a->end = a->p + c->size;
  a->total += c->size;
}

static void *alloc_unlocked(tl_arena *a, size_t n, size_t align) {
  if (n == 0) n = 1;
  uintptr_t p = ((uintptr_t)a->p + (align - 1)) & ~(uintptr_t)(align - 1);
  if (!a->p || p > (uintptr_t)a->end || n > (size_t)((uintptr_t)a->end - p)) {
    if (n > SIZE_MAX - align) out_of_memory(a);
    new_chunk(a, n + align);
    p = ((uintptr_t)a->p + (align - 1)) & ~(uintptr_t)(align - 1);
  }
  a->p = (uint8_t *)(p + n);
  return (void *)p;
}

void *tl_arena_alloc(tl_arena *a, size_t n, size_t align) {
  if (!a->lock) return alloc_unlocked(a, n, align);
  pthread_mutex_lock(a->lock);
  void *p = alloc_unlocked(a, n, align);
  pthread_mutex_unlock(a->lock);
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

/* The test hook's countdown: the allocation that takes it from 1 to 0 fails. */
static _Atomic uint64_t fail_nth;

uint64_t tl_scratch_fail_nth(uint64_t n) { return atomic_exchange(&fail_nth, n); }

static bool fail_now(void) {
  uint64_t n = fail_nth;
  while (n && !atomic_compare_exchange_weak(&fail_nth, &n, n - 1)) {}
  return n == 1;
}

/* glibc serves small malloc and free from a per-thread cache without a
 * lock, but realloc and calloc always lock the arena, which the pass
 * threads share (tilt-opt keeps one arena): small blocks are moved and
 * cleared here instead. */
enum { SMALL_BLOCK = 1024 };

static void *grow_block(void *p, size_t old, size_t n) {
  if (n > SMALL_BLOCK) return realloc(p, n);
  void *q = malloc(n);
  if (q && p) {
    memcpy(q, p, old < n ? old : n);
    free(p);
  }
  return q;
}

void *tl_scratch_realloc(void *p, size_t n, size_t size) {
  if (n == 0) n = 1;
  if (size && n > SIZE_MAX / size) return NULL;
  if (fail_now()) return NULL;
  if (!p) return malloc(n * size);
  return realloc(p, n * size);
}

void *tl_scratch_calloc(size_t n, size_t size) {
  if (n == 0) n = 1;
  if (!size) size = 1;
  if (fail_now()) return NULL;
  if (n > SMALL_BLOCK / size) return calloc(n, size);
  void *p = malloc(n * size);
  if (p) memset(p, 0, n * size);
  return p;
}

/* tl_vec and tl_buf growth still abort() when out of memory: they have no
 * status to return and no arena to longjmp through, and TL_VEC_PUSH is used
 * everywhere; code that must survive out of memory sizes its scratch with
 * tl_scratch_calloc / tl_scratch_realloc instead (not converted yet). */
void tl_vec_grow(tl_vec *v, size_t elem, size_t want) {
  if (want <= v->cap) return;
  size_t cap = v->cap ? v->cap * 2 : 8;
  while (cap < want) cap *= 2;
  if (cap > SIZE_MAX / elem) abort();
  void *p = grow_block(v->p, v->cap * elem, cap * elem);
  if (!p) abort();
  v->p = p;
  v->cap = cap;
}

void tl_vec_free(tl_vec *v) {
  free(v->p);
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
  if (v->p != inl) free(v->p);
  v->p = NULL, v->n = v->cap = 0;
}

void tl_buf_grow(tl_buf *b, size_t want) {
  if (want <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < want) cap *= 2;
  uint8_t *q = grow_block(b->p, b->cap, cap);
  if (!q) abort();
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
  char *big = malloc((size_t)n + 1);
  if (!big) abort();
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  tl_buf_put(b, big, (size_t)n);
  free(big);
}

void tl_buf_free(tl_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}
