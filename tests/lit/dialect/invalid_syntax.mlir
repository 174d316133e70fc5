// RUN: %tessera-opt %s -split-input-file -verify-diagnostics
// The same inputs once more, checking the column each error points at.
// RUN: not %tessera-opt %s -split-input-file 2>&1 | FileCheck %s

// Malformed syntax: each case expects exactly one parser diagnostic.

tile.func @missing_stages() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    // CHECK: invalid_syntax.mlir:[[# @LINE + 2]]:45: error: custom op {{.}}tile.pipelined{{.}} expected 'stages'
    // expected-error @+1 {{expected 'stages'}}
    tile.pipelined %k = %c0 to %c1 step %c1 {
    }
  }
  tile.return
}

// -----

tile.func @parallel_shape_list() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    // CHECK: invalid_syntax.mlir:[[# @LINE + 2]]:31: error: custom op {{.}}tile.parallel{{.}} expected 2 sizes for 2 induction variables, got 3
    // expected-error @+1 {{expected 2 sizes for 2 induction variables, got 3}}
    tile.parallel (%i, %j) in [4, 8, 16] {
    }
  }
  tile.return
}

// -----

// CHECK: invalid_syntax.mlir:[[# @LINE + 2]]:57: error: unknown memory space 'global', expected 'shared', 'fragment' or 'local'
// expected-error @+1 {{unknown memory space 'global', expected 'shared', 'fragment' or 'local'}}
tile.func private @unknown_space(%a: !tile.tile<64xf32, global>)

// -----

// CHECK: invalid_syntax.mlir:[[# @LINE + 2]]:48: error: tile dimensions must be static
// expected-error @+1 {{tile dimensions must be static}}
tile.func private @dynamic_tile(%a: !tile.tile<?x32xf16, shared>)

// -----

// CHECK: invalid_syntax.mlir:[[# @LINE + 2]]:49: error: expected a dimension: an integer, '?' or a symbol name
// expected-error @+1 {{expected a dimension: an integer, '?' or a symbol name}}
tile.func private @bad_dim(%a: !tile.tensor<[M, *, K], f16>)

// -----

tile.func @kernel_missing_threads() {
  %c1 = arith.constant 1 : index
  // CHECK: invalid_syntax.mlir:[[# @LINE + 2]]:35: error: custom op {{.}}tile.kernel{{.}} expected 'threads'
  // expected-error @+1 {{expected 'threads'}}
  tile.kernel blocks(%b) in (%c1) {
  }
  tile.return
}

// -----

tile.func @reduce_unknown_kind() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<4x4xf32, fragment>
    %d = tile.alloc : !tile.tile<4xf32, fragment>
    // CHECK: invalid_syntax.mlir:[[# @LINE + 2]]:17: error: custom op 'tile.reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]
    // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]}}
    tile.reduce avg %s, %d dim = 1 : !tile.tile<4x4xf32, fragment>, !tile.tile<4xf32, fragment>
  }
  tile.return
}
