/* atexit.c — program start and end: a constructor that runs before main,
 * atexit handlers run in reverse order of registration (printing), static
 * data initialized with pointers to other data, and exit() with a
 * status computed at run time (non-zero: the runner checks it). */
#include <stdlib.h>
#include <string.h>
#include "common.h"

static int ctor_ran;
static uint32_t exit_sum;
__attribute__((constructor)) static void early(void) { ctor_ran = 42; }

static void bye1(void) { printf("bye1 (sum %" PRIu32 ")\n", exit_sum); }
static void bye2(void) { exit_sum += 2; printf("bye2\n"); }
static void bye3(void) { exit_sum += 3; printf("bye3\n"); }

static const char *names[] = {"alpha", "beta", "gamma", "delta"};
static const char **pick = &names[2];
static struct { const char *s; int32_t n; } table[] = {{"one", 1}, {"two", 2}, {"three", 3}};

int main(void) {
  printf("constructor ran: %d\n", ctor_ran);
  atexit(bye1);
  atexit(bye2);
  atexit(bye3);
  printf("picked %s, table %s/%" PRId32 "\n", *pick, table[2].s, table[1].n);
  uint32_t status = 0;
  for (int i = 0; i < 4; i++) status += (uint32_t)strlen(names[i]) * (uint32_t)(i + 1);
  for (int i = 0; i < 3; i++) ck((uint32_t)table[i].n * (uint32_t)strlen(table[i].s));
  ck_print("atexit");
  fflush(stdout);
  exit((int)(status % 200) + 1);
}
