"""The kernels test_torch.py runs, built here without torch, so that
scripts/gpu/prepare-python.sh can compile the same kernels for a GPU on a
machine that has none (TESSERA_JIT_ALSO_COMPILE_FOR) and carry the compile
cache to it."""
import tessera
import tessera.language as T


def add_small():
    import elementwise_add
    return elementwise_add.elementwise_add(64, 96, 32, 32, "float32",
                                           "float32", 128)


def add_1024():
    import elementwise_add
    return elementwise_add.elementwise_add(1024, 1024, 32, 32, "float32",
                                           "float32", 128)


def cast_to_bf16():
    @T.prim_func
    def cast(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "bfloat16")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((256,), "float32")
            T.copy(A[0], a)
            T.copy(a, B[0])

    return tessera.compile(cast, out_idx=[-1])


def cast_to_fp8():
    @T.prim_func
    def cast8(A: T.Tensor((1024,), "float32"),
              B: T.Tensor((1024,), "float8_e4m3"),
              C: T.Tensor((1024,), "float32")):
        with T.Kernel(4, threads=128) as bx:
            a = T.alloc_fragment((256,), "float32")
            b = T.alloc_fragment((256,), "float8_e4m3")
            T.copy(A[bx * 256], a)
            T.copy(a, b)
            T.copy(b, B[bx * 256])
            T.copy(b, a)
            T.copy(a, C[bx * 256])

    return tessera.compile(cast8, out_idx=[1, 2])


def gemm_symbolic_m():
    import gemm
    return gemm.matmul(T.symbolic("M"), 256, 256, 128, 128, 32)


EXAMPLES = ["gemm", "elementwise_add", "softmax", "rmsnorm", "flash_attention"]


def build_all():
    """Every kernel above and every example's main() (which runs it on the
    host): what the GPU run of test_torch.py compiles."""
    for build in (add_small, add_1024, cast_to_bf16, cast_to_fp8,
                  gemm_symbolic_m):
        build()
    for name in EXAMPLES:
        __import__(name).main()
