/* matmul.c — double-precision matrix multiply, i-k-j order. */
#include <stdio.h>
#define N 280
static double a[N][N], b[N][N], c[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = (double)(i * 7 + j * 3) / N;
      b[i][j] = (double)(i - j) / N;
    }
  for (int rep = 0; rep < 100; rep++) {
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) c[i][j] = 0;
    for (int i = 0; i < N; i++)
      for (int k = 0; k < N; k++) {
        double x = a[i][k];
        for (int j = 0; j < N; j++) c[i][j] += x * b[k][j];
      }
    a[rep % N][rep % N] += c[N - 1 - rep % N][rep % N];
  }
  double s = 0;
  for (int i = 0; i < N; i++) s += c[i][i] + c[i][N - 1 - i];
  printf("matmul %.6f\n", s);
  return 0;
}
