"""corpus.py — what run.py and check.py share: the corpus files, their
`;; expect:` lines, finding npm's binaryen 132, and reading the results of
binaryen's --fuzz-exec, tilt-opt's --fuzz-exec and tilt-run --invoke into
one form that compares export by export.

A result is ("value", TEXT, TYPE), ("trap", MESSAGE) or ("none",): TEXT is
the value as binaryen prints it ("5050", "-0.1", "nan:0x8000000000000"),
TYPE is None for binaryen (its log does not say) or tilt's i32/i64/f32/f64.
Traps compare equal whatever their messages (every engine words them its
own way); values compare by type when one side knows it, so that "-0"
from binaryen matches tilt's f64 -0 and not the i32 0.
"""
import glob
import os
import re
import shutil
import struct
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 300


def files():
    return sorted(glob.glob(os.path.join(HERE, "*.wat")))


def expectations(path):
    """[(export, result)] from the file's `;; expect: NAME => VALUE` lines
    (VALUE is `trap`, `none` or the value as binaryen prints it)."""
    out = []
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*;;\s*expect:\s*(\S+)\s*=>\s*(\S+)\s*$", line)
            if not m:
                continue
            v = m.group(2)
            out.append((m.group(1), ("trap", "") if v == "trap" else ("none",) if v == "none"
                        else ("value", v, None)))
    return out


def find_binaryen(explicit=None, build=None):
    """The wasm-opt of npm's binaryen (a node script) or None: --binaryen,
    $TILT_WASM_OPT_132, then <npm cache>/node_modules/.bin/wasm-opt for the
    caches the other tests use and run.py --fetch's ($TILT_NPM_CACHE, <build>/npm-cache, <build>/npm-binaryen,
    <repo>/build/npm-cache, and for a git worktree the main checkout's
    build/npm-cache)."""
    if explicit:
        return explicit if os.path.exists(explicit) or shutil.which(explicit) else None
    if os.environ.get("TILT_WASM_OPT_132"):
        return os.environ["TILT_WASM_OPT_132"]
    caches = [os.environ.get("TILT_NPM_CACHE"), build and os.path.join(build, "npm-cache"),
              build and os.path.join(build, "npm-binaryen"),  # run.py --fetch's usual DIR
              os.path.join(REPO, "build", "npm-cache"), os.path.join(REPO, "build", "npm-binaryen")]
    rc, common = run(["git", "-C", REPO, "rev-parse", "--path-format=absolute", "--git-common-dir"])
    if rc == 0 and common.strip():  # a worktree: the main checkout's build too
        caches.append(os.path.join(os.path.dirname(common.strip()), "build", "npm-cache"))
    for c in caches:
        if not c:
            continue
        for p in (os.path.join(c, "node_modules", ".bin", "wasm-opt"),
                  os.path.join(c, "node_modules", "binaryen", "bin", "wasm-opt")):
            if os.path.exists(p):
                return p
    return None


def binaryen_version(wasm_opt):
    rc, out = run([wasm_opt, "--version"])
    return out.strip() if rc == 0 else None


def run(cmd, timeout=TIMEOUT):
    """(exit status, stdout + stderr); -999 on a timeout, -998 if it cannot start."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -999, "timed out after %d s" % timeout
    except OSError as e:
        return -998, str(e)


def first_error(text, limit=300):
    """The line of a tool's output that says what went wrong, for a one-line report."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if re.search(r"error|fatal|\[trap|trap:|unknown option|cannot|failed|invalid", l, re.I):
            return l[:limit]
    return (lines[-1] if lines else "(no output)")[:limit]


# ---- binaryen ------------------------------------------------------------

def binaryen_fuzz_exec(wasm_opt, path):
    """(results, None) or (None, why): `wasm-opt -all PATH --fuzz-exec-before`,
    which also validates PATH."""
    rc, out = run([wasm_opt, "-all", path, "--fuzz-exec-before", "-o", os.devnull])
    if rc != 0:
        return None, "binaryen rejected it: " + first_error(out)
    return parse_binaryen(out), None


def parse_binaryen(text):
    """[(export, result)] from binaryen's fuzz-exec log; its first run only
    (--fuzz-exec runs the exports twice, before and after the passes)."""
    res, seen, cur = [], set(), None
    for line in text.splitlines():
        m = re.match(r"\[fuzz-exec\] export (.*)$", line)
        if m:
            name = m.group(1)
            if name in seen:
                break
            seen.add(name)
            cur = name
            res.append([name, ("none",)])
            continue
        if cur is None:
            continue
        m = re.match(r"\[fuzz-exec\] note result: (.*) => (.*)$", line)
        if m and m.group(1) == cur:
            res[-1][1] = ("value", m.group(2).strip(), None)
            continue
        m = re.match(r"\[trap (.*)\]$", line)
        if m:
            res[-1][1] = ("trap", m.group(1))
            continue
        if line.startswith("[fuzz-exec] comparing"):
            break
    return [tuple(r) for r in res]


# ---- tilt ----------------------------------------------------------------

def parse_tilt_fuzz(text):
    """[(export, result)] from the "before the passes" log of
    `tilt-opt --fuzz-exec` (src/fuzz_exec.c): `[export "NAME"]` then
    `  -> i32:7`, `  -> trap: MSG` or `  ->`; a `[stop...]` or
    `[instantiate...]` line becomes a trap-free failure entry."""
    res, started = [], False
    for line in text.splitlines():
        if line.startswith("[fuzz-exec] before the passes"):
            started = True
            continue
        if not started:
            continue
        if line.startswith("[fuzz-exec]"):
            break
        m = re.match(r'\[export "(.*)"\]$', line)
        if m:
            res.append([m.group(1), ("missing", "no result line")])
            continue
        m = re.match(r"\s+->\s*(.*)$", line)
        if m and res:
            res[-1][1] = tilt_result(m.group(1))
            continue
        m = re.match(r"\[(stop|instantiate)(.*)\]$", line)
        if m:
            res.append(["(" + m.group(1) + ")", ("missing", line)])
    return [tuple(r) for r in res]


def tilt_result(text):
    """`i32:7`, `f64:0x...`, `f32:nan`, `trap: MSG`, `` -> a result."""
    text = text.strip()
    if not text:
        return ("none",)
    if text.startswith("trap:"):
        return ("trap", text[5:].strip())
    if text.startswith("uncaught exception"):
        return ("missing", text)
    parts = text.split()
    if len(parts) != 1 or ":" not in parts[0]:
        return ("missing", "more than one value: " + text)
    ty, v = parts[0].split(":", 1)
    if ty in ("i32", "i64"):
        return ("value", str(int(v)), ty)
    if ty in ("f32", "f64"):
        if v == "nan":
            return ("value", "nan", ty)
        bits = int(v, 16)
        f = struct.unpack(">f", struct.pack(">I", bits))[0] if ty == "f32" else \
            struct.unpack(">d", struct.pack(">Q", bits))[0]
        return ("value", repr(f), ty)
    return ("missing", "a %s result" % ty)


def tilt_run_result(rc, out):
    """The result of `tilt-run --invoke NAME`: a value line (i32:7,
    f64:-0.10000000000000001), nothing, or "error: trap: MSG" and status 134."""
    lines = [l for l in out.splitlines() if l.strip()]
    if rc == 134 and any("trap" in l for l in lines):
        return ("trap", next(l for l in lines if "trap" in l).split("trap:", 1)[-1].strip())
    if rc != 0:
        return ("missing", "exit %d: %s" % (rc, first_error(out)))
    vals = [l for l in lines if re.match(r"(i32|i64|f32|f64|v128|funcref|externref):", l)]
    if not vals:
        return ("none",)
    if len(vals) > 1:
        return ("missing", "more than one value: " + " ".join(vals))
    ty, v = vals[0].split(":", 1)
    if ty in ("i32", "i64"):
        return ("value", str(int(v)), ty)
    if ty in ("f32", "f64"):
        if "nan" in v:
            return ("value", "nan", ty)
        return ("value", repr(float(v)), ty)
    return ("missing", "a %s result" % ty)


# ---- comparing -----------------------------------------------------------

def _num(text, ty):
    """A value's text in the form it compares in: an int, float bits, or "nan"."""
    t = text.strip()
    if t.startswith("nan") or t.startswith("-nan"):
        return "nan"
    if ty in ("i32", "i64"):
        return int(t)
    if ty == "f32":
        return struct.unpack(">I", struct.pack(">f", float(t)))[0]
    if ty == "f64":
        return struct.unpack(">Q", struct.pack(">d", float(t)))[0]
    return t


def same(want, got):
    """Whether two results agree (see the top comment)."""
    if want[0] != got[0]:
        return False
    if want[0] != "value":
        return want[0] != "missing"
    ty = want[2] or got[2]
    if ty is None:
        return want[1] == got[1]
    try:
        return _num(want[1], ty) == _num(got[1], ty)
    except (ValueError, OverflowError, struct.error):
        return False


def show(r):
    if r[0] == "value":
        return r[1] if not r[2] else "%s:%s" % (r[2], r[1])
    if r[0] == "trap":
        return "trap (%s)" % r[1] if r[1] else "trap"
    if r[0] == "none":
        return "no value"
    return r[1]


def compare(want, got, what):
    """Messages for each export where got differs from want ([] if none)."""
    msgs = []
    gd = dict(got)
    names = [n for n, _ in want]
    for n, r in got:
        if n.startswith("("):  # a [stop ...] or [instantiate ...] line
            msgs.append("%s: %s" % (what, r[1]))
        elif n not in dict(want):
            msgs.append("%s: an export not in the reference: %s" % (what, n))
    for name, w in want:
        if name not in gd:
            msgs.append("%s: export %s: no result (expected %s)" % (what, name, show(w)))
        elif not same(w, gd[name]):
            msgs.append("%s: export %s: got %s, expected %s" % (what, name, show(gd[name]), show(w)))
    return msgs
