#!/usr/bin/env python3
"""TileLang peers for tessera's GPU benchmarks: a GEMM and a flash-attention
forward written in TileLang's tile language (this project's own programs,
in TileLang's documented style), timed like bench/gpu/peers.py.

Prints one JSON object per line: each configuration tried (impl
"tilelang_config") and the fastest (impl "tilelang"); a configuration that fails to compile or to agree with
torch prints an "error" row and is not timed. TileLang is not installed on
the GPU machine: it travels as wheels (scripts/gpu/tilelang-wheels.sh).

    python3 bench/gpu/tilelang_peers.py [gemm] [attention]
"""
import json
import sys

import torch

try:
    import tilelang
    import tilelang.language as T
except Exception as e:  # noqa: BLE001 - report why and stop
    print(json.dumps({"bench": "tilelang", "error": f"import: {e}"}), flush=True)
    sys.exit(0)

from peers import bench, emit  # noqa: E402  (bench/gpu on sys.path)


def gemm_program(M, N, K, bm, bn, bk, stages, threads, dtype):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
             C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=threads) as (bx, by):
            a_s = T.alloc_shared((bm, bk), dtype)
            b_s = T.alloc_shared((bk, bn), dtype)
            c_f = T.alloc_fragment((bm, bn), "float32")
            T.use_swizzle(panel_size=10)
            T.clear(c_f)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=stages):
                T.copy(A[by * bm, k * bk], a_s)
                T.copy(B[k * bk, bx * bn], b_s)
                T.gemm(a_s, b_s, c_f)
            T.copy(c_f, C[by * bm, bx * bn])
    return main


def attention_program(B, H, S, D, causal, bm, bn, stages, threads):
    dtype, acc = "float16", "float32"
    # softmax(Q K^T / sqrt(D)) in base 2: exp(x) = exp2(x * log2(e)).
    scale = (1.0 / D) ** 0.5 * 1.4426950408889634
    shape = [B, H, S, D]

    @T.prim_func
    def main(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype),
             V: T.Tensor(shape, dtype), O: T.Tensor(shape, dtype)):
        with T.Kernel(T.ceildiv(S, bm), H, B, threads=threads) as (bx, by, bz):
            q_s = T.alloc_shared([bm, D], dtype)
            k_s = T.alloc_shared([bn, D], dtype)
            v_s = T.alloc_shared([bn, D], dtype)
            o_s = T.alloc_shared([bm, D], dtype)
            s_f = T.alloc_fragment([bm, bn], acc)
            p_f = T.alloc_fragment([bm, bn], dtype)
            o_f = T.alloc_fragment([bm, D], acc)
            m = T.alloc_fragment([bm], acc)
            m_old = T.alloc_fragment([bm], acc)
            alpha = T.alloc_fragment([bm], acc)
            l = T.alloc_fragment([bm], acc)
            rowsum = T.alloc_fragment([bm], acc)
            T.copy(Q[bz, by, bx * bm:(bx + 1) * bm, :], q_s)
            T.fill(o_f, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(acc))
            steps = (T.min(T.ceildiv(S, bn), T.ceildiv((bx + 1) * bm, bn)) if causal
                     else T.ceildiv(S, bn))
            for j in T.Pipelined(steps, num_stages=stages):
                T.copy(K[bz, by, j * bn:(j + 1) * bn, :], k_s)
                if causal:
                    for i, c in T.Parallel(bm, bn):
                        s_f[i, c] = T.if_then_else(bx * bm + i >= j * bn + c, 0,
                                                   -T.infinity(acc))
                else:
                    T.clear(s_f)
                T.gemm(q_s, k_s, s_f, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_old)
                T.reduce_max(s_f, m, dim=1, clear=False)
                for i in T.Parallel(bm):
                    alpha[i] = T.exp2(m_old[i] * scale - m[i] * scale)
                for i, c in T.Parallel(bm, bn):
                    s_f[i, c] = T.exp2(s_f[i, c] * scale - m[i] * scale)
                T.reduce_sum(s_f, rowsum, dim=1)
                for i in T.Parallel(bm):
                    l[i] = l[i] * alpha[i] + rowsum[i]
                T.copy(s_f, p_f)
                for i, d in T.Parallel(bm, D):
                    o_f[i, d] *= alpha[i]
                T.copy(V[bz, by, j * bn:(j + 1) * bn, :], v_s)
                T.gemm(p_f, v_s, o_f, policy=T.GemmWarpPolicy.FullRow)
            for i, d in T.Parallel(bm, D):
                o_f[i, d] /= l[i]
            T.copy(o_f, o_s)
            T.copy(o_s, O[bz, by, bx * bm:(bx + 1) * bm, :])
    return main


def gemms(sizes):
    for tname, dtype in (("f16", "float16"), ("bf16", "bfloat16")):
        tdt = torch.float16 if tname == "f16" else torch.bfloat16
        for n in sizes:
            a = torch.randn(n, n, device="cuda", dtype=tdt)
            b = torch.randn(n, n, device="cuda", dtype=tdt)
            ref = torch.matmul(a, b).float()
            best = None
            for bm, bn, bk, stages, threads in ((128, 256, 64, 3, 256), (128, 128, 64, 4, 256)):
                cfg = f"{bm}x{bn}x{bk} stages={stages} threads={threads}"
                try:
                    k = tilelang.compile(gemm_program(n, n, n, bm, bn, bk, stages, threads, dtype),
                                         out_idx=[2])
                    c = k(a, b)
                    err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
                    if err > 2e-2:
                        raise RuntimeError(f"max relative error {err:.3g}")
                    ms = bench(lambda: k(a, b))
                except Exception as e:  # noqa: BLE001
                    emit(bench="gemm", dtype=tname, M=n, N=n, K=n, impl="tilelang_config", config=cfg,
                         error=str(e).splitlines()[0][:300])
                    continue
                row = dict(bench="gemm", dtype=tname, M=n, N=n, K=n, impl="tilelang_config",
                           config=cfg, ms=ms, tflops=2 * n ** 3 / ms / 1e9)
                emit(**row)
                if best is None or ms < best["ms"]:
                    best = row
            if best:
                emit(**dict(best, impl="tilelang"))


def attentions(seqs):
    B, H, D = 4, 16, 128
    for S in seqs:
        q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
            flops = 4 * B * H * S * S * D // (2 if causal else 1)
            best = None
            for bm, bn, stages, threads in ((128, 128, 2, 256), (128, 64, 2, 128)):
                cfg = f"{bm}x{bn} stages={stages} threads={threads}"
                try:
                    kern = tilelang.compile(attention_program(B, H, S, D, causal, bm, bn, stages,
                                                              threads), out_idx=[3])
                    o = kern(q, k, v)
                    err = (o.float() - ref.float()).abs().max().item()
                    if err > 2e-2:
                        raise RuntimeError(f"max abs error {err:.3g} against SDPA")
                    ms = bench(lambda: kern(q, k, v))
                except Exception as e:  # noqa: BLE001
                    emit(bench="attention", B=B, H=H, S=S, D=D, causal=causal,
                         impl="tilelang_config", config=cfg, error=str(e).splitlines()[0][:300])
                    continue
                row = dict(bench="attention", B=B, H=H, S=S, D=D, causal=causal,
                           impl="tilelang_config", config=cfg, ms=ms, tflops=flops / ms / 1e9)
                emit(**row)
                if best is None or ms < best["ms"]:
                    best = row
            if best:
                emit(**dict(best, impl="tilelang"))


if __name__ == "__main__":
    which = sys.argv[1:] or ["gemm", "attention"]
    emit(bench="device", impl="tilelang", tilelang=getattr(tilelang, "__version__", None))
    if "gemm" in which:
        gemms((2048, 4096, 8192))
    if "attention" in which:
        attentions((1024, 2048, 4096, 8192))
