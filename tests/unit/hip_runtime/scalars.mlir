// Scalars of every width a slot carries, between two tensors: the hsaco's
// kernarg segment packs them at their natural alignment (i1 and i8 at 16
// and 17, f16 at 18, i16 at 20, i32 at 24, i64 at 32, f64 at 40, f32 at 48),
// which the hip runtime tests check the plugin's packing against.
tile.func @scalars(%X: !tile.tensor<[N], f32>, %flag: i1, %b: i8, %h: f16,
                   %s: i16, %i: i32, %l: i64, %d: f64, %f: f32,
                   %Y: !tile.tensor<[N], f32>) {
  %c256 = arith.constant 256 : index
  %n = tile.dim %X, 0 : !tile.tensor<[N], f32>
  %grid = arith.ceildivui %n, %c256 : index
  tile.kernel blocks(%bx) in (%grid) threads = 64 {
    %off = arith.muli %bx, %c256 : index
    %x = tile.alloc : !tile.tile<256xf32, fragment>
    tile.copy %X[%off], %x : !tile.tensor<[N], f32>, !tile.tile<256xf32, fragment>
    tile.parallel (%k) in [256] {
      %v = tile.load %x[%k] : !tile.tile<256xf32, fragment>
      %bf = arith.sitofp %b : i8 to f32
      %hf = arith.extf %h : f16 to f32
      %sf = arith.sitofp %s : i16 to f32
      %if = arith.sitofp %i : i32 to f32
      %lf = arith.sitofp %l : i64 to f32
      %df = arith.truncf %d : f64 to f32
      %a1 = arith.addf %bf, %hf : f32
      %a2 = arith.addf %a1, %sf : f32
      %a3 = arith.addf %a2, %if : f32
      %a4 = arith.addf %a3, %lf : f32
      %a5 = arith.addf %a4, %df : f32
      %m = arith.mulf %v, %f : f32
      %r = arith.addf %m, %a5 : f32
      %o = arith.select %flag, %r, %v : f32
      tile.store %o, %x[%k] : !tile.tile<256xf32, fragment>
    }
    tile.copy %x, %Y[%off] : !tile.tile<256xf32, fragment>, !tile.tensor<[N], f32>
  }
  tile.return
}
