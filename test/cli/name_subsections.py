#!/usr/bin/env python3
"""name_subsections.py FILE: the ids of the subsections of FILE's "name"
custom section, in file order, on one line (used by test/cli/wat.sh)."""
import sys

b = open(sys.argv[1], 'rb').read()

def leb(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i

ids, i = [], 8
while i < len(b):
    sid = b[i]; size, j = leb(i + 1); end = j + size
    if sid == 0:
        n, k = leb(j)
        if b[k:k + n] == b'name':
            k += n
            while k < end:
                ids.append(b[k]); sz, k = leb(k + 1); k += sz
    i = end
print(' '.join(map(str, ids)))
