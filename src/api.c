/* api.c — the public entry points of tilt.h that wrap the internal ones:
 * reading, writing, validating and printing modules. */
#include "ir/ir.h"
#include "wasm-io/wasmio.h"

#include <stdlib.h>
#include <string.h>

tl_module *tl_module_read(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                          tl_error *err) {
  tl_module *m = NULL;
  if (tl_read(bytes, size, opt, &m, err) != TL_OK) return NULL;
  return m;
}

tl_status tl_module_write(tl_module *m, const tl_write_options *opt, uint8_t **out,
                          size_t *out_size, tl_error *err) {
  tl_buf b = {0};
  tl_status s = tl_write(m, opt, &b, err);
  if (s != TL_OK) {
    tl_buf_free(&b);
    return s;
  }
  *out = b.p;
  *out_size = b.n;
  return TL_OK;
}

tl_status tl_module_write_and_free(tl_module *m, const tl_write_options *opt, uint8_t **out,
                                   size_t *out_size, tl_error *err) {
  tl_buf b = {0};
  tl_status s = tl_write_consume(m, opt, &b, err);
  tl_module_free(m);
  if (s != TL_OK) {
    tl_buf_free(&b);
    return s;
  }
  *out = b.p;
  *out_size = b.n;
  return TL_OK;
}

tl_status tl_module_validate(tl_module *m, tl_error *err) { return tl_validate_module(m, err); }

char *tl_module_print(tl_module *m) {
  tl_buf b = {0};
  tl_print_module(m, &b);
  tl_buf_byte(&b, 0);
  return (char *)b.p;
}
