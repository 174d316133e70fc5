// Distribution (core/passes/lib/Distribute.cpp): the element-wise and
// reduction examples compile for sm_80 and sm_90a to kernels whose parameters are the
// runtime's slots; fragments stay in registers (no local memory), copies are
// vectorized as their layouts say, reductions shuffle across lanes, and an
// element-wise kernel needs neither shared memory nor barriers.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/ew %t/sm %t/fa %t/rn
// RUN: %tessera compile %examples/elementwise_add.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/ew.tsb --dump-dir %t/ew
// RUN: FileCheck %s --check-prefix=EW --input-file %t/ew/kernel.sm_80.ptx
// RUN: %tessera compile %examples/softmax.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/sm.tsb --dump-dir %t/sm
// RUN: FileCheck %s --check-prefix=SM --input-file %t/sm/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/rmsnorm.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/rn.tsb --dump-dir %t/rn
// RUN: FileCheck %s --check-prefix=RN --input-file %t/rn/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/fa.tsb --dump-dir %t/fa
// RUN: FileCheck %s --check-prefix=FA --input-file %t/fa/kernel.sm_90a.ptx
// RUN: %tessera compile %examples/gemm_f32.mlir --target nvptx64-nvidia-cuda:sm_90a -o %t/gf.tsb
// RUN: %tessera info %t/gf.tsb | FileCheck %s --check-prefix=INFO

// EW: .target sm_80
// EW-NOT: .shared
// EW: .visible .entry tessera_kernel_elementwise_add(
// EW-NEXT: .param .u64 {{.*}}_param_0,
// EW-NEXT: .param .u64 {{.*}}_param_1,
// EW-NEXT: .param .u64 {{.*}}_param_2,
// EW-NEXT: .param .u64 {{.*}}_param_3,
// EW-NEXT: .param .u64 {{.*}}_param_4,
// EW-NEXT: .param .u64 {{.*}}_param_5
// EW: .maxntid 256, 1, 1
// EW-NOT: bar.sync
// EW-NOT: .local
// EW: ld.global.v4.{{[bf]}}32
// EW-NOT: bar.sync
// EW: st.global.v4.{{[bf]}}32

// SM: .target sm_90a
// SM: .visible .entry tessera_kernel_softmax(
// SM-NOT: .local
// SM: shfl.sync.bfly.b32

// RN: .visible .entry tessera_kernel_rmsnorm(
// RN: .param .u64 {{.*}}_param_7,
// RN-NEXT: .param .f32 {{.*}}_param_8
// RN: shfl.sync.bfly.b32

// FA: .visible .entry tessera_kernel_flash_attention_fwd(
// FA: .param .u32 {{.*}}_param_20,
// FA-NEXT: .param .f32 {{.*}}_param_21
// FA: ex2.approx

// INFO: cubin image (cuda)
