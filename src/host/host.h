/* host.h — host functions shared by the interpreter and (later) the JIT:
 * one C interface (tilt.h tl_host_fn plus a name and a type string), the
 * spectest module the spec suite imports, and a WASI preview1 subset.
 * Host code never exits or prints on behalf of the library: WASI proc_exit
 * returns TL_E_EXIT and records the status in the tl_wasi context. */
#ifndef TILT_HOST_H
#define TILT_HOST_H

#include "../ir/ir.h"

/* One host function. sig is "params:results" with one letter per value:
 * i (i32), I (i64), f (f32), F (f64), r (funcref), e (externref);
 * e.g. "iiii:i". */
typedef struct {
  const char *module, *name, *sig;
  tl_host_fn fn;
} tl_host_def;

/* Makes the function of one def in store s (user goes to the callback). */
tl_extern tl_host_def_make(tl_store *s, const tl_host_def *d, void *user);
/* Defines n defs in the linker. */
void tl_host_define_all(tl_linker *l, tl_store *s, const tl_host_def *d, size_t n, void *user);

/* spectest.c: print*, global_i32/i64/f32/f64 (666, 666.6), table (10..20
 * funcref), memory (1..2). print functions write nothing unless verbose. */
void tl_spectest_define(tl_linker *l, tl_store *s, bool verbose);

/* wasi.c: the wasi_snapshot_preview1 subset; any other function from that
 * module resolves to a stub returning ENOSYS (52). */
typedef struct {
  int argc;
  char **argv;          /* argv[0] is the program name */
  char **envp;          /* NULL-terminated; NULL for none */
  int fd_in, fd_out, fd_err;  /* host descriptors for 0, 1, 2 */
  int exit_code;        /* set by proc_exit */
  bool exited;
  /* Sandboxed when set (fuzz-exec): writes to descriptors 1 and 2 go to
   * capture(capture_ctx, fd, bytes, n) instead of fd_out/fd_err, descriptor
   * 0 reads as empty, 0-2 are terminals, clocks read 0 and random_get
   * fills zeros, so a program does the same on every run. */
  void (*capture)(void *ctx, int fd, const uint8_t *p, size_t n);
  void *capture_ctx;
} tl_wasi;
void tl_wasi_define(tl_linker *l, tl_store *s, tl_wasi *w);

#endif
