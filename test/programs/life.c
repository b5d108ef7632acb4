/* life.c — Conway's Game of Life on a 32x32 torus packed into 32-bit row
 * words (bit-parallel neighbour counts with adders), checked against a
 * plain cell-by-cell version for 24 generations; prints the final board. */
#include <string.h>
#include "common.h"

#define W 32
static uint32_t board[W], plain[W][W], tmp[W][W];

static uint32_t rotl1(uint32_t x) { return x << 1 | x >> 31; }
static uint32_t rotr1(uint32_t x) { return x >> 1 | x << 31; }

static void step_bits(void) {
  uint32_t next[W];
  for (int r = 0; r < W; r++) {
    uint32_t up = board[(r + W - 1) % W], mid = board[r], dn = board[(r + 1) % W];
    uint32_t n[8] = {rotl1(up), up, rotr1(up), rotl1(mid), rotr1(mid), rotl1(dn), dn, rotr1(dn)};
    /* count to 3 bits (s0 s1 s2 = ones, twos, fours), saturating is unneeded: 8 = 0b1000 is never "3" or "2" */
    uint32_t s0 = 0, s1 = 0, s2 = 0;
    for (int k = 0; k < 8; k++) {
      uint32_t c0 = s0 & n[k];
      s0 ^= n[k];
      uint32_t c1 = s1 & c0;
      s1 ^= c0;
      s2 |= c1;
    }
    next[r] = ~s2 & s1 & (s0 | mid);
  }
  memcpy(board, next, sizeof next);
}

static void step_plain(void) {
  for (int r = 0; r < W; r++)
    for (int c = 0; c < W; c++) {
      int n = 0;
      for (int dr = -1; dr <= 1; dr++)
        for (int dc = -1; dc <= 1; dc++)
          if (dr || dc) n += plain[(r + dr + W) % W][(c + dc + W) % W];
      tmp[r][c] = n == 3 || (n == 2 && plain[r][c]);
    }
  memcpy(plain, tmp, sizeof tmp);
}

int main(void) {
  for (int r = 0; r < W; r++) {
    board[r] = rng();
    board[r] &= rng();
    for (int c = 0; c < W; c++) plain[r][c] = board[r] >> c & 1;
  }
  int mismatch = -1;
  for (int g = 0; g < 24; g++) {
    step_bits();
    step_plain();
    int pop = 0;
    for (int r = 0; r < W; r++) {
      pop += __builtin_popcount(board[r]);
      for (int c = 0; c < W; c++)
        if ((board[r] >> c & 1) != plain[r][c] && mismatch < 0) mismatch = g;
    }
    ck((uint32_t)pop);
    if (g % 6 == 5) printf("generation %d: population %d\n", g + 1, pop);
  }
  for (int r = 0; r < W; r++) {
    char line[W + 1];
    for (int c = 0; c < W; c++) line[c] = board[r] >> c & 1 ? '#' : '.';
    line[W] = 0;
    printf("%s\n", line);
  }
  printf("first mismatch %d\n", mismatch);
  ck_print("life");
  return mismatch >= 0;
}
