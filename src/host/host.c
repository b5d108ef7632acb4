/* host.c — building host functions from tl_host_def rows (the signature
 * string names the wasm type; see host.h). */
#include "host.h"

#include <string.h>

static uint32_t letter_type(char c) {
  switch (c) {
  case 'i': return TL_VAL_I32;
  case 'I': return TL_VAL_I64;
  case 'f': return TL_VAL_F32;
  case 'F': return TL_VAL_F64;
  case 'v': return TL_VAL_V128;
  case 'r': return TL_VAL_FUNCREF;
  default: return TL_VAL_EXTERNREF;
  }
}

tl_extern tl_host_def_make(tl_store *s, const tl_host_def *d, void *user) {
  uint32_t p[32], r[8], np = 0, nr = 0;
  const char *c = d->sig;
  for (; *c && *c != ':' && np < 32; c++) p[np++] = letter_type(*c);
  if (*c == ':') c++;
  for (; *c && nr < 8; c++) r[nr++] = letter_type(*c);
  return tl_host_func_new(s, p, np, r, nr, d->fn, user);
}

void tl_host_define_all(tl_linker *l, tl_store *s, const tl_host_def *d, size_t n, void *user) {
  for (size_t i = 0; i < n; i++) tl_linker_define(l, d[i].module, d[i].name, tl_host_def_make(s, &d[i], user));
}
