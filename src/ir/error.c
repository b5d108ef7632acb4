/* error.c — filling a tl_error. The only formatting of messages in the
 * library; callers (the CLI) decide whether and how to print them. */
#include "ir.h"

#include <stdarg.h>
#include <stdio.h>

tl_status tl_errorf(tl_error *e, tl_status code, uint64_t offset, const char *fmt, ...) {
  if (!e) return code;
  e->code = code;
  e->offset = offset;
  e->func_index = TL_NO_FUNC;
  e->line = e->col = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return code;
}

tl_status tl_nomem(tl_error *e, const char *what) {
  return tl_errorf(e, TL_E_NOMEM, TL_NO_OFFSET, "out of memory (%s)", what ? what : "scratch");
}
