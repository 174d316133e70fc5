"""RMSNorm: Y = X / sqrt(mean(X^2) + eps) * W over the rows of X, written the
way TileLang users write it (sum of squares per row, T.rsqrt, weight).

Only the imports differ from TileLang.
"""
import tessera as tilelang
import tessera.language as T


@tilelang.jit(out_idx=[-1])
def rms_norm(M, N, blk_m=4, blk_n=1024, eps=1e-5, dtype="float"):

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), W: T.Tensor((N,), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            A_local = T.alloc_fragment((blk_m, blk_n), dtype)
            W_local = T.alloc_fragment((blk_n,), dtype)
            A_pow_local = T.alloc_fragment((blk_m, blk_n), dtype)
            A_powsum = T.alloc_fragment((blk_m,), dtype)

            num_k_step = T.ceildiv(N, blk_n)
            T.clear(A_powsum)
            for k in T.serial(num_k_step):
                T.copy(A[bx * blk_m, k * blk_n], A_local)
                for i, j in T.Parallel(blk_m, blk_n):
                    A_pow_local[i, j] = A_local[i, j] * A_local[i, j]
                T.reduce_sum(A_pow_local, A_powsum, dim=1, clear=False)
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + eps)
            for k in T.serial(num_k_step):
                T.copy(A[bx * blk_m, k * blk_n], A_local)
                T.copy(W[k * blk_n], W_local)
                for i, j in T.Parallel(blk_m, blk_n):
                    A_local[i, j] *= A_powsum[i] * W_local[j]
                T.copy(A_local, B[bx * blk_m, k * blk_n])

    return main


def reference(x, w, eps=1e-5):
    import numpy as np
    return x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + eps) * w


def main(M=37, N=1500):
    import numpy as np
    kernel = rms_norm(M, N)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((M, N)).astype(np.float32)
    w = rng.standard_normal((N,)).astype(np.float32)
    y = kernel(x, w)
    np.testing.assert_allclose(y, reference(x, w), rtol=1e-4, atol=1e-5)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        tx, tw = torch.from_numpy(x).cuda(), torch.from_numpy(w).cuda()
        ref = tx * torch.rsqrt(tx.pow(2).mean(dim=1, keepdim=True) + 1e-5) * tw
        torch.testing.assert_close(kernel(tx, tw), ref, rtol=1e-4, atol=1e-5)
    print("rmsnorm: all checks pass")
    return kernel


if __name__ == "__main__":
    main()
