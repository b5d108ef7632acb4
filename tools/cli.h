/* cli.h — helpers shared by the command-line tools: reading whole files
 * (or stdin for "-"), writing files, and printing library errors as
 * FILE:0xOFFSET: error: MESSAGE. */
#ifndef TILT_CLI_H
#define TILT_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "tilt.h"

/* Reads a whole file ("-" for stdin) into a malloc'd buffer; 0 on success. */
int cli_read_file(const char *path, uint8_t **out, size_t *size);
int cli_write_file(const char *path, const void *p, size_t n);
void cli_print_error(const char *path, const tl_error *e);

#endif
