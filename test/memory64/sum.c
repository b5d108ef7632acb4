/* sum.c — a small C program for clang --target=wasm64 (test/memory64/run.sh). */
long sum(long *p, long n) { long s = 0; for (long i = 0; i < n; i++) s += p[i] * 3; return s; }
static char buf[1 << 16];
char *get(long i) { return buf + i; }
