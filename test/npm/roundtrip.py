#!/usr/bin/env python3
"""roundtrip.py — round-trips the WebAssembly modules that real npm packages
ship (pinned versions, see npm_modules.py) through tilt: each must pass
`tilt-roundtrip --all-features`, its output must pass `wasm-validate` with
all features but function references/GC (a wabt 1.0.32 bug), and the output may be at most 1% larger than the input.
Prints one line per module with the sizes, then "N passed, M failed".
Without npm or network: prints SKIP and exits 0.
"""
import argparse
import concurrent.futures as cf
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npm_modules  # noqa: E402

TIMEOUT = 600

# "--enable-all" but for function references and GC, with which wabt 1.0.32
# mistypes ref.func (see test/spec/roundtrip.py).
VALIDATE_ALL = ["--enable-exceptions", "--enable-threads", "--enable-tail-call",
                "--enable-annotations", "--enable-code-metadata", "--enable-memory64",
                "--enable-multi-memory", "--enable-extended-const", "--enable-relaxed-simd"]


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -999, "timeout after %d s" % TIMEOUT


def check(tool, label, path, outdir):
    """Returns (ok, in_size, out_size, note)."""
    out = os.path.join(outdir, label.replace("/", "_"))
    n_in = os.path.getsize(path)
    rc, text = run([tool, "--all-features", "-o", out, path])
    n_out = os.path.getsize(out) if os.path.exists(out) else 0
    if rc != 0:
        return False, n_in, n_out, "tilt-roundtrip exit %d: %s" % (rc, " | ".join(
            text.strip().splitlines()[:4]))
    exact = "exact" if "exact" in text else "normalized"
    rc, text = run(["wasm-validate", *VALIDATE_ALL, out])
    if rc != 0:
        return False, n_in, n_out, "wasm-validate rejects the output: " + text.strip()[:300]
    if n_out > n_in * 1.01:
        return False, n_in, n_out, "output more than 1% larger than the input"
    return True, n_in, n_out, exact


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="path to tilt-roundtrip")
    ap.add_argument("--cache", default=os.environ.get("TILT_NPM_CACHE"),
                    help="npm cache dir (default: $TILT_NPM_CACHE or ./npm-cache)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("TILT_JOBS", "2")))
    ap.add_argument("--failures", default=None, help="copy failing modules here")
    a = ap.parse_args()
    cache = os.path.abspath(a.cache or "npm-cache")
    why = npm_modules.fetch(cache, npm_modules.PACKAGES)
    if why:
        print("SKIP: npm packages unavailable (%s)" % why)
        return 0
    if not shutil.which("wasm-validate"):
        print("SKIP: wasm-validate not found in PATH")
        return 0
    mods = npm_modules.collect(cache)
    outdir = os.path.join(cache, "roundtrip-out")
    os.makedirs(outdir, exist_ok=True)
    passed = failed = 0
    tot_in = tot_out = 0
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futs = [(label, path, how, pool.submit(check, a.tool, label, path, outdir))
                for label, path, how in mods]
        for label, path, how, fut in futs:
            ok, n_in, n_out, note = fut.result()
            tot_in += n_in
            tot_out += n_out
            ratio = n_out / n_in if n_in and n_out else 0.0
            print("%-4s %-52s %10d -> %10d  %6.4f  %s%s" % (
                "ok" if ok else "FAIL", label, n_in, n_out, ratio, note,
                "" if how == "file" else " (extracted: " + how + ")"), flush=True)
            if ok:
                passed += 1
            else:
                failed += 1
                if a.failures:
                    os.makedirs(a.failures, exist_ok=True)
                    shutil.copy(path, os.path.join(a.failures, label.replace("/", "_")))
    if tot_in:
        print("total %d -> %d bytes (%.4f)" % (tot_in, tot_out, tot_out / tot_in))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
