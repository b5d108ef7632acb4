/* wast.c — tilt-run --wast: runs .wast scripts of the spec suite with tilt's
 * own text reader (src/text), on the JIT (default) or the interpreter:
 * module (text, binary, quote; definition / instance), register, invoke,
 * get, assert_return (nan:canonical, nan:arithmetic, v128 lanes, ref forms,
 * either), assert_trap, assert_exhaustion, assert_exception, assert_invalid,
 * assert_malformed, assert_unlinkable, assert_uninstantiable. Prints
 * per-file counts and the first failures with line numbers. Commands that
 * fail with TL_E_UNSUPPORTED (a feature tilt lacks) are counted apart. Exit
 * status 1 if a file not on the skip list has a failure. -O<n>: every module
 * goes through tl_module_optimize (and is written and read back) first. */
#include "cli.h"
#include "host/host.h"
#include "runtime/runtime.h"
#include "text/text.h"
#include "wast.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *name; size_t len; tl_instance *inst; } named; /* inst NULL: unsupported */
typedef struct { char *name; size_t len; uint8_t *bin; size_t n; } moddef;

typedef struct {
  const char *file;
  const tl_toks *tk;
  size_t i;                  /* cursor */
  int engine;
  int relaxed;              /* the interpreter's relaxed SIMD profile */
  uint32_t features;
  bool verbose, quiet;
  bool print_check;          /* --print-check: every module is read back from its printed text */
  int opt_level;             /* -O<n> (n > 0): every module is optimized before its commands run */
  unsigned max_shown, shown;
  tl_store *s;
  tl_linker *l;
  tl_vec mods;               /* tl_module * */
  tl_vec insts;              /* named */
  tl_vec defs;               /* moddef */
  tl_instance *cur;
  bool cur_unsup;            /* the last module was unsupported: commands on it are too */
  unsigned pass, fail, unsup, skip;
  unsigned printed;          /* --print-check: modules read back from their text */
  unsigned optimized;        /* -O<n>: modules optimized, written and read back */
  size_t line_off;           /* line counting: offset and line reached */
  unsigned line_at, line;
} ws;

/* Expected results. */
enum { E_BITS, E_NAN_CANON, E_NAN_ARITH, E_V128, E_NULL, E_NONNULL, E_EXTERN, E_EITHER };
typedef struct {
  uint8_t kind, w;           /* w: bytes of the value or v128 lane */
  uint32_t type;             /* TL_VAL_*; 0 for any reference */
  uint64_t bits;
  uint8_t v[16], lane[16];   /* v128: bytes; per lane E_BITS / E_NAN_* */
  bool fl;                   /* v128 float lanes */
  uint32_t alt, nalt;        /* E_EITHER: alternatives in ws alts */
  char sub;                  /* E_NONNULL of gc forms: 'S' (ref.struct), 'A' (ref.array),
                                'I' (ref.i31), 'E' (ref.eq); 0 any */
} expect;

static const tl_tok *cur(ws *w) { return &w->tk->t[w->i]; }
static int kind(const ws *w, const tl_tok *t) { return tl_tok_kind(w->tk, t); }
static int cur_kind(ws *w) { return kind(w, cur(w)); }
/* An atom's or a string's text (t->aux bytes). */
static const char *text(const ws *w, const tl_tok *t) { return tl_tok_text(w->tk, t); }
static bool atom_is(const ws *w, const tl_tok *t, const char *kw) {
  return kind(w, t) == TK_ATOM && t->aux == strlen(kw) && !memcmp(text(w, t), kw, t->aux);
}
static bool is_kw(ws *w, const char *kw) { return atom_is(w, cur(w), kw); }

static unsigned line_of(ws *w, size_t off) {
  if (off < w->line_off) w->line_off = 0, w->line_at = 1;
  for (; w->line_off < off; w->line_off++)
    if (w->tk->src[w->line_off] == '\n') w->line_at++;
  return w->line_at;
}

static void failf(ws *w, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void failf(ws *w, const char *what, const char *fmt, ...) {
  w->fail++;
  if (w->quiet || (w->shown >= w->max_shown && !w->verbose)) return;
  w->shown++;
  va_list ap;
  va_start(ap, fmt);
  printf("  %s:%u: %s failed: ", w->file, w->line, what);
  vprintf(fmt, ap);
  putchar('\n');
  va_end(ap);
}

static void unsupported(ws *w, const char *what, const char *msg) {
  w->unsup++;
  if (w->verbose) printf("  %s:%u: %s unsupported: %s\n", w->file, w->line, what, msg);
}

/* Strings from the cursor to the next ')' concatenated (malloc'd). */
static uint8_t *strings(ws *w, size_t *n) {
  size_t cap = 1;
  for (size_t j = w->i; kind(w, &w->tk->t[j]) == TK_STR; j++) cap += w->tk->t[j].aux;
  uint8_t *b = malloc(cap);
  *n = 0;
  if (!b) return NULL;
  while (cur_kind(w) == TK_STR) {
    *n += tl_text_unescape(text(w, cur(w)), cur(w)->aux, b + *n);
    w->i++;
  }
  b[*n] = 0;
  return b;
}

/* The module at the cursor ("(module ...)") as binary bytes. Sets *text_err
 * when the text reader rejected it; *def and *name describe the form. */
static tl_status module_bytes(ws *w, uint8_t **bin, size_t *n, tl_error *err, bool *text_err,
                              bool *def, const tl_tok **name) {
  size_t open = w->i, end = cur(w)->aux;
  *text_err = false;
  *def = false;
  *name = NULL;
  w->i += 2;
  if (is_kw(w, "definition")) w->i++, *def = true;
  if (cur_kind(w) == TK_ID) *name = cur(w), w->i++;
  tl_status st;
  if (is_kw(w, "binary")) {
    w->i++;
    *bin = strings(w, n);
    st = *bin ? TL_OK : tl_nomem(err, "module");
  } else if (is_kw(w, "quote")) {
    w->i++;
    size_t qn;
    uint8_t *q = strings(w, &qn);
    tl_toks qt;
    size_t pos = 0;
    st = q ? tl_text_lex((const char *)q, qn, &qt, err) : tl_nomem(err, "module");
    if (!st) {
      st = tl_text_module(&qt, &pos, true, bin, n, err);
      tl_toks_free(&qt);
    }
    free(q);
    *text_err = st != TL_OK;
  } else {
    size_t pos = open;
    st = tl_text_module(w->tk, &pos, false, bin, n, err);
    *text_err = st != TL_OK;
  }
  w->i = end + 1;
  return st;
}

/* --print-check: the module is replaced by the one its text
 * (tl_module_print) reads back to with tilt's text reader, so every
 * command after it checks what the printed text means: the printer emits
 * the text syntax of every feature the reader takes. NULL (a failure
 * counted) when the text does not print or read back. */
static tl_module *through_text(ws *w, tl_module *m) {
  tl_read_options o = {.features = w->features};
  char *text = tl_module_print(m);
  tl_error err = {0};
  tl_module *back = text ? tl_module_parse_text(text, strlen(text), &o, &err) : NULL;
  if (!text) failf(w, "print check", "the module did not print");
  else if (!back)
    failf(w, "print check", "the printed text does not read back (line %u col %u: %s)", err.line, err.col, err.msg);
  else w->printed++;
  free(text);
  tl_module_free(m);
  return back;
}

/* -O<n>: the module is replaced by the one its optimized bytes read back
 * to (tl_module_optimize, tl_module_write, tl_module_read), so every
 * command after it checks the optimizer: the same results, traps and
 * exports. NULL (a failure counted) when a step fails. */
static tl_module *through_opt(ws *w, tl_module *m) {
  tl_read_options o = {.features = w->features};
  uint8_t *out = NULL;
  size_t n = 0;
  tl_error err = {0};
  tl_module *back = NULL;
  if (tl_module_optimize(m, (uint32_t)w->opt_level, 0, NULL, &err) == TL_OK &&
      tl_module_write(m, NULL, &out, &n, &err) == TL_OK)
    back = tl_module_read(out, n, &o, &err);
  if (!back) failf(w, "optimize check", "-O%d failed (func %u: %s)", w->opt_level, err.func_index, err.msg);
  else w->optimized++;
  free(out);
  tl_module_free(m);
  return back;
}

/* opt: -O<n> applies (not to modules expected to fail to link or
 * instantiate: the optimizer drops unused imports and may change what a
 * failing instantiation wrote first). */
static tl_module *load_opt(ws *w, const uint8_t *bin, size_t n, bool opt, tl_error *err) {
  tl_read_options o = {.features = w->features};
  tl_module *m = tl_module_read(bin, n, &o, err);
  if (m && opt && w->opt_level > 0 && !(m = through_opt(w, m))) {
    *err = (tl_error){.code = TL_E_INVALID};
    snprintf(err->msg, sizeof err->msg, "its optimized bytes do not read back");
    return NULL;
  }
  if (m && w->print_check && !(m = through_text(w, m))) {
    *err = (tl_error){.code = TL_E_INVALID};
    snprintf(err->msg, sizeof err->msg, "its printed text does not read back");
    return NULL;
  }
  if (m) {
    size_t n0 = w->mods.n;
    TL_VEC_PUSH(&w->mods, tl_module *, m);
    if (w->mods.n == n0) {
      tl_module_free(m);
      tl_nomem(err, "modules");
      return NULL;
    }
  }
  return m;
}

static tl_module *load(ws *w, const uint8_t *bin, size_t n, tl_error *err) {
  return load_opt(w, bin, n, true, err);
}

/* An id token's name (without '$'). */
static const char *id_name(const ws *w, const tl_tok *t, size_t *len) {
  uint32_t n;
  const char *s = tl_tok_name(w->tk, t, &n);
  *len = n;
  return s;
}

static char *dup_name(const ws *w, const tl_tok *t, size_t *len) {
  *len = 0;
  if (!t) return NULL;
  const char *name = id_name(w, t, len);
  char *s = malloc(*len + 1);
  if (s) memcpy(s, name, *len), s[*len] = 0;
  return s;
}

static void name_instance(ws *w, const tl_tok *id, tl_instance *inst) {
  w->cur = inst;
  w->cur_unsup = !inst;
  if (!id) return;
  named nm;
  nm.inst = inst;
  nm.name = dup_name(w, id, &nm.len);
  if (nm.name) TL_VEC_PUSH(&w->insts, named, nm);
}

static tl_instance *find_inst(ws *w, const tl_tok *id) {
  if (!id) return w->cur;
  size_t len;
  const char *s = id_name(w, id, &len);
  for (size_t k = w->insts.n; k-- > 0;) {
    named *nm = &TL_VEC_AT(&w->insts, named, k);
    if (nm->len == len && !memcmp(nm->name, s, len)) return nm->inst;
  }
  return NULL;
}

/* Is id (or the current module) one that was unsupported? */
static bool inst_unsupported(ws *w, const tl_tok *id) {
  if (!id) return w->cur_unsup;
  size_t len;
  const char *s = id_name(w, id, &len);
  for (size_t k = w->insts.n; k-- > 0;) {
    named *nm = &TL_VEC_AT(&w->insts, named, k);
    if (nm->len == len && !memcmp(nm->name, s, len)) return !nm->inst;
  }
  return false;
}

static void report_status(ws *w, const char *what, const tl_error *err) {
  if (err->code == TL_E_UNSUPPORTED) unsupported(w, what, err->msg);
  else failf(w, what, "%s", err->msg);
}

static void cmd_module(ws *w) {
  uint8_t *bin = NULL;
  size_t n = 0;
  tl_error err = {0};
  bool text_err, def;
  const tl_tok *name;
  tl_status st = module_bytes(w, &bin, &n, &err, &text_err, &def, &name);
  if (st) {
    w->cur = NULL;
    w->cur_unsup = st == TL_E_UNSUPPORTED;
    if (w->cur_unsup) name_instance(w, name, NULL);
    report_status(w, "module", &err);
    free(bin);
    return;
  }
  if (def) {
    moddef d = {NULL, 0, bin, n};
    d.name = dup_name(w, name, &d.len);
    TL_VEC_PUSH(&w->defs, moddef, d);
    /* a definition must still read and validate */
    if (!load(w, bin, n, &err)) report_status(w, "module definition", &err);
    else w->pass++;
    return;
  }
  tl_module *m = load(w, bin, n, &err);
  free(bin);
  tl_instance *inst = m ? tl_instantiate(w->s, m, w->l, &err) : NULL;
  if (!inst) {
    w->cur = NULL;
    w->cur_unsup = err.code == TL_E_UNSUPPORTED;
    if (w->cur_unsup) name_instance(w, name, NULL);
    report_status(w, "module", &err);
    return;
  }
  name_instance(w, name, inst);
  w->pass++;
}

/* (module instance $inst? $def?) */
static void cmd_instance(ws *w) {
  size_t end = cur(w)->aux;
  w->i += 3;
  const tl_tok *iname = cur_kind(w) == TK_ID ? cur(w) : NULL, *dname = NULL;
  if (iname) w->i++;
  if (cur_kind(w) == TK_ID) dname = cur(w);
  else dname = iname;
  w->i = end + 1;
  moddef *d = NULL;
  size_t dlen = 0;
  const char *ds = dname ? id_name(w, dname, &dlen) : NULL;
  for (size_t k = w->defs.n; k-- > 0 && !d;) {
    moddef *x = &TL_VEC_AT(&w->defs, moddef, k);
    if (!dname || (x->len == dlen && x->name && !memcmp(x->name, ds, x->len))) d = x;
  }
  tl_error err = {0};
  if (!d) {
    failf(w, "module instance", "no such module definition");
    return;
  }
  tl_module *m = load(w, d->bin, d->n, &err);
  tl_instance *inst = m ? tl_instantiate(w->s, m, w->l, &err) : NULL;
  if (!inst) {
    report_status(w, "module instance", &err);
    return;
  }
  name_instance(w, iname, inst);
  w->pass++;
}

/* ---------------------------------------------------------------- values */
static bool lane_shape(const ws *w, const tl_tok *t, int *lanes, int *wd, bool *fl) {
  static const struct { const char *n; int lanes, w; bool f; } sh[] = {
    {"i8x16", 16, 1, false}, {"i16x8", 8, 2, false}, {"i32x4", 4, 4, false},
    {"i64x2", 2, 8, false}, {"f32x4", 4, 4, true}, {"f64x2", 2, 8, true}};
  for (size_t k = 0; k < 6; k++)
    if (atom_is(w, t, sh[k].n)) {
      *lanes = sh[k].lanes, *wd = sh[k].w, *fl = sh[k].f;
      return true;
    }
  return false;
}

/* One scalar literal of w bytes (float if fl): bits, or a nan pattern. */
static bool scalar(const ws *w, const tl_tok *t, int wd, bool fl, uint64_t *bits, uint8_t *nan) {
  const char *s = text(w, t);
  *nan = E_BITS;
  if (kind(w, t) != TK_ATOM) return false;
  if (fl && atom_is(w, t, "nan:canonical")) return *nan = E_NAN_CANON, true;
  if (fl && atom_is(w, t, "nan:arithmetic")) return *nan = E_NAN_ARITH, true;
  if (fl) {
    if (wd == 4) {
      uint32_t v;
      if (!tl_text_f32(s, t->aux, &v)) return false;
      *bits = v;
      return true;
    }
    return tl_text_f64(s, t->aux, bits);
  }
  if (wd >= 4) return tl_text_int(s, t->aux, wd * 8, bits);
  bool neg = s[0] == '-', sign = neg || s[0] == '+';
  uint64_t v;
  if (!tl_text_u64(s + sign, t->aux - sign, &v)) return false;
  uint64_t lim = 1ull << (8 * wd);
  if (neg ? v > lim / 2 : v >= lim) return false;
  *bits = neg ? (uint64_t)0 - v : v;
  return true;
}

/* The nullable reference type of heap type name t (ref.null's). */
static uint32_t ref_type_of(const ws *w, const tl_tok *t) {
  for (uint32_t ht = 0; ht < TL_HT_NABSTRACT; ht++)
    if (atom_is(w, t, tl_heap_name(ht))) return tl_ref(ht, true);
  return 0;
}

/* A value or expected result "(op ...)" at the cursor; alts gets either's
 * alternatives. false on a form this runner does not read. */
static bool value(ws *w, expect *e, bool result, tl_vec *alts) {
  memset(e, 0, sizeof *e);
  if (cur_kind(w) != TK_LPAR) return false;
  size_t end = cur(w)->aux;
  const tl_tok *op = &w->tk->t[w->i + 1];
  w->i += 2;
  bool ok = true;
  static const struct { const char *n; uint32_t type; int w; bool f; } num[] = {
    {"i32.const", TL_VAL_I32, 4, false}, {"i64.const", TL_VAL_I64, 8, false},
    {"f32.const", TL_VAL_F32, 4, true}, {"f64.const", TL_VAL_F64, 8, true}};
  int k = -1;
  for (int j = 0; j < 4; j++)
    if (atom_is(w, op, num[j].n)) k = j;
  if (k >= 0) {
    uint8_t nan;
    e->type = num[k].type, e->w = (uint8_t)num[k].w;
    ok = scalar(w, cur(w), num[k].w, num[k].f, &e->bits, &nan) && (result || nan == E_BITS);
    e->kind = nan;
  } else if (atom_is(w, op, "v128.const")) {
    int lanes = 0, wd = 1;
    bool fl = false;
    e->type = TL_VAL_V128, e->kind = E_V128;
    ok = lane_shape(w, cur(w), &lanes, &wd, &fl);
    w->i++;
    e->w = (uint8_t)wd, e->fl = fl;
    for (int l = 0; ok && l < lanes; l++, w->i++) {
      uint64_t bits = 0;
      ok = scalar(w, cur(w), wd, fl, &bits, &e->lane[l]) && (result || e->lane[l] == E_BITS);
      memcpy(e->v + l * wd, &bits, (size_t)wd);
    }
  } else if (atom_is(w, op, "ref.null")) {
    e->kind = E_NULL;
    e->type = ref_type_of(w, cur(w));
  } else if (atom_is(w, op, "ref.extern") || atom_is(w, op, "ref.host")) {
    e->type = TL_VAL_EXTERNREF;
    e->kind = E_NONNULL;
    if (cur_kind(w) == TK_ATOM) {
      ok = tl_text_u64(text(w, cur(w)), cur(w)->aux, &e->bits);
      e->kind = E_EXTERN;
    }
  } else if (result && atom_is(w, op, "either")) {
    e->kind = E_EITHER;
    e->alt = (uint32_t)alts->n;
    while (ok && cur_kind(w) == TK_LPAR) {
      expect a;
      ok = value(w, &a, true, alts);
      if (ok) {
        TL_VEC_PUSH(alts, expect, a);
        e->nalt++;
      }
    }
  } else if (result && kind(w, op) == TK_ATOM && op->aux > 4 && !memcmp(text(w, op), "ref.", 4)) {
    e->kind = E_NONNULL; /* ref.func, ref.any, ref.eq, ...: any non-null reference */
    e->type = atom_is(w, op, "ref.func") ? TL_VAL_FUNCREF : 0;
    e->sub = atom_is(w, op, "ref.struct") ? 'S' : atom_is(w, op, "ref.array") ? 'A'
           : atom_is(w, op, "ref.i31") ? 'I' : atom_is(w, op, "ref.eq") ? 'E' : 0;
  } else {
    ok = false;
  }
  w->i = end + 1;
  return ok;
}

static void to_value(const expect *e, tl_value *v) {
  memset(v, 0, sizeof *v);
  v->type = e->type;
  if (e->type == TL_VAL_V128) memcpy(v->of.v128, e->v, 16);
  else if (tl_type_is_ref(e->type))
    v->of.ref = e->kind == E_EXTERN ? (void *)(uintptr_t)(e->bits + 1) : NULL;
  else if (e->w == 4) v->of.i32 = (int32_t)(uint32_t)e->bits;
  else v->of.i64 = (int64_t)e->bits;
}

static bool nan_ok(uint8_t kind, uint64_t got, int wd) {
  uint64_t expm = wd == 4 ? 0x7f800000u : 0x7ff0000000000000ull;
  uint64_t q = wd == 4 ? 0x00400000u : 0x0008000000000000ull;
  uint64_t mant = wd == 4 ? 0x007fffffu : 0x000fffffffffffffull;
  if ((got & expm) != expm || !(got & mant)) return false;
  return kind == E_NAN_CANON ? (got & mant) == q : (got & q) != 0;
}

/* A reference type whose values are in the any hierarchy's encoding
 * (runtime.h: host values carry TL_GC_HOST there). */
static bool any_space(uint32_t t) {
  if (!tl_type_is_ref(t) || t == TL_FUNCREF || t == TL_EXTERNREF || t == TL_EXNREF) return false;
  uint32_t ht = tl_ref_heap(t);
  return ht != TL_HT_FUNC && ht != TL_HT_NOFUNC && ht != TL_HT_EXTERN && ht != TL_HT_NOEXTERN &&
         ht != TL_HT_EXN && ht != TL_HT_NOEXN;
}

/* A non-null reference v of the kind sub stands for (expect.sub). */
static bool gc_kind_ok(char sub, uint64_t v) {
  const tl_gcobj *o = tl_gc_is_obj(v) ? (const tl_gcobj *)(uintptr_t)v : NULL;
  switch (sub) {
  case 'S': return o && o->rtt->kind == TL_DT_STRUCT;
  case 'A': return o && o->rtt->kind == TL_DT_ARRAY;
  case 'I': return (v & 1) && !(v & TL_GC_HOST);
  case 'E': return !(v & TL_GC_HOST);
  default: return true;
  }
}

static bool matches(const expect *e, const tl_value *g, const tl_vec *alts) {
  switch (e->kind) {
  case E_EITHER:
    for (uint32_t k = 0; k < e->nalt; k++)
      if (matches(&TL_VEC_AT(alts, expect, e->alt + k), g, alts)) return true;
    return false;
  case E_NULL: return tl_type_is_ref(g->type) && !g->of.ref;
  case E_NONNULL:
    if (!tl_type_is_ref(g->type) || !g->of.ref) return false;
    return gc_kind_ok(e->sub, (uint64_t)(uintptr_t)g->of.ref);
  case E_EXTERN:
    if (!tl_type_is_ref(g->type)) return false;
    return (uint64_t)(uintptr_t)g->of.ref == ((e->bits + 1) | (any_space(g->type) ? TL_GC_HOST : 0));
  case E_V128:
    if (g->type != TL_VAL_V128) return false;
    for (int l = 0; l < 16 / e->w; l++) {
      uint64_t a = 0, b = 0;
      memcpy(&a, g->of.v128 + l * e->w, e->w);
      memcpy(&b, e->v + l * e->w, e->w);
      if (e->lane[l] != E_BITS ? !nan_ok(e->lane[l], a, e->w) : a != b) return false;
    }
    return true;
  default: {
    if (g->type != e->type) return false;
    uint64_t got = e->w == 4 ? (uint32_t)g->of.i32 : (uint64_t)g->of.i64;
    if (e->kind != E_BITS) return nan_ok(e->kind, got, e->w);
    return got == e->bits;
  }
  }
}

/* ---------------------------------------------------------------- actions */
/* Reference arguments take the parameter's type (typed references, gc);
 * a host value passed to the any hierarchy is internalized (runtime.h). */
static void ref_args(tl_instance *inst, const char *name, size_t len, tl_value *args, uint32_t na) {
  tl_extern x;
  const uint32_t *p, *r;
  uint32_t np, nr;
  if (tl_instance_export_n(inst, name, len, &x) || x.kind != TL_EXTERNKIND_FUNC) return;
  tl_func_type_of(x, &p, &np, &r, &nr);
  for (uint32_t i = 0; i < na && i < np; i++) {
    bool is_ref = args[i].type == TL_VAL_FUNCREF || args[i].type == TL_VAL_EXTERNREF || !args[i].type;
    if (!is_ref || !tl_type_is_ref(p[i]) || args[i].type == p[i]) continue;
    args[i].type = p[i];
    if (any_space(p[i]) && args[i].of.ref) args[i].of.ref = (void *)(uintptr_t)((uintptr_t)args[i].of.ref | TL_GC_HOST);
  }
}

/* (invoke $id? "name" const*) / (get $id? "name") */
static tl_status action(ws *w, tl_value *res, uint32_t *nres, tl_error *err, char *fname, size_t fcap) {
  size_t end = cur(w)->aux;
  const tl_tok *op = &w->tk->t[w->i + 1];
  w->i += 2;
  *nres = 0;
  const tl_tok *id = cur_kind(w) == TK_ID ? cur(w) : NULL;
  if (id) w->i++;
  tl_instance *inst = find_inst(w, id);
  size_t flen = 0;
  uint8_t *field = cur_kind(w) == TK_STR ? strings(w, &flen) : NULL;
  snprintf(fname, fcap, "%.*s", (int)flen, field ? (char *)field : "");
  tl_status st = TL_OK;
  if (!inst && inst_unsupported(w, id)) {
    st = tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "its module is not supported");
  } else if (!inst || !field) {
    st = tl_errorf(err, TL_E_LINK, TL_NO_OFFSET, "no such module or field");
  } else if (atom_is(w, op, "get")) {
    tl_extern x;
    if (tl_instance_export_n(inst, (char *)field, flen, &x) || tl_global_get(x, res))
      st = tl_errorf(err, TL_E_LINK, TL_NO_OFFSET, "no global %s", fname);
    else *nres = 1;
  } else {
    tl_value args[64];
    tl_vec alts = {0};
    uint32_t na = 0;
    while (!st && cur_kind(w) == TK_LPAR && na < 64) {
      expect e;
      if (!value(w, &e, false, &alts)) st = tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "argument form");
      else to_value(&e, &args[na++]);
    }
    tl_vec_free(&alts);
    if (!st) ref_args(inst, (char *)field, flen, args, na);
    if (!st) st = tl_invoke_n(inst, (char *)field, flen, args, na, res, 64, nres, err);
  }
  free(field);
  w->i = end + 1;
  return st;
}

static bool msg_ok(const char *got, const char *want, size_t wn) {
  size_t a = strlen(got), n = a < wn ? a : wn;
  return !strncmp(got, want, n);
}

static void cmd_assert_return(ws *w) {
  tl_value res[64];
  uint32_t nres;
  tl_error err = {0};
  char fname[64];
  w->i += 2;
  tl_status st = action(w, res, &nres, &err, fname, sizeof fname);
  expect ex[64];
  tl_vec alts = {0};
  uint32_t ne = 0;
  bool ok = true;
  while (cur_kind(w) == TK_LPAR && ne < 64 && ok) ok = value(w, &ex[ne++], true, &alts);
  if (!ok) {
    unsupported(w, "assert_return", "result form");
  } else if (st) {
    report_status(w, "assert_return", &err);
  } else if (ne != nres) {
    failf(w, "assert_return", "%s: %u results, expected %u", fname, nres, ne);
  } else {
    uint32_t k = 0;
    while (k < ne && matches(&ex[k], &res[k], &alts)) k++;
    if (k < ne)
      failf(w, "assert_return", "%s: result %u is 0x%016" PRIx64 " (expected 0x%016" PRIx64 ")", fname, k,
            (uint64_t)res[k].of.i64, ex[k].bits);
    else w->pass++;
  }
  tl_vec_free(&alts);
}

/* Instantiates the module at the cursor, expecting failure code want. */
static void expect_instantiate_fail(ws *w, const char *what, tl_status want) {
  uint8_t *bin = NULL;
  size_t n = 0;
  tl_error err = {0};
  bool text_err, def;
  const tl_tok *name;
  tl_status st = module_bytes(w, &bin, &n, &err, &text_err, &def, &name);
  tl_module *m = st ? NULL : load_opt(w, bin, n, false, &err);
  free(bin);
  if (!m) {
    report_status(w, what, &err);
    return;
  }
  tl_instance *inst = tl_instantiate(w->s, m, w->l, &err);
  if (inst) failf(w, what, "instantiation succeeded");
  else if (err.code == TL_E_UNSUPPORTED) unsupported(w, what, err.msg);
  else if (err.code != want && !(want == TL_E_TRAP && err.code == TL_E_EXHAUSTED))
    failf(w, what, "failed with \"%s\"", err.msg);
  else w->pass++;
}

static void cmd_assert_trap(ws *w, const char *what, tl_status want) {
  w->i += 2;
  if (cur_kind(w) == TK_LPAR && atom_is(w, &w->tk->t[w->i + 1], "module")) {
    expect_instantiate_fail(w, what, TL_E_TRAP);
    return;
  }
  tl_value res[64];
  uint32_t nres;
  tl_error err = {0};
  char fname[64];
  tl_status st = action(w, res, &nres, &err, fname, sizeof fname);
  size_t mn = 0;
  uint8_t *msg = cur_kind(w) == TK_STR ? strings(w, &mn) : NULL;
  if (st == TL_E_UNSUPPORTED) unsupported(w, what, err.msg);
  else if (st != want)
    failf(w, what, "%s: got status %d (%s), expected \"%.*s\"", fname, st, st ? err.msg : "no trap", (int)mn,
          msg ? (char *)msg : "");
  else if (msg && want == TL_E_TRAP && !msg_ok(err.msg, (char *)msg, mn))
    failf(w, what, "%s: trapped with \"%s\", expected \"%.*s\"", fname, err.msg, (int)mn, (char *)msg);
  else w->pass++;
  free(msg);
}

static void cmd_assert_exception(ws *w) {
  tl_value res[64];
  uint32_t nres;
  tl_error err = {0};
  char fname[64];
  w->i += 2;
  tl_status st = action(w, res, &nres, &err, fname, sizeof fname);
  if (st == TL_E_UNSUPPORTED) unsupported(w, "assert_exception", err.msg);
  else if (st != TL_E_EXCEPTION)
    failf(w, "assert_exception", "%s: got status %d (%s)", fname, st, st ? err.msg : "returned");
  else w->pass++;
}

/* assert_invalid / assert_malformed: the module must be rejected; a
 * malformed text module by the text reader (or the bytes it made by the
 * binary reader, as malformed), an invalid one after the text was read. */
static void cmd_assert_bad(ws *w, bool malformed) {
  const char *what = malformed ? "assert_malformed" : "assert_invalid";
  w->i += 2;
  bool binary = false; /* the binary reader's malformed/invalid split is its own business */
  for (size_t j = w->i + 2; j < w->i + 5 && !binary; j++) binary = atom_is(w, &w->tk->t[j], "binary");
  uint8_t *bin = NULL;
  size_t n = 0;
  tl_error err = {0};
  bool text_err, def;
  const tl_tok *name;
  tl_status st = module_bytes(w, &bin, &n, &err, &text_err, &def, &name);
  tl_module *m = NULL;
  if (!st) {
    tl_read_options o = {.features = w->features};
    m = tl_module_read(bin, n, &o, &err);
    st = m ? TL_OK : err.code;
  }
  free(bin);
  if (m) tl_module_free(m);
  if (!st) failf(w, what, "module was accepted");
  else if (st == TL_E_UNSUPPORTED) unsupported(w, what, err.msg);
  else if (!malformed && text_err) failf(w, what, "text reader rejected it: %s", err.msg);
  else if (malformed && !text_err && st != TL_E_MALFORMED && !binary)
    failf(w, what, "rejected as invalid: %s", err.msg);
  else w->pass++;
}

static void command(ws *w) {
  const tl_tok *open = cur(w);
  size_t end = open->aux;
  const tl_tok *kw = &w->tk->t[w->i + 1];
  w->line = line_of(w, open->off);
  if (atom_is(w, kw, "module")) {
    if (atom_is(w, &w->tk->t[w->i + 2], "instance")) cmd_instance(w);
    else cmd_module(w);
  } else if (atom_is(w, kw, "register")) {
    w->i += 2;
    size_t n;
    uint8_t *as = strings(w, &n);
    const tl_tok *id = cur_kind(w) == TK_ID ? cur(w) : NULL;
    tl_instance *inst = find_inst(w, id);
    if (!inst && inst_unsupported(w, id)) unsupported(w, "register", "its module is not supported");
    else if (!inst || !as) failf(w, "register", "no module");
    else tl_linker_define_instance(w->l, (char *)as, inst);
    free(as);
  } else if (atom_is(w, kw, "invoke") || atom_is(w, kw, "get")) {
    tl_value res[64];
    uint32_t nres;
    tl_error err = {0};
    char fname[64];
    if (action(w, res, &nres, &err, fname, sizeof fname)) report_status(w, "action", &err);
    else w->pass++;
  } else if (atom_is(w, kw, "assert_return")) {
    cmd_assert_return(w);
  } else if (atom_is(w, kw, "assert_trap")) {
    cmd_assert_trap(w, "assert_trap", TL_E_TRAP);
  } else if (atom_is(w, kw, "assert_exhaustion")) {
    cmd_assert_trap(w, "assert_exhaustion", TL_E_EXHAUSTED);
  } else if (atom_is(w, kw, "assert_exception")) {
    cmd_assert_exception(w);
  } else if (atom_is(w, kw, "assert_invalid") || atom_is(w, kw, "assert_malformed")) {
    cmd_assert_bad(w, atom_is(w, kw, "assert_malformed"));
  } else if (atom_is(w, kw, "assert_unlinkable")) {
    w->i += 2;
    expect_instantiate_fail(w, "assert_unlinkable", TL_E_LINK);
  } else if (atom_is(w, kw, "assert_uninstantiable")) {
    w->i += 2;
    expect_instantiate_fail(w, "assert_uninstantiable", TL_E_TRAP);
  } else {
    w->skip++; /* thread, wait, input, output, *_custom */
  }
  w->i = end + 1;
}

static void run_file(ws *w, const char *path) {
  uint8_t *src;
  size_t n;
  if (cli_read_file(path, &src, &n)) {
    failf(w, "read", "cannot read %s", path);
    return;
  }
  tl_toks tk;
  tl_error err = {0};
  if (tl_text_lex((const char *)src, n, &tk, &err)) {
    w->line = err.line;
    failf(w, "script", "%u:%u: %s", err.line, err.col, err.msg);
    free(src);
    return;
  }
  w->tk = &tk;
  w->line_off = 0, w->line_at = 1;
  w->s = tl_store_new();
  tl_store_set_engine(w->s, w->engine);
  tl_store_set_relaxed(w->s, w->relaxed);
  w->l = tl_linker_new();
  tl_spectest_define(w->l, w->s, false);
  while (cur_kind(w) == TK_LPAR) command(w);
  if (cur_kind(w) != TK_EOF) failf(w, "script", "unexpected token");
  tl_linker_free(w->l);
  tl_store_free(w->s);
  for (size_t k = 0; k < w->mods.n; k++) tl_module_free(TL_VEC_AT(&w->mods, tl_module *, k));
  for (size_t k = 0; k < w->insts.n; k++) free(TL_VEC_AT(&w->insts, named, k).name);
  for (size_t k = 0; k < w->defs.n; k++) {
    free(TL_VEC_AT(&w->defs, moddef, k).name);
    free(TL_VEC_AT(&w->defs, moddef, k).bin);
  }
  tl_vec_free(&w->mods);
  tl_vec_free(&w->insts);
  tl_vec_free(&w->defs);
  tl_toks_free(&tk);
  free(src);
}

/* The reason after the file's base name on the skip list, or NULL. */
static char *skip_reason(const char *list, const char *base) {
  FILE *f = list ? fopen(list, "r") : NULL;
  char line[1024], *found = NULL;
  while (f && !found && fgets(line, sizeof line, f)) {
    char word[1024];
    if (line[0] == '#' || sscanf(line, "%1023s", word) != 1 || strcmp(word, base)) continue;
    char *h = strchr(line, '#');
    found = strdup(h ? h + 1 : "");
    if (found) found[strcspn(found, "\n")] = 0;
  }
  if (f) fclose(f);
  return found;
}

int tl_wast_main(int argc, char **argv) {
  ws w0 = {.engine = TL_ENGINE_JIT, .features = TL_FEATURES_ALL, .max_shown = 5};
  const char *skip = NULL;
  unsigned tp = 0, tf = 0, tu = 0, bad = 0, nfiles = 0, nprinted = 0, nopt = 0;
  const char *env = getenv("TILT_ENGINE");
  if (env && !strcmp(env, "interp")) w0.engine = TL_ENGINE_INTERP;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--wast")) continue;
    if (!strcmp(a, "--interp")) { w0.engine = TL_ENGINE_INTERP; continue; }
    if (!strcmp(a, "--jit")) { w0.engine = TL_ENGINE_JIT; continue; }
    if (!strcmp(a, "--relaxed-native")) { w0.relaxed = TL_RELAXED_NATIVE; continue; }
    if (!strcmp(a, "-v")) { w0.verbose = true; continue; }
    if (!strcmp(a, "--print-check")) { w0.print_check = true; continue; }
    if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '4' && !a[3]) { w0.opt_level = a[2] - '0'; continue; }
    if (!strcmp(a, "--skip-list") && i + 1 < argc) { skip = argv[++i]; continue; }
    if (!strcmp(a, "--max-failures") && i + 1 < argc) { w0.max_shown = (unsigned)atoi(argv[++i]); continue; }
    if (!strcmp(a, "--no-feature") && i + 1 < argc) { w0.features &= ~tl_feature_from_name(argv[++i]); continue; }
    const char *base = strrchr(a, '/');
    base = base ? base + 1 : a;
    char *why = skip_reason(skip, base);
    ws w = w0;
    w.file = a;
    w.quiet = why && !w.verbose;
    run_file(&w, a);
    printf("%s: %u passed, %u failed", a, w.pass, w.fail);
    if (w.unsup) printf(", %u unsupported", w.unsup);
    if (w.skip) printf(", %u skipped commands", w.skip);
    if (why) printf(" [skip list:%s]", why);
    putchar('\n');
    fflush(stdout);
    tp += w.pass, tf += w.fail, tu += w.unsup, nfiles++, nprinted += w.printed, nopt += w.optimized;
    if (w.fail && !why) bad++;
    free(why);
  }
  if (w0.print_check) printf("print check: %u modules read back from their printed text\n", nprinted);
  if (w0.opt_level) printf("optimize check: %u modules optimized at -O%d and read back\n", nopt, w0.opt_level);
  printf("total: %u files, %u passed, %u failed, %u unsupported; %u files with unexpected failures\n", nfiles,
         tp, tf, tu, bad);
  return bad ? 1 : 0;
}
