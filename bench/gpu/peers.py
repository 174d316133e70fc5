#!/usr/bin/env python3
"""GPU peers for tessera's benchmarks: cuBLAS (torch.matmul, torch._scaled_mm),
a Triton matmul, cuBLAS + ReLU, and PyTorch SDPA (flash and cuDNN backends).

Prints one JSON object per line. Times are medians of CUDA-event timings
(triton.testing.do_bench) on random inputs.
"""
import json
import sys

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # Triton is optional; its rows are skipped.
    triton = None


def bench(fn):
    if triton is not None:
        return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(5):
        fn()
    times = []
    for _ in range(20):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def emit(**row):
    print(json.dumps(row), flush=True)


if triton is not None:

    @triton.jit
    def _matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
        # Grouped launch order for L2 reuse.
        pid = tl.program_id(0)
        n_m, n_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        group = pid // (G * n_n)
        first_m = group * G
        gsize = min(n_m - first_m, G)
        pm = first_m + (pid % (G * n_n)) % gsize
        pn = (pid % (G * n_n)) // gsize
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            x = tl.load(a + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
                        mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
            y = tl.load(b + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
                        mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    def triton_matmul(a, b):
        M, K = a.shape
        _, N = b.shape
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        grid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
        _matmul[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                      c.stride(0), c.stride(1), BM=128, BN=256, BK=64, G=8,
                      num_warps=8, num_stages=3)
        return c


def gemms():
    for dtype in (torch.float16, torch.bfloat16):
        name = "f16" if dtype == torch.float16 else "bf16"
        for n in (1024, 2048, 4096, 8192):
            a = torch.randn(n, n, device="cuda", dtype=dtype)
            b = torch.randn(n, n, device="cuda", dtype=dtype)
            flops = 2 * n ** 3
            ms = bench(lambda: torch.matmul(a, b))
            emit(bench="gemm", dtype=name, M=n, N=n, K=n, impl="cublas", ms=ms,
                 tflops=flops / ms / 1e9)
            if triton is not None:
                ms = bench(lambda: triton_matmul(a, b))
                emit(bench="gemm", dtype=name, M=n, N=n, K=n, impl="triton", ms=ms,
                     tflops=flops / ms / 1e9)
    n = 8192
    for name, f8 in (("f8e4m3", torch.float8_e4m3fn), ("f8e5m2", torch.float8_e5m2)):
        try:
            a = torch.randn(n, n, device="cuda").to(f8)
            b = torch.randn(n, n, device="cuda").to(f8).t().contiguous().t()
            one = torch.tensor(1.0, device="cuda")
            ms = bench(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one,
                                                out_dtype=torch.float16))
            emit(bench="gemm", dtype=name, M=n, N=n, K=n, impl="cublas_scaled_mm", ms=ms,
                 tflops=2 * n ** 3 / ms / 1e9)
        except Exception as e:  # e5m2 x e5m2 is not supported by cuBLAS
            emit(bench="gemm", dtype=name, M=n, N=n, K=n, impl="cublas_scaled_mm",
                 error=str(e).splitlines()[0])
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    ms = bench(lambda: torch.relu(torch.matmul(a, b)))
    emit(bench="gemm_relu", dtype="f16", M=n, N=n, K=n, impl="cublas+relu", ms=ms,
         tflops=2 * n ** 3 / ms / 1e9)


def attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    B, H, D = 4, 16, 128
    for S in (512, 1024, 2048, 4096, 8192):
        q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            flops = 4 * B * H * S * S * D // (2 if causal else 1)
            for impl, backend in (("sdpa_flash", SDPBackend.FLASH_ATTENTION),
                                  ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
                try:
                    with sdpa_kernel(backend):
                        f = lambda: torch.nn.functional.scaled_dot_product_attention(
                            q, k, v, is_causal=causal)
                        ms = bench(f)
                    emit(bench="attention", B=B, H=H, S=S, D=D, causal=causal, impl=impl,
                         ms=ms, tflops=flops / ms / 1e9)
                except Exception as e:
                    emit(bench="attention", B=B, H=H, S=S, D=D, causal=causal, impl=impl,
                         error=str(e).splitlines()[0])


if __name__ == "__main__":
    which = sys.argv[1:] or ["gemm", "attention"]
    emit(bench="device", name=torch.cuda.get_device_name(), torch=torch.__version__,
         triton=getattr(triton, "__version__", None))
    if "gemm" in which:
        gemms()
    if "attention" in which:
        attention()
