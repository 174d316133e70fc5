"""Flips one byte in a named region of a bundle's first image.

    flip_bundle_byte.py IN OUT REGION

REGION is one of: magic, size, flags, string-entry, triple, kernels, source,
digest, code (the image bytes, i.e. machine code), padding. The offsets come
from the OffloadBinary layout in docs/bundle.md, so the test names regions,
not byte positions that move whenever the compiler's output changes.
"""
import struct
import sys


def strings(data):
    """(key, key offset, value offset) of every string of the first image."""
    (string_offset, count) = struct.unpack_from("<QQ", data, 32 + 8)
    out = []
    for i in range(count):
        key_at, value_at = struct.unpack_from("<QQ", data, string_offset + 16 * i)
        key = data[key_at:data.index(b"\0", key_at)].decode()
        out.append((key, key_at, value_at))
    return out


def offset(data, region):
    (size,) = struct.unpack_from("<Q", data, 8)
    (string_offset, count, image_offset, image_size) = struct.unpack_from(
        "<QQQQ", data, 32 + 8)
    values = {key: value for key, _, value in strings(data)}
    if region == "magic":
        return 1
    if region == "size":
        return 9
    if region == "flags":
        return 32 + 4
    if region == "string-entry":
        return string_offset + 16 * (count // 2) + 1
    if region in ("triple", "source", "kernels", "digest"):
        key = {"triple": "triple", "source": "tessera.source",
               "kernels": "tessera.kernels", "digest": "tessera.sha256"}[region]
        return values[key] + 5
    if region == "code":
        return image_offset + image_size // 2
    if region == "padding":
        # A zero byte between the string table and the image, else after
        # the image.
        table_end = max(data.index(b"\0", at) + 1
                        for _, key_at, value_at in strings(data)
                        for at in (key_at, value_at))
        if table_end < image_offset:
            return table_end
        if image_offset + image_size < size:
            return size - 1
        raise SystemExit("the first image has no padding")
    raise SystemExit("unknown region " + region)


def main():
    source, target, region = sys.argv[1:4]
    data = bytearray(open(source, "rb").read())
    at = offset(bytes(data), region)
    data[at] ^= 0x01
    open(target, "wb").write(bytes(data))


main()
