/* matmul.c — single-precision matrix multiply in i-k-j order: the inner
 * loop is elementwise, which clang vectorizes with -msimd128 (each element
 * sums in the same order in every build). */
#include "simd.h"
#define N 192
static float a[N][N], b[N][N], c[N][N];

int main(int argc, char **argv) {
  int reps = scale(argc, argv, 1000);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = (float)((i * 7 + j * 3) % 17) / 17.0f;
      b[i][j] = (float)((i - j) % 13) / 13.0f;
    }
  uint32_t h = 2166136261u;
  for (int r = 0; r < reps; r++) {
    memset(c, 0, sizeof c);
    for (int i = 0; i < N; i++)
      for (int k = 0; k < N; k++) {
        float x = a[i][k];
        for (int j = 0; j < N; j++) c[i][j] += x * b[k][j];
      }
    a[r % N][(r * 5) % N] = c[(r * 3) % N][r % N] * 1e-3f;
    h = fnv(h, c[r % N], sizeof c[0]);
  }
  printf("matmul %08x\n", h);
  return 0;
}
