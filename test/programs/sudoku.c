/* sudoku.c — a backtracking Sudoku solver with bitmask candidate sets,
 * choosing the cell with the fewest candidates first; solves two puzzles,
 * verifies the solutions and counts search nodes. */
#include "common.h"

static uint8_t grid[81];
static uint16_t rows[9], cols[9], boxes[9];
static uint32_t nodes;

static int box_of(int cell) { return cell / 27 * 3 + cell % 9 / 3; }
static void place(int cell, int d, int on) {
  uint16_t bit = (uint16_t)(1u << d);
  if (on) rows[cell / 9] |= bit, cols[cell % 9] |= bit, boxes[box_of(cell)] |= bit, grid[cell] = (uint8_t)d;
  else rows[cell / 9] &= (uint16_t)~bit, cols[cell % 9] &= (uint16_t)~bit, boxes[box_of(cell)] &= (uint16_t)~bit, grid[cell] = 0;
}
static int solve(void) {
  nodes++;
  int best = -1, best_count = 10;
  uint16_t best_mask = 0;
  for (int c = 0; c < 81; c++) {
    if (grid[c]) continue;
    uint16_t free_ = (uint16_t)(~(rows[c / 9] | cols[c % 9] | boxes[box_of(c)]) & 0x3fe);
    int n = __builtin_popcount(free_);
    if (n < best_count) best = c, best_count = n, best_mask = free_;
    if (n == 0) return 0;
  }
  if (best < 0) return 1;
  for (int d = 1; d <= 9; d++)
    if (best_mask >> d & 1) {
      place(best, d, 1);
      if (solve()) return 1;
      place(best, d, 0);
    }
  return 0;
}
static int load(const char *s) {
  for (int i = 0; i < 9; i++) rows[i] = cols[i] = boxes[i] = 0;
  for (int c = 0; c < 81; c++) {
    grid[c] = 0;
    if (s[c] >= '1' && s[c] <= '9') {
      int d = s[c] - '0';
      if ((rows[c / 9] | cols[c % 9] | boxes[box_of(c)]) >> d & 1) return 0;
      place(c, d, 1);
    }
  }
  return 1;
}
static int valid(void) {
  for (int i = 0; i < 9; i++)
    if (rows[i] != 0x3fe || cols[i] != 0x3fe || boxes[i] != 0x3fe) return 0;
  return 1;
}

int main(void) {
  const char *puzzles[] = {
      "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
      "..9748...7.........2.1.9.....7...24..64.1.59..98...3.....8.3.2.........6...2759..",
      "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
      "11...............................................................................",
  };
  int bad = 0;
  for (int p = 0; p < 4; p++) {
    nodes = 0;
    if (!load(puzzles[p])) {
      printf("puzzle %d: contradictory givens\n", p);
      ck(0xbad);
      continue;
    }
    int ok = solve() && valid();
    printf("puzzle %d: %s after %" PRIu32 " nodes\n", p, ok ? "solved" : "no solution", nodes);
    if (ok)
      for (int r = 0; r < 9; r++) {
        for (int c = 0; c < 9; c++) printf("%d", grid[r * 9 + c]);
        printf("\n");
      }
    bad += !ok;
    for (int c = 0; c < 81; c++) ck(grid[c]);
    ck(nodes);
  }
  ck_print("sudoku");
  return bad;
}
