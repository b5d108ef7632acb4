#!/usr/bin/env python3
"""dwarfgen.py — writes a small module with hand-made DWARF 4 for the cli
tests of tilt's DWARF rewriter (src/wasm-io/dwarf.c), and broken variants.

  dwarfgen.py good OUT.wasm        three functions: main (exported, calls
                                   helper), helper, dead (nothing calls
                                   it); nops to remove; helper's locals
                                   i32, f64, i32 (not to be regrouped). Every instruction
                                   has a row of its own (line 100 * (its
                                   function + 1) + its index, column its
                                   index), each function's local
                                   declarations line 100 * (function + 1).
                                   One unit: its ranges list, a subprogram
                                   per function (data4 high_pc; helper's
                                   a padded udata), a variable
                                   with a location list in main
  dwarfgen.py bad NAME OUT.wasm    a broken variant; prints the error
                                   tilt-opt -g must give ("0xOFFSET:
                                   error: MESSAGE", OFFSET in the file)
  dwarfgen.py names                the broken variants' names
  dwarfgen.py lit NAME             the broken variant as a test/lit/bad case
                                   (hex, 16 bytes a line, FLAGS -g -O2)
"""
import struct
import sys


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def u32(v):
    return struct.pack("<I", v & 0xffffffff)


def section(sid, body):
    return bytes([sid]) + uleb(len(body)) + body


def custom(name, body):
    n = name.encode()
    return section(0, uleb(len(n)) + n + body)


def vec(items):
    return uleb(len(items)) + b"".join(items)


NOP, END, CALL, DROP, CONST, GET, SET, ADD = 0x01, 0x0b, 0x10, 0x1a, 0x41, 0x20, 0x21, 0x6a
# (name, type, locals declaration bytes, [instruction bytes])
FUNCS = [
    ("main", 0, b"\x00", [bytes([NOP]), bytes([NOP]), bytes([CONST, 5]), bytes([CALL, 1]),
                          bytes([DROP]), bytes([NOP]), bytes([END])]),
    # locals i32, f64, i32: kept in that order (DWARF names locals by index)
    ("helper", 1, b"\x03\x01\x7f\x01\x7c\x01\x7f", [bytes([GET, 0]), bytes([NOP]), bytes([CONST, 1]),
                                                    bytes([ADD]), bytes([SET, 3]), bytes([GET, 3]),
                                                    bytes([END])]),
    ("dead", 0, b"\x00", [bytes([NOP]), bytes([NOP]), bytes([END])]),
]


def code_section():
    """the section, and per function (locals start, [instruction
    addresses], end) in the code section's payload"""
    payload = bytearray(uleb(len(FUNCS)))
    layout = []
    for _, _, loc, ins in FUNCS:
        body = loc + b"".join(ins)
        payload += uleb(len(body))
        start = len(payload)
        addrs, a = [], start + len(loc)
        for i in ins:
            addrs.append(a)
            a += len(i)
        payload += body
        layout.append((start, addrs, len(payload)))
    return section(10, bytes(payload)), layout


def line_program(layout, v):
    std = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
    hdr = bytes([1, 1, 1, (-5) & 0xff, v.get("line_range", 14), 13]) + bytes(std)
    hdr += b"\x00" + b"a.c\x00\x00\x00\x00" + b"\x00"
    prog = bytearray()
    for fi, (start, addrs, end) in enumerate(layout):
        prog += b"\x00\x05\x02" + u32(start)
        line, addr = 1, start
        rows = [(start, 100 * (fi + 1), 0)] + [(a, 100 * (fi + 1) + k + 1, k + 1) for k, a in enumerate(addrs)]
        for a, ln, col in rows:
            prog += b"\x05" + uleb(col)
            if a != addr:
                prog += b"\x02" + uleb(a - addr)
            if ln != line:
                prog += b"\x03" + sleb(ln - line)
            prog += b"\x01"
            addr, line = a, ln
        prog += b"\x02" + uleb(end - addr) + b"\x00\x01\x01"
    if "ext_past" in v:
        prog += b"\x00\x09\x02\x00"        # set_address claiming 9 bytes, 2 left
    unit = struct.pack("<H", 4) + u32(len(hdr)) + hdr + prog
    length = v.get("line_length", len(unit))
    return u32(length) + unit, 4 + 2 + 4 + 4          # offset of line_range in the unit


def abbrevs(v):
    a = bytearray()
    # 1: compile unit: name (string), stmt_list, low_pc, ranges
    a += uleb(1) + uleb(0x11) + b"\x01"
    a += b"\x03\x08" + b"\x10\x17" + b"\x11\x01" + b"\x55\x17" + b"\x00\x00"
    # 2: subprogram: low_pc, high_pc (data4), name
    a += uleb(2) + uleb(0x2e) + b"\x01"
    a += b"\x11\x01" + b"\x12\x06" + b"\x03" + (b"\x7e" if "bad_form" in v else b"\x08") + b"\x00\x00"
    # 3: variable: location (loclist), name
    a += uleb(3) + uleb(0x34) + b"\x00" + b"\x02\x17" + b"\x03\x08" + b"\x00\x00"
    # 4: subprogram: low_pc, high_pc (udata, padded to 3 bytes), name
    a += uleb(4) + uleb(0x2e) + b"\x01" + b"\x11\x01" + b"\x12\x0f" + b"\x03\x08" + b"\x00\x00"
    return bytes(a) + b"\x00"


def info(layout, v):
    """the unit and the offsets (in the section) of things a variant breaks"""
    die = bytearray()
    die += uleb(1) + b"a.c\x00" + u32(v.get("stmt_list", 0)) + u32(0) + u32(v.get("ranges", 0))
    at = {}
    for fi, (start, _, end) in enumerate(layout):
        at.setdefault("name", 11 + len(die) + 1 + 8)
        if fi == 1:
            at["code2"] = 11 + len(die)
        if fi == 1:   # helper's high_pc a padded LEB128
            die += uleb(9 if "bad_code" in v else 4) + u32(start) + bytes([0x80 | (end - start), 0x80, 0])
        else:
            die += uleb(2) + u32(start) + u32(end - start)
        die += FUNCS[fi][0].encode() + b"\x00"
        if fi == 0:
            die += uleb(3) + u32(0) + b"x\x00"
        die += b"\x00"
    die += b"\x00"
    ver = v.get("version", 4)
    unit = struct.pack("<H", ver) + u32(0) + bytes([v.get("addr_size", 4)]) + bytes(die)
    at["version"], at["addr_size"] = 4, 10
    return u32(len(unit)) + unit, at


def ranges(layout):
    r = bytearray()
    for start, _, end in layout:
        r += u32(start) + u32(end)
    return bytes(r) + u32(0) + u32(0)


def locs(layout, v):
    start, _, end = layout[0]
    body = u32(start + 2) + u32(end) + struct.pack("<H", 2) + b"\x30\x9f"
    return body if "loc_open" in v else body + u32(0) + u32(0)


def module(v):
    types = section(1, vec([b"\x60\x00\x00", b"\x60\x01\x7f\x01\x7f"]))
    funcs = section(3, vec([uleb(t) for _, t, _, _ in FUNCS]))
    exports = section(7, vec([b"\x04main\x00\x00"]))
    code, layout = code_section()
    names = vec([uleb(i) + uleb(len(n)) + n.encode() for i, (n, _, _, _) in enumerate(FUNCS)])
    head = b"\x00asm\x01\x00\x00\x00" + types + funcs + exports + code + custom("name", b"\x01" + uleb(len(names)) + names)
    out = bytearray(head)
    offs = {}

    def add(name, body):
        sec = custom(name, body)
        offs[name] = len(out) + len(sec) - len(body)
        out.extend(sec)
    line, lr = line_program(layout, v)
    add(".debug_line", line)
    inf, at = info(layout, v)
    add(".debug_info", inf)
    add(".debug_abbrev", abbrevs(v))
    add(".debug_ranges", ranges(layout))
    add(".debug_loc", locs(layout, v))
    return bytes(out), offs, lr, at, len(ranges(layout)), len(locs(layout, v))


# name: (variant, lambda offsets -> (offset, message))
BAD = {
    "line-range-0": ({"line_range": 0}, lambda o, lr, at, nr, nl: (o[".debug_line"] + lr, ".debug_line: line_range is 0")),
    "line-unit-past-end": ({"line_length": 100000}, lambda o, lr, at, nr, nl: (o[".debug_line"], ".debug_line: unit length past the section")),
    "line-extended-past-end": ({"ext_past": 1}, None),
    "info-dwarf5": ({"version": 5}, lambda o, lr, at, nr, nl: (o[".debug_info"] + at["version"] + 2, ".debug_info: unknown unit type")),
    "info-version-6": ({"version": 6}, lambda o, lr, at, nr, nl: (o[".debug_info"] + at["version"], ".debug_info: unsupported unit version")),
    "info-addr-size-8": ({"addr_size": 8}, lambda o, lr, at, nr, nl: (o[".debug_info"] + at["addr_size"], ".debug_info: address size is not 4")),
    "info-unknown-form": ({"bad_form": 1}, lambda o, lr, at, nr, nl: (o[".debug_info"] + at["name"], ".debug_info: unknown attribute form")),
    "info-undefined-abbrev": ({"bad_code": 1}, lambda o, lr, at, nr, nl: (o[".debug_info"] + at["code2"], ".debug_info: DIE with an undefined abbreviation code")),
    "info-stmt-list-nowhere": ({"stmt_list": 3}, lambda o, lr, at, nr, nl: (o[".debug_info"] + 4 + 2 + 4 + 1 + 1 + 4, ".debug_info: DW_AT_stmt_list names no line program")),
    "ranges-offset-past-end": ({"ranges": 4096}, lambda o, lr, at, nr, nl: (o[".debug_ranges"] + nr, ".debug_ranges: list offset past the section")),
    "loc-unterminated": ({"loc_open": 1}, lambda o, lr, at, nr, nl: (o[".debug_loc"] + nl, ".debug_loc: list entry")),
}


def main():
    if sys.argv[1] == "good":
        open(sys.argv[2], "wb").write(module({})[0])
    elif sys.argv[1] == "names":
        print("\n".join(BAD))
    elif sys.argv[1] == "lit":
        v, want = BAD[sys.argv[2]]
        data, offs, lr, at, nr, nl = module(v)
        if want is None:
            off = data.rindex(b"\x00\x09\x02\x00", 0, offs[".debug_info"]) + 2
            msg = ".debug_line: extended opcode past the program"
        else:
            off, msg = want(offs, lr, at, nr, nl)
        print(";; Generated by test/cli/dwarfgen.py lit %s: dwarfgen's module (three" % sys.argv[2])
        print(";; functions, DWARF 4) with its DWARF broken as the name says; tilt-opt -g")
        print(";; reads DWARF to keep it right, and refuses it at the broken byte.")
        print(";; FLAGS: -g -O2")
        print(";; ERROR: 0x%x: %s" % (off, msg))
        for i in range(0, len(data), 16):
            print(" ".join("%02x" % b for b in data[i:i + 16]) + "  ;; 0x%x" % i)
    elif sys.argv[1] == "bad":
        v, want = BAD[sys.argv[2]]
        data, offs, lr, at, nr, nl = module(v)
        open(sys.argv[3], "wb").write(data)
        if want is None:   # the extended opcode's length: its byte after the 0
            off = data.rindex(b"\x00\x09\x02\x00", 0, offs[".debug_info"]) + 2
            print("0x%x: error: .debug_line: extended opcode past the program" % off)
        else:
            off, msg = want(offs, lr, at, nr, nl)
            print("0x%x: error: %s" % (off, msg))
    else:
        sys.exit(__doc__)


main()
