// C = exp2(A) (approximate) + exp(B) (exact): only the `afn` one becomes
// ex2.approx.ftz.f32 without a multiply; the exact exp keeps LLVM's lowering.
tile.func @exps(%A: !tile.tensor<[N], f32>, %B: !tile.tensor<[N], f32>,
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
    tile.parallel (%i) in [1024] {
      %x = tile.load %a[%i] : !tile.tile<1024xf32, fragment>
      %y = tile.load %b[%i] : !tile.tile<1024xf32, fragment>
      %ex = math.exp2 %x fastmath<afn> : f32
      %ey = math.exp %y : f32
      %s = arith.addf %ex, %ey : f32
      tile.store %s, %a[%i] : !tile.tile<1024xf32, fragment>
    }
    tile.copy %a, %C[%off] : !tile.tile<1024xf32, fragment>, !tile.tensor<[N], f32>
  }
  tile.return
}
