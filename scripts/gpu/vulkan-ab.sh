#!/usr/bin/env bash
# On the GPU machine, over .devcarry/vkab (scripts/gpu/prepare-vulkan-ab.sh):
# what NVIDIA's driver compiled of each build's kernels (TESSERA_VULKAN_STATS:
# registers, spills, instruction counts; the cooperative-matrix shapes it
# reports), every build checked against the host image on odd shapes, then
# gemm 4096 and 2048 (flash attention S1024 for on/off) timed for two rounds,
# the default ("on"), the earlier switches off ("off") and each variant of
# variants.txt alternating, with the CUDA backend's gemm 4096 for the ratio.
# Results in $OUT: vkab-table.txt (one line per build: registers, local
# memory, ms at 4096 and 2048, against the default and CUDA), vkab-stats.txt,
# vkab-bench.jsonl, vkab-checks.txt.
# Carry: .devcarry .gl   (run: bash scripts/gpu/vulkan-ab.sh)
# A dry run on another Vulkan device (bundles from VKAB_TARGET=...:lavapipe):
#   VKAB_LOCAL=1 VKAB_SIZES="256 128" VKAB_ATTN=B=1,H=1,S=64 bash scripts/gpu/vulkan-ab.sh
set -uo pipefail
if [ "${VKAB_LOCAL:-0}" != 1 ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
fi
source "$(dirname "$0")/common.sh"
"$bin/tessera" plugins | grep -q "spirv.*ready" ||
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
a=.devcarry/vkab; log="$out/vkab-checks.txt"; : > "$log"; bench="$out/vkab-bench.jsonl"; : > "$bench"
stats="$out/vkab-stats.txt"; : > "$stats"
read -r big mid <<< "${VKAB_SIZES:-4096 2048}"
attn="${VKAB_ATTN:-B=4,H=16,S=1024}"
echo "off = $(cat $a/switches.txt)"
variants=""
while read -r label envs; do
  [ -f "$a/v-$label/gemm.tsb" ] && variants="$variants v-$label" && echo "v-$label = $envs"
done < $a/variants.txt
echo "== what the driver compiled"
mkdir -p "$out/vkir"
for s in on off; do
  [ $s = on ] && ir="$out/vkir" || ir=1   # a folder: also the driver's internal representations
  for run in "gemm --shape M=128,N=128,K=128" \
             "flash_attention_fwd --shape B=1,H=1,S=128 --scalar causal=0 --scalar sm_scale=0.0883883"; do
    set -- $run
    TESSERA_VULKAN_STATS=$ir "$bin/tessera" run $a/$s/$1.tsb --device spirv "${@:2}" --iters 1 --warmup 0 \
      --no-check 2>&1 | grep tessera-vk-stats | sort -u | sed "s/^/$s $1: /" | tee -a "$stats" | grep -v "cooperative matrix [0-9]" | cut -c1-400
  done
done
for s in $variants; do
  TESSERA_VULKAN_STATS=1 "$bin/tessera" run $a/$s/gemm.tsb --device spirv --shape M=128,N=128,K=128 --iters 1 --warmup 0 \
    --no-check 2>&1 | grep tessera-vk-stats | grep -v "cooperative matrix [0-9]" | sort -u | sed "s/^/$s gemm: /" | tee -a "$stats" | cut -c1-400
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
for s in $variants; do
  for shp in M=1000,N=1000,K=1000 M=1,N=1,K=1 M=257,N=129,K=4097; do check $s gemm --shape $shp; done
done
echo "checks passed: $(grep -c 'check: passed' "$log") of $(grep -c 'check:' "$log")"
echo "== timing"
t() { # label bundle device shape [args]
  "$bin/tessera" run "$2" --device "$3" --shape "$4" --iters 20 --warmup 5 --no-check --json "${@:5}" 2>&1 |
    tail -1 | sed "s|^{|{\"build\": \"$1\", \"shape\": \"$4\", |" >> "$bench"; }
B="M=$big,N=$big,K=$big"; Mid="M=$mid,N=$mid,K=$mid"
for round in 1 2; do
  for s in on off; do
    t $s $a/$s/gemm.tsb spirv $B; t $s $a/$s/gemm.tsb spirv $Mid
    t $s $a/$s/flash_attention_fwd.tsb spirv $attn --scalar causal=0 --scalar sm_scale=0.0883883
  done
  for s in $variants; do
    t $s $a/$s/gemm.tsb spirv $B; t $s $a/$s/gemm.tsb spirv $Mid
    t on $a/on/gemm.tsb spirv $B   # the default between the variants: drift shows
  done
  t cuda $a/cuda/gemm.tsb cuda "M=4096,N=4096,K=4096"
done
python3 - "$bench" "$stats" "$B" "$Mid" <<'PY' | tee "$out/vkab-table.txt"
import json, sys, collections, re
bench, stats, big, mid = sys.argv[1:5]
d = collections.defaultdict(lambda: collections.defaultdict(list))
order = []
for l in open(bench):
    try: r = json.loads(l)
    except Exception: continue
    if "median_ms" not in r: continue
    d[(r.get("kernel"), r["shape"])][r["build"]].append(r["median_ms"])
    if r["build"] not in order: order.append(r["build"])
regs, local = {}, {}
for l in open(stats):
    m = re.match(r"(\S+) gemm: .*Register Count = (\d+);.*Local Memory Size = (\d+)", l)
    if m: regs[m.group(1)], local[m.group(1)] = m.group(2), m.group(3)
cuda = min(d.get(("gemm", "M=4096,N=4096,K=4096"), {}).get("cuda", [0]))
g4, g2 = d.get(("gemm", big), {}), d.get(("gemm", mid), {})
on4 = min(g4.get("on", [0])) or 1
on2 = min(g2.get("on", [0])) or 1
print(f"gemm.mlir f16: best of the rounds' medians (ms); CUDA backend's gemm 4096: {cuda:.3f} ms")
print(f"{'build':16s} {'regs':>4s} {'local B':>7s} {big:>18s} {'x on':>5s} {'cuda/x':>6s} {mid:>18s} {'x on':>5s}  runs at {big}")
for b in order:
    if b == "cuda" or b not in g4: continue
    v4 = min(g4[b]); v2 = min(g2.get(b, [0])) if g2.get(b) else 0
    print(f"{b:16s} {regs.get(b, '?'):>4s} {local.get(b, '?'):>7s} {v4:18.3f} {v4 / on4:5.2f} {cuda / v4 if cuda else 0:6.2f} {v2:18.3f} {v2 / on2 if v2 else 0:5.2f}  {g4[b]}")
for (k, s), b in d.items():
    if k == "flash_attention_fwd" and "on" in b:
        print(f"flash_attention_fwd {s}: on {min(b['on']):.3f} ms {b['on']}  off {min(b.get('off', [0])):.3f} ms {b.get('off')}")
PY
