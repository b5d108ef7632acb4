/* fuzz_exec.c — the observable behaviour of a module as text, for
 * differential testing (wasm-opt's --fuzz-exec): instantiate it with stub
 * imports (functions log their calls and return zeros; memories, tables
 * and globals are fresh ones matching the import), call every exported
 * function in export order with fixed arguments, and record each result,
 * trap and import call. NaNs print as "nan" (their payload may change
 * under optimization). A call that runs out of fuel or stack ends the log
 * with a "stop" line: what follows would depend on how far it got. */
#include "ir/ir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

char *tl_module_fuzz_exec_engine(tl_module *m, uint64_t fuel, int engine);

typedef struct {
  tl_buf *log;
  const tl_module *m;
  uint32_t func;      /* the imported function */
} stub;

static void put_value(tl_buf *b, const tl_value *v) {
  switch (v->type) {
  case TL_VAL_I32: tl_buf_printf(b, "i32:%" PRId32, v->of.i32); break;
  case TL_VAL_I64: tl_buf_printf(b, "i64:%" PRId64, v->of.i64); break;
  case TL_VAL_F32:
    if ((v->of.f32 & 0x7f800000u) == 0x7f800000u && (v->of.f32 & 0x7fffffu)) tl_buf_printf(b, "f32:nan");
    else tl_buf_printf(b, "f32:0x%08" PRIx32, v->of.f32);
    break;
  case TL_VAL_F64:
    if ((v->of.f64 & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v->of.f64 & 0xfffffffffffffull))
      tl_buf_printf(b, "f64:nan");
    else tl_buf_printf(b, "f64:0x%016" PRIx64, v->of.f64);
    break;
  case TL_VAL_V128:
    tl_buf_printf(b, "v128:");
    for (int i = 15; i >= 0; i--) tl_buf_printf(b, "%02x", v->of.v128[i]);
    break;
  default: tl_buf_printf(b, "%s:%s", v->type == TL_VAL_FUNCREF ? "funcref" : "externref",
                         v->of.ref ? "nonnull" : "null"); break;
  }
}

static void zero_value(tl_value *v, tl_type t) {
  memset(v, 0, sizeof *v);
  v->type = t;
}

/* Fixed, non-trivial arguments: the same for every run. */
static void arg_value(tl_value *v, tl_type t, uint32_t i) {
  zero_value(v, t);
  switch (t) {
  case TL_I32: v->of.i32 = (int32_t)(3 + 7 * i); break;
  case TL_I64: v->of.i64 = -5 - (int64_t)i; break;
  case TL_F32: v->of.f32 = 0x3fc00000u; break;           /* 1.5 */
  case TL_F64: v->of.f64 = 0xc004000000000000ull; break;  /* -2.5 */
  case TL_V128: for (int k = 0; k < 16; k++) v->of.v128[k] = (uint8_t)(k * 17 + i); break;
  default: break;
  }
}

static tl_status stub_call(tl_host_call *call, void *user, const tl_value *args, tl_value *results,
                           tl_error *err) {
  (void)call; (void)err;
  stub *s = user;
  const tl_func *f = TL_FUNC(s->m, s->func);
  tl_functype *ft = TL_FTYPE(s->m, f->type);
  tl_buf_printf(s->log, "[import %s.%s(", f->imp.module, f->imp.name);
  for (uint32_t i = 0; i < tl_type_arity(s->m, ft->params); i++) {
    if (i) tl_buf_printf(s->log, ", ");
    put_value(s->log, &args[i]);
  }
  tl_buf_printf(s->log, ")]\n");
  for (uint32_t i = 0; i < tl_type_arity(s->m, ft->results); i++)
    zero_value(&results[i], tl_type_at(s->m, ft->results, i));
  return TL_OK;
}

static void types_of(const tl_module *m, tl_type t, uint32_t *out, uint32_t *n) {
  *n = tl_type_arity(m, t);
  for (uint32_t i = 0; i < *n; i++) out[i] = tl_type_at(m, t, i);
}

static tl_extern import_extern(tl_module *m, tl_store *s, uint32_t kind, uint32_t i, stub *stubs,
                               tl_buf *log) {
  if (kind == TL_EXTERN_FUNC) {
    tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, i)->type);
    uint32_t p[64], r[64], np, nr;
    if (tl_type_arity(m, ft->params) > 64 || tl_type_arity(m, ft->results) > 64) return (tl_extern){0, NULL};
    types_of(m, ft->params, p, &np);
    types_of(m, ft->results, r, &nr);
    stubs[i] = (stub){log, m, i};
    return tl_host_func_new(s, p, np, r, nr, stub_call, &stubs[i]);
  }
  if (kind == TL_EXTERN_MEMORY) {
    tl_memory *mem = TL_MEMORY(m, i);
    uint32_t max = mem->has_max ? (uint32_t)mem->max : 65536;
    return mem->shared ? tl_host_shared_memory_new(s, (uint32_t)mem->min, max)
                       : tl_host_memory_new(s, (uint32_t)mem->min, max, mem->has_max);
  }
  if (kind == TL_EXTERN_TABLE) {
    tl_table *t = TL_TABLE(m, i);
    return tl_host_table_new(s, t->elem, (uint32_t)t->min, (uint32_t)t->max, t->has_max);
  }
  tl_global *g = TL_GLOBAL(m, i);
  tl_value v;
  zero_value(&v, g->type);
  return tl_host_global_new(s, v, g->mut);
}

static void define_imports(tl_module *m, tl_store *s, tl_linker *l, stub *stubs, tl_buf *log) {
  struct { uint32_t kind, n; } spaces[] = {
    {TL_EXTERN_FUNC, m->nimported_funcs}, {TL_EXTERN_TABLE, m->nimported_tables},
    {TL_EXTERN_MEMORY, m->nimported_memories}, {TL_EXTERN_GLOBAL, m->nimported_globals}};
  for (size_t k = 0; k < 4; k++) {
    for (uint32_t i = 0; i < spaces[k].n; i++) {
      const tl_importname *imp = spaces[k].kind == TL_EXTERN_FUNC     ? &TL_FUNC(m, i)->imp
                                 : spaces[k].kind == TL_EXTERN_TABLE  ? &TL_TABLE(m, i)->imp
                                 : spaces[k].kind == TL_EXTERN_MEMORY ? &TL_MEMORY(m, i)->imp
                                                                      : &TL_GLOBAL(m, i)->imp;
      tl_extern x = import_extern(m, s, spaces[k].kind, i, stubs, log);
      if (x.ptr)
        tl_linker_define_n(l, imp->module, tl_name_len(imp->module, imp->module_len), imp->name,
                           tl_name_len(imp->name, imp->name_len), x);
    }
  }
}

/* Calls one export; false when the log must stop here. */
static bool call_export(tl_module *m, tl_store *s, tl_instance *inst, const tl_export *x,
                        uint64_t fuel, tl_buf *log) {
  tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, x->index)->type);
  uint32_t np = tl_type_arity(m, ft->params), nr = tl_type_arity(m, ft->results);
  tl_value *args = tl_scratch_calloc(np + 1, sizeof *args), *res = tl_scratch_calloc(nr + 1, sizeof *res);
  if (!args || !res) {
    free(args);
    free(res);
    tl_buf_printf(log, "[stop: out of memory]\n");
    return false;
  }
  for (uint32_t i = 0; i < np; i++) arg_value(&args[i], tl_type_at(m, ft->params, i), i);
  tl_store_set_fuel(s, fuel);
  tl_error err;
  uint32_t got = 0;
  uint32_t nl = tl_name_len(x->name, x->name_len);
  tl_buf_printf(log, "[export \"");
  for (uint32_t i = 0; i < nl; i++) { /* names may hold NULs: escape like wat */
    uint8_t c = (uint8_t)x->name[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') tl_buf_byte(log, c);
    else tl_buf_printf(log, "\\%02x", c);
  }
  tl_buf_printf(log, "\"]\n");
  tl_status rc = tl_invoke_n(inst, x->name, nl, args, np, res, nr, &got, &err);
  bool go_on = true;
  if (rc == TL_OK) {
    tl_buf_printf(log, "  ->");
    for (uint32_t i = 0; i < got; i++) {
      tl_buf_printf(log, " ");
      put_value(log, &res[i]);
    }
    tl_buf_printf(log, "\n");
  } else if (rc == TL_E_TRAP) {
    tl_buf_printf(log, "  -> trap: %s\n", err.msg);
  } else {
    tl_buf_printf(log, "[stop: %s]\n", err.msg);
    go_on = false;
  }
  free(args);
  free(res);
  return go_on;
}

char *tl_module_fuzz_exec(tl_module *m, uint64_t fuel) {
  return tl_module_fuzz_exec_engine(m, fuel, TL_ENGINE_INTERP);
}

/* The same, on a given engine (TL_ENGINE_*; tilt-fuzz jit mode). */
char *tl_module_fuzz_exec_engine(tl_module *m, uint64_t fuel, int engine) {
  tl_buf log = {0};
  tl_store *s = tl_store_new();
  if (s) tl_store_set_engine(s, engine);
  tl_linker *l = tl_linker_new();
  stub *stubs = tl_scratch_calloc(m->nimported_funcs + 1, sizeof *stubs);
  if (!s || !l || !stubs) {
    tl_linker_free(l);
    tl_store_free(s);
    free(stubs);
    tl_buf_printf(&log, "[stop: out of memory]\n");
    tl_buf_byte(&log, 0);
    return (char *)log.p;
  }
  define_imports(m, s, l, stubs, &log);
  tl_error err;
  tl_store_set_fuel(s, fuel);
  tl_instance *inst = tl_instantiate(s, m, l, &err);
  if (!inst) {
    tl_buf_printf(&log, "[instantiate: %s]\n", err.code == TL_E_EXHAUSTED ? "stop" : err.msg);
  } else {
    for (uint32_t i = 0; i < m->exports.n; i++) {
      tl_export *x = TL_EXPORT(m, i);
      if (x->kind != TL_EXTERN_FUNC) continue;
      if (!call_export(m, s, inst, x, fuel, &log)) break;
    }
  }
  tl_linker_free(l);
  tl_store_free(s);
  free(stubs);
  tl_buf_byte(&log, 0);
  return (char *)log.p;
}
