"""npm_modules.py — fetches pinned npm packages into a cache directory and
collects the WebAssembly modules they ship, for test/npm/roundtrip.py and
bench/roundtrip. Packages that ship no .wasm file but embed modules in their
JavaScript as base64 (hash-wasm, zstd-codec) have those decoded into
<cache>/extracted/. Identical modules are listed once.
"""
import base64
import hashlib
import os
import re
import shutil
import subprocess

PACKAGES = ["sql.js@1.16.0", "esbuild-wasm@0.28.2", "hash-wasm@4.13.0", "brotli-wasm@3.0.1",
            "web-tree-sitter@0.27.1", "zstd-codec@0.1.5",
            # C++ built with -fwasm-exceptions (legacy try/catch/delegate/rethrow): issue 19
            "wasm-vips@0.0.19", "web-ifc@0.0.78",
            # Stockfish 17/18-class engines, plain SIMD and relaxed SIMD builds
            # (i32x4.relaxed_dot_i8x16_i7x16_add_s in the NNUE): issue 20
            "@lichess-org/stockfish-web@0.5.0"]
BINARYEN = "binaryen@132.0.0"

# base64 of "\0asm" starts with AGFzbQ; the run ends at the first non-base64 char.
B64_WASM = re.compile(rb"AGFzbQ[A-Za-z0-9+/]+={0,2}")


def pkg_name(spec):
    return spec.rsplit("@", 1)[0]


def installed(cache, specs):
    for spec in specs:
        name, version = spec.rsplit("@", 1)
        pj = os.path.join(cache, "node_modules", name, "package.json")
        if not os.path.exists(pj):
            return False
        with open(pj) as f:
            if '"version": "%s"' % version not in f.read():
                return False
    return True


def fetch(cache, specs):
    """Installs specs into cache unless present; returns None or why not."""
    if installed(cache, specs):
        return None
    if not shutil.which("npm"):
        return "npm not found"
    os.makedirs(cache, exist_ok=True)
    cmd = ["npm", "install", "--prefix", cache, "--no-save", "--ignore-scripts",
           "--no-audit", "--no-fund", *specs]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    except subprocess.TimeoutExpired:
        return "npm install timed out"
    if p.returncode != 0 or not installed(cache, specs):
        lines = p.stdout.decode(errors="replace").strip().splitlines()
        return "npm install failed: " + (lines[-1] if lines else "exit %d" % p.returncode)
    return None


def _files(root, ext):
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != "node_modules")
        # index bundles last, so that an embedded module takes the name of the
        # single-purpose file that also holds it (hash-wasm: md5.umd.min.js).
        for n in sorted(names, key=lambda n: (n.startswith("index"), n)):
            if n.endswith(ext):
                yield os.path.join(d, n)


def _extract(cache, name, root):
    """Decodes base64-embedded modules from the package's .js files."""
    out = []
    outdir = os.path.join(cache, "extracted", name)
    os.makedirs(outdir, exist_ok=True)
    for js in _files(root, ".js"):
        with open(js, "rb") as f:
            text = f.read()
        for i, m in enumerate(B64_WASM.finditer(text)):
            s = m.group(0)
            try:
                data = base64.b64decode(s + b"=" * (-len(s) % 4))
            except ValueError:
                continue
            if data[:4] != b"\0asm":
                continue
            rel = os.path.relpath(js, root).replace(os.sep, "_")[:-3]
            path = os.path.join(outdir, "%s.%d.wasm" % (rel, i))
            with open(path, "wb") as f:
                f.write(data)
            out.append(path)
    return out


def collect(cache, specs=PACKAGES):
    """[(label, path, how)] for every distinct module of the packages."""
    seen, mods = set(), []
    for spec in specs:
        name = pkg_name(spec)
        root = os.path.join(cache, "node_modules", name)
        paths, how = list(_files(root, ".wasm")), "file"
        if not paths:
            paths, how = _extract(cache, name, root), "base64 in .js"
        for p in paths:
            with open(p, "rb") as f:
                h = hashlib.sha256(f.read()).hexdigest()
            if h in seen:
                continue
            seen.add(h)
            base = os.path.relpath(p, root) if how == "file" else os.path.basename(p)
            mods.append((name + "/" + base, p, how))
    return mods
