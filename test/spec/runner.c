/* runner.c — the spec test driver: converts .wast scripts with wabt's
 * wast2json, reads the JSON it writes (small parser below) and executes
 * every command in tilt's reference interpreter: module (named), register,
 * action, assert_return (nan:canonical / nan:arithmetic, v128 lanes),
 * assert_trap, assert_exhaustion, assert_invalid, assert_malformed (binary;
 * text ones are skipped), assert_unlinkable, assert_uninstantiable.
 * Prints passed/failed per file and a total; exits non-zero if a file not
 * on the skip list has a failure.
 * usage: runner [--out DIR] [--flags "wast2json flags"] [--allow-unconvertible]
 *               [--skip-list FILE] [--no-feature NAME] [-v] FILE.wast... */
#include "host/host.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ JSON */
typedef enum { J_NULL, J_STR, J_NUM, J_ARR, J_OBJ, J_BOOL } jtype;
typedef struct json json;
struct json {
  jtype t;
  char *s;          /* string value (NUL-terminated; may hold NULs) */
  size_t len;       /* its byte length */
  double num;
  size_t n;
  json **v;         /* array items or object values */
  char **k;         /* object keys */
};

typedef struct { const char *p, *end; bool bad; } jp;

static void ws(jp *p) { while (p->p < p->end && isspace((unsigned char)*p->p)) p->p++; }

/* Four hex digits at p->p (a \\u escape), or -1. */
static long hex4(jp *p) {
  long u = 0;
  if (p->end - p->p < 4) return -1;
  for (int i = 0; i < 4; i++) {
    int c = (unsigned char)*p->p++, d = isdigit(c) ? c - '0' : isxdigit(c) ? (c | 0x20) - 'a' + 10 : -1;
    if (d < 0) return -1;
    u = u * 16 + d;
  }
  return u;
}

/* Appends code point u as UTF-8 to s[*n..] (room for 4 bytes). */
static void put_utf8(char *s, size_t *n, unsigned long u) {
  if (u < 0x80) s[(*n)++] = (char)u;
  else if (u < 0x800) {
    s[(*n)++] = (char)(0xc0 | u >> 6);
    s[(*n)++] = (char)(0x80 | (u & 0x3f));
  } else if (u < 0x10000) {
    s[(*n)++] = (char)(0xe0 | u >> 12);
    s[(*n)++] = (char)(0x80 | ((u >> 6) & 0x3f));
    s[(*n)++] = (char)(0x80 | (u & 0x3f));
  } else {
    s[(*n)++] = (char)(0xf0 | u >> 18);
    s[(*n)++] = (char)(0x80 | ((u >> 12) & 0x3f));
    s[(*n)++] = (char)(0x80 | ((u >> 6) & 0x3f));
    s[(*n)++] = (char)(0x80 | (u & 0x3f));
  }
}

/* A JSON string: escapes decoded (\\u0000 gives a NUL byte, surrogate pairs
 * give UTF-8), NUL-terminated, byte length in *len. */
static char *jstr(jp *p, size_t *len) {
  size_t cap = 16, n = 0;
  char *s = malloc(cap);
  p->p++;
  while (p->p < p->end && *p->p != '"') {
    if (n + 8 > cap) s = realloc(s, cap *= 2);
    char c = *p->p++;
    if (c == '\\' && p->p < p->end) {
      c = *p->p++;
      if (c == 'u') {
        long u = hex4(p);
        if (u >= 0xd800 && u < 0xdc00 && p->end - p->p >= 6 && p->p[0] == '\\' && p->p[1] == 'u') {
          p->p += 2;
          long lo = hex4(p);
          u = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00) : -1;
        }
        if (u < 0) p->bad = true;
        else put_utf8(s, &n, (unsigned long)u);
        continue;
      }
      c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
    }
    s[n++] = c;
  }
  if (p->p < p->end) p->p++;
  else p->bad = true;
  s[n] = 0;
  if (len) *len = n;
  return s;
}

static json *jparse(jp *p) {
  ws(p);
  json *j = calloc(1, sizeof *j);
  if (p->p >= p->end) { p->bad = true; return j; }
  char c = *p->p;
  if (c == '"') {
    j->t = J_STR;
    j->s = jstr(p, &j->len);
  } else if (c == '[' || c == '{') {
    j->t = c == '[' ? J_ARR : J_OBJ;
    p->p++;
    size_t cap = 0;
    for (;;) {
      ws(p);
      if (p->p >= p->end) { p->bad = true; break; }
      if (*p->p == (c == '[' ? ']' : '}')) { p->p++; break; }
      if (*p->p == ',') { p->p++; continue; }
      char *key = NULL;
      if (c == '{') {
        if (*p->p != '"') { p->bad = true; break; }
        key = jstr(p, NULL);
        ws(p);
        if (p->p < p->end && *p->p == ':') p->p++;
      }
      json *v = jparse(p);
      if (j->n == cap) {
        cap = cap ? cap * 2 : 8;
        j->v = realloc(j->v, cap * sizeof *j->v);
        j->k = realloc(j->k, cap * sizeof *j->k);
      }
      j->k[j->n] = key;
      j->v[j->n++] = v;
      if (p->bad) break;
    }
  } else if (!strncmp(p->p, "true", 4) || !strncmp(p->p, "false", 5)) {
    j->t = J_BOOL;
    j->num = *p->p == 't';
    p->p += *p->p == 't' ? 4 : 5;
  } else if (!strncmp(p->p, "null", 4)) {
    p->p += 4;
  } else {
    char *e;
    j->t = J_NUM;
    j->num = strtod(p->p, &e);
    if (e == p->p) { p->bad = true; p->p++; }
    else p->p = e;
  }
  return j;
}

static void jfree(json *j) {
  if (!j) return;
  for (size_t i = 0; i < j->n; i++) {
    jfree(j->v[i]);
    if (j->k) free(j->k[i]);
  }
  free(j->v);
  free(j->k);
  free(j->s);
  free(j);
}

static json *jget(const json *j, const char *key) {
  if (!j || j->t != J_OBJ) return NULL;
  for (size_t i = 0; i < j->n; i++)
    if (!strcmp(j->k[i], key)) return j->v[i];
  return NULL;
}

static const char *jgets(const json *j, const char *key) {
  json *v = jget(j, key);
  return v && v->t == J_STR ? v->s : NULL;
}

/* A string member with its byte length (names may hold NULs). */
static const char *jgetsn(const json *j, const char *key, size_t *len) {
  json *v = jget(j, key);
  *len = v && v->t == J_STR ? v->len : 0;
  return v && v->t == J_STR ? v->s : NULL;
}

/* --------------------------------------------------------------- runner */
typedef struct {
  const char *dir;
  const char *file;
  bool verbose;
  int engine;                 /* TL_ENGINE_* */
  tl_store *s;
  tl_linker *l;
  tl_vec mods;       /* tl_module * */
  tl_vec names;      /* { char *name; tl_instance *inst } */
  tl_instance *cur;
  unsigned pass, fail, skip;
  int line;
  uint32_t features;
  bool quiet;        /* on the skip list: count failures, do not list them */
  const char *passes; /* NULL, or passes to run on every module before use:
                         "all" (every registered pass but those needing
                         --low-memory-unused, in registry order),
                         "O2", "Os", "Oz", ... or a comma-separated list */
} run;

typedef struct { char *name; tl_instance *inst; } named;

static void failf(run *r, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void failf(run *r, const char *what, const char *fmt, ...) {
  r->fail++;
  if (r->quiet) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stdout, "  %s:%d: %s failed: ", r->file, r->line, what);
  vfprintf(stdout, fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
}

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(sz > 0 ? (size_t)sz : 1);
  *n = fread(b, 1, (size_t)(sz > 0 ? sz : 0), f);
  fclose(f);
  return b;
}

/* The pass names of r->passes into names[0..cap). */
static uint32_t pass_list(const char *spec, const char **names, uint32_t cap, char *buf, size_t bufsz) {
  uint32_t n = 0;
  if (!strcmp(spec, "all")) {
    /* but optimize-added-constants*: they assume --low-memory-unused,
     * which the spec's modules break (they use address 0); and the passes
     * renaming exports, which the script calls by name, or replacing
     * instructions by traps */
    for (uint32_t i = 0; tl_pass_name(i) && n < cap; i++)
      if (strncmp(tl_pass_name(i), "optimize-added-constants", 24) && tl_pass_keeps_behaviour(i))
        names[n++] = tl_pass_name(i);
    return n;
  }
  if (spec[0] == 'O') {
    uint32_t opt = spec[1] >= '0' && spec[1] <= '4' ? (uint32_t)(spec[1] - '0') : 2;
    uint32_t shrink = spec[1] == 's' ? 1 : spec[1] == 'z' ? 2 : 0;
    return tl_pipeline(opt, shrink, names, cap);
  }
  snprintf(buf, bufsz, "%s", spec);
  for (char *t = strtok(buf, ","); t && n < cap; t = strtok(NULL, ",")) names[n++] = t;
  return n;
}

/* Optimizes m, writes it and reads it back: the spec assertions then run
 * against what the optimizer and the writer made of it. */
static tl_module *optimized(run *r, tl_module *m, tl_error *err) {
  const char *names[256];
  char buf[4096];
  uint32_t n = pass_list(r->passes, names, 256, buf, sizeof buf);
  tl_pass_options po = {.threads = 1, .validate_each = true};
  tl_write_options wo = {.optimize_stack = true}; /* as tilt-opt -O2 writes */
  uint8_t *bytes = NULL;
  size_t size = 0;
  tl_module *out = NULL;
  if (tl_module_run_passes(m, names, n, &po, err) == TL_OK &&
      tl_module_write(m, &wo, &bytes, &size, err) == TL_OK) {
    tl_read_options o = {0};
    o.features = r->features;
    out = tl_module_read(bytes, size, &o, err);
  }
  free(bytes);
  tl_module_free(m);
  return out;
}

static tl_module *load(run *r, const char *file, tl_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", r->dir, file);
  size_t n;
  uint8_t *b = slurp(path, &n);
  if (!b) {
    tl_errorf(err, TL_E_IO, TL_NO_OFFSET, "cannot read %s", path);
    return NULL;
  }
  tl_read_options o = {0};
  o.features = r->features;
  tl_module *m = tl_module_read(b, n, &o, err);
  free(b);
  if (m && r->passes) {
    m = optimized(r, m, err);
    if (!m) fprintf(stderr, "%s:%d: optimizing the module failed: %s\n", r->file, r->line, err->msg);
  }
  if (m) TL_VEC_PUSH(&r->mods, tl_module *, m);
  return m;
}

static tl_instance *find_inst(run *r, const char *name) {
  if (!name) return r->cur;
  for (size_t i = r->names.n; i-- > 0;) {
    named *nm = &TL_VEC_AT(&r->names, named, i);
    if (!strcmp(nm->name, name)) return nm->inst;
  }
  return NULL;
}

static uint32_t type_of(const char *t) {
  if (!strcmp(t, "i32")) return TL_VAL_I32;
  if (!strcmp(t, "i64")) return TL_VAL_I64;
  if (!strcmp(t, "f32")) return TL_VAL_F32;
  if (!strcmp(t, "f64")) return TL_VAL_F64;
  if (!strcmp(t, "v128")) return TL_VAL_V128;
  if (!strcmp(t, "funcref")) return TL_VAL_FUNCREF;
  if (!strcmp(t, "externref")) return TL_VAL_EXTERNREF;
  return 0;
}

static int lane_bytes(const char *lt) {
  if (!strcmp(lt, "i8")) return 1;
  if (!strcmp(lt, "i16")) return 2;
  if (!strcmp(lt, "i32") || !strcmp(lt, "f32")) return 4;
  return 8;
}

static bool parse_arg(const json *j, tl_value *v) {
  memset(v, 0, sizeof *v);
  const char *t = jgets(j, "type");
  if (!t || !(v->type = type_of(t))) return false;
  json *val = jget(j, "value");
  if (v->type == TL_VAL_V128) {
    const char *lt = jgets(j, "lane_type");
    if (!lt || !val || val->t != J_ARR) return false;
    int w = lane_bytes(lt);
    for (size_t i = 0; i < val->n && (i + 1) * (size_t)w <= 16; i++) {
      uint64_t x = strtoull(val->v[i]->s, NULL, 10);
      memcpy(v->of.v128 + i * (size_t)w, &x, (size_t)w);
    }
    return true;
  }
  if (!val || val->t != J_STR) return false;
  if (v->type == TL_VAL_FUNCREF || v->type == TL_VAL_EXTERNREF) {
    v->of.ref = !strcmp(val->s, "null") ? NULL : (void *)(uintptr_t)(strtoull(val->s, NULL, 10) + 1);
    return true;
  }
  uint64_t x = strtoull(val->s, NULL, 10);
  if (v->type == TL_VAL_I32 || v->type == TL_VAL_F32) v->of.i32 = (int32_t)(uint32_t)x;
  else v->of.i64 = (int64_t)x;
  return true;
}

static bool match_bits(const char *exp, uint64_t got, int w, bool is_float) {
  if (is_float && !strncmp(exp, "nan:", 4)) {
    uint64_t exp_mask = w == 4 ? 0x7f800000u : 0x7ff0000000000000ull;
    uint64_t q = w == 4 ? 0x00400000u : 0x0008000000000000ull;
    uint64_t mant = w == 4 ? 0x007fffffu : 0x000fffffffffffffull;
    if ((got & exp_mask) != exp_mask || !(got & mant)) return false;
    if (!strcmp(exp + 4, "canonical")) return (got & mant) == q;
    return (got & q) != 0;
  }
  uint64_t x = strtoull(exp, NULL, 10);
  if (w < 8) {
    uint64_t m = (1ull << (8 * w)) - 1;
    return (x & m) == (got & m);
  }
  return x == got;
}

static bool match(const json *j, const tl_value *got) {
  const char *t = jgets(j, "type");
  uint32_t ty = t ? type_of(t) : 0;
  if (!ty || ty != got->type) return false;
  json *val = jget(j, "value");
  if (ty == TL_VAL_V128) {
    const char *lt = jgets(j, "lane_type");
    if (!lt || !val || val->t != J_ARR) return false;
    int w = lane_bytes(lt);
    for (size_t i = 0; i < val->n && (i + 1) * (size_t)w <= 16; i++) {
      uint64_t x = 0;
      memcpy(&x, got->of.v128 + i * (size_t)w, (size_t)w);
      if (!match_bits(val->v[i]->s, x, w, lt[0] == 'f')) return false;
    }
    return true;
  }
  if (ty == TL_VAL_FUNCREF || ty == TL_VAL_EXTERNREF) {
    if (!val || val->t != J_STR) return got->of.ref != NULL;
    if (!strcmp(val->s, "null")) return got->of.ref == NULL;
    if (ty == TL_VAL_FUNCREF) return got->of.ref != NULL;
    return got->of.ref == (void *)(uintptr_t)(strtoull(val->s, NULL, 10) + 1);
  }
  if (!val || val->t != J_STR) return false;
  int w = ty == TL_VAL_I32 || ty == TL_VAL_F32 ? 4 : 8;
  uint64_t bits = w == 4 ? (uint32_t)got->of.i32 : (uint64_t)got->of.i64;
  return match_bits(val->s, bits, w, ty == TL_VAL_F32 || ty == TL_VAL_F64);
}

/* Runs an invoke or get action. */
static tl_status action(run *r, const json *a, tl_value *res, uint32_t *nres, tl_error *err) {
  size_t flen;
  const char *ty = jgets(a, "type"), *field = jgetsn(a, "field", &flen);
  tl_instance *inst = find_inst(r, jgets(a, "module"));
  *nres = 0;
  if (!inst || !field || !ty) return tl_errorf(err, TL_E_LINK, TL_NO_OFFSET, "no such module");
  if (!strcmp(ty, "get")) {
    tl_extern x;
    if (tl_instance_export_n(inst, field, flen, &x) || tl_global_get(x, res))
      return tl_errorf(err, TL_E_LINK, TL_NO_OFFSET, "no global %s", field);
    *nres = 1;
    return TL_OK;
  }
  json *args = jget(a, "args");
  size_t na = args ? args->n : 0;
  tl_value *av = calloc(na + 1, sizeof *av);
  for (size_t i = 0; i < na; i++)
    if (!parse_arg(args->v[i], &av[i])) {
      free(av);
      return tl_errorf(err, TL_E_INVALID, TL_NO_OFFSET, "bad argument");
    }
  tl_status st = tl_invoke_n(inst, field, flen, av, (uint32_t)na, res, 64, nres, err);
  free(av);
  return st;
}

static bool msg_ok(const char *got, const char *want) {
  if (!want) return true;
  size_t a = strlen(got), b = strlen(want), n = a < b ? a : b;
  return !strncmp(got, want, n);
}

static void cmd_module(run *r, const json *c) {
  tl_error err = {0};
  tl_module *m = load(r, jgets(c, "filename"), &err);
  tl_instance *inst = m ? tl_instantiate(r->s, m, r->l, &err) : NULL;
  if (!inst) {
    failf(r, "module", "%s", err.msg);
    r->cur = NULL;
    return;
  }
  r->cur = inst;
  const char *name = jgets(c, "name");
  if (name) {
    named nm = {strdup(name), inst};
    TL_VEC_PUSH(&r->names, named, nm);
  }
  r->pass++;
}

static void cmd_assert_return(run *r, const json *c) {
  tl_value res[64];
  uint32_t nres;
  tl_error err = {0};
  if (action(r, jget(c, "action"), res, &nres, &err)) {
    failf(r, "assert_return", "%s", err.msg);
    return;
  }
  json *exp = jget(c, "expected");
  size_t ne = exp ? exp->n : 0;
  if (ne != nres) {
    failf(r, "assert_return", "%u results, expected %zu", nres, ne);
    return;
  }
  for (size_t i = 0; i < ne; i++)
    if (!match(exp->v[i], &res[i])) {
      const char *ev = jgets(exp->v[i], "value");
      failf(r, "assert_return", "%s: result %zu is 0x%016" PRIx64 " (%s expected)",
            jgets(jget(c, "action"), "field"), i, (uint64_t)res[i].of.i64, ev ? ev : "v128/ref");
      return;
    }
  r->pass++;
}

static void cmd_assert_trap(run *r, const json *c, tl_status want) {
  tl_value res[64];
  uint32_t nres;
  tl_error err = {0};
  const char *text = jgets(c, "text");
  tl_status st = action(r, jget(c, "action"), res, &nres, &err);
  if (st != want) {
    failf(r, "assert_trap", "%s: got status %d (%s), expected \"%s\"",
          jgets(jget(c, "action"), "field"), st, err.msg, text ? text : "");
    return;
  }
  if (!msg_ok(err.msg, text)) {
    failf(r, "assert_trap", "trapped with \"%s\", expected \"%s\"", err.msg, text);
    return;
  }
  r->pass++;
}

/* assert_invalid / assert_malformed / assert_unlinkable / assert_uninstantiable */
static void cmd_assert_module(run *r, const json *c, const char *type) {
  const char *mt = jgets(c, "module_type");
  if (mt && strcmp(mt, "binary")) {
    r->skip++;
    return;
  }
  tl_error err = {0};
  /* A module expected not to link is used as written: optimizers assume
   * the module links (wasm-opt drops unused imports, so the failure and the
   * absence of its side effects would go with them). */
  const char *passes = r->passes;
  if (!strcmp(type, "assert_unlinkable")) r->passes = NULL;
  tl_module *m = load(r, jgets(c, "filename"), &err);
  r->passes = passes;
  bool bad_module = !strcmp(type, "assert_invalid") || !strcmp(type, "assert_malformed");
  if (bad_module) {
    if (m) failf(r, type, "module was accepted (\"%s\" expected)", jgets(c, "text"));
    else r->pass++;
    return;
  }
  if (!m) {
    failf(r, type, "module did not load: %s", err.msg);
    return;
  }
  tl_instance *inst = tl_instantiate(r->s, m, r->l, &err);
  tl_status want = !strcmp(type, "assert_unlinkable") ? TL_E_LINK : TL_E_TRAP;
  if (inst) failf(r, type, "instantiation succeeded (\"%s\" expected)", jgets(c, "text"));
  else if (err.code != want && !(want == TL_E_TRAP && err.code == TL_E_EXHAUSTED))
    failf(r, type, "failed with \"%s\" (\"%s\" expected)", err.msg, jgets(c, "text"));
  else r->pass++;
}

static void command(run *r, const json *c) {
  const char *t = jgets(c, "type");
  json *line = jget(c, "line");
  r->line = line ? (int)line->num : 0;
  if (!t) return;
  if (!strcmp(t, "module")) {
    cmd_module(r, c);
  } else if (!strcmp(t, "register")) {
    tl_instance *inst = find_inst(r, jgets(c, "name"));
    if (!inst) failf(r, "register", "no module");
    else tl_linker_define_instance(r->l, jgets(c, "as"), inst);
  } else if (!strcmp(t, "action")) {
    tl_value res[64];
    uint32_t nres;
    tl_error err = {0};
    if (action(r, jget(c, "action"), res, &nres, &err)) failf(r, "action", "%s", err.msg);
    else r->pass++;
  } else if (!strcmp(t, "assert_return")) {
    cmd_assert_return(r, c);
  } else if (!strcmp(t, "assert_trap")) {
    cmd_assert_trap(r, c, TL_E_TRAP);
  } else if (!strcmp(t, "assert_exhaustion")) {
    /* an optimizer may legitimately remove the recursion that exhausts */
    if (r->passes) r->skip++;
    else cmd_assert_trap(r, c, TL_E_EXHAUSTED);
  } else if (!strncmp(t, "assert_", 7)) {
    cmd_assert_module(r, c, t);
  } else {
    r->skip++;
  }
}

static void run_json(run *r, const char *path) {
  size_t n;
  uint8_t *b = slurp(path, &n);
  if (!b) {
    failf(r, "read", "cannot read %s", path);
    return;
  }
  jp p = {(const char *)b, (const char *)b + n, false};
  json *root = jparse(&p);
  json *cmds = jget(root, "commands");
  if (p.bad || !cmds) failf(r, "json", "cannot parse %s", path);
  r->s = tl_store_new();
  tl_store_set_engine(r->s, r->engine);
  r->l = tl_linker_new();
  tl_spectest_define(r->l, r->s, r->verbose);
  for (size_t i = 0; cmds && i < cmds->n; i++) command(r, cmds->v[i]);
  tl_linker_free(r->l);
  tl_store_free(r->s);
  for (size_t i = 0; i < r->mods.n; i++) tl_module_free(TL_VEC_AT(&r->mods, tl_module *, i));
  for (size_t i = 0; i < r->names.n; i++) free(TL_VEC_AT(&r->names, named, i).name);
  tl_vec_free(&r->mods);
  tl_vec_free(&r->names);
  jfree(root);
  free(b);
}

static bool on_skip_list(const char *skipfile, const char *name) {
  FILE *f = skipfile ? fopen(skipfile, "r") : NULL;
  char line[1024];
  bool found = false;
  while (f && fgets(line, sizeof line, f)) {
    char *h = strchr(line, '#');
    if (h) *h = 0;
    char word[1024];
    if (sscanf(line, "%1023s", word) == 1 && !strcmp(word, name)) found = true;
  }
  if (f) fclose(f);
  return found;
}

int main(int argc, char **argv) {
  const char *out = ".", *flags = "", *skipfile = NULL;
  bool allow = false, verbose = false;
  int engine = TL_ENGINE_INTERP;
  const char *passes = NULL;
  uint32_t features = TL_FEATURES_ALL;
  unsigned tp = 0, tf = 0, ts = 0, bad_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--out") && i + 1 < argc) { out = argv[++i]; continue; }
    if (!strcmp(a, "--flags") && i + 1 < argc) { flags = argv[++i]; continue; }
    if (!strcmp(a, "--skip-list") && i + 1 < argc) { skipfile = argv[++i]; continue; }
    if (!strcmp(a, "--allow-unconvertible")) { allow = true; continue; }
    if (!strcmp(a, "-v")) { verbose = true; continue; }
    if (!strncmp(a, "--engine=", 9)) { engine = !strcmp(a + 9, "jit") ? TL_ENGINE_JIT : TL_ENGINE_INTERP; continue; }
    if (!strcmp(a, "--no-feature") && i + 1 < argc) { features &= ~tl_feature_from_name(argv[++i]); continue; }
    if (!strncmp(a, "--passes=", 9)) { passes = a + 9; continue; }
    const char *base = strrchr(a, '/');
    base = base ? base + 1 : a;
    char stem[1024], json[4096], cmd[8192];
    snprintf(stem, sizeof stem, "%s", base);
    char *dot = strrchr(stem, '.');
    if (dot) *dot = 0;
    mkdir(out, 0777);
    snprintf(json, sizeof json, "%s/%s.json", out, stem);
    snprintf(cmd, sizeof cmd, "wast2json %s -o '%s' '%s' > '%s/%s.log' 2>&1", flags, json, a, out, stem);
    bool skipped = on_skip_list(skipfile, base);
    if (system(cmd) != 0) {
      if (allow || skipped) {
        printf("%s: skipped (wast2json cannot convert it)\n", base);
      } else {
        printf("%s: FAILED: wast2json cannot convert it\n", base);
        bad_files++;
      }
      continue;
    }
    run r = {0};
    r.dir = out;
    r.file = base;
    r.verbose = verbose;
    r.engine = engine;
    r.features = features;
    r.quiet = skipped && !verbose;
    r.passes = passes;
    run_json(&r, json);
    printf("%s: %u passed, %u failed%s%s\n", base, r.pass, r.fail,
           r.skip ? " (text modules skipped)" : "", skipped && r.fail ? " [on skip list]" : "");
    tp += r.pass;
    tf += r.fail;
    ts += r.skip;
    if (r.fail && !skipped) bad_files++;
    fflush(stdout);
  }
  printf("%u passed, %u failed (%u text-format assertions skipped)\n", tp, tf, ts);
  return bad_files ? 1 : 0;
}
