#!/usr/bin/env bash
# print_roundtrip.sh — the printer against wabt on the spec suite. For every
# valid module wast2json makes from baseline-2022-11/core/*.wast: print it
# with tilt-dis, assemble the text with `wat2wasm --enable-all --debug-names`,
# print the result again, and require both texts to be identical (custom
# section comments aside: wat2wasm drops custom sections). Then run the
# file's assertions with wabt's spectest-interp on the original modules and
# on the reassembled ones: the results must agree. Prints counts per file and
# "N passed, M failed"; exits 1 on any failure, 77 (skip) when the suite or
# wabt is missing.
# Usage: print_roundtrip.sh TILT_DIS [WAST...]   (env: TILT_TESTSUITE, JOBS,
#        PRINT_RT_KEEP=DIR keeps the work files and failure diffs in DIR)
set -u
here=$(cd "$(dirname "$0")" && pwd)

# Whole files, or single modules (FILE.N.wasm), that cannot round trip, with
# the reason.
declare -A SKIP=(
)

# wabt 1.0.32 with --enable-all types ref.func as (ref N) and then rejects it
# where a funcref is expected; the same features without function
# references and GC assemble those modules.
WABT_FEATURES="--enable-threads --enable-tail-call --enable-memory64 --enable-multi-memory
  --enable-extended-const --enable-relaxed-simd --enable-annotations --enable-exceptions"

assemble() {
  wat2wasm --enable-all --debug-names "$1" -o "$2" 2>"$2.err1" ||
    # shellcheck disable=SC2086
    wat2wasm $WABT_FEATURES --debug-names "$1" -o "$2"
}

# Compares the two texts field by field (a field starts at indentation 2).
# A function whose first text has tuple-typed scratch locals (multi-value
# stack code the reader made into tuple locals) prints them as scalar
# locals; re-reading the assembled text sees real scalar locals where the
# first read made tuples, so such functions cannot match: they count as
# xfail, as do the [] -> [t t...] types wat2wasm appends for multi-value
# blocks whose type had params, and functions that match once labels nothing
# refers to are dropped (the reader's unlabeled if for br_if to a loop with
# params comes back labeled). Prints pass, "xfail multi-value" or "fail differ".
compare() {
  python3 - "$1" "$2" <<'EOF2'
import re, sys
def fields(path):
    out = []
    for line in open(path):
        if re.match(r"^ *;; custom section ", line):
            continue
        if re.match(r"^  \S", line) or not out:
            out.append(line)
        else:
            out[-1] += line
    return out
# Drops label definitions nothing refers to and renumbers the rest: the
# reader makes an unlabeled if for a br_if to a loop with params, which
# comes back from the binary with a label.
def unlabel(text):
    used = set(re.findall(r"(?:br|br_if|br_table)((?: \$l\d+)+)", text))
    refs = set(l for u in used for l in u.split())
    text = re.sub(r"\((block|loop|if) (\$l\d+)",
                  lambda m: m.group(0) if m.group(2) in refs else "(" + m.group(1), text)
    names = {}
    for l in re.findall(r"\((?:block|loop|if) (\$l\d+)", text):
        names.setdefault(l, "$L%d" % len(names))
    return re.sub(r"\$l\d+", lambda m: names.get(m.group(0), m.group(0)), text)
a, b = fields(sys.argv[1]), fields(sys.argv[2])
if a == b:
    print("pass"); sys.exit()
ta = [f for f in a if f.startswith("  (type ")]
tb = [f for f in b if f.startswith("  (type ")]
ra = [f for f in a if not f.startswith("  (type ")]
rb = [f for f in b if not f.startswith("  (type ")]
xfail = 0
ok = tb[:len(ta)] == ta and len(ra) == len(rb)
for f in tb[len(ta):]:
    ok = ok and re.match(r"^  \(type \(;\d+;\) \(func \(result \w+( \w+)+\)\)\)$", f.strip("\n"))
    xfail += 1
for x, y in zip(ra, rb) if ok else []:
    if x == y:
        continue
    if x.startswith("  (func") and re.search(r"\(local [a-z0-9]+ [a-z0-9]+", x):
        xfail += 1
        continue
    if x.startswith("  (func") and unlabel(x) == unlabel(y):
        xfail += 1
        continue
    ok = False
print(("xfail multi-value" if xfail else "pass") if ok else "fail differ")
EOF2
}

# One module: prints "pass", "xfail REASON" or "fail STAGE"; diff in $3.diff.
one_module() {
  local dis=$1 wasm=$2 base=$3
  "$dis" --all-features "$wasm" -o "$base.1.wat" 2>"$base.err" || { echo "fail read"; return; }
  assemble "$base.1.wat" "$base.2.wasm" 2>>"$base.err" || { echo "fail wat2wasm"; return; }
  "$dis" --all-features "$base.2.wasm" -o "$base.2.wat" 2>>"$base.err" || { echo "fail reread"; return; }
  diff "$base.1.wat" "$base.2.wat" >"$base.diff"
  compare "$base.1.wat" "$base.2.wat"
}

# One .wast file: writes "NAME PASSED FAILED [details]" to stdout.
one_file() {
  local dis=$1 wast=$2 work=$3 name
  name=$(basename "$wast" .wast)
  local d=$work/$name
  mkdir -p "$d"
  if ! wast2json --enable-all "$wast" -o "$d/$name.json" >/dev/null 2>"$d/wast2json.err"; then
    echo "$name 0 1 0 wast2json: $(head -c 200 "$d/wast2json.err" | tr '\n' ' ')"
    return
  fi
  local pass=0 fail=0 xfail=0 detail=""
  while read -r f; do
    [ -n "$f" ] || continue
    if [ -n "${SKIP[$f]:-}" ]; then detail="$detail $f:skipped"; continue; fi
    local r
    r=$(one_module "$dis" "$d/$f" "$d/${f%.wasm}")
    case $r in
      pass) pass=$((pass + 1)) ;;
      xfail*) xfail=$((xfail + 1)); detail="$detail $f:${r#xfail }" ;;
      *) fail=$((fail + 1)); detail="$detail $f:${r#fail }" ;;
    esac
  done < <(python3 - "$d/$name.json" <<'EOF'
import json, sys
for c in json.load(open(sys.argv[1]))["commands"]:
    if c["type"] in ("module", "assert_unlinkable", "assert_uninstantiable") and \
       c.get("filename", "").endswith(".wasm"):
        print(c["filename"])
EOF
)
  # Semantics: the spec assertions must give the same result with every
  # module replaced by its printed-and-assembled copy.
  # The assertion re-check doubles the run time; TILT_PRINT_ASSERTIONS=1 turns it on.
  if [ "${TILT_PRINT_ASSERTIONS:-0}" = 1 ] && command -v spectest-interp >/dev/null; then
    mkdir -p "$d/sem"
    cp "$d"/*.json "$d"/*.wasm "$d/sem/" 2>/dev/null
    cp "$d"/*.wat "$d/sem/" 2>/dev/null
    for f in "$d"/*.2.wasm; do [ -e "$f" ] && cp "$f" "$d/sem/$(basename "${f%.2.wasm}").wasm"; done
    local r1 r2
    r1=$(cd "$d" && spectest-interp --enable-all "$name.json" 2>&1 | tail -1)
    r2=$(cd "$d/sem" && spectest-interp --enable-all "$name.json" 2>&1 | tail -1)
    if [ "$r1" != "$r2" ]; then
      fail=$((fail + 1))
      detail="$detail semantics:[$r1]->[$r2]"
    fi
  fi
  echo "$name $pass $fail $xfail$detail"
}

if [ "${1:-}" = --one-file ]; then
  one_file "$2" "$3" "$4"
  exit 0
fi

dis=${1:?usage: print_roundtrip.sh TILT_DIS [WAST...]}
shift
for t in wat2wasm wast2json python3; do
  command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
suite=${TILT_TESTSUITE:-$here/../../shared/testsuite}
if [ $# -eq 0 ]; then
  if [ ! -d "$suite/baseline-2022-11/core" ]; then
    echo "SKIP: spec suite not found at $suite (set TILT_TESTSUITE)"
    exit 77
  fi
  set -- "$suite"/baseline-2022-11/core/*.wast
fi
if [ -n "${PRINT_RT_KEEP:-}" ]; then
  work=$PRINT_RT_KEEP
  rm -rf "$work"
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# TILT_PRINT_STRIDE=k: every k-th file only, from an offset that changes per
# commit (seed: TILT_SAMPLE_SEED, else git HEAD's first 8 hex digits), so
# every file comes up within k commits; 1 (the default) runs them all.
stride=${TILT_PRINT_STRIDE:-1}
seed=${TILT_SAMPLE_SEED:-}
if [ -z "$seed" ]; then
  head=$(git -C "$here" rev-parse HEAD 2>/dev/null)
  seed=$([ -n "$head" ] && echo $((16#${head:0:8})) || date +%s)
fi
[ "$stride" -gt 1 ] && echo "stride $stride, seed $seed (TILT_SAMPLE_SEED=$seed repeats this sample)"
list=()
i=0
for w in "$@"; do
  n=$(basename "$w" .wast)
  if [ -n "${SKIP[$n]:-}" ]; then echo "skip $n: ${SKIP[$n]}"; continue; fi
  if [ $(((i + seed) % stride)) -eq 0 ]; then list+=("$w"); fi
  i=$((i + 1))
done
printf '%s\n' "${list[@]}" |
  xargs -P "${JOBS:-$(nproc)}" -I{} bash "$0" --one-file "$dis" {} "$work" >"$work/results" 2>"$work/stderr"

# Extra modules the suite lacks: names of every kind (wat2wasm --debug-names
# writes a name section for them), labels, memargs, bulk ops.
extras() {
  local d=$work/_extras pass=0 fail=0 detail=""
  mkdir -p "$d"
  cat >"$d/names.wat" <<'EOF'
(module $M
  (import "env" "f" (func $imp (param i32)))
  (import "env" "g" (global $gi i32))
  (table $t 2 funcref)
  (memory $m 1)
  (global $g (mut i32) (global.get $gi))
  (elem $e (i32.const 0) $f $imp)
  (data $d (i32.const 0) "hello\n\"")
  (func $f (export "f") (param $a i32) (result i32) (local $b i64) (local $c i32)
    (block $out (result i32)
      (loop $top
        (br_if $out (local.get $a) (i32.eqz (local.get $c)))
        (local.set $c (i32.add (local.get $c) (i32.const 1)))
        (global.set $g (local.get $c))
        (call $imp (i32.load8_u offset=3 (local.get $c)))
        (br $top))
      (unreachable)))
  (func $dup (result i32)
    (data.drop $d) (elem.drop $e) (drop (memory.size)) (table.size $t)))
EOF
  for w in "$d"/*.wat; do
    local b=${w%.wat} r
    if ! wat2wasm --enable-all --debug-names "$w" -o "$b.wasm" 2>"$b.err"; then
      fail=$((fail + 1)); detail="$detail $(basename "$w"):input"; continue
    fi
    r=$(one_module "$dis" "$b.wasm" "$b.t")
    if [ "$r" = pass ]; then pass=$((pass + 1)); else fail=$((fail + 1)); detail="$detail $(basename "$w"):$r"; fi
  done
  echo "_extras $pass $fail 0$detail" >>"$work/results"
}
extras

total_pass=0 total_fail=0 total_xfail=0
while read -r name p f x rest; do
  printf '%-28s %5d passed %4d failed %4d xfail%s\n' "$name" "$p" "$f" "$x" "${rest:+  ${rest:0:300}}"
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  total_xfail=$((total_xfail + x))
done < <(sort "$work/results")
for k in "${!SKIP[@]}"; do [[ $k == *.wasm ]] && echo "skip $k: ${SKIP[$k]}"; done
[ "$total_xfail" -eq 0 ] || echo "xfail: only functions with multi-value tuple locals (and types wat2wasm adds for multi-value blocks) differ"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
