#!/usr/bin/env python3
"""check.py — checks the GC corpus itself against binaryen 132 (no tilt
needed), for whoever edits or adds a program:

  - the file validates and its exports give what its `;; expect:` lines say;
  - binaryen's -O2, -O3, -O2 --closed-world and -O3 --closed-world outputs
    validate and give the same results;
  - each export gives the same result alone (the module with only that
    export) as after the others ran: tilt-run --invoke runs one export in a
    fresh instance, --fuzz-exec runs them all in one, so results must not
    depend on call order.

Prints one line per file with binaryen's sizes and exits 1 on any failure,
77 if binaryen is not found.

usage: check.py [--binaryen WASM_OPT] [-j N] [FILE.wat...]
"""
import argparse
import concurrent.futures as cf
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

CONFIGS = [("O2", ["-O2"]), ("O3", ["-O3"]), ("O2cw", ["-O2", "--closed-world"]),
           ("O3cw", ["-O3", "--closed-world"])]
EXPORT_LINE = re.compile(r'^\s*\(export "([^"]+)" \(func \$[^)]+\)\)\s*$')


def only_export(text, keep):
    """The module text with every export line but KEEP's removed."""
    return "\n".join(l for l in text.splitlines()
                     if not (EXPORT_LINE.match(l) and EXPORT_LINE.match(l).group(1) != keep)) + "\n"


def check(wo, path, tmp):
    name = os.path.basename(path)
    base = os.path.join(tmp, name[:-4])
    errs, sizes = [], {}
    want = corpus.expectations(path)
    if not want:
        errs.append("no ;; expect: lines")
    ref, why = corpus.binaryen_fuzz_exec(wo, path)
    if ref is None:
        return name, [why], sizes
    errs += corpus.compare(want, ref, "binaryen vs ;; expect")
    for n, r in ref:
        if r[0] == "value" and "nan" in r[1]:
            errs.append("export %s returns a NaN (not comparable)" % n)
    rc, out = corpus.run([wo, "-all", path, "-o", base + ".wasm"])
    sizes["wasm"] = os.path.getsize(base + ".wasm") if rc == 0 else None
    for label, flags in CONFIGS:
        out_path = "%s.%s.wasm" % (base, label)
        rc, out = corpus.run([wo, "-all", path, *flags, "-o", out_path])
        if rc != 0:
            errs.append("binaryen %s failed: %s" % (" ".join(flags), corpus.first_error(out)))
            continue
        sizes[label] = os.path.getsize(out_path)
        got, why = corpus.binaryen_fuzz_exec(wo, out_path)
        if got is None:
            errs.append("binaryen %s output: %s" % (" ".join(flags), why))
        else:
            errs += corpus.compare(ref, got, "binaryen %s output" % " ".join(flags))
    with open(path) as f:
        text = f.read()
    names = [m.group(1) for m in map(EXPORT_LINE.match, text.splitlines()) if m]
    if sorted(names) != sorted(n for n, _ in ref):
        errs.append("exports must be written as one `(export \"NAME\" (func $F))` line each")
    for n in names:
        one = "%s.only_%s.wat" % (base, n)
        with open(one, "w") as f:
            f.write(only_export(text, n))
        got, why = corpus.binaryen_fuzz_exec(wo, one)
        if got is None:
            errs.append("%s alone: %s" % (n, why))
        else:
            errs += corpus.compare([r for r in ref if r[0] == n], got, "%s alone" % n)
    return name, errs, sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binaryen", help="binaryen 132's wasm-opt (default: npm's, as in corpus.find_binaryen)")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    wo = corpus.find_binaryen(a.binaryen)
    if not wo:
        print("SKIP: binaryen 132's wasm-opt not found (npm install binaryen@132.0.0, or --binaryen)")
        return 77
    paths = [os.path.abspath(p) for p in a.files] or corpus.files()
    print("binaryen: %s (%s)" % (wo, corpus.binaryen_version(wo)))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(a.j) as ex:
        print("%-22s %7s %7s %7s %7s %7s" % ("file", "wasm", "O2", "O3", "O2cw", "O3cw"))
        for name, errs, sizes in ex.map(lambda p: check(wo, p, tmp), paths):
            cols = " ".join("%7s" % sizes.get(k, "-") for k in ("wasm", "O2", "O3", "O2cw", "O3cw"))
            print("%-22s %s  %s" % (name, cols, "ok" if not errs else "FAIL"))
            for e in errs:
                print("    " + e)
            bad += bool(errs)
    print("%d of %d files ok" % (len(paths) - bad, len(paths)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
