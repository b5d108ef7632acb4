/* EM_ASM and EM_JS (the strings wasm-emscripten-finalize takes out of the
 * module into the metadata), main reading argc/argv, and i64 arithmetic
 * through an exported function JS sees legalized. */
#include <emscripten.h>
#include <stdint.h>
#include <stdio.h>

EM_JS(int, js_add, (int a, int b), { return a + b; });
EM_JS(void, js_note, (const char *s), { out("js: \"" + UTF8ToString(s) + "\"\ttab"); });

EMSCRIPTEN_KEEPALIVE int64_t mix64(int64_t a, int32_t b) { return a * 1000003 + b; }
int64_t (*volatile mixer)(int64_t, int32_t) = mix64;

int main(int argc, char **argv) {
  int r = EM_ASM_INT({ return $0 * 3; }, argc);
  EM_ASM({ out("asm: " + $0 + " \"quoted\""); }, r);
  js_note("hi");
  printf("argc %d %s %d\n", argc, argv[0] ? "argv0" : "none", js_add(r, 4));
  int64_t v = 1;
  for (int i = 0; i < 5; i++) v = mixer(v, i);
  printf("mix %lld\n", (long long)v);
  return 0;
}
