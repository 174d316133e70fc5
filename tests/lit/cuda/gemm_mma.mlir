// The example GEMM (pipelined copy A, copy B, gemm into a fragment; an
// optional element-wise epilogue; copy out) on sm_80, by distribution:
// cp.async stages, ldmatrix (B transposed on load), mma.sync m16n8k16, the
// ReLU applied per accumulator register.
// REQUIRES: tessera, plugin-cuda
// RUN: rm -rf %t && mkdir -p %t/g %t/r %t/a
// RUN: %tessera compile %examples/gemm.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/g.tsb --dump-dir %t/g
// RUN: FileCheck %s --input-file %t/g/kernel.sm_80.ptx
// RUN: %tessera compile %examples/gemm_relu.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/r.tsb --dump-dir %t/r
// RUN: FileCheck %s --check-prefix=RELU --input-file %t/r/kernel.sm_80.ptx
// RUN: %tessera compile %examples/gemm_f32.mlir --target nvptx64-nvidia-cuda:sm_80 -o %t/a.tsb --dump-dir %t/a
// RUN: FileCheck %s --check-prefix=F32 --input-file %t/a/kernel.sm_80.ptx

// CHECK: .visible .entry tessera_kernel_gemm(
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK-DAG: cp.async.commit_group;
// CHECK-DAG: cp.async.wait_group 1;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-DAG: cp.async.wait_group 0;
// CHECK-DAG: cvt.rn.f16.f32

// RELU: .target sm_80
// RELU: .visible .entry tessera_kernel_gemm_relu(
// RELU: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// RELU: max.NaN.f32 {{.*}}, 0f00000000;

// f32 inputs have no m16n8k16 MMA: FMAs on the distributed fragments.
// F32: .visible .entry tessera_kernel_gemm_f32(
// F32-NOT: mma.sync
// F32: fma.rn.f32
