#!/usr/bin/env python3
"""Writes the NVPTX image (cubin) of a tessera bundle to a file, for
cuobjdump:  extract-cubin.py <bundle.tsb> <out.cubin>. Walks the
OffloadBinary entries and takes the first whose `triple` string is nvptx,
skipping images marked `tessera.on_demand` (the twins without TMA, as PTX)."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
off = 0
found = False
while off + 24 <= len(data):
    size, eoff = struct.unpack_from("<QQ", data, off + 8)
    _, _, _, soff, nstr, ioff, isize = struct.unpack_from("<HHIQQQQ", data, off + eoff)
    strs = {}
    for i in range(nstr):
        k, v = struct.unpack_from("<QQ", data, off + soff + 16 * i)
        key = data[off + k:data.index(b"\0", off + k)].decode()
        strs[key] = data[off + v:data.index(b"\0", off + v)].decode(errors="replace")
    if (not found and strs.get("triple", "").startswith("nvptx")
            and "tessera.on_demand" not in strs):
        open(sys.argv[2], "wb").write(data[off + ioff:off + ioff + isize])
        found = True
    off += (size + 7) // 8 * 8
if not found:
    sys.exit("%s has no nvptx image" % sys.argv[1])
