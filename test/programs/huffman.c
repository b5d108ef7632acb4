/* huffman.c — Huffman coding: byte frequencies, a tree built with a
 * binary min-heap (ties broken by node index, so the code is
 * deterministic), canonical code lengths, a bit writer and a decoder that
 * walks the tree; round trips several inputs. */
#include <string.h>
#include "common.h"

typedef struct { uint32_t freq; int32_t left, right, sym; } node;
static node nodes[512];
static int heap[512], hn;

static int less(int a, int b) { return nodes[a].freq != nodes[b].freq ? nodes[a].freq < nodes[b].freq : a < b; }
static void push(int x) {
  int i = hn++;
  heap[i] = x;
  while (i && less(heap[i], heap[(i - 1) / 2])) {
    int t = heap[i];
    heap[i] = heap[(i - 1) / 2];
    heap[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}
static int pop(void) {
  int top = heap[0], i = 0;
  heap[0] = heap[--hn];
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < hn && less(heap[l], heap[m])) m = l;
    if (r < hn && less(heap[r], heap[m])) m = r;
    if (m == i) break;
    int t = heap[i];
    heap[i] = heap[m];
    heap[m] = t;
    i = m;
  }
  return top;
}

static uint32_t code[256];
static uint8_t len[256];
static void assign(int root) {
  /* iterative walk with an explicit stack */
  int stack[512], sp = 0;
  uint32_t cstack[512];
  uint8_t lstack[512];
  stack[sp] = root, cstack[sp] = 0, lstack[sp] = 0, sp++;
  while (sp) {
    sp--;
    int n = stack[sp];
    uint32_t c = cstack[sp];
    uint8_t l = lstack[sp];
    if (nodes[n].sym >= 0) {
      code[nodes[n].sym] = c;
      len[nodes[n].sym] = l ? l : 1;
      continue;
    }
    stack[sp] = nodes[n].left, cstack[sp] = c << 1, lstack[sp] = (uint8_t)(l + 1), sp++;
    stack[sp] = nodes[n].right, cstack[sp] = c << 1 | 1, lstack[sp] = (uint8_t)(l + 1), sp++;
  }
}

static uint8_t bits[20000];
static uint32_t nbits;
static void put_bit(int b) {
  if (b) bits[nbits >> 3] |= (uint8_t)(1u << (nbits & 7));
  nbits++;
}

static uint8_t input[12000], output[12000];

static int roundtrip(const uint8_t *in, uint32_t n, uint32_t *packed_bytes) {
  uint32_t freq[256] = {0};
  for (uint32_t i = 0; i < n; i++) freq[in[i]]++;
  int nn = 0;
  hn = 0;
  for (int s = 0; s < 256; s++)
    if (freq[s]) {
      nodes[nn] = (node){freq[s], -1, -1, s};
      push(nn++);
    }
  if (nn == 0) return 1;
  while (hn > 1) {
    int a = pop(), b = pop();
    nodes[nn] = (node){nodes[a].freq + nodes[b].freq, a, b, -1};
    push(nn++);
  }
  int root = pop();
  memset(len, 0, sizeof len);
  assign(root);
  memset(bits, 0, sizeof bits);
  nbits = 0;
  for (uint32_t i = 0; i < n; i++)
    for (int k = len[in[i]] - 1; k >= 0; k--) put_bit((int)(code[in[i]] >> k & 1));
  *packed_bytes = (nbits + 7) / 8;
  uint32_t pos = 0;
  for (uint32_t i = 0; i < n; i++) {
    int x = root;
    if (nodes[x].sym >= 0) pos++; /* one symbol: one bit each */
    while (nodes[x].sym < 0) {
      int b = bits[pos >> 3] >> (pos & 7) & 1;
      pos++;
      x = b ? nodes[x].right : nodes[x].left;
    }
    output[i] = (uint8_t)nodes[x].sym;
  }
  uint32_t total = 0, lsum = 0;
  for (int s = 0; s < 256; s++) total += freq[s] * len[s], lsum += len[s] * (uint32_t)(s + 1);
  ck(total);
  ck(lsum);
  return pos == nbits && memcmp(in, output, n) == 0;
}

int main(void) {
  static const char *text = "It was the best of times, it was the worst of times, it was the age of wisdom, "
                            "it was the age of foolishness, it was the epoch of belief, it was the epoch of "
                            "incredulity, it was the season of Light, it was the season of Darkness. ";
  int failures = 0;
  for (int kind = 0; kind < 5; kind++) {
    uint32_t n = 0;
    switch (kind) {
    case 0: for (uint32_t tl = (uint32_t)strlen(text); n + tl < 10000; n += tl) memcpy(input + n, text, tl); break;
    case 1: for (; n < 5000; n++) input[n] = (uint8_t)(rng() % 7 * 3); break;
    case 2: for (; n < 4000; n++) input[n] = (uint8_t)rng(); break;
    case 3: for (; n < 100; n++) input[n] = 'z'; break;
    case 4: for (; n < 8000; n++) { uint32_t r = rng(); input[n] = (uint8_t)(__builtin_ctz(r | 0x100) + 'a'); } break;
    }
    uint32_t packed = 0;
    int ok = roundtrip(input, n, &packed);
    printf("input %d: %" PRIu32 " bytes -> %" PRIu32 " bytes, round trip %s\n", kind, n, packed, ok ? "ok" : "FAILED");
    ck(packed);
    failures += !ok;
  }
  ck_print("huffman");
  return failures;
}
