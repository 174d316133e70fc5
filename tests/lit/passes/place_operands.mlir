// tessera-place-operands: when a kernel's shared tiles exceed the target's
// shared memory, a tile copied once from global memory outside every loop and
// read only as the A operand of gemms becomes a fragment (registers), largest
// first, where the kernel's fragments still fit the registers at their peak.
// The decision is an attribute on the alloc; kernels that fit are untouched.
//
// attn_fwd_d256_q128_f16 needs 128 KiB (Q 64 KiB beside K and V): on the
// 64 KiB chips Q moves to registers.
// RUN: %tessera-opt --tessera-place-operands=target=gfx942 %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=MOVED
// RUN: %tessera-opt --tessera-place-operands=target=gfx1201 %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=MOVED
// Targets whose shared memory holds it (sm_90a, sm_80, gfx950) see no change.
// RUN: %tessera-opt --tessera-place-operands=target=sm_90a %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=UNTOUCHED
// RUN: %tessera-opt --tessera-place-operands=target=sm_80 %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=UNTOUCHED
// RUN: %tessera-opt --tessera-place-operands=target=gfx950 %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=UNTOUCHED
// The whole pipeline: Q gets the atom's A layout and no offset, the kernel
// plans K and V alone.
// RUN: %tessera-opt --tessera-pipeline=gfx942 %examples/zoo/attn_fwd_d256_q128_f16.mlir | FileCheck %s --check-prefix=PIPE
// Kernels below: only the tile that qualifies moves.
// RUN: %tessera-opt --tessera-place-operands=target=gfx942 %s | FileCheck %s

// MOVED: %[[Q:[0-9]+]] = tile.alloc {tile.placed = "registers", tile.placed_reason = "the kernel's shared tiles need 131072 bytes, more than the 65536 per block of target '{{gfx942|gfx1201}}'; copied once from global memory and read only as the A operand of gemms, it is kept in registers: {{[0-9]+}} per thread, the kernel's fragments need {{[0-9]+}} of the {{256|512}} where the most are live; shared tiles take 65536 bytes"} : <128x256xf16, fragment>
// MOVED-NEXT: tile.alloc : <64x256xf16, shared>
// MOVED-NEXT: tile.alloc : <64x256xf16, shared>
// MOVED: tile.copy %arg0[{{.*}}], %[[Q]] : !tile.tensor<[B, H, Sq, 256], f16>, !tile.tile<128x256xf16, fragment>
// MOVED: tile.gemm %[[Q]], %{{[0-9]+}}, %{{[0-9]+}} transpose_b clear : <128x256xf16, fragment>, <64x256xf16, shared>, <128x64xf32, fragment>

// UNTOUCHED-NOT: tile.placed
// UNTOUCHED: tile.alloc : <128x256xf16, shared>
// UNTOUCHED-NOT: tile.placed

// PIPE: tile.kernel {{.*}} attributes {tile.shared_bytes = 65536 : i64, tile.warps = 4 : i64}
// PIPE: tile.alloc {tile.placed = "registers", {{.*}}} : <128x256xf16, fragment, #tile.layout<
// PIPE: tile.gemm %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} transpose_b clear {atom = "mfma_

// Of two 32 KiB tiles (beside a 16 KiB one) read as A once each, one moving is enough: the first
// (by size, then order) moves. A tile copied inside the loop, or read as B,
// stays in shared memory.
// CHECK-LABEL: tile.func @two_candidates
// CHECK: tile.alloc {tile.placed = "registers", {{.*}}} : <128x128xf16, fragment>
// CHECK-NEXT: tile.alloc : <128x128xf16, shared>
// CHECK-NEXT: tile.alloc : <64x128xf16, shared>
tile.func @two_candidates(%A: !tile.tensor<[M, 128], f16>, %B: !tile.tensor<[N, 128], f16>,
                          %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads = 256 {
    %A1 = tile.alloc : !tile.tile<128x128xf16, shared>
    %A2 = tile.alloc : !tile.tile<128x128xf16, shared>
    %Bs = tile.alloc : !tile.tile<64x128xf16, shared>
    %S = tile.alloc : !tile.tile<128x64xf32, fragment>
    tile.copy %A[%c0, %c0], %A1 : !tile.tensor<[M, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.copy %A[%c0, %c0], %A2 : !tile.tensor<[M, 128], f16>, !tile.tile<128x128xf16, shared>
    tile.clear %S : !tile.tile<128x64xf32, fragment>
    scf.for %j = %c0 to %c4 step %c1 {
      %n0 = arith.muli %j, %c64 : index
      tile.copy %B[%n0, %c0], %Bs : !tile.tensor<[N, 128], f16>, !tile.tile<64x128xf16, shared>
      tile.gemm %A1, %Bs, %S transpose_b : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
      tile.gemm %A2, %Bs, %S transpose_b : !tile.tile<128x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<128x64xf32, fragment>
    }
    tile.copy %S, %C[%c0, %c0] : !tile.tile<128x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// Nothing qualifies: A is refilled in the loop, the once-copied tile is read
// as B. Nothing is recorded; tessera-plan-shared reports the budget.
// CHECK-LABEL: tile.func @no_candidate
// CHECK-NOT: tile.placed
// CHECK: tile.return
tile.func @no_candidate(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[N, 256], f16>,
                        %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  tile.kernel blocks(%bx) in (%c1) threads = 256 {
    %As = tile.alloc : !tile.tile<128x256xf16, shared>
    %Bs = tile.alloc : !tile.tile<128x256xf16, shared>
    %S = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.copy %B[%c0, %c0], %Bs : !tile.tensor<[N, 256], f16>, !tile.tile<128x256xf16, shared>
    tile.clear %S : !tile.tile<128x128xf32, fragment>
    scf.for %j = %c0 to %c4 step %c1 {
      %k0 = arith.muli %j, %c256 : index
      tile.copy %A[%c0, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x256xf16, shared>
      tile.gemm %As, %Bs, %S transpose_b : !tile.tile<128x256xf16, shared>, !tile.tile<128x256xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    tile.copy %S, %C[%c0, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}
