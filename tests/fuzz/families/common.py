"""Helpers shared by the program families of gen_tile_programs.py (IR text
only; scalar_oracle.py shares nothing with them)."""
import struct

# Tensor sizes the programs run on: 1, 2, primes and non-multiples of every
# tile, a few multiples.
SIZES = [1, 2, 17, 31, 64, 97, 128, 131, 200, 257]

LOG2E = 1.4426950408889634

NEG_INF = "0xFF800000"
POS_INF = "0x7F800000"


def f32_bits(x):
    """The f32 nearest x as the hexadecimal literal `arith.constant` takes,
    so that the kernel and the oracle use the very same value."""
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", x))[0]


def f32(x):
    """x rounded to f32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def elt_bytes(dtype):
    return {"f16": 2, "bf16": 2, "f32": 4}[dtype]


def ceildiv(a, b):
    return -(-a // b)


def tile_t(shape, dtype, space):
    return "!tile.tile<%sx%s, %s>" % ("x".join(str(s) for s in shape), dtype, space)


def tensor_t(dims, dtype):
    return "!tile.tensor<[%s], %s>" % (", ".join(str(d) for d in dims), dtype)


class Lines:
    """IR text with the index constants it needs declared once."""

    def __init__(self):
        self.body = []
        self.consts = set()

    def __call__(self, text):
        self.body.append(text)

    def c(self, v):
        """The SSA name of the index constant v (declared by `text`)."""
        self.consts.add(v)
        return "%%c%d" % v

    def text(self, header, signature):
        out = list(header)
        out.append(signature)
        for v in sorted(self.consts):
            out.append("  %%c%d = arith.constant %d : index" % (v, v))
        out += self.body
        return "\n".join(out) + "\n"


def halve_choices(d, keys, lo):
    """Candidates with one of `keys` (tile sizes) halved, not below lo."""
    for k in keys:
        if d[k] // 2 >= lo:
            c = dict(d)
            c[k] = d[k] // 2
            yield c


def shrink_shape_choices(d, names):
    """Candidates with one symbol of the first shape made smaller: 1, half,
    or the next smaller size of SIZES; the shape list reduced to that one."""
    sh = d["shapes"][0]
    for n in names:
        v = sh[n]
        for nv in sorted({1, v // 2, max([s for s in SIZES if s < v] or [1])}):
            if 1 <= nv < v:
                c = dict(d)
                c["shapes"] = [dict(sh, **{n: nv})]
                yield c
