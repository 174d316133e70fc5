// RUN: %tessera-opt %s -split-input-file -verify-diagnostics

// Inputs written in the generic form or with unusual attribute values, the
// shapes a fuzzer produces: each gets one diagnostic, never a crash.

// expected-error @+1 {{a symbolic dimension needs a non-empty name}}
tile.func private @empty_symbol(%a: !tile.tensor<[""], f32>)

// -----

tile.func @parallel_float_iv() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    // expected-error @+1 {{'tile.parallel' op induction variables must be of type index}}
    "tile.parallel"() <{shape = array<i64: 4>}> ({
    ^bb0(%i: f32):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  tile.return
}

// -----

// expected-error @+1 {{layout 'reg' basis [-1] must hold non-negative integers}}
tile.func private @negative_basis(%a: !tile.tile<4xf32, fragment, #tile.layout<reg = [[-1]], lane = [], warp = [], block = []>>)

// -----

// expected-error @+1 {{must hold non-negative integers}}
tile.func private @huge_basis(%a: !tile.tile<4xf32, fragment, #tile.layout<reg = [[340282366920938463463374607431768211456 : i256]], lane = [], warp = [], block = []>>)

// -----

tile.func @kernel_no_block() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  "tile.kernel"(%c1) <{threads = 32 : i64}> ({
  }) : (index) -> ()
  tile.return
}

// -----

tile.func @pipelined_no_iv() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    // expected-error @+1 {{'tile.pipelined' op body must have a single index induction variable}}
    "tile.pipelined"(%c0, %c1, %c1) <{num_stages = 2 : i64}> ({
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
  }
  tile.return
}

// -----

tile.func @dim_negative(%A: !tile.tensor<[M], f32>) {
  // expected-error @+1 {{'tile.dim' op dimension -1 is out of range for a tensor of rank 1}}
  %d = tile.dim %A, -1 : !tile.tensor<[M], f32>
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
  }
  tile.return
}

// -----

tile.func @threads_negative() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op threads must be positive, got -4}}
  tile.kernel blocks(%b) in (%c1) threads = -4 {
  }
  tile.return
}
