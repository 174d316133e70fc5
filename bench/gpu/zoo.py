#!/usr/bin/env python3
"""The kernel zoo against its torch equivalents on one CUDA GPU.

    python3 bench/gpu/zoo.py <tessera binary> <zoo bundle dir> [name ...]

For every zoo kernel (examples/zoo, bundles from scripts/gpu/prepare-zoo.sh)
this times tessera (`tessera run --json --no-check`, median of per-launch
CUDA-event times) and the torch code a user would write for the same result
(median of per-call CUDA-event times, measured the same way, in the same
process run), and prints one JSON object per case:

    {"case", "kernel", "shape", "tessera_ms", "peer", "peer_ms", "ratio", ...}

ratio = peer_ms / tessera_ms (above 1: tessera is faster). Where several
torch formulations compute the result (a fused cuBLASLt epilogue, or
separate kernels), each is timed and the fastest is the peer. Attention
cases time SDPA's flash and cuDNN backends separately (flash_ratio and
cudnn_ratio); a backend that refuses the case is reported as such.
"""
import json
import os
import math
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

ITERS, WARMUP = 20, 5
dev = "cuda"


def time_torch(fn, iters=ITERS, warmup=WARMUP):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def best(cands):
    """cands: {label: fn}; returns (label, ms) of the fastest that runs."""
    out, errors = None, {}
    for label, fn in cands.items():
        try:
            ms = time_torch(fn)
        except Exception as ex:  # a formulation this torch lacks
            errors[label] = str(ex).splitlines()[0][:120]
            continue
        if out is None or ms < out[1]:
            out = (label, ms)
    return out, errors


def tessera(binary, bundle, shape, scalars=(), kernel=None):
    # Normal inputs, as the peers' torch.randn: a GPU's clock under load
    # depends on the data (cuBLAS's f16 4096 GEMM ran 11% slower on uniform
    # inputs than on randn on an H200, 2026-11-27).
    cmd = [binary, "run", bundle, "--device", "cuda", "--shape", shape, "--no-check", "--json",
           "--fill", "normal",
           "--iters", str(ITERS), "--warmup", str(WARMUP)]
    for s in scalars:
        cmd += ["--scalar", s]
    if kernel:
        cmd += ["--kernel", kernel]
    r = subprocess.run(cmd, capture_output=True, text=True)
    for line in reversed(r.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)["median_ms"]
    raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[-300:]}")


def bf(*s):
    return torch.randn(*s, device=dev, dtype=torch.bfloat16)


def hf(*s):
    return torch.randn(*s, device=dev, dtype=torch.half)


def f32(*s):
    return torch.randn(*s, device=dev, dtype=torch.float32)


def mm_f32(a, b):
    """bf16/f16 product with an f32 result, as torch offers it."""
    return torch.mm(a, b, out_dtype=torch.float32)


def gemm_cases(n=4096):
    """(case, bundle, shape, scalars, peers): peers are {label: fn}."""
    M = N = K = n
    sh = f"M={M},N={N},K={K}"
    A, B = bf(M, K), bf(K, N)
    bias_m, bias_n = f32(M), f32(N)
    yield "gemm_bf16_64x64_rowbias", sh, [], {
        "addmm(bias[:,None] bf16, A, B)": lambda: torch.addmm(bias_m.bfloat16()[:, None], A, B),
        "(A@B + bias[:,None]).bfloat16()": lambda: (A @ B + bias_m[:, None]).bfloat16(),
    }
    yield "gemm_bf16_128x128_colbias_gelu", sh, [], {
        "_addmm_activation(bias, A, B, gelu)": lambda: torch._addmm_activation(
            bias_n.bfloat16(), A, B, use_gelu=True),
        "gelu_tanh(addmm(bias, A, B))": lambda: F.gelu(torch.addmm(bias_n.bfloat16(), A, B),
                                                       approximate="tanh"),
    }
    yield "gemm_bf16_128x256_silu", sh, [], {
        "silu(A@B).half()": lambda: F.silu(A @ B).half(),
    }
    torch.backends.cuda.matmul.allow_tf32 = False
    Af, Bf, Wf = f32(M, K), f32(K, N), f32(N, K)
    yield "gemm_f32_256x128_colscale", sh, [], {
        "(A@B)*scale (f32, no TF32)": lambda: (Af @ Bf) * bias_n,
    }
    yield "linear_f32_nt", sh, [], {
        "F.linear(X, W, bias) (f32, no TF32)": lambda: F.linear(Af, Wf, bias_n),
    }
    At = hf(K, M)
    Bh = hf(K, N)
    yield "gemm_f16_at_rowscale", sh, [], {
        "A.t()@B * scale[:,None] (f16)": lambda: (At.t() @ Bh) * bias_m.half()[:, None],
    }
    Atb, Btb = bf(K, M), bf(N, K)
    yield "gemm_bf16_tt", sh, [], {
        "mm(A.t(), B.t(), out_dtype=f32)": lambda: mm_f32(Atb.t(), Btb.t()),
        "(A.t()@B.t()).float()": lambda: (Atb.t() @ Btb.t()).float(),
    }
    A8 = bf(M, K).to(torch.float8_e4m3fn)
    B8 = bf(N, K).to(torch.float8_e4m3fn)
    sa, sb = torch.rand(M, 1, device=dev), torch.rand(1, N, device=dev)
    yield "gemm_fp8_128x256_scaled", sh, [], {
        "_scaled_mm rowwise scales, bf16 out": lambda: torch._scaled_mm(
            A8, B8.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16),
    }
    I8a = torch.randint(-8, 8, (M, K), device=dev, dtype=torch.int8)
    I8b = torch.randint(-8, 8, (N, K), device=dev, dtype=torch.int8)
    yield "gemm_i8_i32", sh, [], {"_int_mm(A, B.t())": lambda: torch._int_mm(I8a, I8b.t())}
    C = torch.zeros(M, N, device=dev)
    yield "gemm_splitk_f32", sh, [], {
        "C += mm(A, B, out_dtype=f32)": lambda: C.add_(mm_f32(A, B)),
        "C += (A@B).float()": lambda: C.add_((A @ B).float()),
    }


def fp8_blockscale_case(n):
    """DeepSeek-style block-scaled fp8 at M = N = K = n: (shape, peers).

    A [M, K] and B [N, K] in e4m3, a_scale [M, K/128] (per row and 128-deep K
    block, row-major as tessera's kernel reads it), b_scale [N/128, K/128]
    (per 128x128 block of B); C = sum over K blocks of the block products
    times both scales, in bf16. torch's blockwise scaled_mm (CUDA 12.9+,
    sm_90) wants a_scale outer-dim-major (stride (1, M)) and b_scale as
    [K/128, N/128]: those copies are made once, outside the timing, as a user
    would keep them. Where torch has no blockwise kernel, the peer is the
    dequantize-then-matmul formulation."""
    M = N = K = n
    KB, NB = K // 128, N // 128
    A8 = bf(M, K).to(torch.float8_e4m3fn)
    B8 = bf(N, K).to(torch.float8_e4m3fn)
    sa = torch.rand(M, KB, device=dev) + 0.5
    sb = torch.rand(NB, KB, device=dev) + 0.5
    sa_outer = sa.t().contiguous().t()
    sb_t = sb.t()
    peers = {}
    try:
        from torch.nn.functional import ScalingType, scaled_mm

        def recipe(*names):
            for name in names:
                if hasattr(ScalingType, name):
                    return getattr(ScalingType, name)
            raise AttributeError(f"torch.nn.functional.ScalingType has none of {names}")
        r1x128 = recipe("BlockWise1x128", "Blockwise_1x128")
        r128x128 = recipe("BlockWise128x128", "Blockwise_128x128")
        peers["F.scaled_mm blockwise 1x128 x 128x128, bf16 out"] = lambda: scaled_mm(
            A8, B8.t(), sa_outer, r1x128, sb_t, r128x128, output_dtype=torch.bfloat16)
    except Exception:  # a torch without the blockwise functional API
        pass
    peers["_scaled_mm blockwise scales, bf16 out"] = lambda: torch._scaled_mm(
        A8, B8.t(), scale_a=sa_outer, scale_b=sb_t, out_dtype=torch.bfloat16)

    def dequantized():
        a = (A8.float().view(M, KB, 128) * sa[:, :, None]).view(M, K).bfloat16()
        b = (B8.float().view(NB, 128, KB, 128) * sb[:, None, :, None]).view(N, K).bfloat16()
        return a @ b.t()
    peers["dequantize to bf16, A @ B.t()"] = dequantized
    return f"M={M},N={N},K={K},KB={KB},NB={NB}", peers


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    binary, zoo = sys.argv[1], sys.argv[2]
    # A wrong path fails every case one by one otherwise (a folder for the
    # tool did on 2026-11-28): say it once, before any timing.
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise SystemExit(f"zoo.py: {binary} is not an executable tessera tool")
    if not os.path.isdir(zoo):
        raise SystemExit(f"zoo.py: {zoo} is not a folder of zoo bundles")
    only = set(sys.argv[3:])
    cases = []

    def add(case, kernel_shape, scalars, peers, bundle=None, flops=None, extra=None):
        if only and case not in only:
            return
        cases.append((case, bundle or case, kernel_shape, scalars, peers, extra or {}))

    for case, sh, sc, peers in gemm_cases():
        add(case, sh, sc, peers)
    for n in (4096, 8192):
        case = "gemm_fp8_blockscale" + ("" if n == 4096 else f" {n}")
        if not only or case in only:
            sh, peers = fp8_blockscale_case(n)
            add(case, sh, [], peers, bundle="gemm_fp8_blockscale")
    # split-K at its own shape: small output, long K.
    A1, B1 = bf(1024, 16384), bf(16384, 1024)
    C1 = torch.zeros(1024, 1024, device=dev)
    add("gemm_splitk_f32 1024x1024x16384", "M=1024,N=1024,K=16384", [],
        {"C += mm(A, B, out_dtype=f32)": lambda: C1.add_(mm_f32(A1, B1))}, bundle="gemm_splitk_f32")
    Ab, Bb = bf(8, 2048, 2048), bf(8, 2048, 2048)
    add("gemm_batched_bf16", "Bt=8,M=2048,N=2048,K=2048", [], {
        "bmm(A, B, out_dtype=f32)": lambda: torch.bmm(Ab, Bb, out_dtype=torch.float32),
        "bmm(A, B).float()": lambda: torch.bmm(Ab, Bb).float(),
    })
    X, W1, W2 = bf(16384, 128), bf(128, 4096), bf(4096, 128)
    add("mlp_b2b_bf16", "M=16384,F=4096", [], {
        "silu(X@W1)@W2": lambda: F.silu(X @ W1) @ W2,
    })
    Xg, Wg = bf(16384, 4096), bf(4096, 256)

    def gating(x, w):
        s = (x @ w).float()
        v, i = torch.topk(s, 8, dim=1)
        return i.int(), torch.softmax(v, dim=1)
    add("moe_topk_gating", "T=16384,D=4096", [], {"topk(X@Wg, 8) + softmax": lambda: gating(Xg, Wg)})
    L = f32(65536, 256)

    def topk_sm(l):
        v, i = torch.topk(l, 8, dim=1)
        return i.int(), torch.softmax(v, dim=1)
    add("moe_topk_softmax_logits", "T=65536", [], {"topk(logits, 8) + softmax": lambda: topk_sm(L)})
    Xs = bf(4096, 16384)
    add("softmax_bf16_16k", "M=4096,N=16384", ["scale=0.5"], {
        "softmax(X.float()*scale).bfloat16()": lambda: torch.softmax(Xs.float() * 0.5, dim=1).bfloat16(),
        "softmax(X*scale, dtype=f32).bfloat16()": lambda: torch.softmax(Xs * 0.5, dim=1,
                                                                         dtype=torch.float32).bfloat16(),
    })
    Xr, Wr = hf(4096, 16384), hf(16384)
    add("rmsnorm_f16_16k", "M=4096,N=16384", ["eps=1e-5"], {
        "F.rms_norm": lambda: F.rms_norm(Xr, (16384,), Wr, eps=1e-5),
    })
    Xl, gam, bet = f32(4096, 16384), f32(16384), f32(16384)
    add("layernorm_f32_16k", "M=4096,N=16384", ["eps=1e-5"], {
        "F.layer_norm": lambda: F.layer_norm(Xl, (16384,), gam, bet, eps=1e-5),
    })
    Sa, Sb = bf(8192, 8192), bf(8192, 8192)

    def swiglu_q(a, b):
        y = F.silu(a.float()) * b.float()
        s = y.abs().amax(dim=1) / 448.0
        q = (y / s.clamp_min(1e-30)[:, None]).to(torch.float8_e4m3fn)
        return q, s
    add("swiglu_fp8_quant", "T=8192,N=8192", [], {"silu(a)*b, amax, scale, to(e4m3)": lambda: swiglu_q(Sa, Sb)})

    # Attention, B4 H16 S4096 unless named.
    def sdpa_peers(q, k, v, **kw):
        out = {}
        for be in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION):
            def fn(be=be):
                with sdpa_kernel(be):
                    return F.scaled_dot_product_attention(q, k, v, **kw)
            out[be.name] = fn
        return out
    B, H, S = 4, 16, 4096
    q, k, v = bf(B, H, S, 64), bf(B, H, S, 64), bf(B, H, S, 64)
    add("attn_fwd_d64_causal_bf16", f"B={B},H={H},S={S}", ["sm_scale=0.125"],
        sdpa_peers(q, k, v, is_causal=True), extra={"attention": True})
    qg, kg, vg = hf(B, H, S, 128), hf(B, 4, S, 128), hf(B, 4, S, 128)
    add("attn_gqa_d128_causal", f"B={B},Hq={H},Hkv=4,S={S}", ["sm_scale=0.0883883"],
        sdpa_peers(qg, kg, vg, is_causal=True, enable_gqa=True), extra={"attention": True})
    qm, km, vm = bf(B, H, S, 64), bf(B, 1, S, 64), bf(B, 1, S, 64)
    add("attn_mqa_d64_bf16", f"B={B},H={H},S={S}", ["sm_scale=0.125"],
        sdpa_peers(qm, km, vm, enable_gqa=True), extra={"attention": True})
    q2, k2, v2 = hf(B, H, S, 256), hf(B, H, S, 256), hf(B, H, S, 256)
    for name in ("attn_fwd_d256_q128_f16", "attn_fwd_d256_cross_f16"):
        add(name, f"B={B},H={H},Sq={S},Skv={S}", ["sm_scale=0.0625"], sdpa_peers(q2, k2, v2),
            extra={"attention": True})
    qp, kp, vp = hf(B, H, 2048, 128), hf(B, H, 4096, 128), hf(B, H, 4096, 128)
    from torch.nn.attention.bias import causal_lower_right
    add("attn_prefill_prefix_causal_d128", f"B={B},H={H},Sq=2048,Skv=4096", ["sm_scale=0.0883883"],
        sdpa_peers(qp, kp, vp, attn_mask=causal_lower_right(2048, 4096)), extra={"attention": True})
    qw, kw, vw = hf(B, H, S, 64), hf(B, H, S, 64), hf(B, H, S, 64)
    i = torch.arange(S, device=dev)
    window_mask = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - 512)
    add("attn_sliding_window_d64", f"B={B},H={H},S={S}", ["sm_scale=0.125", "window=512"],
        sdpa_peers(qw, kw, vw, attn_mask=window_mask), extra={"attention": True})
    # Decoding: one query row per (batch, head), a 16k-key cache; tessera's
    # time is the split-KV kernel plus its combine kernel.
    Bd, Hd, Skv = 8, 32, 16384
    NS = math.ceil(Skv / 256)
    qd, kd, vd = hf(Bd, Hd, 1, 128), hf(Bd, Hd, Skv, 128), hf(Bd, Hd, Skv, 128)
    add("attn_decode_splitkv_d128", f"B={Bd},H={Hd},Sq=1,Skv={Skv},HS={Hd * NS}", ["sm_scale=0.0883883"],
        sdpa_peers(qd, kd, vd), extra={"attention": True, "plus": ("attn_decode_combine",
                                                                     f"B={Bd},H={Hd},Sq=1,HS={Hd * NS}", [])})

    # ZOO_ALT=<dir>: the same bundles compiled another way (a compiler
    # switch), timed alternately with these (A B A B, the better of each) as
    # "alt_ms"; ZOO_NO_PEERS=1 skips the torch peers (for such A/B runs).
    alt = os.environ.get("ZOO_ALT")
    no_peers = os.environ.get("ZOO_NO_PEERS") == "1"

    def timed(folder, bundle, shape, scalars, extra, row, key):
        ms = tessera(binary, f"{folder}/{bundle}.tsb", shape, scalars)
        if "plus" in extra:
            b2, s2, sc2 = extra["plus"]
            parts = [ms, tessera(binary, f"{folder}/{b2}.tsb", s2, sc2)]
            row[key.replace("_ms", "_parts_ms")] = parts
            ms = sum(parts)
        return ms

    for case, bundle, shape, scalars, peers, extra in cases:
        row = {"case": case, "shape": shape}
        try:
            ms = timed(zoo, bundle, shape, scalars, extra, row, "tessera_ms")
            if alt:
                a = timed(alt, bundle, shape, scalars, extra, row, "alt_ms")
                ms = min(ms, timed(zoo, bundle, shape, scalars, extra, row, "tessera_ms"))
                a = min(a, timed(alt, bundle, shape, scalars, extra, row, "alt_ms"))
                row["alt_ms"] = a
                row["alt_gain"] = round(ms / a, 3)
            row["tessera_ms"] = ms
        except Exception as ex:
            row["tessera_error"] = str(ex)[-300:]
        if no_peers:
            print(json.dumps(row), flush=True)
            continue
        if extra.get("attention"):
            for label, fn in peers.items():
                try:
                    pm = time_torch(fn, iters=10, warmup=3)
                    row[f"{label.lower()}_ms"] = pm
                    if "tessera_ms" in row:
                        row[f"{label.split('_')[0].lower()}_ratio"] = round(pm / row["tessera_ms"], 3)
                except Exception as ex:
                    row[f"{label.lower()}_error"] = str(ex).splitlines()[0][:100]
        else:
            found, errors = best(peers)
            label, pm = found or (None, None)
            row.update(peer=label, peer_ms=pm)
            if errors:
                row["peer_errors"] = errors
            if pm and "tessera_ms" in row:
                row["ratio"] = round(pm / row["tessera_ms"], 3)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
