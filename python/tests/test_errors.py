"""Bad input is a Python exception naming the author's file and line, never
a crash: frontend errors (TesseraError), C++ verifier errors (CompileError,
positions from the IR's locations) and launch errors (LaunchError)."""
import inspect

import numpy as np
import pytest

import tessera
import tessera.language as T


def line_of(marker):
    """The line of this file that holds `marker` (in a comment)."""
    src = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    hits = [i + 1 for i, l in enumerate(src) if "# " + marker in l]
    assert len(hits) == 1, marker
    return hits[0]


def assert_points_here(err, marker):
    assert err.filename == __file__
    assert err.lineno == line_of(marker)
    assert "%s:%d:" % (__file__, line_of(marker)) in str(err)


def test_wrong_dtype_string_in_tensor_annotation():
    with pytest.raises(tessera.TesseraError) as e:
        @T.prim_func
        def k(A: T.Tensor((16,), "flaot16")):  # BAD-TENSOR-DTYPE
            pass
    assert_points_here(e.value, "BAD-TENSOR-DTYPE")
    assert "unknown dtype 'flaot16'" in str(e.value)


def test_wrong_dtype_string_in_alloc():
    with pytest.raises(tessera.TesseraError) as e:
        @T.prim_func
        def k(A: T.Tensor((16,), "float16")):
            with T.Kernel(1, threads=32) as bx:
                a = T.alloc_fragment((16,), "float17")  # BAD-ALLOC-DTYPE
                T.copy(A[0], a)
    assert_points_here(e.value, "BAD-ALLOC-DTYPE")
    assert "float17" in str(e.value)


def test_gemm_shape_mismatch_is_a_verifier_error_at_the_gemm_line():
    @T.prim_func
    def k(A: T.Tensor((128, 64), "float16"), C: T.Tensor((128, 128), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_shared((128, 64), "float16")
            b = T.alloc_shared((32, 128), "float16")
            c = T.alloc_fragment((128, 128), "float32")
            T.copy(A[0, 0], a)
            T.gemm(a, b, c)  # GEMM-MISMATCH
            T.copy(c, C[0, 0])

    with pytest.raises(tessera.CompileError) as e:
        tessera.compile(k)
    assert_points_here(e.value, "GEMM-MISMATCH")
    assert "'tile.gemm' op reduction dimension mismatch" in str(e.value)


def test_copy_inside_parallel_is_rejected_by_the_verifier():
    @T.prim_func
    def k(A: T.Tensor((128,), "float32"), C: T.Tensor((128,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((128,), "float32")
            for i in T.Parallel(128):
                T.copy(A[0], a)  # COPY-IN-PARALLEL
            T.copy(a, C[0])

    with pytest.raises(tessera.CompileError) as e:
        tessera.compile(k)
    assert_points_here(e.value, "COPY-IN-PARALLEL")
    assert "not allowed inside 'tile.parallel'" in str(e.value)


def test_global_element_access_inside_parallel():
    with pytest.raises(tessera.TesseraError) as e:
        @T.prim_func
        def k(A: T.Tensor((128,), "float32"), C: T.Tensor((128,), "float32")):
            with T.Kernel(1, threads=128) as bx:
                a = T.alloc_fragment((128,), "float32")
                for i in T.Parallel(128):
                    a[i] = A[i] + 1.0  # GLOBAL-READ
                T.copy(a, C[0])
    assert_points_here(e.value, "GLOBAL-READ")
    assert "T.copy" in str(e.value)


def test_unknown_language_name():
    with pytest.raises(tessera.TesseraError) as e:
        @T.prim_func
        def k(A: T.Tensor((128,), "float32")):
            with T.Kernel(1, threads=128) as bx:
                T.no_such_op(A)  # UNKNOWN-NAME
    assert_points_here(e.value, "UNKNOWN-NAME")
    assert "T.no_such_op is not part of tessera.language" in str(e.value)


def test_kernel_value_where_a_constant_is_needed():
    with pytest.raises(tessera.TesseraError) as e:
        @T.prim_func
        def k(A: T.Tensor((128,), "float32")):
            with T.Kernel(1, threads=128) as bx:
                a = T.alloc_fragment((bx,), "float32")  # DYNAMIC-SHAPE
    assert_points_here(e.value, "DYNAMIC-SHAPE")


def test_value_escaping_an_ir_loop():
    with pytest.raises(tessera.TesseraError) as e:
        @T.prim_func
        def k(A: T.Tensor((128,), "float32")):
            with T.Kernel(1, threads=128) as bx:
                x = bx * 2
                for t in T.serial(4):
                    x = x + t  # ESCAPES-LOOP
    assert_points_here(e.value, "ESCAPES-LOOP")
    assert "T.alloc_local" in str(e.value)


@pytest.fixture(scope="module")
def add_kernel():
    N = T.symbolic("N")

    @T.prim_func
    def add(A: T.Tensor((N, 64), "float32"), B: T.Tensor((N, 64), "float32"),
            C: T.Tensor((N, 64), "float32")):
        with T.Kernel(T.ceildiv(N, 16), threads=64) as bx:
            a = T.alloc_fragment((16, 64), "float32")
            b = T.alloc_fragment((16, 64), "float32")
            T.copy(A[bx * 16, 0], a)
            T.copy(B[bx * 16, 0], b)
            for i, j in T.Parallel(16, 64):
                a[i, j] += b[i, j]
            T.copy(a, C[bx * 16, 0])

    return tessera.compile(add, out_idx=[-1])


def shape_error(e, tag):
    """The launch refused N = 11 against N = 10, naming the line marked
    `tag` in this file; returns the message."""
    msg = str(e.value)
    assert "dimension N is 10" in msg and "11" in msg
    assert "%s:%d:" % (__file__, line_of(tag)) in msg
    assert e.value.lineno == line_of(tag)
    return msg


def test_wrong_shape_at_call_time(add_kernel):
    a = np.zeros((10, 64), np.float32)
    with pytest.raises(tessera.LaunchError) as e:
        add_kernel(a, np.zeros((11, 64), np.float32))  # CALL-SHAPE
    msg = shape_error(e, "CALL-SHAPE")
    assert "kernel 'add' (%s:" % __file__ in msg
    with pytest.raises(tessera.LaunchError) as e:
        add_kernel(a, np.zeros((10, 32), np.float32))
    assert "64" in str(e.value)


def test_errors_after_the_fast_path_took_over(add_kernel):
    """Once a call succeeded, calls run in C++ (tessera._runtime.FastCall):
    its outputs follow the inputs' symbolic dims, and the runtime's refusals
    still name the caller's line."""
    for n in (10, 33, 10):
        a = np.full((n, 64), 1.5, np.float32)
        b = np.full((n, 64), 2.0, np.float32)
        c = add_kernel(a, b)
        assert c.shape == (n, 64)
        np.testing.assert_array_equal(c, a + b)
    assert add_kernel._fast_run((a, b)) is not tessera._jit._SLOW
    with pytest.raises(tessera.LaunchError) as e:
        add_kernel(a, np.zeros((11, 64), np.float32))  # FAST-SHAPE
    shape_error(e, "FAST-SHAPE")
    with pytest.raises(tessera.LaunchError, match="f32.*f64|f64.*f32"):
        add_kernel(a, np.zeros((10, 64), np.float64))
    with pytest.raises(tessera.LaunchError, match="compact row-major"):
        add_kernel(a, np.zeros((64, 10), np.float32).T)
    # Not a tensor: left to the Python path, which says so.
    with pytest.raises(tessera.LaunchError, match="must be a tensor"):
        add_kernel(a, [1.0])


def test_wrong_dtype_at_call_time(add_kernel):
    a = np.zeros((10, 64), np.float32)
    with pytest.raises(tessera.LaunchError) as e:
        add_kernel(a, np.zeros((10, 64), np.float64))
    assert "f32" in str(e.value) and "f64" in str(e.value)


def test_wrong_argument_kind_and_count(add_kernel):
    a = np.zeros((10, 64), np.float32)
    with pytest.raises(tessera.LaunchError) as e:
        add_kernel(a, [1.0, 2.0])
    assert "must be a tensor" in str(e.value)
    with pytest.raises(TypeError):
        add_kernel(a)


def test_non_contiguous_array_is_refused(add_kernel):
    a = np.zeros((10, 128), np.float32)[:, ::2]
    with pytest.raises((tessera.LaunchError, BufferError)):
        add_kernel(a, a)


def test_wrong_device_at_call_time(add_kernel):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("skipped: no CUDA device")
    a = torch.zeros((10, 64), device="cuda")
    with pytest.raises(tessera.LaunchError) as e:
        add_kernel(a, torch.zeros((10, 64)))
    assert "earlier tensors are on cuda" in str(e.value)
