/* lex.c — the text format's tokens and literals: atoms (keywords, numbers,
 * reserved words), $ids (also $"quoted"), strings with escapes, parentheses
 * matched with an explicit stack; line comments, nested block comments and
 * annotations (@...) are dropped. Tokens are 8 bytes (text.h); a byte-class
 * table drives the loop, and runs of spaces go eight bytes at a time. It
 * notes the NUL bytes it accepts (tl_toks.nul) and rejects all others, so
 * no other pass looks for them. Literal parsers check the spec's grammar
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

/* Byte classes of the lexer's main loop:
 *   BD  a byte that starts no token: NUL and the other control bytes but
 *       white space, DEL, and every byte of 0x80 and above
 *   SP  white space: ' ' '\t' '\n' '\r'
 *   ID  an idchar but '$': letters, digits, !#%&'*+-./:<=>?@\^_`|~
 *   DL  '$', the idchar that starts an id
 *   LP '('   RP ')'   QT '"'   SC ';'
 *   RS  ",[]{}": reserved, allowed only inside annotations */
enum { BD, SP, ID, DL, LP, RP, QT, SC, RS };
static const uint8_t cls[256] = {
  /*       0   1   2   3   4   5   6   7   8   9   a   b   c   d   e   f */
  /* 0 */ BD, BD, BD, BD, BD, BD, BD, BD, BD, SP, SP, BD, BD, SP, BD, BD,
  /* 1 */ BD, BD, BD, BD, BD, BD, BD, BD, BD, BD, BD, BD, BD, BD, BD, BD,
  /* 2 */ SP, ID, QT, ID, DL, ID, ID, ID, LP, RP, ID, ID, RS, ID, ID, ID,
  /* 3 */ ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, SC, ID, ID, ID, ID,
  /* 4 */ ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID,
  /* 5 */ ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, RS, ID, RS, ID, ID,
  /* 6 */ ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID,
  /* 7 */ ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, RS, ID, RS, ID, BD,
};

/* tl_tok_kind's table: the kind of a token by its first byte. */
const uint8_t tl_tok_kinds[256] = {
  ['('] = TK_LPAR, [')'] = TK_RPAR, ['"'] = TK_STR, ['$'] = TK_ID,
  ['!'] = TK_ATOM, ['#'] = TK_ATOM, ['%'] = TK_ATOM, ['&'] = TK_ATOM, ['\''] = TK_ATOM,
  ['*'] = TK_ATOM, ['+'] = TK_ATOM, ['-'] = TK_ATOM, ['.'] = TK_ATOM, ['/'] = TK_ATOM,
  ['0'] = TK_ATOM, ['1'] = TK_ATOM, ['2'] = TK_ATOM, ['3'] = TK_ATOM, ['4'] = TK_ATOM,
  ['5'] = TK_ATOM, ['6'] = TK_ATOM, ['7'] = TK_ATOM, ['8'] = TK_ATOM, ['9'] = TK_ATOM,
  [':'] = TK_ATOM, ['<'] = TK_ATOM, ['='] = TK_ATOM, ['>'] = TK_ATOM, ['?'] = TK_ATOM,
  ['@'] = TK_ATOM, ['\\'] = TK_ATOM, ['^'] = TK_ATOM, ['_'] = TK_ATOM, ['`'] = TK_ATOM,
  ['|'] = TK_ATOM, ['~'] = TK_ATOM,
#define L(c) [c] = TK_ATOM, [c + 32] = TK_ATOM
  L('A'), L('B'), L('C'), L('D'), L('E'), L('F'), L('G'), L('H'), L('I'), L('J'), L('K'), L('L'), L('M'),
  L('N'), L('O'), L('P'), L('Q'), L('R'), L('S'), L('T'), L('U'), L('V'), L('W'), L('X'), L('Y'), L('Z'),
#undef L
};

static bool is_idchar(unsigned char c) { return (unsigned)(cls[c] - ID) <= DL - ID; }

/* Hex digits' values, 0xff for other bytes. */
static const uint8_t hex[256] = {
#define R16 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
  /* 0x00 */ R16, R16, R16,
  /* 0x30 */ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  /* 0x40 */ 0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  /* 0x50 */ R16,
  /* 0x60 */ 0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
  /* 0x70 */ R16, R16, R16, R16, R16, R16, R16, R16, R16
#undef R16
};

static int hexval(unsigned char c) { return hex[c] == 0xff ? -1 : hex[c]; }

/* s[0] and s[1] are hex digits (the two of a \hh escape). */
static bool hex_pair(const char *s) { return (hex[(unsigned char)s[0]] | hex[(unsigned char)s[1]]) != 0xff; }

typedef struct {
  const char *s;
  size_t n, i;
  tl_error *err;
  tl_vec toks;       /* tl_tok */
  tl_vec *qids;      /* tl_qid: decoded quoted ids */
  size_t depth;      /* unmatched TK_LPARs */
  uint32_t top;      /* the innermost one's index + 1 (0: none); each
                        unmatched '(' keeps the one around it in its aux
                        until its ')' sets the match there */
  size_t ann;        /* inside an annotation (@...): depth at its '(' (its
                        tokens are checked, then dropped when it closes); 0
                        outside */
  size_t ann_at;     /* where that annotation began */
  uint32_t ann_tok;  /* its '(' token, where the tokens are cut back to */
  void (*window)(void *, const char *, size_t);   /* tl_toks.window */
  void *win_user;
  size_t win_next;   /* call window when i reaches this */
  bool nul;          /* a NUL byte was accepted (in a comment or escape) */
} lx;

static tl_status lfail(lx *l, size_t off, const char *msg) {
  return tl_text_fail(l->err, TL_E_MALFORMED, l->s, off, "%s", msg);
}

/* The index of the first nonzero byte of w, as loaded from memory. */
static unsigned first_set_byte(uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return (unsigned)__builtin_clzll(w) >> 3;
#else
  return (unsigned)__builtin_ctzll(w) >> 3;
#endif
}

/* The end of the white space at i: runs of ' ' go eight bytes at a time,
 * as indentation is most of a printed text. */
static size_t skip_space(const char *s, size_t i, size_t n) {
  while (i < n) {
    if (n - i >= 8) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      w ^= 0x2020202020202020ull;
      if (!w) {
        i += 8;
        continue;
      }
      i += first_set_byte(w);
    }
    if (cls[(unsigned char)s[i]] != SP) return i;
    i++;
  }
  return i;
}

/* Skips a line comment at l->i (";;") up to its '\n' or '\r'. */
static void line_comment(lx *l) {
  for (;;) {
    while (l->i < l->n && (unsigned char)l->s[l->i] > '\r') l->i++;
    if (l->i >= l->n || l->s[l->i] == '\n' || l->s[l->i] == '\r') return;
    if (!l->s[l->i]) l->nul = true;
    l->i++;
  }
}

/* Skips a block comment starting at l->i ("(;"); nesting counted. */
static tl_status block_comment(lx *l) {
  size_t start = l->i, depth = 0;
  while (l->i + 1 < l->n) {
    if (l->s[l->i] == '(' && l->s[l->i + 1] == ';') depth++, l->i += 2;
    else if (l->s[l->i] == ';' && l->s[l->i + 1] == ')') {
      l->i += 2;
      if (--depth == 0) return TL_OK;
    } else {
      if (!l->s[l->i]) l->nul = true;
      l->i++;
    }
  }
  return lfail(l, start, "unclosed block comment");
}

/* The end of the bytes from i on that stand for themselves in a string. */
static size_t plain_run(const char *s, size_t i, size_t n) {
  while (i < n) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) break;
    i++;
  }
  return i;
}

/* A \u{...} escape (l->i on the 'u', at on the '\'): hex digits with '_'
 * between them, at most 0x10ffff and not a surrogate. */
static tl_status unicode_escape(lx *l, size_t at) {
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
  return TL_OK;
}

/* The escape at l->i ('\'); l->i moves past it. A NUL after the '\'
 * stands for itself, as the escapes t n r " ' \ do. */
static tl_status escape(lx *l) {
  size_t at = l->i++;
  unsigned char c = (unsigned char)l->s[l->i];
  if (!c) l->nul = true;
  if (!c || c == 't' || c == 'n' || c == 'r' || c == '"' || c == '\'' || c == '\\') {
    l->i++;
    return TL_OK;
  }
  if (c == 'u') return unicode_escape(l, at);
  if (hexval(c) >= 0 && l->i + 1 < l->n && hexval((unsigned char)l->s[l->i + 1]) >= 0) {
    l->i += 2;
    return TL_OK;
  }
  return lfail(l, at, "malformed escape in string");
}

/* A string at l->i ('"'): checks escapes and characters; l->i moves past it. */
static tl_status string(lx *l) {
  size_t start = l->i++;
  for (;;) {
    l->i = plain_run(l->s, l->i, l->n);
    if (l->i >= l->n) break;
    unsigned char c = (unsigned char)l->s[l->i];
    if (c == '"') {
      l->i++;
      return TL_OK;
    }
    if (c != '\\') return lfail(l, l->i, "illegal character in string");
    if (l->i + 1 >= l->n) break;
    if (l->i + 2 < l->n && hex_pair(l->s + l->i + 1)) { /* \hh, data's usual escape */
      l->i += 3;
      continue;
    }
    TRY(escape(l));
  }
  return lfail(l, start, "unclosed string");
}

size_t tl_text_unescape(const char *s, size_t len, uint8_t *out) {
  size_t n = 0;
  for (size_t i = 1; i + 1 < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c != '\\') { out[n++] = c; continue; }
    if (hex_pair(s + i + 1)) { /* \hh: checked by the lexer, so s[i + 2] is there */
      out[n++] = (uint8_t)(hex[(unsigned char)s[i + 1]] << 4 | hex[(unsigned char)s[i + 2]]);
      i += 2;
      continue;
    }
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

/* Appends a token (out of memory unwinds, as vector growth does). Tokens
 * inside an annotation are pushed too, and cut off when it closes. */
static inline void push(lx *l, size_t off, size_t aux) {
  if (l->toks.n >= l->toks.cap) tl_vec_grow(&l->toks, sizeof(tl_tok), l->toks.n + 1);
  ((tl_tok *)l->toks.p)[l->toks.n++] = (tl_tok){(uint32_t)off, (uint32_t)aux};
}

/* After an atom, id or string the next character must end the token: else
 * the run is one reserved token (idchars, strings, ",;[]{}"), an error
 * outside annotations. */
static tl_status not_separated(lx *l, size_t start) {
  for (;;) {
    if (l->i >= l->n) return TL_OK;
    unsigned char c = (unsigned char)l->s[l->i];
    int k = cls[c];
    if (k == SP || k == LP || k == RP || (c == ';' && l->i + 1 < l->n && l->s[l->i + 1] == ';')) return TL_OK;
    if (!l->ann) return lfail(l, start, "unknown operator: tokens not separated");
    if (c == '"') TRY(string(l));
    else if (is_idchar(c) || k == SC || k == RS) l->i++;
    else return lfail(l, l->i, "unexpected character");
  }
}

/* The check after a token, with its common case (white space or a
 * parenthesis follows) inline. */
static inline tl_status separated(lx *l, size_t start) {
  if (l->i < l->n) {
    int k = cls[(unsigned char)l->s[l->i]];
    if (k == SP || k == LP || k == RP) return TL_OK;
  }
  return not_separated(l, start);
}

/* $"quoted": the name decoded into l->qids, checked for emptiness and UTF-8. */
static tl_status quoted_id(lx *l, size_t start) {
  size_t q = l->i;
  TRY(string(l));
  size_t raw = l->i - q;
  char *d = tl_malloc(raw + 1);
  if (!d) return tl_nomem(l->err, "id");
  size_t n = tl_text_unescape(l->s + q, raw, (uint8_t *)d), k = l->qids->n;
  tl_qid id = {d, (uint32_t)n};
  TL_VEC_PUSH(l->qids, tl_qid, id);
  if (l->qids->n == k) {
    tl_free(d);
    return tl_nomem(l->err, "id");
  }
  if (!n) return lfail(l, start, "empty identifier");
  if (!utf8_ok((const uint8_t *)d, n)) return lfail(l, start, "malformed UTF-8 encoding in identifier");
  push(l, start, k);
  return separated(l, start);
}

static tl_status id_token(lx *l) {
  size_t start = l->i++;
  if (l->i < l->n && l->s[l->i] == '"') return quoted_id(l, start);
  while (l->i < l->n && is_idchar((unsigned char)l->s[l->i])) l->i++;
  if (l->i == start + 1) return lfail(l, start, "empty identifier");
  push(l, start, l->i - start - 1);
  return separated(l, start);
}

static inline tl_status atom(lx *l) {
  size_t start = l->i, i = start + 1;
  while (i < l->n && is_idchar((unsigned char)l->s[i])) i++;
  l->i = i;
  push(l, start, i - start);
  return separated(l, start);
}

static tl_status str_token(lx *l) {
  size_t start = l->i;
  TRY(string(l));
  push(l, start, l->i - start);
  return separated(l, start);
}

/* A '(' at at, now the innermost unmatched one. */
static inline void open_push(lx *l, size_t at) {
  push(l, at, l->top);
  l->top = (uint32_t)l->toks.n;
  l->depth++;
}

/* "(@id": checks the id (idchars or a non-empty UTF-8 string) and opens
 * the annotation, whose '(' is pushed as any other. */
static tl_status annotation(lx *l) {
  size_t at = l->i;
  if (at + 2 >= l->n || (!is_idchar((unsigned char)l->s[at + 2]) && l->s[at + 2] != '"'))
    return lfail(l, at, "empty annotation id");
  size_t idx = l->toks.n;
  open_push(l, at);
  l->ann = l->depth;
  l->ann_at = at;
  l->ann_tok = (uint32_t)idx;
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

/* '(' at l->i: a block comment, an annotation or a parenthesis. */
static tl_status open_paren(lx *l) {
  size_t at = l->i;
  if (at + 1 < l->n && l->s[at + 1] == ';') return block_comment(l);
  if (at + 1 < l->n && l->s[at + 1] == '@' && !l->ann) return annotation(l);
  open_push(l, at);
  l->i++;
  return TL_OK;
}

/* ')' at l->i: matches the last open '('; closing an annotation drops its
 * tokens. */
static tl_status close_paren(lx *l) {
  size_t at = l->i++;
  if (!l->depth) return lfail(l, at, "unexpected \")\"");
  tl_tok *o = &((tl_tok *)l->toks.p)[l->top - 1];
  l->top = o->aux;
  l->depth--;
  if (l->depth < l->ann) {
    l->toks.n = l->ann_tok;
    l->ann = 0;
    return TL_OK;
  }
  o->aux = (uint32_t)l->toks.n;
  push(l, at, 0);
  return TL_OK;
}

/* ';' at l->i: a line comment, or a reserved token in an annotation. */
static tl_status semicolon(lx *l) {
  if (l->i + 1 < l->n && l->s[l->i + 1] == ';') {
    line_comment(l);
    return TL_OK;
  }
  if (!l->ann) return lfail(l, l->i, "unexpected character");
  l->i++;
  return separated(l, l->i - 1);
}

static tl_status reserved(lx *l) {
  if (!l->ann) return lfail(l, l->i, "unexpected character");
  l->i++;
  return separated(l, l->i - 1);
}

static tl_status lex_loop(lx *l) {
  for (;;) {
    l->i = skip_space(l->s, l->i, l->n);
    if (l->i >= l->n) break;
    if (l->i >= l->win_next) {
      if (l->window) l->window(l->win_user, l->s, l->i);
      l->win_next = l->i + TL_TEXT_WINDOW;
    }
    switch (cls[(unsigned char)l->s[l->i]]) {
    case ID: TRY(atom(l)); break;
    case DL: TRY(id_token(l)); break;
    case LP: TRY(open_paren(l)); break;
    case RP: TRY(close_paren(l)); break;
    case QT: TRY(str_token(l)); break;
    case SC: TRY(semicolon(l)); break;
    case RS: TRY(reserved(l)); break;
    default: return lfail(l, l->i, "unexpected character");
    }
  }
  if (l->ann) return lfail(l, l->ann_at, "unclosed annotation");
  if (l->depth) return lfail(l, TL_VEC_AT(&l->toks, tl_tok, l->top - 1).off, "unclosed \"(\"");
  push(l, l->n, 0);
  return TL_OK;
}

tl_status tl_text_lex(const char *src, size_t n, tl_toks *out, tl_error *err) {
  return tl_text_lex_windowed(src, n, out, err, NULL, NULL);
}

tl_status tl_text_lex_windowed(const char *src, size_t n, tl_toks *out, tl_error *err,
                               void (*window)(void *, const char *, size_t), void *user) {
  memset(out, 0, sizeof *out);
  out->src = src;
  out->n = n;
  out->window = window;
  out->win_user = user;
  if (n > UINT32_MAX) return tl_text_fail(err, TL_E_LIMIT, src, 0, "text too large (4 GiB or more)");
  lx l = {.s = src, .n = n, .err = err, .qids = &out->qids, .window = window, .win_user = user,
          .win_next = TL_TEXT_WINDOW};
  tl_status st = lex_loop(&l);
  out->t = l.toks.p;
  out->ntok = l.toks.n;
  out->nul = l.nul;
  if (st) tl_toks_free(out);
  return st;
}

void tl_toks_free(tl_toks *t) {
  for (size_t i = 0; i < t->qids.n; i++) tl_free(TL_VEC_AT(&t->qids, tl_qid, i).s);
  tl_vec_free(&t->qids);
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

/* The common case of a nat: at most 19 decimal digits, so no overflow,
 * and no underscores. False if s is not that. */
static bool small_decimal(const char *s, size_t len, uint64_t *out) {
  if (!len || len > 19) return false;
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned d = (unsigned)(unsigned char)s[i] - '0';
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool tl_text_u64(const char *s, size_t len, uint64_t *out) {
  if (small_decimal(s, len, out)) return true;
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
