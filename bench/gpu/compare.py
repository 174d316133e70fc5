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
        if r.get("bench") == bench and all(r.get(k) == v for k, v in key.items()) and "ms" in r:
            out[r["impl"]] = r["ms"]
    return out


print("\n| kernel | shape | tessera ms | peer | peer ms | speed vs peer |")
print("| --- | --- | --- | --- | --- | --- |")
for r in tess:
    shape = r.get("shape", "")
    ms = r["median_ms"]
    k = r["kernel"]
    if k.startswith("gemm"):
        n = r.get("M")
        bench = "gemm_relu" if k == "gemm_relu" else "gemm"
        found = peer(bench, M=n, dtype=r.get("dtype", "f16")) if n else {}
    elif k.startswith("flash"):
        found = peer("attention", S=r.get("S"), causal=bool(r.get("causal")))
    else:
        found = {}
    for impl, pms in sorted(found.items()):
        print(f"| {k} | {shape} | {ms:.3f} | {impl} | {pms:.3f} | {pms / ms:.2f}x |")
    if not found:
        print(f"| {k} | {shape} | {ms:.3f} | - | - | - |")
