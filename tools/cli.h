/* cli.h — helpers shared by the command-line tools: reading whole files
 * (or stdin for "-"), writing files, printing library errors as
 * FILE:0xOFFSET: error: MESSAGE and usage errors as PROG: error: MESSAGE,
 * and dropping custom sections from a written binary. */
#ifndef TILT_CLI_H
#define TILT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilt.h"

/* Reads a whole file ("-" for stdin) into a malloc'd buffer; 0 on success. */
int cli_read_file(const char *path, uint8_t **out, size_t *size);
int cli_write_file(const char *path, const void *p, size_t n);
void cli_print_error(const char *path, const tl_error *e);
/* Remembers the program name (basename of argv0) for cli_fail. */
void cli_init(const char *argv0);
/* --version: "PROG version VERSION"; under a Binaryen tool's name (the
 * program is called wasm-*) "PROG version BINARYEN (tilt VERSION)", the
 * form emcc's version check parses (third word: an integer). */
void cli_print_version(const char *version, int binaryen);
/* Prints "PROG: error: MESSAGE" to stderr. */
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Removes, in place, the custom sections of the well-formed binary p[0..n)
 * for which drop(name, name_len, ctx) is true; returns the new size. Stops
 * (keeping the rest) at anything it cannot parse. */
size_t cli_strip_custom(uint8_t *p, size_t n,
                        bool (*drop)(const char *name, size_t len, void *ctx), void *ctx);

#endif
