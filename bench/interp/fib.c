/* bench kernel: recursive calls. */
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int run(void) { return fib(27); }
