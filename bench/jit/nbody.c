/* nbody.c — the n-body simulation (floating point, sqrt). */
#include <math.h>
#include <stdio.h>
#define NB 5
typedef struct { double x, y, z, vx, vy, vz, m; } body;
static body bs[NB] = {
  {0, 0, 0, 0, 0, 0, 39.47841760435743},
  {4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01, 1.66007664274403694e-03 * 365.24, 7.69901118419740425e-03 * 365.24, -6.90460016972063023e-05 * 365.24, 9.54791938424326609e-04 * 39.47841760435743},
  {8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01, -2.76742510726862411e-03 * 365.24, 4.99852801234917238e-03 * 365.24, 2.30417297573763929e-05 * 365.24, 2.85885980666130812e-04 * 39.47841760435743},
  {1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01, 2.96460137564761618e-03 * 365.24, 2.37847173959480950e-03 * 365.24, -2.96589568540237556e-05 * 365.24, 4.36624404335156298e-05 * 39.47841760435743},
  {1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01, 2.68067772490389322e-03 * 365.24, 1.62824170038242295e-03 * 365.24, -9.51592254519715870e-05 * 365.24, 5.15138902046611451e-05 * 39.47841760435743}};
static void advance(double dt) {
  for (int i = 0; i < NB; i++)
    for (int j = i + 1; j < NB; j++) {
      double dx = bs[i].x - bs[j].x, dy = bs[i].y - bs[j].y, dz = bs[i].z - bs[j].z;
      double d2 = dx * dx + dy * dy + dz * dz, mag = dt / (d2 * sqrt(d2));
      bs[i].vx -= dx * bs[j].m * mag; bs[i].vy -= dy * bs[j].m * mag; bs[i].vz -= dz * bs[j].m * mag;
      bs[j].vx += dx * bs[i].m * mag; bs[j].vy += dy * bs[i].m * mag; bs[j].vz += dz * bs[i].m * mag;
    }
  for (int i = 0; i < NB; i++) { bs[i].x += dt * bs[i].vx; bs[i].y += dt * bs[i].vy; bs[i].z += dt * bs[i].vz; }
}
static double energy(void) {
  double e = 0;
  for (int i = 0; i < NB; i++) {
    e += 0.5 * bs[i].m * (bs[i].vx * bs[i].vx + bs[i].vy * bs[i].vy + bs[i].vz * bs[i].vz);
    for (int j = i + 1; j < NB; j++) {
      double dx = bs[i].x - bs[j].x, dy = bs[i].y - bs[j].y, dz = bs[i].z - bs[j].z;
      e -= bs[i].m * bs[j].m / sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
  return e;
}
int main(void) {
  for (int i = 0; i < 6000000; i++) advance(0.01);
  printf("nbody %.9f\n", energy());
  return 0;
}
