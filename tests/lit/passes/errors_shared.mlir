// Shared memory over the target's per-block maximum is an error naming the
// kernel, the total and the limit.
// RUN: %tessera-opt %s --verify-diagnostics --tessera-infer-layouts=target=sm_90a --tessera-plan-shared=target=sm_90a
// RUN: %tessera-opt %s --verify-diagnostics --tessera-pipeline=sm_90a


// More shared memory than the target allows: 4 x 64 KiB > 227 KiB (sm_90a opt-in).
tile.func @big(%A: !tile.tensor<[M, N], f32>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{kernel 'big' needs 262144 bytes of shared memory, more than the}}
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    // expected-note @below {{shared tile '!tile.tile<128x128xf32, shared>': 65536 bytes at offset}}
    %a = tile.alloc : !tile.tile<128x128xf32, shared>
    // expected-note @below {{shared tile '!tile.tile<128x128xf32, shared>': 65536 bytes at offset}}
    %b = tile.alloc : !tile.tile<128x128xf32, shared>
    // expected-note @below {{shared tile '!tile.tile<128x128xf32, shared>': 65536 bytes at offset}}
    %c = tile.alloc : !tile.tile<128x128xf32, shared>
    // expected-note @below {{shared tile '!tile.tile<128x128xf32, shared>': 65536 bytes at offset}}
    %d = tile.alloc : !tile.tile<128x128xf32, shared>
    tile.copy %A[%c1, %c1], %a : !tile.tensor<[M, N], f32>, !tile.tile<128x128xf32, shared>
    tile.copy %A[%c1, %c1], %b : !tile.tensor<[M, N], f32>, !tile.tile<128x128xf32, shared>
    tile.copy %A[%c1, %c1], %c : !tile.tensor<[M, N], f32>, !tile.tile<128x128xf32, shared>
    tile.copy %A[%c1, %c1], %d : !tile.tensor<[M, N], f32>, !tile.tile<128x128xf32, shared>
  }
  tile.return
}
