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

struct tl_funcinst {
  tl_instance *inst;        /* NULL for a host function */
  uint32_t index;           /* function index in inst's module */
  uint32_t np, nr;          /* parameter and result counts */
  uint32_t *types;          /* np parameter types, then nr result types */
  tl_host_fn host;
  void *user;
  const tl_module *tm;      /* its function type: type tcanon of module tm, */
  uint32_t tcanon;          /* or tm NULL (a host function of plain types) */
  bool plain;               /* a final type of its own rec group without
                               supertype or defined types: types say it all */
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
typedef struct {
  const tl_taginst *tag;
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
