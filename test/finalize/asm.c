#include <stdio.h>
#include <stdint.h>
#include <emscripten.h>
EM_JS(int, js_add, (int a, int b), { return a + b; });
EM_JS(void, js_say, (const char *s), { console.log("js says \"" + UTF8ToString(s) + "\"\n\ttab"); });
EMSCRIPTEN_KEEPALIVE int64_t twice64(int64_t x) { return 2 * x; }
int main(int argc, char **argv) {
  int r = EM_ASM_INT({ return $0 * 3; }, argc);
  EM_ASM({ console.log("asm: " + $0); }, r);
  js_say("hi");
  printf("argc %d %s %d\n", argc, argv[0] ? "argv" : "none", js_add(r, 4));
  return 0;
}
