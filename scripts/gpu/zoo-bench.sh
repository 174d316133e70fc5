#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu/prepare.sh and prepare-zoo.sh here:
# every zoo kernel against its torch equivalent (bench/gpu/zoo.py, JSON
# lines in $OUT/zoo-bench.jsonl), then, with ZOO_NCU=1, an ncu account of
# the attention kernels next to SDPA's flash kernel on the same case.
set -uo pipefail
source "$(dirname "$0")/common.sh"
PYTHONUNBUFFERED=1 python3 bench/gpu/zoo.py "$bin/tessera" .devcarry/zoo ${ZOO_CASES:-} | tee "$out/zoo-bench.jsonl"
[ "${ZOO_NCU:-0}" = 1 ] || exit 0
m=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_dispatch_stall.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_sleeping.ratio,smsp__average_warp_latency_issue_stalled_selected.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio
show() { echo "== $1"; grep -E "^\s+(gpu__|sm__|smsp__|launch__)" "$out/ncu-$1.txt" | awk '{print "  " $1, $(NF)}'; }
prof() { local name="$1" bundle="$2"; shift 2
  ncu --metrics "$m" -k regex:tessera_kernel --launch-count 1 "$bin/tessera" run "$bundle" --device cuda \
    --iters 1 --warmup 0 --no-check "$@" > "$out/ncu-$name.txt" 2>&1; show "$name"; }
prof d64causal .devcarry/zoo/attn_fwd_d64_causal_bf16.tsb --shape B=4,H=16,S=4096 --scalar sm_scale=0.125
prof mqa .devcarry/zoo/attn_mqa_d64_bf16.tsb --shape B=4,H=16,S=4096 --scalar sm_scale=0.125
cat > /tmp/fa.py <<'PY'
import torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
q = torch.randn(4, 16, 4096, 64, device="cuda", dtype=torch.bfloat16)
k1 = torch.randn(4, 1, 4096, 64, device="cuda", dtype=torch.bfloat16)
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    F.scaled_dot_product_attention(q, q, q, is_causal=True)
    F.scaled_dot_product_attention(q, k1, k1, enable_gqa=True)
torch.cuda.synchronize()
PY
ncu --metrics "$m" -k regex:flash --launch-count 2 python3 /tmp/fa.py > "$out/ncu-fa2.txt" 2>&1
grep -E "flash|^\s+(gpu__|sm__|smsp__|launch__)" "$out/ncu-fa2.txt" | awk '{print "  " $1, $(NF)}'
