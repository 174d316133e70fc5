// tessera-raster-order: a gemm whose A panel follows the y block index and
// whose B panel follows x gets grouped block order (tile.raster = 4);
// attention (Q follows x and y, K/V follow y alone), one-dimensional grids and
// kernels that say tile.raster themselves keep theirs. A raster below 1 is an
// error.
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=GEMM
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/zoo/gemm_splitk_f32.mlir | FileCheck %s --check-prefix=GEMM
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/zoo/gemm_batched_bf16.mlir | FileCheck %s --check-prefix=GEMM
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/flash_attention_fwd.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-raster-order=target=sm_90a %examples/softmax.mlir | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-raster-order=target=gfx942 %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=KEEP

// GEMM: tile.kernel blocks({{.*}}) threads = {{[0-9]+}} attributes {tile.raster = 4 : i64}
// NONE-NOT: tile.raster

// The program's own choice stays, 1 included (linear order).
// KEEP: attributes {tile.raster = 1 : i64}
tile.func @own(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
               %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 256 attributes {tile.raster = 1} {
    %As = tile.alloc : !tile.tile<64x64xf16, shared>
    %Bs = tile.alloc : !tile.tile<64x64xf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<64x64xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<64x64xf16, shared>
    tile.gemm %As, %Bs, %Cf clear : !tile.tile<64x64xf16, shared>, !tile.tile<64x64xf16, shared>, !tile.tile<64x64xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

tile.func @bad(%A: !tile.tensor<[M], f32>) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{tile.raster must be at least 1, got 0}}
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 64 attributes {tile.raster = 0} {
  }
  tile.return
}
