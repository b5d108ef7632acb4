#!/usr/bin/env bash
# print_check.sh — the printer against tilt's text reader on the 3.0 spec
# suite (issue 18: the printer emits the syntax of every feature the reader
# takes). `tilt-run --wast --print-check` replaces every module by the one
# its printed text reads back to, so each assertion after it checks what
# the text means; the totals must equal those of the plain run (on the
# interpreter, which runs every feature). Suite: $TILT_TESTSUITE, default
# SRC/../shared/testsuite; exits 77 (skip) without it.
# Usage: print_check.sh TILT_RUN SRC
set -u
run=$1 src=$2
suite=${TILT_TESTSUITE:-$src/../shared/testsuite}
if [ ! -d "$suite/core" ]; then
  echo "SKIP: spec suite not found at $suite (set TILT_TESTSUITE)"
  exit 77
fi
files=("$suite"/core/*.wast "$suite"/legacy/*.wast "$suite"/custom/*.wast)
plain=$("$run" --wast --interp "${files[@]}" | tail -1)
printed=$("$run" --wast --interp --print-check --max-failures 20 "${files[@]}")
echo "$printed" | grep -E "failed:" | head -20
printed_total=$(echo "$printed" | tail -1)
nread=$(echo "$printed" | sed -n 's/^print check: \([0-9]*\) modules.*/\1/p')
echo "plain:         $plain"
echo "through text:  $printed_total"
echo "modules read back from their printed text: ${nread:-none}"
# equal totals mean something only if the modules really went through text
# (the suite's 3.0 files hold thousands of modules)
[ -n "$plain" ] && [ "$plain" = "$printed_total" ] && [ "${nread:-0}" -ge 1000 ]
