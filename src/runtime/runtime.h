/* runtime.h — what both engines share (src/runtime): the value slot, the
 * store and its objects (function, memory, table, global and tag instances,
 * exceptions, instances), memory and table storage, the scalar float
 * semantics, and the engines' entry points the runtime calls. Every value
 * occupies one 16-byte slot; a tuple occupies one slot per component.
 * Floats are kept as raw bits so that NaN payloads survive. The
 * interpreter's code and frames (tl_code, tl_frame) are its own
 * (src/ir/interp_impl.h); the store only holds pointers to them. */
#ifndef TILT_RUNTIME_H
#define TILT_RUNTIME_H

#include "ir.h"

#include <string.h>

typedef union {
  uint32_t i32;
  uint64_t i64;
  uint8_t b[16];
  uint64_t w[2];
  void *ref;
} tl_v;

/* Scalars live in the low 8 bytes of a slot and are written and copied as
 * 8-byte words (a wider load right after a narrower store stalls store
 * forwarding); only v128 values use all 16 bytes, through ops the compiler
 * marks (n = 1 on global/select, the *N local ops). */
#define PUT32(slot, x) ((slot).i64 = (uint32_t)(x))
#define PUT64(slot, x) ((slot).i64 = (uint64_t)(x))
#define PUTREF(slot, x) ((slot).i64 = (uint64_t)(uintptr_t)(x))
#define PUT_i32 PUT32
#define PUT_i64 PUT64

typedef struct tl_funcinst tl_funcinst;
typedef struct tl_code tl_code;
typedef struct tl_rtt tl_rtt;
typedef struct tl_gcheap tl_gcheap;

struct tl_funcinst {
  tl_instance *inst;        /* NULL for a host function */
  uint32_t index;           /* function index in inst's module */
  uint32_t np, nr;          /* parameter and result counts */
  uint32_t *types;          /* np parameter types, then nr result types */
  tl_host_fn host;
  void *user;
  bool plain;               /* a final type of its own rec group without
                               supertype or defined types: types say it all
                               (what a host function's type is) */
  const tl_rtt *rtt;        /* its defined type store-wide (gc_heap.c), or NULL
                               for a host function (tl_interp_sig_eq) */
};

typedef struct {
  uint8_t *data;            /* a reservation of `reserved` bytes (interp_mem.c) */
  uint64_t pages, max;      /* max: limit in pages (65536 if none) */
  bool shared;
  bool has_max;
  bool is64;                /* memory64: i64 addresses */
  size_t reserved;          /* bytes of address space at data; pages*64 KiB are read-write */
} tl_meminst;

typedef struct {
  tl_type elem;
  void **e;                 /* cap entries allocated, n in use */
  uint32_t n, max;          /* max: limit (UINT32_MAX if none) */
  bool has_max;
  bool is64;                /* table64: i64 indices */
  uint32_t cap;
  const tl_module *m;       /* the module elem's defined types belong to (NULL: host) */
} tl_tableinst;

typedef struct {
  tl_type type;
  bool mut;
  tl_v v;
  const tl_module *m;       /* the module type's defined types belong to (NULL: host) */
} tl_globalinst;

/* A tag instance: exceptions match by its address, so an imported tag is
 * its exporter's instance. sig: its type's canonical signature (params). */
typedef struct {
  tl_instance *inst;
  uint32_t index;
  const tl_funcinst *sig;
} tl_taginst;

/* An exception (the value of an exnref): its tag and the tag's params, one
 * slot per value. Made by throw in the store's arena; lives with the store. */
typedef struct tl_exn {
  const tl_taginst *tag;
  struct tl_exn *next;      /* the store's exceptions (s->exns): GC roots */
  uint32_t n;               /* payload slots */
  tl_v v[];
} tl_exn;

typedef struct tl_frame tl_frame;   /* the interpreter's (interp_impl.h) */

struct tl_instance {
  tl_store *s;
  tl_module *m;
  tl_funcinst **funcs;
  tl_tableinst **tables;
  tl_meminst **mems;
  tl_globalinst **globals;
  tl_taginst **tags;
  tl_funcinst *sigs;        /* one per module type: canonical signature */
  void ***elem;             /* resolved element segments */
  uint32_t *elem_n;         /* 0 once dropped */
  uint32_t *data_n;         /* 0 once dropped */
  tl_code **code;           /* compiled lazily, per defined function */
  const tl_rtt **rtt;       /* per module type: its runtime type (gc_heap.c), built on first use */
  tl_instance *next;
  void *jit;                /* the JIT's per-instance state (src/jit) */
};

struct tl_store {
  tl_arena arena;
  tl_instance *insts;
  tl_vec mems;              /* tl_meminst * to free */
  tl_vec tables;            /* tl_tableinst * to free */
  tl_v *stack;
  size_t nstack;
  tl_frame *frames;
  size_t used;              /* stack slots in use by runs below this one */
  uint32_t depth;           /* frames in use by runs below this one */
  uint32_t max_depth;
  uint64_t fuel;            /* 0 = unlimited */
  int engine;               /* TL_ENGINE_* */
  int relaxed;              /* the interpreter's relaxed SIMD profile: TL_RELAXED_* */
  tl_exn *exn;              /* the exception of the last TL_E_EXCEPTION */
  tl_exn *exns;             /* every exception made (their payloads are GC roots) */
  tl_gcheap *gc;            /* the GC heap and runtime types (gc_heap.c), made on first use */
  void *jit;                /* the JIT's per-store state (src/jit) */
  tl_oom_guard guard;       /* made under a scope: freed if its call fails */
};

struct tl_host_call {
  tl_instance *inst;
  uint32_t nresults;
};

#define TL_PAGE 65536u
/* A full reservation: any u32 address plus a u32 offset plus an access of
 * up to 16 bytes stays inside it, which the JIT's unchecked accesses need. */
#define TL_MEM_RESERVE (((size_t)8 << 30) + ((size_t)1 << 16))

/* memory.c: a memory's storage. init reserves and commits `pages`
 * (mm->max set first); grow commits delta more pages in place (false when
 * over max, past the reservation or refused by the kernel); free unmaps. */
bool tl_mem_init(tl_meminst *mm, uint64_t pages);
bool tl_mem_grow(tl_meminst *mm, uint64_t delta);
void tl_mem_free(tl_meminst *mm);
/* table.grow: the old size, or UINT32_MAX (over max or 10,000,000 entries,
 * or out of memory). Capacity at least doubles, so growing by 1 is O(1)
 * amortized (ASan's realloc always copies). */
uint32_t tl_table_grow(tl_tableinst *t, void *init, uint32_t delta);

/* Fuel a bulk instruction (memory.fill/copy/init, table.fill/copy/init/grow)
 * pays on top of its own 1 for moving `bytes` bytes (a table entry counts 8),
 * in both engines, so a fuel budget bounds the time a run takes. */
static inline uint64_t tl_bulk_fuel(uint64_t bytes) { return bytes >> 6; }

/* src/jit/runtime.c: runs f on the JIT (the store's engine is the JIT) */
tl_status tl_jit_run(tl_store *s, tl_funcinst *f, tl_v *args, tl_v *results, tl_error *err);
void tl_jit_store_free(tl_store *s);

/* src/ir/interp_exec.c: runs f on the store's engine (JIT stores go on to
 * tl_jit_run); host functions are called directly. */
tl_status tl_interp_run(tl_store *s, tl_funcinst *f, tl_v *args, tl_v *results, tl_error *err);
/* Function types of two instances are equal (call_indirect, linking). */
bool tl_interp_sig_eq(const tl_funcinst *a, const tl_funcinst *b);

/* interp_exec.c: the store's value stack and frames (the interpreter's,
 * which JIT stores use for host calls too), allocated on first use; false
 * when out of memory. link.c: an instance of m with every index space
 * allocated and nothing linked (tl_interp_eval's scratch instance). */
bool tl_interp_stacks_ready(tl_store *s);
/* store.c: store objects in the store's arena (NULL when out of memory):
 * a function instance with its own copy of the types (host when fn is set),
 * a table, a memory (storage reserved and committed, see memory.c). */
tl_funcinst *tl_store_func_new(tl_store *s, const uint32_t *params, uint32_t np, const uint32_t *results,
                               uint32_t nr, tl_host_fn fn, void *user);
/* A host function of module type `type` (NULL ptr past 64 params or results). */
tl_extern tl_host_func_of_type(tl_store *s, const tl_module *m, uint32_t type, tl_host_fn fn, void *user);
tl_tableinst *tl_store_table_new(tl_store *s, tl_type elem, uint64_t min, uint64_t max, bool has_max);
tl_meminst *tl_store_mem_new(tl_store *s, uint64_t min, uint64_t max, bool has_max, bool shared);
tl_meminst *tl_store_mem64_new(tl_store *s, uint64_t min, uint64_t max, bool has_max, bool shared);
tl_instance *tl_instance_new(tl_store *s, tl_module *m);

/* store.c: exceptions both engines make and report. tl_exn_new: an
 * exception of tag t carrying t's params from vals, in the store's arena
 * (NULL when out of memory). tl_exn_uncaught: sets s->exn = x and returns
 * TL_E_EXCEPTION, "uncaught exception: tag T" (export name, else $name,
 * else index). */
tl_exn *tl_exn_new(tl_store *s, const tl_taginst *t, const tl_v *vals);
tl_status tl_exn_uncaught(tl_store *s, tl_exn *x, tl_error *err);

/* gc_heap.c — the GC heap, one per store, and runtime types.
 * Reference values are 64-bit words. funcref: a tl_funcinst pointer;
 * exnref: a tl_exn pointer. The any hierarchy: 0 null; an odd word an
 * i31 ((v & 0x7fffffff) << 1 | 1); a word with TL_GC_HOST set a host
 * (extern) value h as h | TL_GC_HOST; otherwise a tl_gcobj pointer. The
 * extern hierarchy: 0 null; a word with TL_GC_HOST set an internalized
 * any value (v ^ TL_GC_HOST); otherwise the host's own value, which must
 * have bit 63 clear (user-space pointers and small integers do). So
 * any.convert_extern and extern.convert_any are both x ? x ^ TL_GC_HOST : 0,
 * lossless both ways. Runtime types (tl_rtt) are canonical per store: two
 * modules' iso-recursively equal types are one tl_rtt, so casts across
 * modules compare pointers. */
#define TL_GC_HOST (1ull << 63)
static inline uint64_t tl_gc_convert(uint64_t v) { return v ? v ^ TL_GC_HOST : 0; }
static inline bool tl_gc_is_obj(uint64_t v) { return v && !(v & 1) && !(v & TL_GC_HOST); }

enum { TL_GCF_PLAIN, TL_GCF_ANY, TL_GCF_EXTERN }; /* what a field's word holds for marking */
typedef struct {
  uint32_t offset;          /* in the object's payload */
  uint8_t size;             /* bytes: 1, 2 (packed), 4, 8, 16 */
  uint8_t trace;            /* TL_GCF_* */
} tl_gcfield;

struct tl_rtt {
  uint32_t id;              /* store-wide, in creation order */
  uint8_t kind;             /* TL_DT_* */
  uint32_t depth;           /* supers[depth] is the type itself */
  const tl_rtt **supers;    /* the supertype chain, root first */
  uint32_t nfields;         /* struct: fields; array: 1 (the element) */
  tl_gcfield *fields;
  uint32_t size;            /* struct: payload bytes */
  const tl_funcinst *sig;   /* func: the signature (of the first module that made it) */
};

/* A heap object: a struct's fields or an array's elements after the header. */
typedef struct tl_gcobj {
  const tl_rtt *rtt;
  uint32_t len;             /* array: elements */
  uint32_t mark;
  _Alignas(16) uint8_t data[];
} tl_gcobj;

static inline bool tl_rtt_sub(const tl_rtt *a, const tl_rtt *b) {
  return a == b || (b->depth < a->depth && a->supers[b->depth] == b);
}
/* Whether v can be a value of reference type t given by the host
 * (tl_func_call): an extern value with bit 63 set must be an internalized
 * i31 or live object, an any value a host value, an i31 or a live object.
 * Defined types and the func and exn hierarchies are not checked. */
bool tl_gc_ref_ok(const tl_store *s, tl_type t, uint64_t v);
/* The runtime type of inst's module type `type`, building the instance's
 * table on first use (store arena: out of memory longjmps, so callers run
 * under tl_oom_worker: compiling, linking). */
const tl_rtt *tl_gc_rtt(tl_instance *inst, uint32_t type);
/* Builds inst->rtt and gives its signatures (inst->sigs) their rtt. */
void tl_gc_instance_types(tl_instance *inst);
/* A zeroed object of type t (array: len elements); NULL when out of
 * memory or too large. top: the end of the live value stack, whose slots
 * (with globals, tables, segments, exceptions) are the roots of a
 * collection the allocation may run first; NULL: no collection. */
tl_gcobj *tl_gc_alloc(tl_store *s, const tl_rtt *t, uint32_t len, const tl_v *top);
void tl_gc_collect(tl_store *s, const tl_v *top);
/* A struct of type t with fields from vals (NULL: defaults); an array of
 * len elements, each *init (NULL: the default), or the len values at vals;
 * NULL when out of memory. top as for tl_gc_alloc. */
tl_gcobj *tl_gc_struct_new(tl_store *s, const tl_rtt *t, const tl_v *vals, const tl_v *top);
tl_gcobj *tl_gc_array_new(tl_store *s, const tl_rtt *t, uint32_t len, const tl_v *init, const tl_v *vals,
                          const tl_v *top);
/* n elements of sz bytes at p, each the low bytes of *v. */
void tl_gc_fill(uint8_t *p, uint8_t sz, uint64_t n, const tl_v *v);
/* Collect when this many bytes were allocated since the last collection
 * (at least; more when more is live). */
void tl_gc_set_threshold(tl_store *s, size_t bytes);
/* Live objects and their bytes (tests). */
void tl_gc_stats(const tl_store *s, size_t *objects, size_t *bytes, uint64_t *collections);
void tl_gc_free(tl_store *s);

/* raw-bit float helpers shared by interp_exec.c and interp_simd.c */
static inline float tl_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double tl_f64(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
static inline uint32_t tl_f32b(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t tl_f64b(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }

/* num.c — scalar float semantics both engines share (SIMD lanes too) */
uint32_t tl_fmin32(uint32_t a, uint32_t b);
uint32_t tl_fmax32(uint32_t a, uint32_t b);
uint64_t tl_fmin64(uint64_t a, uint64_t b);
uint64_t tl_fmax64(uint64_t a, uint64_t b);
uint32_t tl_fnearest32(uint32_t a);
uint64_t tl_fnearest64(uint64_t a);
uint32_t tl_fround32(int op, uint32_t a);  /* ceil/floor/trunc/nearest/sqrt by kind 0..4 */
uint64_t tl_fround64(int op, uint64_t a);
/* trunc: returns 0 ok, 1 NaN, 2 overflow; sat gives the saturated value */
int tl_trunc_f64(double d, bool is64, bool sign, uint64_t *out);
uint64_t tl_trunc_sat_f64(double d, bool is64, bool sign);
uint32_t tl_canon32(uint32_t r);
uint64_t tl_canon64(uint64_t r);

/* interp_simd.c: the lane semantics of one SIMD instruction without a
 * memory access (i8x16.shuffle and v128.const excepted), on the slots just
 * below sp (operands in stack order; the result replaces the first one);
 * lane: extract/replace_lane's immediate. Both engines use it: the JIT for
 * the instructions it does not compile inline. Returns the new sp. */
tl_v *tl_simd_eval(int op, uint32_t lane, tl_v *sp);

#endif
