#!/usr/bin/env bash
# On the GPU machine, over .devcarry/vkab (scripts/gpu/prepare-vulkan-ab.sh):
# what NVIDIA's driver compiled of each build's kernels (TESSERA_VULKAN_STATS:
# registers, spills, instruction counts; the cooperative-matrix shapes it
# reports), both builds checked against the host image on odd shapes, then
# gemm 4096 (and 2048, flash attention S1024) timed alternating on/off for two
# rounds, with the CUDA backend's gemm 4096 for the ratio. Results in $OUT.
# Carry: .devcarry .gl   (run: bash scripts/gpu/vulkan-ab.sh)
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
source "$(dirname "$0")/common.sh"
"$bin/tessera" plugins | grep -q "spirv.*ready" ||
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
a=.devcarry/vkab; log="$out/vkab-checks.txt"; : > "$log"; bench="$out/vkab-bench.jsonl"; : > "$bench"
echo "off = $(cat $a/switches.txt)"
budgets=""; for n in $(cat $a/budgets.txt 2>/dev/null); do [ -f $a/b$n/gemm.tsb ] && budgets="$budgets b$n"; done
echo "gemm staging budgets (TESSERA_SPIRV_STAGE_BUDGET):$budgets"
echo "== what the driver compiled"
mkdir -p "$out/vkir"
for s in on off; do
  [ $s = on ] && ir="$out/vkir" || ir=1   # a folder: also the driver's internal representations
  for run in "gemm --shape M=128,N=128,K=128" \
             "flash_attention_fwd --shape B=1,H=1,S=128 --scalar causal=0 --scalar sm_scale=0.0883883"; do
    set -- $run
    TESSERA_VULKAN_STATS=$ir "$bin/tessera" run $a/$s/$1.tsb --device spirv "${@:2}" --iters 1 --warmup 0 \
      --no-check 2>&1 | grep tessera-vk-stats | sort -u | sed "s/^/$s $1: /" | tee -a "$out/vkab-stats.txt" | cut -c1-400
  done
done
for s in $budgets; do
  TESSERA_VULKAN_STATS=1 "$bin/tessera" run $a/$s/gemm.tsb --device spirv --shape M=128,N=128,K=128 --iters 1 --warmup 0 \
    --no-check 2>&1 | grep tessera-vk-stats | sort -u | sed "s/^/$s gemm: /" | tee -a "$out/vkab-stats.txt" | cut -c1-400
done
echo "== checks (against the host image)"
check() { if "$bin/tessera" run "$a/$1/$2.tsb" --device spirv --iters 2 --warmup 1 "${@:3}" >>"$log" 2>&1; then
  echo "ok   $*"; else echo "FAIL $*"; tail -2 "$log"; fi; }
for s in on off; do
  for shp in M=1000,N=1000,K=1000 M=4097,N=1000,K=999 M=1,N=1,K=1 M=257,N=129,K=4097; do
    check $s gemm --shape $shp; check $s gemm_bf16 --shape $shp
  done
  for c in 0 1; do
    check $s flash_attention_fwd --shape B=1,H=2,S=1000 --scalar causal=$c --scalar sm_scale=0.0883883
    check $s flash_attention_fwd --shape B=2,H=1,S=17 --scalar causal=$c --scalar sm_scale=0.0883883
  done
done
for s in $budgets; do
  for shp in M=1000,N=1000,K=1000 M=257,N=129,K=4097; do check $s gemm --shape $shp; done
done
echo "checks passed: $(grep -c 'check: passed' "$log") of $(grep -c 'check:' "$log")"
echo "== timing"
t() { # label bundle device shape [args]
  "$bin/tessera" run "$2" --device "$3" --shape "$4" --iters 20 --warmup 5 --no-check --json "${@:5}" 2>&1 |
    tail -1 | sed "s|^{|{\"build\": \"$1\", \"shape\": \"$4\", |" >> "$bench"; }
for round in 1 2; do
  for s in on off; do
    t $s $a/$s/gemm.tsb spirv M=4096,N=4096,K=4096; t $s $a/$s/gemm.tsb spirv M=2048,N=2048,K=2048
    t $s $a/$s/flash_attention_fwd.tsb spirv B=4,H=16,S=1024 --scalar causal=0 --scalar sm_scale=0.0883883
  done
  for s in $budgets; do t $s $a/$s/gemm.tsb spirv M=4096,N=4096,K=4096; done
  t cuda $a/cuda/gemm.tsb cuda M=4096,N=4096,K=4096
done
python3 - "$bench" <<'PY' | tee "$out/vkab-table.txt"
import json, sys, collections
d = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except Exception: continue
    if "median_ms" in r: d[(r.get("kernel"), r["shape"])][r["build"]].append(r["median_ms"])
cuda = min(d.get(("gemm", "M=4096,N=4096,K=4096"), {}).get("cuda", [0]))
for (k, s), b in d.items():
    if "on" not in b: continue
    on, off = min(b["on"]), min(b.get("off", [0]))
    ratio = f"  cuda/on {cuda / on:.2f}x (cuda {cuda:.3f})" if k == "gemm" and s.startswith("M=4096") and cuda else ""
    print(f"{k:22s} {s:24s} on {on:7.3f} ms {b['on']}  off {off:7.3f} ms {b.get('off')}  off/on {off / on:.2f}{ratio}")
    for o in sorted(x for x in b if x.startswith("b")):
        print(f"{'':22s} {'':24s} {o:3s} {min(b[o]):7.3f} ms {b[o]}  {o}/on {min(b[o]) / on:.2f}" + (f"  cuda/{o} {cuda / min(b[o]):.2f}x" if cuda else ""))
PY
