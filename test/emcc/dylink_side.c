/* dylink_side.c — a side module (-sSIDE_MODULE) dylink_main.c links at load time. */
int side_counter = 5;
int side_mul(int a, int b) { side_counter++; return a * b + side_counter; }
