/* wasi.c — placeholder, replaced below. */
#include "host.h"
void tl_wasi_define(tl_linker *l, tl_store *s, tl_wasi *w) { (void)l; (void)s; (void)w; }
