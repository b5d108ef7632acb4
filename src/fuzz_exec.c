/* fuzz_exec.c — the observable behaviour of a module as text, for
 * differential testing (wasm-opt's --fuzz-exec): instantiate it with stub
 * imports (functions log their calls and return zeros; memories, tables
 * and globals are fresh ones matching the import), call every exported
 * function in export order with fixed arguments, and record each result,
 * trap and import call. NaNs print as "nan" (their payload may change
 * under optimization). WASI imports get a sandboxed WASI (src/host): what
 * the program writes to stdout and stderr is logged, proc_exit ends the
 * log with "[exit N]". A call that runs out of fuel or stack ends the log
 * with a "[stop" line: what follows would depend on how far it got, so a
 * comparison (tl_fuzz_exec_compare) stops there and says so. */
#include "ir/ir.h"
#include "fuzz/fuzz.h"
#include "host/host.h"
#include "runtime/runtime.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  tl_buf *log;
  const tl_module *m;
  uint32_t func;      /* the imported function */
} stub;

/* A trap as the log shows it. A null struct, array or i31 access logs as
 * ref.as_non_null's "null reference": the GC passes (Binaryen's cfp, gsi,
 * heap2local...) move a read's null check to a ref.as_non_null of its
 * reference, which traps on the same inputs with another message. */
static const char *trap_kind(const char *msg) {
  static const char *const null_access[] = {"null structure reference", "null array reference", "null i31 reference"};
  for (size_t i = 0; i < sizeof null_access / sizeof *null_access; i++)
    if (!strcmp(msg, null_access[i])) return "null reference";
  return msg;
}

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

/* An uncaught exception: its payload, not its tag's index or name (passes
 * renumber tags and drop names; V8 cannot read either without the tag). */
static void put_exception(tl_buf *b, const tl_store *s) {
  tl_buf_printf(b, "  -> uncaught exception");
  const tl_exn *x = s->exn;
  if (!x) {
    tl_buf_printf(b, "\n");
    return;
  }
  const tl_module *tm = x->tag->inst->m;
  tl_type params = TL_FTYPE(tm, TL_TAG(tm, x->tag->index)->type)->params;
  for (uint32_t i = 0; i < x->n && i < tl_type_arity(tm, params); i++) {
    tl_value v;
    memset(&v, 0, sizeof v);
    v.type = tl_type_at(tm, params, i);
    if (v.type == TL_V128) memcpy(v.of.v128, x->v[i].b, 16);
    else if (v.type == TL_I32 || v.type == TL_F32) v.of.i32 = (int32_t)x->v[i].i32;
    else if (v.type == TL_I64 || v.type == TL_F64) v.of.i64 = (int64_t)x->v[i].i64;
    else v.of.ref = x->v[i].ref;
    tl_buf_printf(b, " ");
    put_value(b, &v);
  }
  tl_buf_printf(b, "\n");
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

static tl_extern import_extern(tl_module *m, tl_store *s, uint32_t kind, uint32_t i, stub *stubs,
                               tl_buf *log) {
  if (kind == TL_EXTERN_FUNC) {
    stubs[i] = (stub){log, m, i};
    return tl_host_func_of_type(s, m, TL_FUNC(m, i)->type, stub_call, &stubs[i]);
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

static const char wasi_module[] = "wasi_snapshot_preview1";

static bool is_wasi(const tl_importname *imp) {
  return tl_name_len(imp->module, imp->module_len) == sizeof wasi_module - 1 &&
         !memcmp(imp->module, wasi_module, sizeof wasi_module - 1);
}

/* Does m import anything from WASI? Then it gets the sandboxed WASI. */
static bool uses_wasi(const tl_module *m) {
  for (uint32_t i = 0; i < m->nimported_funcs; i++)
    if (is_wasi(&TL_FUNC(m, i)->imp)) return true;
  return false;
}

/* Stubs for every import; with WASI, its functions are left to tl_wasi. */
static void define_imports(tl_module *m, tl_store *s, tl_linker *l, stub *stubs, tl_buf *log, bool wasi) {
  struct { uint32_t kind, n; } spaces[] = {
    {TL_EXTERN_FUNC, m->nimported_funcs}, {TL_EXTERN_TABLE, m->nimported_tables},
    {TL_EXTERN_MEMORY, m->nimported_memories}, {TL_EXTERN_GLOBAL, m->nimported_globals}};
  for (size_t k = 0; k < 4; k++) {
    for (uint32_t i = 0; i < spaces[k].n; i++) {
      const tl_importname *imp = spaces[k].kind == TL_EXTERN_FUNC     ? &TL_FUNC(m, i)->imp
                                 : spaces[k].kind == TL_EXTERN_TABLE  ? &TL_TABLE(m, i)->imp
                                 : spaces[k].kind == TL_EXTERN_MEMORY ? &TL_MEMORY(m, i)->imp
                                                                      : &TL_GLOBAL(m, i)->imp;
      if (wasi && spaces[k].kind == TL_EXTERN_FUNC && is_wasi(imp)) continue;
      tl_extern x = import_extern(m, s, spaces[k].kind, i, stubs, log);
      if (x.ptr)
        tl_linker_define_n(l, imp->module, tl_name_len(imp->module, imp->module_len), imp->name,
                           tl_name_len(imp->name, imp->name_len), x);
    }
  }
}

/* A quoted string, escaped like wat (no raw newline: the log is lines). */
static void put_string(tl_buf *log, const uint8_t *p, size_t n) {
  tl_buf_byte(log, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = p[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') tl_buf_byte(log, c);
    else if (c == '"' || c == '\\') tl_buf_printf(log, "\\%c", c);
    else if (c == '\n') tl_buf_printf(log, "\\n");
    else if (c == '\t') tl_buf_printf(log, "\\t");
    else tl_buf_printf(log, "\\%02x", c);
  }
  tl_buf_byte(log, '"');
}

/* The sandboxed WASI's stdout and stderr: one log line per write. */
static void capture(void *ctx, int fd, const uint8_t *p, size_t n) {
  tl_buf *log = ctx;
  tl_buf_printf(log, "[%s ", fd == 1 ? "stdout" : "stderr");
  put_string(log, p, n);
  tl_buf_printf(log, "]\n");
}

/* A WASI command's entry point: `_start`, taking and returning nothing. */
static bool is_command_start(tl_module *m, const tl_export *x) {
  if (x->kind != TL_EXTERN_FUNC || tl_name_len(x->name, x->name_len) != 6 || memcmp(x->name, "_start", 6))
    return false;
  tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, x->index)->type);
  return !tl_type_arity(m, ft->params) && !tl_type_arity(m, ft->results);
}

/* Calls one export; false when the log must end here (a stop, or the
 * program exited). */
static bool call_export(tl_module *m, tl_store *s, tl_instance *inst, const tl_export *x,
                        uint64_t fuel, tl_buf *log) {
  tl_functype *ft = TL_FTYPE(m, TL_FUNC(m, x->index)->type);
  uint32_t np = tl_type_arity(m, ft->params), nr = tl_type_arity(m, ft->results);
  tl_value *args = tl_scratch_calloc(np + 1, sizeof *args), *res = tl_scratch_calloc(nr + 1, sizeof *res);
  if (!args || !res) {
    tl_free(args);
    tl_free(res);
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
    tl_buf_printf(log, "  -> trap: %s\n", trap_kind(err.msg));
  } else if (rc == TL_E_EXCEPTION) { /* like a trap: the instance stays usable */
    put_exception(log, s);
  } else if (rc == TL_E_EXIT) { /* proc_exit: the program is over */
    tl_buf_printf(log, "[%s]\n", err.msg);
    go_on = false;
  } else {
    tl_buf_printf(log, "[stop: %s]\n", err.msg);
    go_on = false;
  }
  tl_free(args);
  tl_free(res);
  return go_on;
}

static void run_exports(tl_module *m, tl_store *s, tl_instance *inst, const tl_fuzz_exec_options *o,
                        bool wasi, tl_buf *log) {
  for (uint32_t i = 0; i < m->exports.n; i++) {
    tl_export *x = TL_EXPORT(m, i);
    if (x->kind != TL_EXTERN_FUNC) continue;
    bool command = wasi && o->command_fuel && is_command_start(m, x);
    if (!call_export(m, s, inst, x, command ? o->command_fuel : o->fuel, log)) break;
  }
}

char *tl_module_fuzz_exec(tl_module *m, uint64_t fuel) {
  return tl_module_fuzz_exec_engine(m, fuel, TL_ENGINE_INTERP);
}

/* fuel for each call; a WASI command's _start gets TL_FUZZ_COMMAND_FUEL
 * when that is more. */
char *tl_module_fuzz_exec_engine(tl_module *m, uint64_t fuel, int engine) {
  tl_fuzz_exec_options o = {fuel, fuel && fuel < TL_FUZZ_COMMAND_FUEL ? TL_FUZZ_COMMAND_FUEL : fuel, engine,
                            TL_RELAXED_DETERMINISTIC};
  return tl_fuzz_exec(m, &o);
}

static char *fuzz_exec_impl(tl_module *m, const tl_fuzz_exec_options *o) {
  tl_buf log = {0};
  tl_store *s = tl_store_new();
  if (s) {
    tl_store_set_engine(s, o->engine);
    tl_store_set_relaxed(s, o->relaxed);
  }
  tl_linker *l = tl_linker_new();
  stub *stubs = tl_scratch_calloc(m->nimported_funcs + 1, sizeof *stubs);
  if (!s || !l || !stubs) {
    tl_linker_free(l);
    tl_store_free(s);
    tl_free(stubs);
    tl_buf_printf(&log, "[stop: out of memory]\n");
    tl_buf_byte(&log, 0);
    return (char *)log.p;
  }
  char name[] = "program", *argv[] = {name, NULL};
  tl_wasi w = {1, argv, NULL, 0, 1, 2, 0, false, capture, &log};
  bool wasi = uses_wasi(m);
  define_imports(m, s, l, stubs, &log, wasi);
  if (wasi) tl_wasi_define(l, s, &w);
  tl_error err;
  tl_store_set_fuel(s, o->fuel);
  tl_instance *inst = tl_instantiate(s, m, l, &err);
  if (!inst && err.code == TL_E_EXHAUSTED) tl_buf_printf(&log, "[stop: %s (instantiating)]\n", err.msg);
  else if (!inst) tl_buf_printf(&log, "[instantiate: %s]\n", err.msg);
  else run_exports(m, s, inst, o, wasi, &log);
  tl_linker_free(l);
  tl_store_free(s);
  tl_free(stubs);
  tl_buf_byte(&log, 0);
  return (char *)log.p;
}

typedef struct {
  tl_module *m;
  const tl_fuzz_exec_options *o;
  char *log;
} fuzz_exec_call;

static tl_status fuzz_exec_in_scope(void *c, tl_error *err) {
  (void)err;
  fuzz_exec_call *p = c;
  p->log = fuzz_exec_impl(p->m, p->o);
  return TL_OK;
}

/* In an out-of-memory scope (oom.c): out of memory is a log that says so. */
char *tl_fuzz_exec(tl_module *m, const tl_fuzz_exec_options *o) {
  fuzz_exec_call p = {m, o, NULL};
  tl_error err;
  if (tl_oom_run(m, fuzz_exec_in_scope, &p, &err, "fuzz-exec") == TL_OK) return p.log;
  static const char oom[] = "[stop: out of memory]\n";
  char *s = malloc(sizeof oom); /* the caller's: outside the scope */
  if (s) memcpy(s, oom, sizeof oom);
  return s;
}

/* ---------------------------------------------------------- comparing */
/* The first line of s starting with prefix, or NULL. Lines are the log's
 * unit: strings in it are escaped, so no payload starts a line. */
static const char *line_starting(const char *s, const char *prefix) {
  size_t n = strlen(prefix);
  for (const char *p = s; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (!strncmp(p, prefix, n)) return p;
  return NULL;
}

void tl_fuzz_exec_compare(const char *a, const char *b, tl_fuzz_verdict *out) {
  memset(out, 0, sizeof *out);
  out->stop[0] = line_starting(a, "[stop");
  out->stop[1] = line_starting(b, "[stop");
  size_t la = out->stop[0] ? (size_t)(out->stop[0] - a) : strlen(a);
  size_t lb = out->stop[1] ? (size_t)(out->stop[1] - b) : strlen(b);
  size_t n = la < lb ? la : lb;
  if (!out->stop[0] && !out->stop[1]) out->differ = strcmp(a, b) != 0;
  else out->differ = memcmp(a, b, n) != 0;
  if (out->differ) return;
  /* exports whose header lies in the agreed part; with a stop, the last
   * of them is the one cut short */
  for (const char *p = line_starting(a, "[export "); p && (size_t)(p - a) < n;) {
    out->compared++;
    out->cut = p;
    p = strchr(p, '\n');
    p = p ? line_starting(p + 1, "[export ") : NULL;
  }
  if (!out->stop[0] && !out->stop[1]) out->cut = NULL;
  else if (out->cut) out->compared--;
}
