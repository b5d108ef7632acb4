# wast.cmake — spec.wast: tilt-run --wast (tilt's own .wat/.wast reader and
# script runner, issue 18) over the spec suite, failing when a file passes
# fewer commands than test/wast/expected.txt records or the runner crashes.
# Suite: $TILT_TESTSUITE, default <src>/../shared/testsuite (skips if absent);
# TILT_WAST_STRIDE=S runs one file in S (chosen by the git HEAD seed).
if(TARGET tilt-run)
  add_test(NAME spec.wast
           COMMAND bash ${CMAKE_SOURCE_DIR}/test/wast/run.sh $<TARGET_FILE:tilt-run> ${CMAKE_SOURCE_DIR})
  set_tests_properties(spec.wast PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
