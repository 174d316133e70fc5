#!/usr/bin/env bash
# On the GPU machine, over .devcarry/ (scripts/gpu/prepare.sh and
# prepare-zoo.sh): ncu's view of the zoo kernels that run below 0.9x of
# their torch equivalents, each beside its peer's kernel in the same call.
#   prof-<name>.txt   ncu --page details (speed of light, memory workload,
#                     occupancy, warp state) of tessera's kernel and the peer's
#   src-<name>.txt    per-SASS-instruction stall samples of tessera's kernel
#                     (the 40 instructions with most samples)
# Usage (device tool, carry .devcarry): bash scripts/gpu/zoo-profile.sh [names]
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
secs=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy
      --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis)
# prof NAME BUNDLE SHAPE SCALARS PEER-REGEX PEER-PYTHON
prof() {
  local name=$1 bundle=$2 shape=$3 scalars=$4 peerk=$5 peerpy=$6 f="$out/prof-$1.txt"
  echo "== tessera $name $shape" > "$f"
  # shellcheck disable=SC2086
  timeout 200 ncu "${secs[@]}" --section SourceCounters -k regex:tessera_kernel --launch-count 1 \
    -o /tmp/rep-$name -f "$bin/tessera" run "$bundle" --device cuda --iters 1 --warmup 0 --no-check \
    --shape "$shape" $scalars > /tmp/ncu-$name.log 2>&1 || tail -5 /tmp/ncu-$name.log >> "$f"
  ncu --import /tmp/rep-$name.ncu-rep --page details >> "$f" 2>&1
  ncu --import /tmp/rep-$name.ncu-rep --page source --csv --print-source sass > /tmp/src-$name.csv 2>/dev/null
  python3 scripts/gpu/ncu-source-top.py /tmp/src-$name.csv > "$out/src-$name.txt" 2>&1 || true
  echo "== peer $name ($peerk)" >> "$f"
  timeout 200 ncu "${secs[@]}" -k "regex:$peerk" --launch-skip 2 --launch-count 1 \
    python3 -c "$peerpy" >> "$f" 2>&1
  grep -E "^== |Duration|DRAM Throughput|Memory Throughput|L2 Hit|L1/TEX Hit|Achieved Occupancy|Registers Per|Block Size|Grid Size|Compute \(SM\)|Dynamic Shared|Theoretical Occ|Warp Cycles Per Issued|Issue Slots Busy|Bank" "$f" | head -70
}
pre='import torch, torch.nn.functional as F
torch.manual_seed(0)
'
prof layernorm .devcarry/zoo/layernorm_f32_16k.tsb M=4096,N=16384 "--scalar eps=1e-5" "layer_norm|LayerNorm|vectorized" \
  "$pre
X = torch.randn(4096, 16384, device='cuda'); g = torch.randn(16384, device='cuda'); b = torch.randn(16384, device='cuda')
for _ in range(5): F.layer_norm(X, (16384,), g, b, eps=1e-5)
torch.cuda.synchronize()"
prof colscale .devcarry/zoo/gemm_f32_256x128_colscale.tsb M=4096,N=4096,K=4096 "" "gemm|sgemm|cutlass|xmma" \
  "$pre
torch.backends.cuda.matmul.allow_tf32 = False
A = torch.randn(4096, 4096, device='cuda'); B = torch.randn(4096, 4096, device='cuda')
for _ in range(5): A @ B
torch.cuda.synchronize()"
prof mqa .devcarry/zoo/attn_mqa_d64_bf16.tsb B=4,H=16,S=4096 "--scalar sm_scale=0.125" "cudnn|fmha|sm90|flash" \
  "$pre
from torch.nn.attention import sdpa_kernel, SDPBackend
q = torch.randn(4, 16, 4096, 64, device='cuda', dtype=torch.bfloat16)
k = torch.randn(4, 1, 4096, 64, device='cuda', dtype=torch.bfloat16); v = torch.randn_like(k)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(5): F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()"
