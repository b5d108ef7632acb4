/* wasi.c — a WASI preview1 subset for command-line programs: fd_write,
 * fd_read, fd_close, fd_seek, fd_fdstat_get, fd_prestat_get (no preopens),
 * fd_prestat_dir_name, args_*, environ_*, clock_time_get, random_get and
 * proc_exit. Descriptors 0-2 map to the host descriptors in tl_wasi (or,
 * sandboxed, to a capture callback and fixed clocks and entropy); there
 * is no file system. Every guest pointer is bounds-checked (EFAULT). Any
 * other wasi_snapshot_preview1 import is a stub returning ENOSYS. */
#include "host.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

enum { E_OK = 0, E_BADF = 8, E_FAULT = 21, E_INVAL = 28, E_IO = 29, E_NOSYS = 52, E_SPIPE = 70 };

typedef struct { tl_wasi *w; uint8_t *mem; uint64_t size; } wctx;

static bool in_mem(const wctx *c, uint64_t p, uint64_t n) {
  return c->mem && p <= c->size && c->size - p >= n;
}

static void put32(wctx *c, uint32_t p, uint32_t v) { memcpy(c->mem + p, &v, 4); }
static void put64(wctx *c, uint32_t p, uint64_t v) { memcpy(c->mem + p, &v, 8); }
static uint32_t get32(const wctx *c, uint32_t p) {
  uint32_t v;
  memcpy(&v, c->mem + p, 4);
  return v;
}

static wctx ctx(tl_host_call *call, void *user) {
  wctx c = {user, NULL, 0};
  c.mem = tl_host_memory(call, &c.size);
  return c;
}

static int host_fd(const tl_wasi *w, int32_t fd) {
  return fd == 0 ? w->fd_in : fd == 1 ? w->fd_out : fd == 2 ? w->fd_err : -1;
}

#define RET(e) do { r[0].of.i32 = (e); return TL_OK; } while (0)
#define HOST(name) static tl_status name(tl_host_call *call, void *user, const tl_value *a, \
                                         tl_value *r, tl_error *err)

/* A sandboxed transfer: output to the capture callback, input empty. */
static ssize_t sandbox_io(wctx *c, int32_t fd, uint32_t p, uint32_t len, bool wr) {
  if (wr) c->w->capture(c->w->capture_ctx, fd, c->mem + p, len);
  return wr ? (ssize_t)len : 0;
}

/* fd_write / fd_read share the iovec walk. */
static int32_t iov_io(wctx *c, int32_t fd, uint32_t iovs, uint32_t n, uint32_t out, bool wr) {
  int h = host_fd(c->w, fd);
  if (h < 0 || (wr && fd == 0) || (!wr && fd != 0)) return E_BADF;
  if (!in_mem(c, iovs, (uint64_t)n * 8) || !in_mem(c, out, 4)) return E_FAULT;
  uint64_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t p = get32(c, iovs + 8 * i), len = get32(c, iovs + 8 * i + 4);
    if (!in_mem(c, p, len)) return E_FAULT;
    if (c->w->capture) {
      total += (uint64_t)sandbox_io(c, fd, p, len, wr);
      continue;
    }
    while (len) {
      ssize_t k = wr ? write(h, c->mem + p, len) : read(h, c->mem + p, len);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0) return E_IO;
      total += (uint64_t)k;
      if (k == 0 || !wr) break;
      p += (uint32_t)k;
      len -= (uint32_t)k;
    }
    if (!wr && total) break;   /* one short read is enough */
  }
  put32(c, out, (uint32_t)total);
  return E_OK;
}

HOST(fd_write) {
  (void)err;
  wctx c = ctx(call, user);
  RET(iov_io(&c, a[0].of.i32, (uint32_t)a[1].of.i32, (uint32_t)a[2].of.i32, (uint32_t)a[3].of.i32, true));
}

HOST(fd_read) {
  (void)err;
  wctx c = ctx(call, user);
  RET(iov_io(&c, a[0].of.i32, (uint32_t)a[1].of.i32, (uint32_t)a[2].of.i32, (uint32_t)a[3].of.i32, false));
}

HOST(fd_close) {
  (void)call; (void)err;
  RET(host_fd(user, a[0].of.i32) < 0 ? E_BADF : E_OK);
}

HOST(fd_seek) {
  (void)call; (void)err;
  RET(host_fd(user, a[0].of.i32) < 0 ? E_BADF : E_SPIPE);
}

HOST(fd_fdstat_get) {
  (void)err;
  wctx c = ctx(call, user);
  int h = host_fd(c.w, a[0].of.i32);
  uint32_t p = (uint32_t)a[1].of.i32;
  if (h < 0) RET(E_BADF);
  if (!in_mem(&c, p, 24)) RET(E_FAULT);
  memset(c.mem + p, 0, 24);
  c.mem[p] = c.w->capture || isatty(h) ? 2 : 4;  /* character device or regular file */
  put64(&c, p + 8, ~(uint64_t)0x4 & ~(uint64_t)0x20);  /* no seek/tell */
  put64(&c, p + 16, 0);
  RET(E_OK);
}

HOST(fd_prestat_get) {
  (void)call; (void)user; (void)a; (void)err;
  RET(E_BADF);
}

HOST(fd_prestat_dir_name) {
  (void)call; (void)user; (void)a; (void)err;
  RET(E_BADF);
}

/* args and environ: a list of strings written as pointers plus a buffer. */
static int32_t strings_get(wctx *c, char **v, int n, uint32_t ptrs, uint32_t buf) {
  if (!in_mem(c, ptrs, (uint64_t)n * 4)) return E_FAULT;
  for (int i = 0; i < n; i++) {
    size_t len = strlen(v[i]) + 1;
    if (!in_mem(c, buf, len)) return E_FAULT;
    memcpy(c->mem + buf, v[i], len);
    put32(c, ptrs + 4 * (uint32_t)i, buf);
    buf += (uint32_t)len;
  }
  return E_OK;
}

static int32_t strings_sizes(wctx *c, char **v, int n, uint32_t pn, uint32_t psz) {
  if (!in_mem(c, pn, 4) || !in_mem(c, psz, 4)) return E_FAULT;
  uint32_t sz = 0;
  for (int i = 0; i < n; i++) sz += (uint32_t)strlen(v[i]) + 1;
  put32(c, pn, (uint32_t)n);
  put32(c, psz, sz);
  return E_OK;
}

static int env_count(char **envp) {
  int n = 0;
  while (envp && envp[n]) n++;
  return n;
}

HOST(args_get) {
  (void)err;
  wctx c = ctx(call, user);
  RET(strings_get(&c, c.w->argv, c.w->argc, (uint32_t)a[0].of.i32, (uint32_t)a[1].of.i32));
}

HOST(args_sizes_get) {
  (void)err;
  wctx c = ctx(call, user);
  RET(strings_sizes(&c, c.w->argv, c.w->argc, (uint32_t)a[0].of.i32, (uint32_t)a[1].of.i32));
}

HOST(environ_get) {
  (void)err;
  wctx c = ctx(call, user);
  RET(strings_get(&c, c.w->envp, env_count(c.w->envp), (uint32_t)a[0].of.i32, (uint32_t)a[1].of.i32));
}

HOST(environ_sizes_get) {
  (void)err;
  wctx c = ctx(call, user);
  RET(strings_sizes(&c, c.w->envp, env_count(c.w->envp), (uint32_t)a[0].of.i32, (uint32_t)a[1].of.i32));
}

HOST(clock_time_get) {
  (void)err;
  wctx c = ctx(call, user);
  static const clockid_t ids[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID,
                                  CLOCK_THREAD_CPUTIME_ID};
  uint32_t id = (uint32_t)a[0].of.i32, p = (uint32_t)a[2].of.i32;
  if (id > 3) RET(E_INVAL);
  if (!in_mem(&c, p, 8)) RET(E_FAULT);
  struct timespec ts = {0, 0};
  if (!c.w->capture && clock_gettime(ids[id], &ts)) RET(E_INVAL);
  put64(&c, p, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
  RET(E_OK);
}

HOST(random_get) {
  (void)err;
  wctx c = ctx(call, user);
  uint32_t p = (uint32_t)a[0].of.i32, n = (uint32_t)a[1].of.i32;
  if (!in_mem(&c, p, n)) RET(E_FAULT);
  if (c.w->capture) memset(c.mem + p, 0, n);
  while (n && !c.w->capture) {
    ssize_t k = getrandom(c.mem + p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) RET(E_IO);
    p += (uint32_t)k;
    n -= (uint32_t)k;
  }
  RET(E_OK);
}

HOST(proc_exit) {
  (void)call; (void)r;
  tl_wasi *w = user;
  w->exit_code = a[0].of.i32;
  w->exited = true;
  return tl_errorf(err, TL_E_EXIT, TL_NO_OFFSET, "exit %d", (int)a[0].of.i32);
}

HOST(enosys) {
  (void)user; (void)a; (void)err;
  if (tl_host_call_nresults(call)) r[0].of.i32 = E_NOSYS;
  return TL_OK;
}

#define W "wasi_snapshot_preview1"
static const tl_host_def defs[] = {
  {W, "fd_write", "iiii:i", fd_write},
  {W, "fd_read", "iiii:i", fd_read},
  {W, "fd_close", "i:i", fd_close},
  {W, "fd_seek", "iIii:i", fd_seek},
  {W, "fd_fdstat_get", "ii:i", fd_fdstat_get},
  {W, "fd_prestat_get", "ii:i", fd_prestat_get},
  {W, "fd_prestat_dir_name", "iii:i", fd_prestat_dir_name},
  {W, "args_get", "ii:i", args_get},
  {W, "args_sizes_get", "ii:i", args_sizes_get},
  {W, "environ_get", "ii:i", environ_get},
  {W, "environ_sizes_get", "ii:i", environ_sizes_get},
  {W, "clock_time_get", "iIi:i", clock_time_get},
  {W, "random_get", "ii:i", random_get},
  {W, "proc_exit", "i:", proc_exit},
};

void tl_wasi_define(tl_linker *l, tl_store *s, tl_wasi *w) {
  tl_host_define_all(l, s, defs, sizeof defs / sizeof defs[0], w);
  tl_linker_define_fallback(l, W, enosys, w);
}
