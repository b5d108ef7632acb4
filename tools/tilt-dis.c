/* tilt-dis — print a binary module as folded text that wat2wasm accepts.
 * Reads with every feature enabled (a disassembler should show whatever is
 * valid); -n skips validation. Errors print as FILE:0xOFFSET: error: MSG. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const char *in = NULL, *out = "-";
  tl_read_options ro = {0};
  ro.features = TL_FEATURES_ALL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--all-features") || !strcmp(argv[i], "-all")) ro.features = TL_FEATURES_ALL;
    else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--no-validation")) ro.no_validate = true;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: tilt-dis [-n|--no-validation] IN.wasm [-o OUT.wat]\n"
             "Prints IN.wasm (\"-\" for stdin) as folded WebAssembly text.\n");
      return 0;
    } else in = argv[i];
  }
  if (!in) {
    fprintf(stderr, "usage: tilt-dis IN.wasm [-o OUT.wat]\n");
    return 1;
  }
  uint8_t *bytes;
  size_t size;
  if (cli_read_file(in, &bytes, &size)) return 1;
  tl_error err = {0};
  tl_module *m = tl_module_read_any(bytes, size, &ro, &err);
  free(bytes);
  if (!m) {
    cli_print_error(in, &err);
    return 1;
  }
  char *text = tl_module_print(m);
  int rc = cli_write_file(out, text, strlen(text));
  free(text);
  tl_module_free(m);
  return rc;
}
