"""tessera.language: TileLang's kernel language on tessera's compiler.

    import tessera.language as T

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), ...):
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
            A_shared = T.alloc_shared((128, 32), "float16")
            ...

The names below carry TileLang's meanings. They are markers: a
``@T.prim_func``'s body is never executed; its AST is read and turned into
tile-dialect IR (``tessera.frontend``), so Python ``for``/``if`` over kernel
values become IR loops and branches while Python values (ints, dtypes, flags)
are constants at parse time. Calling one of them outside a prim_func raises.
See docs/python.md for the table of names and the tile op each becomes.
"""

from .dtypes import DType

__all__ = [
    "prim_func", "PrimFunc", "Tensor", "Buffer", "symbolic", "dynamic",
    "Kernel", "alloc_shared", "alloc_fragment", "alloc_local", "copy", "gemm",
    "clear", "fill", "Parallel", "Pipelined", "serial", "unroll",
    "reduce_max", "reduce_sum", "reduce_min", "atomic_add", "atomic_max",
    "ceildiv", "max", "min", "exp", "exp2", "log", "log2", "sqrt", "rsqrt",
    "tanh", "abs", "floor", "ceil", "if_then_else", "infinity", "cast",
    "use_swizzle", "GemmWarpPolicy",
]

# ----------------------------------------------------------------- dtypes
float16 = DType("float16")
half = float16
bfloat16 = DType("bfloat16")
float32 = DType("float32")
float = float32  # noqa: A001 - TileLang spells it T.float32; "float" too
float64 = DType("float64")
double = float64
float8_e4m3 = DType("float8_e4m3")
float8_e4m3fn = float8_e4m3
float8_e5m2 = DType("float8_e5m2")
int8 = DType("int8")
int16 = DType("int16")
int32 = DType("int32")
int64 = DType("int64")
bool = DType("bool")  # noqa: A001


# ------------------------------------------------------ signature objects
class Symbol:
    """A symbolic dimension (``T.symbolic("M")``): bound at launch from the
    shape of the tensor argument it appears in; one compiled kernel serves
    every size."""

    def __init__(self, name, dtype="int32"):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError("a symbolic dimension needs an identifier name, "
                             "got %r" % (name,))
        self.name = name
        self.dtype = dtype

    def __repr__(self):
        return "T.symbolic(%r)" % self.name


def symbolic(name, dtype="int32"):
    """A symbolic dimension (TileLang's ``T.symbolic``)."""
    return Symbol(name, dtype)


def dynamic(name, dtype="int32"):
    """TileLang's ``T.dynamic``: the same as ``T.symbolic`` here."""
    return Symbol(name, dtype)


class TensorAnnotation:
    """``T.Tensor(shape, dtype)``: a global tensor parameter's type."""

    def __init__(self, shape, dtype):
        from .. import _caller_error
        if isinstance(shape, (int, Symbol)):
            shape = (shape,)
        try:
            shape = tuple(shape)
        except TypeError:
            raise _caller_error("T.Tensor: the shape must be a tuple of ints "
                                "and T.symbolic dims, got %r" % (shape,))
        for d in shape:
            ok = isinstance(d, Symbol) or (isinstance(d, int) and
                                           not isinstance(d, type(True)))
            if not ok or (isinstance(d, int) and d <= 0):
                raise _caller_error(
                    "T.Tensor: dimension %r is neither a positive int nor a "
                    "T.symbolic / T.dynamic dim" % (d,))
        if not 1 <= len(shape) <= 4:
            raise _caller_error("T.Tensor: rank %d; tessera tensors have "
                                "rank 1 to 4" % len(shape))
        try:
            self.ir_dtype = DType(dtype).ir
        except ValueError as e:
            raise _caller_error("T.Tensor: %s" % e)
        self.shape = shape
        self.dtype = DType(dtype)

    def __repr__(self):
        return "T.Tensor(%r, %r)" % (self.shape, str(self.dtype))


def Tensor(shape, dtype="float32"):
    """A global tensor parameter: ``A: T.Tensor((M, K), "float16")``."""
    return TensorAnnotation(shape, dtype)


Buffer = Tensor


class PrimFunc:
    """A parsed ``@T.prim_func``: its tile IR and its parameters."""

    def __init__(self, func):
        from ..frontend.parser import parse_prim_func
        self.func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        parsed = parse_prim_func(func)
        self.name = parsed.name
        self.params = parsed.params
        self.script = parsed.text
        self.filename = parsed.filename
        self.lineno = parsed.lineno

    def fast_math_script(self):
        """The tile IR with TileLang's "tl.enable_fast_math" applied
        (parsed again from the function, once)."""
        if getattr(self, "_fast_script", None) is None:
            from ..frontend.parser import parse_prim_func
            self._fast_script = parse_prim_func(self.func,
                                                fast_math=True).text
        return self._fast_script

    def __call__(self, *args, **kwargs):
        raise TypeError("a T.prim_func is compiled, not called: use "
                        "tessera.compile(func, out_idx=...) or @tessera.jit")

    def __repr__(self):
        return "<T.prim_func %s at %s:%d>" % (self.name, self.filename,
                                              self.lineno)


def prim_func(func):
    """Reads a kernel function into tile IR (TileLang's ``T.prim_func``)."""
    return PrimFunc(func)


# ------------------------------------------------------------- builtins
# Each is a marker the parser dispatches on by identity.
BUILTINS = {}


def _builtin(fn):
    name = fn.__name__

    def marker(*args, **kwargs):
        raise TypeError("T.%s is only meaningful inside a @T.prim_func "
                        "(its body is parsed, not run)" % name)

    marker.__name__ = name
    marker.__qualname__ = name
    marker.__doc__ = fn.__doc__
    BUILTINS[marker] = name
    return marker


@_builtin
def Kernel(*grid, threads=128, **kwargs):
    """``with T.Kernel(gx[, gy[, gz]], threads=n) as (bx, by, bz)``: a grid of
    blocks (``tile.kernel``)."""


@_builtin
def alloc_shared(shape, dtype, scope="shared.dyn"):
    """A tile in shared memory (``tile.alloc : !tile.tile<..., shared>``)."""


@_builtin
def alloc_fragment(shape, dtype, scope="local.fragment"):
    """A register tile spread over the block's threads (``fragment``)."""


@_builtin
def alloc_local(shape, dtype, scope="local"):
    """A per-thread tile (``local``)."""


@_builtin
def copy(src, dst):
    """``tile.copy`` between a tensor region (``A[r, c]`` origin or slices)
    and a tile, or between tiles."""


@_builtin
def gemm(A, B, C, transpose_A=False, transpose_B=False, policy=None,
         clear_accum=False, k_pack=1, wg_wait=0):
    """``tile.gemm``: C += op(A) op(B)."""


@_builtin
def clear(buffer):
    """``tile.clear``."""


@_builtin
def fill(buffer, value):
    """``tile.fill``."""


@_builtin
def Parallel(*extents):
    """``for i, j in T.Parallel(M, N)``: a ``tile.parallel`` region."""


@_builtin
def Pipelined(*args, num_stages=1, **kwargs):
    """``for k in T.Pipelined(n, num_stages=3)``: a ``tile.pipelined`` loop."""


@_builtin
def serial(*args):
    """``for k in T.serial(n)``: a sequential ``scf.for`` loop."""


@_builtin
def unroll(*args):
    """``for k in T.unroll(n)``: a sequential loop (LLVM decides unrolling)."""


@_builtin
def reduce_max(buffer, out, dim=-1, clear=True):
    """``tile.reduce max``; ``clear=False`` keeps out's values in the max."""


@_builtin
def reduce_sum(buffer, out, dim=-1, clear=True):
    """``tile.reduce sum``."""


@_builtin
def reduce_min(buffer, out, dim=-1, clear=True):
    """``tile.reduce min``."""


@_builtin
def atomic_add(dst, value):
    """``tile.atomic add`` of a tile into a tensor region."""


@_builtin
def atomic_max(dst, value):
    """``tile.atomic max`` of a tile into a tensor region."""


@_builtin
def ceildiv(a, b):
    """(a + b - 1) // b; a Python int when both are."""


@_builtin
def max(a, b):  # noqa: A001
    """arith.maximumf / maxsi."""


@_builtin
def min(a, b):  # noqa: A001
    """arith.minimumf / minsi."""


@_builtin
def exp(x):
    """math.exp."""


@_builtin
def exp2(x):
    """math.exp2."""


@_builtin
def log(x):
    """math.log."""


@_builtin
def log2(x):
    """math.log2."""


@_builtin
def sqrt(x):
    """math.sqrt."""


@_builtin
def rsqrt(x):
    """math.rsqrt."""


@_builtin
def tanh(x):
    """math.tanh."""


@_builtin
def abs(x):  # noqa: A001
    """math.absf / absi."""


@_builtin
def floor(x):
    """math.floor."""


@_builtin
def ceil(x):
    """math.ceil."""


@_builtin
def if_then_else(cond, then_value, else_value):
    """arith.select."""


@_builtin
def infinity(dtype):
    """+inf of a float dtype (negate it for -inf)."""


@_builtin
def cast(value, dtype):
    """Converts a scalar to dtype (arith ext/trunc/itofp/fptoi)."""


@_builtin
def use_swizzle(panel_size=None, order="row", enable=True):
    """Block order: panel_size block rows walked together down each column
    (tile.raster = panel_size); enable=False keeps linear order; without
    panel_size the raster-order pass chooses. `order` is accepted."""


class GemmWarpPolicy:
    """Accepted for TileLang compatibility; tessera's layout inference picks
    the warp grid from the target's MMA atoms."""
    Square = "Square"
    FullRow = "FullRow"
    FullCol = "FullCol"
