/* api.c — the public entry points of tilt.h that wrap the internal ones:
 * reading, writing, validating and printing modules. */
#include "ir/ir.h"
#include "wasm-io/wasmio.h"

#include <stdlib.h>
#include <string.h>

/* Each runs its work in an out-of-memory scope (oom.c): out of memory
 * anywhere inside is TL_E_NOMEM, with nothing allocated left behind. */
typedef struct {
  const uint8_t *bytes;
  size_t size;
  const tl_read_options *opt;
  tl_module *m;
} read_call;

static tl_status read_in_scope(void *c, tl_error *err) {
  read_call *r = c;
  return tl_read(r->bytes, r->size, r->opt, &r->m, err);
}

tl_module *tl_module_read(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                          tl_error *err) {
  read_call r = {bytes, size, opt, NULL};
  if (tl_oom_run(NULL, read_in_scope, &r, err, "read") != TL_OK) return NULL;
  return r.m;
}

typedef struct {
  tl_module *m;
  const tl_write_options *opt;
  bool consume;
  tl_buf b;
} write_call;

static tl_status write_in_scope(void *c, tl_error *err) {
  write_call *w = c;
  tl_status s = w->consume ? tl_write_consume(w->m, w->opt, &w->b, err) : tl_write(w->m, w->opt, &w->b, err);
  if (s != TL_OK) tl_buf_free(&w->b);
  return s;
}

static tl_status write_out(tl_module *m, const tl_write_options *opt, bool consume, uint8_t **out,
                           size_t *out_size, tl_error *err) {
  write_call w = {m, opt, consume, {0}};
  tl_status s = tl_oom_run(m, write_in_scope, &w, err, "write");
  if (s != TL_OK) return s;
  *out = w.b.p;
  *out_size = w.b.n;
  return TL_OK;
}

tl_status tl_module_write(tl_module *m, const tl_write_options *opt, uint8_t **out,
                          size_t *out_size, tl_error *err) {
  return write_out(m, opt, false, out, out_size, err);
}

tl_status tl_module_write_and_free(tl_module *m, const tl_write_options *opt, uint8_t **out,
                                   size_t *out_size, tl_error *err) {
  tl_status s = write_out(m, opt, true, out, out_size, err);
  tl_module_free(m);
  return s;
}

static tl_status validate_in_scope(void *m, tl_error *err) { return tl_validate_module(m, err); }

tl_status tl_module_validate(tl_module *m, tl_error *err) {
  return tl_oom_run(m, validate_in_scope, m, err, "validate");
}

typedef struct {
  tl_module *m;
  tl_buf b;
} print_call;

static tl_status print_in_scope(void *c, tl_error *err) {
  print_call *p = c;
  tl_status s = tl_module_decode_all(p->m, err);
  if (s != TL_OK) return s;
  tl_print_module(p->m, &p->b);
  tl_buf_byte(&p->b, 0);
  return TL_OK;
}

char *tl_module_print(tl_module *m) {
  print_call p = {m, {0}};
  tl_error err;
  if (tl_oom_run(m, print_in_scope, &p, &err, "print") != TL_OK) return NULL;
  return (char *)p.b.p;
}
