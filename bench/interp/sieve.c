/* bench kernel: byte loads/stores and loops. */
static char flags[1 << 18];
int run(void) {
  int count = 0;
  for (int rep = 0; rep < 2; rep++) {
    for (int i = 0; i < (int)sizeof flags; i++) flags[i] = 1;
    count = 0;
    for (int i = 2; i < (int)sizeof flags; i++)
      if (flags[i]) {
        count++;
        for (int j = i + i; j < (int)sizeof flags; j += i) flags[j] = 0;
      }
  }
  return count;
}
