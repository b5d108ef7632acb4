/* threads.c — four pthreads (-pthread, a pool of 4 workers under node) adding
 * into an atomic counter. */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
static atomic_int total;
static void *work(void *arg) {
  int id = (int)(long)arg, s = 0;
  for (int i = 0; i <= 1000 * (id + 1); i++) s += i % 7;
  atomic_fetch_add(&total, s);
  return NULL;
}
int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, (void *)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  printf("total %d\n", atomic_load(&total));
  return 0;
}
