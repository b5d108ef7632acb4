/* interp_impl.h — private to the reference interpreter (interp*.c): the
 * store objects (function, memory, table and global instances), the compact
 * linear code each function's IR is compiled to, and the value slot.
 * Every value occupies one 16-byte slot; a tuple occupies one slot per
 * component. Floats are kept as raw bits so that NaN payloads survive. */
#ifndef TILT_INTERP_IMPL_H
#define TILT_INTERP_IMPL_H

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
};

typedef struct {
  uint8_t *data;            /* a reservation of `reserved` bytes (interp_mem.c) */
  uint64_t pages, max;      /* max: limit in pages (65536 if none) */
  bool shared;
  bool has_max;
  size_t reserved;          /* bytes of address space at data; pages*64 KiB are read-write */
} tl_meminst;

typedef struct {
  tl_type elem;
  void **e;                 /* cap entries allocated, n in use */
  uint32_t n, max;          /* max: limit (UINT32_MAX if none) */
  bool has_max;
  uint32_t cap;
} tl_tableinst;

typedef struct {
  tl_type type;
  bool mut;
  tl_v v;
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

/* Exception handlers of a compiled function (interp_compile.c). A handler
 * covers the code rows [start, end) of a try or try_table body; handlers are
 * numbered in the order their bodies begin, so of those covering a row the
 * highest-numbered is the innermost. On an exception: a delegate handler
 * passes it to handler `next` (NOFIX: the caller); otherwise the first of
 * its arms whose tag matches (NOFIX: any) takes it, or it goes on to the
 * handler `next` (the enclosing one). */
enum { TL_H_CATCH, TL_H_DELEGATE, TL_H_TABLE };
typedef struct {
  uint32_t start, end;
  uint32_t next;
  uint32_t h0;              /* operand height (slots from fp) at the try */
  uint32_t exn_slot;        /* legacy catch: slot keeping the exception for rethrow */
  uint32_t arm0, narm;      /* its arms in tl_code.arms */
  uint8_t kind;             /* TL_H_* */
} tl_handler;
typedef struct {
  uint32_t tag;             /* tag index in the module, NOFIX = catch_all */
  uint32_t pc;              /* where the arm's code begins */
  uint32_t slot;            /* legacy catch: payload local slot (NOFIX: dropped) */
  bool ref;                 /* try_table: the exnref follows the payload */
} tl_harm;
#define TL_HNONE UINT32_MAX

/* One instruction of compiled code. op is a tl_op or an X_* below;
 * a, n and u hold its immediates (see interp_compile.c). */
typedef struct {
  uint16_t op;
  uint16_t n;
  uint32_t a;
  union { uint64_t b; int64_t i; void *p; } u;
} tl_ins;

enum {
  X_JMP = TL_NOPS,   /* a: target */
  X_BRZ,             /* pop cond; if zero goto a */
  X_BRNZ,            /* pop cond; if nonzero goto a */
  X_BR,              /* move top keep slots to fp+h0, goto a; u.b = h0 | keep << 32 */
  X_BRIF,            /* pop cond; if nonzero X_BR */
  X_BRTABLE,         /* pop index; n entries follow (X_BR rows), then default */
  X_RET,             /* return the top n slots */
  X_DROPN,           /* drop n slots */
  X_EXTRACT,         /* tuple of n slots on top: keep slot a */
  X_LGETN,           /* push n slots from local slot a */
  X_LSETN,           /* pop n slots into local slot a */
  X_LTEEN,           /* copy n slots into local slot a */
  X_RETHROW,         /* throw the exception kept in slot a */
  X_MEMSEL,          /* cache memory a in (mb, ms): around an access to a memory other than 0 */
  X_NOPS
};

struct tl_code {
  tl_ins *ins;
  uint32_t n;
  uint32_t nparam_slots;    /* slots the parameters take */
  uint32_t nlocal_slots;    /* all locals */
  uint32_t frame_slots;     /* locals plus the deepest operand stack */
  tl_handler *handlers;     /* exception handlers (nhandlers of them) */
  tl_harm *arms;
  uint32_t nhandlers;
};

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

typedef struct {
  const tl_ins *pc;         /* where to resume in the caller */
  tl_v *fp;
  tl_instance *inst;
  const tl_code *code;
} tl_frame;

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
  tl_exn *exn;              /* the exception of the last TL_E_EXCEPTION */
  void *jit;                /* the JIT's per-store state (src/jit) */
};

struct tl_host_call {
  tl_instance *inst;
  uint32_t nresults;
};

#define TL_PAGE 65536u
/* A full reservation: any u32 address plus a u32 offset plus an access of
 * up to 16 bytes stays inside it, which the JIT's unchecked accesses need. */
#define TL_MEM_RESERVE (((size_t)8 << 30) + ((size_t)1 << 16))

/* interp_mem.c: a memory's storage. init reserves and commits `pages`
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

/* interp_compile.c */
tl_status tl_interp_compile(tl_instance *inst, uint32_t fidx, tl_code **out, tl_error *err);
uint32_t tl_interp_slots(const tl_module *m, tl_type t);
/* Compiles one expression of f as if it were a function body of no params
 * returning its value (used by tl_interp_eval). */
tl_status tl_interp_compile_expr(tl_instance *inst, tl_func *f, tl_expr *e, tl_code **out);
/* interp_exec.c */
tl_status tl_interp_run(tl_store *s, tl_funcinst *f, tl_v *args, tl_v *results, tl_error *err);
tl_status tl_interp_run_code(tl_store *s, tl_instance *inst, tl_code *code, const tl_v *args,
                             uint32_t np, tl_v *results, tl_error *err);
bool tl_interp_sig_eq(const tl_funcinst *a, const tl_funcinst *b);
/* interp_simd.c: executes SIMD op on the operand stack top; returns the new sp */
tl_v *tl_interp_simd(const tl_ins *ins, tl_v *sp);

/* raw-bit float helpers shared by interp_exec.c and interp_simd.c */
static inline float tl_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double tl_f64(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
static inline uint32_t tl_f32b(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t tl_f64b(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }

/* interp_num.c — scalar semantics shared with SIMD lanes */
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

#endif
