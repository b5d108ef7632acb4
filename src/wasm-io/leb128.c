/* leb128.c — LEB128 decoding and minimal encoding (stub: being written). */
#include "wasmio.h"
