/* memory.c — the storage of linear memories and tables, shared by the
 * interpreter and the JIT. A memory's bytes live in an address-space
 * reservation made once, at creation (PROT_NONE, MAP_NORESERVE); the first
 * pages*64 KiB are read-write and memory.grow makes the next pages
 * read-write in place: O(delta) page-table work, no copy, and fresh pages
 * read as zero without being touched. The reservation is TL_MEM_RESERVE
 * bytes when the address space allows (what the JIT needs: any 32-bit
 * address plus a 32-bit offset lands inside it, see src/jit/runtime.c),
 * else the memory's maximum, else its minimum; a grow past the reservation
 * fails (memory.grow returns -1), it never aborts. */
#include "runtime.h"

#include <stdlib.h>
#include <sys/mman.h>

static uint8_t *reserve(size_t len) {
  void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

bool tl_mem_init(tl_meminst *mm, uint64_t pages) {
  size_t want[3] = {TL_MEM_RESERVE, (size_t)mm->max * TL_PAGE, (size_t)pages * TL_PAGE};
  mm->data = NULL;
  mm->reserved = 0;
  mm->pages = 0;
  for (int i = 0; i < 3 && !mm->data; i++) {
    size_t len = want[i] ? want[i] : TL_PAGE;    /* never map 0 bytes */
    if (len < (size_t)pages * TL_PAGE) continue;
    if ((mm->data = reserve(len))) mm->reserved = len;
  }
  if (!mm->data) return false;
  if (!tl_mem_grow(mm, pages)) {
    tl_mem_free(mm);
    return false;
  }
  return true;
}

bool tl_mem_grow(tl_meminst *mm, uint64_t delta) {
  if (delta > mm->max - mm->pages) return false; /* (memory64: a delta near 2^64) */
  uint64_t np = mm->pages + delta;
  if (np > mm->max || np * TL_PAGE > mm->reserved) return false;
  if (delta && mprotect(mm->data + mm->pages * TL_PAGE, (size_t)delta * TL_PAGE, PROT_READ | PROT_WRITE))
    return false;
  mm->pages = np;
  return true;
}

void tl_mem_free(tl_meminst *mm) {
  if (mm->data) munmap(mm->data, mm->reserved);
  mm->data = NULL;
  mm->reserved = 0;
}

uint32_t tl_table_grow(tl_tableinst *t, void *init, uint32_t delta) {
  uint32_t old = t->n;
  uint64_t nn = (uint64_t)old + delta;
  if (nn > t->max || nn > 10000000) return UINT32_MAX;
  if (nn > t->cap) {
    uint64_t cap = (uint64_t)t->cap * 2 > nn ? (uint64_t)t->cap * 2 : nn;
    if (cap > 10000000) cap = nn;
    void **e = tl_realloc(t->e, cap * sizeof *e);
    if (!e) return UINT32_MAX;
    t->e = e;
    t->cap = (uint32_t)cap;
  }
  for (uint64_t i = old; i < nn; i++) t->e[i] = init;
  t->n = (uint32_t)nn;
  return old;
}
