// Eight tensors copied in one pipelined loop: the 8 tensor maps a launch
// passes, none left for a TMA store of the result
// (tests/lit/cuda/tma_store.mlir).
tile.func @eight_maps(%A0: !tile.tensor<[M, K], f16>, %A1: !tile.tensor<[M, K], f16>, %A2: !tile.tensor<[M, K], f16>, %A3: !tile.tensor<[M, K], f16>, %A4: !tile.tensor<[M, K], f16>, %A5: !tile.tensor<[M, K], f16>, %A6: !tile.tensor<[M, K], f16>, %A7: !tile.tensor<[M, K], f16>, %C: !tile.tensor<[M, K], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %k = tile.dim %A0, 1 : !tile.tensor<[M, K], f16>
  %nk = arith.ceildivui %k, %c16 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %S0 = tile.alloc : !tile.tile<16x16xf16, shared>
    %S1 = tile.alloc : !tile.tile<16x16xf16, shared>
    %S2 = tile.alloc : !tile.tile<16x16xf16, shared>
    %S3 = tile.alloc : !tile.tile<16x16xf16, shared>
    %S4 = tile.alloc : !tile.tile<16x16xf16, shared>
    %S5 = tile.alloc : !tile.tile<16x16xf16, shared>
    %S6 = tile.alloc : !tile.tile<16x16xf16, shared>
    %S7 = tile.alloc : !tile.tile<16x16xf16, shared>
    %acc = tile.alloc : !tile.tile<16x16xf32, fragment>
    tile.clear %acc : !tile.tile<16x16xf32, fragment>
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c16 : index
      tile.copy %A0[%c0, %k0], %S0 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %A1[%c0, %k0], %S1 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %A2[%c0, %k0], %S2 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %A3[%c0, %k0], %S3 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %A4[%c0, %k0], %S4 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %A5[%c0, %k0], %S5 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %A6[%c0, %k0], %S6 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.copy %A7[%c0, %k0], %S7 : !tile.tensor<[M, K], f16>, !tile.tile<16x16xf16, shared>
      tile.parallel (%i, %j) in [16, 16] {
        %a = tile.load %acc[%i, %j] : !tile.tile<16x16xf32, fragment>
        %v0 = tile.load %S0[%i, %j] : !tile.tile<16x16xf16, shared>
        %e0 = arith.extf %v0 : f16 to f32
        %v1 = tile.load %S1[%i, %j] : !tile.tile<16x16xf16, shared>
        %e1 = arith.extf %v1 : f16 to f32
        %v2 = tile.load %S2[%i, %j] : !tile.tile<16x16xf16, shared>
        %e2 = arith.extf %v2 : f16 to f32
        %v3 = tile.load %S3[%i, %j] : !tile.tile<16x16xf16, shared>
        %e3 = arith.extf %v3 : f16 to f32
        %v4 = tile.load %S4[%i, %j] : !tile.tile<16x16xf16, shared>
        %e4 = arith.extf %v4 : f16 to f32
        %v5 = tile.load %S5[%i, %j] : !tile.tile<16x16xf16, shared>
        %e5 = arith.extf %v5 : f16 to f32
        %v6 = tile.load %S6[%i, %j] : !tile.tile<16x16xf16, shared>
        %e6 = arith.extf %v6 : f16 to f32
        %v7 = tile.load %S7[%i, %j] : !tile.tile<16x16xf16, shared>
        %e7 = arith.extf %v7 : f16 to f32
        %s0 = arith.addf %a, %e0 : f32
        %s1 = arith.addf %s0, %e1 : f32
        %s2 = arith.addf %s1, %e2 : f32
        %s3 = arith.addf %s2, %e3 : f32
        %s4 = arith.addf %s3, %e4 : f32
        %s5 = arith.addf %s4, %e5 : f32
        %s6 = arith.addf %s5, %e6 : f32
        %s7 = arith.addf %s6, %e7 : f32
        tile.store %s7, %acc[%i, %j] : !tile.tile<16x16xf32, fragment>
      }
    }
    tile.copy %acc, %C[%c0, %c0] : !tile.tile<16x16xf32, fragment>, !tile.tensor<[M, K], f16>
  }
  tile.return
}
