#!/usr/bin/env bash
# opt_check.sh — the optimizer against the 3.0 spec suite: `tilt-run --wast
# -O<n>` optimizes every module (tl_module_optimize, written and read back)
# before the script's commands run on it, so each assertion checks the
# optimized module; the totals must equal those of the plain run (on the
# interpreter, which runs every feature). Modules expected not to link or
# instantiate are not optimized (the optimizer drops unused imports).
# Suite: $TILT_TESTSUITE, default SRC/../shared/testsuite; exits 77 (skip)
# without it. Usage: opt_check.sh TILT_RUN SRC LEVEL   (LEVEL: 1..4)
set -u
run=$1 src=$2 level=$3
suite=${TILT_TESTSUITE:-$src/../shared/testsuite}
if [ ! -d "$suite/core" ]; then
  echo "SKIP: spec suite not found at $suite (set TILT_TESTSUITE)"
  exit 77
fi
files=("$suite"/core/*.wast "$suite"/legacy/*.wast "$suite"/custom/*.wast)
plain=$("$run" --wast --interp "${files[@]}" | tail -1)
opt=$("$run" --wast --interp -O"$level" --max-failures 20 "${files[@]}")
echo "$opt" | grep -E "failed:|optimize check" | head -40
opt_total=$(echo "$opt" | tail -1)
nopt=$(echo "$opt" | sed -n 's/^optimize check: \([0-9]*\) modules.*/\1/p')
echo "plain:      $plain"
echo "-O$level:        $opt_total"
echo "modules optimized: ${nopt:-none}"
# equal totals mean something only if the modules really were optimized
[ -n "$plain" ] && [ "$plain" = "$opt_total" ] && [ "${nopt:-0}" -ge 1000 ]
