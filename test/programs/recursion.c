/* recursion.c — direct and mutual recursion: Fibonacci, Ackermann, Towers
 * of Hanoi, permutations, N-queens, a recursive flood fill, and exit() from
 * deep in the recursion with a computed status. */
#include <stdlib.h>
#include "common.h"

static uint32_t fib(uint32_t n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static uint32_t ack(uint32_t m, uint32_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

static int is_odd(uint32_t n);
static int is_even(uint32_t n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(uint32_t n) { return n == 0 ? 0 : is_even(n - 1); }

static uint32_t moves;
static void hanoi(int n, int from, int to, int via) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to);
  moves++;
  ck((uint32_t)(from * 10 + to));
  hanoi(n - 1, via, to, from);
}

static int perm[8], used[8], nperm;
static void permute(int k, int n) {
  if (k == n) {
    uint32_t v = 0;
    for (int i = 0; i < n; i++) v = v * 8 + (uint32_t)perm[i];
    ck(v);
    nperm++;
    return;
  }
  for (int i = 0; i < n; i++) {
    if (used[i]) continue;
    used[i] = 1;
    perm[k] = i;
    permute(k + 1, n);
    used[i] = 0;
  }
}

static int cols[10];
static int queens(int row, int n) {
  if (row == n) return 1;
  int total = 0;
  for (int c = 0; c < n; c++) {
    int ok = 1;
    for (int r = 0; r < row && ok; r++)
      if (cols[r] == c || abs(cols[r] - c) == row - r) ok = 0;
    if (!ok) continue;
    cols[row] = c;
    total += queens(row + 1, n);
  }
  return total;
}

static char grid[12][13] = {
    "############", "#..#.......#", "#..#.####..#", "#....#..#..#", "####.#..#..#", "#....####..#",
    "#.##.......#", "#.#..###.#.#", "#.#.##.#.#.#", "#...#..#...#", "#.....#....#", "############",
};
static int fill(int r, int c) {
  if (grid[r][c] != '.') return 0;
  grid[r][c] = 'o';
  return 1 + fill(r + 1, c) + fill(r - 1, c) + fill(r, c + 1) + fill(r, c - 1);
}

static int deep_exit(int depth, uint32_t acc) {
  if (depth == 0 && acc != 0) {
    printf("exiting from the bottom with %" PRIu32 "\n", acc % 100);
    exit((int)(acc % 100) + 3);
  }
  if (depth == 0) return 1;
  return deep_exit(depth - 1, acc * 7 + (uint32_t)depth) + 1;
}

int main(void) {
  printf("fib(22) = %" PRIu32 "\n", fib(22));
  printf("ack(2,3) = %" PRIu32 " ack(3,3) = %" PRIu32 "\n", ack(2, 3), ack(3, 3));
  printf("even(301) = %d odd(301) = %d\n", is_even(301), is_odd(301));
  hanoi(10, 1, 3, 2);
  printf("hanoi(10) moves = %" PRIu32 "\n", moves);
  permute(0, 6);
  printf("permutations of 6 = %d\n", nperm);
  for (int n = 4; n <= 8; n++) printf("queens(%d) = %d\n", n, queens(0, n));
  printf("flood fill = %d\n", fill(1, 1));
  for (int r = 0; r < 12; r++) printf("%s\n", grid[r]);
  ck(fib(15));
  ck_print("recursion");
  return deep_exit(200, 1);
}
