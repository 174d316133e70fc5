#!/usr/bin/env bash
# ncu account of the slowest kernels on the distribution path (bundles from
# scripts/gpu/prepare-zoo.sh and .devcarry/nofast): speed of light, tensor
# pipe use, occupancy, top warp stall reasons. Text reports go to $OUT.
set -uo pipefail
source "$(dirname "$0")/common.sh"
metrics=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio
prof() { # name, bundle, args...
  local name="$1" bundle="$2"; shift 2
  ncu --metrics "$metrics" -k regex:tessera_kernel --launch-count 1 \
    "$bin/tessera" run "$bundle" --device cuda --iters 1 --warmup 0 --no-check "$@" \
    > "$out/ncu-$name.txt" 2>&1
  echo "== $name"; grep -E "^\s+(gpu__|sm__|dram__|launch__|smsp__)" "$out/ncu-$name.txt" | awk '{print "  " $1, $(NF)}'
}
prof gemm-dist .devcarry/nofast/gemm.tsb --shape M=4096,N=4096,K=4096
prof attention-dist .devcarry/nofast/flash_attention_fwd.tsb --shape B=4,H=16,S=4096 --scalar causal=0 --scalar sm_scale=0.088
prof bf16-64x64 .devcarry/zoo/gemm_bf16_64x64_rowbias.tsb --shape M=4096,N=4096,K=4096
prof splitk .devcarry/zoo/gemm_splitk_f32.tsb --shape M=4096,N=4096,K=4096
prof linear-f32-nt .devcarry/zoo/linear_f32_nt.tsb --shape M=4096,N=4096,K=4096
