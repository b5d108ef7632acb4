/* validate.c — context-free validation of the IR (stub: being written). */
#include "ir.h"

tl_status tl_validate_func(tl_module *m, uint32_t func_index, tl_error *err) {
  (void)m; (void)func_index; (void)err;
  return TL_OK;
}

tl_status tl_validate_module(tl_module *m, tl_error *err) {
  (void)m; (void)err;
  return TL_OK;
}
