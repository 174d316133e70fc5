#!/usr/bin/env bash
# Runs on the GPU machine over what scripts/gpu/prepare-vulkan.sh made: the
# Vulkan plugin's tests, every example and zoo kernel through NVIDIA's Vulkan
# driver checked against the bundle's host image on odd shapes, the
# three-device bundle on each device, the cooperative matrices in the
# SPIR-V, and bench/gpu/vulkan.sh. Results go to $OUT.
# Carry: .devcarry .gl   (run: bash scripts/gpu/vulkan.sh)
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
source "$(dirname "$0")/common.sh"
if ! "$bin/tessera" plugins | grep -q "spirv.*ready"; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
"$bin/tessera" plugins | tee "$out/device.txt"

echo "== Vulkan runtime plugin tests"
"$bin"/tessera_spirv_runtime_test --gtest_brief=1 > "$out/unit.txt" 2>&1
grep -E "FAILED|Failure|PASSED|SKIPPED" "$out/unit.txt" | head -20

echo "== examples through Vulkan (checked against the host image)"
b=.devcarry/vk
check() { "$bin/tessera" run "$b/$1" --device spirv --iters 2 "${@:2}" >>"$out/examples.txt" 2>&1 \
            && echo "ok   $*" || { echo "FAIL $*"; tail -3 "$out/examples.txt"; }; }
for s in M=1000,N=1000,K=1000 M=4097,N=1000,K=999 M=1,N=1,K=1 M=257,N=129,K=4097; do
  check gemm.tsb --shape $s; check gemm_relu.tsb --shape $s; check gemm_bf16.tsb --shape $s
  check gemm_bias_relu.tsb --shape $s
done
check gemm_f32.tsb --shape M=1000,N=1000,K=1000
for k in gemm_fp8 gemm_fp8_e5m2; do check gemm_fp8.tsb --kernel $k --shape M=1031,N=517,K=272; done
check softmax.tsb --shape M=1000,N=4097; check softmax.tsb --shape M=1,N=1
check rmsnorm.tsb --shape M=333,N=4097 --scalar eps=1e-5
check elementwise_add.tsb --shape N=4097; check elementwise_add.tsb --shape N=1
for c in 0 1; do
  check flash_attention_fwd.tsb --shape B=1,H=2,S=1000 --scalar causal=$c --scalar sm_scale=0.0883883
  check flash_attention_fwd.tsb --shape B=2,H=1,S=17 --scalar causal=$c --scalar sm_scale=0.0883883
  check flash_attention_fwd_q128.tsb --shape B=1,H=2,S=1000 --scalar causal=$c --scalar sm_scale=0.0883883
  check flash_attention_fwd_q128.tsb --shape B=2,H=1,S=17 --scalar causal=$c --scalar sm_scale=0.0883883
done
echo "examples passed: $(grep -c 'check: passed' "$out/examples.txt")" | tee "$out/examples-summary.txt"

echo "== zoo through Vulkan"
while read -r bundle args; do
  if eval "\"$bin/tessera\" run $bundle --device spirv $args --iters 1" >>"$out/zoo.txt" 2>&1; then
    echo "ok   $(basename "$bundle")"
  else
    echo "FAIL $(basename "$bundle") $args"; tail -3 "$out/zoo.txt"
  fi
done < .devcarry/vkzoo/list.txt | tee "$out/zoo-summary.txt"

echo "== one bundle, three devices"
for d in cuda spirv cpu; do
  "$bin/tessera" run "$b/gemm.3.tsb" --device $d --shape M=300,N=200,K=100 --iters 2 2>&1 | head -3
done | tee "$out/three-devices.txt"

echo "== benchmarks: Vulkan against CUDA in one run"
OUT="$out" bench/gpu/vulkan.sh "$bin" "$b" > "$out/bench.txt" 2>&1
tail -20 "$out/bench.txt"
