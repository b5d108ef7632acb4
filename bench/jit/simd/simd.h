/* simd.h — what the SIMD kernels share: wasm_simd128.h when clang builds
 * them with -msimd128, else nothing (each kernel has a scalar twin that
 * computes the same bits, for the native build); the scale from argv[1];
 * an FNV-1a checksum. */
#ifndef SIMD_H
#define SIMD_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#define HAVE_SIMD 1
#else
#define HAVE_SIMD 0
#endif

static inline int scale(int argc, char **argv, int dflt) { return argc > 1 ? atoi(argv[1]) : dflt; }

static inline uint32_t fnv(uint32_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
  return h;
}
#endif
