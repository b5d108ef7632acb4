#!/usr/bin/env python3
"""roundtrip.py — round-trips every module of the WebAssembly spec test suite
through tilt and checks that tilt rejects every binary assert_invalid /
assert_malformed module.

Sets (suite from $TILT_TESTSUITE, default <repo>/../shared/testsuite):
  baseline-2022-11/core                 WebAssembly 2.0; every file must convert
  baseline-2022-11/proposals/tail-call, extended-const, threads,
                                        exception-handling; legacy/ (EH)
  core                                  the current suite (3.0); files wast2json
                                        1.0.32 cannot convert are skipped, and
                                        valid modules that need a feature tilt
                                        does not read are skipped with that reason
For each valid module: `tilt-roundtrip` must pass and `wasm-validate` with
all features but function references/GC (see VALIDATE_ALL) must accept its
output w1. Prints per-file counts and a final
"N passed, M failed, K skipped" line; exits 1 if anything failed.
"""
import argparse
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# tilt's feature set for WebAssembly 2.0 (wasm-opt names).
W2 = "mutable-globals,sign-ext,nontrapping-float-to-int,bulk-memory,multivalue,reference-types,simd"

# (suite subdir, wast2json flags, tilt features, must every file convert?)
SETS = [
    ("baseline-2022-11/core", [], W2, True),
    ("baseline-2022-11/proposals/tail-call", ["--enable-tail-call"], W2 + ",tail-call", True),
    ("baseline-2022-11/proposals/extended-const", ["--enable-extended-const"],
     W2 + ",extended-const", True),
    # The threads proposal of 2022 predates reference types (one table only).
    ("baseline-2022-11/proposals/threads", ["--enable-threads"], "mutable-globals,threads", True),
    # Exception handling: the 2022 proposal files and the legacy ones of the
    # current suite (try/catch/delegate/rethrow; some use return_call).
    ("baseline-2022-11/proposals/exception-handling", ["--enable-exceptions"],
     W2 + ",exception-handling", True),
    ("legacy", ["--enable-exceptions", "--enable-tail-call"], W2 + ",exception-handling,tail-call", True),
    ("core", ["--enable-all"], "all", False),
]

# What tilt reads beyond wabt's defaults, as wasm-validate flags; and the
# features tilt does not read, tried one by one to name a skip's reason.
WABT_TILT = ["--enable-threads", "--enable-tail-call", "--enable-extended-const", "--enable-relaxed-simd"]
UNREAD = [("memory64", "--enable-memory64"), ("multi-memory", "--enable-multi-memory"),
          ("exceptions", "--enable-exceptions"),
          ("function references", "--enable-function-references"), ("GC", "--enable-gc")]

TIMEOUT = 60

# "--enable-all" but for function references and GC: with those, wabt 1.0.32
# types ref.func as (ref $t) and then rejects valid modules (global funcref
# initialized by ref.func: "expected [funcref] but got [(ref 0)]").
VALIDATE_ALL = ["--enable-exceptions", "--enable-threads", "--enable-tail-call",
                "--enable-annotations", "--enable-code-metadata", "--enable-memory64",
                "--enable-multi-memory", "--enable-extended-const", "--enable-relaxed-simd"]


def run(cmd, timeout=TIMEOUT):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -999, "timeout after %d s" % timeout


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def convert(wast, outdir, flags):
    """wast2json into outdir; returns (commands, None) or (None, reason)."""
    os.makedirs(outdir, exist_ok=True)
    js = os.path.join(outdir, os.path.basename(wast)[:-5] + ".json")
    rc, out = run(["wast2json", *flags, wast, "-o", js])
    if rc != 0:
        m = re.search(r"error: (.*)", out)
        return None, (m.group(1) if m else first_line(out))[:160]
    with open(js) as f:
        return json.load(f)["commands"], None


def skip_reason(wasm):
    """Why a valid module is outside what tilt reads, or None if it is not."""
    if run(["wasm-validate", *WABT_TILT, wasm])[0] == 0:
        return None
    for name, flag in UNREAD:
        if run(["wasm-validate", *WABT_TILT, flag, wasm])[0] == 0:
            return "uses " + name
    why = re.sub(r"^.*?error: ", "", first_line(run(["wasm-validate", *WABT_TILT, wasm])[1]))
    return "uses a 3.0 feature outside tilt's set (wasm-validate without it: %s)" % why


def check_valid(tool, feats, wasm, may_skip):
    """Returns ("pass"|"fail"|"skip", detail); a fail's detail starts with its kind."""
    w1 = wasm[:-5] + ".w1.wasm"
    rc, out = run([tool, "-q", "--features=" + feats, "-o", w1, wasm])
    if rc == 2 and may_skip:
        why = skip_reason(wasm)
        code = re.search(r"TL_E_[A-Z]+", out)
        code = code.group(0) if code else "?"
        if why and code in ("TL_E_FEATURE", "TL_E_UNSUPPORTED"):
            return "skip", why
        if why:
            return "fail", "wrong error code: the module %s; tilt must say TL_E_FEATURE or " \
                "TL_E_UNSUPPORTED, says %s: %s" % (why, code, first_line(out))
        return "fail", "rejected valid: " + first_line(out)
    if rc == 2:
        return "fail", "rejected valid: " + first_line(out)
    if rc != 0:
        return "fail", "round-trip (exit %d): %s" % (rc, " | ".join(out.splitlines()[:4]))
    return check_output(wasm, may_skip)


def check_output(wasm, may_skip):
    """wasm-validate on tilt's output w1 of valid module wasm."""
    rc, out = run(["wasm-validate", *VALIDATE_ALL, wasm[:-5] + ".w1.wasm"])
    if rc != 0 and may_skip and run(["wasm-validate", *VALIDATE_ALL, wasm])[0] != 0:
        # wabt 1.0.32 rejects the input as well (a 3.0 rule it predates,
        # such as global.get of a defined global in a constant expression)
        return "skip", "wasm-validate rejects the input too: " + re.sub(r"^.*?error: ", "", first_line(out))
    if rc != 0:
        return "fail", "invalid output: wasm-validate rejects w1: " + first_line(out)
    return "pass", ""


def check_invalid(tool, feats, wasm):
    rc, out = run([tool, "-q", "--features=" + feats, "--expect-invalid", wasm])
    if rc != 0:
        return "fail", "not rejected (exit %d): %s" % (rc, first_line(out))
    return "pass", ""


def batch(tool, args, wasms):
    """Runs one tilt-roundtrip over many modules; {wasm: exit code} of those
    it reported (a crash leaves the rest out; they are rerun one by one)."""
    if not wasms:
        return {}
    _, out = run([tool, "-q", *args, *wasms], timeout=TIMEOUT * 10)
    res = {}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            _, rc, path = line.split(" ", 2)
            res[path] = int(rc)
    return res


def check_file(commands, outdir, tool, feats, may_skip):
    """[(kind, wasm, result, detail)] for every binary module of one file:
    batched runs first, then one by one for anything that did not pass."""
    valid, invalid = [], []
    for c in commands:
        fn = c.get("filename", "")
        if not fn.endswith(".wasm"):
            continue
        wasm = os.path.join(outdir, fn)
        if c["type"] in ("module", "assert_uninstantiable", "assert_unlinkable"):
            valid.append(wasm)
        elif c["type"] in ("assert_invalid", "assert_malformed"):
            invalid.append(wasm)
    fa = "--features=" + feats
    ok_v = batch(tool, [fa, "--out-suffix", ".w1.wasm"], valid)
    ok_i = batch(tool, [fa, "--expect-invalid"], invalid)
    results = []
    for wasm in valid:
        if ok_v.get(wasm) == 0:
            res = check_output(wasm, may_skip)
        else:
            res = check_valid(tool, feats, wasm, may_skip)
        results.append(("valid", wasm) + res)
    for wasm in invalid:
        res = ("pass", "") if ok_i.get(wasm) == 0 else check_invalid(tool, feats, wasm)
        results.append(("invalid", wasm) + res)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="path to tilt-roundtrip")
    ap.add_argument("--work", default=None, help="scratch dir for wast2json output")
    ap.add_argument("--suite", default=os.environ.get("TILT_TESTSUITE") or
                    os.path.join(REPO, "..", "shared", "testsuite"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("TILT_JOBS", "2")))
    ap.add_argument("--filter", default="", help="only .wast paths containing this")
    ap.add_argument("--failures", default=None, help="copy failing modules here")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()

    suite = os.path.abspath(a.suite)
    if not os.path.isdir(os.path.join(suite, "baseline-2022-11", "core")):
        print("SKIP: spec suite not found at %s (set TILT_TESTSUITE)" % suite)
        return 0
    for t in ("wast2json", "wasm-validate"):
        if not shutil.which(t):
            print("SKIP: %s not found in PATH" % t)
            return 0
    work = os.path.abspath(a.work or os.path.join(os.getcwd(), "spec-work"))
    shutil.rmtree(work, ignore_errors=True)
    start = time.time()

    files = []  # (label, wast, outdir, flags, feats, strict)
    for sub, flags, feats, strict in SETS:
        d = os.path.join(suite, sub)
        if not os.path.isdir(d):
            print("SKIP: %s not found" % d)
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith(".wast") and a.filter in os.path.join(sub, name):
                out = os.path.join(work, sub, name[:-5])
                files.append((sub + "/" + name, os.path.join(d, name), out, flags, feats, strict))

    passed = failed = skipped = 0
    failures, skips = [], []
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        convs = pool.map(lambda f: convert(f[1], f[2], f[3]), files)
        per_file = []
        for f, (cmds, why) in zip(files, convs):
            label, _, outdir, _, feats, strict = f
            if cmds is None:
                if strict:
                    failed += 1
                    failures.append((label, "wast2json failed: " + why))
                else:
                    skipped += 1
                    skips.append((label, "does not convert: " + why))
                per_file.append((label, None))
                continue
            per_file.append((label, pool.submit(check_file, cmds, outdir, a.tool, feats,
                                                not strict)))

        for label, fut in per_file:
            if fut is None:
                continue
            n = {"valid": [0, 0, 0], "invalid": [0, 0, 0]}
            reasons = set()
            for kind, wasm, res, detail in fut.result():
                idx = {"pass": 0, "fail": 1, "skip": 2}[res]
                n[kind][idx] += 1
                if res == "fail":
                    failures.append((label, "%s: %s" % (os.path.relpath(wasm, work), detail)))
                    if a.failures:
                        os.makedirs(a.failures, exist_ok=True)
                        shutil.copy(wasm, a.failures)
                elif res == "skip":
                    reasons.add(detail)
            v, i = n["valid"], n["invalid"]
            passed += v[0] + i[0]
            failed += v[1] + i[1]
            skipped += v[2]
            if v[2]:
                skips.append((label, "%d valid module%s skipped: %s" % (
                    v[2], "s" if v[2] > 1 else "", "; ".join(sorted(reasons)))))
            line = "%-58s valid %d/%d  rejected %d/%d" % (label, v[0], v[0] + v[1], i[0], i[0] + i[1])
            if v[2]:
                line += "  skipped %d" % v[2]
            if v[1] + i[1]:
                line += "  FAILED %d" % (v[1] + i[1])
            print(line, flush=True)

    if skips:
        print("\nskipped:")
        for label, why in skips:
            print("  %s: %s" % (label, why))
    if failures:
        print("\nfailures:")
        shown = failures if a.verbose else failures[:50]
        for label, why in shown:
            print("  %s: %s" % (label, why))
        if len(shown) < len(failures):
            print("  ... %d more (use -v)" % (len(failures) - len(shown)))
    if failures:
        kinds = {}
        for _, why in failures:
            parts = why.split(": ")
            k = parts[1] if parts[0].endswith(".wasm") and len(parts) > 1 else parts[0]
            kinds[k] = kinds.get(k, 0) + 1
        print("\nfailures by kind: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    print("\ntime %.1f s" % (time.time() - start))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
