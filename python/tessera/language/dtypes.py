"""Element types: TileLang's dtype spellings and the tile dialect's types."""

import struct

__all__ = ["DType", "to_ir", "from_ir", "is_float", "is_int"]

# TileLang / TVM spelling -> MLIR element type of the tile dialect.
_ALIASES = {
    "float16": "f16", "half": "f16", "fp16": "f16",
    "bfloat16": "bf16", "bf16": "bf16",
    "float32": "f32", "float": "f32", "fp32": "f32",
    "float64": "f64", "double": "f64", "fp64": "f64",
    "float8_e4m3": "f8E4M3FN", "float8_e4m3fn": "f8E4M3FN",
    "e4m3_float8": "f8E4M3FN", "fp8_e4m3": "f8E4M3FN",
    "float8_e5m2": "f8E5M2", "e5m2_float8": "f8E5M2", "fp8_e5m2": "f8E5M2",
    "bool": "i1",
    "int8": "i8", "int16": "i16", "int32": "i32", "int": "i32",
    "int64": "i64",
}
_IR_TYPES = {"f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "i1", "i8",
             "i16", "i32", "i64", "index"}
# The canonical TileLang name of each IR type (what `.dtype` reports).
_CANONICAL = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
              "f64": "float64", "f8E4M3FN": "float8_e4m3",
              "f8E5M2": "float8_e5m2", "i1": "bool", "i8": "int8",
              "i16": "int16", "i32": "int32", "i64": "int64",
              "index": "int64"}
# The runtime's tessera_dtype_t codes (tessera/runtime.h).
RUNTIME_CODE = {"f16": 0, "bf16": 1, "f32": 2, "f64": 3, "f8E4M3FN": 4,
                "f8E5M2": 5, "i1": 6, "i8": 7, "i16": 8, "i32": 9, "i64": 10,
                "index": 11}
BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f8E4M3FN": 8,
        "f8E5M2": 8, "i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
        "index": 64}


class DType(str):
    """A dtype name (``T.float16`` is ``DType("float16")``); a str, so it goes
    wherever TileLang takes a dtype string. Calling it inside a kernel casts:
    ``T.float32(x)``."""

    def __call__(self, value):  # only meaningful inside a kernel (parsed)
        raise TypeError("T.%s(...) casts inside a @T.prim_func only" % self)

    @property
    def ir(self):
        return to_ir(self)


def to_ir(dtype):
    """The IR type of a dtype string; ValueError for an unknown one."""
    if not isinstance(dtype, str):
        raise ValueError("a dtype must be a string such as 'float16', got %r"
                         % (dtype,))
    if dtype in _IR_TYPES:
        return dtype
    ir = _ALIASES.get(dtype)
    if ir is None:
        known = ", ".join(sorted(k for k in _ALIASES if "_" in k or
                                 k.startswith(("float", "int", "bf"))))
        raise ValueError("unknown dtype %r (known: %s)" % (dtype, known))
    return ir


def from_ir(ir):
    return DType(_CANONICAL[ir])


def is_float(ir):
    return ir.startswith(("f", "bf"))


def is_int(ir):
    return ir.startswith("i")


def float_literal(value, ir):
    """An arith.constant literal for `value` in float type `ir`, as the exact
    bit pattern (also right for inf and nan), or None when the type has no
    Python packing (fp8: the caller converts from f32)."""
    if ir == "f32":
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", value))[0]
    if ir == "f64":
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    if ir == "f16":
        try:
            bits = struct.unpack("<H", struct.pack("<e", value))[0]
        except OverflowError:
            bits = 0x7C00 if value > 0 else 0xFC00
        return "0x%04X" % bits
    if ir == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        if (bits & 0x7F800000) != 0x7F800000:  # round to nearest even
            bits += 0x7FFF + ((bits >> 16) & 1)
        return "0x%04X" % ((bits >> 16) & 0xFFFF)
    return None
