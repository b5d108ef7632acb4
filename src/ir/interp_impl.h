/* interp_impl.h — private to the reference interpreter (interp*.c): the
 * compact linear code each function's IR is compiled to, its exception
 * handler tables and its frames. The store objects both engines share are
 * src/runtime/runtime.h's. */
#ifndef TILT_INTERP_IMPL_H
#define TILT_INTERP_IMPL_H

#include "../runtime/runtime.h"

#include <string.h>

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
  X_ISNULL,          /* push i32 (top is null), keeping the top (br_on_null) */
  X_NONNULL,         /* push i32 (top is not null), keeping the top (br_on_non_null) */
  X_NOPS
};
/* A memarg access's ins->a: the address is an i64 (a 64-bit memory). */
#define XA_ADDR64 (1u << 31)

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


struct tl_frame {
  const tl_ins *pc;         /* where to resume in the caller */
  tl_v *fp;
  tl_instance *inst;
  const tl_code *code;
};




/* interp_compile.c */
tl_status tl_interp_compile(tl_instance *inst, uint32_t fidx, tl_code **out, tl_error *err);
uint32_t tl_interp_slots(const tl_module *m, tl_type t);
/* Compiles one expression of f as if it were a function body of no params
 * returning its value (used by tl_interp_eval). */
tl_status tl_interp_compile_expr(tl_instance *inst, tl_func *f, tl_expr *e, tl_code **out);
/* interp_exec.c */
tl_status tl_interp_run_code(tl_store *s, tl_instance *inst, tl_code *code, const tl_v *args,
                             uint32_t np, tl_v *results, tl_error *err);
/* The instructions interp_gc.c runs: the 0xFB heap, i31, cast and
 * conversion instructions and ref.eq (not call_ref or br_on_null, which
 * other code may count as gc: tl_op_is_gc). */
static inline bool tl_interp_is_gc(int op) {
  return (op >= TL_OP_STRUCT_NEW && op <= TL_OP_I31_GET_U) || op == TL_OP_REF_EQ;
}
/* interp_gc.c: a GC instruction's immediates resolved into its row (runtime
 * types, field offsets and sizes); running one on the operand stack at *sp
 * (updated), paying bulk fuel from *fuel. */
void tl_interp_gc_compile(tl_instance *inst, const tl_expr *e, tl_ins *in);
tl_status tl_interp_gc(tl_store *s, tl_instance *inst, const tl_ins *ins, tl_v **sp, uint64_t *fuel,
                       tl_error *err);
/* interp_simd.c: executes SIMD op on the operand stack top; returns the new sp */
tl_v *tl_interp_simd(const tl_ins *ins, tl_v *sp);
/* The same with relaxed SIMD's native profile (TL_RELAXED_NATIVE). */
tl_v *tl_interp_simd_native(const tl_ins *ins, tl_v *sp);



#endif
