#!/usr/bin/env bash
# On the GPU machine, over .devcarry/ (scripts/gpu/prepare.sh, plus bundles of
# kernels in .devcarry/variants/): runs every kernel that takes the
# distribution path on odd shapes against the bundle's CPU image, dumps the
# SASS instruction mix of each, and times the matrix kernels against torch.
set -uo pipefail
source "$(dirname "$0")/common.sh"
b=.devcarry/bundles; v=.devcarry/variants
log="$out/distribution.txt"; : > "$log"
while read -r bundle args; do
  [ -n "$bundle" ] && check $bundle $args
done <<LIST
$b/softmax.tsb --shape M=1000,N=4097
$b/softmax.tsb --shape M=1,N=1
$b/rmsnorm.tsb --shape M=333,N=4097 --scalar eps=1e-5
$b/elementwise_add.tsb --shape N=4097
$b/elementwise_add.tsb --shape N=1
$b/gemm_f32.tsb --shape M=1000,N=1000,K=1000
$b/gemm_f32.tsb --shape M=17,N=1,K=33
$v/linear_nt.tsb --shape M=1000,N=1000,K=1000
$v/linear_nt.tsb --shape M=4097,N=129,K=999
$v/linear_nt.tsb --shape M=1,N=1,K=1
$v/gemm_128x256.tsb --shape M=1000,N=1000,K=1000
$v/gemm_128x256.tsb --shape M=257,N=17,K=4097
$v/attn_d64.tsb --shape B=1,H=2,S=1000 --scalar causal=0 --scalar sm_scale=0.125
$v/attn_d64.tsb --shape B=2,H=1,S=17 --scalar causal=1 --scalar sm_scale=0.125
LIST
for f in $v/*.tsb; do
  for arg in $(cat "${f%.tsb}.extra" 2>/dev/null); do :; done
done
# The examples with the host image (.devcarry/nofast, scripts/gpu/prepare.sh
# bundles hold the device image alone); .devcarry/fastpath (optional) holds
# bundles of the retired whole-kernel fast paths to time against.
n=.devcarry/nofast
if [ -d $n ]; then
  while read -r bundle args; do
    [ -n "$bundle" ] && check $bundle $args
  done <<LIST
$n/gemm.tsb --shape M=1000,N=1000,K=1000
$n/gemm.tsb --shape M=4097,N=1000,K=999
$n/gemm.tsb --shape M=1,N=1,K=1
$n/gemm_bf16.tsb --shape M=257,N=129,K=4097
$n/gemm_relu.tsb --shape M=1000,N=1000,K=1000
$n/gemm_bias_relu.tsb --shape M=4097,N=1000,K=999
$n/flash_attention_fwd.tsb --shape B=1,H=2,S=1000 --scalar causal=0 --scalar sm_scale=0.0883883
$n/flash_attention_fwd.tsb --shape B=1,H=2,S=1000 --scalar causal=1 --scalar sm_scale=0.0883883
$n/flash_attention_fwd.tsb --shape B=2,H=1,S=17 --scalar causal=1 --scalar sm_scale=0.0883883
$n/gemm_fp8.tsb --kernel gemm_fp8 --shape M=1031,N=517,K=272
$n/gemm_fp8.tsb --kernel gemm_fp8_e5m2 --shape M=200,N=300,K=100
LIST
  for g in $n/gemm.tsb $(ls .devcarry/fastpath/gemm.tsb 2>/dev/null); do
    for s in 4096 8192; do
      "$bin/tessera" run $g --device cuda --shape M=$s,N=$s,K=$s --flops 2*M*N*K --iters 20 --warmup 5 --no-check --json | sed "s|^{|{\"bundle\": \"$g\", |" | tee -a "$out/bench.jsonl"
    done
  done
  for g in $n/gemm_bf16.tsb $n/gemm_fp8.tsb $(ls .devcarry/fastpath/gemm_bf16.tsb .devcarry/fastpath/gemm_fp8.tsb 2>/dev/null); do
    "$bin/tessera" run $g --device cuda --shape M=4096,N=4096,K=4096 --flops 2*M*N*K --iters 20 --warmup 5 --no-check --json | sed "s|^{|{\"bundle\": \"$g\", |" | tee -a "$out/bench.jsonl"
  done
  for g in $n/flash_attention_fwd.tsb $(ls .devcarry/fastpath/flash_attention_fwd.tsb 2>/dev/null); do
    for c in 0 1; do
      f="4*B*H*S*S*128"; [ $c = 1 ] && f="2*B*H*S*S*128"
      "$bin/tessera" run $g --device cuda --shape B=4,H=16,S=4096 --flops $f --iters 10 --warmup 3 --no-check --json --scalar causal=$c --scalar sm_scale=0.0883883 | sed "s|^{|{\"bundle\": \"$g\", |" | tee -a "$out/bench.jsonl"
    done
  done
fi
# Timing: tessera vs torch at 4096.
for k in linear_nt gemm_128x256; do
  "$bin/tessera" run $v/$k.tsb --device cuda --shape M=4096,N=4096,K=4096 --flops 2*M*N*K --iters 20 --warmup 5 --no-check --json | tee -a "$out/bench.jsonl"
done
"$bin/tessera" run $v/attn_d64.tsb --device cuda --shape B=4,H=16,S=4096 --flops 4*B*H*S*S*64 --iters 10 --warmup 3 --no-check --json --scalar causal=0 --scalar sm_scale=0.125 | tee -a "$out/bench.jsonl"
python3 - <<'PY' | tee -a "$out/bench.jsonl"
import json, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
def t(fn, it=20):
    for _ in range(5): fn()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    torch.cuda.synchronize(); s.record()
    for _ in range(it): fn()
    e.record(); torch.cuda.synchronize(); return s.elapsed_time(e) / it
n = 4096
a = torch.randn(n, n, device="cuda", dtype=torch.half); w = torch.randn(n, n, device="cuda", dtype=torch.half)
ms = t(lambda: F.linear(a, w)); print(json.dumps({"peer": "torch F.linear (x W^T)", "n": n, "ms": ms, "tflops": 2*n**3/ms/1e9}))
ms = t(lambda: a @ w); print(json.dumps({"peer": "torch.matmul", "n": n, "ms": ms, "tflops": 2*n**3/ms/1e9}))
a8 = torch.randn(8192, 8192, device="cuda", dtype=torch.half)
ms = t(lambda: a8 @ a8); print(json.dumps({"peer": "torch.matmul", "n": 8192, "ms": ms, "tflops": 2*8192**3/ms/1e9}))
b16 = a.bfloat16(); w16 = w.bfloat16()
ms = t(lambda: b16 @ w16); print(json.dumps({"peer": "torch.matmul bf16", "n": n, "ms": ms}))
f32 = a.float(); torch.backends.cuda.matmul.allow_tf32 = False
ms = t(lambda: f32 @ f32); print(json.dumps({"peer": "torch.matmul f32 (no tf32)", "n": n, "ms": ms}))
a8 = a.to(torch.float8_e4m3fn); w8 = w.to(torch.float8_e4m3fn).t()
one = torch.ones((), device="cuda")
ms = t(lambda: torch._scaled_mm(a8, w8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)); print(json.dumps({"peer": "torch._scaled_mm e4m3", "n": n, "ms": ms}))
i8 = torch.randint(-8, 8, (n, n), device="cuda", dtype=torch.int8)
ms = t(lambda: torch._int_mm(i8, i8)); print(json.dumps({"peer": "torch._int_mm", "n": n, "ms": ms}))
for name, d, dt, causal, hkv in (("attn d64 causal bf16", 64, torch.bfloat16, True, 16),
                                  ("attn gqa d128 causal (16/4 heads)", 128, torch.half, True, 4),
                                  ("attn d256 non-causal f16", 256, torch.half, False, 16)):
    qz = torch.randn(4, 16, 4096, d, device="cuda", dtype=dt)
    kz = torch.randn(4, hkv, 4096, d, device="cuda", dtype=dt)
    for be in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
        try:
            with sdpa_kernel(be):
                ms = t(lambda: F.scaled_dot_product_attention(qz, kz, kz, is_causal=causal, enable_gqa=hkv != 16), 5)
            print(json.dumps({"peer": f"sdpa {be.name} {name}", "ms": ms}))
        except Exception as ex:
            print(json.dumps({"peer": f"sdpa {be.name} {name}", "error": str(ex)[:120]}))
qd = torch.randn(4, 16, 4096, 128, device="cuda", dtype=torch.half)
for causal in (False, True):
    for be in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
        with sdpa_kernel(be):
            ms = t(lambda: F.scaled_dot_product_attention(qd, qd, qd, is_causal=causal), 10)
        print(json.dumps({"peer": f"sdpa {be.name} d128 causal={causal}", "ms": ms}))
q = torch.randn(4, 16, 4096, 64, device="cuda", dtype=torch.half)
for be in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
    try:
        with sdpa_kernel(be):
            ms = t(lambda: F.scaled_dot_product_attention(q, q, q), 10)
        print(json.dumps({"peer": f"sdpa {be.name} d64", "ms": ms, "tflops": 4*4*16*4096*4096*64/ms/1e9}))
    except Exception as ex: print(json.dumps({"peer": str(be), "error": str(ex)[:200]}))
PY
# SASS instruction mix of the distributed kernels.
for f in $v/*.tsb $b/softmax.tsb .devcarry/nofast/gemm.tsb .devcarry/nofast/flash_attention_fwd.tsb; do
  python3 scripts/gpu/extract-cubin.py "$f" "$out/k.cubin"
  cuobjdump -sass "$out/k.cubin" > "$out/k.sass" 2>&1
  echo "$(basename $f): $(for op in HGMMA HMMA LDSM LDGSTS UTMALDG SYNCS LDL STL FFMA BAR; do printf '%s=%s ' $op $(grep -c "$op" "$out/k.sass"); done)"
done | tee "$out/sass.txt"
rm -f "$out/k.cubin" "$out/k.sass"
echo "checks passed: $(grep -c 'check: passed' "$log") of $(grep -c 'check:' "$log")"
# The kernel zoo (bundles and shapes from scripts/gpu/prepare-zoo.sh).
if [ -f .devcarry/zoo/list.txt ]; then
  zlog="$out/zoo.txt"; : > "$zlog"
  while read -r bundle args; do
    if "$bin/tessera" run $bundle --device cuda --iters 2 --warmup 1 $args >>"$zlog" 2>&1; then echo "ok   zoo $(basename $bundle) $args"; else echo "FAIL zoo $(basename $bundle) $args"; fi
  done < .devcarry/zoo/list.txt | tee "$out/zoo-summary.txt"
  # The zoo's GEMMs at 4096 (their torch equivalents are timed below).
  for k in gemm_bf16_64x64_rowbias gemm_bf16_128x128_colbias_gelu gemm_bf16_128x256_silu \
           gemm_f32_256x128_colscale linear_f32_nt gemm_f16_at_rowscale gemm_bf16_tt \
           gemm_fp8_128x256_scaled gemm_i8_i32 gemm_splitk_f32; do
    "$bin/tessera" run .devcarry/zoo/$k.tsb --device cuda --shape M=4096,N=4096,K=4096 --flops 2*M*N*K \
      --iters 10 --warmup 3 --no-check --json 2>&1 | tail -1 | tee -a "$out/bench.jsonl"
  done
  "$bin/tessera" run .devcarry/zoo/gemm_fp8_blockscale.tsb --device cuda --shape M=4096,N=4096,K=4096,KB=32,NB=32 \
    --flops 2*M*N*K --iters 10 --warmup 3 --no-check --json 2>&1 | tail -1 | tee -a "$out/bench.jsonl"
  # Zoo attention at S 4096 (SDPA peers below).
  z=.devcarry/zoo
  for spec in "attn_fwd_d64_causal_bf16 B=4,H=16,S=4096 2*B*H*S*S*64" \
              "attn_gqa_d128_causal B=4,Hq=16,Hkv=4,S=4096 2*B*Hq*S*S*128" \
              "attn_fwd_d256_cross_f16 B=4,H=16,Sq=4096,Skv=4096 4*B*H*Sq*Skv*256"; do
    set -- $spec
    sc=0.125; [ "$1" = attn_fwd_d256_cross_f16 ] && sc=0.0625
    "$bin/tessera" run $z/$1.tsb --device cuda --shape $2 --flops "$3" --scalar sm_scale=$sc \
      --iters 5 --warmup 2 --no-check --json 2>&1 | tail -1 | tee -a "$out/bench.jsonl"
  done
  echo "zoo checks passed: $(grep -c 'check: passed' "$zlog") of $(wc -l < .devcarry/zoo/list.txt)"
fi
