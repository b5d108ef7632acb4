/* interp_exec.c — the interpreter's main loop over compiled code (see
 * interp_compile.c). One C activation per entry from the host: wasm calls
 * push an explicit frame (tl_frame) and reuse the value stack, so call depth
 * is bounded by the store's max_depth ("call stack exhausted") and never by
 * the C stack. Every trap returns TL_E_TRAP with the spec's reason text.
 * Memory 0 is cached in (mb, ms, cm) and reloaded after anything that may
 * move or resize it (calls, memory.grow); an access to another memory is
 * compiled between X_MEMSEL k and X_MEMSEL 0, which switch the cache. An exception (throw, rethrow,
 * throw_ref, or one a host function passes on) searches the handler table
 * of each frame from the innermost outwards, in a loop (no recursion), and
 * ends the run with TL_E_EXCEPTION (s->exn) if none catches it. Nothing is
 * done on entering or leaving a try: code that does not throw runs as
 * before. GC instructions run in interp_gc.c, given the operand stack top
 * (an allocation may collect, with every slot below the top a root). */
#include "interp_impl.h"

#include <stdlib.h>

#define STACK_SLOTS (1u << 20)

/* The value stack and frames every run of the store uses, allocated on
 * first use. */
bool tl_interp_stacks_ready(tl_store *s) {
  if (!s->stack) {
    s->nstack = STACK_SLOTS;
    s->stack = tl_malloc(s->nstack * sizeof *s->stack);
  }
  if (!s->frames) s->frames = tl_malloc((size_t)s->max_depth * sizeof *s->frames);
  return s->stack && s->frames;
}

/* Whether function a's type is a subtype of b's: by their store-wide
 * runtime types (gc_heap.c), or, for a host function (none), by plain
 * parameter and result types against a plain function type. */
bool tl_interp_sig_eq(const tl_funcinst *a, const tl_funcinst *b) {
  if (a->rtt && b->rtt) return tl_rtt_sub(a->rtt, b->rtt);
  return a->plain && b->plain && a->np == b->np && a->nr == b->nr &&
         !memcmp(a->types, b->types, (a->np + a->nr) * sizeof(uint32_t));
}

static tl_status host_call(tl_funcinst *f, tl_instance *caller, tl_v *args, tl_error *err) {
  tl_value small[16], *buf = small;
  uint32_t n = f->np > f->nr ? f->np : f->nr;
  if (2 * n > 16 && !(buf = tl_scratch_realloc(NULL, 2 * (size_t)n, sizeof *buf))) return tl_nomem(err, "host call");
  tl_value *a = buf, *r = buf + n;
  for (uint32_t i = 0; i < f->np; i++) {
    a[i].type = f->types[i];
    memcpy(&a[i].of, &args[i], sizeof a[i].of);
  }
  for (uint32_t i = 0; i < f->nr; i++) {
    r[i].type = f->types[f->np + i];
    memset(&r[i].of, 0, sizeof r[i].of);
  }
  tl_host_call hc = {caller, f->nr};
  tl_status st = f->host(&hc, f->user, a, r, err);
  for (uint32_t i = 0; st == TL_OK && i < f->nr; i++) memcpy(&args[i], &r[i].of, sizeof args[i]);
  if (buf != small) tl_free(buf);
  return st;
}

/* ---- exceptions ---- */
/* The arm of the handlers of code that catches x thrown at row `at`
 * (innermost first, following delegates), or NULL; *hp: its handler. */
static const tl_harm *find_catch(const tl_code *code, const tl_instance *inst, const tl_exn *x,
                                 uint32_t at, const tl_handler **hp) {
  uint32_t h = TL_HNONE;
  for (uint32_t i = code->nhandlers; i-- > 0;)
    if (at >= code->handlers[i].start && at < code->handlers[i].end) {
      h = i;
      break;
    }
  while (h != TL_HNONE) {
    const tl_handler *H = &code->handlers[h];
    for (uint32_t k = 0; H->kind != TL_H_DELEGATE && k < H->narm; k++) {
      const tl_harm *a = &code->arms[H->arm0 + k];
      if (a->tag == UINT32_MAX || inst->tags[a->tag] == x->tag) {
        *hp = H;
        return a;
      }
    }
    h = H->next;
  }
  return NULL;
}

static tl_status trap(tl_error *err, const char *why) {
  return tl_errorf(err, TL_E_TRAP, TL_NO_OFFSET, "%s", why);
}

/* Bounds check of [a, a+n) in a space of size sz, without overflow. */
static inline bool oob(uint64_t a, uint64_t n, uint64_t sz) { return a > sz || sz - a < n; }

static const uint8_t atomic_size[7] = {4, 8, 1, 2, 1, 2, 4};

static uint64_t ld_n(const uint8_t *p, unsigned n) {
  uint64_t v = 0;
  memcpy(&v, p, n);
  return v;
}

static void st_n(uint8_t *p, uint64_t v, unsigned n) { memcpy(p, &v, n); }

/* memory.grow: the old size in pages, or -1 of the address type. */
static uint64_t grow_mem(tl_meminst *mem, uint64_t delta) {
  uint64_t old = mem->pages;
  if (tl_mem_grow(mem, delta)) return old;
  return mem->is64 ? UINT64_MAX : UINT32_MAX;
}

#define F32(x) tl_f32(x)
#define F64(x) tl_f64(x)
#define BIN(OP, F, T, expr) case TL_OP_##OP: { T b = (T)(--sp)->F, a = (T)sp[-1].F; PUT_##F(sp[-1], expr); break; }
#define UN(OP, F, T, expr) case TL_OP_##OP: { T a = (T)sp[-1].F; PUT_##F(sp[-1], expr); break; }
#define CMP(OP, F, T, expr) case TL_OP_##OP: { T b = (T)(--sp)->F, a = (T)sp[-1].F; PUT32(sp[-1], (expr)); break; }
#define FBIN32(OP, expr) case TL_OP_##OP: { float b = F32((--sp)->i32), a = F32(sp[-1].i32); PUT32(sp[-1], tl_f32b(expr)); break; }
#define FBIN64(OP, expr) case TL_OP_##OP: { double b = F64((--sp)->i64), a = F64(sp[-1].i64); PUT64(sp[-1], tl_f64b(expr)); break; }
#define FCMP32(OP, expr) case TL_OP_##OP: { float b = F32((--sp)->i32), a = F32(sp[-1].i32); PUT32(sp[-1], (expr)); break; }
#define FCMP64(OP, expr) case TL_OP_##OP: { double b = F64((--sp)->i64), a = F64(sp[-1].i64); PUT32(sp[-1], (expr)); break; }
#define TRAP(why) do { st = trap(err, why); goto out; } while (0)
#define CHARGE(bytes) do { uint64_t c_ = tl_bulk_fuel(bytes); if (c_ >= fuel) goto no_fuel; fuel -= c_; } while (0)
/* An index operand: i64 on a 64-bit memory or table, else i32. */
#define IDX(slot, is64) ((is64) ? (slot).i64 : (uint64_t)(slot).i32)
/* The effective address of a memarg access: a (its ins->a) has XA_ADDR64
 * for a 64-bit memory, whose address + offset may overflow (a trap). */
#define MEMEA(N) uint64_t ea; \
  if (__builtin_add_overflow(IDX(sp[-1], ins->a & XA_ADDR64), ins->u.b, &ea) || oob(ea, (N), ms)) \
    TRAP("out of bounds memory access")
#define LOAD(OP, F, N, conv) case TL_OP_##OP: { MEMEA(N); uint64_t v = ld_n(mb + ea, N); PUT_##F(sp[-1], conv); break; }
#define STORE(OP, F, N) case TL_OP_##OP: { uint64_t v = (--sp)->F; MEMEA(N); st_n(mb + ea, v, N); sp--; break; }
#define MEMSEL(k) do { if (inst->m->memories.n && (cm = inst->mems[(k)])) { mb = cm->data; ms = cm->pages * TL_PAGE; } else { mb = NULL; ms = 0; } } while (0)
#define RELOAD() MEMSEL(0)

static void trunc_kind(int op, bool *sat, bool *is64, bool *sign, bool *src64) {
  int d;
  *sat = op >= TL_OP_I32_TRUNC_SAT_F32_S && op <= TL_OP_I64_TRUNC_SAT_F64_U;
  if (*sat) d = op - TL_OP_I32_TRUNC_SAT_F32_S;
  else if (op >= TL_OP_I64_TRUNC_F32_S && op <= TL_OP_I64_TRUNC_F64_U) d = 4 + op - TL_OP_I64_TRUNC_F32_S;
  else d = op - TL_OP_I32_TRUNC_F32_S;
  *is64 = d >= 4;
  *src64 = (d & 2) != 0;
  *sign = (d & 1) == 0;
}

tl_status tl_interp_run(tl_store *s, tl_funcinst *f, tl_v *args, tl_v *results, tl_error *err) {
  if (f->host) {
    tl_instance *ci = f->inst;
    uint32_t n = f->np > f->nr ? f->np : f->nr;
    tl_v *tmp = tl_scratch_calloc(n, sizeof *tmp);
    if (!tmp) return tl_nomem(err, "host call");
    memcpy(tmp, args, f->np * sizeof *tmp);
    tl_status st = host_call(f, ci, tmp, err);
    if (st == TL_OK) memcpy(results, tmp, f->nr * sizeof *tmp);
    tl_free(tmp);
    return st;
  }
  if (s->engine == TL_ENGINE_JIT) return tl_jit_run(s, f, args, results, err);
  tl_instance *inst = f->inst;
  tl_status st;
  if (!inst->code[f->index] && (st = tl_interp_compile(inst, f->index, &inst->code[f->index], err)))
    return st;
  return tl_interp_run_code(s, inst, inst->code[f->index], args, f->np, results, err);
}

tl_status tl_interp_run_code(tl_store *s, tl_instance *inst, tl_code *code, const tl_v *args,
                             uint32_t np, tl_v *results, tl_error *err) {
  tl_status st = TL_OK;
  tl_v *stack_end = s->stack + s->nstack;
  /* A host function may call back into wasm: a nested run starts above
   * the caller's stack and frames (s->used, s->depth) and restores them. */
  size_t used0 = s->used;
  uint32_t d0 = s->depth, d = d0;
  tl_v *fp = s->stack + used0, *sp;
  if (fp + code->frame_slots > stack_end)
    return tl_errorf(err, TL_E_EXHAUSTED, TL_NO_OFFSET, "call stack exhausted");
  if (np) memcpy(fp, args, np * sizeof *fp);
  memset(fp + code->nparam_slots, 0, (code->nlocal_slots - code->nparam_slots) * sizeof *fp);
  sp = fp + code->nlocal_slots;
  const tl_ins *pc = code->ins;
  uint8_t *mb;
  uint64_t ms;
  tl_meminst *cm = NULL;
  uint64_t fuel = s->fuel ? s->fuel : UINT64_MAX;
  tl_funcinst *callee;
  bool tail;
  tl_exn *exn;
  const tl_handler *hd;
  const tl_harm *arm;
  uint32_t at;
  RELOAD();
  for (;;) {
    const tl_ins *ins = pc++;
    if (--fuel == 0) {
    no_fuel:
      st = tl_errorf(err, TL_E_EXHAUSTED, TL_NO_OFFSET, "fuel exhausted");
      goto out;
    }
    switch (ins->op) {
    case X_JMP: pc = code->ins + ins->a; break;
    case X_MEMSEL: MEMSEL(ins->a); break;
    case X_BRZ: if (!(--sp)->i32) pc = code->ins + ins->a; break;
    case X_BRNZ: if ((--sp)->i32) pc = code->ins + ins->a; break;
    case X_ISNULL: PUT32(sp[0], sp[-1].ref == NULL); sp++; break;
    case X_NONNULL: PUT32(sp[0], sp[-1].ref != NULL); sp++; break;
    case TL_OP_REF_AS_NON_NULL: if (!sp[-1].ref) TRAP("null reference"); break;
    case X_BRIF:
      if (!(--sp)->i32) break;
      /* fall through */
    case X_BR: {
    do_br:;
      uint32_t h0 = (uint32_t)ins->u.b, keep = (uint32_t)(ins->u.b >> 32);
      memmove(fp + h0, sp - keep, keep * sizeof *sp);
      sp = fp + h0 + keep;
      pc = code->ins + ins->a;
      break;
    }
    case X_BRTABLE: {
      uint32_t i = (--sp)->i32, n = (uint32_t)ins->u.b;
      ins = ins + 1 + (i < n ? i : n);
      if (ins->op == X_RET) goto do_ret;
      goto do_br;
    }
    case X_RET: {
    do_ret:;
      uint32_t n = ins->a;
      memmove(fp, sp - n, n * sizeof *sp);
      sp = fp + n;
      if (d == d0) {
        memcpy(results, fp, n * sizeof *fp);
        goto out;
      }
      tl_frame *fr = &s->frames[--d];
      pc = fr->pc;
      fp = fr->fp;
      code = (tl_code *)fr->code;
      if (inst != fr->inst) inst = fr->inst;
      RELOAD();
      break;
    }
    case X_DROPN: sp -= ins->a; break;
    case X_EXTRACT: { tl_v *b = sp - ins->n; b[0] = b[ins->a]; sp = b + 1; break; }
    case X_LGETN: memcpy(sp, fp + ins->a, ins->u.b * sizeof *sp); sp += ins->u.b; break;
    case X_LSETN: sp -= ins->u.b; memcpy(fp + ins->a, sp, ins->u.b * sizeof *sp); break;
    case X_LTEEN: memcpy(fp + ins->a, sp - ins->u.b, ins->u.b * sizeof *sp); break;

    case TL_OP_UNREACHABLE: TRAP("unreachable");
    case TL_OP_NOP: break;
    case TL_OP_LOCAL_GET: (sp++)->i64 = fp[ins->a].i64; break;
    case TL_OP_LOCAL_SET: fp[ins->a].i64 = (--sp)->i64; break;
    case TL_OP_LOCAL_TEE: fp[ins->a].i64 = sp[-1].i64; break;
    case TL_OP_GLOBAL_GET:
      if (ins->n) *sp = inst->globals[ins->a]->v;
      else sp->i64 = inst->globals[ins->a]->v.i64;
      sp++;
      break;
    case TL_OP_GLOBAL_SET:
      sp--;
      if (ins->n) inst->globals[ins->a]->v = *sp;
      else inst->globals[ins->a]->v.i64 = sp->i64;
      break;
    case TL_OP_SELECT: case TL_OP_SELECT_T:
      sp -= 2;
      if (!sp[1].i32) {
        if (ins->n) sp[-1] = sp[0];
        else sp[-1].i64 = sp[0].i64;
      }
      break;
    case TL_OP_DROP: sp--; break;

    case TL_OP_CALL: callee = inst->funcs[ins->a]; tail = false; goto do_call;
    case TL_OP_RETURN_CALL: callee = inst->funcs[ins->a]; tail = true; goto do_call;
    case TL_OP_CALL_REF: case TL_OP_RETURN_CALL_REF:
      callee = (--sp)->ref;
      if (!callee) TRAP("null function reference");
      tail = ins->op == TL_OP_RETURN_CALL_REF;
      goto do_call;
    case TL_OP_CALL_INDIRECT: case TL_OP_RETURN_CALL_INDIRECT: {
      tl_tableinst *t = inst->tables[ins->u.b];
      uint64_t i = IDX(sp[-1], t->is64);
      sp--;
      if (i >= t->n) TRAP("undefined element");
      callee = t->e[i];
      if (!callee) TRAP("uninitialized element");
      if (!tl_interp_sig_eq(callee, &inst->sigs[ins->a])) TRAP("indirect call type mismatch");
      tail = ins->op == TL_OP_RETURN_CALL_INDIRECT;
    do_call:
      if (callee->host) {
        tl_v *a = sp - callee->np;
        uint32_t n = callee->np > callee->nr ? callee->np : callee->nr;
        if (a + n > stack_end) {
          st = tl_errorf(err, TL_E_EXHAUSTED, TL_NO_OFFSET, "call stack exhausted");
          goto out;
        }
        s->used = (size_t)(a + n - s->stack);
        s->depth = d;
        st = host_call(callee, inst, a, err);
        s->used = used0;
        s->depth = d0;
        if (st == TL_E_EXCEPTION && s->exn) {   /* a wasm exception through the host */
          exn = s->exn;
          s->exn = NULL;
          st = TL_OK;
          if (!tail) goto do_throw;
          goto unwind;
        }
        if (st) goto out;
        sp = a + callee->nr;
        RELOAD();
        if (tail) {
          uint32_t n2 = callee->nr;
          memmove(fp, sp - n2, n2 * sizeof *sp);
          sp = fp + n2;
          if (d == d0) {
            memcpy(results, fp, n2 * sizeof *fp);
            goto out;
          }
          tl_frame *fr = &s->frames[--d];
          pc = fr->pc;
          fp = fr->fp;
          code = (tl_code *)fr->code;
          inst = fr->inst;
          RELOAD();
        }
        break;
      }
      tl_instance *ci = callee->inst;
      if (!ci->code[callee->index] &&
          (st = tl_interp_compile(ci, callee->index, &ci->code[callee->index], err)))
        goto out;
      tl_code *cd = ci->code[callee->index];
      tl_v *nfp = sp - cd->nparam_slots;
      if (tail) {
        memmove(fp, nfp, cd->nparam_slots * sizeof *sp);
        nfp = fp;
      } else {
        if (d + 1 >= s->max_depth) {
          st = tl_errorf(err, TL_E_EXHAUSTED, TL_NO_OFFSET, "call stack exhausted");
          goto out;
        }
        s->frames[d++] = (tl_frame){pc, fp, inst, code};
      }
      if (nfp + cd->frame_slots > stack_end) {
        st = tl_errorf(err, TL_E_EXHAUSTED, TL_NO_OFFSET, "call stack exhausted");
        goto out;
      }
      fp = nfp;
      memset(fp + cd->nparam_slots, 0, (cd->nlocal_slots - cd->nparam_slots) * sizeof *fp);
      sp = fp + cd->nlocal_slots;
      code = cd;
      pc = cd->ins;
      inst = ci;
      RELOAD();
      break;
    }

    /* ---- exceptions ---- */
    case TL_OP_THROW:
      sp -= inst->tags[ins->a]->sig->np;
      if (!(exn = tl_exn_new(s, inst->tags[ins->a], sp))) {
        st = tl_nomem(err, "exception");
        goto out;
      }
      goto do_throw;
    case X_RETHROW: exn = fp[ins->a].ref; goto do_throw;
    case TL_OP_THROW_REF:
      exn = (--sp)->ref;
      if (!exn) TRAP("null exception reference");
    do_throw:
      at = (uint32_t)(ins - code->ins);
    search:
      if (!code->nhandlers || !(arm = find_catch(code, inst, exn, at, &hd))) {
      unwind:
        if (d == d0) {
          st = tl_exn_uncaught(s, exn, err);
          goto out;
        }
        tl_frame *fr = &s->frames[--d];
        pc = fr->pc;
        fp = fr->fp;
        code = (tl_code *)fr->code;
        inst = fr->inst;
        at = (uint32_t)(pc - code->ins) - 1;
        goto search;
      }
      sp = fp + hd->h0;
      if (hd->kind == TL_H_CATCH) {
        PUTREF(fp[hd->exn_slot], exn);
        if (arm->slot != UINT32_MAX) memcpy(fp + arm->slot, exn->v, exn->n * sizeof *sp);
      } else {
        if (arm->tag != UINT32_MAX) { /* catch, catch_ref: the payload; catch_all(_ref): none */
          memcpy(sp, exn->v, exn->n * sizeof *sp);
          sp += exn->n;
        }
        if (arm->ref) PUTREF(*sp++, exn);
      }
      pc = code->ins + arm->pc;
      RELOAD();
      break;

    /* ---- tables and references ---- */
    case TL_OP_TABLE_GET: {
      tl_tableinst *t = inst->tables[ins->a];
      uint64_t i = IDX(sp[-1], t->is64);
      if (i >= t->n) TRAP("out of bounds table access");
      PUTREF(sp[-1], t->e[i]);
      break;
    }
    case TL_OP_TABLE_SET: {
      tl_tableinst *t = inst->tables[ins->a];
      sp -= 2;
      uint64_t i = IDX(sp[0], t->is64);
      if (i >= t->n) TRAP("out of bounds table access");
      t->e[i] = sp[1].ref;
      break;
    }
    case TL_OP_TABLE_SIZE: PUT32(*sp++, inst->tables[ins->a]->n); break;
    case TL_OP_TABLE_GROW: {
      tl_tableinst *t = inst->tables[ins->a];
      uint64_t n = IDX(sp[-1], t->is64);
      sp--;
      uint32_t old = n > UINT32_MAX ? UINT32_MAX : tl_table_grow(t, sp[-1].ref, (uint32_t)n);
      if (old != UINT32_MAX) CHARGE(n * 8);
      PUT64(sp[-1], old != UINT32_MAX ? old : t->is64 ? UINT64_MAX : UINT32_MAX);
      break;
    }
    case TL_OP_TABLE_FILL: {
      tl_tableinst *t = inst->tables[ins->a];
      sp -= 3;
      uint64_t i = IDX(sp[0], t->is64), n = IDX(sp[2], t->is64);
      if (oob(i, n, t->n)) TRAP("out of bounds table access");
      CHARGE(n * 8);
      for (uint64_t k = 0; k < n; k++) t->e[i + k] = sp[1].ref;
      break;
    }
    case TL_OP_TABLE_COPY: {
      tl_tableinst *dt = inst->tables[ins->a], *stb = inst->tables[ins->u.b];
      sp -= 3;
      uint64_t di = IDX(sp[0], dt->is64), si = IDX(sp[1], stb->is64), n = IDX(sp[2], dt->is64 && stb->is64);
      if (oob(si, n, stb->n) || oob(di, n, dt->n)) TRAP("out of bounds table access");
      CHARGE(n * 8);
      if (n) memmove(dt->e + di, stb->e + si, n * sizeof(void *));
      break;
    }
    case TL_OP_TABLE_INIT: {
      tl_tableinst *t = inst->tables[ins->u.b];
      sp -= 3;
      uint64_t di = IDX(sp[0], t->is64), si = sp[1].i32, n = sp[2].i32;
      if (oob(si, n, inst->elem_n[ins->a]) || oob(di, n, t->n)) TRAP("out of bounds table access");
      CHARGE(n * 8);
      if (n) memcpy(t->e + di, inst->elem[ins->a] + si, n * sizeof(void *));
      break;
    }
    case TL_OP_ELEM_DROP: inst->elem_n[ins->a] = 0; break;
    case TL_OP_REF_NULL: PUTREF(*sp++, NULL); break;
    case TL_OP_REF_IS_NULL: PUT32(sp[-1], sp[-1].ref == NULL); break;
    case TL_OP_REF_FUNC: PUTREF(*sp++, inst->funcs[ins->a]); break;

    /* ---- memory ---- */
    LOAD(I32_LOAD, i32, 4, (uint32_t)v)
    LOAD(I64_LOAD, i64, 8, v)
    LOAD(F32_LOAD, i32, 4, (uint32_t)v)
    LOAD(F64_LOAD, i64, 8, v)
    LOAD(I32_LOAD8_S, i32, 1, (uint32_t)(int32_t)(int8_t)v)
    LOAD(I32_LOAD8_U, i32, 1, (uint32_t)v)
    LOAD(I32_LOAD16_S, i32, 2, (uint32_t)(int32_t)(int16_t)v)
    LOAD(I32_LOAD16_U, i32, 2, (uint32_t)v)
    LOAD(I64_LOAD8_S, i64, 1, (uint64_t)(int64_t)(int8_t)v)
    LOAD(I64_LOAD8_U, i64, 1, v)
    LOAD(I64_LOAD16_S, i64, 2, (uint64_t)(int64_t)(int16_t)v)
    LOAD(I64_LOAD16_U, i64, 2, v)
    LOAD(I64_LOAD32_S, i64, 4, (uint64_t)(int64_t)(int32_t)v)
    LOAD(I64_LOAD32_U, i64, 4, v)
    STORE(I32_STORE, i32, 4)
    STORE(I64_STORE, i64, 8)
    STORE(F32_STORE, i32, 4)
    STORE(F64_STORE, i64, 8)
    STORE(I32_STORE8, i32, 1)
    STORE(I32_STORE16, i32, 2)
    STORE(I64_STORE8, i64, 1)
    STORE(I64_STORE16, i64, 2)
    STORE(I64_STORE32, i64, 4)
    case TL_OP_MEMORY_SIZE: PUT64(*sp++, inst->mems[ins->a]->pages); break;
    case TL_OP_MEMORY_GROW: {
      tl_meminst *mm = inst->mems[ins->a];
      PUT64(sp[-1], grow_mem(mm, IDX(sp[-1], mm->is64)));
      RELOAD();
      break;
    }
    case TL_OP_MEMORY_FILL: {
      tl_meminst *mm = inst->mems[ins->a];
      sp -= 3;
      uint64_t dd = IDX(sp[0], mm->is64), n = IDX(sp[2], mm->is64);
      if (oob(dd, n, mm->pages * TL_PAGE)) TRAP("out of bounds memory access");
      CHARGE(n);
      memset(mm->data + dd, (int)(sp[1].i32 & 0xff), n);
      break;
    }
    case TL_OP_MEMORY_COPY: {
      tl_meminst *dm = inst->mems[ins->a], *sm = inst->mems[ins->u.b];
      sp -= 3;
      uint64_t dd = IDX(sp[0], dm->is64), ss = IDX(sp[1], sm->is64), n = IDX(sp[2], dm->is64 && sm->is64);
      if (oob(ss, n, sm->pages * TL_PAGE) || oob(dd, n, dm->pages * TL_PAGE))
        TRAP("out of bounds memory access");
      CHARGE(n);
      if (n) memmove(dm->data + dd, sm->data + ss, n);
      break;
    }
    case TL_OP_MEMORY_INIT: {
      tl_meminst *mm = inst->mems[ins->u.b];
      sp -= 3;
      uint64_t dd = IDX(sp[0], mm->is64), ss = sp[1].i32, n = sp[2].i32;
      if (oob(ss, n, inst->data_n[ins->a]) || oob(dd, n, mm->pages * TL_PAGE))
        TRAP("out of bounds memory access");
      CHARGE(n);
      if (n) memcpy(mm->data + dd, TL_DATA(inst->m, ins->a)->bytes + ss, n);
      break;
    }
    case TL_OP_DATA_DROP: inst->data_n[ins->a] = 0; break;

    /* ---- constants ---- */
    case TL_OP_I32_CONST: case TL_OP_F32_CONST: PUT32(*sp++, (uint32_t)ins->u.b); break;
    case TL_OP_I64_CONST: case TL_OP_F64_CONST: PUT64(*sp++, ins->u.b); break;
    case TL_OP_V128_CONST: memcpy((sp++)->b, ins->u.p, 16); break;

    /* ---- integer ---- */
    UN(I32_EQZ, i32, uint32_t, a == 0)
    CMP(I32_EQ, i32, uint32_t, a == b)
    CMP(I32_NE, i32, uint32_t, a != b)
    CMP(I32_LT_S, i32, int32_t, a < b)
    CMP(I32_LT_U, i32, uint32_t, a < b)
    CMP(I32_GT_S, i32, int32_t, a > b)
    CMP(I32_GT_U, i32, uint32_t, a > b)
    CMP(I32_LE_S, i32, int32_t, a <= b)
    CMP(I32_LE_U, i32, uint32_t, a <= b)
    CMP(I32_GE_S, i32, int32_t, a >= b)
    CMP(I32_GE_U, i32, uint32_t, a >= b)
    case TL_OP_I64_EQZ: PUT32(sp[-1], sp[-1].i64 == 0); break;
    CMP(I64_EQ, i64, uint64_t, a == b)
    CMP(I64_NE, i64, uint64_t, a != b)
    CMP(I64_LT_S, i64, int64_t, a < b)
    CMP(I64_LT_U, i64, uint64_t, a < b)
    CMP(I64_GT_S, i64, int64_t, a > b)
    CMP(I64_GT_U, i64, uint64_t, a > b)
    CMP(I64_LE_S, i64, int64_t, a <= b)
    CMP(I64_LE_U, i64, uint64_t, a <= b)
    CMP(I64_GE_S, i64, int64_t, a >= b)
    CMP(I64_GE_U, i64, uint64_t, a >= b)
    FCMP32(F32_EQ, a == b)
    FCMP32(F32_NE, a != b)
    FCMP32(F32_LT, a < b)
    FCMP32(F32_GT, a > b)
    FCMP32(F32_LE, a <= b)
    FCMP32(F32_GE, a >= b)
    FCMP64(F64_EQ, a == b)
    FCMP64(F64_NE, a != b)
    FCMP64(F64_LT, a < b)
    FCMP64(F64_GT, a > b)
    FCMP64(F64_LE, a <= b)
    FCMP64(F64_GE, a >= b)

    UN(I32_CLZ, i32, uint32_t, a ? (uint32_t)__builtin_clz(a) : 32)
    UN(I32_CTZ, i32, uint32_t, a ? (uint32_t)__builtin_ctz(a) : 32)
    UN(I32_POPCNT, i32, uint32_t, (uint32_t)__builtin_popcount(a))
    BIN(I32_ADD, i32, uint32_t, a + b)
    BIN(I32_SUB, i32, uint32_t, a - b)
    BIN(I32_MUL, i32, uint32_t, a * b)
    case TL_OP_I32_DIV_S: {
      int32_t b = (int32_t)(--sp)->i32, a = (int32_t)sp[-1].i32;
      if (b == 0) TRAP("integer divide by zero");
      if (a == INT32_MIN && b == -1) TRAP("integer overflow");
      PUT32(sp[-1], (uint32_t)(a / b));
      break;
    }
    case TL_OP_I32_DIV_U: {
      uint32_t b = (--sp)->i32, a = sp[-1].i32;
      if (b == 0) TRAP("integer divide by zero");
      PUT32(sp[-1], a / b);
      break;
    }
    case TL_OP_I32_REM_S: {
      int32_t b = (int32_t)(--sp)->i32, a = (int32_t)sp[-1].i32;
      if (b == 0) TRAP("integer divide by zero");
      PUT32(sp[-1], b == -1 ? 0 : (uint32_t)(a % b));
      break;
    }
    case TL_OP_I32_REM_U: {
      uint32_t b = (--sp)->i32, a = sp[-1].i32;
      if (b == 0) TRAP("integer divide by zero");
      PUT32(sp[-1], a % b);
      break;
    }
    BIN(I32_AND, i32, uint32_t, a & b)
    BIN(I32_OR, i32, uint32_t, a | b)
    BIN(I32_XOR, i32, uint32_t, a ^ b)
    BIN(I32_SHL, i32, uint32_t, a << (b & 31))
    BIN(I32_SHR_S, i32, uint32_t, (uint32_t)((int32_t)a >> (b & 31)))
    BIN(I32_SHR_U, i32, uint32_t, a >> (b & 31))
    BIN(I32_ROTL, i32, uint32_t, (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31)))
    BIN(I32_ROTR, i32, uint32_t, (a >> (b & 31)) | (a << ((32 - (b & 31)) & 31)))
    UN(I64_CLZ, i64, uint64_t, a ? (uint64_t)__builtin_clzll(a) : 64)
    UN(I64_CTZ, i64, uint64_t, a ? (uint64_t)__builtin_ctzll(a) : 64)
    UN(I64_POPCNT, i64, uint64_t, (uint64_t)__builtin_popcountll(a))
    BIN(I64_ADD, i64, uint64_t, a + b)
    BIN(I64_SUB, i64, uint64_t, a - b)
    BIN(I64_MUL, i64, uint64_t, a * b)
    case TL_OP_I64_DIV_S: {
      int64_t b = (int64_t)(--sp)->i64, a = (int64_t)sp[-1].i64;
      if (b == 0) TRAP("integer divide by zero");
      if (a == INT64_MIN && b == -1) TRAP("integer overflow");
      PUT64(sp[-1], (uint64_t)(a / b));
      break;
    }
    case TL_OP_I64_DIV_U: {
      uint64_t b = (--sp)->i64, a = sp[-1].i64;
      if (b == 0) TRAP("integer divide by zero");
      PUT64(sp[-1], a / b);
      break;
    }
    case TL_OP_I64_REM_S: {
      int64_t b = (int64_t)(--sp)->i64, a = (int64_t)sp[-1].i64;
      if (b == 0) TRAP("integer divide by zero");
      PUT64(sp[-1], b == -1 ? 0 : (uint64_t)(a % b));
      break;
    }
    case TL_OP_I64_REM_U: {
      uint64_t b = (--sp)->i64, a = sp[-1].i64;
      if (b == 0) TRAP("integer divide by zero");
      PUT64(sp[-1], a % b);
      break;
    }
    BIN(I64_AND, i64, uint64_t, a & b)
    BIN(I64_OR, i64, uint64_t, a | b)
    BIN(I64_XOR, i64, uint64_t, a ^ b)
    BIN(I64_SHL, i64, uint64_t, a << (b & 63))
    BIN(I64_SHR_S, i64, uint64_t, (uint64_t)((int64_t)a >> (b & 63)))
    BIN(I64_SHR_U, i64, uint64_t, a >> (b & 63))
    BIN(I64_ROTL, i64, uint64_t, (a << (b & 63)) | (a >> ((64 - (b & 63)) & 63)))
    BIN(I64_ROTR, i64, uint64_t, (a >> (b & 63)) | (a << ((64 - (b & 63)) & 63)))

    /* ---- float ---- */
    UN(F32_ABS, i32, uint32_t, a & 0x7fffffffu)
    UN(F32_NEG, i32, uint32_t, a ^ 0x80000000u)
    UN(F32_CEIL, i32, uint32_t, tl_fround32(0, a))
    UN(F32_FLOOR, i32, uint32_t, tl_fround32(1, a))
    UN(F32_TRUNC, i32, uint32_t, tl_fround32(2, a))
    UN(F32_NEAREST, i32, uint32_t, tl_fround32(3, a))
    UN(F32_SQRT, i32, uint32_t, tl_fround32(4, a))
    FBIN32(F32_ADD, a + b)
    FBIN32(F32_SUB, a - b)
    FBIN32(F32_MUL, a * b)
    FBIN32(F32_DIV, a / b)
    BIN(F32_MIN, i32, uint32_t, tl_fmin32(a, b))
    BIN(F32_MAX, i32, uint32_t, tl_fmax32(a, b))
    BIN(F32_COPYSIGN, i32, uint32_t, (a & 0x7fffffffu) | (b & 0x80000000u))
    UN(F64_ABS, i64, uint64_t, a & 0x7fffffffffffffffull)
    UN(F64_NEG, i64, uint64_t, a ^ 0x8000000000000000ull)
    UN(F64_CEIL, i64, uint64_t, tl_fround64(0, a))
    UN(F64_FLOOR, i64, uint64_t, tl_fround64(1, a))
    UN(F64_TRUNC, i64, uint64_t, tl_fround64(2, a))
    UN(F64_NEAREST, i64, uint64_t, tl_fround64(3, a))
    UN(F64_SQRT, i64, uint64_t, tl_fround64(4, a))
    FBIN64(F64_ADD, a + b)
    FBIN64(F64_SUB, a - b)
    FBIN64(F64_MUL, a * b)
    FBIN64(F64_DIV, a / b)
    BIN(F64_MIN, i64, uint64_t, tl_fmin64(a, b))
    BIN(F64_MAX, i64, uint64_t, tl_fmax64(a, b))
    BIN(F64_COPYSIGN, i64, uint64_t, (a & 0x7fffffffffffffffull) | (b & 0x8000000000000000ull))

    /* ---- conversions ---- */
    UN(I32_WRAP_I64, i64, uint64_t, (uint32_t)a)
    case TL_OP_I64_EXTEND_I32_S: PUT64(sp[-1], (uint64_t)(int64_t)(int32_t)sp[-1].i32); break;
    case TL_OP_I64_EXTEND_I32_U: PUT64(sp[-1], (uint64_t)sp[-1].i32); break;
    case TL_OP_F32_CONVERT_I32_S: PUT32(sp[-1], tl_f32b((float)(int32_t)sp[-1].i32)); break;
    case TL_OP_F32_CONVERT_I32_U: PUT32(sp[-1], tl_f32b((float)sp[-1].i32)); break;
    case TL_OP_F32_CONVERT_I64_S: PUT32(sp[-1], tl_f32b((float)(int64_t)sp[-1].i64)); break;
    case TL_OP_F32_CONVERT_I64_U: PUT32(sp[-1], tl_f32b((float)sp[-1].i64)); break;
    case TL_OP_F32_DEMOTE_F64: PUT32(sp[-1], tl_f32b((float)F64(sp[-1].i64))); break;
    case TL_OP_F64_CONVERT_I32_S: PUT64(sp[-1], tl_f64b((double)(int32_t)sp[-1].i32)); break;
    case TL_OP_F64_CONVERT_I32_U: PUT64(sp[-1], tl_f64b((double)sp[-1].i32)); break;
    case TL_OP_F64_CONVERT_I64_S: PUT64(sp[-1], tl_f64b((double)(int64_t)sp[-1].i64)); break;
    case TL_OP_F64_CONVERT_I64_U: PUT64(sp[-1], tl_f64b((double)sp[-1].i64)); break;
    case TL_OP_F64_PROMOTE_F32: PUT64(sp[-1], tl_f64b((double)F32(sp[-1].i32))); break;
    case TL_OP_I32_REINTERPRET_F32: case TL_OP_F32_REINTERPRET_I32: break;
    case TL_OP_I64_REINTERPRET_F64: case TL_OP_F64_REINTERPRET_I64: break;
    UN(I32_EXTEND8_S, i32, uint32_t, (uint32_t)(int32_t)(int8_t)a)
    UN(I32_EXTEND16_S, i32, uint32_t, (uint32_t)(int32_t)(int16_t)a)
    UN(I64_EXTEND8_S, i64, uint64_t, (uint64_t)(int64_t)(int8_t)a)
    UN(I64_EXTEND16_S, i64, uint64_t, (uint64_t)(int64_t)(int16_t)a)
    UN(I64_EXTEND32_S, i64, uint64_t, (uint64_t)(int64_t)(int32_t)a)
    case TL_OP_I32_TRUNC_F32_S: case TL_OP_I32_TRUNC_F32_U: case TL_OP_I32_TRUNC_F64_S:
    case TL_OP_I32_TRUNC_F64_U: case TL_OP_I64_TRUNC_F32_S: case TL_OP_I64_TRUNC_F32_U:
    case TL_OP_I64_TRUNC_F64_S: case TL_OP_I64_TRUNC_F64_U:
    case TL_OP_I32_TRUNC_SAT_F32_S: case TL_OP_I32_TRUNC_SAT_F32_U: case TL_OP_I32_TRUNC_SAT_F64_S:
    case TL_OP_I32_TRUNC_SAT_F64_U: case TL_OP_I64_TRUNC_SAT_F32_S: case TL_OP_I64_TRUNC_SAT_F32_U:
    case TL_OP_I64_TRUNC_SAT_F64_S: case TL_OP_I64_TRUNC_SAT_F64_U: {
      bool sat, is64, sign, src64;
      trunc_kind(ins->op, &sat, &is64, &sign, &src64);
      double x = src64 ? F64(sp[-1].i64) : (double)F32(sp[-1].i32);
      uint64_t r = 0;
      if (sat) {
        r = tl_trunc_sat_f64(x, is64, sign);
      } else {
        int e = tl_trunc_f64(x, is64, sign, &r);
        if (e == 1) TRAP("invalid conversion to integer");
        if (e == 2) TRAP("integer overflow");
      }
      if (is64) PUT64(sp[-1], r);
      else PUT32(sp[-1], (uint32_t)r);
      break;
    }

    /* ---- SIMD memory ---- */
    case TL_OP_V128_LOAD: { MEMEA(16); memcpy(sp[-1].b, mb + ea, 16); break; }
    case TL_OP_V128_STORE: { tl_v v = *--sp; MEMEA(16); memcpy(mb + ea, v.b, 16); sp--; break; }
    case TL_OP_V128_LOAD8X8_S: case TL_OP_V128_LOAD8X8_U: case TL_OP_V128_LOAD16X4_S:
    case TL_OP_V128_LOAD16X4_U: case TL_OP_V128_LOAD32X2_S: case TL_OP_V128_LOAD32X2_U: {
      MEMEA(8);
      int k = ins->op - TL_OP_V128_LOAD8X8_S;
      unsigned w = 1u << (k / 2), n = 8 / w;
      bool sg = (k & 1) == 0;
      tl_v r;
      for (unsigned i = 0; i < n; i++) {
        uint64_t v = ld_n(mb + ea + i * w, w);
        if (sg) v = (uint64_t)((int64_t)(v << (64 - 8 * w)) >> (64 - 8 * w));
        st_n(r.b + i * 2 * w, v, 2 * w);
      }
      sp[-1] = r;
      break;
    }
    case TL_OP_V128_LOAD8_SPLAT: case TL_OP_V128_LOAD16_SPLAT:
    case TL_OP_V128_LOAD32_SPLAT: case TL_OP_V128_LOAD64_SPLAT: {
      unsigned w = 1u << (ins->op - TL_OP_V128_LOAD8_SPLAT);
      MEMEA(w);
      tl_v r;
      for (unsigned i = 0; i < 16; i += w) memcpy(r.b + i, mb + ea, w);
      sp[-1] = r;
      break;
    }
    case TL_OP_V128_LOAD32_ZERO: case TL_OP_V128_LOAD64_ZERO: {
      unsigned w = ins->op == TL_OP_V128_LOAD32_ZERO ? 4 : 8;
      MEMEA(w);
      tl_v r;
      memset(&r, 0, sizeof r);
      memcpy(r.b, mb + ea, w);
      sp[-1] = r;
      break;
    }
    case TL_OP_V128_LOAD8_LANE: case TL_OP_V128_LOAD16_LANE:
    case TL_OP_V128_LOAD32_LANE: case TL_OP_V128_LOAD64_LANE: {
      unsigned w = 1u << (ins->op - TL_OP_V128_LOAD8_LANE);
      tl_v v = *--sp;
      MEMEA(w);
      memcpy(v.b + ins->n * w, mb + ea, w);
      sp[-1] = v;
      break;
    }
    case TL_OP_V128_STORE8_LANE: case TL_OP_V128_STORE16_LANE:
    case TL_OP_V128_STORE32_LANE: case TL_OP_V128_STORE64_LANE: {
      unsigned w = 1u << (ins->op - TL_OP_V128_STORE8_LANE);
      tl_v v = *--sp;
      MEMEA(w);
      memcpy(mb + ea, v.b + ins->n * w, w);
      sp--;
      break;
    }

    /* ---- atomics (one thread) ---- */
    case TL_OP_ATOMIC_FENCE: break;
    case TL_OP_MEMORY_ATOMIC_NOTIFY: {
      sp--;
      MEMEA(4);
      if (ea & 3) TRAP("unaligned atomic");
      PUT32(sp[-1], 0);
      break;
    }
    case TL_OP_MEMORY_ATOMIC_WAIT32: case TL_OP_MEMORY_ATOMIC_WAIT64: {
      unsigned w = ins->op == TL_OP_MEMORY_ATOMIC_WAIT32 ? 4 : 8;
      sp -= 2;
      MEMEA(w);
      if (ea & (w - 1)) TRAP("unaligned atomic");
      if (!cm->shared) TRAP("expected shared memory");
      uint64_t cur = ld_n(mb + ea, w), want = w == 4 ? sp[0].i32 : sp[0].i64;
      PUT32(sp[-1], cur != want ? 1 : 2);
      break;
    }
    default:
      if (ins->op >= TL_OP_I32_ATOMIC_LOAD && ins->op <= TL_OP_I64_ATOMIC_RMW32_CMPXCHG_U) {
        int k = ins->op - TL_OP_I32_ATOMIC_LOAD, grp = k / 7, var = k % 7;
        unsigned w = atomic_size[var];
        bool i64 = var == 1 || var >= 4;
        uint64_t mask = w == 8 ? UINT64_MAX : (1ull << (8 * w)) - 1;
        uint64_t x = 0, y = 0;
        int nin = grp == 0 ? 0 : grp == 8 ? 2 : 1;   /* operands after the address */
        if (nin == 2) y = i64 ? (--sp)->i64 : (--sp)->i32;
        if (nin >= 1) x = i64 ? (--sp)->i64 : (--sp)->i32;
        MEMEA(w);
        if (ea & (w - 1)) TRAP("unaligned atomic");
        uint64_t old = ld_n(mb + ea, w), nv = 0;
        switch (grp) {
        case 0: break;
        case 1: nv = x; break;
        case 2: nv = old + x; break;
        case 3: nv = old - x; break;
        case 4: nv = old & x; break;
        case 5: nv = old | x; break;
        case 6: nv = old ^ x; break;
        case 7: nv = x; break;
        case 8: nv = old == (x & mask) ? y : old; break;
        }
        if (grp == 1) {
          st_n(mb + ea, nv, w);
          sp--;
          break;
        }
        if (grp >= 2) st_n(mb + ea, nv, w);
        if (i64) PUT64(sp[-1], old);
        else PUT32(sp[-1], (uint32_t)old);
        break;
      }
      if (tl_interp_is_gc(ins->op)) {
        if ((st = tl_interp_gc(s, inst, ins, &sp, &fuel, err))) goto out;
        break;
      }
      if (tl_ops[ins->op].pfx == 0xFD) {
        sp = s->relaxed == TL_RELAXED_NATIVE ? tl_interp_simd_native(ins, sp) : tl_interp_simd(ins, sp);
        break;
      }
      st = tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "interpreter: %s not supported",
                     ins->op < TL_NOPS ? tl_ops[ins->op].text : "internal op");
      goto out;
    }
  }
out:
  s->used = used0;
  s->depth = d0;
  if (s->fuel) s->fuel = fuel ? fuel : 1;   /* 1: the next run stops at once */
  return st;
}
