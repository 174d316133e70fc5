// Runs the example kernels on a small numpy interpreter of the tile dialect
// (Inputs/tile_interp.py) and compares each with a numpy reference, so the
// examples are known to compute what they claim before any backend runs them.
// REQUIRES: numpy
// RUN: %python %S/Inputs/check_examples.py %examples | FileCheck %s
// CHECK: gemm.mlir: ok
// CHECK: gemm_relu.mlir: ok
// CHECK: gemm_f32.mlir: ok
// CHECK: elementwise_add.mlir: ok
// CHECK: softmax.mlir 6x100: ok
// CHECK: rmsnorm.mlir 6x100: ok
// CHECK: softmax.mlir 9x2100: ok
// CHECK: rmsnorm.mlir 9x2100: ok
// CHECK: flash_attention_fwd.mlir causal=0: ok
// CHECK: flash_attention_fwd_q128.mlir causal=0: ok
// CHECK: flash_attention_fwd.mlir causal=1: ok
// CHECK: flash_attention_fwd_q128.mlir causal=1: ok
// CHECK-NOT: FAIL
