// fp8 on the chips whose matrix cores do not read OCP E4M3/E5M2 as written
// (backends/hip/compiler/Fp8InRegisters.h). The byte rewrites themselves are
// checked on all 256 values by tests/unit/hip_compiler; here, that they sit
// where they should in the compiled kernels.
// REQUIRES: tessera, plugin-hip
// RUN: rm -rf %t && mkdir -p %t/c3 %t/r3
// RUN: %tessera compile %examples/gemm_fp8.mlir --target amdgcn-amd-amdhsa:gfx942 --no-cache -o %t/c3.tsb --dump-dir %t/c3
// RUN: FileCheck %s --check-prefix=IR < %t/c3/kernel.gfx942.ll
// RUN: llvm-objdump -d --mcpu=gfx942 %t/c3/kernel.gfx942.hsaco | FileCheck %s --check-prefix=C3
// RUN: %tessera compile %examples/gemm_fp8.mlir --target amdgcn-amd-amdhsa:gfx1100 --no-cache -o %t/r3.tsb --dump-dir %t/r3
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/r3/kernel.gfx1100.hsaco | FileCheck %s --check-prefix=R3

// gfx942 (CDNA3, FNUZ fp8): each 8-byte operand is rewritten as two words
// (magnitude mask 0x7F7F7F7F = 2139062143, the nonzero test adding it back)
// before the MFMA; the accumulator's *0.25 left the K loop (after
// tile.clear it folds away) and only the *4 after the loop remains.
// IR-LABEL: define amdgpu_kernel void @tessera_kernel_gemm_fp8(
// IR-NOT: 2.500000e-01
// IR: and <2 x i32> %{{[0-9]+}}, splat (i32 2139062143)
// IR: add nuw <2 x i32> %{{[0-9]+}}, splat (i32 2139062143)
// IR: call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8(i64
// IR-NOT: 2.500000e-01
// IR: fmul float %{{[0-9]+}}, 4.000000e+00
// IR-LABEL: define amdgpu_kernel void @tessera_kernel_gemm_fp8_e5m2(
// IR-NOT: 2.500000e-01
// IR: call <16 x float> @llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8(i64
// IR-NOT: 2.500000e-01
// IR: fmul float %{{[0-9]+}}, 4.000000e+00

// C3-LABEL: <tessera_kernel_gemm_fp8>:
// C3-DAG: v_and_b32_e32 v{{[0-9]+}}, 0x7f7f7f7f
// C3-DAG: v_and_b32_e32 v{{[0-9]+}}, 0x80808080
// C3-DAG: v_mfma_f32_32x32x16_fp8_fp8
// C3-NOT: scratch_store
// C3-LABEL: <tessera_kernel_gemm_fp8_e5m2>:
// C3-DAG: v_and_b32_e32 v{{[0-9]+}}, 0x7f7f7f7f
// C3-DAG: v_mfma_f32_32x32x16_bf8_bf8
// C3-NOT: scratch_store

// gfx1100 (RDNA3, no fp8 WMMA): E4M3 widened to f16 (the exact *2^8 is a
// packed f16 multiply) into the f16 WMMA; E5M2 needs no multiply.
// R3-LABEL: <tessera_kernel_gemm_fp8>:
// R3-DAG: v_pk_mul_f16
// R3-DAG: v_wmma_f32_16x16x16_f16
// R3-LABEL: <tessera_kernel_gemm_fp8_e5m2>:
// R3-NOT: v_pk_mul_f16
// R3: v_wmma_f32_16x16x16_f16
