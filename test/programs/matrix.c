/* matrix.c — dense matrix kernels: integer multiply (ijk and a blocked
 * ikj order, compared), transpose, matrix power by squaring modulo a
 * prime, and double-precision Gaussian elimination with partial pivoting
 * (determinant and a solve, printed at fixed precision). */
#include <math.h>
#include <string.h>
#include "common.h"

#define N 24
static int32_t A[N][N], B[N][N], C[N][N], D[N][N];

static void mul_ijk(int32_t (*a)[N], int32_t (*b)[N], int32_t (*c)[N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      int32_t s = 0;
      for (int k = 0; k < N; k++) s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}
static void mul_blocked(int32_t (*a)[N], int32_t (*b)[N], int32_t (*c)[N]) {
  memset(c, 0, sizeof(int32_t) * N * N);
  for (int ii = 0; ii < N; ii += 8)
    for (int kk = 0; kk < N; kk += 8)
      for (int i = ii; i < ii + 8; i++)
        for (int k = kk; k < kk + 8; k++) {
          int32_t x = a[i][k];
          for (int j = 0; j < N; j++) c[i][j] += x * b[k][j];
        }
}

#define P 1000003u
typedef struct { uint32_t m[3][3]; } m3;
static m3 m3mul(m3 x, m3 y) {
  m3 r;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      uint64_t s = 0;
      for (int k = 0; k < 3; k++) s += (uint64_t)x.m[i][k] * y.m[k][j];
      r.m[i][j] = (uint32_t)(s % P);
    }
  return r;
}
static m3 m3pow(m3 x, uint32_t e) {
  m3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  while (e) {
    if (e & 1) r = m3mul(r, x);
    x = m3mul(x, x);
    e >>= 1;
  }
  return r;
}

static double det_solve(double (*m)[6], double *rhs, double *x, int n) {
  double det = 1;
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++)
      if (fabs(m[r][c]) > fabs(m[p][c])) p = r;
    if (p != c) {
      for (int k = 0; k < n; k++) {
        double t = m[c][k];
        m[c][k] = m[p][k];
        m[p][k] = t;
      }
      double t = rhs[c];
      rhs[c] = rhs[p];
      rhs[p] = t;
      det = -det;
    }
    det *= m[c][c];
    for (int r = c + 1; r < n; r++) {
      double f = m[r][c] / m[c][c];
      for (int k = c; k < n; k++) m[r][k] -= f * m[c][k];
      rhs[r] -= f * rhs[c];
    }
  }
  for (int r = n - 1; r >= 0; r--) {
    double s = rhs[r];
    for (int k = r + 1; k < n; k++) s -= m[r][k] * x[k];
    x[r] = s / m[r][r];
  }
  return det;
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (int32_t)(rng() % 21) - 10;
      B[i][j] = (i * 7 + j * 3) % 11 - 5;
    }
  mul_ijk(A, B, C);
  mul_blocked(A, B, D);
  int same = memcmp(C, D, sizeof C) == 0;
  uint32_t h = 0, trace = 0;
  for (int i = 0; i < N; i++) {
    trace += (uint32_t)C[i][i];
    for (int j = 0; j < N; j++) h = h * 31 + (uint32_t)C[i][j];
  }
  printf("product hash %08" PRIx32 " trace %" PRId32 " orders agree %d\n", h, (int32_t)trace, same);
  ck(h);
  for (int i = 0; i < N; i++)
    for (int j = i + 1; j < N; j++) {
      int32_t t = C[i][j];
      C[i][j] = C[j][i];
      C[j][i] = t;
    }
  printf("transposed corner %" PRId32 " %" PRId32 " %" PRId32 "\n", C[0][N - 1], C[N - 1][0], C[3][5]);
  ck((uint32_t)C[0][N - 1]);

  m3 fibm = {{{1, 1, 0}, {1, 0, 0}, {0, 0, 1}}};
  m3 r = m3pow(fibm, 1000000);
  printf("fib(1000000) mod %u = %" PRIu32 "\n", P, r.m[0][1]);
  m3 trib = {{{1, 1, 1}, {1, 0, 0}, {0, 1, 0}}};
  r = m3pow(trib, 123456789);
  printf("tribonacci power row %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", r.m[0][0], r.m[0][1], r.m[0][2]);
  ck(r.m[0][0] ^ r.m[0][2]);

  double m[6][6], rhs[6], x[6];
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) m[i][j] = 1.0 / (i + j + 1) + (i == j ? 0.5 : 0.0);
    rhs[i] = i + 1;
  }
  double det = det_solve(m, rhs, x, 6);
  printf("det %.9f x =", det);
  for (int i = 0; i < 6; i++) printf(" %.6f", x[i]);
  printf("\n");
  ck((uint32_t)(int32_t)(det * 1e6));
  ck_print("matrix");
  return !same;
}
