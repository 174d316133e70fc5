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

// -----

// A fragment that is not a power of two in every dimension, with the way
// out: the padded tile, which copies allow over a tensor dim of symbolic
// size.
tile.func @npot(%A: !tile.tensor<[N], f32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    // expected-error @below {{fragment shape is not a power of two in every dimension: no linear layout fits}}
    // expected-note @below {{pad the tile to 128x128: a copy may cover more than a tensor dim of symbolic size}}
    %a = tile.alloc : !tile.tile<128x96xf32, fragment>
    tile.clear %a : !tile.tile<128x96xf32, fragment>
  }
  tile.return
}

// -----

// A gemm operand that is not a power of two (a head dim of 96), with the
// padded tile in the note.
tile.func @npot_gemm(%A: !tile.tensor<[M, D], f16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x96xf16, shared>
    %c = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %c : !tile.tile<64x64xf32, fragment>
    // expected-error @below {{tile shape of an operand is not a power of two in every dimension}}
    // expected-note @below {{pad the tile to 64x128}}
    tile.gemm %a, %a, %c transpose_b : !tile.tile<64x96xf16, shared>, !tile.tile<64x96xf16, shared>, !tile.tile<64x64xf32, fragment>
  }
  tile.return
}
