#!/usr/bin/env python3
"""read_check.py — runs the reader over the spec suite's binary modules.

Converts .wast files with wast2json into a temp dir, then feeds every binary
module to build/test/read_check: `module`, `assert_unlinkable` and
`assert_uninstantiable` modules must be accepted; binary `assert_invalid` and
`assert_malformed` modules rejected (text-form ones are skipped).
usage: read_check.py BUILD_DIR [TESTSUITE] [--verbose] [--no-validate] [wast-name-filter]
--no-validate checks the reader's own validation (tl_validate_module off).
"""
import glob, json, os, subprocess, sys, tempfile

ALL = (1 << 10) - 1
SETS = [  # (glob, wast2json flags, feature bits for the reader)
    ("baseline-2022-11/core/*.wast", [], ALL),
    ("baseline-2022-11/proposals/tail-call/*.wast", ["--enable-tail-call"], ALL),
    ("baseline-2022-11/proposals/extended-const/*.wast", ["--enable-extended-const"], ALL),
    # the threads proposal predates reference types ("multiple tables" is invalid)
    ("baseline-2022-11/proposals/threads/*.wast", ["--enable-threads"], ALL & ~(1 << 5)),
]
ACCEPT = {"module", "assert_unlinkable", "assert_uninstantiable"}
REJECT = {"assert_invalid", "assert_malformed"}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    verbose = "--verbose" in sys.argv
    build = args[0]
    suite = args[1] if len(args) > 1 else os.environ.get(
        "TILT_TESTSUITE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/testsuite"))
    filt = args[2] if len(args) > 2 else ""
    if not os.path.isdir(suite):
        print("read_check: test suite not found at %s, skipping" % suite)
        return 0
    checker = os.path.join(build, "test", "read_check")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for pattern, flags, feats in SETS:
            lines, skipped = [], 0
            for wast in sorted(glob.glob(os.path.join(suite, pattern))):
                if filt and filt not in wast:
                    continue
                name = os.path.splitext(os.path.basename(wast))[0]
                out = os.path.join(tmp, pattern.split("/")[1] + "-" + name)
                os.makedirs(out, exist_ok=True)
                js = os.path.join(out, name + ".json")
                r = subprocess.run(["wast2json"] + flags + [wast, "-o", js], capture_output=True, text=True)
                if r.returncode:
                    print("wast2json failed on %s: %s" % (wast, r.stderr.strip()[:200]))
                    skipped += 1
                    continue
                for c in json.load(open(js))["commands"]:
                    fn = c.get("filename")
                    if not fn or c.get("module_type", "binary") != "binary":
                        continue
                    if c["type"] in ACCEPT:
                        lines.append("ok %s/%s" % (out, fn))
                    elif c["type"] in REJECT:
                        lines.append("bad %s/%s" % (out, fn))
            cmd = [checker, "--features=%d" % feats] + (["--verbose"] if verbose else []) + \
                (["--no-validate"] if "--no-validate" in sys.argv else [])
            r = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True)
            print("== %s (%d wast files skipped)" % (pattern, skipped))
            sys.stdout.write(r.stdout)
            if r.returncode:
                failed = 1
                sys.stdout.write(r.stderr[-3000:])
    return failed


if __name__ == "__main__":
    sys.exit(main())
