"""Row softmax, written the way TileLang users write it: one block per group
of rows, the online max/sum over column chunks (exp2 with a log2(e) scale),
then a second pass that normalizes.

Only the imports differ from TileLang.
"""
import tessera as tilelang
import tessera.language as T


@tilelang.jit(out_idx=[-1])
def softmax(M, N, block_M=4, block_N=1024, dtype="float32", accum_dtype="float"):
    scale = 1.44269504  # log2(e)

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, block_N), accum_dtype)
            row_max = T.alloc_fragment((block_M,), accum_dtype)
            row_max_prev = T.alloc_fragment((block_M,), accum_dtype)
            row_sum = T.alloc_fragment((block_M,), accum_dtype)

            T.fill(row_max, -T.infinity(accum_dtype))
            T.clear(row_sum)
            for k in T.serial(T.ceildiv(N, block_N)):
                T.copy(X[bx * block_M, k * block_N], x)
                # Columns past N read 0: keep them out of the max.
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.if_then_else(k * block_N + j < N, x[i, j], -T.infinity(accum_dtype))
                T.copy(row_max, row_max_prev)
                T.reduce_max(x, row_max, dim=1, clear=False)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp2(x[i, j] * scale - row_max[i] * scale)
                for i in T.Parallel(block_M):
                    row_sum[i] = row_sum[i] * T.exp2(row_max_prev[i] * scale - row_max[i] * scale)
                T.reduce_sum(x, row_sum, dim=1, clear=False)

            for k in T.serial(T.ceildiv(N, block_N)):
                T.copy(X[bx * block_M, k * block_N], x)
                for i, j in T.Parallel(block_M, block_N):
                    x[i, j] = T.exp2(x[i, j] * scale - row_max[i] * scale) / row_sum[i]
                T.copy(x, Y[bx * block_M, k * block_N])

    return main


def reference(x):
    import numpy as np
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main(M=37, N=1500):
    import numpy as np
    kernel = softmax(M, N)
    x = np.random.default_rng(0).standard_normal((M, N)).astype(np.float32) * 4
    y = kernel(x)
    np.testing.assert_allclose(y, reference(x), rtol=1e-5, atol=1e-6)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        tx = torch.from_numpy(x).cuda()
        torch.testing.assert_close(kernel(tx), torch.softmax(tx, dim=1), rtol=1e-5, atol=1e-6)
    print("softmax: all checks pass")
    return kernel


if __name__ == "__main__":
    main()
