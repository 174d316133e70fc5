// sm_90a: 8-bit integer gemms take wgmma (s8 x s8 into s32, both operands
// K-major in shared memory, no scale or transpose immediates); the merged
// 128x256 block of gemm_i8_i32 issues m64n256k32. Before the NVVM lowering,
// float max/min reductions stay llvm.maximum/minimum (one max.NaN.f32 each,
// no compare-and-select chains) and an `afn` exp becomes one
// ex2.approx.ftz.f32; TESSERA_PTX_FAST=0 keeps the old lowering for A/B.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && %tessera compile %examples/zoo/gemm_i8_i32.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/i.tsb --dump-dir %t/i
// RUN: FileCheck %s --check-prefix=I8 < %t/i/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/i/ptxas.sm_90a.txt
// RUN: %tessera compile %examples/zoo/attn_mqa_d64_bf16.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/a.tsb --dump-dir %t/a
// RUN: FileCheck %s --check-prefix=FAST < %t/a/kernel.sm_90a.ptx
// RUN: env TESSERA_PTX_FAST=0 %tessera compile %examples/zoo/attn_mqa_d64_bf16.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/b.tsb --dump-dir %t/b
// RUN: FileCheck %s --check-prefix=SLOW < %t/b/kernel.sm_90a.ptx
// exp(s - m) of an `afn` exp is ex2(fma(s, log2 e, m * -log2 e)): one fma
// per element (the row max's product is shared); TESSERA_EXP_FMA=0 keeps
// the subtraction and the multiply.
// RUN: grep -c "fma.rn.f32 .*, 0f3FB8AA3B, " %t/a/kernel.sm_90a.ptx | FileCheck %s --check-prefix=EXPFMA
// RUN: env TESSERA_EXP_FMA=0 %tessera compile %examples/zoo/attn_mqa_d64_bf16.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/c.tsb --dump-dir %t/c
// RUN: not grep "fma.rn.f32 .*, 0f3FB8AA3B, " %t/c/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=EXPMUL < %t/c/kernel.sm_90a.ptx
// EXPFMA: {{^[1-9][0-9]+$}}
// EXPMUL: mul.f32 {{.*}}, 0f3FB8AA3B;
// An `afn` exp2 is one inline ex2.approx.ftz.f32 of its operand (4 per
// thread here); the exact exp beside it keeps LLVM's lowering, and
// TESSERA_PTX_FAST=0 leaves the exp2 to LLVM (ex2.approx.f32, no ftz).
// RUN: %tessera compile %S/Inputs/exp2_afn.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/e.tsb --dump-dir %t/e
// RUN: grep -A1 "begin inline asm" %t/e/kernel.sm_90a.ptx | grep -c "ex2.approx.ftz.f32" | FileCheck %s --check-prefix=EXP2
// RUN: env TESSERA_PTX_FAST=0 %tessera compile %S/Inputs/exp2_afn.mlir --target nvptx64-nvidia-cuda:sm_90a --no-cache -o %t/f.tsb --dump-dir %t/f
// RUN: FileCheck %s --check-prefix=EXP2NOFTZ < %t/e/kernel.sm_90a.ptx
// RUN: FileCheck %s --check-prefix=EXP2SLOW < %t/f/kernel.sm_90a.ptx
// EXP2: {{^4$}}
// EXP2NOFTZ-NOT: ex2.approx.f32
// EXP2SLOW: ex2.approx.f32
// I8: .entry tessera_kernel_gemm_i8_i32(
// I8: wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p;
// I8-NOT: mma.sync
// NOSPILL-NOT: {{[1-9][0-9]*}} bytes spill stores
// NOSPILL: Used {{[0-9]+}} registers
// FAST: .entry tessera_kernel_attn_mqa_d64_bf16(
// FAST-NOT: setp.nan.f32
// FAST-NOT: ex2.approx.f32
// FAST: max.NaN.f32
// FAST: ex2.approx.ftz.f32
// SLOW: setp.nan.f32
// SLOW: ex2.approx.f32
