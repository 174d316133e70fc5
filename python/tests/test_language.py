"""tessera.language constructs: each becomes the tile op docs/python.md names,
and runs on the CPU with the result a numpy reference gives."""
import numpy as np
import pytest

import tessera
import tessera.language as T


def test_symbolic_dims_compile_once_run_any_size(rng):
    M = T.symbolic("M")

    @T.prim_func
    def scale2(A: T.Tensor((M, 64), "float32"), B: T.Tensor((M, 64), "float32")):
        with T.Kernel(T.ceildiv(M, 16), threads=64) as bx:
            a = T.alloc_fragment((16, 64), "float32")
            T.copy(A[bx * 16, 0], a)
            for i, j in T.Parallel(16, 64):
                a[i, j] = a[i, j] * 2.0
            T.copy(a, B[bx * 16, 0])

    kernel = tessera.compile(scale2, out_idx=[1])
    ir = kernel.get_tile_ir()
    assert "!tile.tensor<[M, 64], f32>" in ir
    assert "tile.dim %A, 0" in ir
    for m in (1, 16, 37, 100):
        a = rng.standard_normal((m, 64)).astype(np.float32)
        np.testing.assert_array_equal(kernel(a), a * 2)


def test_dynamic_is_symbolic(rng):
    N = T.dynamic("N")

    @T.prim_func
    def neg(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
            a = T.alloc_fragment((128,), T.float32)
            T.copy(A[bx * 128], a)
            for i in T.Parallel(128):
                a[i] = -a[i]
            T.copy(a, B[bx * 128])

    k = tessera.compile(neg, out_idx=-1)
    a = rng.standard_normal(300).astype(np.float32)
    np.testing.assert_array_equal(k(a), -a)


def test_scalar_params_if_and_serial_loops(rng):
    """Python `if` on a kernel scalar becomes scf.if, range()/T.serial
    become scf.for, and scalar parameters are passed from Python numbers."""
    N = T.symbolic("N")

    @T.prim_func
    def k(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"),
          mode: T.int32, alpha: T.float32):
        with T.Kernel(T.ceildiv(N, 64), threads=64) as bx:
            a = T.alloc_fragment((64,), "float32")
            acc = T.alloc_fragment((64,), "float32")
            T.copy(A[bx * 64], a)
            T.clear(acc)
            if mode == 1:
                for r in range(3):
                    for i in T.Parallel(64):
                        acc[i] += a[i] * alpha
            else:
                for r in T.serial(1, 3):
                    for i in T.Parallel(64):
                        acc[i] += a[i] * r
            T.copy(acc, B[bx * 64])

    kernel = tessera.compile(k, out_idx=[1])
    ir = kernel.get_tile_ir()
    assert "scf.if" in ir and "} else {" in ir and "scf.for" in ir
    a = rng.standard_normal(100).astype(np.float32)
    np.testing.assert_allclose(kernel(a, 1, 0.5), a * 1.5, rtol=1e-6)
    np.testing.assert_allclose(kernel(a, 0, 0.5), a * 3, rtol=1e-6)


def test_math_functions(rng):
    @T.prim_func
    def k(A: T.Tensor((8, 32), "float32"), B: T.Tensor((9, 8, 32), "float32")):
        with T.Kernel(1, threads=32) as bx:
            a = T.alloc_fragment((8, 32), "float32")
            o = T.alloc_fragment((9, 8, 32), "float32")
            T.copy(A[0, 0], a)
            for i, j in T.Parallel(8, 32):
                x = a[i, j]
                o[0, i, j] = T.exp(x)
                o[1, i, j] = T.exp2(x)
                o[2, i, j] = T.log(T.abs(x) + 1)
                o[3, i, j] = T.sqrt(T.abs(x))
                o[4, i, j] = T.rsqrt(T.abs(x) + 1)
                o[5, i, j] = T.tanh(x)
                o[6, i, j] = T.max(x, 0.25) + T.min(x, -0.25)
                o[7, i, j] = T.if_then_else(x > 0, x, 0.5 * x)
                o[8, i, j] = T.cast(T.cast(x * 10, "int32"), "float32")
            T.copy(o, B[0, 0, 0])

    kernel = tessera.compile(k, out_idx=[1])
    a = rng.standard_normal((8, 32)).astype(np.float32)
    got = kernel(a)
    want = [np.exp(a), np.exp2(a), np.log(np.abs(a) + 1), np.sqrt(np.abs(a)),
            1 / np.sqrt(np.abs(a) + 1), np.tanh(a),
            np.maximum(a, 0.25) + np.minimum(a, -0.25),
            np.where(a > 0, a, 0.5 * a), np.trunc(a * 10)]
    for n, w in enumerate(want):
        np.testing.assert_allclose(got[n], w, rtol=1e-5, atol=1e-6,
                                   err_msg="function %d" % n)


def test_gemm_flags_reduce_min_atomic_add(rng):
    """transpose_A/transpose_B/clear_accum, reduce_min, and atomic_add of
    per-block partial products (a split-K GEMM: each block takes 32 of K)."""
    @T.prim_func
    def k(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"),
          C: T.Tensor((32, 32), "float32"), Mn: T.Tensor((2, 32), "float32")):
        # A is stored K x M (transpose_A), B is stored N x K (transpose_B).
        with T.Kernel(2, threads=128) as bk:
            a = T.alloc_shared((32, 32), "float32")
            b = T.alloc_shared((32, 32), "float32")
            c = T.alloc_fragment((32, 32), "float32")
            m = T.alloc_fragment((32,), "float32")
            T.copy(A[bk * 32, 0], a)
            T.copy(B[0, bk * 32], b)
            T.gemm(a, b, c, transpose_A=True, transpose_B=True, clear_accum=True)
            T.atomic_add(C[0, 0], c)
            T.reduce_min(c, m, dim=1)
            T.copy(m, Mn[bk, 0])

    kernel = tessera.compile(k)
    ir = kernel.get_tile_ir()
    assert "transpose_a transpose_b clear" in ir and "tile.atomic add" in ir
    assert "tile.reduce min" in ir
    A = rng.standard_normal((64, 32)).astype(np.float32)
    B = rng.standard_normal((32, 64)).astype(np.float32)
    C = np.zeros((32, 32), np.float32)
    Mn = np.zeros((2, 32), np.float32)
    assert kernel(A, B, C, Mn) is None
    parts = [A[i * 32:(i + 1) * 32].T @ B[:, i * 32:(i + 1) * 32].T
             for i in range(2)]
    np.testing.assert_allclose(C, parts[0] + parts[1], rtol=1e-4, atol=1e-4)
    for i in range(2):
        np.testing.assert_allclose(Mn[i], parts[i].min(axis=1), rtol=1e-4,
                                   atol=1e-4)


def test_local_scalars_and_python_constants(rng):
    """T.alloc_local((1,), dtype) holds a value across an IR loop; Python
    values (closure ints, dtype names, flags) fold at parse time."""
    block = 32
    use_square = True

    @T.prim_func
    def k(A: T.Tensor((block,), "float32"), B: T.Tensor((block,), "float32")):
        with T.Kernel(1, threads=block) as bx:
            a = T.alloc_fragment((block,), "float32")
            s = T.alloc_local((1,), "float32")
            T.copy(A[0], a)
            s[0] = 0.0
            for t in T.serial(4):
                s[0] = s[0] + 1.0
            for i in T.Parallel(block):
                if use_square:
                    a[i] = a[i] * a[i] + s[0]
                else:
                    a[i] = a[i]
            T.copy(a, B[0])

    kernel = tessera.compile(k, out_idx=[1])
    assert "scf.if" not in kernel.get_tile_ir()
    a = rng.standard_normal(block).astype(np.float32)
    np.testing.assert_allclose(kernel(a), a * a + 4, rtol=1e-6)


def test_dtype_names():
    assert T.float16 == "float16" and T.bfloat16 == "bfloat16"
    from tessera.language.dtypes import to_ir
    assert to_ir("float") == "f32" and to_ir(T.float8_e4m3) == "f8E4M3FN"
    assert to_ir("float8_e5m2") == "f8E5M2" and to_ir("int8") == "i8"

    @T.prim_func
    def k(A: T.Tensor((128, 32), T.bfloat16), B: T.Tensor((32, 128), "bfloat16"),
          C: T.Tensor((128, 128), T.float32), X: T.Tensor((128, 128), "float8_e4m3")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_shared((128, 32), "bfloat16")
            b = T.alloc_shared((32, 128), "bfloat16")
            c = T.alloc_fragment((128, 128), "float")
            T.copy(A[0, 0], a)
            T.copy(B[0, 0], b)
            T.gemm(a, b, c, clear_accum=True, policy=T.GemmWarpPolicy.Square)
            T.copy(c, C[0, 0])
            T.copy(c, X[0, 0])

    ir = k.script
    assert "!tile.tile<128x32xbf16, shared>" in ir
    assert "!tile.tensor<[128, 128], f8E4M3FN>" in ir


def test_export_cross_compiles_for_a_gpu(tmp_path):
    """kernel.export writes a bundle with one image per target; no GPU is
    needed to compile for one."""
    import gemm
    kernel = gemm.matmul(256, 256, 256, 128, 128, 32)
    path = str(tmp_path / "k.tsb")
    kernel.export(path, targets=["nvptx64-nvidia-cuda:sm_90a",
                                 tessera.runtime.device("cpu").target])
    data = open(path, "rb").read()
    assert b"nvptx64-nvidia-cuda" in data
    assert tessera.runtime.device("cpu").triple.encode() in data


def test_tile_ir_carries_python_locations():
    @T.prim_func
    def k(A: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=16) as bx:
            a = T.alloc_fragment((16,), "float32")
            T.clear(a)
            T.copy(a, A[0])

    ir = k.script
    assert 'loc("%s":' % __file__ in ir
    assert "tile.kernel blocks(" in ir and "threads = 16" in ir


def test_whole_tensor_copy_and_slices(rng):
    @T.prim_func
    def k(A: T.Tensor((4, 64), "float32"), B: T.Tensor((4, 64), "float32")):
        with T.Kernel(1, threads=64) as bx:
            a = T.alloc_shared((4, 64), "float32")
            f = T.alloc_fragment((4, 64), "float32")
            T.copy(A, a)
            T.copy(a, f)
            T.copy(f, B[0:4, :])

    kernel = tessera.compile(k, out_idx=[1])
    a = rng.standard_normal((4, 64)).astype(np.float32)
    np.testing.assert_array_equal(kernel(a), a)


def test_use_swizzle_sets_the_block_order(rng):
    """T.use_swizzle(panel_size) records tile.raster on the kernel (grouped
    block order), enable=False linear order; the result is the same."""
    def make(panel=None, enable=True):
        @T.prim_func
        def mm(A: T.Tensor((40, 16), "float32"), B: T.Tensor((16, 56), "float32"),
               C: T.Tensor((40, 56), "float32")):
            with T.Kernel(T.ceildiv(56, 8), T.ceildiv(40, 8), threads=32) as (bx, by):
                T.use_swizzle(panel_size=panel, enable=enable)
                a = T.alloc_shared((8, 16), "float32")
                b = T.alloc_shared((16, 8), "float32")
                c = T.alloc_fragment((8, 8), "float32")
                T.copy(A[by * 8, 0], a)
                T.copy(B[0, bx * 8], b)
                T.gemm(a, b, c, clear_accum=True)
                T.copy(c, C[by * 8, bx * 8])
        return tessera.compile(mm, out_idx=[2])

    a = rng.standard_normal((40, 16)).astype(np.float32)
    b = rng.standard_normal((16, 56)).astype(np.float32)
    for kw, attr in (({"panel": 3}, "tile.raster = 3"),
                     ({"panel": 3, "enable": False}, "tile.raster = 1"),
                     ({}, None)):
        k = make(**kw)
        ir = k.get_tile_ir()
        if attr:
            assert attr in ir
        else:
            assert "tile.raster" not in ir
        np.testing.assert_allclose(k(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_fast_math_pass_config(rng):
    """pass_configs={"tl.enable_fast_math": True} (TileLang's key) marks the
    transcendental ops `afn` and float divisions `arcp`; results stay within
    the approximations' error on the CPU."""
    @T.prim_func
    def k(A: T.Tensor((8, 32), "float32"), L: T.Tensor((8,), "float32"),
          B: T.Tensor((8, 32), "float32")):
        with T.Kernel(1, threads=32) as bx:
            a = T.alloc_fragment((8, 32), "float32")
            l = T.alloc_fragment((8,), "float32")
            o = T.alloc_fragment((8, 32), "float32")
            T.copy(A[0, 0], a)
            T.copy(L[0], l)
            for i, j in T.Parallel(8, 32):
                o[i, j] = T.exp2(a[i, j]) / l[i] + T.abs(a[i, j]) // 4.0
            T.copy(o, B[0, 0])

    plain = tessera.compile(k, out_idx=[2])
    fast = tessera.compile(k, out_idx=[2],
                           pass_configs={"tl.enable_fast_math": True})
    assert "fastmath" not in plain.get_kernel_source()
    src = fast.get_kernel_source()
    assert "math.exp2" in src and "fastmath<afn>" in src, src
    # One division gets arcp; the one inside // (floor of a quotient) and
    # the absolute value keep IEEE semantics.
    assert src.count("fastmath<arcp>") == 1, src
    assert src.count("fastmath<afn>") == 1, src
    a = rng.standard_normal((8, 32)).astype(np.float32)
    l = (rng.random(8) + 0.5).astype(np.float32)
    want = np.exp2(a) / l[:, None] + np.abs(a) // 4.0
    np.testing.assert_allclose(plain(a, l), want, rtol=1e-6)
    np.testing.assert_allclose(fast(a, l), want, rtol=1e-5)

    @tessera.jit(out_idx=[-1], pass_configs={"tl.enable_fast_math": True})
    def build(n):
        return k
    assert "fastmath<arcp>" in build(1).get_kernel_source()
