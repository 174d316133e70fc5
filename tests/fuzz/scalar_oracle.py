"""The independent oracle of gen_tile_programs.py: a random program's result
computed with plain numpy loops over the program's description (not its tile
IR), compared with what the compiled kernel writes on the CPU device.

It shares nothing with the compiler or the tile interpreter: the GEMM is a
float64 matrix product, the epilogue the listed element-wise ops in float64,
the reduction a float64 sum or max over the block the kernel reduces (rows or
columns past the tensor hold the epilogue of zeros, as the program says).
Inputs are multiples of 1/4 in [-1, 1], exact in f16 and f32, so only the
kernel's f32 accumulation, its exp and the output rounding differ.

Runs programs whose tensors are f16 or f32 (numpy has no bf16); others are
skipped. Needs the Python package (`tessera` on PYTHONPATH) and numpy.
"""
import math

import numpy as np

# Relative 2-norm tolerances: f32 accumulation of up to 257 exact products,
# exp with a few ulps; an f16 output adds one f16 rounding (2^-11).
TOL = {"f32": 1e-5, "f16": 2e-3}


def _epilogue(prog, x, rb, cb):
    """The program's element-wise ops on x (float64, [rows, cols]); rb, cb
    the row and column biases as the block sees them."""
    for idx, op in enumerate(prog.ops):
        c = prog.constants[idx]
        if op == "scale":
            x = x * c
        elif op == "relu":
            x = np.maximum(x, 0.0)
        elif op == "max":
            x = np.maximum(x, c)
        elif op == "min":
            x = np.minimum(x, c)
        elif op == "rowbias":
            x = x + rb[:, None]
        elif op == "colbias":
            x = x + cb[None, :]
        elif op == "expneg":
            x = np.exp(-np.abs(x) / 8.0)
    return x


def _rel(got, want):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if not np.all(np.isfinite(got)):
        return math.inf
    den = float(np.sqrt(np.sum(want * want)))
    num = float(np.sqrt(np.sum((got - want) ** 2)))
    return num / den if den > 0 else num


def check(prog, bundle_path, shapes, seed):
    """None when the kernel agrees with the oracle, a reason when it does
    not, "skip: ..." for programs the oracle does not cover."""
    if prog.dtype == "bf16" or prog.out == "bf16":
        return "skip: bf16 has no numpy type"
    import tessera.runtime as rt

    npt = {"f16": np.float16, "f32": np.float32}
    rng = np.random.default_rng(seed)
    M, N, K = shapes["M"], shapes["N"], shapes["K"]
    q = lambda shape: rng.integers(-4, 5, size=shape).astype(np.float64) / 4.0
    a = q((K, M) if prog.ta else (M, K))
    b = q((N, K) if prog.tb else (K, N))
    rb, cb = q((M,)), q((N,))
    c_out = np.full((M, N), np.nan, dtype=npt[prog.out])
    args = [a.astype(npt[prog.dtype]), b.astype(npt[prog.dtype])]
    if "rowbias" in prog.ops:
        args.append(rb.astype(np.float32))
    if "colbias" in prog.ops:
        args.append(cb.astype(np.float32))
    args.append(c_out)
    r_out = None
    if prog.reduce:
        r_out = np.full((N if prog.reduce[1] == 0 else M,), np.nan, np.float32)
        args.append(r_out)

    bundle = rt.load_bundle(bundle_path, rt.device("cpu"))
    bundle.kernel("rand", ["tensor"] * len(args))(*args)

    am = a.T if prog.ta else a
    bm_ = b.T if prog.tb else b
    want = _epilogue(prog, am @ bm_, rb, cb)
    err = _rel(c_out, want)
    if err > TOL[prog.out]:
        return f"oracle: C differs, relative error {err:.3g}"
    if prog.reduce:
        kind, dim = prog.reduce
        # The block's tile: M <= bm rows (dim 0) or N <= bn columns (dim 1)
        # exist; the rest of the tile holds the epilogue of zeros.
        if dim == 0:
            ext = np.zeros((prog.bm, N))
            ext[:M] = am @ bm_
            rbe = np.zeros(prog.bm)
            rbe[:M] = rb
            tile = _epilogue(prog, ext, rbe, cb)
            red = tile.sum(axis=0) if kind == "sum" else tile.max(axis=0)
        else:
            ext = np.zeros((M, prog.bn))
            ext[:, :N] = am @ bm_
            cbe = np.zeros(prog.bn)
            cbe[:N] = cb
            tile = _epilogue(prog, ext, rb, cbe)
            red = tile.sum(axis=1) if kind == "sum" else tile.max(axis=1)
        err = _rel(r_out, red)
        if err > 1e-5:
            return f"oracle: R differs, relative error {err:.3g}"
    return None
