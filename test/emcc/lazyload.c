/* ASYNCIFY_LAZY_LOAD_CODE: main runs in the first module; after
 * emscripten_lazy_load_code() the rest runs in the lazily loaded one. */
#include <emscripten.h>
#include <stdio.h>

static const char *const words[] = {"alpha", "beta", "gamma", "delta"};

__attribute__((noinline)) static unsigned checksum(int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++)
    for (const char *p = words[i % 4]; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
  return h;
}

int main(void) {
  unsigned before = checksum(10);
  printf("before: %u\n", before);
  emscripten_lazy_load_code();
  unsigned after = checksum(10);
  printf("after: %u %s\n", after, after == before ? "same" : "DIFFERENT");
  printf("words: %s %s\n", words[1], words[3]);
  return 0;
}
