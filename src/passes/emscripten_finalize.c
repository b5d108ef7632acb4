/* emscripten_finalize.c — what Binaryen 108's wasm-emscripten-finalize does
 * to a module emcc 3.1.x linked, and the metadata JSON it prints, which
 * emcc parses (emscripten.py load_metadata_json; the keys are specified by
 * tools/extract_metadata.py): tl_module_emscripten_finalize.
 *  1. The export __main_argc_argv becomes main (not standalone).
 *  2. stack-check (calling env.__handle_stack_overflow unless standalone),
 *     generate-dyncalls or generate-i64-dyncalls (not standalone, unless no
 *     dynCalls), then legalize-js-interface(-minimally) unless BigInt; DWARF
 *     sections are dropped unless kept.
 *  3. EM_ASM strings between the exported globals __start_em_asm and
 *     __stop_em_asm, and EM_JS strings of the __em_js__NAME exports, are
 *     read from the data segments; their exports (and EM_JS globals or
 *     functions) are removed, and the bytes zeroed or the segment emptied
 *     (its memory.init becomes drops, data.drop a nop).
 *  4. The JSON: asmConsts, emJsFuncs, declares, globalImports, exports,
 *     namedGlobals, invokeFuncs, mainReadsParams, features — byte for byte
 *     Binaryen 108's key order, spacing and string escaping.
 * tl_module_separate_data writes the data segments as one memory image
 * from a base address and removes them (--separate-data-segments). */
#include "passes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN_OFFSET 0xffffffffull

typedef struct {
  tl_module *m;
  tl_error *err;
  const tl_emscripten_options *o;
  uint64_t *seg_at;        /* per data segment: its address, or UNKNOWN_OFFSET */
} fin;

/* ---- segment addresses --------------------------------------------------- */
static bool const_value(const tl_expr *e, uint64_t *out) {
  if (e->op == TL_OP_I32_CONST) return *out = (uint64_t)(int64_t)e->imm.i32, true;
  if (e->op == TL_OP_I64_CONST) return *out = (uint64_t)e->imm.i64, true;
  return false;
}

typedef struct { fin *f; bool twice; } init_scan;

/* memory.init's destination: a constant, or (i32.add CONST x) in PIC code. */
static void note_init(tl_walk *w, tl_expr **slot) {
  init_scan *s = w->ctx;
  tl_expr *e = *slot, *d;
  uint64_t v;
  if (e->op != TL_OP_MEMORY_INIT) return;
  d = e->kid[0];
  if (d->op == TL_OP_I32_ADD || d->op == TL_OP_I64_ADD) d = d->kid[0];
  if (!const_value(d, &v) || e->imm.idx2.a >= s->f->m->datas.n) return;
  uint64_t *at = &s->f->seg_at[e->imm.idx2.a];
  if (*at != UNKNOWN_OFFSET) s->twice = true;
  *at = v;
}

/* Active segments: their constant offset (0 when not constant, as
 * Binaryen); passive ones: the destination of their memory.init. */
static tl_status segment_addresses(fin *f) {
  tl_module *m = f->m;
  f->seg_at = tl_scratch_calloc(m->datas.n + 1, sizeof *f->seg_at);
  if (!f->seg_at) return tl_nomem(f->err, "emscripten-finalize");
  for (size_t i = 0; i < m->datas.n; i++) f->seg_at[i] = UNKNOWN_OFFSET;
  init_scan s = {f, false};
  if ((f->o->features & TL_FEAT_BULK_MEMORY) && !f->o->no_bodies)
    for (uint32_t i = m->nimported_funcs; i < m->funcs.n; i++)
      tl_walk_post_only(m, TL_FUNC(m, i), &TL_FUNC(m, i)->body, note_init, &s, TL_F_WRITES_MEM);
  if (s.twice)
    return tl_errorf(f->err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                     "cannot get the offset of a passive segment initialized more than once");
  for (size_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    uint64_t v;
    if (d->mode == TL_SEG_ACTIVE) f->seg_at[i] = const_value(d->offset, &v) ? v : 0;
  }
  return TL_OK;
}

/* The NUL-terminated string at addr (cut at its segment's end): its bytes
 * and length; false (error set) when no segment holds addr. */
static bool string_at(fin *f, uint64_t addr, const char **out, size_t *len) {
  tl_module *m = f->m;
  for (size_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    uint64_t at = f->seg_at[i];
    if (at == UNKNOWN_OFFSET || addr < at || addr >= at + d->size) continue;
    const char *p = (const char *)d->bytes + (addr - at);
    *out = p;
    *len = strnlen(p, (size_t)(at + d->size - addr));
    return true;
  }
  tl_errorf(f->err, TL_E_INVALID, TL_NO_OFFSET, "unable to find data for ASM/EM_JS const at: %" PRIu64,
            addr);
  return false;
}

typedef struct { tl_module *m; uint32_t seg; } seg_ctx;

static void drop_seg_uses(tl_walk *w, tl_expr **slot) {
  seg_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_DATA_DROP && e->imm.index == c->seg) {
    *slot = tl_make_nop(c->m);
  } else if (e->op == TL_OP_MEMORY_INIT && e->imm.idx2.a == c->seg) {
    tl_expr *kids[3] = {tl_make_drop(c->m, e->kid[0]), tl_make_drop(c->m, e->kid[1]),
                        tl_make_drop(c->m, e->kid[2])};
    *slot = tl_make_block(c->m, TL_OP_BLOCK, TL_NO_LABEL, kids, 3);
  }
}

/* Segment i becomes empty (kept, so no index moves); its uses go. */
static void empty_segment(fin *f, uint32_t i) {
  tl_module *m = f->m;
  seg_ctx c = {m, i};
  for (uint32_t k = m->nimported_funcs; k < m->funcs.n; k++)
    tl_walk_post_only(m, TL_FUNC(m, k), &TL_FUNC(m, k)->body, drop_seg_uses, &c, TL_F_WRITES_MEM);
  TL_DATA(m, i)->size = 0;
}

static bool global_export_address(fin *f, int32_t ei, uint64_t *out) {
  tl_export *e = TL_EXPORT(f->m, ei);
  if (e->kind == TL_EXTERN_GLOBAL && TL_GLOBAL(f->m, e->index)->init &&
      const_value(TL_GLOBAL(f->m, e->index)->init, out))
    return true;
  tl_errorf(f->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "export %s is not a global with a constant value",
            e->name);
  return false;
}

/* Binaryen's escaping: \n and \t (backslash, letter) get a second
 * backslash; a quote gets one, or two more after a backslash. */
static void put_escaped(tl_buf *b, const char *s, size_t n) {
  tl_buf t = {0};
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 1 < n && (s[i + 1] == 'n' || s[i + 1] == 't')) {
      tl_buf_put(&t, "\\\\", 2);
      tl_buf_byte(&t, (uint8_t)s[++i]);
    } else {
      tl_buf_byte(&t, (uint8_t)s[i]);
    }
  }
  for (size_t i = 0; i < t.n; i++) {
    if (t.p[i] == '"') tl_buf_put(b, i && t.p[i - 1] == '\\' ? "\\\\\"" : "\\\"", i && t.p[i - 1] == '\\' ? 3 : 2);
    else tl_buf_byte(b, t.p[i]);
  }
  tl_buf_free(&t);
}

/* ",\n    " before every element but the first. */
static void next_elem(tl_buf *b, bool *first) {
  tl_buf_put(b, *first ? "\n    " : ",\n    ", *first ? 5 : 6);
  *first = false;
}

static void put_name(tl_buf *b, const char *s, uint32_t len) {
  tl_buf_byte(b, '"');
  tl_buf_put(b, s, tl_name_len(s, len));
  tl_buf_byte(b, '"');
}

static tl_status asm_consts(fin *f, tl_buf *b) {
  tl_module *m = f->m;
  int32_t si = tl_module_find_export(m, "__start_em_asm"), ei = tl_module_find_export(m, "__stop_em_asm");
  if (si < 0 && ei < 0) return TL_OK;
  if (si < 0 || ei < 0)
    return tl_errorf(f->err, TL_E_INVALID, TL_NO_OFFSET, "found only one of __start_em_asm and __stop_em_asm");
  uint64_t start, end;
  if (!global_export_address(f, si, &start) || !global_export_address(f, ei, &end)) return f->err->code;
  bool found = false, first = true;
  for (uint32_t i = 0; i < m->datas.n && !found; i++) {
    tl_data *d = TL_DATA(m, i);
    uint64_t at = f->seg_at[i];
    if (!(at <= start && at + d->size >= end)) continue;
    found = true;
    for (uint64_t a = start; a < end;) {
      const char *s;
      size_t n;
      if (!string_at(f, a, &s, &n)) return f->err->code;
      if (first) tl_buf_printf(b, "  \"asmConsts\": {");
      next_elem(b, &first);
      tl_buf_printf(b, "\"%" PRIu64 "\": \"", a);
      put_escaped(b, s, n);
      tl_buf_byte(b, '"');
      a += n + 1;
    }
    if (at == start && at + d->size == end) {
      empty_segment(f, i);
    } else {
      uint8_t *copy = tl_arena_alloc(&m->arena, d->size + 1, 1);
      memcpy(copy, d->bytes, d->size);
      memset(copy + (start - at), 0, end - start);
      d->bytes = copy;
    }
  }
  if (first) return tl_errorf(f->err, TL_E_INVALID, TL_NO_OFFSET, "no EM_ASM strings between __start_em_asm and __stop_em_asm");
  tl_buf_printf(b, "\n  },\n");
  tl_module_remove_export(m, (uint32_t)tl_module_find_export(m, "__start_em_asm"));
  tl_module_remove_export(m, (uint32_t)tl_module_find_export(m, "__stop_em_asm"));
  return TL_OK;
}

/* ---- EM_JS ------------------------------------------------------------- */
typedef struct {
  const char *name, *code;   /* name without the prefix */
  uint32_t name_len, seq;
  size_t code_len;
} em_js;

static int by_name(const void *a, const void *b) {
  const em_js *x = a, *y = b;
  uint32_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
  int c = memcmp(x->name, y->name, n);
  if (c) return c;
  if (x->name_len != y->name_len) return x->name_len < y->name_len ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static bool same_name(const em_js *x, const em_js *y) {
  return tl_name_eq(x->name, x->name_len, y->name, y->name_len);
}

typedef struct { uint32_t n; const tl_expr *last; } const_count;

static void count_const(tl_walk *w, tl_expr **slot) {
  const_count *c = w->ctx;
  int op = (*slot)->op;
  if (op == TL_OP_I32_CONST || op == TL_OP_I64_CONST || op == TL_OP_F32_CONST || op == TL_OP_F64_CONST ||
      op == TL_OP_V128_CONST)
    c->n++, c->last = *slot;
}

/* The address an __em_js__ export names: a global's value, or the one
 * constant of a function's body. */
static bool em_js_address(fin *f, tl_export *e, uint64_t *addr) {
  tl_module *m = f->m;
  if (e->kind == TL_EXTERN_GLOBAL) return global_export_address(f, (int32_t)(e - TL_EXPORT(m, 0)), addr);
  const_count c = {0, NULL};
  tl_func *fn = TL_FUNC(m, e->index);
  if (fn->body && !f->o->no_bodies) tl_walk_post(m, fn, &fn->body, count_const, &c);
  if (c.n != 1 || !const_value(c.last, addr)) {
    tl_errorf(f->err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "Unexpected generated __em_js__ function body: %s",
              e->name);
    return false;
  }
  return true;
}

typedef struct {
  tl_vec funcs;              /* em_js, in export order, then sorted */
  tl_vec addrs;              /* uint64_t pairs: address, length + 1 */
} em_js_set;

/* Collects the EM_JS strings, removes their exports, globals, functions. */
static tl_status collect_em_js(fin *f, em_js_set *s) {
  tl_module *m = f->m;
  uint8_t *dropf = tl_scratch_calloc(m->funcs.n + 1, 1), *dropg = tl_scratch_calloc(m->globals.n + 1, 1);
  if (!dropf || !dropg) return tl_free(dropf), tl_free(dropg), tl_nomem(f->err, "emscripten-finalize");
  for (size_t i = 0; i < m->exports.n; i++) {
    tl_export *e = TL_EXPORT(m, i);
    uint32_t len = tl_name_len(e->name, e->name_len);
    uint64_t addr;
    const char *code;
    size_t n;
    if (len < 9 || memcmp(e->name, "__em_js__", 9)) continue;
    if (e->kind != TL_EXTERN_GLOBAL && e->kind != TL_EXTERN_FUNC) continue;
    if (!em_js_address(f, e, &addr) || !string_at(f, addr, &code, &n))
      return tl_free(dropf), tl_free(dropg), f->err->code;
    em_js j = {e->name + 9, code, len - 9, (uint32_t)s->funcs.n, n};
    TL_VEC_PUSH(&s->funcs, em_js, j);
    TL_VEC_PUSH(&s->addrs, uint64_t, addr);
    TL_VEC_PUSH(&s->addrs, uint64_t, n + 1);
    (e->kind == TL_EXTERN_FUNC ? dropf : dropg)[e->index] = 1;
    tl_module_remove_export(m, (uint32_t)i--);
  }
  bool ok = tl_module_remove_funcs(m, dropf) && tl_module_remove_globals(m, dropg);
  tl_free(dropf);
  tl_free(dropg);
  if (!ok) return tl_nomem(f->err, "emscripten-finalize");
  /* std::map order: by name, the last of equal names winning */
  if (s->funcs.n) qsort(s->funcs.p, s->funcs.n, sizeof(em_js), by_name);
  return TL_OK;
}

static uint64_t em_js_len_at(const em_js_set *s, uint64_t addr) {
  const uint64_t *a = s->addrs.p;
  for (size_t i = 0; i < s->addrs.n; i += 2)
    if (a[i] == addr) return a[i + 1];
  return 0;
}

/* Segments made of EM_JS strings only are emptied. */
static void drop_em_js_segments(fin *f, const em_js_set *s) {
  tl_module *m = f->m;
  for (uint32_t i = 0; i < m->datas.n; i++) {
    uint64_t start = f->seg_at[i], end = start + TL_DATA(m, i)->size, cur = start, len;
    while (cur < end && (len = em_js_len_at(s, cur))) cur += len;
    if (cur == end) empty_segment(f, i);
  }
}

static bool em_js_named(const em_js_set *s, const char *name, uint32_t len) {
  const em_js *v = s->funcs.p;
  for (size_t i = 0; i < s->funcs.n; i++)
    if (tl_name_eq(v[i].name, v[i].name_len, name, len)) return true;
  return false;
}

static void print_em_js(const em_js_set *s, tl_buf *b) {
  const em_js *v = s->funcs.p;
  if (!s->funcs.n) return;
  tl_buf_printf(b, "  \"emJsFuncs\": {");
  bool first = true;
  for (size_t i = 0; i < s->funcs.n; i++) {
    if (i + 1 < s->funcs.n && same_name(&v[i], &v[i + 1])) continue; /* a later one wins */
    next_elem(b, &first);
    put_name(b, v[i].name, v[i].name_len);
    tl_buf_put(b, ": \"", 3);
    put_escaped(b, v[i].code, v[i].code_len);
    tl_buf_byte(b, '"');
  }
  tl_buf_printf(b, "\n  },\n");
}

/* ---- the rest of the metadata -------------------------------------------- */
static bool starts(const char *s, uint32_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && !memcmp(s, prefix, n);
}

/* Whether a name was listed already (the lists are short: linear). */
static bool seen(tl_vec *names, const char *s, uint32_t len) {
  for (size_t i = 0; i < names->n; i++) {
    const tl_importname *n = &TL_VEC_AT(names, tl_importname, i);
    if (tl_name_eq(n->name, n->name_len, s, len)) return true;
  }
  tl_importname n = {NULL, s, 0, len};
  TL_VEC_PUSH(names, tl_importname, n);
  return false;
}

static void print_imports(fin *f, const em_js_set *js, tl_buf *b, bool invokes) {
  tl_module *m = f->m;
  tl_vec names = {0};
  bool first = true;
  tl_buf_printf(b, invokes ? "  \"invokeFuncs\": [" : "  \"declares\": [");
  for (uint32_t i = 0; i < m->nimported_funcs; i++) {
    const tl_importname *n = &TL_FUNC(m, i)->imp;
    uint32_t len = tl_name_len(n->name, n->name_len);
    bool invoke = starts(n->name, len, "invoke_");
    if (invokes ? !invoke || !tl_name_eq(n->module, n->module_len, "env", 3)
                : invoke || em_js_named(js, n->name, len))
      continue;
    if (seen(&names, n->name, len)) continue;
    next_elem(b, &first);
    put_name(b, n->name, len);
  }
  tl_buf_printf(b, "\n  ],\n");
  tl_vec_free(&names);
}

static void print_global_imports(tl_module *m, tl_buf *b) {
  bool first = true;
  tl_buf_printf(b, "  \"globalImports\": [");
  for (uint32_t i = 0; i < m->nimported_globals; i++) {
    next_elem(b, &first);
    put_name(b, TL_GLOBAL(m, i)->imp.name, TL_GLOBAL(m, i)->imp.name_len);
  }
  tl_buf_printf(b, "\n  ],\n");
}

static tl_status print_exports(fin *f, tl_buf *b) {
  tl_module *m = f->m;
  if (!m->exports.n) return TL_OK;
  bool first = true;
  tl_buf_printf(b, "  \"exports\": [");
  for (size_t i = 0; i < m->exports.n; i++) {
    tl_export *e = TL_EXPORT(m, i);
    if (e->kind != TL_EXTERN_FUNC) continue;
    next_elem(b, &first);
    put_name(b, e->name, e->name_len);
  }
  tl_buf_printf(b, "\n  ],\n  \"namedGlobals\": {");
  first = true;
  for (size_t i = 0; i < m->exports.n; i++) {
    tl_export *e = TL_EXPORT(m, i);
    uint64_t v;
    if (e->kind != TL_EXTERN_GLOBAL) continue;
    if (!global_export_address(f, (int32_t)i, &v)) return f->err->code;
    next_elem(b, &first);
    put_name(b, e->name, e->name_len);
    tl_buf_printf(b, " : \"%" PRIu64 "\"", v);
  }
  tl_buf_printf(b, "\n  },\n");
  return TL_OK;
}

/* main reads its params unless it is only a call of __original_main
 * without arguments (Binaryen sees no body when it reads none). */
static void print_main(fin *f, tl_buf *b) {
  tl_module *m = f->m;
  if (f->o->standalone) return;
  int32_t ei = tl_module_find_export(m, "main");
  if (ei < 0) ei = tl_module_find_export(m, "__main_argc_argv");
  bool reads = false;
  if (ei >= 0 && TL_EXPORT(m, ei)->kind == TL_EXTERN_FUNC) {
    tl_func *fn = TL_FUNC(m, TL_EXPORT(m, ei)->index);
    tl_expr *body = fn->body;
    reads = f->o->no_bodies || !body || body->nkid != 1 || body->kid[0]->op != TL_OP_CALL ||
            body->kid[0]->nkid != 0;
  }
  tl_buf_printf(b, "  \"mainReadsParams\": %d,\n", reads);
}

/* Binaryen 108's feature order. */
static const tl_features feature_order[] = {
  TL_FEAT_THREADS, TL_FEAT_MUTABLE_GLOBALS, TL_FEAT_NONTRAPPING_FPTOINT, TL_FEAT_SIMD,
  TL_FEAT_BULK_MEMORY, TL_FEAT_SIGN_EXT, TL_FEAT_EXCEPTION_HANDLING, TL_FEAT_TAIL_CALL,
  TL_FEAT_REFERENCE_TYPES, TL_FEAT_MULTIVALUE, TL_FEAT_EXTENDED_CONST,
};

static void print_features(fin *f, tl_buf *b) {
  bool first = true;
  tl_buf_printf(b, "  \"features\": [");
  for (size_t i = 0; i < sizeof feature_order / sizeof feature_order[0]; i++) {
    if (!(f->o->features & feature_order[i])) continue;
    next_elem(b, &first);
    tl_buf_printf(b, "\"--enable-%s\"", tl_feature_name(feature_order[i]));
  }
  tl_buf_printf(b, "\n  ]\n}\n");
}

static tl_status metadata(fin *f, tl_buf *b) {
  em_js_set js = {{0}, {0}};
  tl_buf_printf(b, "{\n");
  tl_status s = segment_addresses(f);
  if (s == TL_OK) s = asm_consts(f, b);
  if (s == TL_OK) s = collect_em_js(f, &js);
  if (s == TL_OK) {
    drop_em_js_segments(f, &js);
    print_em_js(&js, b);
    print_imports(f, &js, b, false);
    print_global_imports(f->m, b);
    s = print_exports(f, b);
  }
  if (s == TL_OK) {
    print_imports(f, &js, b, true);
    print_main(f, b);
    print_features(f, b);
  }
  tl_vec_free(&js.funcs);
  tl_vec_free(&js.addrs);
  tl_free(f->seg_at);
  return s;
}

/* ---- the module changes ---------------------------------------------------- */
static void rename_main(tl_module *m) {
  int32_t ei = tl_module_find_export(m, "__main_argc_argv");
  if (ei < 0) return;
  TL_EXPORT(m, ei)->name = "main";
  TL_EXPORT(m, ei)->name_len = 4;
  uint32_t fi = tl_module_find_func_named(m, "__main_argc_argv");
  if (fi != TL_NO_INDEX) TL_FUNC(m, fi)->name = "main";
}

static void strip_dwarf(tl_module *m) {
  size_t n = 0;
  for (size_t i = 0; i < m->customs.n; i++) {
    tl_custom *c = &TL_VEC_AT(&m->customs, tl_custom, i);
    if (strncmp(c->name, ".debug_", 7)) TL_VEC_AT(&m->customs, tl_custom, n++) = *c;
  }
  m->customs.n = n;
}

static tl_status run_passes(tl_module *m, const tl_emscripten_options *o, const tl_pass_options *popt,
                            tl_error *err) {
  const char *names[3];
  uint32_t n = 0;
  if (o->check_stack_overflow) names[n++] = "stack-check";
  if (!o->no_dyncalls && !o->standalone) names[n++] = o->dyncalls_i64 ? "generate-i64-dyncalls" : "generate-dyncalls";
  if (!o->bigint) names[n++] = o->minimal_legalize ? "legalize-js-interface-minimally" : "legalize-js-interface";
  tl_pass_options p = popt ? *popt : (tl_pass_options){0};
  const char *keys[2], *values[2];
  p.nargs = 0;
  if (o->export_originals)
    keys[p.nargs] = "legalize-js-interface-export-originals", values[p.nargs++] = "1";
  if (o->check_stack_overflow && !o->standalone)
    keys[p.nargs] = "stack-check-handler", values[p.nargs++] = "__handle_stack_overflow";
  p.arg_keys = keys, p.arg_values = values;
  return n ? tl_module_run_passes(m, names, n, &p, err) : TL_OK;
}

static tl_status finalize_impl(tl_module *m, const tl_emscripten_options *o,
                                        const tl_pass_options *popt, char **meta, tl_error *err) {
  if (meta) *meta = NULL;
  if (!o->standalone) rename_main(m);
  tl_status s = run_passes(m, o, popt, err);
  if (s != TL_OK) return s;
  if (!o->keep_dwarf) strip_dwarf(m);
  if (!meta) return TL_OK;
  fin f = {m, err, o, NULL};
  tl_buf b = {0};
  s = metadata(&f, &b);
  if (s == TL_OK) {
    tl_buf_byte(&b, 0);
    *meta = (char *)b.p;
  } else {
    tl_buf_free(&b);
  }
  return s;
}

typedef struct {
  tl_module *m;
  const tl_emscripten_options *o;
  const tl_pass_options *popt;
  char **meta;
} finalize_call;

static tl_status finalize_in_scope(void *c, tl_error *err) {
  finalize_call *p = c;
  return finalize_impl(p->m, p->o, p->popt, p->meta, err);
}

tl_status tl_module_emscripten_finalize(tl_module *m, const tl_emscripten_options *o,
                                        const tl_pass_options *popt, char **meta, tl_error *err) {
  finalize_call p = {m, o, popt, meta};
  tl_status s = tl_oom_run(m, finalize_in_scope, &p, err, "finalize");
  if (s != TL_OK && meta) *meta = NULL;
  return s;
}

static tl_status separate_data_impl(tl_module *m, uint64_t base, uint8_t **out, size_t *size, tl_error *err) {
  tl_buf b = {0};
  uint64_t end = 0, at;
  *out = NULL, *size = 0;
  for (size_t i = 0; i < m->datas.n; i++) {
    tl_data *d = TL_DATA(m, i);
    if (d->mode != TL_SEG_ACTIVE) return tl_buf_free(&b), tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "separating passive segments not implemented");
    if (!const_value(d->offset, &at)) return tl_buf_free(&b), tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "separating relocatable segments not implemented");
    if (at < base || at - base < end)
      return tl_buf_free(&b), tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET,
                                        "data segment %zu at %" PRIu64 " is below the global base or overlaps the one before", i, at);
    for (uint64_t k = end; k < at - base; k++) tl_buf_byte(&b, 0);
    tl_buf_put(&b, d->bytes, d->size);
    end = at - base + d->size;
  }
  m->datas.n = 0;
  *out = b.p ? b.p : tl_malloc(1);
  *size = b.n;
  return TL_OK;
}

typedef struct {
  tl_module *m;
  uint64_t base;
  uint8_t **out;
  size_t *size;
} separate_call;

static tl_status separate_in_scope(void *c, tl_error *err) {
  separate_call *p = c;
  return separate_data_impl(p->m, p->base, p->out, p->size, err);
}

tl_status tl_module_separate_data(tl_module *m, uint64_t base, uint8_t **out, size_t *size, tl_error *err) {
  separate_call p = {m, base, out, size};
  tl_status s = tl_oom_run(m, separate_in_scope, &p, err, "separate-data");
  if (s != TL_OK) *out = NULL, *size = 0;
  return s;
}
