/* runtime.c — the JIT's runtime: per-store state (value stack, code
 * mappings, the trap jump buffer), per-instance compiled code, the entry
 * trampoline, and the C helpers generated code calls (traps, calls through
 * imports and tables, memory and table instructions, rare numeric ops).
 * Store objects (memories, tables, globals, function instances) are the
 * shared runtime's (src/runtime/runtime.h), so linking, host functions,
 * spectest and WASI are the interpreter's too. Code memory is never writable and executable at once:
 * eager module code is mapped writable, filled, then made read+execute;
 * lazily compiled functions go to a code heap of memfd chunks mapped twice,
 * a read-write view the compiler writes and a read+execute view that runs
 * (one mapping per function, mprotected, if memfd is unavailable). Every
 * call into an instance's code goes through jctx.fn[], whose entries start
 * at the lazy thunk: it compiles the function, stores its entry in fn[] and
 * jumps there. Fuel: the outermost run copies the store's budget to
 * jstore.fuel, fuel code counts it down, the run writes it back; code is
 * compiled with fuel checks only while the store has a budget (fn[] is reset
 * to the lazy thunk when that changes). Traps longjmp to the innermost run.
 * Exceptions (eh.c) never longjmp: they land in a JIT frame's handler, or
 * leave the trampoline that entered the code with 1 (tl_jit_run reports
 * them uncaught; invoke() goes on unwinding in its caller).
 * Linear memories live in TL_MEM_RESERVE (8 GiB + 64 KiB) reservations
 * (src/ir/interp_mem.c: accessible pages read-write, the rest PROT_NONE;
 * memory.grow is an mprotect), so generated code does no bounds checks: a
 * SIGSEGV/SIGBUS at an address inside the reservation of a memory a JIT
 * instance uses, while JIT code runs, becomes the trap "out of bounds memory
 * access". */
#include "jit.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define VSTACK_SLOTS (1u << 21)

typedef struct { void *p; size_t n; } jmap;
typedef struct { tl_meminst *mm; uint8_t *base; size_t len; } jmem;

static _Thread_local jstore *cur_js;   /* the store whose code runs on this thread */

static const uint8_t *trampoline_code, *lazy_code;
const uint8_t *tl_jit_tramp_ret, *tl_jit_tramp_exc;
tl_jit_resume_fn tl_jit_resume;

_Static_assert(offsetof(jctx, membase) == JC_MEMBASE && offsetof(jctx, memsize) == JC_MEMSIZE &&
               offsetof(jctx, limit) == JC_LIMIT && offsetof(jctx, globals) == JC_GLOBALS &&
               offsetof(jctx, mem0) == JC_MEM0 && offsetof(jctx, fuel) == JC_FUEL,
               "jctx offsets used by generated code");

static void *map_code(jstore *js, const uint8_t *p, size_t n) {
  size_t sz = (n + 4095) & ~(size_t)4095;
  void *m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  memcpy(m, p, n);
  if (mprotect(m, sz, PROT_READ | PROT_EXEC)) {
    munmap(m, sz);
    return NULL;
  }
  if (js) {
    if (!tl_vec_try_grow(&js->maps, sizeof(jmap), js->maps.n + 1)) {
      munmap(m, sz);
      return NULL;
    }
    TL_VEC_AT(&js->maps, jmap, js->maps.n++) = (jmap){m, sz};
  }
  return m;
}

/* entry(ctx, sp, code, depth): saves callee-saved registers, sets the
 * generated code's registers and calls code. */
static const uint8_t *make_trampoline(void) {
  x64_buf b = {0};
  static const int saved[] = {RBX, RBP, R12, R13, R14, R15};
  for (int i = 0; i < 6; i++) {
    if (saved[i] >= 8) x64_byte(&b, 0x41);
    x64_byte(&b, (uint8_t)(0x50 + (saved[i] & 7)));
  }
  x64_rm(&b, 0, true, 0x83, 1, 5, x64_r(RSP), false);
  x64_byte(&b, 8);
  x64_rm(&b, 0, true, 0x8B, 1, R12, x64_r(RDI), false);
  x64_rm(&b, 0, true, 0x8B, 1, RBX, x64_r(RSI), false);
  x64_rm(&b, 0, true, 0x8B, 1, R15, x64_r(RCX), false);
  x64_rm(&b, 0, true, 0x8B, 1, RAX, x64_m(R12, JC_MEM0), false);
  x64_rm(&b, 0, true, 0x85, 1, RAX, x64_r(RAX), false);
  int32_t skip = x64_jcc(&b, CC_E, -1);
  x64_rm(&b, 0, true, 0x8B, 1, R13, x64_m(RAX, offsetof(tl_meminst, data)), false);
  x64_rm(&b, 0, true, 0x8B, 1, R14, x64_m(RAX, offsetof(tl_meminst, pages)), false);
  x64_rm(&b, 0, true, 0xC1, 1, 4, x64_r(R14), false);
  x64_byte(&b, 16);
  x64_patch(&b, skip, b.n);
  x64_rm(&b, 0, false, 0xFF, 1, 2, x64_r(RDX), false);               /* call rdx */
  size_t ret = b.n;
  x64_rm(&b, 0, false, 0x31, 1, RAX, x64_r(RAX), false);            /* xor eax, eax */
  size_t exc = b.n;                        /* eh.c lands here with eax = 1 */
  x64_rm(&b, 0, true, 0x83, 1, 0, x64_r(RSP), false);
  x64_byte(&b, 8);
  for (int i = 5; i >= 0; i--) {
    if (saved[i] >= 8) x64_byte(&b, 0x41);
    x64_byte(&b, (uint8_t)(0x58 + (saved[i] & 7)));
  }
  x64_byte(&b, 0xC3);
  const uint8_t *code = map_code(NULL, b.p, b.n);
  tl_free(b.p);
  if (code) {
    tl_jit_tramp_ret = code + ret;
    tl_jit_tramp_exc = code + exc;
  }
  return code;
}

/* The resume stub resume(rsp, rbx, to, jctx, depth): eh.c's jump into a
 * landing pad (or the trampoline's exception exit) of a frame further up
 * the stack; the C frames below it are abandoned. Sets the registers
 * generated code keeps (r12, r13 from jctx, r15) and eax = 1. */
static const uint8_t *make_resume(void) {
  x64_buf b = {0};
  x64_rm(&b, 0, true, 0x8B, 1, RSP, x64_r(RDI), false);
  x64_rm(&b, 0, true, 0x8B, 1, RBX, x64_r(RSI), false);
  x64_rm(&b, 0, true, 0x8B, 1, R12, x64_r(RCX), false);
  x64_rm(&b, 0, true, 0x8B, 1, R15, x64_r(R8), false);
  x64_rm(&b, 0, true, 0x8B, 1, RAX, x64_m(R12, JC_MEM0), false);
  x64_rm(&b, 0, true, 0x85, 1, RAX, x64_r(RAX), false);
  int32_t skip = x64_jcc(&b, CC_E, -1);
  x64_rm(&b, 0, true, 0x8B, 1, R13, x64_m(RAX, offsetof(tl_meminst, data)), false);
  x64_patch(&b, skip, b.n);
  x64_mov_ri(&b, RAX, 1);
  x64_rm(&b, 0, false, 0xFF, 1, 4, x64_r(RDX), false);             /* jmp rdx */
  const uint8_t *code = map_code(NULL, b.p, b.n);
  tl_free(b.p);
  return code;
}

/* The lazy thunk: entered by a call or tail call through fn[] with eax =
 * the function's index, rbx = its frame (arguments in place), rsp as at a
 * function entry; nothing else is live. Compiles (tl_jit_h_lazy) and jumps
 * to the entry. rbx, r12, r13, r15 survive the C call (callee-saved). */
static const uint8_t *make_lazy_thunk(void) {
  x64_buf b = {0};
  x64_rm(&b, 0, true, 0x83, 1, 5, x64_r(RSP), false);              /* sub rsp, 8 */
  x64_byte(&b, 8);
  x64_rm(&b, 0, true, 0x8B, 1, RDI, x64_r(R12), false);            /* mov rdi, r12 */
  x64_rm(&b, 0, false, 0x8B, 1, RSI, x64_r(RAX), false);           /* mov esi, eax */
  x64_mov_ri(&b, RAX, (uint64_t)(uintptr_t)tl_jit_h_lazy);
  x64_rm(&b, 0, false, 0xFF, 1, 2, x64_r(RAX), false);             /* call rax */
  x64_rm(&b, 0, true, 0x83, 1, 0, x64_r(RSP), false);              /* add rsp, 8 */
  x64_byte(&b, 8);
  x64_rm(&b, 0, false, 0xFF, 1, 4, x64_r(RAX), false);             /* jmp rax */
  const uint8_t *code = map_code(NULL, b.p, b.n);
  tl_free(b.p);
  return code;
}

/* Room for n bytes of code in the store's code heap: returns its executable
 * address (16-aligned) and sets *rw to where the bytes are written; then
 * code_seal. Without memfd: a mapping of its own, read-write until sealed. */
#define HEAP_CHUNK ((size_t)1 << 20)
static uint8_t *code_room(jstore *js, size_t n, uint8_t **rw) {
  if (!js->no_memfd && (!js->heap_rw || js->heap_size - js->heap_used < n)) {
    size_t sz = n > HEAP_CHUNK ? (n + 4095) & ~(size_t)4095 : HEAP_CHUNK;
    int fd = memfd_create("tilt-jit", MFD_CLOEXEC);
    void *w = MAP_FAILED, *x = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)sz) == 0) {
      w = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      x = mmap(NULL, sz, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
    }
    if (fd >= 0) close(fd);
    if (w != MAP_FAILED && x != MAP_FAILED && !tl_vec_try_grow(&js->maps, sizeof(jmap), js->maps.n + 2)) {
      munmap(w, sz);
      munmap(x, sz);
      return NULL;           /* out of memory */
    }
    if (w == MAP_FAILED || x == MAP_FAILED) {
      if (w != MAP_FAILED) munmap(w, sz);
      if (x != MAP_FAILED) munmap(x, sz);
      js->no_memfd = true;
    } else {
      TL_VEC_AT(&js->maps, jmap, js->maps.n++) = (jmap){w, sz}; /* room made above */
      TL_VEC_AT(&js->maps, jmap, js->maps.n++) = (jmap){x, sz};
      js->heap_rw = w;
      js->heap_rx = x;
      js->heap_size = sz;
      js->heap_used = 0;
    }
  }
  if (js->no_memfd) {
    size_t sz = (n + 4095) & ~(size_t)4095;
    uint8_t *m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (!tl_vec_try_grow(&js->maps, sizeof(jmap), js->maps.n + 1)) {
      munmap(m, sz);
      return NULL;
    }
    TL_VEC_AT(&js->maps, jmap, js->maps.n++) = (jmap){m, sz};
    return *rw = m;
  }
  *rw = js->heap_rw + js->heap_used;
  uint8_t *x = js->heap_rx + js->heap_used;
  js->heap_used += (n + 15) & ~(size_t)15;
  if (js->heap_used > js->heap_size) js->heap_used = js->heap_size;
  return x;
}

static bool code_seal(jstore *js, uint8_t *rw, size_t n) {
  return !js->no_memfd || mprotect(rw, (n + 4095) & ~(size_t)4095, PROT_READ | PROT_EXEC) == 0;
}

static jstore *jit_store(tl_store *s) {
  if (s->jit) return s->jit;
  jstore *js = tl_calloc(1, sizeof *js);
  if (!js) return NULL;
  js->stack = tl_malloc((size_t)VSTACK_SLOTS * sizeof *js->stack);
  if (!js->stack) { tl_free(js); return NULL; }
  js->stack_end = js->stack + VSTACK_SLOTS - 4096;
  js->top = js->stack;
  s->jit = js;
  return js;
}

void tl_jit_store_free(tl_store *s) {
  jstore *js = s ? s->jit : NULL;
  if (!js) return;
  for (size_t i = 0; i < js->maps.n; i++) {
    jmap *e = &TL_VEC_AT(&js->maps, jmap, i);
    munmap(e->p, e->n);
  }
  tl_vec_free(&js->maps);
  tl_vec_free(&js->mems);                  /* the store unmaps memories */
  tl_jit_eh_free(js);
  for (tl_instance *i = s->insts; i; i = i->next) {
    jctx *c = i->jit;
    if (!c) continue;
    tl_free(c->offs);
    tl_free(c->lazy_buf.p);
    tl_vec_free(&c->lazy_fix);
    tl_jit_scratch_free(c->scratch);
    tl_free(c);
    i->jit = NULL;
  }
  tl_free(js->stack);
  tl_free(js);
  s->jit = NULL;
}

static bool adopted(jstore *js, tl_meminst *mm) {
  for (size_t i = 0; i < js->mems.n; i++)
    if (TL_VEC_AT(&js->mems, jmem, i).mm == mm) return true;
  return false;
}

/* Registers mm's reservation for the fault handler. A memory whose
 * reservation is short of TL_MEM_RESERVE (the address space was tight when
 * it was made) moves into a full one first. */
static bool adopt(jstore *js, tl_meminst *mm) {
  if (adopted(js, mm)) return true;
  if (mm->reserved < TL_MEM_RESERVE) {
    tl_meminst big = *mm;
    if (!tl_mem_init(&big, mm->pages)) return false;
    if (big.reserved < TL_MEM_RESERVE) {
      tl_mem_free(&big);
      return false;
    }
    if (mm->pages) memcpy(big.data, mm->data, (size_t)mm->pages * TL_PAGE);
    tl_mem_free(mm);
    *mm = big;
  }
  if (!tl_vec_try_grow(&js->mems, sizeof(jmem), js->mems.n + 1)) return false;
  TL_VEC_AT(&js->mems, jmem, js->mems.n++) = (jmem){mm, mm->data, mm->reserved};
  return true;
}

static void on_fault(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  jstore *js = cur_js;
  uint8_t *a = si->si_addr;
  for (size_t i = 0; js && js->jb && i < js->mems.n; i++) {
    jmem *e = &TL_VEC_AT(&js->mems, jmem, i);
    if (a >= e->base && a < e->base + e->len) {
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, sig);
      sigprocmask(SIG_UNBLOCK, &set, NULL);
      static const char msg[] = "out of bounds memory access";
      memset(&js->err, 0, sizeof js->err);
      js->err.code = TL_E_TRAP;
      js->err.offset = TL_NO_OFFSET;
      js->err.func_index = TL_NO_FUNC;
      memcpy(js->err.msg, msg, sizeof msg);
      js->st = TL_E_TRAP;
      longjmp(*js->jb, 1);
    }
  }
  signal(sig, SIG_DFL);                    /* not ours: fault again, for real */
}

static void install_handler(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
}

/* Once per process: the entry trampoline, the lazy thunk, the fault
 * handler; what could not be made (out of memory) is tried again by the
 * next instance. Made once, they never change: readers after a call here
 * need no lock. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool init_process(void) {
  static bool handler_installed;
  pthread_mutex_lock(&init_lock);
  if (!trampoline_code) trampoline_code = make_trampoline();
  if (!lazy_code) lazy_code = make_lazy_thunk();
  if (!tl_jit_resume) {
    const uint8_t *r = make_resume();
    if (r) memcpy(&tl_jit_resume, &r, sizeof r);   /* data to function pointer */
  }
  if (!handler_installed) {
    install_handler();
    handler_installed = true;
  }
  bool ok = trampoline_code && lazy_code && tl_jit_resume;
  pthread_mutex_unlock(&init_lock);
  return ok;
}

/* The instance's JIT state: fn[] all at the lazy thunk, nothing compiled. */
static tl_status jit_instance(tl_instance *inst, jctx **out, tl_error *err) {
  if (inst->jit) { *out = inst->jit; return TL_OK; }
  jstore *js = jit_store(inst->s);
  if (!js) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  if (!init_process()) return tl_nomem(err, "JIT: cannot map code");
  size_t nf = inst->m->funcs.n;
  if (nf > ((size_t)1 << 26))
    return tl_errorf(err, TL_E_LIMIT, TL_NO_OFFSET, "too many functions for the JIT");
  for (uint32_t i = 0; i < inst->m->memories.n; i++)
    if (!adopt(js, inst->mems[i]))
      return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory (cannot reserve linear memory)");
  jctx *c = tl_calloc(1, sizeof *c + (nf + 1) * sizeof(void *));
  if (!c) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  for (size_t i = 0; i < nf; i++) c->fn[i] = (void *)(uintptr_t)lazy_code;
  c->limit = js->stack_end;
  c->globals = inst->globals;
  c->mem0 = inst->m->memories.n ? inst->mems[0] : NULL;
  c->js = js;
  c->inst = inst;
  c->fuel = &js->fuel;
  c->fuel_mode = inst->s->fuel != 0;
  inst->jit = c;
  *out = c;
  return TL_OK;
}

static double secs(const struct timespec *a, const struct timespec *b) {
  return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* Eager: compiles the whole module (once) on `threads` threads and points
 * fn[] at it. */
static tl_status compile_all(jctx *c, int threads, tl_error *err) {
  if (c->code) return TL_OK;
  tl_instance *inst = c->inst;
  uint32_t *offs = tl_calloc(inst->m->funcs.n + 1, sizeof *offs);
  if (!offs) return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  x64_buf b = {0};
  struct timespec c0, w0, c1, w1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  clock_gettime(CLOCK_MONOTONIC, &w0);
  jeh **ehs = tl_calloc(inst->m->funcs.n + 1, sizeof *ehs);
  if (!ehs) {
    tl_free(offs);
    return tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
  }
  tl_status st = tl_jit_compile_module(inst, &b, offs, threads, c->fuel_mode, &c->compile_crit, ehs, err);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  clock_gettime(CLOCK_MONOTONIC, &w1);
  uint8_t *code = NULL;
  if (!st && !(code = map_code(c->js, b.p ? b.p : (const uint8_t *)"\xc3", b.p ? b.n : 1)))
    st = tl_nomem(err, "JIT: cannot map code");
  const char *dump = getenv("TILT_JIT_DUMP");      /* debugging: raw code, objdump -b binary */
  FILE *df = !st && dump ? fopen(dump, "wb") : NULL;
  if (df) {
    fwrite(b.p, 1, b.n, df);
    fclose(df);
  }
  size_t n = b.n;
  tl_free(b.p);
  for (size_t i = 0; i < inst->m->funcs.n; i++) {
    if (ehs[i] && !st && !tl_jit_eh_register(c->js, code + offs[i], ehs[i]))
      st = tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
    else if (ehs[i] && st) tl_free(ehs[i]);
  }
  tl_free(ehs);
  if (st) {
    tl_free(offs);
    return st;
  }
  c->compile_cpu = secs(&c0, &c1);
  c->compile_wall = secs(&w0, &w1);
  c->code = code;
  c->code_size = n;
  c->offs = offs;
  for (size_t i = inst->m->nimported_funcs; i < inst->m->funcs.n; i++) c->fn[i] = code + offs[i];
  return TL_OK;
}

/* Points fn[] back at the lazy thunk when the store's fuel setting no longer
 * matches the code's (the old code stays mapped: frames may still run it). */
static void match_fuel(jctx *c) {
  if (c->fuel_mode == c->js->fuel_on) return;
  c->fuel_mode = c->js->fuel_on;
  for (size_t i = 0; i < c->inst->m->funcs.n; i++) c->fn[i] = (void *)(uintptr_t)lazy_code;
}

/* Turns the calls through fn[] of code placed at x into direct ones where
 * the callee (or the function itself) already has code within reach. */
static void direct_calls(jctx *c, uint32_t self, uint8_t *x) {
  static const uint8_t nops[][9] = {{0}, {0x90}, {0x66, 0x90}, {0x0F, 0x1F, 0x00},
                                    {0x0F, 0x1F, 0x40, 0x00}, {0x0F, 0x1F, 0x44, 0x00, 0x00},
                                    {0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00},
                                    {0x0F, 0x1F, 0x80, 0x00, 0x00, 0x00, 0x00},
                                    {0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
                                    {0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}};
  for (size_t i = 0; i < c->lazy_fix.n; i++) {
    jfix *f = &TL_VEC_AT(&c->lazy_fix, jfix, i);
    uint8_t *to = f->fi == self ? x : c->fn[f->fi] != lazy_code ? c->fn[f->fi] : NULL;
    int64_t rel = to ? (int64_t)(to - (x + f->at + f->len)) : 0;
    if (!to || rel < INT32_MIN || rel > INT32_MAX || f->len < 5 || f->len > 14) continue;
    uint8_t *p = c->lazy_buf.p + f->at;
    memcpy(p, nops[f->len - 5], f->len - 5);      /* the return address stays put */
    p[f->len - 5] = f->tail ? 0xE9 : 0xE8;
    int32_t r = (int32_t)rel;
    memcpy(p + f->len - 4, &r, 4);
  }
}

/* The entry of function fi of c's instance, compiled now if need be. */
static void *entry_of(jctx *c, uint32_t fi, tl_error *err) {
  if (c->fn[fi] != lazy_code) return c->fn[fi];
  c->lazy_buf.n = 0;
  c->lazy_fix.n = 0;
  jeh *eh = NULL;
  tl_status st = tl_jit_compile_func(c->inst, fi, c->fuel_mode, &c->lazy_buf, &c->lazy_fix,
                                     &c->scratch, &eh, err);
  if (st) {
    if (c->lazy_buf.oom) { /* the next compile starts with a fresh buffer */
      tl_free(c->lazy_buf.p);
      memset(&c->lazy_buf, 0, sizeof c->lazy_buf);
    }
    return NULL;
  }
  size_t n = c->lazy_buf.n;
  uint8_t *rw, *x = code_room(c->js, n, &rw);
  if (x) {
    direct_calls(c, fi, x);
    memcpy(rw, c->lazy_buf.p, n);
  }
  if (!x || !code_seal(c->js, rw, n)) {
    tl_free(eh);
    tl_nomem(err, "JIT: cannot map code");
    return NULL;
  }
  if (eh && !tl_jit_eh_register(c->js, x, eh)) {
    tl_errorf(err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory");
    return NULL;
  }
  c->lazy_bytes += n;
  if (c->lazy_buf.cap > ((size_t)1 << 20)) {     /* keep a huge function's buffer no longer */
    tl_free(c->lazy_buf.p);
    memset(&c->lazy_buf, 0, sizeof c->lazy_buf);
  }
  return c->fn[fi] = x;
}

/* ------------------------------------------------------------- traps */
static _Noreturn void jtrap(jstore *js, tl_status st, const char *msg) {
  tl_errorf(&js->err, st, TL_NO_OFFSET, "%s", msg);
  js->st = st;
  longjmp(*js->jb, 1);
}

void tl_jit_h_trap(jctx *c, uint64_t *sp, uint32_t why, uint32_t unused, uint64_t depth) {
  (void)sp, (void)unused, (void)depth;
  static const char *const msg[JT_NTRAPS] = {"unreachable", "out of bounds memory access",
                                             "integer divide by zero", "integer overflow",
                                             "invalid conversion to integer", "call stack exhausted",
                                             "fuel exhausted"};
  jtrap(c->js, why == JT_EXHAUSTED || why == JT_FUEL ? TL_E_EXHAUSTED : TL_E_TRAP, msg[why]);
}

void *tl_jit_h_lazy(jctx *c, uint32_t fi) {
  tl_error e;
  void *p = entry_of(c, fi, &e);
  if (!p) jtrap(c->js, e.code, e.msg);
  return p;
}

/* ------------------------------------------------------------- calls */
/* The trampoline: 0, or 1 when an exception (js->exn) left the code it ran. */
typedef int (*entry_fn)(jctx *c, uint64_t *sp, const void *code, uint64_t depth);

static uint64_t mask(uint32_t t, uint64_t v) { return t == TL_I32 || t == TL_F32 ? (uint32_t)v : v; }

/* Calls f from JIT code (the frame at rsp, r15 = depth). An exception out
 * of f goes on unwinding from that frame. */
static void invoke(jctx *c, tl_funcinst *f, uint64_t *sp, uint64_t depth, uint64_t *rsp) {
  jstore *js = c->js;
  if (!f->host && f->inst->s == c->inst->s) {
    jctx *fc;
    tl_error e;
    void *entry = NULL;
    if (jit_instance(f->inst, &fc, &e) == TL_OK) {
      match_fuel(fc);
      entry = entry_of(fc, f->index, &e);
    }
    if (!entry) jtrap(js, e.code, e.msg);
    if (((entry_fn)(uintptr_t)trampoline_code)(fc, sp, entry, depth)) tl_jit_throw(c, js->exn, rsp, depth);
    return;
  }
  /* a host function (it sees the calling instance's memory), or a function
   * of another store */
  uint32_t n = f->np > f->nr ? f->np : f->nr;
  uint32_t pw = tl_jit_nwords(f->types, f->np), rw = tl_jit_nwords(f->types + f->np, f->nr);
  tl_value small[16], *buf = small;
  if (2 * n > 16 && !(buf = tl_scratch_calloc(2 * (size_t)n, sizeof *buf)))
    jtrap(js, TL_E_NOMEM, "out of memory (host call)");
  tl_value *a = buf, *r = buf + n;
  for (uint32_t i = 0, w = 0; i < f->np; i++) {
    tl_v v;
    memset(&a[i], 0, sizeof a[i]);
    a[i].type = f->types[i];
    w += tl_jit_get(&v, sp + w, f->types[i]);
    memcpy(a[i].of.v128, v.b, 16);
  }
  for (uint32_t i = 0; i < f->nr; i++) {
    memset(&r[i], 0, sizeof r[i]);
    r[i].type = f->types[f->np + i];
  }
  uint64_t *top0 = js->top;
  js->top = sp + (pw > rw ? pw : rw) + 1;
  tl_error e = {0};
  tl_status st;
  if (f->host) {
    tl_host_call hc = {c->inst, f->nr};
    st = f->host(&hc, f->user, a, r, &e);
  } else {
    st = tl_func_call(f->inst->s, (tl_extern){TL_EXTERNKIND_FUNC, f}, a, f->np, r, f->nr, NULL, &e);
  }
  js->top = top0;
  for (uint32_t i = 0, w = 0; st == TL_OK && i < f->nr; i++) {
    tl_v v;
    memcpy(v.b, r[i].of.v128, 16);
    w += tl_jit_put(sp + w, &v, f->types[f->np + i]);
  }
  if (buf != small) tl_free(buf);
  tl_store *s = c->inst->s;
  if (st == TL_E_EXCEPTION && s->exn) {   /* a wasm exception through the host */
    tl_exn *x = s->exn;
    s->exn = NULL;
    tl_jit_throw(c, x, rsp, depth);
  }
  if (st) {
    js->err = e;
    js->st = st;
    longjmp(*js->jb, 1);
  }
}

void tl_jit_h_call(jctx *c, uint64_t *sp, uint32_t fidx, uint32_t unused, uint64_t depth, uint64_t *rsp) {
  (void)unused;
  invoke(c, c->inst->funcs[fidx], sp, depth, rsp);
}

/* An index operand in a home slot: an i32 slot's upper half is not
 * defined, an i64's (a 64-bit memory or table) is the value. */
#define IX(v, is64) ((is64) ? (uint64_t)(v) : (uint64_t)(uint32_t)(v))

static tl_funcinst *elem_checked(jctx *c, uint64_t *sp, uint32_t ti, uint32_t table) {
  tl_funcinst *sig = &c->inst->sigs[ti];
  tl_tableinst *t = c->inst->tables[table];
  uint64_t i = IX(sp[tl_jit_nwords(sig->types, sig->np)], t->is64);
  if (i >= t->n) jtrap(c->js, TL_E_TRAP, "undefined element");
  tl_funcinst *f = t->e[i];
  if (!f) jtrap(c->js, TL_E_TRAP, "uninitialized element");
  if (f != sig && f->types != sig->types && !tl_interp_sig_eq(f, sig))
    jtrap(c->js, TL_E_TRAP, "indirect call type mismatch");
  return f;
}

void *tl_jit_h_resolve(jctx *c, uint64_t *sp, uint32_t ti, uint32_t table, uint64_t depth) {
  (void)depth;
  tl_funcinst *f = elem_checked(c, sp, ti, table);
  if (f->inst != c->inst) return NULL;
  tl_error e;
  void *p = entry_of(c, f->index, &e);
  if (!p) jtrap(c->js, e.code, e.msg);
  return p;
}

void tl_jit_h_call_indirect(jctx *c, uint64_t *sp, uint32_t ti, uint32_t table, uint64_t depth,
                            uint64_t *rsp) {
  tl_funcinst *sig = &c->inst->sigs[ti];
  tl_tableinst *t = c->inst->tables[table];
  uint64_t i = IX(sp[tl_jit_nwords(sig->types, sig->np)], t->is64);
  if (i >= t->n) jtrap(c->js, TL_E_TRAP, "undefined element");
  tl_funcinst *f = t->e[i];
  if (!f) jtrap(c->js, TL_E_TRAP, "uninitialized element");
  if (!tl_interp_sig_eq(f, sig)) jtrap(c->js, TL_E_TRAP, "indirect call type mismatch");
  invoke(c, f, sp, depth, rsp);
}

/* ---------------------------------------------------------- generic op */
static bool oob(uint64_t a, uint64_t n, uint64_t sz) { return a > sz || sz - a < n; }

static uint32_t cs32(uint32_t a, uint32_t b) { return (a & 0x7fffffffu) | (b & 0x80000000u); }
static uint64_t cs64(uint64_t a, uint64_t b) {
  return (a & 0x7fffffffffffffffull) | (b & 0x8000000000000000ull);
}

static uint64_t trunc_op(jctx *c, int op, uint64_t a) {
  bool sat = op >= TL_OP_I32_TRUNC_SAT_F32_S && op <= TL_OP_I64_TRUNC_SAT_F64_U;
  int d;
  if (sat) d = op - TL_OP_I32_TRUNC_SAT_F32_S;
  else if (op >= TL_OP_I64_TRUNC_F32_S && op <= TL_OP_I64_TRUNC_F64_U) d = 4 + op - TL_OP_I64_TRUNC_F32_S;
  else d = op - TL_OP_I32_TRUNC_F32_S;
  bool is64 = d >= 4, src64 = (d & 2) != 0, sign = (d & 1) == 0;
  double x = src64 ? tl_f64(a) : (double)tl_f32((uint32_t)a);
  if (sat) return mask(is64 ? TL_I64 : TL_I32, tl_trunc_sat_f64(x, is64, sign));
  uint64_t out;
  int r = tl_trunc_f64(x, is64, sign, &out);
  if (r == 1) jtrap(c->js, TL_E_TRAP, "invalid conversion to integer");
  if (r == 2) jtrap(c->js, TL_E_TRAP, "integer overflow");
  return mask(is64 ? TL_I64 : TL_I32, out);
}

/* memory.grow: the old size, or -1 of the memory's address type. */
static uint64_t grow_mem(tl_meminst *mem, uint64_t delta) {
  uint64_t old = mem->pages;
  if (tl_mem_grow(mem, delta)) return old;
  return mem->is64 ? UINT64_MAX : UINT32_MAX;
}

/* The effective address of an access to memory mm: b (the helper's) has
 * JB_ADDR64 for a 64-bit memory, whose u64 offset follows the operands
 * (sp[nops]) and whose address + offset overflowing 64 bits traps. */
static uint64_t eff_addr(jctx *c, const uint64_t *sp, int op, uint32_t off, uint32_t b, unsigned w) {
  tl_meminst *mm = c->inst->mems[b & ~JB_ADDR64];
  uint64_t ea;
  if (!(b & JB_ADDR64)) ea = (uint64_t)(uint32_t)sp[0] + off;
  else if (__builtin_add_overflow(sp[0], sp[tl_ops[op].nops], &ea)) jtrap(c->js, TL_E_TRAP, "out of bounds memory access");
  if (oob(ea, w, mm->pages * TL_PAGE)) jtrap(c->js, TL_E_TRAP, "out of bounds memory access");
  return ea;
}

/* A plain load or store of memory mi (not 0: memory 0's are compiled
 * inline): sp[0] the address, sp[1] a store's value; off the memarg offset. */
static void plain_access(jctx *c, uint64_t *sp, int op, uint32_t off, uint32_t mi) {
  tl_meminst *mm = c->inst->mems[mi & ~JB_ADDR64];
  unsigned w = 1u << tl_op_natural_align(op);
  uint64_t ea = eff_addr(c, sp, op, off, mi, w), v = 0;
  if (tl_ops[op].result == TL_NONE) {   /* a store */
    memcpy(mm->data + ea, &sp[1], w);
    return;
  }
  memcpy(&v, mm->data + ea, w);
  switch (op) {
  case TL_OP_I32_LOAD8_S: v = (uint32_t)(int32_t)(int8_t)v; break;
  case TL_OP_I32_LOAD16_S: v = (uint32_t)(int32_t)(int16_t)v; break;
  case TL_OP_I64_LOAD8_S: v = (uint64_t)(int64_t)(int8_t)v; break;
  case TL_OP_I64_LOAD16_S: v = (uint64_t)(int64_t)(int16_t)v; break;
  case TL_OP_I64_LOAD32_S: v = (uint64_t)(int64_t)(int32_t)v; break;
  default: break;
  }
  sp[0] = v;
}

/* Atomics on one thread, as the interpreter runs them: sp[0] is the address,
 * operands follow; off is the memarg offset, mi the memory. */
static void atomic_op(jctx *c, uint64_t *sp, int op, uint32_t off, uint32_t mi) {
  static const uint8_t size[7] = {4, 8, 1, 2, 1, 2, 4};
  tl_meminst *mm = c->inst->mems[mi & ~JB_ADDR64];
  unsigned w;
  int grp = 0, var = 0;
  if (op == TL_OP_MEMORY_ATOMIC_NOTIFY) w = 4;
  else if (op == TL_OP_MEMORY_ATOMIC_WAIT32) w = 4;
  else if (op == TL_OP_MEMORY_ATOMIC_WAIT64) w = 8;
  else {
    int k = op - TL_OP_I32_ATOMIC_LOAD;
    grp = k / 7;
    var = k % 7;
    w = size[var];
  }
  uint64_t ea = eff_addr(c, sp, op, off, mi, w);
  if (ea & (w - 1)) jtrap(c->js, TL_E_TRAP, "unaligned atomic");
  uint8_t *p = mm->data + ea;
  uint64_t old = 0;
  memcpy(&old, p, w);
  if (op == TL_OP_MEMORY_ATOMIC_NOTIFY) { sp[0] = 0; return; }
  if (op == TL_OP_MEMORY_ATOMIC_WAIT32 || op == TL_OP_MEMORY_ATOMIC_WAIT64) {
    if (!mm->shared) jtrap(c->js, TL_E_TRAP, "expected shared memory");
    uint64_t want = w == 4 ? (uint32_t)sp[1] : sp[1];
    sp[0] = old != want ? 1 : 2;
    return;
  }
  bool i64 = var == 1 || var >= 4;
  uint64_t m = w == 8 ? UINT64_MAX : (1ull << (8 * w)) - 1;
  uint64_t x = i64 ? sp[1] : (uint32_t)sp[1], y = i64 ? sp[2] : (uint32_t)sp[2], nv = 0;
  switch (grp) {
  case 0: sp[0] = old; return;
  case 1: nv = x; break;
  case 2: nv = old + x; break;
  case 3: nv = old - x; break;
  case 4: nv = old & x; break;
  case 5: nv = old | x; break;
  case 6: nv = old ^ x; break;
  case 7: nv = x; break;
  default: nv = old == (x & m) ? y : old; break;
  }
  memcpy(p, &nv, w);
  if (grp >= 2) sp[0] = old;
}

/* Bulk instructions pay fuel for their length (tl_bulk_fuel), from the
 * counter fuel code decrements, and stop the run as fuel code does. */
static void charge(jctx *c, uint64_t bytes) {
  jstore *js = c->js;
  int64_t k = (int64_t)tl_bulk_fuel(bytes);
  if (!js->fuel_on || !k) return;
  if (js->fuel <= k) {
    js->fuel = 0;
    jtrap(js, TL_E_EXHAUSTED, "fuel exhausted");
  }
  js->fuel -= k;
}

void tl_jit_h_op(jctx *c, uint64_t *sp, uint32_t op, uint32_t a, uint32_t b, uint64_t depth);
void tl_jit_h_op(jctx *c, uint64_t *sp, uint32_t op, uint32_t a, uint32_t b, uint64_t depth) {
  (void)depth;
  tl_instance *inst = c->inst;
  uint64_t x = sp[0], y = sp[1];
  uint32_t x32 = (uint32_t)x, y32 = (uint32_t)y;
  const char *oobm = "out of bounds memory access", *oobt = "out of bounds table access";
  switch (op) {
  case TL_OP_F32_MIN: sp[0] = tl_fmin32(x32, y32); return;
  case TL_OP_F32_MAX: sp[0] = tl_fmax32(x32, y32); return;
  case TL_OP_F64_MIN: sp[0] = tl_fmin64(x, y); return;
  case TL_OP_F64_MAX: sp[0] = tl_fmax64(x, y); return;
  case TL_OP_F32_COPYSIGN: sp[0] = cs32(x32, y32); return;
  case TL_OP_F64_COPYSIGN: sp[0] = cs64(x, y); return;
  case TL_OP_F32_CONVERT_I64_U: sp[0] = tl_f32b((float)x); return;
  case TL_OP_F64_CONVERT_I64_U: sp[0] = tl_f64b((double)x); return;
  case TL_OP_MEMORY_SIZE: sp[0] = (uint32_t)inst->mems[a]->pages; return;
  case TL_OP_MEMORY_GROW: sp[0] = grow_mem(inst->mems[a], IX(x, inst->mems[a]->is64)); return;
  case TL_OP_MEMORY_FILL: {
    tl_meminst *mm = inst->mems[a];
    uint64_t d = IX(x, mm->is64), n = IX(sp[2], mm->is64);
    if (oob(d, n, mm->pages * TL_PAGE)) jtrap(c->js, TL_E_TRAP, oobm);
    charge(c, n);
    memset(mm->data + d, (int)(y32 & 0xff), n);
    return;
  }
  case TL_OP_MEMORY_COPY: {
    tl_meminst *dm = inst->mems[a], *sm = inst->mems[b];
    uint64_t d = IX(x, dm->is64), s = IX(y, sm->is64), n = IX(sp[2], dm->is64 && sm->is64);
    if (oob(s, n, sm->pages * TL_PAGE) || oob(d, n, dm->pages * TL_PAGE)) jtrap(c->js, TL_E_TRAP, oobm);
    charge(c, n);
    if (n) memmove(dm->data + d, sm->data + s, n);
    return;
  }
  case TL_OP_MEMORY_INIT: {
    tl_meminst *mm = inst->mems[b];
    uint64_t d = IX(x, mm->is64), n = (uint32_t)sp[2];
    if (oob(y32, n, inst->data_n[a]) || oob(d, n, mm->pages * TL_PAGE)) jtrap(c->js, TL_E_TRAP, oobm);
    charge(c, n);
    if (n) memcpy(mm->data + d, TL_DATA(inst->m, a)->bytes + y32, n);
    return;
  }
  case TL_OP_DATA_DROP: inst->data_n[a] = 0; return;
  case TL_OP_ELEM_DROP: inst->elem_n[a] = 0; return;
  case TL_OP_TABLE_GET: {
    tl_tableinst *t = inst->tables[a];
    uint64_t i = IX(x, t->is64);
    if (i >= t->n) jtrap(c->js, TL_E_TRAP, oobt);
    sp[0] = (uint64_t)(uintptr_t)t->e[i];
    return;
  }
  case TL_OP_TABLE_SET: {
    tl_tableinst *t = inst->tables[a];
    uint64_t i = IX(x, t->is64);
    if (i >= t->n) jtrap(c->js, TL_E_TRAP, oobt);
    t->e[i] = (void *)(uintptr_t)y;
    return;
  }
  case TL_OP_TABLE_SIZE: sp[0] = inst->tables[a]->n; return;
  case TL_OP_TABLE_GROW: {
    tl_tableinst *t = inst->tables[a];
    uint64_t n = IX(y, t->is64);
    uint32_t old = n > UINT32_MAX ? UINT32_MAX : tl_table_grow(t, (void *)(uintptr_t)x, (uint32_t)n);
    if (old != UINT32_MAX) charge(c, n * 8);
    sp[0] = old != UINT32_MAX ? old : t->is64 ? UINT64_MAX : UINT32_MAX;
    return;
  }
  case TL_OP_TABLE_FILL: {
    tl_tableinst *t = inst->tables[a];
    uint64_t i = IX(x, t->is64), n = IX(sp[2], t->is64);
    if (oob(i, n, t->n)) jtrap(c->js, TL_E_TRAP, oobt);
    charge(c, n * 8);
    for (uint64_t k = 0; k < n; k++) t->e[i + k] = (void *)(uintptr_t)y;
    return;
  }
  case TL_OP_TABLE_COPY: {
    tl_tableinst *dt = inst->tables[a], *st = inst->tables[b];
    uint64_t d = IX(x, dt->is64), s = IX(y, st->is64), n = IX(sp[2], dt->is64 && st->is64);
    if (oob(s, n, st->n) || oob(d, n, dt->n)) jtrap(c->js, TL_E_TRAP, oobt);
    charge(c, n * 8);
    if (n) memmove(dt->e + d, st->e + s, n * sizeof(void *));
    return;
  }
  case TL_OP_TABLE_INIT: {
    tl_tableinst *t = inst->tables[b];
    uint64_t d = IX(x, t->is64), n = (uint32_t)sp[2];
    if (oob(y32, n, inst->elem_n[a]) || oob(d, n, t->n)) jtrap(c->js, TL_E_TRAP, oobt);
    charge(c, n * 8);
    if (n) memcpy(t->e + d, inst->elem[a] + y32, n * sizeof(void *));
    return;
  }
  default: break;
  }
  if (tl_ops[op].flags & TL_F_ATOMIC) {
    atomic_op(c, sp, (int)op, a, b);
    return;
  }
  if (tl_ops[op].imm == TL_IMM_MEMARG) {
    plain_access(c, sp, (int)op, a, b);
    return;
  }
  if ((op >= TL_OP_I32_TRUNC_F32_S && op <= TL_OP_I64_TRUNC_F64_U) ||
      (op >= TL_OP_I32_TRUNC_SAT_F32_S && op <= TL_OP_I64_TRUNC_SAT_F64_U)) {
    sp[0] = trunc_op(c, (int)op, x);
    return;
  }
  jtrap(c->js, TL_E_UNSUPPORTED, "JIT: instruction without a helper");
}

/* ---------------------------------------------------------------- SIMD */
/* A SIMD load or store: v[0] the address, v[1] a stored or lane-loaded
 * v128; nw the operands' words (a 64-bit memory's u64 offset follows them). */
static void simd_access(jctx *c, uint64_t *sp, int op, const tl_v *v, uint32_t nw, uint32_t off, uint32_t b) {
  tl_meminst *mm = c->inst->mems[b & JB_MEM_MASK];
  unsigned n = 1u << tl_op_natural_align(op), lane = (b >> JB_LANE_SHIFT) & 15;
  uint64_t ea;
  if (!(b & JB_ADDR64)) ea = v[0].i64 + off;
  else if (__builtin_add_overflow(v[0].i64, sp[nw], &ea)) jtrap(c->js, TL_E_TRAP, "out of bounds memory access");
  if (oob(ea, n, mm->pages * TL_PAGE)) jtrap(c->js, TL_E_TRAP, "out of bounds memory access");
  uint8_t *p = mm->data + ea;
  tl_v r[1];
  memset(r, 0, sizeof r);
  switch (op) {
  case TL_OP_V128_STORE: memcpy(p, v[1].b, 16); return;
  case TL_OP_V128_STORE8_LANE: case TL_OP_V128_STORE16_LANE: case TL_OP_V128_STORE32_LANE:
  case TL_OP_V128_STORE64_LANE:
    memcpy(p, v[1].b + lane * n, n);
    return;
  case TL_OP_V128_LOAD8_LANE: case TL_OP_V128_LOAD16_LANE: case TL_OP_V128_LOAD32_LANE:
  case TL_OP_V128_LOAD64_LANE:
    r[0] = v[1];
    memcpy(r[0].b + lane * n, p, n);
    break;
  case TL_OP_V128_LOAD8_SPLAT: case TL_OP_V128_LOAD16_SPLAT: case TL_OP_V128_LOAD32_SPLAT:
  case TL_OP_V128_LOAD64_SPLAT:
    for (unsigned i = 0; i < 16 / n; i++) memcpy(r[0].b + i * n, p, n);
    break;
  case TL_OP_V128_LOAD8X8_S: case TL_OP_V128_LOAD8X8_U: case TL_OP_V128_LOAD16X4_S:
  case TL_OP_V128_LOAD16X4_U: case TL_OP_V128_LOAD32X2_S: case TL_OP_V128_LOAD32X2_U: {
    static const int ext[6] = {TL_OP_I16X8_EXTEND_LOW_I8X16_S, TL_OP_I16X8_EXTEND_LOW_I8X16_U,
                               TL_OP_I32X4_EXTEND_LOW_I16X8_S, TL_OP_I32X4_EXTEND_LOW_I16X8_U,
                               TL_OP_I64X2_EXTEND_LOW_I32X4_S, TL_OP_I64X2_EXTEND_LOW_I32X4_U};
    memcpy(r[0].b, p, 8);
    tl_simd_eval(ext[op - TL_OP_V128_LOAD8X8_S], 0, r + 1);
    break;
  }
  default: memcpy(r[0].b, p, n); break;       /* v128.load, load32/64_zero */
  }
  tl_jit_put(sp, &r[0], TL_V128);
}

/* A SIMD instruction the compiler leaves to C: operands at sp in frame
 * words, the result replaces them; a: the lane (or a 32-bit memory's
 * offset), b: see JB_LANE_SHIFT. */
void tl_jit_h_simd(jctx *c, uint64_t *sp, uint32_t op, uint32_t a, uint32_t b, uint64_t depth) {
  (void)depth;
  const tl_opinfo *oi = &tl_ops[op];
  tl_v v[3];
  uint32_t w = 0;
  for (uint32_t i = 0; i < oi->nops; i++) w += tl_jit_get(&v[i], sp + w, oi->ops[i]);
  if (oi->imm == TL_IMM_MEMARG || oi->imm == TL_IMM_MEMARG_LANE) {
    if (b & JB_ADDR64) v[0].i64 = sp[0];    /* the table's i32 address is an i64 here */
    simd_access(c, sp, (int)op, v, w, a, b);
    return;
  }
  tl_simd_eval((int)op, a, v + oi->nops);
  tl_jit_put(sp, &v[0], oi->result);
}

/* ------------------------------------------------------------- entry */
tl_status tl_jit_run(tl_store *s, tl_funcinst *f, tl_v *args, tl_v *results, tl_error *err) {
  jctx *c;
  tl_status st = jit_instance(f->inst, &c, err);
  if (st) return st;
  jstore *js = c->js;
  bool outer = js->jb == NULL;
  if (outer) {                        /* the budget: from the store, back at the end */
    js->fuel_on = s->fuel != 0;
    js->fuel = s->fuel > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)s->fuel;
  }
  match_fuel(c);
  uint64_t *base = js->top;
  uint32_t pw = tl_jit_nwords(f->types, f->np), rw = tl_jit_nwords(f->types + f->np, f->nr);
  if (base + (pw > rw ? pw : rw) + 16 > js->stack_end)
    return tl_errorf(err, TL_E_EXHAUSTED, TL_NO_OFFSET, "call stack exhausted");
  void *entry = entry_of(c, f->index, err);
  if (!entry) return err->code;
  for (uint32_t i = 0, w = 0; i < f->np; i++) {
    tl_v v;                                 /* i32 and f32 zero-extended */
    tl_jit_get(&v, args[i].w, f->types[i]);
    w += tl_jit_put(base + w, &v, f->types[i]);
  }
  jmp_buf jb, *prev = js->jb;
  uint64_t *volatile top0 = js->top;
  jstore *volatile prev_js = cur_js;
  js->jb = &jb;
  cur_js = js;
  if (setjmp(jb)) {
    js->jb = prev;
    js->top = top0;
    cur_js = prev_js;
    if (outer && js->fuel_on) s->fuel = js->fuel > 0 ? (uint64_t)js->fuel : 1;
    *err = js->err;
    return js->st;
  }
  int thrown = ((entry_fn)(uintptr_t)trampoline_code)(c, base, entry, s->max_depth);
  js->jb = prev;
  js->top = top0;
  cur_js = prev_js;
  if (outer && js->fuel_on) s->fuel = js->fuel > 0 ? (uint64_t)js->fuel : 1;
  if (thrown) return tl_exn_uncaught(s, js->exn, err);
  for (uint32_t i = 0, w = 0; i < f->nr; i++) w += tl_jit_get(&results[i], base + w, f->types[f->np + i]);
  return TL_OK;
}

tl_status tl_jit_compile_instance(tl_instance *inst, int threads, size_t *code_bytes,
                                  double seconds[2], tl_error *err) {
  jctx *c;
  if (threads <= 0) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  tl_status st = jit_instance(inst, &c, err);
  if (!st && !c->js->jb) {                 /* compile for the store's fuel setting */
    c->js->fuel_on = inst->s->fuel != 0;
    match_fuel(c);
  }
  if (!st) st = compile_all(c, threads, err);
  if (!st && code_bytes) *code_bytes = c->code_size;
  if (!st && seconds) {
    seconds[0] = c->compile_cpu;
    seconds[1] = c->compile_wall;
  }
  return st;
}

void tl_jit_get_stats(tl_instance *inst, tl_jit_stats *out) {
  jctx *c = inst ? inst->jit : NULL;
  memset(out, 0, sizeof *out);
  if (!c) return;
  out->code_bytes = c->code_size + c->lazy_bytes;
  out->cpu = c->compile_cpu;
  out->wall = c->compile_wall;
  out->critical = c->compile_crit;
  for (size_t i = inst->m->nimported_funcs; i < inst->m->funcs.n; i++)
    out->compiled += c->fn[i] != lazy_code;
}
