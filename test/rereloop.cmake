# rereloop.size: the rereloop pass over every valid spec-suite module keeps
# behaviour (fuzz-exec) and, followed by -O1, never grows a module
# (test/passes/rereloop_size.py; skips when the suite or wabt is missing).
# Every 4th module, a different quarter per commit (TILT_RERELOOP_STRIDE=1: all).
add_test(NAME rereloop.size COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/passes/rereloop_size.py ${CMAKE_BINARY_DIR})
set_tests_properties(rereloop.size PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900 ENVIRONMENT TILT_RERELOOP_STRIDE=4)
