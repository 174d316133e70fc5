// The whole pipeline on a fictional target (tests/unit/target/made_up.toml:
// warp 16, 8 banks, an 8x8x4 atom, no async copy, 16 KiB of shared memory):
// every decision comes from the description. flash_attention_fwd needs more
// shared memory than the target has, which plan-shared reports.
// RUN: %tessera-opt --tessera-pipeline=%tessera_src/tests/unit/target/made_up.toml %examples/elementwise_add.mlir | FileCheck %s --check-prefix=ELEMENTWISE-ADD
// RUN: %tessera-opt --tessera-pipeline=%tessera_src/tests/unit/target/made_up.toml %examples/gemm.mlir | FileCheck %s --check-prefix=GEMM
// RUN: %tessera-opt --tessera-pipeline=%tessera_src/tests/unit/target/made_up.toml %examples/gemm_f32.mlir | FileCheck %s --check-prefix=GEMM-F32
// RUN: %tessera-opt --tessera-pipeline=%tessera_src/tests/unit/target/made_up.toml %examples/gemm_relu.mlir | FileCheck %s --check-prefix=GEMM-RELU
// RUN: %tessera-opt --tessera-pipeline=%tessera_src/tests/unit/target/made_up.toml %examples/rmsnorm.mlir | FileCheck %s --check-prefix=RMSNORM
// RUN: %tessera-opt --tessera-pipeline=%tessera_src/tests/unit/target/made_up.toml %examples/softmax.mlir | FileCheck %s --check-prefix=SOFTMAX
// RUN: not %tessera-opt --tessera-pipeline=%tessera_src/tests/unit/target/made_up.toml %examples/flash_attention_fwd.mlir 2>&1 | FileCheck %s --check-prefix=FA


// GEMM: tile.shared_bytes = 16384 : i64, tile.warps = 8 : i64
// GEMM: tile.alloc {offset = 0 : i64, swizzle = #tile.swizzle<vec = 4, per_phase = 1, max_phase = 4>} : <128x32xf16, shared>
// GEMM: atom = "madeup_8x8x4_f16_f32", warps = array<i64: 8, 1>
// GEMM-NOT: tile.async_copy
// GEMM: tile.num_stages = 1 : i64, tile.requested_stages = 3 : i64

// GEMM-F32: tile.shared_bytes = 16384 : i64, tile.warps = 8 : i64
// GEMM-F32: atom = "fma"
// GEMM-F32: tile.num_stages = 1 : i64, tile.requested_stages = 2 : i64

// GEMM-RELU: tile.shared_bytes = 16384 : i64, tile.warps = 8 : i64
// GEMM-RELU: atom = "madeup_8x8x4_f16_f32"


// SOFTMAX: tile.shared_bytes = 0 : i64, tile.warps = 8 : i64
// SOFTMAX: tile.reduce max

// FA: error: kernel 'flash_attention_fwd' needs 49152 bytes of shared memory, more than the 16384 bytes per block of target 'made-up'

// ELEMENTWISE-ADD: tile.shared_bytes = 0 : i64, tile.warps = 16 : i64
// RMSNORM: tile.shared_bytes = 0 : i64, tile.warps = 8 : i64

