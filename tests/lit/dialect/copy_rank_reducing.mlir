// RUN: %tessera-opt %s | FileCheck %s
// RUN: %tessera-opt %s | %tessera-opt | FileCheck %s

// A rank-2 tile covers the last two dimensions of a rank-4 tensor; the
// leading offsets pick one batch and one head.
// CHECK-LABEL: tile.func @slice
tile.func @slice(%Q: !tile.tensor<[B, H, S, 128], f16>, %O: !tile.tensor<[B, H, S, 128], f32>,
                 %R: !tile.tensor<[B, 64], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 64 {
    %Qs = tile.alloc : !tile.tile<64x128xf16, shared>
    %Qt = tile.alloc : !tile.tile<128x64xf16, shared>
    %Of = tile.alloc : !tile.tile<64x128xf32, fragment>
    %row = tile.alloc : !tile.tile<64xf32, fragment>
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<64x128xf16, shared>
    tile.copy %Q[%b, %c0, %c0, %c0], %Qs : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<64x128xf16, shared>
    // CHECK: tile.copy {{.*}} transpose : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<128x64xf16, shared>
    tile.copy %Q[%b, %c0, %c0, %c0], %Qt transpose : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<128x64xf16, shared>
    tile.copy %Qs, %Of : !tile.tile<64x128xf16, shared>, !tile.tile<64x128xf32, fragment>
    // CHECK: tile.copy %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : !tile.tile<64x128xf32, fragment>, !tile.tensor<[B, H, S, 128], f32>
    tile.copy %Of, %O[%b, %c0, %c0, %c0] : !tile.tile<64x128xf32, fragment>, !tile.tensor<[B, H, S, 128], f32>
    // A rank-1 tile as one row of a rank-2 tensor, and an atomic into it.
    // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensor<[B, 64], f32>, !tile.tile<64xf32, fragment>
    tile.copy %R[%b, %c0], %row : !tile.tensor<[B, 64], f32>, !tile.tile<64xf32, fragment>
    // CHECK: tile.atomic add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : {{.*}}<64xf32, fragment>, {{.*}}<[B, 64], f32>
    tile.atomic add %row, %R[%b, %c0] : !tile.tile<64xf32, fragment>, !tile.tensor<[B, 64], f32>
  }
  tile.return
}
