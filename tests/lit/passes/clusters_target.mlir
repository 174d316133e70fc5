// tile.cluster = 2 on a target without thread-block clusters is an error.
// RUN: %tessera-opt --tessera-pipeline-loops=target=gfx942 %s --verify-diagnostics

tile.func @paired(%A: !tile.tensor<[M], f32>) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{tile.cluster = 2 needs a target with thread-block clusters; target 'gfx942' has none}}
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 64 attributes {tile.cluster = 2} {
  }
  tile.return
}
