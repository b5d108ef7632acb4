#!/bin/sh
# diff.sh JIT_DIFF REPO OUTDIR — converts the spec suite's core scripts with
# wast2json and runs jit-diff over every module they contain (ctest jit.diff).
D=$1; REPO=$2; OUT=$3
TS=${TILT_TESTSUITE:-$REPO/../shared/testsuite}
if [ ! -d "$TS/baseline-2022-11/core" ]; then
  echo "spec suite not found at $TS (set TILT_TESTSUITE); skipping"
  exit 77
fi
mkdir -p "$OUT"
for f in "$TS"/baseline-2022-11/core/*.wast; do
  b=$(basename "$f" .wast)
  wast2json "$f" -o "$OUT/$b.json" >/dev/null 2>&1 || true
done
exec "$D" "$OUT"/*.wasm
