#!/usr/bin/env bash
# gcheap.sh — the interpreter's GC heap in a long tilt-run (issue 24): a
# loop that allocates 6.5 GB of arrays in all, keeping one at a time, ends
# with its result and a peak RSS far below what it allocated (collections
# free the garbage; 1 GiB leaves room for ASan's quarantine).
. "$(dirname "$0")/common.inc"
[ -n "${TILT_RUN:-}" ] || { echo "SKIP: tilt-run is not built"; exit 77; }
need python3
cat > churn.wat <<'WAT'
(module
  (type $bytes (array (mut i8)))
  (global $keep (mut (ref null $bytes)) (ref.null $bytes))
  (func (export "f") (result i32)
    (local $i i32)
    (loop $l
      (global.set $keep (array.new $bytes (local.get $i) (i32.const 65536)))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 100000))))
    (i32.add (array.len (global.get $keep))
             (array.get_u $bytes (global.get $keep) (i32.const 7)))))
WAT
out=$(python3 - "$TILT_RUN" <<'PY'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "--interp", "--invoke", "f", "churn.wat"], capture_output=True, text=True, timeout=250)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print("%s|%d|%s" % (r.stdout.strip(), peak, r.stderr.strip()[:300]))
PY
)
res=${out%%|*} rest=${out#*|} peak=${rest%%|*}
# 99999 & 0xff = 159
if [ "$res" = "i32:65695" ]; then pass "allocation loop result"; else fail "allocation loop: got '$out'"; fi
if [ "$peak" -lt 1024 ]; then pass "allocation loop peak RSS ${peak} MB"; else fail "allocation loop peak RSS ${peak} MB"; fi
finish
