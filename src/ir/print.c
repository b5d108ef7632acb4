/* print.c — folded s-expression text (stub: being written). */
#include "ir.h"

void tl_print_module(tl_module *m, tl_buf *out) { (void)m; tl_buf_printf(out, "(module)\n"); }
void tl_print_expr(tl_module *m, tl_func *f, tl_expr *e, tl_buf *out) { (void)m; (void)f; (void)e; (void)out; }
