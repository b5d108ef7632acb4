/* reader.c — binary module to tree IR (stub: being written). */
#include "wasmio.h"

tl_status tl_read(const uint8_t *bytes, size_t size, const tl_read_options *opt,
                  tl_module **out, tl_error *err) {
  (void)bytes; (void)size; (void)opt; *out = NULL;
  return tl_errorf(err, TL_E_UNSUPPORTED, 0, "reader not written yet");
}
