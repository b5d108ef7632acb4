/* gc_heap.c — the store's GC heap and runtime types (runtime.h explains
 * the value encoding). Objects of up to SMALL_MAX bytes live in 64 KiB
 * pages of one size class each (free slots on a per-class free list,
 * pages found by address in a sorted array); bigger ones are malloc'd one
 * by one and found through an open-addressing set of their addresses. A
 * collection is mark-sweep:
 * roots are scanned conservatively (every word of the live value stack,
 * globals, tables, element segments and exception payloads that names a
 * heap object), objects precisely by their runtime type, with an explicit
 * mark stack (no recursion on object depth). A collection runs only from
 * an allocation given the stack top (the interpreter's), once the bytes
 * allocated since the last one pass max(threshold, live bytes). Runtime
 * types are canonical per store: a module's canonical rec groups are
 * encoded with outside references as store-wide rtt ids and looked up in
 * the store's registry, so equal types of two modules share one tl_rtt. */
#include "runtime.h"

#include <stdlib.h>

#define TOMB ((tl_gcobj *)(uintptr_t)8)
#define PAGE_BYTES ((size_t)64 << 10)
#define SMALL_MAX 512                   /* bytes, header included */
#define NCLASS 12
static const uint16_t class_size[NCLASS] = {32, 48, 64, 80, 96, 128, 160, 192, 256, 320, 384, 512};

/* A page of slots of one class; a free slot has rtt NULL and links the
 * next free slot of its class at its data. */
typedef struct {
  uint8_t *slots;             /* the first slot (16-aligned) */
  uint32_t size, nslots;      /* slot bytes, slots */
  uint8_t cls;
} gc_page;
#define MIN_THRESHOLD ((size_t)8 << 20)
#define MAX_BYTES ((uint64_t)1 << 32)   /* larger objects fail (a trap) */
#ifdef TILT_GC_STRESS                   /* debugging: collect at every allocation, no pages */
#define STRESS 1
#else
#define STRESS 0
#endif

typedef struct {
  uint64_t hash;
  uint32_t *words, nwords;
  const tl_rtt **rtts;        /* the group's types */
} gc_group;

struct tl_gcheap {
  gc_page **pages;            /* sorted by address */
  size_t npages, pcap;
  tl_gcobj *free[NCLASS];     /* free slots by class */
  size_t nsmall;              /* small objects allocated */
  tl_gcobj **set;             /* big objects: open addressing; NULL empty, TOMB removed */
  size_t cap, n, tombs;
  unsigned shift;             /* 64 - log2(cap) */
  size_t live, since;         /* bytes live after the last collection; allocated since */
  size_t threshold;
  uint64_t collections;
  tl_vec groups;              /* gc_group: the type registry */
  uint32_t *gidx;             /* open addressing over groups by hash: index + 1, 0 empty */
  size_t gcap;
  uint32_t nrtt;
  tl_vec marks;               /* tl_gcobj *: the mark stack */
};

/* ------------------------------------------------------------- the heap */
static tl_gcheap *heap(tl_store *s) {
  if (!s->gc && (s->gc = tl_calloc(1, sizeof *s->gc))) {
    tl_oom_keep(s->gc);
    s->gc->threshold = MIN_THRESHOLD;
  }
  return s->gc;
}

/* Fibonacci hashing: the product's high bits (cap is a power of two). */
static size_t slot_of(const tl_gcheap *h, const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p >> 4;
  return (size_t)((x * 0x9E3779B97F4A7C15ull) >> h->shift);
}

static void set_put(tl_gcheap *h, tl_gcobj *o) {
  size_t i = slot_of(h, o);
  while (h->set[i] && h->set[i] != TOMB) i = (i + 1) & (h->cap - 1);
  h->set[i] = o;
  h->n++;
}

/* Rehashes into a table for at least `want` objects; false when out of memory. */
static bool set_resize(tl_gcheap *h, size_t want) {
  size_t cap = 64;
  while (cap < want * 2) cap *= 2;
  tl_gcobj **old = h->set;
  size_t ocap = h->cap;
  if (!(h->set = tl_calloc(cap, sizeof *h->set))) {
    h->set = old;
    return false;
  }
  tl_oom_keep(h->set);
  h->cap = cap;
  h->shift = 64 - (unsigned)__builtin_ctzll(cap);
  h->n = h->tombs = 0;
  for (size_t i = 0; i < ocap; i++)
    if (old[i] && old[i] != TOMB) set_put(h, old[i]);
  tl_free(old);
  return true;
}

static bool set_has(const tl_gcheap *h, uint64_t w) {
  if (!h->cap) return false;
  const void *p = (const void *)(uintptr_t)w;
  for (size_t i = slot_of(h, p);; i = (i + 1) & (h->cap - 1)) {
    if (!h->set[i]) return false;
    if (h->set[i] == p) return true;
  }
}

/* ------------------------------------------------------------- pages */
/* The page holding address w, or NULL. */
static gc_page *page_of(const tl_gcheap *h, uint64_t w) {
  size_t lo = 0, hi = h->npages;
  while (lo < hi) {   /* the first page above w */
    size_t mid = lo + (hi - lo) / 2;
    if ((uint64_t)(uintptr_t)h->pages[mid] <= w) lo = mid + 1;
    else hi = mid;
  }
  if (!lo) return NULL;
  gc_page *p = h->pages[lo - 1];
  return w < (uint64_t)(uintptr_t)p + PAGE_BYTES ? p : NULL;
}

/* Does w name a live object (small or big)? */
static bool is_obj(const tl_gcheap *h, uint64_t w) {
  gc_page *p = page_of(h, w);
  if (!p) return set_has(h, w);
  uint64_t off = w - (uint64_t)(uintptr_t)p->slots;
  if (w < (uint64_t)(uintptr_t)p->slots || off % p->size || off / p->size >= p->nslots) return false;
  return ((const tl_gcobj *)(uintptr_t)w)->rtt != NULL;
}

static void free_slot(tl_gcheap *h, unsigned c, tl_gcobj *o) {
  o->rtt = NULL;
  memcpy(o->data, &h->free[c], sizeof(tl_gcobj *));
  h->free[c] = o;
}

/* A new page of class c, its slots on the free list; false when out of memory. */
static bool new_page(tl_gcheap *h, unsigned c) {
  if (h->npages == h->pcap) {
    size_t cap = h->pcap ? 2 * h->pcap : 16;
    gc_page **np = tl_realloc(h->pages, cap * sizeof *np);
    if (!np) return false;
    tl_oom_keep(np);
    h->pages = np;
    h->pcap = cap;
  }
  gc_page *p = tl_malloc(PAGE_BYTES);
  if (!p) return false;
  tl_oom_keep(p);
  size_t hdr = (sizeof *p + 15) & ~(size_t)15;
  p->slots = (uint8_t *)p + hdr;
  p->size = class_size[c];
  p->nslots = (uint32_t)((PAGE_BYTES - hdr) / p->size);
  p->cls = (uint8_t)c;
  for (uint32_t i = p->nslots; i-- > 0;) free_slot(h, c, (tl_gcobj *)(void *)(p->slots + (size_t)i * p->size));
  size_t at = h->npages;
  while (at && (uintptr_t)h->pages[at - 1] > (uintptr_t)p) at--;
  memmove(h->pages + at + 1, h->pages + at, (h->npages - at) * sizeof *h->pages);
  h->pages[at] = p;
  h->npages++;
  return true;
}

/* A zeroed slot for an object of `bytes` (<= SMALL_MAX); NULL when out of memory. */
static tl_gcobj *small_alloc(tl_gcheap *h, size_t bytes) {
  unsigned c = 0;
  while (class_size[c] < bytes) c++;
  if (!h->free[c] && !new_page(h, c)) return NULL;
  tl_gcobj *o = h->free[c];
  memcpy(&h->free[c], o->data, sizeof(tl_gcobj *));
  memset(o, 0, class_size[c]);
  h->nsmall++;
  return o;
}

static size_t obj_bytes(const tl_gcobj *o) {
  const tl_rtt *t = o->rtt;
  return sizeof *o + (t->kind == TL_DT_ARRAY ? (size_t)o->len * t->fields[0].size : t->size);
}

/* ------------------------------------------------------------- marking */
static void push(tl_gcheap *h, tl_gcobj *o) {
  if (o->mark) return;
  o->mark = 1;
  if (!tl_vec_try_grow(&h->marks, sizeof o, h->marks.n + 1)) {
    o->mark = 2;   /* no room: a rescan of the heap finds it (see drain) */
    return;
  }
  tl_oom_keep(h->marks.p);
  TL_VEC_AT(&h->marks, tl_gcobj *, h->marks.n++) = o;
}

/* A word of a field or element of trace kind k. */
static void trace_word(tl_gcheap *h, uint64_t v, uint8_t k) {
  if (k == TL_GCF_EXTERN) {
    if (!(v & TL_GC_HOST)) return;
    v ^= TL_GC_HOST;
  }
  if (tl_gc_is_obj(v)) push(h, (tl_gcobj *)(uintptr_t)v);
}

/* A root word: whatever it holds, it counts if it names an object (plain,
 * or internalized into the extern hierarchy). */
static void root_word(tl_gcheap *h, uint64_t w) {
  if (w & TL_GC_HOST) w ^= TL_GC_HOST;
  if (w && !(w & 15) && is_obj(h, w)) push(h, (tl_gcobj *)(uintptr_t)w);
}

static void scan_obj(tl_gcheap *h, tl_gcobj *o) {
  const tl_rtt *t = o->rtt;
  if (t->kind == TL_DT_ARRAY) {
    const tl_gcfield *f = &t->fields[0];
    if (f->trace == TL_GCF_PLAIN) return;
    for (uint32_t i = 0; i < o->len; i++) {
      uint64_t v;
      memcpy(&v, o->data + (size_t)i * 8, 8);
      trace_word(h, v, f->trace);
    }
    return;
  }
  for (uint32_t i = 0; i < t->nfields; i++) {
    const tl_gcfield *f = &t->fields[i];
    if (f->trace == TL_GCF_PLAIN) continue;
    uint64_t v;
    memcpy(&v, o->data + f->offset, 8);
    trace_word(h, v, f->trace);
  }
}

/* Scans o if it was marked but not pushed (mark 2); whether it was. */
static bool rescan(tl_gcheap *h, tl_gcobj *o) {
  if (!o->rtt || o->mark != 2) return false;
  o->mark = 1;
  scan_obj(h, o);
  return true;
}

/* Empties the mark stack. Objects marked 2 (the stack could not grow)
 * are found by rescanning the heap until none is left. */
static void drain(tl_gcheap *h) {
  for (;;) {
    while (h->marks.n) scan_obj(h, TL_VEC_AT(&h->marks, tl_gcobj *, --h->marks.n));
    bool again = false;
    for (size_t i = 0; i < h->cap; i++)
      if (h->set[i] && h->set[i] != TOMB) again |= rescan(h, h->set[i]);
    for (size_t i = 0; i < h->npages; i++)
      for (uint32_t k = 0; k < h->pages[i]->nslots; k++)
        again |= rescan(h, (tl_gcobj *)(void *)(h->pages[i]->slots + (size_t)k * h->pages[i]->size));
    if (!again) return;
  }
}

static void root_slots(tl_gcheap *h, const tl_v *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    root_word(h, p[i].w[0]);
    root_word(h, p[i].w[1]);
  }
}

static void mark_instance(tl_gcheap *h, const tl_instance *inst) {
  const tl_module *m = inst->m;
  for (uint32_t i = 0; inst->globals && i < m->globals.n; i++)
    if (inst->globals[i]) root_slots(h, &inst->globals[i]->v, 1);
  for (uint32_t i = 0; inst->elem && i < m->elems.n; i++)
    for (uint32_t k = 0; inst->elem[i] && k < inst->elem_n[i]; k++)
      root_word(h, (uint64_t)(uintptr_t)inst->elem[i][k]);
}

static void mark_roots(tl_store *s, const tl_v *top) {
  tl_gcheap *h = s->gc;
  if (s->stack && top) root_slots(h, s->stack, (size_t)(top - s->stack));
  for (const tl_instance *i = s->insts; i; i = i->next) mark_instance(h, i);
  for (size_t i = 0; i < s->tables.n; i++) {
    const tl_tableinst *t = TL_VEC_AT(&s->tables, tl_tableinst *, i);
    for (uint32_t k = 0; k < t->n; k++) root_word(h, (uint64_t)(uintptr_t)t->e[k]);
  }
  for (const tl_exn *x = s->exns; x; x = x->next) root_slots(h, x->v, x->n);
}

/* Small objects: unmarked ones freed, the free lists rebuilt, empty
 * pages released; the bytes of live objects. */
static size_t sweep_pages(tl_gcheap *h) {
  size_t live = 0, kept = 0;
  memset(h->free, 0, sizeof h->free);
  h->nsmall = 0;
  for (size_t i = 0; i < h->npages; i++) {
    gc_page *p = h->pages[i];
    uint32_t nlive = 0;
    for (uint32_t k = 0; k < p->nslots; k++) {
      tl_gcobj *o = (tl_gcobj *)(void *)(p->slots + (size_t)k * p->size);
      if (o->rtt && o->mark) {
        o->mark = 0;
        live += obj_bytes(o);
        nlive++;
      } else {
        o->rtt = NULL;
      }
    }
    if (!nlive) {
      tl_free(p);
      continue;
    }
    for (uint32_t k = p->nslots; k-- > 0;) {
      tl_gcobj *o = (tl_gcobj *)(void *)(p->slots + (size_t)k * p->size);
      if (!o->rtt) free_slot(h, p->cls, o);
    }
    h->nsmall += nlive;
    h->pages[kept++] = p;
  }
  h->npages = kept;
  return live;
}

static void sweep(tl_gcheap *h) {
  size_t live = sweep_pages(h);
  for (size_t i = 0; i < h->cap; i++) {
    tl_gcobj *o = h->set[i];
    if (!o || o == TOMB) continue;
    if (o->mark) {
      o->mark = 0;
      live += obj_bytes(o);
      continue;
    }
    tl_free(o);
    h->set[i] = TOMB;
    h->n--;
    h->tombs++;
  }
  h->live = live;
  h->since = 0;
  set_resize(h, h->n + 1);   /* drops the tombstones; fine if it cannot */
}

void tl_gc_collect(tl_store *s, const tl_v *top) {
  tl_gcheap *h = s->gc;
  if (!h || (!h->n && !h->nsmall)) return;
  mark_roots(s, top);
  drain(h);
  sweep(h);
  h->collections++;
}

tl_gcobj *tl_gc_alloc(tl_store *s, const tl_rtt *t, uint32_t len, const tl_v *top) {
  tl_gcheap *h = heap(s);
  uint64_t size = t->kind == TL_DT_ARRAY ? (uint64_t)len * t->fields[0].size : t->size;
  if (!h || size > MAX_BYTES) return NULL;
  size += sizeof(tl_gcobj);
  size_t limit = h->threshold > h->live ? h->threshold : h->live;
  if (top && (STRESS || h->since + size > limit)) tl_gc_collect(s, top);
  tl_gcobj *o;
  if (size <= SMALL_MAX && !STRESS) {   /* stress: every object malloc'd, for ASan */
    if (!(o = small_alloc(h, (size_t)size))) return NULL;
    o->rtt = t;
    o->len = len;
    h->since += (size_t)size;
    return o;
  }
  if ((h->n + h->tombs + 1) * 2 > h->cap && !set_resize(h, h->n + 1)) return NULL;
  if (!(o = tl_calloc(1, (size_t)size))) return NULL;
  tl_oom_keep(o);   /* the heap's, whatever scope allocates it */
  o->rtt = t;
  o->len = len;
  set_put(h, o);
  h->since += (size_t)size;
  return o;
}

void tl_gc_set_threshold(tl_store *s, size_t bytes) {
  if (heap(s)) s->gc->threshold = bytes;
}

void tl_gc_stats(const tl_store *s, size_t *objects, size_t *bytes, uint64_t *collections) {
  const tl_gcheap *h = s->gc;
  *objects = h ? h->n + h->nsmall : 0;
  *bytes = h ? h->live + h->since : 0;
  *collections = h ? h->collections : 0;
}

void tl_gc_free(tl_store *s) {
  tl_gcheap *h = s->gc;
  if (!h) return;
  for (size_t i = 0; i < h->cap; i++)
    if (h->set[i] && h->set[i] != TOMB) tl_free(h->set[i]);
  tl_free(h->set);
  for (size_t i = 0; i < h->npages; i++) tl_free(h->pages[i]);
  tl_free(h->pages);
  /* (groups' words are in the store's arena) */
  tl_vec_free(&h->groups);
  tl_free(h->gidx);
  tl_vec_free(&h->marks);
  tl_free(h);
  s->gc = NULL;
}

/* ------------------------------------------------------- runtime types */
/* A canonical rec group of module m, first type `rec`, n types, encoded as
 * words: references into the group by position, out of it by rtt id (the
 * instance's table has those already: they are earlier groups). */
typedef struct { tl_instance *inst; uint32_t rec, n; uint32_t *w; size_t nw, cap; } enc;

static void put(enc *e, uint32_t x) {
  if (e->nw < e->cap) e->w[e->nw++] = x;
}

/* The words encode_group puts: sized first, so that they are one block of
 * the store's arena (freed with the store, also when an out-of-memory
 * unwinding leaves a failed instantiation behind). */
static size_t group_words(const tl_module *m, uint32_t rec, uint32_t n) {
  size_t w = 1;
  for (uint32_t i = 0; i < n; i++) {
    const tl_deftype *d = TL_FTYPE(m, rec + i);
    w += 3; /* kind, super (two words when it is one) */
    if (d->kind == TL_DT_FUNC) w += 2 + 2 * (size_t)(tl_type_arity(m, d->params) + tl_type_arity(m, d->results));
    else w += 1 + 3 * (size_t)d->nfields;
  }
  return w;
}

static void put_type(enc *e, tl_type t) {
  if (!tl_type_is_ref(t) || !tl_heap_is_def(tl_ref_heap(t))) {
    put(e, 0);
    put(e, t);
    return;
  }
  uint32_t c = tl_ref_heap(t) - TL_HT_DEF;
  bool in = c >= e->rec && c < e->rec + e->n;
  put(e, (in ? 2u : 4u) | tl_ref_nullable(t));
  put(e, in ? c - e->rec : e->inst->rtt[c]->id);
}

static void put_list(enc *e, tl_type t) {
  const tl_module *m = e->inst->m;
  uint32_t n = tl_type_arity(m, t);
  put(e, n);
  for (uint32_t i = 0; i < n; i++) put_type(e, tl_type_at(m, t, i));
}

static void encode_group(enc *e) {
  const tl_module *m = e->inst->m;
  put(e, e->n);
  for (uint32_t i = 0; i < e->n; i++) {
    const tl_deftype *d = TL_FTYPE(m, e->rec + i);
    put(e, d->kind | (d->open ? 8u : 0u));
    if (d->super == TL_NO_SUPER) put(e, UINT32_MAX);
    else put_type(e, tl_ref_def(TL_FTYPE(m, d->super)->canon, false));
    if (d->kind == TL_DT_FUNC) {
      put_list(e, d->params);
      put_list(e, d->results);
      continue;
    }
    put(e, d->nfields);
    for (uint32_t k = 0; k < d->nfields; k++) {
      put_type(e, d->fields[k].type);
      put(e, d->fields[k].pack | (d->fields[k].mut ? 4u : 0u));
    }
  }
}

static uint64_t hash_words(const uint32_t *w, size_t n) {
  uint64_t x = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) x = (x ^ w[i]) * 1099511628211ull;
  return x;
}

static uint8_t field_size(const tl_field *f) {
  if (f->pack == TL_PACK_I8) return 1;
  if (f->pack == TL_PACK_I16) return 2;
  switch (f->type) {
  case TL_I32: case TL_F32: return 4;
  case TL_V128: return 16;
  default: return 8;
  }
}

static uint8_t field_trace(const tl_module *m, tl_type t) {
  if (!tl_type_is_ref(t)) return TL_GCF_PLAIN;
  uint32_t top = tl_heap_top(m, tl_ref_heap(t));
  return top == TL_HT_ANY ? TL_GCF_ANY : top == TL_HT_EXTERN ? TL_GCF_EXTERN : TL_GCF_PLAIN;
}

/* The layout of module type d into t: fields at offsets aligned to their size. */
static void layout(tl_store *s, const tl_module *m, const tl_deftype *d, tl_rtt *t) {
  t->nfields = d->kind == TL_DT_FUNC ? 0 : d->nfields;
  t->fields = TL_NEWN(&s->arena, tl_gcfield, t->nfields + 1);
  uint32_t off = 0;
  for (uint32_t i = 0; i < t->nfields; i++) {
    uint8_t sz = field_size(&d->fields[i]);
    off = (off + sz - 1) & ~(uint32_t)(sz - 1);
    t->fields[i] = (tl_gcfield){off, sz, field_trace(m, d->fields[i].type)};
    off += sz;
  }
  t->size = off;
}

/* Supertype chains of a new group's types, in order (a supertype comes
 * before its subtypes). */
static void chain(tl_store *s, tl_instance *inst, uint32_t rec, uint32_t n, tl_rtt **ts) {
  const tl_module *m = inst->m;
  for (uint32_t i = 0; i < n; i++) {
    const tl_deftype *d = TL_FTYPE(m, rec + i);
    const tl_rtt *sup = NULL;
    if (d->super != TL_NO_SUPER) {
      uint32_t c = TL_FTYPE(m, d->super)->canon;
      sup = c >= rec && c < rec + n ? ts[c - rec] : inst->rtt[c];
    }
    tl_rtt *t = ts[i];
    t->depth = sup ? sup->depth + 1 : 0;
    t->supers = TL_NEWN(&s->arena, const tl_rtt *, t->depth + 1);
    if (sup) memcpy(t->supers, sup->supers, t->depth * sizeof *t->supers);
    t->supers[t->depth] = t;
  }
}

static const tl_rtt **new_group(tl_store *s, tl_instance *inst, uint32_t rec, uint32_t n) {
  tl_gcheap *h = s->gc;
  tl_rtt **ts = TL_NEWN(&s->arena, tl_rtt *, n + 1);
  for (uint32_t i = 0; i < n; i++) {
    const tl_deftype *d = TL_FTYPE(inst->m, rec + i);
    ts[i] = TL_NEW(&s->arena, tl_rtt);
    ts[i]->id = h->nrtt++;
    ts[i]->kind = d->kind;
    ts[i]->sig = d->kind == TL_DT_FUNC ? &inst->sigs[rec + i] : NULL;
    layout(s, inst->m, d, ts[i]);
  }
  chain(s, inst, rec, n, ts);
  return (const tl_rtt **)ts;
}

/* A bigger index of the registry's groups (out of memory unwinds). */
static void index_groups(tl_gcheap *h) {
  size_t cap = h->gcap ? h->gcap * 2 : 64;
  uint32_t *x = tl_calloc(cap, sizeof *x);
  if (!x) tl_oom_fail();
  tl_oom_keep(x);
  for (size_t k = 0; k < h->groups.n; k++) {
    size_t i = (size_t)TL_VEC_AT(&h->groups, gc_group, k).hash & (cap - 1);
    while (x[i]) i = (i + 1) & (cap - 1);
    x[i] = (uint32_t)k + 1;
  }
  tl_free(h->gidx);
  h->gidx = x;
  h->gcap = cap;
}

/* The rtts of m's canonical group at rec (n types): the registry's, or new. */
static const tl_rtt **intern_group(tl_instance *inst, uint32_t rec, uint32_t n) {
  tl_store *s = inst->s;
  tl_gcheap *h = s->gc;
  enc e = {inst, rec, n, NULL, 0, group_words(inst->m, rec, n)};
  e.w = TL_NEWN(&s->arena, uint32_t, e.cap);
  encode_group(&e);
  uint64_t hs = hash_words(e.w, e.nw);
  if ((h->groups.n + 1) * 2 > h->gcap) index_groups(h);
  size_t i = (size_t)hs & (h->gcap - 1);
  for (; h->gidx[i]; i = (i + 1) & (h->gcap - 1)) {
    gc_group *g = &TL_VEC_AT(&h->groups, gc_group, h->gidx[i] - 1);
    if (g->hash == hs && g->nwords == e.nw && !memcmp(g->words, e.w, e.nw * sizeof(uint32_t)))
      return g->rtts;
  }
  gc_group g = {hs, e.w, (uint32_t)e.nw, new_group(s, inst, rec, n)};
  if (!tl_vec_try_grow(&h->groups, sizeof g, h->groups.n + 1)) tl_oom_fail();
  tl_oom_keep(h->groups.p);
  TL_VEC_AT(&h->groups, gc_group, h->groups.n++) = g;
  h->gidx[i] = (uint32_t)h->groups.n;
  return g.rtts;
}

/* Runs under the caller's scope (compiling, linking): out of memory
 * unwinds to it; what the heap keeps is taken off the scope's ledger. */
void tl_gc_instance_types(tl_instance *inst) {
  tl_store *s = inst->s;
  const tl_module *m = inst->m;
  if (inst->rtt) return;
  if (!heap(s)) tl_oom_fail();
  const tl_rtt **rtt = TL_NEWN(&s->arena, const tl_rtt *, m->types.n + 1);
  inst->rtt = rtt;
  for (uint32_t i = 0; i < m->types.n;) {
    const tl_deftype *d = TL_FTYPE(m, i);
    uint32_t n = d->nrec ? d->nrec : 1;
    if (d->rec != i) n = 1;   /* defensive: groups start at their rec */
    if (d->canon == i) {
      const tl_rtt **g = intern_group(inst, i, n);
      for (uint32_t k = 0; k < n; k++) rtt[i + k] = g[k];
    } else {
      for (uint32_t k = 0; k < n; k++) rtt[i + k] = rtt[TL_FTYPE(m, i + k)->canon];
    }
    i += n;
  }
  for (uint32_t i = 0; i < m->types.n; i++) inst->sigs[i].rtt = rtt[i];
}

const tl_rtt *tl_gc_rtt(tl_instance *inst, uint32_t type) {
  if (!inst->rtt) tl_gc_instance_types(inst);
  return inst->rtt[type];
}

/* ------------------------------------------------------- object makers */
/* Field or element bytes from a value slot (little-endian: its low bytes). */
static void put_val(uint8_t *p, uint8_t size, const tl_v *v) { memcpy(p, v->b, size); }

tl_gcobj *tl_gc_struct_new(tl_store *s, const tl_rtt *t, const tl_v *vals, const tl_v *top) {
  tl_gcobj *o = tl_gc_alloc(s, t, 0, top);
  if (o && vals)
    for (uint32_t i = 0; i < t->nfields; i++) put_val(o->data + t->fields[i].offset, t->fields[i].size, &vals[i]);
  return o;
}

/* An array of len elements, each *init (NULL: the default), or the n
 * values at vals (vals set: len == n). */
tl_gcobj *tl_gc_array_new(tl_store *s, const tl_rtt *t, uint32_t len, const tl_v *init, const tl_v *vals,
                          const tl_v *top) {
  tl_gcobj *o = tl_gc_alloc(s, t, len, top);
  if (!o) return NULL;
  uint8_t sz = t->fields[0].size;
  if (vals)
    for (uint32_t i = 0; i < len; i++) put_val(o->data + (size_t)i * sz, sz, &vals[i]);
  else if (init)
    tl_gc_fill(o->data, sz, len, init);
  return o;
}

void tl_gc_fill(uint8_t *p, uint8_t sz, uint64_t n, const tl_v *v) {
  bool zero = true;
  for (unsigned k = 0; k < sz; k++) zero = zero && !v->b[k];
  if (zero) {
    memset(p, 0, n * sz);
    return;
  }
  if (sz == 1) {
    memset(p, v->b[0], n);
    return;
  }
  for (uint64_t i = 0; i < n; i++) put_val(p + i * sz, sz, v);
}

/* ------------------------------------------------------- host values */
bool tl_gc_ref_ok(const tl_store *s, tl_type t, uint64_t v) {
  if (!v || !tl_type_is_ref(t)) return true;
  uint32_t ht = tl_ref_heap(t);
  if (tl_heap_is_def(ht)) return true;   /* an object or a function: not told apart without the module */
  bool ext = ht == TL_HT_EXTERN || ht == TL_HT_NOEXTERN;
  if (!ext && (ht == TL_HT_FUNC || ht == TL_HT_NOFUNC || ht == TL_HT_EXN || ht == TL_HT_NOEXN)) return true;
  if (ext) {
    if (!(v & TL_GC_HOST)) return true;  /* the host's own value */
    v ^= TL_GC_HOST;                      /* an internalized any value: i31 or object */
    if (v & TL_GC_HOST) return false;
  } else if (v & TL_GC_HOST) {
    return true;                          /* a host value in the any hierarchy */
  }
  return (v & 1) || (s->gc && !(v & 15) && is_obj(s->gc, v));
}
