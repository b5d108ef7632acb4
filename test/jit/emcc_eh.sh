#!/bin/sh
# emcc_eh.sh TILT_RUN TILT_OPT REPO OUTDIR — a C++ program with wasm
# exceptions (test/jit/eh.cpp, em++ -fwasm-exceptions -sSTANDALONE_WASM: WASI
# imports only) at -O0 and -O2, and tilt-opt's -O2/-Os/-Oz of the -O0 build,
# on the JIT (lazy and eager) and the interpreter: the output is g++'s
# (eh.out) and an exception escaping main exits 1 with "uncaught exception".
# Exit 77 without em++.
R=$1; O=$2; REPO=$3; OUT=$4
command -v em++ >/dev/null 2>&1 || { echo "em++ not found; skipping"; exit 77; }
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
mkdir -p "$OUT" && cd "$OUT" || exit 1
fail=0
for lvl in -O0 -O2; do
  em++ $lvl -fwasm-exceptions -sSTANDALONE_WASM "$REPO/test/jit/eh.cpp" -o "eh$lvl.wasm" || exit 1
done
for t in -O2 -Os -Oz; do
  "$O" --all-features $t eh-O0.wasm -o "tilt$t.wasm" || fail=1
done
for w in eh-O0.wasm eh-O2.wasm tilt-O2.wasm tilt-Os.wasm tilt-Oz.wasm; do
  for e in --jit "--jit --eager" --interp; do
    if ! "$R" $e "$w" > out.txt 2> err.txt || ! cmp -s out.txt "$REPO/test/jit/eh.out"; then
      echo "FAIL $w $e: output differs from eh.out"; cat err.txt; fail=1
    fi
  done
  "$R" --jit "$w" 1 2 3 4 5 > /dev/null 2> err.txt
  rc=$?
  if [ $rc -ne 1 ] || ! grep -q "uncaught exception" err.txt; then
    echo "FAIL $w: escaping exception: status $rc, $(cat err.txt)"; fail=1
  fi
done
[ $fail = 0 ] && echo "ok: 5 builds x 3 engines"
exit $fail
