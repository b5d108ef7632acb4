/* instrument_memory.c — wasm-opt's instrument-memory (emcc AUTODEBUG):
 * every load and store (tl_is_load/tl_is_store: plain, atomic, v128) of a
 * memory with memory 0's address type P gets its address from
 *   call env.load_ptr(id, bytes, offset, address) / env.store_ptr(...)
 * ((i32, i32, P, P) -> P), and a loaded i32/i64/f32/f64 passes through
 * env.load_val_T(id, value), a stored one through env.store_val_T(id,
 * value) ((i32, T) -> T); id counts the accesses from 1 in post-order over
 * the functions. The ten imports are added as Binaryen adds them. Kind
 * MODULE_IFACE: the host provides them. */
#include "passes.h"

#include <stdio.h>

typedef struct {
  uint32_t load_ptr, store_ptr, load_val[4], store_val[4];
  uint32_t id;
  bool m64;                 /* memory 0 is 64-bit */
} memory;

static const tl_type types[4] = {TL_I32, TL_I64, TL_F32, TL_F64};

static int kind_of(tl_type t) {
  for (int k = 0; k < 4; k++)
    if (types[k] == t) return k;
  return -1;
}

static tl_expr *ptr_const(tl_module *m, bool m64, uint64_t v) {
  return m64 ? tl_make_const_i64(m, (int64_t)v) : tl_make_const_i32(m, (int32_t)v);
}

static tl_expr *val_hook(tl_walk *w, uint32_t import, tl_expr *value) {
  memory *mm = w->ctx;
  tl_expr *args[2] = {tl_make_const_i32(w->m, (int32_t)mm->id), value};
  return tl_make_call(w->m, w->f, import, args, 2);
}

static void instrument(tl_walk *w, tl_expr **slot) {
  memory *mm = w->ctx;
  tl_module *m = w->m;
  tl_expr *e = *slot;
  bool load = tl_is_load(e->op);
  if ((!load && !tl_is_store(e->op)) || tl_memory_is64(m, e->imm.mem.mem) != mm->m64) return;
  mm->id++;
  tl_expr *args[4] = {tl_make_const_i32(m, (int32_t)mm->id),
                      tl_make_const_i32(m, 1 << tl_op_natural_align(e->op)),
                      ptr_const(m, mm->m64, tl_memarg_offset(m, &e->imm.mem)), e->kid[0]};
  e->kid[0] = tl_make_call(m, w->f, load ? mm->load_ptr : mm->store_ptr, args, 4);
  int k = kind_of(load ? e->type : e->kid[1]->type);
  if (k < 0) return; /* v128, or unreachable */
  if (load) *slot = val_hook(w, mm->load_val[k], e);
  else e->kid[1] = val_hook(w, mm->store_val[k], e->kid[1]);
}

tl_status tl_pass_instrument_memory(tl_pass_ctx *ctx) {
  tl_module *m = ctx->m;
  memory mm = {.m64 = m->memories.n && tl_memory_is64(m, 0)};
  tl_type p = mm.m64 ? TL_I64 : TL_I32, ptr_sig[4] = {TL_I32, TL_I32, p, p};
  mm.load_ptr = tl_module_env_import_sig(m, "load_ptr", ptr_sig, 4, p);
  bool ok = mm.load_ptr != TL_NO_INDEX;
  char name[24];
  for (int k = 0; k < 4 && ok; k++) {
    tl_type sig[2] = {TL_I32, types[k]};
    snprintf(name, sizeof name, "load_val_%s", tl_type_name(types[k]));
    mm.load_val[k] = tl_module_env_import_sig(m, name, sig, 2, types[k]);
    ok = mm.load_val[k] != TL_NO_INDEX;
  }
  mm.store_ptr = ok ? tl_module_env_import_sig(m, "store_ptr", ptr_sig, 4, p) : TL_NO_INDEX;
  ok = ok && mm.store_ptr != TL_NO_INDEX;
  for (int k = 0; k < 4 && ok; k++) {
    tl_type sig[2] = {TL_I32, types[k]};
    snprintf(name, sizeof name, "store_val_%s", tl_type_name(types[k]));
    mm.store_val[k] = tl_module_env_import_sig(m, name, sig, 2, types[k]);
    ok = mm.store_val[k] != TL_NO_INDEX;
  }
  if (!ok) return tl_nomem(ctx->err, "instrument-memory");
  /* imports added above shifted the defined functions; indices are final now */
  for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
    tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, instrument, &mm, TL_F_READS_MEM | TL_F_WRITES_MEM);
  return TL_OK;
}
