/* parse.c — text modules to binary module bytes. Two passes over the
 * module's fields: the first gives every $id its index (imports before
 * definitions, as the text format requires) and reads the explicit type
 * definitions; the second emits each section's entries. Type uses without
 * a matching type append one, as the spec says. Instructions (flat and
 * folded) go through one loop with an explicit frame stack, so nesting
 * depth costs heap, not C stack. Instruction names and immediate shapes come
 * from the opcode table (opcodes.def). Validation is left to the binary
 * reader: numeric indices and types pass through unchecked. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- buffers */
/* A buffer of output bytes, with marks (tl_text_mark, made only when the
 * parser is asked for them) that say which source token gave the byte at
 * an offset; copying a buffer into another carries its marks along. */
typedef struct { uint8_t *p; size_t n, cap; bool bad; tl_vec mk; } buf;

static bool grow(buf *b, size_t need) {
  if (b->bad) return false;
  if (b->n + need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->n + need) cap *= 2;
  uint8_t *p = tl_realloc(b->p, cap);
  if (!p) { b->bad = true; return false; }
  b->p = p;
  b->cap = cap;
  return true;
}
static void put(buf *b, uint8_t c) { if (grow(b, 1)) b->p[b->n++] = c; }
static void putn(buf *b, const void *p, size_t n) {
  if (n && grow(b, n)) memcpy(b->p + b->n, p, n), b->n += n;
}
static void put_u(buf *b, uint64_t v) {
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    put(b, c | (v ? 0x80 : 0));
  } while (v);
}
static void put_s(buf *b, int64_t v) {
  for (;;) {
    uint8_t c = v & 0x7f;
    v >>= 7;
    bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
    put(b, c | (done ? 0 : 0x80));
    if (done) return;
  }
}
/* Marks of src at offsets from..src->n, moved to where those bytes start in b. */
static void move_marks(buf *b, size_t at, buf *src, size_t from) {
  size_t k = src->mk.n;
  while (k > 0 && TL_VEC_AT(&src->mk, tl_text_mark, k - 1).bin >= from) k--;
  for (size_t j = k; j < src->mk.n; j++) {
    tl_text_mark m = TL_VEC_AT(&src->mk, tl_text_mark, j);
    m.bin = m.bin - from + at;
    TL_VEC_PUSH(&b->mk, tl_text_mark, m);
  }
}
static void put_buf(buf *b, buf *src) {
  if (src->bad) b->bad = true;
  size_t at = b->n;
  putn(b, src->p, src->n);
  if (src->mk.n) move_marks(b, at, src, 0);
}
static void breset(buf *b) {
  b->n = 0;
  b->mk.n = 0;
}
static void bfree(buf *b) {
  tl_free(b->p);
  tl_vec_free(&b->mk);
  memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------ name maps */
typedef struct { const char *s; uint32_t len, val; } hent;
typedef struct { hent *e; uint32_t cap, n; } hmap;

static uint32_t hash(const char *s, uint32_t len) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}
static hent *hslot(const hmap *m, const char *s, uint32_t len) {
  for (uint32_t i = hash(s, len) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    hent *e = &m->e[i];
    if (!e->s || (e->len == len && !memcmp(e->s, s, len))) return e;
  }
}
static bool hget(const hmap *m, const char *s, uint32_t len, uint32_t *out) {
  if (!m->n) return false;
  hent *e = hslot(m, s, len);
  if (!e->s) return false;
  *out = e->val;
  return true;
}
/* Adds s -> val; false when out of memory. Caller checks duplicates. */
static bool hput(hmap *m, const char *s, uint32_t len, uint32_t val) {
  if ((m->n + 1) * 2 > m->cap) {
    hmap b = {tl_calloc(m->cap ? m->cap * 2 : 16, sizeof(hent)), m->cap ? m->cap * 2 : 16, 0};
    if (!b.e) return false;
    for (uint32_t i = 0; i < m->cap; i++)
      if (m->e[i].s) *hslot(&b, m->e[i].s, m->e[i].len) = m->e[i], b.n++;
    tl_free(m->e);
    *m = b;
  }
  hent *e = hslot(m, s, len);
  *e = (hent){s, len, val};
  m->n++;
  return true;
}
static void hclear(hmap *m) {
  if (m->n) memset(m->e, 0, m->cap * sizeof(hent));
  m->n = 0;
}

static int by_val(const void *a, const void *b) {
  uint32_t x = ((const hent *)a)->val, y = ((const hent *)b)->val;
  return x < y ? -1 : x > y;
}

static void put_id(buf *o, const char *s, uint32_t len) {
  put_u(o, len);
  putn(o, (const uint8_t *)s, len);
}

/* m as a name-section name map: count, then index and name by index. */
static void put_name_map(buf *o, const hmap *m) {
  hent *v = tl_malloc((m->n ? m->n : 1) * sizeof *v);
  if (!v) {
    o->bad = true;
    return;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->e[i].s) v[n++] = m->e[i];
  qsort(v, n, sizeof *v, by_val);
  put_u(o, n);
  for (uint32_t i = 0; i < n; i++) {
    put_u(o, v[i].val);
    put_id(o, v[i].s, v[i].len);
  }
  tl_free(v);
}

/* -------------------------------------------------------------- parser */
enum { SP_TYPE, SP_FUNC, SP_TABLE, SP_MEM, SP_GLOBAL, SP_TAG, SP_ELEM, SP_DATA, NSP };
static const char *const space_name[NSP] = {"type", "func", "table", "memory", "global", "tag", "elem", "data"};

/* Sections in the order they are written. */
enum { S_TYPE, S_IMPORT, S_FUNC, S_TABLE, S_MEM, S_TAG, S_GLOBAL, S_EXPORT, S_START, S_ELEM,
       S_DATACOUNT, S_CODE, S_DATA, NSEC };
static const uint8_t sec_id[NSEC] = {1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11};

/* A type of the type index space: for a function type, its encoded (func
 * ...) in p->tb; plain when it is a bare (func ...) in a rec group of its
 * own, the only kind an inline type use may match. */
typedef struct { uint32_t off, len, np, nr; bool plain; } ftype;
typedef struct { const char *s; uint32_t len; } label;
typedef struct { uint8_t b[6], n; } lty;                  /* one local's type */
typedef struct { uint32_t type, field, len; const char *s; } fname; /* a field's $id */

/* An instruction name as the op table sees it: its length and its first
 * and last eight bytes (for shorter names, head holds them all), which
 * are the whole name when it is up to 16 bytes long. */
typedef struct { uint64_t head, tail; uint32_t len; } opkey;
typedef struct { uint64_t head, tail; uint16_t len, op1; const char *name; } opslot; /* op1: op + 1 (0: empty) */

typedef struct {
  const tl_toks *tk;
  const tl_tok *t;
  const char *src;       /* tk->src */
  size_t i;
  tl_error *err;
  hmap names[NSP];
  uint32_t count[NSP], next[NSP];
  bool defined[NSP];
  buf tb;                /* encoded function types, back to back */
  tl_vec types;          /* ftype */
  uint32_t *tslot;       /* type hash: index + 1, 0 empty */
  uint32_t tcap;
  buf sec[NSEC];
  uint32_t secn[NSEC];
  bool has_start, need_datacount;
  buf body, pend, sp, sr, scratch;
  tl_vec labels;         /* label */
  tl_vec frames;
  tl_vec pnames;         /* label: param names of the type use just read */
  tl_vec ltypes;         /* lty */
  tl_vec *mem64;         /* uint8_t per memory: 64-bit addresses */
  hmap locals;
  uint32_t nlocals;
  buf lnames;            /* name subsection 2's entries so far: func, then its
                            local ids' name map */
  uint32_t nlnames;      /* functions in lnames */
  opslot *ops;           /* instruction names by hash (op_lookup) */
  bool marking;          /* record tl_text_marks in the output buffers */
  tl_vec fnames;         /* fname: struct field ids, for struct.get $t $f */
  size_t win_next;       /* the pass calls tk->window when it passes this */
} P;

/* The pass is at the field starting at token *t: what lies before is done
 * with for this pass (tl_toks.window, every TL_TEXT_WINDOW bytes). */
static void pass_at(P *p, const tl_tok *t) {
  if (!p->tk->window || t->off < p->win_next) return;
  p->tk->window(p->tk->win_user, p->src, t->off);
  p->win_next = t->off + TL_TEXT_WINDOW;
}

static const tl_tok *cur(P *p) { return &p->t[p->i]; }
static int kind(const P *p, const tl_tok *t) { return tl_tok_kind(p->tk, t); }
static int cur_kind(P *p) { return kind(p, cur(p)); }
/* An atom's or string's text: t->aux bytes. */
static const char *text(const P *p, const tl_tok *t) { return p->src + t->off; }
/* An id's name (without '$'), its length in *len. */
static const char *id_name(const P *p, const tl_tok *t, uint32_t *len) { return tl_tok_name(p->tk, t, len); }
/* The byte about to go to o comes from token t. */
static void mark(P *p, buf *o, const tl_tok *t) {
  if (!p->marking) return;
  tl_text_mark m = {o->n, t->off};
  TL_VEC_PUSH(&o->mk, tl_text_mark, m);
}
static const tl_tok *peek(P *p, size_t k) {
  size_t j = p->i + k;
  return j < p->tk->ntok ? &p->t[j] : &p->t[p->tk->ntok - 1];
}
/* True if t is the atom kw (len bytes). kw starts with a letter, so a
 * token of another kind never matches: its first byte is ( ) " or $, or
 * it is the TK_EOF, whose aux is 0. */
static bool atom_eq(const P *p, const tl_tok *t, const char *kw, uint32_t len) {
  return t->aux == len && p->src[t->off] == kw[0] && !memcmp(p->src + t->off, kw, len);
}
static bool atom_is(const P *p, const tl_tok *t, const char *kw) { return atom_eq(p, t, kw, (uint32_t)strlen(kw)); }
static bool is_kw(P *p, const char *kw) { return atom_is(p, cur(p), kw); }
static bool is_lpar_kw(P *p, const char *kw) { return cur_kind(p) == TK_LPAR && atom_is(p, peek(p, 1), kw); }
static bool is_lpar_kw_at(P *p, size_t k, const char *kw) {
  return kind(p, peek(p, k)) == TK_LPAR && atom_is(p, peek(p, k + 1), kw);
}

static tl_status failat(P *p, const tl_tok *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static tl_status failat(P *p, const tl_tok *t, const char *fmt, ...) {
  char msg[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tl_text_fail(p->err, TL_E_MALFORMED, p->tk->src, t->off, "%s", msg);
}
#define FAIL(...) failat(p, cur(p), __VA_ARGS__)

static tl_status unexpected(P *p) {
  const tl_tok *t = cur(p);
  if (kind(p, t) == TK_EOF) return FAIL("unexpected end of input");
  if (kind(p, t) == TK_ATOM) return FAIL("unexpected token \"%.*s\"", (int)(t->aux > 40 ? 40 : t->aux), text(p, t));
  return FAIL("unexpected token");
}
static tl_status lpar(P *p) {
  if (cur_kind(p) != TK_LPAR) return unexpected(p);
  p->i++;
  return TL_OK;
}
static tl_status rpar(P *p) {
  if (cur_kind(p) != TK_RPAR) return unexpected(p);
  p->i++;
  return TL_OK;
}
/* Consumes "(kw"; false (nothing consumed) if not there. */
static bool take_lpar_kw(P *p, const char *kw) {
  if (!is_lpar_kw(p, kw)) return false;
  p->i += 2;
  return true;
}
static bool take_kw(P *p, const char *kw) {
  if (!is_kw(p, kw)) return false;
  p->i++;
  return true;
}

/* A string token decoded into p->scratch. */
static tl_status str(P *p, const char *what) {
  const tl_tok *t = cur(p);
  if (kind(p, t) != TK_STR) return FAIL("expected %s string", what);
  breset(&p->scratch);
  if (grow(&p->scratch, t->aux)) p->scratch.n = tl_text_unescape(text(p, t), t->aux, p->scratch.p);
  p->i++;
  return p->scratch.bad ? tl_nomem(p->err, "string") : TL_OK;
}
static tl_status name(P *p, buf *o, const char *what) {
  TRY(str(p, what));
  put_u(o, p->scratch.n);
  put_buf(o, &p->scratch);
  return TL_OK;
}

/* An atom starting with a digit. */
static bool is_nat(const P *p, const tl_tok *t) {
  return t->off < p->tk->n && p->src[t->off] >= '0' && p->src[t->off] <= '9';
}
static bool at_index(P *p) { return cur_kind(p) == TK_ID || is_nat(p, cur(p)); }

static tl_status u32_lit(P *p, uint32_t *out) {
  uint64_t v;
  if (!is_nat(p, cur(p))) return unexpected(p);
  if (!tl_text_u64(text(p, cur(p)), cur(p)->aux, &v) || v > UINT32_MAX) return FAIL("constant out of range");
  *out = (uint32_t)v;
  p->i++;
  return TL_OK;
}

static tl_status idx_of(P *p, int sp, uint32_t *out) {
  const tl_tok *t = cur(p);
  if (kind(p, t) == TK_ID) {
    uint32_t len;
    const char *s = id_name(p, t, &len);
    if (!hget(&p->names[sp], s, len, out))
      return FAIL("unknown %s $%.*s", space_name[sp], (int)(len > 40 ? 40 : len), s);
    p->i++;
    return TL_OK;
  }
  return u32_lit(p, out);
}

/* Registers an optional $id of space sp for index idx. */
static tl_status bind(P *p, int sp, uint32_t idx) {
  const tl_tok *t = cur(p);
  if (kind(p, t) != TK_ID) return TL_OK;
  uint32_t old, len;
  const char *s = id_name(p, t, &len);
  if (hget(&p->names[sp], s, len, &old)) return FAIL("duplicate %s $%.*s", space_name[sp], (int)len, s);
  if (!hput(&p->names[sp], s, len, idx)) return tl_nomem(p->err, "names");
  p->i++;
  return TL_OK;
}

/* ---------------------------------------------------------------- types */
/* Keywords that stand for a byte, with their lengths. */
typedef struct { const char *n; uint8_t len, b; } kwbyte;
#define KB(s, b) {s, sizeof s - 1, b}
static const kwbyte heaptypes[] = {
  KB("func", 0x70), KB("extern", 0x6f), KB("any", 0x6e), KB("eq", 0x6d), KB("i31", 0x6c), KB("struct", 0x6b),
  KB("array", 0x6a), KB("exn", 0x69), KB("none", 0x71), KB("noextern", 0x72), KB("nofunc", 0x73),
  KB("noexn", 0x74)};
/* The numeric and vector types (0x7b and up) first, then the short forms
 * of reference types. */
static const kwbyte valtypes[] = {
  KB("i32", 0x7f), KB("i64", 0x7e), KB("f32", 0x7d), KB("f64", 0x7c), KB("v128", 0x7b), KB("funcref", 0x70),
  KB("externref", 0x6f), KB("exnref", 0x69), KB("anyref", 0x6e), KB("eqref", 0x6d), KB("i31ref", 0x6c),
  KB("structref", 0x6b), KB("arrayref", 0x6a), KB("nullref", 0x71), KB("nullfuncref", 0x73),
  KB("nullexternref", 0x72), KB("nullexnref", 0x74)};
#undef KB

/* The byte of the keyword t among k[0..nk), or -1. */
static int kw_byte(const P *p, const tl_tok *t, const kwbyte *k, size_t nk) {
  for (size_t i = 0; i < nk; i++)
    if (atom_eq(p, t, k[i].n, k[i].len)) return k[i].b;
  return -1;
}
static int heaptype_byte(const P *p, const tl_tok *t) {
  return kw_byte(p, t, heaptypes, sizeof heaptypes / sizeof heaptypes[0]);
}
static int valtype_byte(const P *p, const tl_tok *t) {
  return kw_byte(p, t, valtypes, sizeof valtypes / sizeof valtypes[0]);
}

static tl_status heaptype(P *p, buf *o) {
  int b = heaptype_byte(p, cur(p));
  if (b >= 0) {
    put(o, (uint8_t)b);
    p->i++;
    return TL_OK;
  }
  uint32_t idx;
  TRY(idx_of(p, SP_TYPE, &idx));
  put_s(o, idx);
  return TL_OK;
}

static bool is_valtype_start(P *p) { return valtype_byte(p, cur(p)) >= 0 || is_lpar_kw(p, "ref"); }

static tl_status valtype(P *p, buf *o) {
  int b = valtype_byte(p, cur(p));
  if (b >= 0) {
    put(o, (uint8_t)b);
    p->i++;
    return TL_OK;
  }
  if (take_lpar_kw(p, "ref")) {
    bool null = take_kw(p, "null");
    int hb = heaptype_byte(p, cur(p));
    if (null && (hb == 0x70 || hb == 0x6f || hb == 0x69)) { /* the short forms */
      put(o, (uint8_t)hb);
      p->i++;
      return rpar(p);
    }
    put(o, null ? 0x63 : 0x64);
    TRY(heaptype(p, o));
    return rpar(p);
  }
  return FAIL("expected a value type");
}

static tl_status reftype(P *p, buf *o) {
  if (!is_valtype_start(p) || valtype_byte(p, cur(p)) >= 0x7b) return FAIL("expected a reference type");
  return valtype(p, o);
}

/* (param ...)* (result ...)* into p->sp / p->sr (counts in *np, *nr);
 * param ids go to p->pnames when names is set. */
static tl_status sig(P *p, bool names, uint32_t *np, uint32_t *nr) {
  breset(&p->sp);
  breset(&p->sr);
  p->pnames.n = 0;
  *np = *nr = 0;
  while (is_lpar_kw(p, "param")) {
    p->i += 2;
    if (cur_kind(p) == TK_ID) {
      if (!names) return FAIL("unexpected token: parameter name");
      label l;
      l.s = id_name(p, cur(p), &l.len);
      p->i++;
      TL_VEC_PUSH(&p->pnames, label, l);
      TRY(valtype(p, &p->sp));
      ++*np;
      TRY(rpar(p));
      continue;
    }
    while (cur_kind(p) != TK_RPAR) {
      label l = {NULL, 0};
      TL_VEC_PUSH(&p->pnames, label, l);
      TRY(valtype(p, &p->sp));
      ++*np;
    }
    p->i++;
  }
  while (is_lpar_kw(p, "result")) {
    p->i += 2;
    while (cur_kind(p) != TK_RPAR) {
      TRY(valtype(p, &p->sr));
      ++*nr;
    }
    p->i++;
  }
  if (is_lpar_kw(p, "param")) return FAIL("unexpected token: param after result");
  return TL_OK;
}

/* The encoded form of the signature in p->sp/p->sr into p->scratch. */
static void encode_sig(P *p, uint32_t np, uint32_t nr) {
  breset(&p->scratch);
  put(&p->scratch, 0x60);
  put_u(&p->scratch, np);
  put_buf(&p->scratch, &p->sp);
  put_u(&p->scratch, nr);
  put_buf(&p->scratch, &p->sr);
}

static bool type_eq(P *p, uint32_t idx, const buf *b) {
  const ftype *f = &TL_VEC_AT(&p->types, ftype, idx);
  return f->len == b->n && !memcmp(p->tb.p + f->off, b->p, b->n);
}

/* Finds the first type equal to p->scratch, or -1. */
static int64_t type_find(P *p) {
  if (!p->tcap) return -1;
  for (uint32_t i = hash((const char *)p->scratch.p, (uint32_t)p->scratch.n) & (p->tcap - 1);;
       i = (i + 1) & (p->tcap - 1)) {
    if (!p->tslot[i]) return -1;
    if (type_eq(p, p->tslot[i] - 1, &p->scratch)) return p->tslot[i] - 1;
  }
}

static void type_hash_add(P *p, uint32_t idx) {
  const ftype *f = &TL_VEC_AT(&p->types, ftype, idx);
  uint32_t i = hash((const char *)p->tb.p + f->off, f->len) & (p->tcap - 1);
  while (p->tslot[i]) i = (i + 1) & (p->tcap - 1);
  p->tslot[i] = idx + 1;
}

/* Adds a type to the index space: a function type's encoding is
 * p->scratch (np, nr), a struct or array type has none (len 0). Plain
 * function types go into the hash that inline type uses search. */
static tl_status type_push(P *p, uint32_t np, uint32_t nr, bool func, bool plain, uint32_t *out) {
  ftype f = {(uint32_t)p->tb.n, func ? (uint32_t)p->scratch.n : 0, np, nr, plain && func};
  size_t n0 = p->types.n;
  if (func) put_buf(&p->tb, &p->scratch);
  TL_VEC_PUSH(&p->types, ftype, f);
  if (p->types.n == n0 || p->tb.bad) return tl_nomem(p->err, "types");
  *out = (uint32_t)n0;
  if (p->types.n * 2 > p->tcap) {
    tl_free(p->tslot);
    p->tcap = p->tcap ? p->tcap * 2 : 64;
    p->tslot = tl_calloc(p->tcap, sizeof *p->tslot);
    if (!p->tslot) return p->tcap = 0, tl_nomem(p->err, "types");
    for (uint32_t i = 0; i < p->types.n; i++)
      if (TL_VEC_AT(&p->types, ftype, i).plain) type_hash_add(p, i);
  } else if (f.plain) type_hash_add(p, *out);
  return TL_OK;
}

/* Appends p->scratch as a new plain function type (in the type section too). */
static tl_status type_add(P *p, uint32_t np, uint32_t nr, uint32_t *out) {
  TRY(type_push(p, np, nr, true, true, out));
  put_buf(&p->sec[S_TYPE], &p->scratch);
  p->secn[S_TYPE]++;
  return TL_OK;
}

/* typeuse: (type x)? (param ...)* (result ...)*. *idx is the type; *np its
 * parameter count (param ids in p->pnames when names is set and the
 * params are written out). simple is set for block types that need no
 * type index: no (type), no params, at most one result (in p->sr). */
static tl_status typeuse_ex(P *p, bool names, uint32_t *idx, uint32_t *np_out, bool *simple) {
  bool has_type = false;
  const tl_tok *at = cur(p);
  if (take_lpar_kw(p, "type")) {
    TRY(idx_of(p, SP_TYPE, idx));
    TRY(rpar(p));
    has_type = true;
  }
  uint32_t np, nr;
  TRY(sig(p, names, &np, &nr));
  if (simple) *simple = !has_type && !np && nr <= 1;
  if (simple && *simple) return TL_OK;
  if (has_type) {
    bool known = *idx < p->types.n;
    if (np || nr) {
      encode_sig(p, np, nr);
      if (!known) return failat(p, at, "unknown type");
      if (!type_eq(p, *idx, &p->scratch)) return failat(p, at, "inconsistent type");
      *np_out = np;
    } else {
      p->pnames.n = 0;
      *np_out = known ? TL_VEC_AT(&p->types, ftype, *idx).np : 0;
    }
    return TL_OK;
  }
  encode_sig(p, np, nr);
  int64_t f = type_find(p);
  *np_out = np;
  if (f >= 0) {
    *idx = (uint32_t)f;
    return TL_OK;
  }
  return type_add(p, np, nr, idx);
}

static tl_status typeuse(P *p, bool names, uint32_t *idx, uint32_t *np) {
  return typeuse_ex(p, names, idx, np, NULL);
}

static tl_status blocktype(P *p, buf *o) {
  uint32_t idx = 0, np;
  bool simple;
  TRY(typeuse_ex(p, false, &idx, &np, &simple));
  if (!simple) put_s(o, idx);
  else if (p->sr.n) put_buf(o, &p->sr);
  else put(o, 0x40);
  return TL_OK;
}

/* --------------------------------------------------------- instructions */
enum { OPS_LOG2 = 10 }; /* 1024 slots for the ~540 names */

static opkey op_key(const char *s, uint32_t len) {
  opkey k = {0, 0, len};
  if (len >= 8) {
    memcpy(&k.head, s, 8);
    memcpy(&k.tail, s + len - 8, 8);
  } else {
    for (uint32_t i = 0; i < len; i++) k.head |= (uint64_t)(uint8_t)s[i] << (8 * i);
  }
  return k;
}

/* The slot to probe first: the top bits of a product mix every input bit. */
static uint32_t op_hash(opkey k) {
  uint64_t h = k.head * 0x9e3779b97f4a7c15ull + k.tail * 0xc2b2ae3d27d4eb4full + k.len * 0x165667b19e3779f9ull;
  return (uint32_t)(h >> (64 - OPS_LOG2));
}

static void op_add(P *p, const char *name, int op) {
  opkey k = op_key(name, (uint32_t)strlen(name));
  uint32_t i = op_hash(k);
  while (p->ops[i].op1) i = (i + 1) & ((1u << OPS_LOG2) - 1);
  p->ops[i] = (opslot){k.head, k.tail, (uint16_t)k.len, (uint16_t)(op + 1), name};
}

/* Earlier names that texts in use still carry: the relaxed dot products
 * as wabt 1.0.32's wasm2wat writes them and the 2022 proposal tests use. */
static const struct { const char *name; int op; } op_aliases[] = {
  {"i16x8.dot_i8x16_i7x16_s", TL_OP_I16X8_RELAXED_DOT_I8X16_I7X16_S},
  {"i32x4.dot_i8x16_i7x16_add_s", TL_OP_I32X4_RELAXED_DOT_I8X16_I7X16_ADD_S},
};

static void ops_init(P *p) {
  p->ops = tl_calloc(1u << OPS_LOG2, sizeof *p->ops);
  if (!p->ops) return;
  for (int op = 0; op < TL_NOPS; op++) {
    const tl_opinfo *o = &tl_ops[op];
    if (o->pfx == 0xFF || op == TL_OP_SELECT_T || op == TL_OP_ELSE || op == TL_OP_END) continue;
    op_add(p, o->text, op);
  }
  for (size_t i = 0; i < sizeof op_aliases / sizeof *op_aliases; i++) op_add(p, op_aliases[i].name, op_aliases[i].op);
}

/* The instruction an atom names, or -1. */
static int op_lookup(P *p, const tl_tok *t) {
  const char *s = text(p, t);
  opkey k = op_key(s, t->aux);
  for (uint32_t i = op_hash(k);; i = (i + 1) & ((1u << OPS_LOG2) - 1)) {
    const opslot *e = &p->ops[i];
    if (!e->op1) return -1;
    if (e->len == k.len && e->head == k.head && e->tail == k.tail &&
        (k.len <= 16 || !memcmp(e->name + 8, s + 8, k.len - 16)))
      return e->op1 - 1;
  }
}

/* Instructions of WebAssembly 3.0 that tilt does not have (GC, typed
 * function references): unsupported, not malformed. */
static bool known_unsupported(const P *p, const tl_tok *t) {
  static const char *const pre[] = {"struct.", "array.", "i31.", "ref.", "br_on_", "call_ref",
                                    "return_call_ref", "any.", "extern."};
  for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++)
    if (t->aux >= strlen(pre[k]) && !memcmp(text(p, t), pre[k], strlen(pre[k]))) return true;
  return false;
}

static tl_status unknown_op(P *p, const tl_tok *t) {
  if (kind(p, t) != TK_ATOM) return unexpected(p);
  int len = (int)(t->aux > 40 ? 40 : t->aux);
  if (known_unsupported(p, t))
    return tl_text_fail(p->err, TL_E_UNSUPPORTED, p->tk->src, t->off, "instruction %.*s is not supported", len,
                        text(p, t));
  return FAIL("unknown operator %.*s", len, text(p, t));
}

static void put_op(buf *o, int op) {
  const tl_opinfo *i = &tl_ops[op];
  if (i->pfx) {
    put(o, i->pfx);
    put_u(o, i->code);
  } else put(o, (uint8_t)i->code);
}

static tl_status label_push(P *p, const tl_tok *id) {
  label l = {NULL, 0};
  if (id) l.s = id_name(p, id, &l.len);
  size_t n0 = p->labels.n;
  TL_VEC_PUSH(&p->labels, label, l);
  return p->labels.n == n0 ? tl_nomem(p->err, "labels") : TL_OK;
}

/* An optional label id at the cursor (consumed). */
static const tl_tok *opt_label(P *p) {
  if (cur_kind(p) != TK_ID) return NULL;
  return &p->t[p->i++];
}

static tl_status label_idx(P *p, uint32_t *out) {
  const tl_tok *t = cur(p);
  if (kind(p, t) == TK_ID) {
    uint32_t len;
    const char *s = id_name(p, t, &len);
    for (size_t k = p->labels.n; k-- > 0;) {
      label *l = &TL_VEC_AT(&p->labels, label, k);
      if (l->s && l->len == len && !memcmp(l->s, s, len)) {
        *out = (uint32_t)(p->labels.n - 1 - k);
        p->i++;
        return TL_OK;
      }
    }
    return FAIL("unknown label $%.*s", (int)(len > 40 ? 40 : len), s);
  }
  return u32_lit(p, out);
}

static tl_status local_idx(P *p, uint32_t *out) {
  const tl_tok *t = cur(p);
  if (kind(p, t) == TK_ID) {
    uint32_t len;
    const char *s = id_name(p, t, &len);
    if (!hget(&p->locals, s, len, out))
      return FAIL("unknown local $%.*s", (int)(len > 40 ? 40 : len), s);
    p->i++;
    return TL_OK;
  }
  return u32_lit(p, out);
}

/* "end $l" / "else $l": the id must name the construct being closed. */
static tl_status check_end_label(P *p) {
  if (cur_kind(p) != TK_ID) return TL_OK;
  uint32_t len;
  const char *s = id_name(p, cur(p), &len);
  label *l = p->labels.n ? &TL_VEC_AT(&p->labels, label, p->labels.n - 1) : NULL;
  if (!l || !l->s || l->len != len || memcmp(l->s, s, len)) return FAIL("mismatching label");
  p->i++;
  return TL_OK;
}

static tl_status opt_index(P *p, int sp, uint32_t *out) {
  *out = 0;
  return at_index(p) ? idx_of(p, sp, out) : TL_OK;
}

/* An atom that starts with prefix and goes on after it. */
static bool atom_has_prefix(const P *p, const tl_tok *t, const char *prefix, uint32_t len) {
  return t->aux > len && kind(p, t) == TK_ATOM && !memcmp(text(p, t), prefix, len);
}
static bool at_memarg_kw(const P *p, const tl_tok *t) {
  return atom_has_prefix(p, t, "offset=", 7) || atom_has_prefix(p, t, "align=", 6);
}

/* memidx? offset=N? align=N? */
static tl_status memarg(P *p, buf *o, int op, bool lane) {
  uint32_t mem = 0;
  if (cur_kind(p) == TK_ID ||
      (is_nat(p, cur(p)) && (!lane || is_nat(p, peek(p, 1)) || at_memarg_kw(p, peek(p, 1)))))
    TRY(idx_of(p, SP_MEM, &mem));
  uint64_t off = 0, align = 1ull << tl_op_natural_align(op);
  if (is_kw(p, "offset=") || atom_has_prefix(p, cur(p), "offset=", 7)) {
    if (!tl_text_u64(text(p, cur(p)) + 7, cur(p)->aux - 7, &off)) return FAIL("malformed offset: constant out of range");
    p->i++;
  }
  if (atom_has_prefix(p, cur(p), "align=", 6)) {
    if (!tl_text_u64(text(p, cur(p)) + 6, cur(p)->aux - 6, &align) || !align || (align & (align - 1)))
      return FAIL("alignment must be a power of two");
    p->i++;
  }
  uint32_t lg = 0;
  while ((1ull << lg) < align) lg++;
  put_u(o, lg | (mem ? 0x40 : 0));
  if (mem) put_u(o, mem);
  put_u(o, off);
  return TL_OK;
}

static tl_status num_i(P *p, int bits, uint64_t *v) {
  const tl_tok *t = cur(p);
  if (kind(p, t) != TK_ATOM || !tl_text_int(text(p, t), t->aux, bits, v))
    return kind(p, t) == TK_ATOM ? FAIL("constant out of range") : unexpected(p);
  p->i++;
  return TL_OK;
}

static tl_status num_f32(P *p, buf *o) {
  uint32_t v;
  if (cur_kind(p) != TK_ATOM || !tl_text_f32(text(p, cur(p)), cur(p)->aux, &v))
    return cur_kind(p) == TK_ATOM ? FAIL("constant out of range") : unexpected(p);
  p->i++;
  putn(o, &v, 4); /* little-endian host */
  return TL_OK;
}

static tl_status num_f64(P *p, buf *o) {
  uint64_t v;
  if (cur_kind(p) != TK_ATOM || !tl_text_f64(text(p, cur(p)), cur(p)->aux, &v))
    return cur_kind(p) == TK_ATOM ? FAIL("constant out of range") : unexpected(p);
  p->i++;
  putn(o, &v, 8);
  return TL_OK;
}

/* shape lane* as 16 bytes */
static tl_status v128_lit(P *p, buf *o) {
  static const struct { const char *n; int lanes, w; } sh[] = {
    {"i8x16", 16, 1}, {"i16x8", 8, 2}, {"i32x4", 4, 4}, {"i64x2", 2, 8}, {"f32x4", 4, -4}, {"f64x2", 2, -8}};
  for (size_t k = 0; k < sizeof sh / sizeof sh[0]; k++) {
    if (!is_kw(p, sh[k].n)) continue;
    p->i++;
    for (int l = 0; l < sh[k].lanes; l++) {
      if (sh[k].w == -4) { TRY(num_f32(p, o)); continue; }
      if (sh[k].w == -8) { TRY(num_f64(p, o)); continue; }
      uint64_t v;
      const tl_tok *t = cur(p);
      int w = sh[k].w;
      if (kind(p, t) != TK_ATOM) return unexpected(p);
      if (w == 8) TRY(num_i(p, 64, &v));
      else {
        const char *s = text(p, t);
        bool neg = s[0] == '-', sign = neg || s[0] == '+';
        if (!tl_text_u64(s + sign, t->aux - sign, &v)) return FAIL("constant out of range");
        uint64_t lim = 1ull << (8 * w);
        if (neg ? v > lim / 2 : v >= lim) return FAIL("constant out of range");
        if (neg) v = (uint64_t)0 - v;
        p->i++;
      }
      putn(o, &v, (size_t)w);
    }
    return TL_OK;
  }
  return FAIL("unexpected token: expected a v128 shape");
}

/* try_table clauses: (catch x l) (catch_ref x l) (catch_all l) (catch_all_ref l) */
static tl_status clauses(P *p, buf *o) {
  buf tmp = {0};
  uint32_t n = 0;
  tl_status st = TL_OK;
  static const char *const kind[] = {"catch", "catch_ref", "catch_all", "catch_all_ref"};
  for (;;) {
    int k = -1;
    for (int j = 0; j < 4 && k < 0; j++)
      if (is_lpar_kw(p, kind[j])) k = j;
    if (k < 0) break;
    p->i += 2;
    uint32_t x;
    put(&tmp, (uint8_t)k);
    if (k < 2) {
      if ((st = idx_of(p, SP_TAG, &x))) break;
      put_u(&tmp, x);
    }
    if ((st = label_idx(p, &x)) || (st = rpar(p))) break;
    put_u(&tmp, x);
    n++;
  }
  if (!st) {
    put_u(o, n);
    put_buf(o, &tmp);
  }
  bfree(&tmp);
  return st;
}

/* The immediates of op (not block-like ones) into o. */
/* A field of struct type t: its index or $id. */
static tl_status field_idx(P *p, uint32_t t, uint32_t *out) {
  if (cur_kind(p) != TK_ID) return u32_lit(p, out);
  uint32_t len;
  const char *s = id_name(p, cur(p), &len);
  for (size_t k = 0; k < p->fnames.n; k++) {
    const fname *f = &TL_VEC_AT(&p->fnames, fname, k);
    if (f->type == t && f->len == len && !memcmp(f->s, s, len)) {
      *out = f->field;
      p->i++;
      return TL_OK;
    }
  }
  return FAIL("unknown field $%.*s", (int)(len > 40 ? 40 : len), s);
}

/* A reference type as ref.test/ref.cast/br_on_cast state it: its heap type
 * into o (reset first), its nullability in *null. */
static tl_status reftype_parts(P *p, buf *o, bool *null) {
  breset(o);
  int b = valtype_byte(p, cur(p));
  if (b >= 0 && b < 0x7b) { /* a short form: its byte is its heap type's */
    *null = true;
    put(o, (uint8_t)b);
    p->i++;
    return TL_OK;
  }
  if (!take_lpar_kw(p, "ref")) return FAIL("expected a reference type");
  *null = take_kw(p, "null");
  TRY(heaptype(p, o));
  return rpar(p);
}

static tl_status immediates(P *p, int op, buf *o) {
  uint32_t x, y;
  uint64_t v;
  switch (tl_ops[op].imm) {
  case TL_IMM_NONE:
    if (op == TL_OP_SELECT && is_lpar_kw(p, "result")) {
      o->n--; /* 0x1b becomes 0x1c with a type vector */
      put(o, 0x1c);
      buf tmp = {0};
      uint32_t n = 0;
      tl_status st = TL_OK;
      while (!st && take_lpar_kw(p, "result")) {
        while (!st && cur_kind(p) != TK_RPAR) st = valtype(p, &tmp), n++;
        if (!st) p->i++;
      }
      if (!st) put_u(o, n), put_buf(o, &tmp);
      bfree(&tmp);
      return st;
    }
    return TL_OK;
  case TL_IMM_LABEL: TRY(label_idx(p, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_BR_TABLE: {
    buf tmp = {0};
    uint32_t n = 0;
    tl_status st = TL_OK;
    while (!st && at_index(p)) {
      st = label_idx(p, &x);
      put_u(&tmp, x);
      n++;
    }
    if (!st && !n) st = FAIL("br_table needs a label");
    if (!st) put_u(o, n - 1), put_buf(o, &tmp);
    bfree(&tmp);
    return st;
  }
  case TL_IMM_FUNC: TRY(idx_of(p, SP_FUNC, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_CALL_INDIRECT: {
    uint32_t np;
    TRY(opt_index(p, SP_TABLE, &y));
    TRY(typeuse(p, false, &x, &np));
    put_u(o, x);
    put_u(o, y);
    return TL_OK;
  }
  case TL_IMM_LOCAL: TRY(local_idx(p, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_GLOBAL: TRY(idx_of(p, SP_GLOBAL, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_TABLE: TRY(opt_index(p, SP_TABLE, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_MEMARG: return memarg(p, o, op, false);
  case TL_IMM_MEMARG_LANE:
    TRY(memarg(p, o, op, true));
    TRY(u32_lit(p, &x));
    if (x > 255) return FAIL("lane index out of range");
    put(o, (uint8_t)x);
    return TL_OK;
  case TL_IMM_MEM: TRY(opt_index(p, SP_MEM, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_MEM_COPY:
    TRY(opt_index(p, SP_MEM, &x));
    y = x;
    if (at_index(p)) TRY(idx_of(p, SP_MEM, &y));
    put_u(o, x), put_u(o, y);
    return TL_OK;
  case TL_IMM_MEM_INIT:
    p->need_datacount = true;
    x = 0;
    if (at_index(p) && (kind(p, peek(p, 1)) == TK_ID || is_nat(p, peek(p, 1)))) TRY(idx_of(p, SP_MEM, &x));
    TRY(idx_of(p, SP_DATA, &y));
    put_u(o, y), put_u(o, x);
    return TL_OK;
  case TL_IMM_DATA: p->need_datacount = true; TRY(idx_of(p, SP_DATA, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_ELEM: TRY(idx_of(p, SP_ELEM, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_TABLE_INIT:
    x = 0;
    if (at_index(p) && (kind(p, peek(p, 1)) == TK_ID || is_nat(p, peek(p, 1)))) TRY(idx_of(p, SP_TABLE, &x));
    TRY(idx_of(p, SP_ELEM, &y));
    put_u(o, y), put_u(o, x);
    return TL_OK;
  case TL_IMM_TABLE_COPY:
    TRY(opt_index(p, SP_TABLE, &x));
    y = x;
    if (at_index(p)) TRY(idx_of(p, SP_TABLE, &y));
    put_u(o, x), put_u(o, y);
    return TL_OK;
  case TL_IMM_I32: TRY(num_i(p, 32, &v)); put_s(o, (int32_t)(uint32_t)v); return TL_OK;
  case TL_IMM_I64: TRY(num_i(p, 64, &v)); put_s(o, (int64_t)v); return TL_OK;
  case TL_IMM_F32: return num_f32(p, o);
  case TL_IMM_F64: return num_f64(p, o);
  case TL_IMM_V128: return v128_lit(p, o);
  case TL_IMM_LANE:
    TRY(u32_lit(p, &x));
    if (x > 255) return FAIL("lane index out of range");
    put(o, (uint8_t)x);
    return TL_OK;
  case TL_IMM_SHUFFLE:
    for (int k = 0; k < 16; k++) {
      TRY(u32_lit(p, &x));
      if (x > 255) return FAIL("lane index out of range");
      put(o, (uint8_t)x);
    }
    return TL_OK;
  case TL_IMM_REFTYPE: return heaptype(p, o);
  case TL_IMM_FENCE: put(o, 0); return TL_OK;
  case TL_IMM_TAG: TRY(idx_of(p, SP_TAG, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_TYPE: TRY(idx_of(p, SP_TYPE, &x)); put_u(o, x); return TL_OK;
  case TL_IMM_TYPE_FIELD:
    TRY(idx_of(p, SP_TYPE, &x));
    TRY(field_idx(p, x, &y));
    put_u(o, x), put_u(o, y);
    return TL_OK;
  case TL_IMM_TYPE_COUNT: TRY(idx_of(p, SP_TYPE, &x)); TRY(u32_lit(p, &y)); put_u(o, x), put_u(o, y); return TL_OK;
  case TL_IMM_TYPE_DATA:
    p->need_datacount = true;
    TRY(idx_of(p, SP_TYPE, &x));
    TRY(idx_of(p, SP_DATA, &y));
    put_u(o, x), put_u(o, y);
    return TL_OK;
  case TL_IMM_TYPE_ELEM: TRY(idx_of(p, SP_TYPE, &x)); TRY(idx_of(p, SP_ELEM, &y)); put_u(o, x), put_u(o, y); return TL_OK;
  case TL_IMM_TYPE_TYPE: TRY(idx_of(p, SP_TYPE, &x)); TRY(idx_of(p, SP_TYPE, &y)); put_u(o, x), put_u(o, y); return TL_OK;
  case TL_IMM_CAST: { /* the opcode's code byte + 1 for a nullable type */
    bool null;
    size_t code = o->n - 1;
    TRY(reftype_parts(p, &p->scratch, &null));
    if (null) o->p[code]++;
    put_buf(o, &p->scratch);
    return TL_OK;
  }
  case TL_IMM_BR_CAST: { /* flags, label, ht1, ht2 */
    bool n1, n2;
    buf h = {0};
    tl_status st = label_idx(p, &x);
    if (!st) st = reftype_parts(p, &h, &n1);
    if (!st) st = reftype_parts(p, &p->scratch, &n2);
    if (!st) put(o, (uint8_t)(n1 | n2 << 1)), put_u(o, x), put_buf(o, &h), put_buf(o, &p->scratch);
    bfree(&h);
    return st;
  }
  default: return FAIL("unexpected instruction");
  }
}

/* Frames of the instruction loop. */
enum {
  FR_SEQ,      /* the whole sequence: ends before the enclosing ')' */
  FR_FLAT,     /* block/loop/if/try/try_table ... end */
  FR_PLAIN,    /* (op imm* folded*): op's bytes wait in p->pend from .pend */
  FR_BLOCK,    /* (block ...), (loop ...), (try_table ...): instrs until ')' */
  FR_IF_COND,  /* (if label bt folded* ...: conditions until (then */
  FR_IF_THEN,  /* (then instr*) */
  FR_IF_ELSE,  /* (else instr*) */
  FR_TRY_ARM   /* (try ... (do instr*) / (catch x instr*) / (catch_all instr*) */
};
typedef struct {
  uint8_t kind;
  uint8_t op;        /* FR_FLAT: TL_OP_BLOCK/LOOP/IF/TRY/TRY_TABLE */
  uint8_t seen_else; /* FR_FLAT if: else seen; try: catch_all seen */
  size_t pend;       /* FR_PLAIN, FR_IF_COND: start of its bytes in p->pend */
  const tl_tok *label; /* FR_IF_COND: the if's label, pushed at (then */
} frame;

static tl_status frame_push(P *p, uint8_t kind, uint8_t op, size_t pend, const tl_tok *label) {
  frame f = {kind, op, 0, pend, label};
  size_t n0 = p->frames.n;
  TL_VEC_PUSH(&p->frames, frame, f);
  return p->frames.n == n0 ? tl_nomem(p->err, "frames") : TL_OK;
}

/* Moves p->pend[from..] to o. */
static void flush_pend(P *p, buf *o, size_t from) {
  size_t at = o->n;
  putn(o, p->pend.p + from, p->pend.n - from);
  if (p->pend.mk.n) {
    move_marks(o, at, &p->pend, from);
    while (p->pend.mk.n && TL_VEC_AT(&p->pend.mk, tl_text_mark, p->pend.mk.n - 1).bin >= from) p->pend.mk.n--;
  }
  p->pend.n = from;
}

/* A block-like instruction's start (op, label, block type, clauses) into o;
 * pushes its label unless it is a folded if (label comes at (then). */
static tl_status block_start(P *p, int op, buf *o, const tl_tok **lab) {
  *lab = opt_label(p);
  put_op(o, op);
  TRY(blocktype(p, o));
  if (op == TL_OP_TRY_TABLE) TRY(clauses(p, o));
  return TL_OK;
}

/* A ')' closing the top frame f. */
static tl_status close_paren(P *p, buf *o, frame *f) {
  if (f->kind != FR_PLAIN) mark(p, o, cur(p));
  switch (f->kind) {
  case FR_PLAIN:
    p->i++;
    flush_pend(p, o, f->pend);
    p->frames.n--;
    return TL_OK;
  case FR_BLOCK:
    p->i++;
    put(o, 0x0b);
    p->labels.n--;
    p->frames.n--;
    return TL_OK;
  case FR_IF_THEN:
    p->i++;
    if (take_lpar_kw(p, "else")) {
      put(o, 0x05);
      f->kind = FR_IF_ELSE;
      return TL_OK;
    }
    /* fallthrough */
  case FR_IF_ELSE:
    if (f->kind == FR_IF_ELSE) p->i++;
    TRY(rpar(p));
    put(o, 0x0b);
    p->labels.n--;
    p->frames.n--;
    return TL_OK;
  case FR_TRY_ARM:
    p->i++;
    if (take_lpar_kw(p, "catch")) {
      uint32_t x;
      TRY(idx_of(p, SP_TAG, &x));
      put(o, 0x07);
      put_u(o, x);
      return TL_OK;
    }
    if (take_lpar_kw(p, "catch_all")) {
      put(o, 0x19);
      return TL_OK;
    }
    if (take_lpar_kw(p, "delegate")) {
      uint32_t x;
      p->labels.n--;
      TRY(label_idx(p, &x));
      put(o, 0x18);
      put_u(o, x);
      TRY(rpar(p));
      TRY(rpar(p));
      p->frames.n--;
      return TL_OK;
    }
    TRY(rpar(p));
    put(o, 0x0b);
    p->labels.n--;
    p->frames.n--;
    return TL_OK;
  case FR_IF_COND: return FAIL("expected (then");
  default: return unexpected(p); /* FR_FLAT: missing end */
  }
}

/* A folded instruction after its '(' (cursor on the name). */
static tl_status folded(P *p, buf *o) {
  const tl_tok *t = cur(p);
  const tl_tok *lab;
  int op = kind(p, t) == TK_ATOM ? op_lookup(p, t) : -1;
  if (op < 0 || op == TL_OP_CATCH || op == TL_OP_CATCH_ALL || op == TL_OP_DELEGATE) return unknown_op(p, t);
  mark(p, op == TL_OP_BLOCK || op == TL_OP_LOOP || op == TL_OP_TRY_TABLE || op == TL_OP_TRY ? o : &p->pend, t);
  p->i++;
  switch (op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_TRY_TABLE:
    TRY(block_start(p, op, o, &lab));
    TRY(label_push(p, lab));
    return frame_push(p, FR_BLOCK, 0, 0, NULL);
  case TL_OP_IF: {
    size_t at = p->pend.n;
    TRY(block_start(p, op, &p->pend, &lab));
    return frame_push(p, FR_IF_COND, 0, at, lab);
  }
  case TL_OP_TRY:
    TRY(block_start(p, op, o, &lab));
    TRY(label_push(p, lab));
    if (!take_lpar_kw(p, "do")) return FAIL("expected (do");
    return frame_push(p, FR_TRY_ARM, 0, 0, NULL);
  default: {
    size_t at = p->pend.n;
    put_op(&p->pend, op);
    TRY(immediates(p, op, &p->pend));
    if (cur_kind(p) != TK_RPAR) return frame_push(p, FR_PLAIN, 0, at, NULL);
    p->i++; /* a leaf, (op imm*): no operands to wait for, so no frame */
    flush_pend(p, o, at);
    return TL_OK;
  }
  }
}

/* A flat instruction (cursor on its name) in frame f. */
static tl_status flat(P *p, buf *o, frame *f) {
  const tl_tok *t = cur(p), *lab;
  bool in_flat = f->kind == FR_FLAT;
  mark(p, o, t);
  if (atom_is(p, t, "end")) {
    if (!in_flat) return FAIL("unexpected end");
    p->i++;
    TRY(check_end_label(p));
    put(o, 0x0b);
    p->labels.n--;
    p->frames.n--;
    return TL_OK;
  }
  if (atom_is(p, t, "else")) {
    if (!in_flat || f->op != TL_OP_IF || f->seen_else) return FAIL("unexpected else");
    p->i++;
    TRY(check_end_label(p));
    f->seen_else = 1;
    put(o, 0x05);
    return TL_OK;
  }
  int op = kind(p, t) == TK_ATOM ? op_lookup(p, t) : -1;
  if (op < 0) return unknown_op(p, t);
  p->i++;
  switch (op) {
  case TL_OP_BLOCK: case TL_OP_LOOP: case TL_OP_IF: case TL_OP_TRY: case TL_OP_TRY_TABLE:
    TRY(block_start(p, op, o, &lab));
    TRY(label_push(p, lab));
    return frame_push(p, FR_FLAT, (uint8_t)op, 0, NULL);
  case TL_OP_CATCH: case TL_OP_CATCH_ALL: {
    if (!in_flat || f->op != TL_OP_TRY || f->seen_else) return failat(p, t, "unexpected %s", tl_ops[op].text);
    uint32_t x;
    put_op(o, op);
    if (op == TL_OP_CATCH) {
      TRY(idx_of(p, SP_TAG, &x));
      put_u(o, x);
    } else f->seen_else = 1;
    return TL_OK;
  }
  case TL_OP_DELEGATE: {
    if (!in_flat || f->op != TL_OP_TRY) return failat(p, t, "unexpected delegate");
    uint32_t x;
    p->labels.n--;
    TRY(label_idx(p, &x));
    put(o, 0x18);
    put_u(o, x);
    p->frames.n--;
    return TL_OK;
  }
  default:
    put_op(o, op);
    return immediates(p, op, o);
  }
}

/* instr* up to (not including) the enclosing ')', into o; only one folded
 * instruction when one is set. */
static tl_status instrs_n(P *p, buf *o, bool one) {
  size_t base = p->frames.n, lbase = p->labels.n;
  bool started = false;
  TRY(frame_push(p, FR_SEQ, 0, 0, NULL));
  while (p->frames.n > base) {
    frame *f = &TL_VEC_AT(&p->frames, frame, p->frames.n - 1);
    int k = cur_kind(p);
    if (o->bad || p->pend.bad) return tl_nomem(p->err, "code");
    if (one && started && f->kind == FR_SEQ) {
      p->frames.n--;
      break;
    }
    started = true;
    if (k == TK_RPAR) {
      if (f->kind == FR_SEQ) {
        p->frames.n--;
        break;
      }
      TRY(close_paren(p, o, f));
      continue;
    }
    if (f->kind == FR_IF_COND && take_lpar_kw(p, "then")) {
      flush_pend(p, o, f->pend);
      TRY(label_push(p, f->label));
      f->kind = FR_IF_THEN;
      continue;
    }
    if (k == TK_LPAR) {
      p->i++;
      TRY(folded(p, o));
      continue;
    }
    if (f->kind == FR_PLAIN || f->kind == FR_IF_COND) return unexpected(p);
    if (k == TK_EOF) return FAIL("unexpected end of input");
    TRY(flat(p, o, f));
  }
  if (p->labels.n != lbase) return FAIL("unexpected end of instructions");
  return TL_OK;
}

static tl_status instrs(P *p, buf *o) { return instrs_n(p, o, false); }

/* A constant expression: instr* then end, into o. */
static tl_status expr(P *p, buf *o) {
  TRY(instrs(p, o));
  mark(p, o, cur(p));
  put(o, 0x0b);
  return TL_OK;
}

/* ---------------------------------------------------------- module fields */
static int field_space(const P *p, const tl_tok *t) {
  for (int sp = SP_FUNC; sp <= SP_TAG; sp++)
    if (atom_is(p, t, space_name[sp])) return sp;
  return -1;
}

/* Skips (export ...) groups; true if an (import ...) follows. */
static bool skip_exports(P *p) {
  while (is_lpar_kw(p, "export")) p->i = cur(p)->aux + 1;
  return is_lpar_kw(p, "import");
}

/* Imports come before every function, table, memory, global and tag
 * definition. */
static tl_status note_def(P *p, int sp, bool import, const tl_tok *at) {
  for (int k = SP_FUNC; import && k <= SP_TAG; k++)
    if (p->defined[k]) return failat(p, at, "import after %s", space_name[k]);
  if (!import) p->defined[sp] = true;
  return TL_OK;
}

/* storagetype: a value type, i8 or i16. */
static tl_status storagetype(P *p, buf *o) {
  if (take_kw(p, "i8")) return put(o, 0x78), TL_OK;
  if (take_kw(p, "i16")) return put(o, 0x77), TL_OK;
  return valtype(p, o);
}

/* fieldtype: (mut st) or st. */
static tl_status fieldtype(P *p, buf *o) {
  bool mut = take_lpar_kw(p, "mut");
  TRY(storagetype(p, o));
  put(o, mut);
  return mut ? rpar(p) : TL_OK;
}

/* (struct (field $id? ft) | (field ft*) ...): fields into o, their count first. */
static tl_status struct_fields(P *p, buf *o) {
  buf fb = {0};
  uint32_t n = 0;
  tl_status st = TL_OK;
  while (!st && take_lpar_kw(p, "field")) {
    if (cur_kind(p) == TK_ID) {
      fname fn = {(uint32_t)p->types.n, n, 0, NULL};
      fn.s = id_name(p, cur(p), &fn.len);
      for (size_t k = 0; k < p->fnames.n; k++) {
        const fname *o = &TL_VEC_AT(&p->fnames, fname, k);
        if (o->type == fn.type && o->len == fn.len && !memcmp(o->s, fn.s, fn.len)) {
          st = FAIL("duplicate field $%.*s", (int)fn.len, fn.s);
          break;
        }
      }
      if (st) break;
      TL_VEC_PUSH(&p->fnames, fname, fn);
      p->i++;
      if (!(st = fieldtype(p, &fb))) n++;
    } else {
      while (!st && cur_kind(p) != TK_RPAR) st = fieldtype(p, &fb), n++;
    }
    if (!st) st = rpar(p);
  }
  if (!st) {
    put_u(o, n);
    put_buf(o, &fb);
  }
  bfree(&fb);
  return st;
}

/* A composite type: (func $id? sig), (struct ...) or (array ft). A
 * function type's encoding goes to p->scratch too (for type uses). */
static tl_status comptype(P *p, buf *o, uint32_t *np, uint32_t *nr, bool *func) {
  *np = *nr = 0;
  *func = false;
  if (take_lpar_kw(p, "func")) {
    if (cur_kind(p) == TK_ID) p->i++;
    TRY(sig(p, true, np, nr));
    encode_sig(p, *np, *nr);
    put_buf(o, &p->scratch);
    *func = true;
  } else if (take_lpar_kw(p, "struct")) {
    put(o, 0x5f);
    TRY(struct_fields(p, o));
  } else if (take_lpar_kw(p, "array")) {
    put(o, 0x5e);
    if (take_lpar_kw(p, "field")) { /* older spelling (array (field ft)) */
      TRY(fieldtype(p, o));
      TRY(rpar(p));
    } else {
      TRY(fieldtype(p, o));
    }
  } else {
    return FAIL("expected (func, (struct or (array");
  }
  return rpar(p);
}

/* (type $id? subtype) with subtype = (sub final? x* comptype) | comptype,
 * its id bound already; appended to o and to the type index space. */
static tl_status type_def(P *p, buf *o, bool alone) {
  uint32_t np, nr, got;
  bool func, plain = true;
  if (cur_kind(p) == TK_ID) p->i++;
  if (take_lpar_kw(p, "sub")) {
    bool final = take_kw(p, "final");
    buf sup = {0};
    uint32_t ns = 0;
    tl_status st = TL_OK;
    while (!st && cur_kind(p) != TK_LPAR && cur_kind(p) != TK_RPAR) {
      uint32_t x;
      if (!(st = idx_of(p, SP_TYPE, &x))) put_u(&sup, x), ns++;
    }
    if (!st) {
      put(o, final ? 0x4f : 0x50);
      put_u(o, ns);
      put_buf(o, &sup);
      st = comptype(p, o, &np, &nr, &func);
    }
    bfree(&sup);
    TRY(st);
    TRY(rpar(p));
    plain = false;
  } else {
    TRY(comptype(p, o, &np, &nr, &func));
  }
  TRY(rpar(p));
  return type_push(p, np, nr, func, plain && alone, &got);
}

/* Pass 1b: the explicit type definitions and rec groups, in order (their
 * ids are bound). */
static tl_status scan_types(P *p, size_t end) {
  p->win_next = TL_TEXT_WINDOW;
  buf g = {0};
  tl_status st = TL_OK;
  while (!st && p->i < end) {
    pass_at(p, cur(p));
    size_t next = cur(p)->aux + 1;
    breset(&g);
    if (atom_is(p, peek(p, 1), "type")) {
      p->i += 2;
      st = type_def(p, &g, true);
    } else if (atom_is(p, peek(p, 1), "rec")) {
      p->i += 2;
      buf items = {0};
      uint32_t n = 0;
      while (!st && take_lpar_kw(p, "type")) st = type_def(p, &items, false), n++;
      if (!st && cur_kind(p) != TK_RPAR) st = FAIL("expected (type in rec");
      put(&g, 0x4e);
      put_u(&g, n);
      put_buf(&g, &items);
      bfree(&items);
    } else {
      p->i = next;
      continue;
    }
    if (!st) {
      put_buf(&p->sec[S_TYPE], &g);
      p->secn[S_TYPE]++;
    }
    p->i = next;
  }
  bfree(&g);
  return st;
}

/* True if the field ending at token end holds an inline (kw ...) segment
 * among the groups from the cursor on: (memory (data ...)), (table t (elem ...)).
 * Such a segment takes the next index of its space where the field stands. */
static bool has_inline_seg(P *p, size_t end, const char *kw) {
  for (size_t i = p->i; i < end; i = kind(p, &p->t[i]) == TK_LPAR ? p->t[i].aux + 1 : i + 1)
    if (kind(p, &p->t[i]) == TK_LPAR && atom_is(p, &p->t[i + 1], kw)) return true;
  return false;
}

/* Pass 1: ids of every index space, the explicit types, memory64 flags. */
static tl_status scan(P *p, size_t end, tl_vec *mem64) {
  p->win_next = TL_TEXT_WINDOW;
  while (p->i < end) {
    pass_at(p, cur(p));
    if (cur_kind(p) != TK_LPAR) return unexpected(p);
    const tl_tok *open = cur(p);
    size_t next = open->aux + 1;
    p->i++;
    const tl_tok *kw = cur(p);
    int sp = field_space(p, kw);
    p->i++;
    if (atom_is(p, kw, "type")) {
      TRY(bind(p, SP_TYPE, p->count[SP_TYPE]++));
    } else if (atom_is(p, kw, "rec")) {
      while (is_lpar_kw(p, "type")) {
        size_t after = cur(p)->aux + 1;
        p->i += 2;
        TRY(bind(p, SP_TYPE, p->count[SP_TYPE]++));
        p->i = after;
      }
    } else if (sp >= 0) {
      TRY(bind(p, sp, p->count[sp]++));
      bool imp = skip_exports(p);
      TRY(note_def(p, sp, imp, kw));
      if (!imp && sp == SP_MEM && has_inline_seg(p, open->aux, "data")) p->count[SP_DATA]++;
      if (!imp && sp == SP_TABLE && has_inline_seg(p, open->aux, "elem")) p->count[SP_ELEM]++;
      if (sp == SP_MEM) {
        if (imp) p->i = cur(p)->aux + 1;
        uint8_t is64 = is_kw(p, "i64");
        TL_VEC_PUSH(mem64, uint8_t, is64);
      }
    } else if (atom_is(p, kw, "import")) {
      if (cur_kind(p) != TK_STR || kind(p, peek(p, 1)) != TK_STR || kind(p, peek(p, 2)) != TK_LPAR)
        return FAIL("malformed import");
      p->i += 3;
      sp = field_space(p, cur(p));
      if (sp < 0) return unexpected(p);
      p->i++;
      TRY(bind(p, sp, p->count[sp]++));
      TRY(note_def(p, sp, true, kw));
      if (sp == SP_MEM) {
        uint8_t is64 = is_kw(p, "i64");
        TL_VEC_PUSH(mem64, uint8_t, is64);
      }
    } else if (atom_is(p, kw, "elem") || atom_is(p, kw, "data")) {
      sp = atom_is(p, kw, "elem") ? SP_ELEM : SP_DATA;
      TRY(bind(p, sp, p->count[sp]++));
    } else if (!atom_is(p, kw, "export") && !atom_is(p, kw, "start")) {
      return failat(p, kw, "unknown module field");
    }
    p->i = next;
  }
  return TL_OK;
}

static tl_status inline_exports(P *p, uint8_t kind, uint32_t idx) {
  while (take_lpar_kw(p, "export")) {
    TRY(name(p, &p->sec[S_EXPORT], "export name"));
    put(&p->sec[S_EXPORT], kind);
    put_u(&p->sec[S_EXPORT], idx);
    p->secn[S_EXPORT]++;
    TRY(rpar(p));
  }
  return TL_OK;
}

/* (import "m" "n") inside a definition: writes the names; false if none. */
static tl_status inline_import(P *p, bool *has) {
  *has = take_lpar_kw(p, "import");
  if (!*has) return TL_OK;
  TRY(name(p, &p->sec[S_IMPORT], "module name"));
  TRY(name(p, &p->sec[S_IMPORT], "import name"));
  p->secn[S_IMPORT]++;
  return rpar(p);
}

/* addrtype? min max? [shared] into o with its flags byte. */
static tl_status limits(P *p, buf *o, bool mem) {
  bool is64 = take_kw(p, "i64");
  if (!is64) take_kw(p, "i32");
  uint64_t min, max = 0;
  const tl_tok *t = cur(p);
  if (!is_nat(p, t) || !tl_text_u64(text(p, t), t->aux, &min)) return is_nat(p, t) ? FAIL("constant out of range") : unexpected(p);
  p->i++;
  bool has_max = is_nat(p, cur(p));
  if (has_max) {
    if (!tl_text_u64(text(p, cur(p)), cur(p)->aux, &max)) return FAIL("constant out of range");
    p->i++;
  }
  bool shared = mem && take_kw(p, "shared");
  if (mem && take_kw(p, "unshared")) shared = false;
  put(o, (uint8_t)(has_max | (shared ? 2 : 0) | (is64 ? 4 : 0)));
  put_u(o, min);
  if (has_max) put_u(o, max);
  return TL_OK;
}

static tl_status globaltype(P *p, buf *o) {
  if (take_lpar_kw(p, "mut")) {
    TRY(valtype(p, o));
    put(o, 1);
    return rpar(p);
  }
  TRY(valtype(p, o));
  put(o, 0);
  return TL_OK;
}

/* Resets the per-function local names. */
static void locals_reset(P *p) {
  hclear(&p->locals);
  p->nlocals = 0;
}

static tl_status local_name(P *p, const char *s, uint32_t len) {
  uint32_t old;
  if (s && hget(&p->locals, s, len, &old)) return FAIL("duplicate local $%.*s", (int)len, s);
  if (s && !hput(&p->locals, s, len, p->nlocals)) return tl_nomem(p->err, "locals");
  p->nlocals++;
  return TL_OK;
}

/* (local $x t) / (local t*) into p->ltypes. */
static tl_status locals(P *p) {
  p->ltypes.n = 0;
  while (take_lpar_kw(p, "local")) {
    const tl_tok *id = cur_kind(p) == TK_ID ? cur(p) : NULL;
    const char *name_s = NULL;
    uint32_t name_len = 0;
    if (id) name_s = id_name(p, id, &name_len), p->i++;
    while (cur_kind(p) != TK_RPAR) {
      buf *b = &p->scratch;
      breset(b);
      TRY(valtype(p, b));
      lty l = {{0}, 0};
      if (b->bad) return tl_nomem(p->err, "locals");
      if (b->n > sizeof l.b) return FAIL("bad local type");
      memcpy(l.b, b->p, b->n);
      l.n = (uint8_t)b->n;
      TL_VEC_PUSH(&p->ltypes, lty, l);
      TRY(local_name(p, name_s, name_len));
      if (id) break;
    }
    TRY(rpar(p));
  }
  return TL_OK;
}

static void put_locals(P *p, buf *o) {
  uint32_t runs = 0;
  lty *l = p->ltypes.p;
  for (size_t i = 0; i < p->ltypes.n; i++)
    if (!i || l[i].n != l[i - 1].n || memcmp(l[i].b, l[i - 1].b, l[i].n)) runs++;
  put_u(o, runs);
  for (size_t i = 0; i < p->ltypes.n;) {
    size_t j = i;
    while (j < p->ltypes.n && l[j].n == l[i].n && !memcmp(l[j].b, l[i].b, l[i].n)) j++;
    put_u(o, j - i);
    putn(o, l[i].b, l[i].n);
    i = j;
  }
}

/* Function idx's param and local ids (in p->locals) as an entry of name
 * subsection 2. */
static void local_ids(P *p, uint32_t idx) {
  if (!p->locals.n) return;
  put_u(&p->lnames, idx);
  put_name_map(&p->lnames, &p->locals);
  p->nlnames++;
}

static tl_status func_field(P *p) {
  uint32_t idx = p->next[SP_FUNC]++, ty, np;
  if (cur_kind(p) == TK_ID) p->i++;
  TRY(inline_exports(p, 0, idx));
  bool imp;
  TRY(inline_import(p, &imp));
  TRY(typeuse(p, !imp, &ty, &np));
  if (imp) {
    put(&p->sec[S_IMPORT], 0);
    put_u(&p->sec[S_IMPORT], ty);
    return rpar(p);
  }
  put_u(&p->sec[S_FUNC], ty);
  p->secn[S_FUNC]++;
  locals_reset(p);
  for (uint32_t k = 0; k < np; k++) {
    label *pn = k < p->pnames.n ? &TL_VEC_AT(&p->pnames, label, k) : NULL;
    TRY(local_name(p, pn ? pn->s : NULL, pn ? pn->len : 0));
  }
  TRY(locals(p));
  local_ids(p, idx);
  breset(&p->body);
  put_locals(p, &p->body);
  p->labels.n = 0;
  TRY(expr(p, &p->body));
  if (p->body.bad) return tl_nomem(p->err, "code");
  put_u(&p->sec[S_CODE], p->body.n);
  put_buf(&p->sec[S_CODE], &p->body);
  p->secn[S_CODE]++;
  return rpar(p);
}

/* An offset or element item: (kw instr*) or one folded instruction. */
static tl_status offset(P *p, buf *o, const char *kw) {
  if (take_lpar_kw(p, kw)) {
    p->labels.n = 0;
    TRY(expr(p, o));
    return rpar(p);
  }
  if (cur_kind(p) != TK_LPAR) return unexpected(p);
  p->labels.n = 0;
  TRY(instrs_n(p, o, true));
  put(o, 0x0b);
  return TL_OK;
}

/* elemlist: reftype (item ...)* | func x* | x* ; flags bit 2 set when the
 * items are expressions. Writes [elemkind/reftype] vec(items) into o. */
static tl_status elemlist(P *p, buf *o, uint32_t *flags, bool need_kind) {
  buf items = {0};
  uint32_t n = 0;
  tl_status st = TL_OK;
  bool exprs = false;
  buf rt = {0};
  if (take_kw(p, "func")) {
  } else if (is_valtype_start(p)) {
    exprs = true;
    st = reftype(p, &rt);
  }
  while (!st && cur_kind(p) != TK_RPAR) {
    if (exprs) {
      st = offset(p, &items, "item");
    } else {
      uint32_t x;
      if (cur_kind(p) == TK_LPAR) { st = unexpected(p); break; }
      st = idx_of(p, SP_FUNC, &x);
      put_u(&items, x);
    }
    n++;
  }
  if (!st) {
    if (exprs) *flags |= 4, put_buf(o, &rt);
    else if (need_kind) put(o, 0);
    put_u(o, n);
    put_buf(o, &items);
    if (o->bad) st = tl_nomem(p->err, "elem");
  }
  bfree(&items);
  bfree(&rt);
  return st;
}

/* Writes an element segment: flags, table, offset, then the list. */
static tl_status elem_seg(P *p, int mode, uint32_t table, buf *off) {
  buf *e = &p->sec[S_ELEM];
  buf tmp = {0};
  uint32_t flags = mode == 0 ? (table ? 2 : 0) : mode == 1 ? 1 : 3;
  tl_status st = elemlist(p, &tmp, &flags, flags & 3);
  if (st == TL_OK) {
    if (mode == 0 && !table && (flags & 4)) {
      /* flags 4 means funcref only; other types need 6 with table 0 */
      if (tmp.n && tmp.p[0] != 0x70) flags = 6;
      else {
        memmove(tmp.p, tmp.p + 1, tmp.n - 1); /* drop the reftype byte */
        tmp.n--;
      }
    }
    put_u(e, flags);
    if (mode == 0 && (flags & 2)) put_u(e, table);
    if (mode == 0) put_buf(e, off);
    put_buf(e, &tmp);
    p->secn[S_ELEM]++;
  }
  bfree(&tmp);
  return st;
}

static tl_status elem_field(P *p) {
  if (cur_kind(p) == TK_ID) p->i++;
  if (take_kw(p, "declare")) return elem_seg(p, 2, 0, NULL);
  uint32_t table = 0;
  bool active = false;
  if (take_lpar_kw(p, "table")) {
    TRY(idx_of(p, SP_TABLE, &table));
    TRY(rpar(p));
    active = true;
  }
  if (!active && (cur_kind(p) != TK_LPAR || is_lpar_kw(p, "item") || is_lpar_kw(p, "ref")))
    return elem_seg(p, 1, 0, NULL);
  buf off = {0};
  tl_status st = offset(p, &off, "offset");
  if (!st) st = elem_seg(p, 0, table, &off);
  bfree(&off);
  return st;
}

/* Data strings concatenated into p->body. */
static tl_status data_strings(P *p) {
  breset(&p->body);
  while (cur_kind(p) == TK_STR) {
    TRY(str(p, "data"));
    put_buf(&p->body, &p->scratch);
  }
  return p->body.bad ? tl_nomem(p->err, "data") : TL_OK;
}

static tl_status data_field(P *p) {
  buf *d = &p->sec[S_DATA];
  if (cur_kind(p) == TK_ID) p->i++;
  if (cur_kind(p) != TK_LPAR) {
    put(d, 1);
  } else {
    uint32_t mem = 0;
    if (take_lpar_kw(p, "memory")) {
      TRY(idx_of(p, SP_MEM, &mem));
      TRY(rpar(p));
    }
    if (mem) put(d, 2), put_u(d, mem);
    else put(d, 0);
    TRY(offset(p, d, "offset"));
  }
  TRY(data_strings(p));
  put_u(d, p->body.n);
  put_buf(d, &p->body);
  p->secn[S_DATA]++;
  return TL_OK;
}

static tl_status table_field(P *p) {
  uint32_t idx = p->next[SP_TABLE]++;
  if (cur_kind(p) == TK_ID) p->i++;
  TRY(inline_exports(p, 1, idx));
  bool imp;
  TRY(inline_import(p, &imp));
  buf *o = imp ? &p->sec[S_IMPORT] : &p->sec[S_TABLE];
  if (imp) put(o, 1);
  else p->secn[S_TABLE]++;
  size_t at = p->i;
  bool is64 = is_kw(p, "i64");
  if (is64 || is_kw(p, "i32")) p->i++;
  if (!imp && is_valtype_start(p)) {
    /* table with inline elements: reftype (elem ...) */
    buf rt = {0};
    tl_status st = reftype(p, &rt);
    if (!st && !take_lpar_kw(p, "elem")) st = FAIL("expected (elem");
    size_t save = p->i;
    uint32_t n = 0;
    if (!st) {
      /* count the items (only a '(' has a match: a stray atom among
       * expressions steps by one, and offset() rejects it below) */
      for (; cur_kind(p) != TK_RPAR && cur_kind(p) != TK_EOF; n++)
        p->i = cur_kind(p) == TK_LPAR ? cur(p)->aux + 1 : p->i + 1;
      p->i = save;
      put_buf(o, &rt);
      put(o, is64 ? 5 : 1), put_u(o, n), put_u(o, n);
      buf off = {0};
      put(&off, is64 ? 0x42 : 0x41), put(&off, 0), put(&off, 0x0b);
      /* the list: a reftype then items, or function indices */
      p->i = save;
      buf *e = &p->sec[S_ELEM];
      if (cur_kind(p) == TK_LPAR) {
        bool six = idx || rt.n != 1 || rt.p[0] != 0x70;
        put_u(e, six ? 6 : 4);
        if (six) put_u(e, idx);
        put_buf(e, &off);
        if (six) put_buf(e, &rt);
        put_u(e, n);
        for (uint32_t k = 0; k < n && !st; k++) st = offset(p, e, "item");
      } else if (rt.n != 1 || rt.p[0] != 0x70) { /* a typed table: ref.func items of its type */
        put_u(e, 6);
        put_u(e, idx);
        put_buf(e, &off);
        put_buf(e, &rt);
        put_u(e, n);
        for (uint32_t k = 0; k < n && !st; k++) {
          uint32_t x;
          st = idx_of(p, SP_FUNC, &x);
          put(e, 0xd2), put_u(e, x), put(e, 0x0b);
        }
      } else {
        put_u(e, idx ? 2 : 0);
        if (idx) put_u(e, idx);
        put_buf(e, &off);
        if (idx) put(e, 0);
        put_u(e, n);
        for (uint32_t k = 0; k < n && !st; k++) {
          uint32_t x;
          st = idx_of(p, SP_FUNC, &x);
          put_u(e, x);
        }
      }
      p->secn[S_ELEM]++;
      bfree(&off);
      if (!st) st = rpar(p);
    }
    bfree(&rt);
    TRY(st);
    return rpar(p);
  }
  p->i = at; /* limits reads the address type */
  buf lim = {0}, rt = {0};
  tl_status st = limits(p, &lim, false);
  if (!st) st = reftype(p, &rt);
  if (!st && !imp && cur_kind(p) == TK_LPAR) {
    /* table with an initializer expression; a null one is the plain form */
    buf e = {0};
    p->labels.n = 0;
    st = expr(p, &e);
    put(o, 0x40), put(o, 0);
    put_buf(o, &rt);
    put_buf(o, &lim);
    put_buf(o, &e);
    bfree(&e);
  } else if (!st) {
    put_buf(o, &rt);
    put_buf(o, &lim);
  }
  bfree(&lim);
  bfree(&rt);
  TRY(st);
  return rpar(p);
}

static tl_status memory_field(P *p) {
  uint32_t idx = p->next[SP_MEM]++;
  if (cur_kind(p) == TK_ID) p->i++;
  TRY(inline_exports(p, 2, idx));
  bool imp;
  TRY(inline_import(p, &imp));
  buf *o = imp ? &p->sec[S_IMPORT] : &p->sec[S_MEM];
  if (imp) put(o, 2);
  else p->secn[S_MEM]++;
  bool is64 = is_kw(p, "i64");
  if (!imp && (is_lpar_kw(p, "data") || ((is_kw(p, "i64") || is_kw(p, "i32")) && is_lpar_kw_at(p, 1, "data")))) {
    if (!is_lpar_kw(p, "data")) p->i++;
    p->i += 2;
    TRY(data_strings(p));
    uint64_t pages = (p->body.n + 65535) / 65536;
    put(o, is64 ? 5 : 1), put_u(o, pages), put_u(o, pages);
    buf *d = &p->sec[S_DATA];
    if (idx) put(d, 2), put_u(d, idx);
    else put(d, 0);
    put(d, is64 ? 0x42 : 0x41), put(d, 0), put(d, 0x0b);
    put_u(d, p->body.n);
    put_buf(d, &p->body);
    p->secn[S_DATA]++;
    TRY(rpar(p));
    return rpar(p);
  }
  TRY(limits(p, o, true));
  return rpar(p);
}

static tl_status global_field(P *p) {
  uint32_t idx = p->next[SP_GLOBAL]++;
  if (cur_kind(p) == TK_ID) p->i++;
  TRY(inline_exports(p, 3, idx));
  bool imp;
  TRY(inline_import(p, &imp));
  buf *o = imp ? &p->sec[S_IMPORT] : &p->sec[S_GLOBAL];
  if (imp) put(o, 3);
  else p->secn[S_GLOBAL]++;
  TRY(globaltype(p, o));
  if (!imp) {
    p->labels.n = 0;
    TRY(expr(p, o));
  }
  return rpar(p);
}

static tl_status tag_field(P *p) {
  uint32_t idx = p->next[SP_TAG]++, ty, np;
  if (cur_kind(p) == TK_ID) p->i++;
  TRY(inline_exports(p, 4, idx));
  bool imp;
  TRY(inline_import(p, &imp));
  buf *o = imp ? &p->sec[S_IMPORT] : &p->sec[S_TAG];
  if (imp) put(o, 4);
  else p->secn[S_TAG]++;
  TRY(typeuse(p, false, &ty, &np));
  put(o, 0);
  put_u(o, ty);
  return rpar(p);
}

/* (import "m" "n" (kind $id? desc)) */
static tl_status import_field(P *p) {
  buf *o = &p->sec[S_IMPORT];
  TRY(name(p, o, "module name"));
  TRY(name(p, o, "import name"));
  p->secn[S_IMPORT]++;
  TRY(lpar(p));
  int sp = field_space(p, cur(p));
  p->i++;
  uint32_t idx = p->next[sp]++, ty, np;
  (void)idx;
  if (cur_kind(p) == TK_ID) p->i++;
  buf lim = {0}, rt = {0};
  tl_status st = TL_OK;
  switch (sp) {
  case SP_FUNC:
    TRY(typeuse(p, true, &ty, &np));
    put(o, 0), put_u(o, ty);
    break;
  case SP_TABLE:
    st = limits(p, &lim, false);
    if (!st) st = reftype(p, &rt);
    put(o, 1), put_buf(o, &rt), put_buf(o, &lim);
    break;
  case SP_MEM: put(o, 2); st = limits(p, o, true); break;
  case SP_GLOBAL: put(o, 3); st = globaltype(p, o); break;
  default:
    TRY(typeuse(p, false, &ty, &np));
    put(o, 4), put(o, 0), put_u(o, ty);
  }
  bfree(&lim);
  bfree(&rt);
  TRY(st);
  TRY(rpar(p));
  return rpar(p);
}

static tl_status export_field(P *p) {
  static const char *const kinds[] = {"func", "table", "memory", "global", "tag"};
  buf *o = &p->sec[S_EXPORT];
  TRY(name(p, o, "export name"));
  TRY(lpar(p));
  for (int k = 0; k < 5; k++)
    if (is_kw(p, kinds[k])) {
      uint32_t x;
      p->i++;
      TRY(idx_of(p, SP_FUNC + k, &x));
      put(o, (uint8_t)k), put_u(o, x);
      p->secn[S_EXPORT]++;
      TRY(rpar(p));
      return rpar(p);
    }
  return unexpected(p);
}

static tl_status start_field(P *p) {
  uint32_t x;
  if (p->has_start) return FAIL("multiple start sections");
  TRY(idx_of(p, SP_FUNC, &x));
  p->has_start = true;
  put_u(&p->sec[S_START], x);
  return rpar(p);
}

/* Pass 2: every field's entries. */
static tl_status emit(P *p, size_t end) {
  p->win_next = TL_TEXT_WINDOW;
  while (p->i < end) {
    pass_at(p, cur(p));
    size_t next = cur(p)->aux + 1;
    p->i++;
    const tl_tok *kw = cur(p);
    p->i++;
    tl_status st = TL_OK;
    if (atom_is(p, kw, "func")) st = func_field(p);
    else if (atom_is(p, kw, "table")) st = table_field(p);
    else if (atom_is(p, kw, "memory")) st = memory_field(p);
    else if (atom_is(p, kw, "global")) st = global_field(p);
    else if (atom_is(p, kw, "tag")) st = tag_field(p);
    else if (atom_is(p, kw, "import")) st = import_field(p);
    else if (atom_is(p, kw, "export")) st = export_field(p);
    else if (atom_is(p, kw, "start")) st = start_field(p);
    else if (atom_is(p, kw, "elem")) st = elem_field(p), st = st ? st : rpar(p);
    else if (atom_is(p, kw, "data")) st = data_field(p), st = st ? st : rpar(p);
    else p->i = next; /* type: done in pass 1 */
    TRY(st);
    if (p->i != next) return unexpected(p);
  }
  return TL_OK;
}

/* Subsection id holding body, unless body is empty. */
static void put_subsection(buf *out, uint8_t id, buf *body) {
  if (!body->n && !body->bad) return;
  put(out, id);
  put_u(out, body->n);
  put_buf(out, body);
}

/* The name map of space sp's ids as subsection id. */
static void id_map(P *p, int sp, uint8_t id, buf *out) {
  if (!p->names[sp].n) return;
  buf map = {0};
  put_name_map(&map, &p->names[sp]);
  put_subsection(out, id, &map);
  bfree(&map);
}

/* Subsection 2, the indirect map func -> (local -> name), from the
 * entries func_field added in function order. */
static void local_map(P *p, buf *out) {
  if (!p->nlnames) return;
  buf map = {0};
  put_u(&map, p->nlnames);
  put_buf(&map, &p->lnames);
  put_subsection(out, 2, &map);
  bfree(&map);
}

/* Subsection 10, type -> (field -> name), from the struct field ids
 * (p->fnames: in type order, then field order). */
static void field_map(P *p, buf *out) {
  if (!p->fnames.n) return;
  buf map = {0};
  uint32_t nt = 0;
  for (size_t k = 0; k < p->fnames.n; k++)
    nt += !k || TL_VEC_AT(&p->fnames, fname, k).type != TL_VEC_AT(&p->fnames, fname, k - 1).type;
  put_u(&map, nt);
  for (size_t k = 0; k < p->fnames.n;) {
    size_t j = k;
    uint32_t t = TL_VEC_AT(&p->fnames, fname, k).type;
    while (j < p->fnames.n && TL_VEC_AT(&p->fnames, fname, j).type == t) j++;
    put_u(&map, t);
    put_u(&map, (uint32_t)(j - k));
    for (; k < j; k++) {
      const fname *f = &TL_VEC_AT(&p->fnames, fname, k);
      put_u(&map, f->field);
      put_id(&map, f->s, f->len);
    }
  }
  put_subsection(out, 10, &map);
  bfree(&map);
}

/* The custom section "name" with the ids ($name) written in the text, as
 * wat2wasm --debug-names and wasm-opt keep them: passes and lists
 * (asyncify's, say) see the names, the printer prints them, and -g writes
 * them. Subsections in increasing id order: functions (1), locals (2),
 * types (4), tables (5), memories (6), globals (7), elem (8) and data (9)
 * segments, tags (11). */
static void name_section(P *p, buf *out) {
  buf subs = {0};
  id_map(p, SP_FUNC, 1, &subs);
  local_map(p, &subs);
  id_map(p, SP_TYPE, 4, &subs);
  id_map(p, SP_TABLE, 5, &subs);
  id_map(p, SP_MEM, 6, &subs);
  id_map(p, SP_GLOBAL, 7, &subs);
  id_map(p, SP_ELEM, 8, &subs);
  id_map(p, SP_DATA, 9, &subs);
  field_map(p, &subs);
  id_map(p, SP_TAG, 11, &subs);
  if (subs.n || subs.bad) {
    buf sec = {0};
    put_id(&sec, "name", 4);
    put_buf(&sec, &subs);
    put_subsection(out, 0, &sec);
    bfree(&sec);
  }
  bfree(&subs);
}

/* Whether section s is written, and its bytes after the id and size. */
static bool sec_present(const P *p, int s) {
  return s == S_START ? p->has_start : s == S_DATACOUNT ? p->need_datacount : p->secn[s] > 0;
}
static size_t sec_size(const P *p, int s) {
  return (s == S_START ? 0 : tl_uleb_size(p->secn[s])) + p->sec[s].n;
}

/* The module: each section's bytes go to out once (and are freed), out
 * sized up front. */
static void assemble(P *p, buf *out) {
  static const uint8_t head[8] = {0, 'a', 's', 'm', 1, 0, 0, 0};
  if (p->need_datacount) {
    breset(&p->sec[S_DATACOUNT]);
    p->secn[S_DATACOUNT] = p->secn[S_DATA];
  }
  size_t total = sizeof head;
  for (int s = 0; s < NSEC; s++)
    if (sec_present(p, s)) total += 1 + tl_uleb_size(sec_size(p, s)) + sec_size(p, s);
  grow(out, total);
  putn(out, head, sizeof head);
  for (int s = 0; s < NSEC; s++) {
    if (!sec_present(p, s)) continue;
    put(out, sec_id[s]);
    put_u(out, sec_size(p, s));
    if (s != S_START) put_u(out, p->secn[s]);
    put_buf(out, &p->sec[s]);
    bfree(&p->sec[s]);
  }
  name_section(p, out);
}

static void p_free(P *p) {
  for (int s = 0; s < NSP; s++) tl_free(p->names[s].e);
  for (int s = 0; s < NSEC; s++) bfree(&p->sec[s]);
  bfree(&p->tb), bfree(&p->body), bfree(&p->pend), bfree(&p->sp), bfree(&p->sr), bfree(&p->scratch);
  tl_vec_free(&p->types);
  tl_vec_free(&p->labels);
  tl_vec_free(&p->frames);
  tl_vec_free(&p->pnames);
  tl_vec_free(&p->ltypes);
  tl_vec_free(&p->fnames);
  bfree(&p->lnames);
  tl_free(p->locals.e);
  tl_free(p->tslot);
  tl_free(p->ops);
}

static tl_status text_module(const tl_toks *t, size_t *pos, bool whole, uint8_t **out, size_t *size,
                              tl_vec *marks, tl_error *err) {
  tl_vec mem64 = {0};
  P p = {.tk = t, .t = t->t, .src = t->src, .i = *pos, .err = err, .mem64 = &mem64, .marking = marks != NULL};
  tl_status st = TL_OK;
  *out = NULL;
  *size = 0;
  size_t end;
  ops_init(&p);
  if (!p.ops) return tl_nomem(err, "text");
  if (is_lpar_kw(&p, "module")) {
    end = cur(&p)->aux;
    p.i += 2;
    take_kw(&p, "definition");
    if (cur_kind(&p) == TK_ID) p.i++;
    if (is_kw(&p, "binary") || is_kw(&p, "quote"))
      st = failat(&p, cur(&p), "binary and quoted modules are read by the script runner");
  } else if (whole) {
    end = t->ntok - 1;
  } else {
    st = unexpected(&p);
    end = p.i;
  }
  size_t start = p.i;
  if (!st) st = scan(&p, end, &mem64);
  if (!st) {
    p.i = start;
    st = scan_types(&p, end);
  }
  if (!st) {
    p.i = start;
    st = emit(&p, end);
  }
  if (!st) {
    buf o = {0};
    assemble(&p, &o);
    if (o.bad) {
      bfree(&o);
      st = tl_nomem(err, "module");
    } else {
      *out = o.p;
      *size = o.n;
      if (marks) *marks = o.mk;
      else tl_vec_free(&o.mk);
      p.i = end + (end < t->ntok - 1);
      if (whole && cur_kind(&p) != TK_EOF) {
        tl_free(o.p);
        *out = NULL;
        st = unexpected(&p);
      }
    }
  }
  *pos = p.i;
  tl_vec_free(&mem64);
  p_free(&p);
  return st;
}

tl_status tl_text_module(const tl_toks *t, size_t *pos, bool whole, uint8_t **out, size_t *size,
                         tl_error *err) {
  return text_module(t, pos, whole, out, size, NULL, err);
}

tl_status tl_text_module_marks(const tl_toks *t, size_t *pos, bool whole, uint8_t **out, size_t *size,
                               tl_vec *marks, tl_error *err) {
  *marks = (tl_vec){0};
  return text_module(t, pos, whole, out, size, marks, err);
}
