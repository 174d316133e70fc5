"""GEMM with a ReLU epilogue: TileLang's quick start, as TileLang users write it.

Only the imports differ from TileLang (`import tessera as tilelang`,
`import tessera.language as T`).
"""
import tessera as tilelang
import tessera.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):

    @T.prim_func
    def matmul_relu_kernel(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        # Initialize Kernel Context
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            # Enable rasterization for better L2 cache locality (Optional)
            T.use_swizzle(panel_size=10, enable=True)

            # Clear local accumulation
            T.clear(C_local)

            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                # Copy tile of A
                T.copy(A[by * block_M, ko * block_K], A_shared)

                # Copy tile of B
                T.copy(B[ko * block_K, bx * block_N], B_shared)

                # Perform a tile-level GEMM on the shared buffers
                T.gemm(A_shared, B_shared, C_local)

            # relu
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j], 0)

            # Copy result back to global memory
            T.copy(C_local, C[by * block_M, bx * block_N])

    return matmul_relu_kernel


def main(M=256, N=256, K=256, use_torch=None):
    import numpy as np
    block_M, block_N, block_K = 128, 128, 32
    kernel = matmul(M, N, K, block_M, block_N, block_K)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and use_torch is not False:
        dev = "cuda" if torch.cuda.is_available() else "cpu"
        a = torch.randn(M, K, device=dev, dtype=torch.float16)
        b = torch.randn(K, N, device=dev, dtype=torch.float16)
        c = kernel(a, b)
        ref = torch.relu(a.float() @ b.float()).half()
        torch.testing.assert_close(c, ref, rtol=1e-2, atol=1e-2)
    else:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((M, K)).astype(np.float16)
        b = rng.standard_normal((K, N)).astype(np.float16)
        c = kernel(a, b)
        ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
        np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    print("gemm_relu: all checks pass")
    return kernel


if __name__ == "__main__":
    main()
