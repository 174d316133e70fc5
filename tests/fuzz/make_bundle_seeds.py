"""Writes the bundle fuzzer's seed corpus, tests/fuzz/seeds/bundle/.

    python3 tests/fuzz/make_bundle_seeds.py [tessera]

Bundles are written from docs/bundle.md (OffloadBinary layout, format 2
integrity strings computed with hashlib), independently of the C++ writer;
with the path of a built `tessera` the compiled examples are added too.
Kernel metadata and grid formulas are seeds as plain text.
"""
import hashlib
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "seeds", "bundle")
ROOT = os.path.dirname(os.path.dirname(HERE))

KERNELS = """[[kernel]]
name = "gemm"
symbol = "tessera_kernel_gemm"
threads = 128
shared_bytes = 0
grid = ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"]
[[kernel.arg]]
name = "A"
kind = "tensor"
dtype = "f16"
dims = ["M", "K"]
[[kernel.arg]]
name = "B"
kind = "tensor"
dtype = "f16"
dims = ["K", "N"]
[[kernel.arg]]
name = "C"
kind = "tensor"
dtype = "f32"
dims = ["M", "N"]
[[kernel.arg]]
name = "alpha"
kind = "scalar"
dtype = "f32"
dims = []
"""


def sha(data):
    return hashlib.sha256(data).hexdigest()


def binary(kind, offload, strings, image, integrity=True, index=0, count=1):
    strings = list(strings)
    if integrity:
        kernels = dict(strings).get("tessera.kernels", "")
        strings += [("tessera.format", "2"),
                    ("tessera.image.index", str(index)),
                    ("tessera.image.count", str(count)),
                    ("tessera.image.sha256", sha(image)),
                    ("tessera.kernels.sha256", sha(kernels.encode())),
                    ("tessera.sha256", "0" * 64)]
    table = b"\0"
    offsets = []
    for key, value in strings:
        k = len(table)
        table += key.encode() + b"\0"
        offsets.append((k, len(table)))
        table += value.encode() + b"\0"
    table_start = 72 + 16 * len(strings)
    image_offset = (table_start + len(table) + 7) // 8 * 8
    size = (image_offset + len(image) + 7) // 8 * 8
    out = bytearray(b"\x10\xff\x10\xad")
    out += struct.pack("<IQQQ", 1, size, 32, 40)
    out += struct.pack("<HHIQQQQ", kind, offload, 0, 72, len(strings),
                       image_offset, len(image))
    for k, v in offsets:
        out += struct.pack("<QQ", table_start + k, table_start + v)
    out += table
    out += b"\0" * (image_offset - len(out))
    out += image
    out += b"\0" * (size - len(out))
    if integrity:
        value_at = table_start + offsets[-1][1]
        hashed = bytes(out[:image_offset]) + bytes(out[image_offset + len(image):])
        out[value_at:value_at + 64] = sha(hashed).encode()
    return bytes(out)


def image_strings(triple, arch, kernels=KERNELS):
    return [("triple", triple), ("arch", arch), ("tessera.kernels", kernels),
            ("tessera.version", "0.1.0")]


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def main():
    os.makedirs(OUT, exist_ok=True)
    elf = b"\x7fELF\x02\x01\x01" + b"\0" * 57
    kinds = [  # image kind, offload kind, triple, arch, bytes
        (1, 1, "x86_64-unknown-linux-gnu", "x86-64-v3", elf),
        (1, 4, "amdgcn-amd-amdhsa", "gfx942", elf),
        (3, 2, "nvptx64-nvidia-cuda", "sm_90a", elf),
        (5, 2, "nvptx64-nvidia-cuda", "sm_80",
         b".version 8.0\n.target sm_80\n.address_size 64\n"),
        (6, 0, "spirv64-unknown-vulkan1.3", "vulkan1.3",
         b"\x03\x02\x23\x07\x00\x00\x01\x00" * 4),
    ]
    write("host.tsb", binary(1, 1, image_strings(*kinds[0][2:4]), elf))
    write("every_kind.tsb", b"".join(
        binary(k, o, image_strings(t, a), data, index=i, count=len(kinds))
        for i, (k, o, t, a, data) in enumerate(kinds)))
    write("no_kernels.tsb", binary(5, 2, [("triple", "nvptx64-nvidia-cuda"),
                                          ("arch", "sm_90a")], b"ptx"))
    write("empty_image.tsb", binary(1, 1, image_strings(*kinds[0][2:4]), b""))
    write("format1.tsb", binary(1, 1, image_strings(*kinds[0][2:4]), elf,
                                integrity=False))
    write("kernels.toml", KERNELS)
    write("kernels_dims.toml", KERNELS.replace('"M", "K"', '"?", "64"')
          .replace("ceildiv(N, 128)", "dim(0, 1) / 4 + max(M, 1) % 3"))
    for i, formula in enumerate(["ceildiv(N, 128)",
                                 "min(max(M, N) * 2, -(K - 1)) % 7",
                                 "dim(1, 0) / (N + 1)",
                                 "((((1))))"]):
        write("grid%d.txt" % i, formula)
    if len(sys.argv) > 1:
        with tempfile.TemporaryDirectory() as tmp:
            for example in ["gemm", "softmax"]:
                out = os.path.join(tmp, example + ".tsb")
                subprocess.check_call([sys.argv[1], "compile", "--no-cache",
                                       os.path.join(ROOT, "examples",
                                                    example + ".mlir"),
                                       "-o", out])
                with open(out, "rb") as f:
                    write("compiled_%s.tsb" % example, f.read())


main()
