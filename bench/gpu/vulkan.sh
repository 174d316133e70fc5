#!/usr/bin/env bash
# The Vulkan backend against the CUDA backend on one NVIDIA GPU, in one run:
# the same kernels from bundles holding both images (sm_90a and nvidia-vk,
# scripts/gpu/prepare-vulkan.sh), timed by `tessera run --json` on each
# device. Prints JSON lines, then the ratios (Vulkan time / CUDA time as
# throughput: cuda_ms / vulkan_ms).
#   bench/gpu/vulkan.sh <tessera bin dir> <bundle dir>
set -uo pipefail
bin="$1"; bundles="$2"
out="${OUT:-/tmp}/bench-vulkan.jsonl"
: > "$out"
run() { # device, bundle, shape, flops, extra args...
  local d="$1" b="$2" shape="$3" flops="$4"; shift 4
  "$bin/tessera" run "$bundles/$b" --device "$d" --shape "$shape" --flops "$flops" \
    --iters 20 --warmup 5 --json --no-check "$@" | tee -a "$out"
}
for n in 1024 2048 4096; do
  for d in cuda spirv; do run $d gemm.3.tsb "M=$n,N=$n,K=$n" "2*M*N*K"; done
done
for s in 1024 4096; do
  for c in 0 1; do
    flops="4*B*H*S*S*128"; [ $c = 1 ] && flops="2*B*H*S*S*128"
    for d in cuda spirv; do
      run $d flash_attention_fwd.3.tsb "B=4,H=16,S=$s" "$flops" --scalar causal=$c \
        --scalar sm_scale=0.08838834764831845
    done
  done
done
python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = {}
for r in rows:
    key = (r.get("kernel"), json.dumps(r.get("symbols"), sort_keys=True),
           json.dumps(r.get("scalars"), sort_keys=True))
    api = "spirv" if r.get("triple", "").startswith("spirv") else "cuda"
    by.setdefault(key, {})[api] = r
print("kernel | shape | cuda ms | vulkan ms | vulkan/cuda throughput")
for (k, shape, sc), d in by.items():
    if "cuda" in d and "spirv" in d:
        c, v = d["cuda"]["median_ms"], d["spirv"]["median_ms"]
        print(f"{k} | {shape} {sc} | {c:.3f} | {v:.3f} | {c / v:.2f}x")
PY
