/* api.c — tl_module_parse_text: text to binary bytes (parse.c), then the
 * binary reader, which validates and builds the module. Errors from the
 * text carry line and column; errors the reader finds in the bytes made
 * from the text are located at the instruction they are about. And
 * tl_module_read_any: binary or text, told apart by the magic and by NUL
 * bytes, which the lexer finds on its way. */
#include "text.h"
#include "../wasm-io/wasmio.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *text;
  size_t size;
  const tl_read_options *opt;
  bool stop_at_nul;  /* tl_module_read_any: a text with a NUL is binary */
  bool nul;          /* so it stopped: the text has a NUL byte */
  tl_module *m;
} parse_call;

/* The source token that gave the byte at offset off of the module bytes
 * (the last mark at or before off), or SIZE_MAX. */
static size_t source_of(const tl_vec *marks, size_t off) {
  size_t lo = 0, hi = marks->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (TL_VEC_AT(marks, tl_text_mark, mid).bin <= off) lo = mid + 1;
    else hi = mid;
  }
  return lo ? TL_VEC_AT(marks, tl_text_mark, lo - 1).src : SIZE_MAX;
}

/* An error the binary reader found at an offset of the bytes made from the
 * text gets the line and column of the instruction it is about: the text is
 * parsed again, this time keeping which token each instruction came from
 * (only on this failure path, so reading stays fast). Errors with no such
 * instruction (a section's, an index space's) keep their message alone. */
static void locate_in_text(const char *text, size_t size, tl_error *err) {
  size_t off = err->offset, src = SIZE_MAX;
  err->offset = TL_NO_OFFSET;
  err->line = err->col = 0;
  if (off == TL_NO_OFFSET) return;
  tl_toks t;
  tl_error e2;
  if (tl_text_lex(text, size, &t, &e2)) return;
  uint8_t *bin = NULL;
  size_t n = 0, pos = 0;
  tl_vec marks;
  if (!tl_text_module_marks(&t, &pos, true, &bin, &n, &marks, &e2)) {
    src = source_of(&marks, off);
    tl_vec_free(&marks);
    tl_free(bin);
  }
  tl_toks_free(&t);
  if (src != SIZE_MAX) tl_text_locate(err, text, src);
}

static tl_status parse_in_scope(void *c, tl_error *err) {
  parse_call *p = c;
  tl_toks t;
  uint8_t *bin = NULL;
  size_t n = 0, pos = 0;
  tl_status st = p->opt && p->opt->on_text_window
                     ? tl_text_lex_windowed(p->text, p->size, &t, err, p->opt->on_text_window, p->opt->user)
                     : tl_text_lex(p->text, p->size, &t, err);
  if (st) return st;
  if (p->stop_at_nul && t.nul) {
    tl_toks_free(&t);
    p->nul = true;
    return TL_OK;
  }
  st = tl_text_module(&t, &pos, true, &bin, &n, err);
  tl_toks_free(&t);
  if (st) return st;
  if (p->opt && p->opt->on_text_parsed) p->opt->on_text_parsed(p->opt->user, p->text, p->size);
  tl_read_options ro = p->opt ? *p->opt : (tl_read_options){0};
  ro.borrow_bytes = false; /* bin is ours, freed here */
  st = tl_read(bin, n, &ro, &p->m, err);
  tl_free(bin);
  if (st && err) locate_in_text(p->text, p->size, err);
  return st;
}

/* In an out-of-memory scope (oom.c), as tl_module_read. */
tl_module *tl_module_parse_text(const char *text, size_t size, const tl_read_options *opt,
                                tl_error *err) {
  parse_call p = {.text = text, .size = size, .opt = opt};
  if (tl_oom_run(NULL, parse_in_scope, &p, err, "text") != TL_OK) return NULL;
  return p.m;
}

bool tl_is_binary(const uint8_t *bytes, size_t size) {
  return size >= 4 && bytes[0] == 0 && bytes[1] == 'a' && bytes[2] == 's' && bytes[3] == 'm';
}

/* Text never holds a NUL byte (not even in strings, which escape it), so
 * empty input and bytes with a NUL are binary, and get the binary reader's
 * error with its offset (as wasm-opt and wat2wasm reject them too). The
 * lexer tells whether a text it read has one (in a comment or after a
 * '\'; any other NUL stops it with an error): only when reading the text
 * failed is the input searched for one. */
tl_module *tl_module_read_any(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                              tl_error *err) {
  if (tl_is_binary(bytes, size) || !size) return tl_module_read(bytes, size, opt, err);
  parse_call p = {.text = (const char *)bytes, .size = size, .opt = opt, .stop_at_nul = true};
  tl_status st = tl_oom_run(NULL, parse_in_scope, &p, err, "text");
  if (p.nul || (st && memchr(bytes, 0, size))) return tl_module_read(bytes, size, opt, err);
  return st ? NULL : p.m;
}
