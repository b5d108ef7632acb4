# libFuzzer (test/fuzz/run.sh) for a bounded time, fails on any finding:
# fuzz_read (read + validate + write + print, seeded with the spec modules)
# for half of it, gen_modes (generator -> round trip / pass / pipeline /
# interpreter vs JIT) for the other half.
FUZZ_BUILD=${TILT_BUILD}-fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-120} exec bash "$TILT_SRC/test/fuzz/run.sh"
