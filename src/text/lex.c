/* lex.c — the text format's tokens and literals: atoms (keywords, numbers,
 * reserved words), $ids (also $"quoted"), strings with escapes, parentheses
 * matched with an explicit stack; line comments, nested block comments and
 * annotations (@...) are dropped. Literal parsers check the spec's grammar
 * (underscores only between digits) and ranges; floats are rounded by
 * strtof/strtod (correctly rounded, hex floats included). */
#include "text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tl_text_locate(tl_error *err, const char *src, size_t off) {
  uint32_t line = 1, col = 1;
  for (size_t i = 0; src && i < off; i++) {
    if (src[i] == '\n') line++, col = 1;
    else col++;
  }
  err->offset = off;
  err->line = src ? line : 0;
  err->col = src ? col : 0;
}

tl_status tl_text_fail(tl_error *err, tl_status code, const char *src, size_t off, const char *fmt,
                       ...) {
  if (!err) return code;
  err->code = code;
  err->func_index = TL_NO_FUNC;
  tl_text_locate(err, src, off);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return code;
}

static bool is_idchar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return c && strchr("!#$%&'*+-./:<=>?@\\^_`|~", c);
}

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') return (c | 0x20) - 'a' + 10;
  return -1;
}

typedef struct {
  const char *s;
  size_t n, i;
  tl_error *err;
  tl_vec *toks;
  tl_vec *owned;     /* char *: decoded quoted ids */
  tl_vec open;       /* uint32_t: indices of unmatched TK_LPARs */
  size_t ann;        /* inside an annotation (@...): its open parentheses; its
                        tokens are checked but not kept */
  size_t ann_at;     /* where the outermost annotation began */
} lx;

static tl_status lfail(lx *l, size_t off, const char *msg) {
  return tl_text_fail(l->err, TL_E_MALFORMED, l->s, off, "%s", msg);
}

/* Skips a block comment starting at l->i ("(;"); nesting counted. */
static tl_status block_comment(lx *l) {
  size_t start = l->i, depth = 0;
  while (l->i + 1 < l->n) {
    if (l->s[l->i] == '(' && l->s[l->i + 1] == ';') depth++, l->i += 2;
    else if (l->s[l->i] == ';' && l->s[l->i + 1] == ')') {
      l->i += 2;
      if (--depth == 0) return TL_OK;
    } else l->i++;
  }
  return lfail(l, start, "unclosed block comment");
}

/* A string at l->i ('"'): checks escapes and UTF-8; l->i moves past it. */
static tl_status string(lx *l) {
  size_t start = l->i++;
  while (l->i < l->n) {
    unsigned char c = (unsigned char)l->s[l->i];
    if (c == '"') { l->i++; return TL_OK; }
    if (c == '\n' || c < 0x20 || c == 0x7f) return lfail(l, l->i, "illegal character in string");
    if (c != '\\') { l->i++; continue; }
    size_t at = l->i++;
    if (l->i >= l->n) break;
    c = (unsigned char)l->s[l->i];
    if (strchr("tnr\"'\\", c)) { l->i++; continue; }
    if (c == 'u') {
      uint32_t v = 0;
      size_t nd = 0;
      if (l->i + 1 >= l->n || l->s[l->i + 1] != '{') return lfail(l, at, "malformed escape in string");
      l->i += 2;
      while (l->i < l->n && (hexval((unsigned char)l->s[l->i]) >= 0 || (l->s[l->i] == '_' && nd))) {
        if (l->s[l->i] != '_') v = v > 0x10ffff ? v : v * 16 + (uint32_t)hexval((unsigned char)l->s[l->i]), nd++;
        l->i++;
      }
      if (!nd || l->i >= l->n || l->s[l->i] != '}' || v > 0x10ffff || (v >= 0xd800 && v < 0xe000))
        return lfail(l, at, "malformed unicode escape in string");
      l->i++;
      continue;
    }
    if (hexval(c) >= 0 && l->i + 1 < l->n && hexval((unsigned char)l->s[l->i + 1]) >= 0) {
      l->i += 2;
      continue;
    }
    return lfail(l, at, "malformed escape in string");
  }
  return lfail(l, start, "unclosed string");
}

size_t tl_text_unescape(const char *s, size_t len, uint8_t *out) {
  size_t n = 0;
  for (size_t i = 1; i + 1 < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c != '\\') { out[n++] = c; continue; }
    c = (unsigned char)s[++i];
    switch (c) {
    case 't': out[n++] = '\t'; break;
    case 'n': out[n++] = '\n'; break;
    case 'r': out[n++] = '\r'; break;
    case 'u': {
      uint32_t v = 0;
      for (i += 2; s[i] != '}'; i++)
        if (s[i] != '_') v = v * 16 + (uint32_t)hexval((unsigned char)s[i]);
      if (v < 0x80) out[n++] = (uint8_t)v;
      else if (v < 0x800) out[n++] = (uint8_t)(0xc0 | v >> 6), out[n++] = (uint8_t)(0x80 | (v & 0x3f));
      else if (v < 0x10000) {
        out[n++] = (uint8_t)(0xe0 | v >> 12);
        out[n++] = (uint8_t)(0x80 | ((v >> 6) & 0x3f));
        out[n++] = (uint8_t)(0x80 | (v & 0x3f));
      } else {
        out[n++] = (uint8_t)(0xf0 | v >> 18);
        out[n++] = (uint8_t)(0x80 | ((v >> 12) & 0x3f));
        out[n++] = (uint8_t)(0x80 | ((v >> 6) & 0x3f));
        out[n++] = (uint8_t)(0x80 | (v & 0x3f));
      }
      break;
    }
    default:
      if (hexval(c) >= 0) {
        out[n++] = (uint8_t)(hexval(c) * 16 + hexval((unsigned char)s[i + 1]));
        i++;
      } else out[n++] = c;
    }
  }
  return n;
}

/* True if bytes are valid UTF-8 (no overlong forms, no surrogates). */
static bool utf8_ok(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n;) {
    uint8_t c = p[i];
    size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
    if (k == 9 || n - i <= k) return false;
    uint32_t v = k ? c & (0x3fu >> k) : c;
    for (size_t j = 1; j <= k; j++) {
      if ((p[i + j] & 0xc0) != 0x80) return false;
      v = v << 6 | (p[i + j] & 0x3f);
    }
    if ((k == 1 && v < 0x80) || (k == 2 && v < 0x800) || (k == 3 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v < 0xe000))
      return false;
    i += k + 1;
  }
  return true;
}

static tl_status push(lx *l, uint8_t kind, size_t off, size_t len) {
  if (l->ann) return TL_OK;
  tl_tok t = {.kind = kind, .len = (uint32_t)len, .off = off, .s = l->s + off};
  if (len > UINT32_MAX) return lfail(l, off, "token too long");
  size_t n0 = l->toks->n;
  TL_VEC_PUSH(l->toks, tl_tok, t);
  if (l->toks->n == n0) return tl_nomem(l->err, "tokens");
  return TL_OK;
}

/* An id token whose name (without '$', decoded if quoted) is s. Inside an
 * annotation nothing is pushed, so there is no token to name. */
static tl_status push_id(lx *l, size_t off, size_t len, const char *s) {
  TRY(push(l, TK_ID, off, len));
  if (!l->ann) TL_VEC_AT(l->toks, tl_tok, l->toks->n - 1).s = s;
  return TL_OK;
}

/* After an atom, id or string the next character must end the token. */
static bool ends_token(lx *l) {
  if (l->i >= l->n) return true;
  char c = l->s[l->i];
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ')' ||
         (c == ';' && l->i + 1 < l->n && l->s[l->i + 1] == ';');
}

/* After an atom, id or string the next character must end the token: else
 * the run is one reserved token (idchars, strings, ",;[]{}"), an error
 * outside annotations. */
static tl_status separated(lx *l, size_t start) {
  while (!ends_token(l)) {
    if (!l->ann) return lfail(l, start, "unknown operator: tokens not separated");
    char c = l->s[l->i];
    if (c == '"') TRY(string(l));
    else if (is_idchar((unsigned char)c) || (c && strchr(",;[]{}", c))) l->i++;
    else return lfail(l, l->i, "unexpected character");
  }
  return TL_OK;
}

static tl_status id_token(lx *l) {
  size_t start = l->i++;
  if (l->i < l->n && l->s[l->i] == '"') {
    size_t q = l->i;
    TRY(string(l));
    size_t raw = l->i - q;
    char *d = tl_malloc(raw + 1);
    if (!d) return tl_nomem(l->err, "id");
    size_t n = tl_text_unescape(l->s + q, raw, (uint8_t *)d), n0 = l->owned->n;
    TL_VEC_PUSH(l->owned, char *, d);
    if (l->owned->n == n0) {
      tl_free(d);
      return tl_nomem(l->err, "id");
    }
    if (!n) return lfail(l, start, "empty identifier");
    if (!utf8_ok((const uint8_t *)d, n)) return lfail(l, start, "malformed UTF-8 encoding in identifier");
    TRY(push_id(l, start, n, d));
    return separated(l, start);
  }
  while (l->i < l->n && is_idchar((unsigned char)l->s[l->i])) l->i++;
  if (l->i == start + 1) return lfail(l, start, "empty identifier");
  TRY(push_id(l, start, l->i - start - 1, l->s + start + 1));
  return separated(l, start);
}

static tl_status paren(lx *l, char c) {
  size_t at = l->i++;
  if (l->ann) {
    if (c == '(') l->ann++;
    else l->ann--;
    return TL_OK;
  }
  if (c == '(') {
    uint32_t idx = (uint32_t)l->toks->n;
    size_t n0 = l->open.n;
    TL_VEC_PUSH(&l->open, uint32_t, idx);
    if (l->open.n == n0) return tl_nomem(l->err, "parentheses");
    return push(l, TK_LPAR, at, 1);
  }
  if (!l->open.n) return lfail(l, at, "unexpected \")\"");
  uint32_t o = TL_VEC_AT(&l->open, uint32_t, --l->open.n);
  TL_VEC_AT(l->toks, tl_tok, o).match = (uint32_t)l->toks->n;
  return push(l, TK_RPAR, at, 1);
}

static tl_status token(lx *l) {
  char c = l->s[l->i];
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r') { l->i++; return TL_OK; }
  if (c == ';' && l->i + 1 < l->n && l->s[l->i + 1] == ';') {
    while (l->i < l->n && l->s[l->i] != '\n' && l->s[l->i] != '\r') l->i++;
    return TL_OK;
  }
  if (c == '(' && l->i + 1 < l->n && l->s[l->i + 1] == ';') return block_comment(l);
  if (c == '(' && !l->ann && l->i + 1 < l->n && l->s[l->i + 1] == '@') {
    if (l->i + 2 >= l->n || (!is_idchar((unsigned char)l->s[l->i + 2]) && l->s[l->i + 2] != '"'))
      return lfail(l, l->i, "empty annotation id");
    l->ann = 1;
    l->ann_at = l->i;
    l->i += 2;
    if (l->s[l->i] == '"') { /* a name: not empty, valid UTF-8 */
      size_t q = l->i;
      TRY(string(l));
      uint8_t *d = tl_malloc(l->i - q);
      if (!d) return tl_nomem(l->err, "annotation");
      size_t dn = tl_text_unescape(l->s + q, l->i - q, d);
      bool ok = utf8_ok(d, dn);
      tl_free(d);
      if (!dn) return lfail(l, q - 2, "empty annotation id");
      if (!ok) return lfail(l, q, "malformed UTF-8 encoding in annotation id");
      return TL_OK;
    }
    while (l->i < l->n && is_idchar((unsigned char)l->s[l->i])) l->i++;
    return TL_OK;
  }
  if (c == '(' || c == ')') return paren(l, c);
  if (c == '"') {
    size_t start = l->i;
    TRY(string(l));
    TRY(push(l, TK_STR, start, l->i - start));
    return separated(l, start);
  }
  if (c == '$') return id_token(l);
  if (is_idchar((unsigned char)c)) {
    size_t start = l->i;
    while (l->i < l->n && is_idchar((unsigned char)l->s[l->i])) l->i++;
    TRY(push(l, TK_ATOM, start, l->i - start));
    return separated(l, start);
  }
  if (l->ann && c && strchr(",;[]{}", c)) {
    l->i++;
    return separated(l, l->i - 1);
  }
  return lfail(l, l->i, "unexpected character");
}

tl_status tl_text_lex(const char *src, size_t n, tl_toks *out, tl_error *err) {
  memset(out, 0, sizeof *out);
  out->src = src;
  out->n = n;
  tl_vec toks = {0};
  lx l = {.s = src, .n = n, .err = err, .toks = &toks, .owned = &out->owned};
  tl_status st = TL_OK;
  while (st == TL_OK && l.i < n) st = token(&l);
  if (st == TL_OK && l.ann) st = lfail(&l, l.ann_at, "unclosed annotation");
  if (st == TL_OK && l.open.n)
    st = lfail(&l, TL_VEC_AT(&toks, tl_tok, TL_VEC_AT(&l.open, uint32_t, l.open.n - 1)).off,
               "unclosed \"(\"");
  if (st == TL_OK) st = push(&l, TK_EOF, n, 0);
  tl_vec_free(&l.open);
  out->t = toks.p;
  out->ntok = toks.n;
  if (st) tl_toks_free(out);
  return st;
}

void tl_toks_free(tl_toks *t) {
  for (size_t i = 0; i < t->owned.n; i++) tl_free(TL_VEC_AT(&t->owned, char *, i));
  tl_vec_free(&t->owned);
  tl_free(t->t);
  t->t = NULL;
  t->ntok = 0;
}

/* ------------------------------------------------------------- literals */

/* Copies digits (and . e p + - x) without underscores into buf; false if an
 * underscore is not between two digits of the given base. */
static bool strip(const char *s, size_t len, char *buf, size_t cap, bool hex) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '_') {
      bool ok = i > 0 && i + 1 < len &&
                (hex ? hexval((unsigned char)s[i - 1]) >= 0 && hexval((unsigned char)s[i + 1]) >= 0
                     : s[i - 1] >= '0' && s[i - 1] <= '9' && s[i + 1] >= '0' && s[i + 1] <= '9');
      if (!ok) return false;
      continue;
    }
    if (n + 1 >= cap) return false;
    buf[n++] = s[i];
  }
  buf[n] = 0;
  return true;
}

bool tl_text_u64(const char *s, size_t len, uint64_t *out) {
  uint64_t v = 0;
  bool hex = len > 2 && s[0] == '0' && s[1] == 'x';
  size_t i = hex ? 2 : 0, nd = 0;
  if (i >= len) return false;
  for (; i < len; i++) {
    if (s[i] == '_') {
      if (!nd || i + 1 >= len || s[i + 1] == '_') return false;
      continue;
    }
    int d = hex ? hexval((unsigned char)s[i]) : (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1);
    if (d < 0) return false;
    uint64_t b = hex ? 16 : 10;
    if (v > (UINT64_MAX - (uint64_t)d) / b) return false;
    v = v * b + (uint64_t)d;
    nd++;
  }
  *out = v;
  return nd > 0;
}

bool tl_text_int(const char *s, size_t len, int bits, uint64_t *out) {
  bool neg = len && s[0] == '-', sign = len && (s[0] == '-' || s[0] == '+');
  uint64_t v;
  if (!tl_text_u64(s + sign, len - sign, &v)) return false;
  uint64_t umax = bits == 32 ? UINT32_MAX : UINT64_MAX;
  uint64_t nmax = bits == 32 ? 0x80000000u : 0x8000000000000000ull;
  if (neg ? v > nmax : v > umax) return false;
  if (neg) v = (uint64_t)0 - v;
  *out = bits == 32 ? (uint32_t)v : v;
  return true;
}

/* Shared float grammar: sign? (inf | nan | nan:0xN | dec | hex). Fills
 * *kind 0 number (buf holds it for strtod), 1 inf, 2 nan with payload. */
static bool float_lit(const char *s, size_t len, char *buf, size_t cap, int *kind, bool *neg,
                      uint64_t *payload) {
  size_t i = 0;
  *neg = len && s[0] == '-';
  if (len && (s[0] == '-' || s[0] == '+')) i++;
  const char *b = s + i;
  size_t n = len - i;
  if (n == 3 && !memcmp(b, "inf", 3)) { *kind = 1; return true; }
  if (n == 3 && !memcmp(b, "nan", 3)) { *kind = 2; *payload = 0; return true; }
  if (n > 6 && !memcmp(b, "nan:0x", 6)) {
    *kind = 2;
    return tl_text_u64(b + 4, n - 4, payload) && *payload;
  }
  *kind = 0;
  bool hex = n > 2 && b[0] == '0' && b[1] == 'x';
  /* grammar: digits ('.' digits?)? (exp sign? digits)? with hex digits and p for hex */
  size_t k = hex ? 2 : 0;
#define ISD(c) (hex ? hexval((unsigned char)(c)) >= 0 : ((c) >= '0' && (c) <= '9'))
  size_t d0 = k;
  while (k < n && (ISD(b[k]) || b[k] == '_')) k++;
  if (k == d0 || b[d0] == '_') return false;
  if (k < n && b[k] == '.') {
    k++;
    size_t f0 = k;
    while (k < n && (ISD(b[k]) || b[k] == '_')) k++;
    if (k > f0 && b[f0] == '_') return false;
  }
#undef ISD
  if (k < n && (hex ? (b[k] | 0x20) == 'p' : (b[k] | 0x20) == 'e')) {
    k++;
    if (k < n && (b[k] == '+' || b[k] == '-')) k++;
    size_t e0 = k;
    while (k < n && ((b[k] >= '0' && b[k] <= '9') || b[k] == '_')) k++;
    if (k == e0 || b[e0] == '_') return false;
  }
  if (k != n) return false;
  return strip(s, len, buf, cap, hex);
}

/* float_lit into a buffer of len + 1 bytes (on the stack when small). */
static bool float_parse(const char *s, size_t len, char *small, size_t cap, char **buf, int *kind,
                        bool *neg, uint64_t *pl) {
  *buf = len < cap ? small : tl_malloc(len + 1);
  return *buf && float_lit(s, len, *buf, len + 1, kind, neg, pl);
}

bool tl_text_f32(const char *s, size_t len, uint32_t *out) {
  char small[256], *buf;
  int kind;
  bool neg;
  uint64_t pl = 0;
  bool ok = float_parse(s, len, small, sizeof small, &buf, &kind, &neg, &pl);
  if (!ok || kind) {
    if (buf != small) tl_free(buf);
    if (!ok) return false;
  }
  uint32_t sign = neg ? 0x80000000u : 0;
  if (kind == 1) { *out = sign | 0x7f800000u; return true; }
  if (kind == 2) {
    if (!pl) pl = 0x400000;
    if (pl >= 0x800000) return false;
    *out = sign | 0x7f800000u | (uint32_t)pl;
    return true;
  }
  float f = strtof(buf, NULL);
  if (buf != small) tl_free(buf);
  if (isinf(f)) return false;
  memcpy(out, &f, 4);
  return true;
}

bool tl_text_f64(const char *s, size_t len, uint64_t *out) {
  char small[256], *buf;
  int kind;
  bool neg;
  uint64_t pl = 0;
  bool ok = float_parse(s, len, small, sizeof small, &buf, &kind, &neg, &pl);
  if (!ok || kind) {
    if (buf != small) tl_free(buf);
    if (!ok) return false;
  }
  uint64_t sign = neg ? 0x8000000000000000ull : 0;
  if (kind == 1) { *out = sign | 0x7ff0000000000000ull; return true; }
  if (kind == 2) {
    if (!pl) pl = 0x8000000000000ull;
    if (pl >= 0x10000000000000ull) return false;
    *out = sign | 0x7ff0000000000000ull | pl;
    return true;
  }
  double d = strtod(buf, NULL);
  if (buf != small) tl_free(buf);
  if (isinf(d)) return false;
  memcpy(out, &d, 8);
  return true;
}
