// tessera-raster-order, longest blocks first: where a loop's trip count grows
// with one block index (causal attention: the key loop ends at the query
// block's diagonal) and no other index changes a trip count, the kernel gets
// tile.longest_first = [index, 1] (distribution walks that index from its
// last value down; mode 2 also makes it the slowest of the linear order). A sliding window
// (both bounds follow the query block), a gemm (no loop bound follows a
// block index) and a non-causal attention kernel keep the hardware's order;
// TESSERA_LONGEST_FIRST=2 asks for mode 2, =0 for nothing; a
// program's own attribute stays, a malformed one is an error.
// REQUIRES: tessera, plugin-spirv, plugin-cpu
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/flash_attention_fwd_q128.mlir | FileCheck %s --check-prefix=FLASH
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/zoo/attn_gqa_d128_causal.mlir | FileCheck %s --check-prefix=FLASH
// RUN: env TESSERA_LONGEST_FIRST=2 %tessera-opt --tessera-raster-order=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=REVERSE
// RUN: env TESSERA_LONGEST_FIRST=0 %tessera-opt --tessera-raster-order=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/zoo/attn_sliding_window_d64.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=KEEP
// The order is a bijection of the grid: the causal program gives the host
// image's results with it on lavapipe (distribution's block ids; the CPU
// backend walks its blocks in its own loops).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %tessera compile %examples/flash_attention_fwd.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/fa.tsb
// RUN: %if vulkan-device %{ %tessera run %t/fa.tsb --device spirv --shape B=2,H=3,S=200 --scalar causal=1 --scalar sm_scale=0.125 --iters 1 --warmup 0 | FileCheck %s --check-prefix=CPU %}
// RUN: %if vulkan-device %{ %tessera run %t/fa.tsb --device spirv --shape B=1,H=2,S=129 --scalar causal=0 --scalar sm_scale=0.125 --iters 1 --warmup 0 | FileCheck %s --check-prefix=CPU %}
// RUN: env TESSERA_LONGEST_FIRST=2 %tessera compile %examples/flash_attention_fwd.mlir --no-cache --target spirv64-unknown-vulkan1.3:lavapipe --target x86_64-unknown-linux-gnu -o %t/fa2.tsb
// RUN: %if vulkan-device %{ %tessera run %t/fa2.tsb --device spirv --shape B=2,H=3,S=200 --scalar causal=1 --scalar sm_scale=0.125 --iters 1 --warmup 0 | FileCheck %s --check-prefix=CPU %}

// FLASH: tile.kernel blocks({{.*}}) threads = {{[0-9]+}} attributes {tile.longest_first = array<i64: 0, 1>}
// REVERSE: attributes {tile.longest_first = array<i64: 0, 2>}
// NONE-NOT: tile.longest_first
// CPU-NOT: FAILED
// CPU: check: passed

// KEEP: attributes {tile.longest_first = array<i64: 1, 0>}
tile.func @own(%A: !tile.tensor<[N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tile.dim %A, 0 : !tile.tensor<[N], f32>
  tile.kernel blocks(%bx, %by) in (%n, %c4) threads = 32 attributes {tile.longest_first = array<i64: 1, 0>} {
    %end = arith.addi %by, %c1 : index
    scf.for %i = %c0 to %end step %c1 {
    }
  }
  tile.return
}

// -----

tile.func @bad(%A: !tile.tensor<[N], f32>) {
  %c4 = arith.constant 4 : index
  %n = tile.dim %A, 0 : !tile.tensor<[N], f32>
  // expected-error @+1 {{tile.longest_first must be [index, mode] with a block index of the grid and a mode of 0, 1 or 2}}
  tile.kernel blocks(%bx) in (%n) threads = 32 attributes {tile.longest_first = array<i64: 1, 2>} {
  }
  tile.return
}
