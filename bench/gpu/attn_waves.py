#!/usr/bin/env python3
"""Where a short attention's time goes: a block's fixed cost against its
per-key-block cost, for tessera and SDPA's cuDNN backend on one GPU.

    python3 bench/gpu/attn_waves.py <tessera binary> label=<bundle> [label=<bundle> ...]

Each bundle holds a 128x128-block flash attention forward (d128, f16, like
examples/flash_attention_fwd_q128.mlir). Non-causal shapes with n key blocks
of 128 (S = 128 n) and exactly `waves` x 128 query blocks (B = 1,
H = waves x 128 / n), so every block does the same work and, at one block
per SM, each SM runs `waves` blocks in a row. Per implementation and wave
count the times are fitted to T(n) = a + n t (least squares): t is the
steady cost of one key block on one SM, a the rest -- the launch and each
SM's `waves` block prologues and epilogues. Prints one JSON object per
measurement ("kind": "point") and per fit ("kind": "fit").
"""
import json
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from zoo import time_torch  # bench/gpu/zoo.py: median of per-call CUDA-event times

ITERS, WARMUP = 30, 5
NS = (1, 2, 4, 8, 16)


def tessera(binary, bundle, B, H, S):
    cmd = [binary, "run", bundle, "--device", "cuda", "--shape", f"B={B},H={H},S={S}",
           "--scalar", "causal=0", "--scalar", "sm_scale=0.08838834764831845",
           "--no-check", "--json", "--fill", "normal", "--iters", str(ITERS),
           "--warmup", str(WARMUP)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    for line in reversed(r.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)["median_ms"]
    raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()[-300:]}")


def cudnn(B, H, S):
    q, k, v = (torch.randn(B, H, S, 128, device="cuda", dtype=torch.half) for _ in range(3))
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return time_torch(lambda: F.scaled_dot_product_attention(q, k, v, scale=0.08838834764831845),
                          iters=ITERS, warmup=WARMUP)


def fit(points):
    n = len(points)
    sx = sum(p[0] for p in points)
    sy = sum(p[1] for p in points)
    sxx = sum(p[0] * p[0] for p in points)
    sxy = sum(p[0] * p[1] for p in points)
    t = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    return (sy - t * sx) / n, t


def main():
    binary, impls = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    timers = [(label, lambda B, H, S, b=bundle: tessera(binary, b, B, H, S)) for label, bundle in impls]
    timers.append(("cudnn", cudnn))
    for waves in (1, 4):
        for label, timer in timers:
            pts = []
            for n in NS:
                B, H, S = 1, waves * 128 // n, 128 * n
                try:
                    ms = timer(B, H, S)
                except Exception as ex:
                    print(json.dumps({"kind": "point", "impl": label, "waves": waves, "n": n,
                                      "error": str(ex)[:200]}), flush=True)
                    continue
                pts.append((n, ms * 1000))
                print(json.dumps({"kind": "point", "impl": label, "waves": waves, "n": n,
                                  "B": B, "H": H, "S": S, "us": round(ms * 1000, 2)}), flush=True)
            if len(pts) >= 2:
                a, t = fit(pts)
                print(json.dumps({"kind": "fit", "impl": label, "waves": waves,
                                  "fixed_us": round(a, 2), "per_key_block_us": round(t, 3),
                                  "fixed_per_block_us": round(a / waves, 2)}), flush=True)


if __name__ == "__main__":
    main()
