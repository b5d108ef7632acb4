/* tsjson.c — a Lua-sized WASI program for bench/passes: the tree-sitter
 * runtime (lib.c, ~14k lines, fetched by run.py with `npm pack`) with the
 * JSON grammar parses a generated document (with a syntax error) and prints
 * the tree's size, the start of its S-expression and a hash of all of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree_sitter/api.h"

const TSLanguage *tree_sitter_json(void);

int main(void) {
  TSParser *p = ts_parser_new();
  ts_parser_set_language(p, tree_sitter_json());
  char *src = malloc(1 << 16);
  size_t n = 0;
  n += (size_t)sprintf(src + n, "{\"a\": [1, 2.5e3, true, null, \"x\\n\"], \"b\": {\"c\": [");
  for (int i = 0; i < 300; i++) n += (size_t)sprintf(src + n, "%s{\"k%d\": %d}", i ? ", " : "", i, i * 7);
  n += (size_t)sprintf(src + n, "]}, \"bad\": [1,, 2]}");
  TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)n);
  TSNode root = ts_tree_root_node(t);
  char *s = ts_node_string(root);
  printf("%zu chars, %u children, error=%d\n", strlen(s), ts_node_child_count(root), ts_node_has_error(root));
  printf("%.300s\n", s);
  unsigned h = 0;
  for (char *q = s; *q; q++) h = h * 31 + (unsigned char)*q;
  printf("hash %08x\n", h);
  free(s);
  ts_tree_delete(t);
  ts_parser_delete(p);
  free(src);
  return 0;
}
