"""Element-wise add: TileLang's elementwise example, as TileLang users write it.

Only the imports differ from TileLang.
"""
import tessera as tilelang
import tessera.language as T


@tilelang.jit(out_idx=[-1])
def elementwise_add(M, N, block_M, block_N, in_dtype, out_dtype, threads):

    @T.prim_func
    def elem_add(A: T.Tensor((M, N), in_dtype), B: T.Tensor((M, N), in_dtype), C: T.Tensor(
            (M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), in_dtype)
            B_shared = T.alloc_shared((block_M, block_N), in_dtype)
            C_local = T.alloc_fragment((block_M, block_N), out_dtype)
            C_shared = T.alloc_shared((block_M, block_N), out_dtype)

            T.copy(A[by * block_M, bx * block_N], A_shared)
            T.copy(B[by * block_M, bx * block_N], B_shared)
            for (local_y, local_x) in T.Parallel(block_M, block_N):
                C_local[local_y, local_x] = A_shared[local_y, local_x] + B_shared[local_y, local_x]
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return elem_add


def main(M=1000, N=1000):
    import numpy as np
    kernel = elementwise_add(M, N, 32, 32, "float32", "float32", 128)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = rng.standard_normal((M, N)).astype(np.float32)
    c = kernel(a, b)
    np.testing.assert_allclose(c, a + b, rtol=1e-6, atol=1e-6)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        ta = torch.from_numpy(a).cuda()
        tb = torch.from_numpy(b).cuda()
        torch.testing.assert_close(kernel(ta, tb), ta + tb)
    print("elementwise_add: all checks pass")
    return kernel


if __name__ == "__main__":
    main()
