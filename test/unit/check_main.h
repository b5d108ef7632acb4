/* check_main.h — the main() every Check unit test shares: runs the suite
 * that suite() builds and exits 1 if any test failed. */
#ifndef TILT_CHECK_MAIN_H
#define TILT_CHECK_MAIN_H

#include <check.h>

#define TL_CHECK_MAIN(suite_fn)                  \
  int main(void) {                               \
    SRunner *sr = srunner_create(suite_fn());    \
    srunner_run_all(sr, CK_NORMAL);              \
    int failed = srunner_ntests_failed(sr);      \
    srunner_free(sr);                            \
    return failed ? 1 : 0;                       \
  }

#endif
