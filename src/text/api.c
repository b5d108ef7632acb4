/* api.c — tl_module_parse_text: text to binary bytes (parse.c), then the
 * binary reader, which validates and builds the module. Errors from the
 * text carry line and column; errors the reader finds in the bytes made
 * from the text keep their message and function index, without offset. */
#include "text.h"

#include <stdlib.h>
#include <string.h>

tl_module *tl_module_parse_text(const char *text, size_t size, const tl_read_options *opt,
                                tl_error *err) {
  tl_toks t;
  uint8_t *bin = NULL;
  size_t n = 0, pos = 0;
  if (tl_text_lex(text, size, &t, err)) return NULL;
  tl_status st = tl_text_module(&t, &pos, true, &bin, &n, err);
  tl_toks_free(&t);
  if (st) return NULL;
  tl_module *m = tl_module_read(bin, n, opt, err);
  free(bin);
  if (!m && err) {
    err->offset = TL_NO_OFFSET;
    err->line = err->col = 0;
  }
  return m;
}

bool tl_is_binary(const uint8_t *bytes, size_t size) {
  return size >= 4 && bytes[0] == 0 && bytes[1] == 'a' && bytes[2] == 's' && bytes[3] == 'm';
}

/* Text never holds a NUL byte (not even in strings, which escape it), so
 * empty input and bytes with a NUL are binary, and get the binary reader's
 * error with its offset (as wasm-opt and wat2wasm reject them too). */
static bool looks_like_text(const uint8_t *bytes, size_t size) {
  return size > 0 && !memchr(bytes, 0, size);
}

tl_module *tl_module_read_any(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                              tl_error *err) {
  if (tl_is_binary(bytes, size) || !looks_like_text(bytes, size)) return tl_module_read(bytes, size, opt, err);
  return tl_module_parse_text((const char *)bytes, size, opt, err);
}
