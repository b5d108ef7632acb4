/* text.h — the text format (.wat modules and .wast scripts): the lexer
 * (lex.c), the module parser that turns text into binary module bytes
 * (parse.c) and the literal parsers they share. The module parser emits the
 * binary format; tl_module_read then validates it and builds the IR, so
 * validation and IR building stay in one place (wasm-io/reader).
 * Nothing here prints or exits; errors are tl_errors with line and column. */
#ifndef TILT_TEXT_H
#define TILT_TEXT_H

#include "../ir/ir.h"

#ifndef TRY
#define TRY(x) do { tl_status s_ = (x); if (s_) return s_; } while (0)
#endif

/* Token kinds. An atom is any run of idchars: keywords, numbers and
 * reserved words; what it means depends on where it is. */
enum { TK_EOF, TK_LPAR, TK_RPAR, TK_ATOM, TK_ID, TK_STR };

/* A token: 8 bytes, as a big text has millions of them. Its kind is not
 * stored: it follows from its first byte ('(' ')' '"' '$', else an atom),
 * and the one TK_EOF is at the source's end (tl_tok_kind). */
typedef struct {
  uint32_t off;      /* byte offset of the token in the source */
  uint32_t aux;      /* TK_LPAR: index of its TK_RPAR; TK_ID: the name's
                        length, or for a quoted id ($"...") the index of its
                        decoded name in tl_toks.qids; TK_ATOM, TK_STR: bytes
                        of the token's text; else 0 */
} tl_tok;

typedef struct { char *s; uint32_t len; } tl_qid; /* a quoted id's decoded name */

typedef struct {
  const char *src;
  size_t n;          /* less than 4 GiB (tl_text_lex checks) */
  tl_tok *t;         /* ntok tokens, the last is TK_EOF */
  size_t ntok;
  tl_vec qids;       /* tl_qid: decoded quoted ids (malloc'd) */
  bool nul;          /* the text holds a NUL byte the lexer accepted: in a
                        comment, or after a '\\' in a string (anywhere else
                        it is an error, so a text that lexed holds a NUL iff
                        this is set) */
  /* tl_read_options.on_text_window, called by the lexer and each parser
   * pass every TL_TEXT_WINDOW bytes (NULL: never) */
  void (*window)(void *user, const char *text, size_t done);
  void *win_user;
} tl_toks;
#define TL_TEXT_WINDOW ((size_t)64 << 20)

/* The kind of each byte that can start a token (tl_tok_kind). */
extern const uint8_t tl_tok_kinds[256];
static inline int tl_tok_kind(const tl_toks *t, const tl_tok *k) {
  return k->off < t->n ? tl_tok_kinds[(uint8_t)t->src[k->off]] : TK_EOF;
}
/* The text of a token (for TK_STR with its quotes; tl_tok.aux bytes for
 * atoms and strings). */
static inline const char *tl_tok_text(const tl_toks *t, const tl_tok *k) { return t->src + k->off; }
/* A TK_ID's name: without '$', decoded if quoted. */
static inline const char *tl_tok_name(const tl_toks *t, const tl_tok *k, uint32_t *len) {
  if (t->src[k->off + 1] != '"') {
    *len = k->aux;
    return t->src + k->off + 1;
  }
  const tl_qid *q = &TL_VEC_AT(&t->qids, tl_qid, k->aux);
  *len = q->len;
  return q->s;
}

/* lex.c */
/* Splits src into tokens (comments and annotations dropped, parentheses
 * matched). TL_E_MALFORMED with line and column on a bad token; TL_E_LIMIT
 * for a text of 4 GiB or more. */
tl_status tl_text_lex(const char *src, size_t n, tl_toks *out, tl_error *err);
/* The same, calling window(user, src, done) as it goes (tl_toks.window,
 * which it keeps for the parser). */
tl_status tl_text_lex_windowed(const char *src, size_t n, tl_toks *out, tl_error *err,
                               void (*window)(void *, const char *, size_t), void *user);
void tl_toks_free(tl_toks *t);
/* Sets err's offset to off, and its line and column (1-based) to those of
 * byte off in src. */
void tl_text_locate(tl_error *err, const char *src, size_t off);
/* Fills err with the 1-based line and column of byte off in src. */
tl_status tl_text_fail(tl_error *err, tl_status code, const char *src, size_t off,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Decodes a string token (with its quotes) into out (room for len bytes);
 * returns the decoded length. The lexer checked the escapes. */
size_t tl_text_unescape(const char *s, size_t len, uint8_t *out);
/* Literals: false on a malformed or out-of-range literal. */
bool tl_text_u64(const char *s, size_t len, uint64_t *out);          /* nat */
bool tl_text_int(const char *s, size_t len, int bits, uint64_t *out); /* sign? nat, i32/i64 */
bool tl_text_f32(const char *s, size_t len, uint32_t *out);
bool tl_text_f64(const char *s, size_t len, uint64_t *out);

/* parse.c */
/* Parses the module at t->t[*pos] (a "(module ...)" or, when whole is set,
 * a file of module fields without the wrapper) into binary module bytes
 * (malloc'd). Text modules only: "(module binary ...)" and "(module quote
 * ...)" are the script runner's. *pos moves past the module. */
tl_status tl_text_module(const tl_toks *t, size_t *pos, bool whole, uint8_t **out, size_t *size,
                         tl_error *err);
/* The source offset of the token an output byte came from: marks are made
 * at each instruction's first byte (and a block's end/else/catch bytes). */
typedef struct { size_t bin, src; } tl_text_mark;
/* tl_text_module, also giving the marks (tl_text_mark, sorted by bin;
 * tl_vec_free them). Slower: for locating an error the reader found. */
tl_status tl_text_module_marks(const tl_toks *t, size_t *pos, bool whole, uint8_t **out, size_t *size,
                               tl_vec *marks, tl_error *err);
#endif
