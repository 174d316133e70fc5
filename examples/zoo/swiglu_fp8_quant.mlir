// SwiGLU fused with per-token FP8 quantization (the activation feeding an
// FP8 down-projection):
//   y[t, c]  = silu(a[t, c]) * b[t, c],   silu(x) = x / (1 + exp(-x))
//   scale[t] = max_c |y[t, c]| / 448      (448: the largest f8E4M3FN)
//   q[t, c]  = f8E4M3FN(y[t, c] / scale[t])  (round to nearest even)
// so that q * scale reconstructs y. A row of zeros gets scale 0 and q 0.
// A, Bg: bf16 [T, N]; Q: f8E4M3FN [T, N]; Scale: f32 [T].
// Grid (ceil(T / 4)), 128 threads: each block owns 4 rows, walked in 4x1024
// column chunks; pass 1 computes y and the row amax (|y| of masked columns
// is silu(0) * 0 = 0, harmless to a max of absolute values), pass 2
// recomputes y (cheaper than keeping a 16k-column row on chip), scales and
// stores it as fp8.
tile.func @swiglu_fp8_quant(%A: !tile.tensor<[T, N], bf16>, %Bg: !tile.tensor<[T, N], bf16>,
                            %Q: !tile.tensor<[T, N], f8E4M3FN>, %Scale: !tile.tensor<[T], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %fp8_max = arith.constant 448.0 : f32
  %t = tile.dim %A, 0 : !tile.tensor<[T, N], bf16>
  %n = tile.dim %A, 1 : !tile.tensor<[T, N], bf16>
  %grid = arith.ceildivui %t, %c4 : index
  %chunks = arith.ceildivui %n, %c1024 : index
  tile.kernel blocks(%bx) in (%grid) threads = 128 {
    %row = arith.muli %bx, %c4 : index
    %a = tile.alloc : !tile.tile<4x1024xf32, fragment>
    %b = tile.alloc : !tile.tile<4x1024xf32, fragment>
    %amax = tile.alloc : !tile.tile<4xf32, fragment>
    %scale = tile.alloc : !tile.tile<4xf32, fragment>
    %inv = tile.alloc : !tile.tile<4xf32, fragment>
    tile.clear %amax : !tile.tile<4xf32, fragment>
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c1024 : index
      tile.copy %A[%row, %col0], %a : !tile.tensor<[T, N], bf16>, !tile.tile<4x1024xf32, fragment>
      tile.copy %Bg[%row, %col0], %b : !tile.tensor<[T, N], bf16>, !tile.tile<4x1024xf32, fragment>
      tile.parallel (%i, %j) in [4, 1024] {
        %x = tile.load %a[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %g = tile.load %b[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %nx = arith.negf %x : f32
        %e = math.exp %nx : f32
        %den = arith.addf %e, %one : f32
        %s = arith.divf %x, %den : f32
        %y = arith.mulf %s, %g : f32
        %ay = math.absf %y : f32
        tile.store %ay, %a[%i, %j] : !tile.tile<4x1024xf32, fragment>
      }
      tile.reduce max %a, %amax dim = 1 accumulate : !tile.tile<4x1024xf32, fragment>, !tile.tile<4xf32, fragment>
    }
    tile.parallel (%i) in [4] {
      %m = tile.load %amax[%i] : !tile.tile<4xf32, fragment>
      %s = arith.divf %m, %fp8_max : f32
      tile.store %s, %scale[%i] : !tile.tile<4xf32, fragment>
      %pos = arith.cmpf ogt, %m, %zero : f32
      %r = arith.divf %fp8_max, %m : f32
      %ri = arith.select %pos, %r, %zero : f32
      tile.store %ri, %inv[%i] : !tile.tile<4xf32, fragment>
    }
    tile.copy %scale, %Scale[%row] : !tile.tile<4xf32, fragment>, !tile.tensor<[T], f32>
    scf.for %c = %c0 to %chunks step %c1 {
      %col0 = arith.muli %c, %c1024 : index
      tile.copy %A[%row, %col0], %a : !tile.tensor<[T, N], bf16>, !tile.tile<4x1024xf32, fragment>
      tile.copy %Bg[%row, %col0], %b : !tile.tensor<[T, N], bf16>, !tile.tile<4x1024xf32, fragment>
      tile.parallel (%i, %j) in [4, 1024] {
        %x = tile.load %a[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %g = tile.load %b[%i, %j] : !tile.tile<4x1024xf32, fragment>
        %r = tile.load %inv[%i] : !tile.tile<4xf32, fragment>
        %nx = arith.negf %x : f32
        %e = math.exp %nx : f32
        %den = arith.addf %e, %one : f32
        %s = arith.divf %x, %den : f32
        %y = arith.mulf %s, %g : f32
        %q = arith.mulf %y, %r : f32
        // Keep |q| <= 448 even if rounding nudged y / scale past it.
        %hi = arith.minimumf %q, %fp8_max : f32
        %nmax = arith.negf %fp8_max : f32
        %qc = arith.maximumf %hi, %nmax : f32
        tile.store %qc, %a[%i, %j] : !tile.tile<4x1024xf32, fragment>
      }
      tile.copy %a, %Q[%row, %col0] : !tile.tile<4x1024xf32, fragment>, !tile.tensor<[T, N], f8E4M3FN>
    }
  }
  tile.return
}
