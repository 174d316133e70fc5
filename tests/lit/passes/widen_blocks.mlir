// tessera-widen-blocks (WidenBlocks.cpp): on sm_90a (widen_tile_n = 256)
// blocks (2i, y), (2i + 1, y) of a GEMM whose columns follow x merge into
// one block with the tile twice as wide (and, with widen_tile_m = 128,
// blocks (x, 2j), (x, 2j + 1) whose rows follow y, up to 128 rows): every tile dimension that follows
// x doubles (B, C, a column bias, the tile.parallel index over them), the
// column offset becomes bx * 2T, the grid's x size is halved (rounded up)
// and the threads double where the accumulator would pass 128 registers.
// Kernels whose x-following columns are reduced over, whose block index is
// used other than as bx * T, whose copies at the column offset do not cover
// T columns, that say tile.widen = 1, or whose gemm has no atom that wide
// keep their blocks; targets without widen_tile_n (sm_80) never widen.
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_90a %s --split-input-file | FileCheck %s
// RUN: %tessera-opt --tessera-widen-blocks=target=sm_80 %s --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: env TESSERA_WIDEN=0 %tessera-opt --tessera-widen-blocks=target=sm_90a %s --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: %tessera-opt --tessera-pipeline=sm_90a %examples/gemm.mlir | FileCheck %s --check-prefix=PIPE
// RUN: env TESSERA_WIDEN=explain %tessera-opt --tessera-widen-blocks=target=sm_90a %s --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHY
// RUN: not %tessera-opt --tessera-widen-blocks=target=sm_90a %S/Inputs/widen_bad_request.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// NONE-NOT: tile.widened
// TESSERA_WIDEN=explain says why each kernel's blocks were not merged
// (further), per axis:
// WHY: remark: blocks not merged along x: the tile is as wide as the target's widest
// WHY: remark: blocks not merged along y: the tile is as wide as the target's widest
// WHY: remark: blocks not merged along x: an x-following dimension is reduced over or indexed by other than a parallel index
// WHY: remark: blocks not merged along x: an x-following parallel index used as a value
// WHY: remark: blocks not merged along x: a copy's column offset does not match its tile
// WHY: remark: blocks not merged along x: the merged block would need more threads, and the program could tell: a local tile (private to each thread)
// BAD: error: 'tile.kernel' op tile.widen must be at least 1, got 0

// gemm.mlir's shape with a column bias and a guard on the column position:
// 128x128 -> 128x256, 256 threads.
// CHECK-LABEL: tile.func @bias
// CHECK: %[[GX:.*]] = arith.ceildivui %{{.*}}, %c128
// CHECK: %[[HALF:.*]] = arith.ceildivui %[[GX]], %c2
// CHECK: tile.kernel blocks(%[[BX:.*]], %{{.*}}) in (%[[HALF]], %{{.*}}) threads = 256 attributes {tile.widened = array<i64: 2, 1>}
// CHECK: tile.alloc : <128x32xf16, shared>
// CHECK: tile.alloc : <32x256xf16, shared>
// CHECK: tile.alloc : <128x256xf32, fragment>
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: arith.muli %[[BX]], %[[C256]]
// CHECK: tile.alloc : <256xf32, fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in [128, 256]
tile.func @bias(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                %bias: !tile.tensor<[N], f32>, %C: !tile.tensor<[M, N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], f16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], f16>
  %n = tile.dim %B, 1 : !tile.tensor<[K, N], f16>
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c128 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 3 {
      %k0 = arith.muli %kt, %c32 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
      tile.copy %B[%k0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
      tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    }
    %bf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.copy %bias[%col], %bf : !tile.tensor<[N], f32>, !tile.tile<128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %b = tile.load %bf[%j] : !tile.tile<128xf32, fragment>
      %pos = arith.addi %col, %j : index
      %inside = arith.cmpi ult, %pos, %n : index
      %x = arith.addf %v, %b : f32
      %y = arith.select %inside, %x, %zero : f32
      tile.store %y, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
  }
  tile.return
}

// -----

// 64x64 with one warpgroup: columns twice, to 64x256 (the accumulator
// reaches 128 registers per thread with the same threads), then rows once,
// to 128x256 with a second warpgroup (widen_tile_m = 128); the grid's y
// size is halved too.
// CHECK-LABEL: tile.func @small
// CHECK: %[[M:.*]] = tile.dim %arg0, 0
// CHECK: %[[GY:.*]] = arith.ceildivui %[[M]], %c64
// CHECK: %[[GY2:.*]] = arith.ceildivui %[[GY]], %c2
// CHECK: tile.kernel {{.*}} in (%{{.*}}, %[[GY2]]) threads = 256 attributes {tile.widened = array<i64: 4, 2>}
// CHECK: tile.alloc : <128x64xbf16, shared>
// CHECK: tile.alloc : <256x64xbf16, shared>
// CHECK: tile.alloc : <128x256xf32, fragment>
tile.func @small(%A: !tile.tensor<[M, K], bf16>, %B: !tile.tensor<[N, K], bf16>,
                 %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %m = tile.dim %A, 0 : !tile.tensor<[M, K], bf16>
  %k = tile.dim %A, 1 : !tile.tensor<[M, K], bf16>
  %n = tile.dim %B, 0 : !tile.tensor<[N, K], bf16>
  %gx = arith.ceildivui %n, %c64 : index
  %gy = arith.ceildivui %m, %c64 : index
  %nk = arith.ceildivui %k, %c64 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %As = tile.alloc : !tile.tile<64x64xbf16, shared>
    %Bs = tile.alloc : !tile.tile<64x64xbf16, shared>
    %Cf = tile.alloc : !tile.tile<64x64xf32, fragment>
    tile.clear %Cf : !tile.tile<64x64xf32, fragment>
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    tile.pipelined %kt = %c0 to %nk step %c1 stages = 2 {
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%row, %k0], %As : !tile.tensor<[M, K], bf16>, !tile.tile<64x64xbf16, shared>
      tile.copy %B[%col, %k0], %Bs : !tile.tensor<[N, K], bf16>, !tile.tile<64x64xbf16, shared>
      tile.gemm %As, %Bs, %Cf transpose_b : !tile.tile<64x64xbf16, shared>, !tile.tile<64x64xbf16, shared>, !tile.tile<64x64xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// A row sum over the columns: the columns are reduced over, widening would
// sum two blocks' columns. Unchanged.
// CHECK-LABEL: tile.func @rowsum
// CHECK-NOT: tile.widened
// CHECK: tile.return
tile.func @rowsum(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                  %R: !tile.tensor<[M, G], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %Rf = tile.alloc : !tile.tile<128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.reduce sum %Cf, %Rf dim = 1 : !tile.tile<128x128xf32, fragment>, !tile.tile<128xf32, fragment>
    tile.copy %Rf, %R[%row, %c0] : !tile.tile<128xf32, fragment>, !tile.tensor<[M, G], f32>
  }
  tile.return
}

// -----

// The column index used as a value (j < 64 masks half of each block's
// columns): unchanged.
// CHECK-LABEL: tile.func @index_value
// CHECK-NOT: tile.widened
// CHECK: tile.return
tile.func @index_value(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                       %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %low = arith.cmpi ult, %j, %c64 : index
      %y = arith.select %low, %v, %zero : f32
      tile.store %y, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// Split-K by x: bx picks a K chunk (offsets bx * 64 along K, which the
// 32-wide tiles do not cover). Unchanged.
// CHECK-LABEL: tile.func @splitk_x
// CHECK-NOT: tile.widened
// CHECK: tile.return
tile.func @splitk_x(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                    %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %kc = arith.muli %bx, %c64 : index
    tile.copy %A[%row, %kc], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%kc, %c0], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.atomic add %Cf, %C[%row, %c0] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// The program keeps its blocks.
// CHECK-LABEL: tile.func @own
// CHECK: tile.widen = 1
// CHECK-NOT: tile.widened
// CHECK: tile.return
tile.func @own(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
               %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 attributes {tile.widen = 1} {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// The merged block would need twice the threads, and a local tile (private
// to each thread) would tell: the blocks stay (threadCountDependence).
// CHECK-LABEL: tile.func @local_tile
// CHECK-NOT: tile.widened
// CHECK: tile.return
tile.func @local_tile(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[K, N], f16>,
                      %C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c4, %c4) threads = 128 {
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    %Bs = tile.alloc : !tile.tile<32x128xf16, shared>
    %Cf = tile.alloc : !tile.tile<128x128xf32, fragment>
    %L = tile.alloc : !tile.tile<4xf32, local>
    tile.clear %L : !tile.tile<4xf32, local>
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %A[%row, %c0], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %B[%c0, %col], %Bs : !tile.tensor<[K, N], f16>, !tile.tile<32x128xf16, shared>
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    tile.copy %Cf, %C[%row, %col] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f32>
  }
  tile.return
}

// The whole pipeline on gemm.mlir: widened first, then paired and pipelined.
// PIPE: tile.kernel {{.*}} threads = 256 attributes {{{.*}}tile.widened = array<i64: 2, 1>
// PIPE: tile.tile<128x256xf32
