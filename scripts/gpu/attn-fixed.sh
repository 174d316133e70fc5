#!/usr/bin/env bash
# On the GPU machine, over .devcarry/ (scripts/gpu/prepare.sh, plus
# .devcarry/p/pers/flash_attention_fwd_q128.tsb built with
# TESSERA_PERSISTENT=1): where a short attention's time goes.
#   waves.jsonl      bench/gpu/attn_waves.py: fixed and per-key-block cost
#                    of tessera (default, persistent) and cuDNN
#   ncu-src-*.txt    ncu's per-SASS-instruction warp stall samples of the
#                    q128 program (B4 H16 S1024, and S128 with 512 blocks),
#                    the 40 instructions with most samples, and the samples
#                    before the first wgmma / after the last one
# Usage (device tool, carry .devcarry): bash scripts/gpu/attn-fixed.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv,noheader
q=.devcarry/bundles/flash_attention_fwd_q128.tsb
timeout 300 python3 bench/gpu/attn_waves.py "$bin/tessera" def=$q pers=.devcarry/p/pers/flash_attention_fwd_q128.tsb \
  | tee "$out/waves.jsonl"
src() { # name shape
  timeout 120 ncu --section SourceCounters --section WarpStateStats -k regex:tessera_kernel --launch-count 1 \
    -o /tmp/rep-$1 -f "$bin/tessera" run $q --device cuda --iters 1 --warmup 0 --no-check \
    --shape "$2" --scalar causal=0 --scalar sm_scale=0.088 > /tmp/ncu-$1.log 2>&1
  ncu --import /tmp/rep-$1.ncu-rep --page source --csv --print-source sass > /tmp/src-$1.csv 2>/tmp/src-$1.err
  python3 scripts/gpu/ncu-source-top.py /tmp/src-$1.csv > "$out/ncu-src-$1.txt" 2>&1 || head -c 3000 /tmp/src-$1.csv /tmp/src-$1.err >> "$out/ncu-src-$1.txt"
  ncu --import /tmp/rep-$1.ncu-rep --page details >> "$out/ncu-src-$1.txt" 2>&1
  gzip -c /tmp/src-$1.csv > "$out/src-$1.csv.gz"
  head -60 "$out/ncu-src-$1.txt"
}
src s1024 B=4,H=16,S=1024
src s128 B=4,H=128,S=128
