"""The TileLang programs of python/examples: each runs on the CPU against an
independent numpy reference (the examples' own main()), and its result
matches the matching examples/*.mlir kernel's run on the same inputs."""
import os

import numpy as np
import pytest

import tessera
from tessera._jit import compile_tile_ir

from conftest import ROOT


def mlir_kernel(name, kernel, signature):
    """examples/<name>.mlir compiled for the CPU and loaded."""
    with open(os.path.join(ROOT, "examples", name + ".mlir")) as f:
        text = f.read()
    bundle = tessera.runtime.load_bundle(compile_tile_ir(text))
    return bundle.kernel(kernel, signature)


@pytest.mark.parametrize("example", ["gemm", "elementwise_add", "softmax",
                                     "rmsnorm", "flash_attention"])
def test_example_main_runs(example):
    mod = __import__(example)
    mod.main()


def test_gemm_matches_gemm_relu_mlir(rng):
    import gemm
    M, N, K = 200, 136, 72
    kernel = gemm.matmul(M, N, K, 128, 128, 32)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = kernel(a, b)
    c_ref = np.empty_like(c)
    mlir_kernel("gemm_relu", "gemm_relu", ["tensor"] * 3)(a, b, c_ref)
    np.testing.assert_allclose(c.astype(np.float32), c_ref.astype(np.float32),
                               rtol=2e-3, atol=2e-3)


def test_elementwise_add_matches_mlir(rng):
    import elementwise_add
    M, N = 77, 130
    kernel = elementwise_add.elementwise_add(M, N, 32, 32, "float32",
                                             "float32", 128)
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = rng.standard_normal((M, N)).astype(np.float32)
    c = kernel(a, b)
    c_ref = np.empty(M * N, np.float32)
    mlir_kernel("elementwise_add", "elementwise_add", ["tensor"] * 3)(
        a.reshape(-1), b.reshape(-1), c_ref)
    np.testing.assert_array_equal(c.reshape(-1), c_ref)


def test_softmax_matches_mlir(rng):
    import softmax
    M, N = 9, 2100
    kernel = softmax.softmax(M, N)
    x = (rng.standard_normal((M, N)) * 3).astype(np.float32)
    y = kernel(x)
    y_ref = np.empty_like(y)
    mlir_kernel("softmax", "softmax", ["tensor"] * 2)(x, y_ref)
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-7)


def test_rmsnorm_matches_mlir(rng):
    import rmsnorm
    M, N = 7, 1100
    kernel = rmsnorm.rms_norm(M, N, eps=1e-5)
    x = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.standard_normal((N,)).astype(np.float32)
    y = kernel(x, w)
    y_ref = np.empty_like(y)
    mlir_kernel("rmsnorm", "rmsnorm", ["tensor"] * 3 + ["float32"])(
        x, w, y_ref, 1e-5)
    np.testing.assert_allclose(y, y_ref, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("is_causal,seq_len", [(True, 128), (False, 96)])
def test_flash_attention_matches_mlir(rng, is_causal, seq_len):
    import flash_attention
    B, H, D = 1, 2, 128
    kernel = flash_attention.flashattn(B, H, seq_len, D, is_causal)
    q, k, v = (rng.standard_normal((B, H, seq_len, D)).astype(np.float16)
               for _ in range(3))
    o = kernel(q, k, v)
    o_ref = np.empty_like(o)
    mlir_kernel("flash_attention_fwd", "flash_attention_fwd",
                ["tensor"] * 4 + ["int32", "float32"])(
        q, k, v, o_ref, int(is_causal), 1.0 / np.sqrt(D))
    np.testing.assert_allclose(o.astype(np.float32), o_ref.astype(np.float32),
                               rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(
        o.astype(np.float32),
        flash_attention.reference(q, k, v, is_causal), rtol=2e-2, atol=2e-2)
