/* cli.h — helpers shared by the command-line tools: reading or mapping
 * whole files (or stdin for "-"), writing files, printing library errors as
 * FILE:0xOFFSET: error: MESSAGE and usage errors as PROG: error: MESSAGE,
 * the flag tables that drive both parsing and --help, and dropping custom
 * sections from a written binary. */
#ifndef TILT_CLI_H
#define TILT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilt.h"

/* Reads a whole file ("-" for stdin) into a malloc'd buffer; 0 on success. */
int cli_read_file(const char *path, uint8_t **out, size_t *size);
/* A whole input file, read-only: a regular file is mapped (no copy and no
 * zeroed pages: the fastest way in for a big text), anything else read as
 * by cli_read_file. The file must not shrink while it is mapped. */
typedef struct { const uint8_t *p; size_t n; bool mapped; } cli_file;
int cli_map_file(const char *path, cli_file *out);
/* Gives back the pages of a mapped file (they are read in again if the
 * bytes are used again); nothing for a read one. */
void cli_file_release(cli_file *f);
/* The same for the first n bytes (whole pages only). */
void cli_file_release_prefix(cli_file *f, size_t n);
void cli_file_free(cli_file *f);
int cli_write_file(const char *path, const void *p, size_t n);
void cli_print_error(const char *path, const tl_error *e);
/* --input-source-map: reads PATH (none if NULL) into ro->source_map, which
 * the caller frees; 0 on success. */
int cli_read_source_map(const char *path, tl_read_options *ro);
/* --output-source-map: writes map (tl_write_options.source_map's) to PATH
 * and frees it; 0 on success (or when map is NULL). */
int cli_write_source_map(const char *path, char *map);
/* A read error, under the source map's path when it is the map's. */
void cli_print_read_error(const char *in, const char *map, const tl_error *e);
/* Remembers the program name (basename of argv0) for cli_fail. */
void cli_init(const char *argv0);
/* --version: "PROG version VERSION"; under a Binaryen tool's name (the
 * program is called wasm-*) "PROG version BINARYEN (tilt VERSION)", the
 * form emcc's version check parses (third word: an integer). */
void cli_print_version(const char *version, int binaryen);
/* Prints "PROG: error: MESSAGE" to stderr. */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One row of a tool's flag table: its id (the tool's enum), long name,
 * short name (or NULL), whether it takes an argument, and its help line. */
typedef struct {
  int id;
  const char *lng, *shrt;
  bool arg;
  const char *help;
} cli_flag;

/* Prints one "  --long,-s FILE   help" line a row. */
void cli_print_flags(const cli_flag *flags, size_t n);
/* Matches argv[*i] against the table ("--output=FILE" style too). Returns
 * the row, with its argument in *arg (NULL for none), *i past a separate
 * argument; NULL when no row matches, or (with *bad set and the error
 * printed) when the argument is missing. */
const cli_flag *cli_match_flag(const cli_flag *flags, size_t n, int argc, char **argv, int *i,
                               const char **arg, bool *bad);
/* --enable-NAME / --disable-NAME applied to *features; false if a is no
 * feature flag. *ok is false (error printed) for an unknown feature. */
bool cli_feature_flag(uint32_t *features, const char *a, bool *ok);
/* The flag step of a tool whose flags are a table and --enable-/--disable-
 * features: the index of the last argument used, or -1 on an error
 * (printed). apply(ctx, id, arg) takes a table flag; false stops. */
int cli_table_flag(const cli_flag *flags, size_t n, uint32_t *features,
                   bool (*apply)(void *ctx, int id, const char *arg), void *ctx, int argc, char **argv,
                   int i);
/* The argument loop: flag(ctx, argc, argv, i) takes each argument that
 * starts with '-' (not "-" alone) and returns the index of the last one it
 * used, or -1 on an error; the one other argument is the input file. False
 * on an error (printed), on a second input file or on none. */
bool cli_parse_args(int argc, char **argv, int (*flag)(void *ctx, int argc, char **argv, int i),
                    void *ctx, const char **in);

/* Removes, in place, the custom sections of the well-formed binary p[0..n)
 * for which drop(name, name_len, ctx) is true; returns the new size. Stops
 * (keeping the rest) at anything it cannot parse. */
size_t cli_strip_custom(uint8_t *p, size_t n,
                        bool (*drop)(const char *name, size_t len, void *ctx), void *ctx);

#endif
