/* blur.c — 3x3 box blur and a gradient threshold on an 8-bit image: plain
 * loops that clang auto-vectorizes with -msimd128 (u16 sums, u8 results). */
#include "simd.h"
#define W 640
#define H 480
static uint8_t img[H][W], out[H][W];
static uint16_t row[W];

int main(int argc, char **argv) {
  int reps = scale(argc, argv, 2000);
  uint32_t seed = 12345;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      seed = seed * 1103515245u + 12345u;
      img[y][x] = (uint8_t)((seed >> 16) ^ (x * y));
    }
  uint32_t h = 2166136261u;
  for (int r = 0; r < reps; r++) {
    for (int y = 1; y < H - 1; y++) {
      for (int x = 0; x < W; x++) row[x] = (uint16_t)(img[y - 1][x] + img[y][x] + img[y + 1][x]);
      for (int x = 1; x < W - 1; x++) out[y][x] = (uint8_t)((row[x - 1] + row[x] + row[x + 1]) * 7282u >> 16);
    }
    for (int y = 1; y < H - 1; y++)
      for (int x = 0; x < W; x++) {
        int d = out[y][x] - img[y][x];
        img[y][x] = (uint8_t)(d > 8 || d < -8 ? out[y][x] : img[y][x] + 1);
      }
    h = fnv(h, out[r % H], W);
  }
  printf("blur %08x\n", h);
  return 0;
}
