// Each atom of the hip target descriptions reaches its instruction: the
// gemm examples compile through distribution and HipTargetHooks::emitMma to
// MFMA on CDNA (f16, bf16 "_1k", f32, i8, fp8/bf8: OCP on gfx950, rewritten
// to FNUZ on gfx942) and to WMMA on RDNA3 and RDNA4 (whose operand layouts
// differ: gfx1201.toml): f16, bf16, iu8 on both, fp8/bf8 on RDNA4 (RDNA3
// widens fp8 to f16: fp8_registers.mlir).
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t/f16 %t/bf16 %t/i8 %t/fp8 %t/w3 %t/w4 %t/f32 %t/fp8c3 %t/i8w3 %t/i8w4 %t/fp8w4
// RUN: %tessera compile %examples/gemm.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/f16.tsb --dump-dir %t/f16
// RUN: llvm-objdump -d --mcpu=gfx942 %t/f16/kernel.gfx942.hsaco | FileCheck %s --check-prefix=F16
// RUN: %tessera compile %examples/gemm_bf16.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/bf16.tsb --dump-dir %t/bf16
// RUN: llvm-objdump -d --mcpu=gfx942 %t/bf16/kernel.gfx942.hsaco | FileCheck %s --check-prefix=BF16
// RUN: %tessera compile %examples/zoo/gemm_i8_i32.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/i8.tsb --dump-dir %t/i8
// RUN: llvm-objdump -d --mcpu=gfx942 %t/i8/kernel.gfx942.hsaco | FileCheck %s --check-prefix=I8
// RUN: %tessera compile %examples/gemm_fp8.mlir --target amdgcn-amd-amdhsa:gfx950 --no-cache -o %t/fp8.tsb --dump-dir %t/fp8
// RUN: llvm-objdump -d --mcpu=gfx950 %t/fp8/kernel.gfx950.hsaco | FileCheck %s --check-prefix=FP8
// RUN: %tessera compile %examples/gemm.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/w3.tsb --dump-dir %t/w3
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/w3/kernel.gfx1100.hsaco | FileCheck %s --check-prefix=W3
// RUN: %tessera compile %examples/gemm_bf16.mlir --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/w4.tsb --dump-dir %t/w4
// RUN: llvm-objdump -d --mcpu=gfx1201 %t/w4/kernel.gfx1201.hsaco | FileCheck %s --check-prefix=W4
// RUN: %tessera compile %examples/gemm_f32.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/f32.tsb --dump-dir %t/f32
// RUN: llvm-objdump -d --mcpu=gfx942 %t/f32/kernel.gfx942.hsaco | FileCheck %s --check-prefix=F32
// RUN: %tessera compile %examples/gemm_fp8.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/fp8c3.tsb --dump-dir %t/fp8c3
// RUN: llvm-objdump -d --mcpu=gfx942 %t/fp8c3/kernel.gfx942.hsaco | FileCheck %s --check-prefix=FP8
// RUN: %tessera compile %examples/zoo/gemm_i8_i32.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/i8w3.tsb --dump-dir %t/i8w3
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/i8w3/kernel.gfx1100.hsaco | FileCheck %s --check-prefix=I8W
// RUN: %tessera compile %examples/zoo/gemm_i8_i32.mlir --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/i8w4.tsb --dump-dir %t/i8w4
// RUN: llvm-objdump -d --mcpu=gfx1201 %t/i8w4/kernel.gfx1201.hsaco | FileCheck %s --check-prefix=I8W
// RUN: %tessera compile %examples/gemm_fp8.mlir --target amdgcn-amd-amdhsa:gfx1201 --no-cache -o %t/fp8w4.tsb --dump-dir %t/fp8w4
// RUN: llvm-objdump -d --mcpu=gfx1201 %t/fp8w4/kernel.gfx1201.hsaco | FileCheck %s --check-prefix=FP8W4

// f32 gemms on CDNA multiply full f32 on the matrix cores:
// F32: v_mfma_f32_32x32x2_f32

// F16: <tessera_kernel_gemm>:
// F16-DAG: buffer_load_dwordx4
// F16-DAG: s_barrier
// F16-DAG: v_mfma_f32_32x32x8_f16
// F16-NOT: scratch_store

// BF16: <tessera_kernel_gemm_bf16>:
// BF16: v_mfma_f32_32x32x8_bf16

// I8: v_mfma_i32_32x32x16_i8

// FP8-LABEL: <tessera_kernel_gemm_fp8>:
// FP8: v_mfma_f32_32x32x16_fp8_fp8
// FP8-LABEL: <tessera_kernel_gemm_fp8_e5m2>:
// FP8: v_mfma_f32_32x32x16_bf8_bf8

// Signed i8 WMMA on RDNA3 (16 bytes per lane) and RDNA4 (8 bytes per lane):
// I8W: <tessera_kernel_gemm_i8_i32>:
// I8W: v_wmma_i32_16x16x16_iu8 {{.*}} neg_lo:[1,1,0]

// FP8W4-LABEL: <tessera_kernel_gemm_fp8>:
// FP8W4: v_wmma_f32_16x16x16_fp8_fp8
// FP8W4-LABEL: <tessera_kernel_gemm_fp8_e5m2>:
// FP8W4: v_wmma_f32_16x16x16_bf8_bf8

// W3: <tessera_kernel_gemm>:
// W3: v_wmma_f32_16x16x16_f16

// W4: <tessera_kernel_gemm_bf16>:
// W4: v_wmma_f32_16x16x16_bf16
