/* wast.h — the .wast script runner behind tilt-run --wast (wast.c). */
#ifndef TILT_WAST_H
#define TILT_WAST_H
/* Runs the scripts named in argv (options: --interp, --jit, -v,
 * --skip-list FILE, --max-failures N, --no-feature NAME, --print-check:
 * each module is read back from its printed text first); returns the exit
 * status. */
int tl_wast_main(int argc, char **argv);
#endif
