/* jit.h — the one internal header of src/jit: the x86-64 encoder (x64.c),
 * the single-pass compiler from validated body bytes (compile.c) and the
 * runtime (runtime.c: per-store and per-instance state, helpers called from
 * generated code, code memory that is never writable and executable at once).
 * Functions compile lazily, one at a time, at their first call: every call
 * goes through the instance's function table jctx.fn[], whose entries start
 * at the lazy thunk (eax = function index). Eager compilation compiles the
 * whole module on several threads with direct calls between its functions.
 * Generated code keeps rbx = wasm frame (8-byte words: locals, then operand
 * stack; a v128 takes two words, every other value one), r12 = jctx,
 * r13 = memory 0 base, r15 = remaining call depth. r13 never changes inside
 * an instance's code: memories live in fixed reservations (runtime.c) and
 * grow in place, and calls into another instance go through the
 * trampoline, which saves and restores it. Native stack: every JIT frame is exactly two
 * words, [rsp] = a pad slot (functions with handlers keep their rbx there)
 * and [rsp+8] = the return address into its caller; generated code never
 * pushes, so rsp is constant inside a function body. Exceptions: eh.c. */
#ifndef TILT_JIT_H
#define TILT_JIT_H

#include "runtime/runtime.h"

#include <setjmp.h>
#include <stddef.h>

/* ---- encoder (x64.c) */
enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
#define XMM(i) (16 + (i))
typedef struct { uint8_t *p; size_t n, cap; bool oom; } x64_buf;
/* An operand: a register (base >= 0, mem false) or [base + index*scale + disp]. */
typedef struct { bool mem; int8_t base, index; uint8_t scale; int32_t disp; int reg; } x64_op;
static inline x64_op x64_r(int r) { x64_op o = {false, 0, -1, 0, 0, r}; return o; }
static inline x64_op x64_m(int base, int32_t disp) { x64_op o = {true, (int8_t)base, -1, 0, disp, 0}; return o; }
/* [rip + disp]: disp is relative to the end of the instruction */
#define X64_RIP (-1)
static inline x64_op x64_rip(int32_t disp) { x64_op o = {true, X64_RIP, -1, 0, disp, 0}; return o; }
static inline x64_op x64_mi(int base, int index, int scale, int32_t disp) {
  x64_op o = {true, (int8_t)base, (int8_t)index, (uint8_t)scale, disp, 0};
  return o;
}
void x64_byte(x64_buf *b, uint8_t v);
void x64_put(x64_buf *b, const void *p, size_t n);
void x64_imm32(x64_buf *b, uint32_t v);
void x64_imm64(x64_buf *b, uint64_t v);
/* [pfx] [REX] opcode(1..3 bytes) modrm: reg field r (register number or /digit) */
void x64_rm(x64_buf *b, uint8_t pfx, bool w, uint32_t opc, int nopc, int r, x64_op o, bool bytereg);
/* VEX.128 form of [pfx] 0F.. opc: reg field r, second source v (-1: none), r/m o */
void x64_vex(x64_buf *b, uint8_t pfx, bool w, uint32_t opc, int r, int v, x64_op o);
void x64_mov_ri(x64_buf *b, int r, uint64_t imm);           /* shortest mov of an immediate */
int32_t x64_jcc(x64_buf *b, int cc, int32_t chain);          /* 0F 8x rel32; returns fixup */
int32_t x64_jmp(x64_buf *b, int32_t chain);                  /* E9 rel32 */
void x64_patch(x64_buf *b, int32_t chain, size_t target);   /* resolves a chain */
void x64_jmp_to(x64_buf *b, int cc, size_t target);          /* cc < 0: jmp */
enum { CC_O, CC_NO, CC_B, CC_AE, CC_E, CC_NE, CC_BE, CC_A, CC_S, CC_NS, CC_P, CC_NP,
       CC_L, CC_GE, CC_LE, CC_G };

/* ---- runtime */
typedef struct jstore jstore;
typedef struct jctx jctx;
struct jctx {                  /* offsets used by generated code: keep order */
  uint8_t *membase;            /* 0 */
  uint64_t memsize;            /* 8 */
  uint64_t *limit;             /* 16: end of the value stack */
  tl_globalinst **globals;     /* 24 */
  tl_meminst *mem0;            /* 32 */
  jstore *js;                  /* 40 */
  tl_instance *inst;           /* 48 */
  int64_t *fuel;               /* 56: the store's fuel counter (fuel code) */
  uint8_t *code;               /* eager: executable module code */
  size_t code_size;
  uint32_t *offs;              /* eager: per function, entry offset in code */
  double compile_cpu, compile_wall;   /* seconds the eager compilation took */
  double compile_crit;         /* its busiest thread's CPU + the serial part */
  bool fuel_mode;              /* fn[] code counts fuel */
  size_t lazy_bytes;           /* code compiled lazily */
  x64_buf lazy_buf;            /* lazy compilation: output buffer, reused */
  tl_vec lazy_fix;             /* lazy compilation: jfix, reused */
  void *scratch;               /* lazy compilation: compiler state, reused */
  void *fn[];                  /* per function index: entry, or the lazy thunk */
};
#define JC_MEMBASE 0
#define JC_MEMSIZE 8
#define JC_LIMIT 16
#define JC_GLOBALS 24
#define JC_MEM0 32
#define JC_FUEL 56
#define JC_FN ((int32_t)offsetof(jctx, fn))

/* Exception tables of one compiled function with handlers (try, try_table;
 * compile.c builds them, eh.c reads them when unwinding). Offsets are from
 * the function's entry; frame offsets are bytes from its rbx. One malloc
 * block: the struct, then the sites, handlers and arms. */
typedef struct {
  uint32_t ret;                /* return address of a call inside a handler's range */
  uint32_t h;                  /* the innermost handler in effect there */
} jeh_site;
enum { JEH_CATCH, JEH_DELEGATE, JEH_TABLE };
typedef struct {
  uint32_t next;               /* handler to search after this one (outer, or
                                  delegate's target); JEH_NONE: the caller */
  uint32_t arm;                /* first arm (JEH_NONE: none), arms chain by next */
  uint8_t kind;                /* JEH_* */
} jeh_handler;
typedef struct {
  uint32_t tag;                /* tag index in the module; JEH_NONE: catch_all */
  uint32_t pad;                /* landing pad */
  uint32_t dst;                /* where the payload goes (frame offset) */
  uint32_t exn_dst;            /* where the exnref goes, JEH_NONE: nowhere */
  uint32_t next;               /* the handler's next arm */
} jeh_arm;
#define JEH_NONE UINT32_MAX
typedef struct {
  uint32_t code_len;
  uint32_t nsite, nhandler, narm;
  jeh_site *site;              /* sorted by ret */
  jeh_handler *h;
  jeh_arm *arm;
} jeh;

struct jstore {
  uint64_t *stack, *stack_end, *top;
  jmp_buf *jb;
  tl_status st;
  tl_error err;
  tl_vec maps;                 /* {void *, size_t} code mappings to unmap */
  tl_vec mems;                 /* jmem: memories moved into reservations */
  uint8_t *heap_rw, *heap_rx;  /* lazy code heap: two views of one memfd */
  size_t heap_used, heap_size;
  bool no_memfd;               /* memfd failed: one mapping per function */
  bool fuel_on;                /* the running call counts fuel */
  int64_t fuel;                /* what is left (> 0 while running) */
  tl_vec ehf;                  /* jeh_fn: code with exception tables (eh.c) */
  bool ehf_sorted;
  tl_exn *exn;                 /* the exception leaving a trampoline with 1 */
};

/* compile.c: compiles every defined function of inst's module into one
 * buffer with direct calls between them; offs[i] is function i's entry
 * (defined functions only). threads > 1 splits the functions among that
 * many threads (large modules only). fuel: emit fuel checks (function
 * entries and loop headers decrement *jctx.fuel by the number of
 * instructions up to the next check; <= 0 traps "fuel exhausted").
 * *critical: CPU seconds of the busiest thread plus the serial part. */
tl_status tl_jit_compile_module(tl_instance *inst, x64_buf *out, uint32_t *offs, int threads,
                                bool fuel, double *critical, jeh **ehs, tl_error *err);
/* One function at the end of out (entry at its start, 16-aligned), with
 * calls through jctx.fn[] (position-independent code). *scratch keeps the
 * compiler's state between calls; free it with tl_jit_scratch_free. */
tl_status tl_jit_compile_func(tl_instance *inst, uint32_t fi, bool fuel, x64_buf *out,
                              tl_vec *fixes, void **scratch, jeh **eh, tl_error *err);
/* A call of lazy code through fn[] (mov eax, fi; call/jmp [r12 + fn[fi]],
 * len bytes at out offset `at`): when the callee already has code within
 * rel32 reach, the runtime rewrites it as a nop and a direct call/jmp. */
typedef struct { uint32_t at, fi; uint8_t len; bool tail; } jfix;
void tl_jit_scratch_free(void *scratch);
/* statistics of the last compile (for --compile-only) */
typedef void (*tl_jit_entry_fn)(jctx *c, uint64_t *sp, void *code, uint64_t depth);
/* ehs (eager) / *eh (lazy): per function, its exception tables or NULL */

/* helpers called from generated code (runtime.c) */
void tl_jit_h_op(jctx *c, uint64_t *sp, uint32_t op, uint32_t a, uint32_t b, uint64_t depth);
/* Helpers that may throw get the calling frame's rsp as a sixth argument. */
void tl_jit_h_call(jctx *c, uint64_t *sp, uint32_t fidx, uint32_t unused, uint64_t depth, uint64_t *rsp);
void tl_jit_h_call_indirect(jctx *c, uint64_t *sp, uint32_t ti, uint32_t table, uint64_t depth,
                            uint64_t *rsp);
void *tl_jit_h_resolve(jctx *c, uint64_t *sp, uint32_t ti, uint32_t table, uint64_t depth);
void tl_jit_h_trap(jctx *c, uint64_t *sp, uint32_t why, uint32_t unused, uint64_t depth);
/* the lazy thunk's helper: compiles function fi if needed, returns its entry */
void *tl_jit_h_lazy(jctx *c, uint32_t fi);
enum { JT_UNREACHABLE, JT_OOB_MEM, JT_DIV0, JT_OVERFLOW, JT_CONV, JT_EXHAUSTED, JT_FUEL, JT_NTRAPS };
/* eh.c: throw (tag's params at sp), throw_ref / rethrow (the exnref at sp) */
void tl_jit_h_throw(jctx *c, uint64_t *sp, uint32_t tag, uint32_t unused, uint64_t depth, uint64_t *rsp);
void tl_jit_h_throw_ref(jctx *c, uint64_t *sp, uint32_t unused, uint32_t unused2, uint64_t depth,
                        uint64_t *rsp);
/* Unwinds exception x from the JIT frame whose rsp is rsp (depth: its r15):
 * lands in the innermost frame of c's run segment with a matching handler,
 * or leaves the segment through its trampoline, which returns 1 with
 * js->exn = x. Never returns. */
_Noreturn void tl_jit_throw(jctx *c, tl_exn *x, uint64_t *rsp, uint64_t depth);
/* eh.c: code at start (eh->code_len bytes) has exception tables eh; the
 * store frees eh. The resume stub and the trampoline's exception exit
 * (runtime.c makes both; eh.c jumps to them). */
bool tl_jit_eh_register(jstore *js, const uint8_t *start, jeh *eh);
void tl_jit_eh_free(jstore *js);
typedef void (*tl_jit_resume_fn)(uint64_t *rsp, uint64_t rbx, const void *to, jctx *c, uint64_t depth)
    __attribute__((noreturn));
extern tl_jit_resume_fn tl_jit_resume;
extern const uint8_t *tl_jit_tramp_ret, *tl_jit_tramp_exc;
/* how many slots the helper for op needs as scratch (results) beyond its operands */

/* tl_jit_h_op's b for an access to a 64-bit memory (memory64): the memory
 * index | JB_ADDR64; the memarg's u64 offset follows the operands. */
#define JB_ADDR64 (1u << 31)
/* tl_jit_h_simd's b for a memory access: memory | lane << JB_LANE_SHIFT
 * (| JB_ADDR64); a the memarg offset (32-bit memories) */
#define JB_LANE_SHIFT 20
#define JB_MEM_MASK 0xFFFFFu
void tl_jit_h_simd(jctx *c, uint64_t *sp, uint32_t op, uint32_t a, uint32_t b, uint64_t depth);

/* Frame words of a value of type t, and a value moved between frame words
 * and a runtime slot (i32/f32 zero-extended); both return the words used. */
static inline uint32_t tl_jit_words(uint32_t t) { return t == TL_V128 ? 2 : 1; }
static inline uint32_t tl_jit_get(tl_v *v, const uint64_t *w, uint32_t t) {
  memset(v, 0, sizeof *v);
  if (t == TL_V128) memcpy(v->b, w, 16);
  else v->i64 = t == TL_I32 || t == TL_F32 ? (uint32_t)w[0] : w[0];
  return tl_jit_words(t);
}
static inline uint32_t tl_jit_put(uint64_t *w, const tl_v *v, uint32_t t) {
  memcpy(w, v->b, 8 * tl_jit_words(t));
  return tl_jit_words(t);
}
/* Words the first n types of ts take. */
static inline uint32_t tl_jit_nwords(const uint32_t *ts, uint32_t n) {
  uint32_t w = 0;
  for (uint32_t i = 0; i < n; i++) w += tl_jit_words(ts[i]);
  return w;
}

#endif
