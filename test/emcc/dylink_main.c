/* dylink_main.c — a main module (-sMAIN_MODULE=2) calling into dylink_side.c's
 * side module and reading its data: both built with tilt's tools. */
#include <stdio.h>
extern int side_counter;
int side_mul(int a, int b);
int main(void) {
  int r = side_mul(6, 7);
  printf("side_mul %d counter %d\n", r, side_counter);
  return 0;
}
