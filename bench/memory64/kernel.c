/* kernel.c — a load/store loop over 1 MiB for bench/memory64/run.py, built
 * as wasm32 and wasm64 (clang --target=wasm64: i64 addresses). */
static unsigned char buf[1 << 20];
long run(long iters) {
  long s = 0;
  for (long k = 0; k < iters; k++)
    for (long i = 0; i < (1 << 20); i += 8) { long *p = (long *)(buf + i); *p += i ^ k; s += *p; }
  return s;
}
