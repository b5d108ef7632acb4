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

typedef struct {
  uint8_t kind;      /* TK_* */
  uint32_t len;      /* bytes of the token's text (for TK_ID: of the name) */
  uint32_t match;    /* TK_LPAR: index of its TK_RPAR */
  size_t off;        /* byte offset of the token in the source */
  const char *s;     /* TK_ID: the name without '$' (decoded if quoted) */
} tl_tok;

typedef struct {
  const char *src;
  size_t n;
  tl_tok *t;         /* ntok tokens, the last is TK_EOF */
  size_t ntok;
  tl_vec owned;      /* char *: decoded quoted ids */
} tl_toks;

/* lex.c */
/* Splits src into tokens (comments and annotations dropped, parentheses
 * matched). TL_E_MALFORMED with line and column on a bad token. */
tl_status tl_text_lex(const char *src, size_t n, tl_toks *out, tl_error *err);
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
