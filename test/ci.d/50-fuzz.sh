# libFuzzer over read + validate + write + print (test/fuzz/run.sh), seeded
# with the spec modules, for a bounded time; fails on any finding.
FUZZ_BUILD=${TILT_BUILD}-fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-120} exec bash "$TILT_SRC/test/fuzz/run.sh"
