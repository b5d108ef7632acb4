#!/usr/bin/env bash
# text_window.sh — a huge text is resident a window at a time (issue 18):
# tilt-opt maps its input and gives back the pages each pass of the text
# reader has gone over (tl_read_options.on_text_window). A 200 MB text that
# is mostly comments (which every byte of the lexer touches and nothing
# after it needs) is read with a peak RSS well under its size, and gives the
# same module as the same text read through stdin (not mapped, so nothing
# is given back).
. "$(dirname "$0")/common.inc"
need python3

python3 - <<'PY'
chunk = (";; " + "x" * 1020 + "\n") * 1024            # 1 MiB of comment lines
with open("big.wat", "w") as f:
    f.write("(module\n")
    for i in range(200):
        f.write(chunk)
        f.write('(func (export "f%d") (result i32) (i32.const %d))\n' % (i, i))
        f.write('(data (i32.const %d) "seg%d")\n' % (i * 8, i))
    f.write("(memory 1))\n")
PY
rss=$(python3 - "$TILT_OPT" <<'PY'
import resource, subprocess, sys
subprocess.run([sys.argv[1], "big.wat", "-o", "mapped.wasm"], check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)   # MB
PY
)
size=$(( $(stat -c %s big.wat) / 1048576 ))
echo "text $size MB, peak RSS $rss MB"
check_sh "a 200 MB text read with a peak RSS under 60% of it (got ${rss} MB)" "[ '${rss:-999999}' -lt $(( size * 6 / 10 )) ]"
check_sh "through stdin" '"$TILT_OPT" - -o piped.wasm < big.wat'
check "the mapped, windowed read gives the same module" cmp mapped.wasm piped.wasm
check_sh "200 functions" '[ "$("$TILT_OPT" mapped.wasm --print | grep -c "^  (func ")" = 200 ]'
finish
