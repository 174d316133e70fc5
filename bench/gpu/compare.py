#!/usr/bin/env python3
"""Reads the JSON lines of bench/gpu/run.sh and prints tessera / peer ratios."""
import json
import sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
tess = [r for r in rows if "kernel" in r]
peers = [r for r in rows if r.get("impl")]


def peer(bench, **key):
    out = {}
    for r in peers:
        if r.get("bench") == bench and all(r.get(k) == v for k, v in key.items()) and "ms" in r \
                and not r["impl"].endswith("_config"):
            out[r["impl"]] = r["ms"]
    return out


print("\n| kernel | shape | tessera ms | tessera TFLOP/s | peer | peer ms | tessera / peer speed |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for r in tess:
    sym = r.get("symbols", {})
    shape = ",".join(f"{k}={v}" for k, v in sym.items())
    ms = r["median_ms"]
    tf = r.get("gflops", 0) / 1000
    k = r["kernel"]
    if k.startswith("gemm"):
        bench = "gemm_relu" if k == "gemm_relu" else "gemm"
        found = peer(bench, M=sym.get("M"), dtype=r.get("dtype", "f16"))
    elif k.startswith("flash"):
        causal = r.get("scalars", {}).get("causal", "0") != "0"
        shape += ",causal=%d" % causal
        found = peer("attention", S=sym.get("S"), causal=causal)
    else:
        found = {}
    for impl, pms in sorted(found.items()):
        print(f"| {k} | {shape} | {ms:.3f} | {tf:.0f} | {impl} | {pms:.3f} | {pms / ms:.2f}x |")
    if not found:
        print(f"| {k} | {shape} | {ms:.3f} | {tf:.0f} | - | - | - |")
