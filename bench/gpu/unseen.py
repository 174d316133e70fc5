#!/usr/bin/env python3
"""Tile programs written after the compiler's examples, timed against torch.

    python3 bench/gpu/unseen.py <tessera binary> <bundle dir> [name ...]

bench/gpu/unseen/*.mlir are variants of the examples and zoo kernels that
no pass was tuned on: one more tile copy and add in attention's loop (a
bias table), one more GEMM in the loop (SwiGLU's gate and up projections),
a residual read in the epilogue, a transposed A with 64x256 blocks, an s8
GEMM dequantized in its epilogue, a GEMM whose rows are normalized per
block (a reduction of the accumulator), B read transposed in 256x128
blocks, an f16-accumulating GEMM, attention over a head dim of 96 in
128-wide tiles. Each
bundle (scripts/gpu/prepare-unseen.sh) is timed with `tessera run` and its
torch formulation in the same process, as bench/gpu/zoo.py does; one JSON
object per case: {"case", "shape", "tessera_ms", "peer", "peer_ms",
"ratio"} with ratio = peer_ms / tessera_ms (above 1: tessera is faster).
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from zoo import best, bf, hf, tessera, time_torch  # noqa: E402


def cases():
    n = 4096
    A, B, R = hf(n, n), hf(n, n), hf(n, n)
    yield ("gemm_residual_f16", f"M={n},N={n},K={n}", [],
           {"addmm(R, A, B)": lambda: torch.addmm(R, A, B),
            "A @ B + R": lambda: torch.matmul(A, B) + R})
    yield ("gemm_f16acc_residual", f"M={n},N={n},K={n}", [],
           {"addmm(R, A, B) (f32 accumulators)": lambda: torch.addmm(R, A, B)})
    X, Wg, Wu = bf(n, n), bf(n, n), bf(n, n)
    Wgu = torch.cat([Wg, Wu], dim=1)

    def swiglu_cat():
        g, u = torch.matmul(X, Wgu).chunk(2, dim=1)
        return F.silu(g) * u
    yield ("gemm_swiglu_dual_bf16", f"M={n},N={n},K={n}", [],
           {"silu(X @ Wg) * (X @ Wu)": lambda: F.silu(torch.matmul(X, Wg)) * torch.matmul(X, Wu),
            "one matmul over [Wg | Wu], silu * u": swiglu_cat})
    A8 = torch.randint(-127, 128, (n, n), device="cuda", dtype=torch.int8)
    B8 = torch.randint(-127, 128, (n, n), device="cuda", dtype=torch.int8)
    sa, sb = torch.rand(n, device="cuda") * 1e-3, torch.rand(n, device="cuda") * 1e-3
    yield ("gemm_i8_dequant_f16", f"M={n},N={n},K={n}", [],
           {"_int_mm(A, B.t()) * sa * sb": lambda: (torch._int_mm(A8, B8.t()) * sa[:, None]
                                                     * sb[None, :]).half()})
    Ab, Bb = bf(n, n), bf(n, n)

    def rownorm():
        c = torch.matmul(Ab, Bb).float().view(n, n // 128, 128)
        return (c * torch.rsqrt((c * c).sum(-1, keepdim=True) + 1e-6)).bfloat16()
    yield ("gemm_rownorm_bf16", f"M={n},N={n},K={n}", [],
           {"matmul, then each 128 columns over their norm": rownorm})
    An, Bn = bf(n, n), bf(n, n)
    yield ("gemm_nt_bf16_256x128", f"M={n},N={n},K={n}", [],
           {"F.linear(A, B)": lambda: F.linear(An, Bn)})
    At, B2 = hf(n, n), hf(n, n)
    yield ("gemm_at_f16_64x256", f"M={n},N={n},K={n}", [],
           {"A.t() @ B": lambda: torch.matmul(At.t(), B2)})
    Bq, H, S = 4, 16, 2048
    q, k, v = hf(Bq, H, S, 128), hf(Bq, H, S, 128), hf(Bq, H, S, 128)
    bias = hf(S, S)
    peers = {}
    for be in (SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION):
        def fn(be=be):
            with sdpa_kernel(be):
                return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        peers[f"SDPA {be.name} with attn_mask"] = fn
    yield ("attn_bias_q128", f"B={Bq},H={H},S={S}", ["causal=0", "sm_scale=0.0883883"], peers)
    q9, k9, v9 = hf(Bq, H, S, 96), hf(Bq, H, S, 96), hf(Bq, H, S, 96)
    peers = {}
    for be in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
        def fn(be=be):
            with sdpa_kernel(be):
                return F.scaled_dot_product_attention(q9, k9, v9)
        peers[f"SDPA {be.name}"] = fn
    yield ("attn_headdim_q128", f"B={Bq},H={H},S={S},D=96", ["causal=0", "sm_scale=0.102"], peers)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    binary, folder = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    for case, shape, scalars, peers in cases():
        if only and case not in only:
            continue
        row = {"case": case, "shape": shape}
        try:
            row["tessera_ms"] = tessera(binary, f"{folder}/{case}.tsb", shape, scalars)
        except Exception as ex:
            row["tessera_error"] = str(ex)[-300:]
        found, errors = best(peers)
        if found:
            row.update(peer=found[0], peer_ms=found[1])
            if "tessera_ms" in row:
                row["ratio"] = round(found[1] / row["tessera_ms"], 3)
        if errors:
            row["peer_errors"] = errors
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
