/* eh.c — exceptions in JIT code: throw, throw_ref/rethrow and the unwinder.
 * Nothing runs on entering or leaving a try: compile.c records, per
 * function with handlers, the return addresses of its calls made inside a
 * handler's range (jeh_site), the handlers (nested, with delegate's target
 * as `next`) and their arms' landing pads; this file looks them up only
 * when something throws. Invariants the unwinder relies on:
 *  - every JIT frame is two words on the native stack ([rsp] pad, [rsp+8]
 *    return address); a function with handlers stores its rbx in the pad in
 *    its prologue, so its frame is found without walking the value stack;
 *  - a run segment (the JIT frames a trampoline entered: one instance, one
 *    jctx) ends at the trampoline's return address; an exception no frame
 *    of the segment catches leaves through the trampoline, which returns 1
 *    (tl_jit_run reports it uncaught; invoke() rethrows it in its caller);
 *  - at every call inside a try, register locals are in their frame slots
 *    (calls sync them out) and the operand stack below the try is in home
 *    slots (a try flushes it), so a landing pad reloads locals and knows
 *    where everything is; r15 is the throwing frame's plus one per frame
 *    unwound;
 *  - traps never come here: they longjmp to the run (runtime.c).
 * Landing: the payload (and exnref) are written into the frame's slots the
 * arm names, then the resume stub sets rsp, rbx, r12, r13, r15 and jumps to
 * the pad; the C frames between (this helper's) are abandoned. */
#include "jit.h"

#include <stdlib.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TL_ASAN 1
#endif
#ifdef TL_ASAN
#include <sanitizer/asan_interface.h>
#endif

typedef struct { const uint8_t *start; jeh *eh; } jeh_fn;

bool tl_jit_eh_register(jstore *js, const uint8_t *start, jeh *eh) {
  if (!tl_vec_try_grow(&js->ehf, sizeof(jeh_fn), js->ehf.n + 1)) {
    tl_free(eh);
    return false;
  }
  TL_VEC_AT(&js->ehf, jeh_fn, js->ehf.n++) = (jeh_fn){start, eh};
  js->ehf_sorted = false;
  return true;
}

void tl_jit_eh_free(jstore *js) {
  for (size_t i = 0; i < js->ehf.n; i++) tl_free(TL_VEC_AT(&js->ehf, jeh_fn, i).eh);
  tl_vec_free(&js->ehf);
}

static int by_start(const void *a, const void *b) {
  const uint8_t *x = ((const jeh_fn *)a)->start, *y = ((const jeh_fn *)b)->start;
  return x < y ? -1 : x > y;
}

/* The tables of the code holding return address ra, or NULL (a function
 * without handlers). Sorted on the first lookup after a registration. */
static const jeh_fn *fn_of(jstore *js, const uint8_t *ra) {
  if (!js->ehf.n) return NULL;
  if (!js->ehf_sorted) {
    qsort(js->ehf.p, js->ehf.n, sizeof(jeh_fn), by_start);
    js->ehf_sorted = true;
  }
  size_t lo = 0, hi = js->ehf.n;
  while (lo < hi) {                      /* first entry starting after ra */
    size_t mid = (lo + hi) / 2;
    if (TL_VEC_AT(&js->ehf, jeh_fn, mid).start < ra) lo = mid + 1;
    else hi = mid;
  }
  if (!lo) return NULL;
  const jeh_fn *f = &TL_VEC_AT(&js->ehf, jeh_fn, lo - 1);
  return ra <= f->start + f->eh->code_len ? f : NULL;
}

/* The innermost handler in effect at return offset ret, or JEH_NONE. */
static uint32_t site_handler(const jeh *eh, uint32_t ret) {
  uint32_t lo = 0, hi = eh->nsite;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (eh->site[mid].ret < ret) lo = mid + 1;
    else hi = mid;
  }
  return lo < eh->nsite && eh->site[lo].ret == ret ? eh->site[lo].h : JEH_NONE;
}

/* The arm catching x from handler h outwards (following delegates), or NULL. */
static const jeh_arm *find_arm(const jeh *eh, const tl_instance *inst, const tl_exn *x, uint32_t h) {
  for (; h != JEH_NONE; h = eh->h[h].next)
    for (uint32_t a = eh->h[h].arm; a != JEH_NONE; a = eh->arm[a].next)
      if (eh->arm[a].tag == JEH_NONE || inst->tags[eh->arm[a].tag] == x->tag) return &eh->arm[a];
  return NULL;
}

static _Noreturn void jump(uint64_t *rsp, uint64_t rbx, const void *to, jctx *c, uint64_t depth) {
#ifdef TL_ASAN
  __asan_handle_no_return();             /* the abandoned C frames' redzones */
#endif
  tl_jit_resume(rsp, rbx, to, c, depth);
}

_Noreturn void tl_jit_throw(jctx *c, tl_exn *x, uint64_t *rsp, uint64_t depth) {
  jstore *js = c->js;
  for (uint64_t *f = rsp;; f += 2, depth++) {
    const uint8_t *ra = (const uint8_t *)(uintptr_t)f[-1];  /* the call this frame made */
    const jeh_fn *fn = fn_of(js, ra);
    uint32_t h = fn ? site_handler(fn->eh, (uint32_t)(ra - fn->start)) : JEH_NONE;
    const jeh_arm *a = h != JEH_NONE ? find_arm(fn->eh, c->inst, x, h) : NULL;
    if (a) {
      uint8_t *rbx = (uint8_t *)(uintptr_t)f[0];
      if (a->tag != JEH_NONE)
        for (uint32_t i = 0, w = 0; i < x->n; i++)
          w += tl_jit_put((uint64_t *)(void *)(rbx + a->dst) + w, &x->v[i], x->tag->sig->types[i]);
      if (a->exn_dst != JEH_NONE) memcpy(rbx + a->exn_dst, &x, 8);
      jump(f, (uint64_t)(uintptr_t)rbx, fn->start + a->pad, c, depth);
    }
    if ((const uint8_t *)(uintptr_t)f[1] == tl_jit_tramp_ret) {  /* the segment's first frame */
      js->exn = x;
      jump(f + 2, 0, tl_jit_tramp_exc, c, depth);
    }
  }
}

/* The tag's params at sp, as the interpreter keeps them (i32 and f32
 * zero-extended). */
void tl_jit_h_throw(jctx *c, uint64_t *sp, uint32_t tag, uint32_t unused, uint64_t depth, uint64_t *rsp) {
  (void)unused;
  const tl_taginst *t = c->inst->tags[tag];
  uint32_t n = t->sig->np;
  tl_v small[8] = {{0}}, *v = small;
  if (n > 8 && !(v = tl_scratch_calloc(n, sizeof *v))) goto nomem;
  for (uint32_t i = 0, w = 0; i < n; i++) w += tl_jit_get(&v[i], sp + w, t->sig->types[i]);
  tl_exn *x = tl_exn_new(c->inst->s, t, v);
  if (v != small) tl_free(v);
  if (!x) goto nomem;
  tl_jit_throw(c, x, rsp, depth);
nomem:
  tl_errorf(&c->js->err, TL_E_NOMEM, TL_NO_OFFSET, "out of memory (exception)");
  c->js->st = TL_E_NOMEM;
  longjmp(*c->js->jb, 1);
}

void tl_jit_h_throw_ref(jctx *c, uint64_t *sp, uint32_t unused, uint32_t unused2, uint64_t depth,
                        uint64_t *rsp) {
  (void)unused, (void)unused2;
  tl_exn *x = (tl_exn *)(uintptr_t)sp[0];
  if (!x) {
    tl_errorf(&c->js->err, TL_E_TRAP, TL_NO_OFFSET, "null exception reference");
    c->js->st = TL_E_TRAP;
    longjmp(*c->js->jb, 1);
  }
  tl_jit_throw(c, x, rsp, depth);
}
