/* dynprog.c — dynamic programming: longest common subsequence with the
 * subsequence itself recovered, Levenshtein distance, 0/1 knapsack, the
 * longest increasing subsequence (patience, O(n log n)), matrix-chain
 * order and coin-change counting with 64-bit counts. */
#include <string.h>
#include "common.h"

static int16_t L[81][81];

static int lcs(const char *a, const char *b, char *out) {
  int n = (int)strlen(a), m = (int)strlen(b);
  for (int i = 0; i <= n; i++)
    for (int j = 0; j <= m; j++)
      L[i][j] = (int16_t)(!i || !j ? 0 : a[i - 1] == b[j - 1] ? L[i - 1][j - 1] + 1 : L[i - 1][j] > L[i][j - 1] ? L[i - 1][j] : L[i][j - 1]);
  int k = L[n][m];
  out[k] = 0;
  for (int i = n, j = m; i && j;) {
    if (a[i - 1] == b[j - 1]) out[--k] = a[i - 1], i--, j--;
    else if (L[i - 1][j] >= L[i][j - 1]) i--;
    else j--;
  }
  return L[n][m];
}

static int edit(const char *a, const char *b) {
  int n = (int)strlen(a), m = (int)strlen(b);
  int prev[81], cur[81];
  for (int j = 0; j <= m; j++) prev[j] = j;
  for (int i = 1; i <= n; i++) {
    cur[0] = i;
    for (int j = 1; j <= m; j++) {
      int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
      if (prev[j] + 1 < c) c = prev[j] + 1;
      if (cur[j - 1] + 1 < c) c = cur[j - 1] + 1;
      cur[j] = c;
    }
    memcpy(prev, cur, sizeof cur);
  }
  return prev[m];
}

int main(void) {
  const char *pairs[][2] = {{"ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "GTCGTTCGGAATGCCGTTGCTCTGTAAA"},
                            {"kitten", "sitting"},
                            {"the quick brown fox", "a quick brown dog jumps"},
                            {"", "abc"},
                            {"intention", "execution"}};
  for (int p = 0; p < 5; p++) {
    char sub[81];
    int l = lcs(pairs[p][0], pairs[p][1], sub);
    int e = edit(pairs[p][0], pairs[p][1]);
    printf("lcs %d \"%s\" edit %d\n", l, sub, e);
    ck((uint32_t)(l * 100 + e));
  }

  int32_t wt[40], val[40], best[1001];
  for (int i = 0; i < 40; i++) wt[i] = 5 + (int32_t)(rng() % 60), val[i] = 10 + (int32_t)(rng() % 90);
  memset(best, 0, sizeof best);
  for (int i = 0; i < 40; i++)
    for (int c = 1000; c >= wt[i]; c--)
      if (best[c - wt[i]] + val[i] > best[c]) best[c] = best[c - wt[i]] + val[i];
  printf("knapsack(1000) = %" PRId32 ", knapsack(250) = %" PRId32 "\n", best[1000], best[250]);
  ck((uint32_t)best[1000]);

  int32_t seq[500], tails[500], nt = 0;
  for (int i = 0; i < 500; i++) seq[i] = (int32_t)(rng() % 10000);
  for (int i = 0; i < 500; i++) {
    int lo = 0, hi = nt;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (tails[mid] < seq[i]) lo = mid + 1; else hi = mid;
    }
    tails[lo] = seq[i];
    if (lo == nt) nt++;
  }
  printf("lis length %d, last tail %" PRId32 "\n", nt, tails[nt - 1]);
  ck((uint32_t)nt);

  int32_t dims[] = {30, 35, 15, 5, 10, 20, 25, 40, 12, 8};
  int nm = 9;
  int64_t mc[9][9];
  for (int i = 0; i < nm; i++) mc[i][i] = 0;
  for (int len = 2; len <= nm; len++)
    for (int i = 0; i + len - 1 < nm; i++) {
      int j = i + len - 1;
      mc[i][j] = INT64_MAX;
      for (int k = i; k < j; k++) {
        int64_t c = mc[i][k] + mc[k + 1][j] + (int64_t)dims[i] * dims[k + 1] * dims[j + 1];
        if (c < mc[i][j]) mc[i][j] = c;
      }
    }
  printf("matrix chain cost %" PRId64 "\n", mc[0][nm - 1]);
  ck64((uint64_t)mc[0][nm - 1]);

  static const int32_t coins[] = {1, 2, 5, 10, 20, 50, 100, 200};
  uint64_t ways[2001] = {1};
  for (int c = 0; c < 8; c++)
    for (int v = coins[c]; v <= 2000; v++) ways[v] += ways[v - coins[c]];
  printf("ways to make 200: %" PRIu64 ", 2000: %" PRIu64 "\n", ways[200], ways[2000]);
  ck64(ways[2000]);
  ck_print("dynprog");
  return 0;
}
