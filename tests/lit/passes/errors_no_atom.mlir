// Without the FMA fallback, a gemm whose dtypes have no MMA atom on the
// target is an error naming the gemm and the target.
// RUN: %tessera-opt %s --verify-diagnostics --tessera-infer-layouts="target=host fma-fallback=false"

tile.func @gemm16(%A: !tile.tensor<[M, K], f16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %As = tile.alloc : !tile.tile<64x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x64xf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    // expected-error @below {{no MMA atom of target 'host' computes f16 x f16 -> f32 on a 64x64x32 tile with 8 warps}}
    tile.gemm %As, %Bs, %Cf : !tile.tile<64x32xf16, shared>, !tile.tile<32x64xf16, shared>, !tile.tile<64x64xf32, fragment>
  }
  tile.return
}
