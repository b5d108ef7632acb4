/* writer.c — tree IR to binary module (stub: being written). */
#include "wasmio.h"

tl_status tl_write(tl_module *m, const tl_write_options *opt, tl_buf *out, tl_error *err) {
  (void)m; (void)opt; (void)out;
  return tl_errorf(err, TL_E_UNSUPPORTED, TL_NO_OFFSET, "writer not written yet");
}
