# libFuzzer (test/fuzz/run.sh) for a bounded time, fails on any finding:
# fuzz_read (read + validate + write + print, seeded with the spec modules),
# fuzz_text (the text reader, seeded with the spec suite's text modules) and
# gen_modes (generator -> round trip / pass / pipeline / interpreter vs JIT),
# a third of the time each.
FUZZ_BUILD=${TILT_BUILD}-fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-120} exec bash "$TILT_SRC/test/fuzz/run.sh"
