// Diagnostics of the core passes, each naming the op and the limit.
// RUN: %tessera-opt %s --split-input-file --verify-diagnostics --tessera-infer-layouts=target=sm_90a
// RUN: %tessera-opt %s --split-input-file --verify-diagnostics --tessera-infer-layouts=target=host

// A thread count that is no multiple of the warp size (32 on sm_90a, 16 on the host).
tile.func @odd(%A: !tile.tensor<[N], f32>) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{threads = 40 is not a multiple of the warp size}}
  tile.kernel blocks(%bx) in (%c1) threads = 40 {
    %a = tile.alloc : !tile.tile<64xf32, fragment>
    tile.clear %a : !tile.tile<64xf32, fragment>
  }
  tile.return
}
