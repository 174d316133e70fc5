// C = A + B over 1-D f32 tensors of any length N. Each block handles one
// 1024-element tile; the copies mask the tail tile when N is not a multiple
// of 1024 (loads read zero, stores beyond N are skipped).
tile.func @elementwise_add(%A: !tile.tensor<[N], f32>, %B: !tile.tensor<[N], f32>,
                           %C: !tile.tensor<[N], f32>) {
  %c1024 = arith.constant 1024 : index
  %n = tile.dim %A, 0 : !tile.tensor<[N], f32>
  %grid = arith.ceildivui %n, %c1024 : index
  tile.kernel blocks(%bx) in (%grid) threads = 256 {
    %off = arith.muli %bx, %c1024 : index
    %a = tile.alloc : !tile.tile<1024xf32, fragment>
    %b = tile.alloc : !tile.tile<1024xf32, fragment>
    tile.copy %A[%off], %a : !tile.tensor<[N], f32>, !tile.tile<1024xf32, fragment>
    tile.copy %B[%off], %b : !tile.tensor<[N], f32>, !tile.tile<1024xf32, fragment>
    // The sum overwrites %a in place (tiles are references).
    tile.parallel (%i) in [1024] {
      %x = tile.load %a[%i] : !tile.tile<1024xf32, fragment>
      %y = tile.load %b[%i] : !tile.tile<1024xf32, fragment>
      %s = arith.addf %x, %y : f32
      tile.store %s, %a[%i] : !tile.tile<1024xf32, fragment>
    }
    tile.copy %a, %C[%off] : !tile.tile<1024xf32, fragment>, !tile.tensor<[N], f32>
  }
  tile.return
}
