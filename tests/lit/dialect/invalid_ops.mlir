// RUN: %tessera-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// Each case below holds one invalid program and expects exactly one
// diagnostic.

tile.func @gemm_shape_mismatch() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x32xf16, shared>
    %bt = tile.alloc : !tile.tile<32x64xf16, shared>
    %c = tile.alloc : !tile.tile<64x128xf32, fragment>
    // expected-error @+1 {{'tile.gemm' op accumulator shape 64x128 does not match the product shape 64x64}}
    tile.gemm %a, %bt, %c : !tile.tile<64x32xf16, shared>, !tile.tile<32x64xf16, shared>, !tile.tile<64x128xf32, fragment>
  }
  tile.return
}

// -----

tile.func @gemm_k_mismatch() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x32xf16, shared>
    %bt = tile.alloc : !tile.tile<16x64xf16, shared>
    %c = tile.alloc : !tile.tile<64x64xf32, fragment>
    // expected-error @+1 {{'tile.gemm' op reduction dimension mismatch: A has K = 32 but B has K = 16}}
    tile.gemm %a, %bt, %c : !tile.tile<64x32xf16, shared>, !tile.tile<16x64xf16, shared>, !tile.tile<64x64xf32, fragment>
  }
  tile.return
}

// -----

tile.func @gemm_k_mismatch_transposed() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x32xf16, shared>
    %bt = tile.alloc : !tile.tile<32x64xf16, shared>
    %c = tile.alloc : !tile.tile<64x32xf32, fragment>
    // transpose_b reads B as NxK: K = 64 here.
    // expected-error @+1 {{'tile.gemm' op reduction dimension mismatch: A has K = 32 but B has K = 64}}
    tile.gemm %a, %bt, %c transpose_b : !tile.tile<64x32xf16, shared>, !tile.tile<32x64xf16, shared>, !tile.tile<64x32xf32, fragment>
  }
  tile.return
}

// -----

tile.func @gemm_acc_not_fragment() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x32xf16, shared>
    %bt = tile.alloc : !tile.tile<32x64xf16, shared>
    %c = tile.alloc : !tile.tile<64x64xf32, shared>
    // expected-error @+1 {{'tile.gemm' op accumulator C must be a fragment tile, got shared}}
    tile.gemm %a, %bt, %c : !tile.tile<64x32xf16, shared>, !tile.tile<32x64xf16, shared>, !tile.tile<64x64xf32, shared>
  }
  tile.return
}

// -----

tile.func @gemm_f16_x_bf16() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x32xf16, shared>
    %bt = tile.alloc : !tile.tile<32x64xbf16, shared>
    %c = tile.alloc : !tile.tile<64x64xf32, fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported dtype combination: 'f16' x 'bf16' -> 'f32'}}
    tile.gemm %a, %bt, %c : !tile.tile<64x32xf16, shared>, !tile.tile<32x64xbf16, shared>, !tile.tile<64x64xf32, fragment>
  }
  tile.return
}

// -----

tile.func @gemm_i8_to_f32() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x32xi8, shared>
    %bt = tile.alloc : !tile.tile<32x64xi8, shared>
    %c = tile.alloc : !tile.tile<64x64xf32, fragment>
    // expected-error @+1 {{'tile.gemm' op unsupported dtype combination: 'i8' x 'i8' -> 'f32'}}
    tile.gemm %a, %bt, %c : !tile.tile<64x32xi8, shared>, !tile.tile<32x64xi8, shared>, !tile.tile<64x64xf32, fragment>
  }
  tile.return
}

// -----

tile.func @gemm_local_operand() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 128 {
    %a = tile.alloc : !tile.tile<64x32xf16, local>
    %bt = tile.alloc : !tile.tile<32x64xf16, shared>
    %c = tile.alloc : !tile.tile<64x64xf32, fragment>
    // expected-error @+1 {{'tile.gemm' op A and B must be shared or fragment tiles}}
    tile.gemm %a, %bt, %c : !tile.tile<64x32xf16, local>, !tile.tile<32x64xf16, shared>, !tile.tile<64x64xf32, fragment>
  }
  tile.return
}

// -----

// A fragment can only be written to global memory from inside a kernel.
tile.func @copy_outside_kernel(%C: !tile.tensor<[M, N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = "test.make_tile"() : () -> !tile.tile<64x64xf32, fragment>
  // expected-error @+1 {{'tile.copy' op must be inside a 'tile.kernel'}}
  tile.copy %f, %C[%c0, %c0] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
  tile.kernel blocks(%b) in (%c1) threads = 32 {
  }
  tile.return
}

// -----

tile.func @alloc_outside_kernel() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.alloc' op must be inside a 'tile.kernel'}}
  %t = tile.alloc : !tile.tile<64x64xf32, shared>
  tile.kernel blocks(%b) in (%c1) threads = 32 {
  }
  tile.return
}

// -----

tile.func @stages_zero() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    // expected-error @+1 {{'tile.pipelined' op num_stages must be at least 1, got 0}}
    tile.pipelined %k = %c0 to %c1 step %c1 stages = 0 {
    }
  }
  tile.return
}

// -----

tile.func @stages_negative() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    // expected-error @+1 {{'tile.pipelined' op num_stages must be at least 1, got -1}}
    tile.pipelined %k = %c0 to %c1 step %c1 stages = -1 {
    }
  }
  tile.return
}

// -----

tile.func @reduce_missing_dim() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<64x32xf32, fragment>
    %d = tile.alloc : !tile.tile<64xf32, fragment>
    // expected-error @+1 {{'tile.reduce' op reduction dimension 2 does not exist in a source tile of rank 2}}
    tile.reduce sum %s, %d dim = 2 : !tile.tile<64x32xf32, fragment>, !tile.tile<64xf32, fragment>
  }
  tile.return
}

// -----

tile.func @reduce_dst_shape() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<64x32xf32, fragment>
    %d = tile.alloc : !tile.tile<32xf32, fragment>
    // expected-error @+1 {{'tile.reduce' op destination shape must be the source shape without dimension 1}}
    tile.reduce max %s, %d dim = 1 : !tile.tile<64x32xf32, fragment>, !tile.tile<32xf32, fragment>
  }
  tile.return
}

// -----

tile.func @reduce_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<64x32xf32, shared>
    %d = tile.alloc : !tile.tile<64xf32, fragment>
    // expected-error @+1 {{'tile.reduce' op reduces fragment or local tiles; copy shared tiles into a fragment first}}
    tile.reduce min %s, %d dim = 1 : !tile.tile<64x32xf32, shared>, !tile.tile<64xf32, fragment>
  }
  tile.return
}

// -----

tile.func @copy_offset_count(%A: !tile.tensor<[M, K], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %t = tile.alloc : !tile.tile<64x32xf16, shared>
    // expected-error @+1 {{'tile.copy' op source tensor of rank 2 needs 2 offsets, got 1}}
    tile.copy %A[%c0], %t : !tile.tensor<[M, K], f16>, !tile.tile<64x32xf16, shared>
  }
  tile.return
}

// -----

tile.func @copy_tensor_to_tensor(%A: !tile.tensor<[M, K], f16>, %B: !tile.tensor<[M, K], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    // expected-error @+1 {{'tile.copy' op cannot copy from a global tensor to a global tensor; stage the data through a tile}}
    tile.copy %A[%c0, %c0], %B[%c0, %c0] : !tile.tensor<[M, K], f16>, !tile.tensor<[M, K], f16>
  }
  tile.return
}

// -----

tile.func @copy_tile_shape_mismatch() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<64x32xf16, shared>
    %f = tile.alloc : !tile.tile<32x32xf32, fragment>
    // expected-error @+1 {{'tile.copy' op destination tile shape does not match the source}}
    tile.copy %s, %f : !tile.tile<64x32xf16, shared>, !tile.tile<32x32xf32, fragment>
  }
  tile.return
}

// -----

tile.func @copy_tile_offsets() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<64x32xf16, shared>
    %f = tile.alloc : !tile.tile<64x32xf16, fragment>
    // expected-error @+1 {{'tile.copy' op source is a tile and takes no offsets}}
    tile.copy %s[%c0, %c0], %f : !tile.tile<64x32xf16, shared>, !tile.tile<64x32xf16, fragment>
  }
  tile.return
}

// -----

tile.func @copy_transpose_rank3() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<2x4x8xf16, shared>
    %f = tile.alloc : !tile.tile<2x8x4xf16, fragment>
    // expected-error @+1 {{'tile.copy' op transpose needs rank-2 tiles, got rank 3}}
    tile.copy %s, %f transpose : !tile.tile<2x4x8xf16, shared>, !tile.tile<2x8x4xf16, fragment>
  }
  tile.return
}

// -----

tile.func @copy_tile_rank_above_tensor(%A: !tile.tensor<[N], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<4x8xf16, shared>
    // expected-error @+1 {{'tile.copy' op tile of rank 2 does not fit in a tensor of rank 1}}
    tile.copy %A[%c0], %s : !tile.tensor<[N], f16>, !tile.tile<4x8xf16, shared>
  }
  tile.return
}

// -----

tile.func @copy_tile_larger_than_static(%A: !tile.tensor<[B, 64, 32], f16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %s = tile.alloc : !tile.tile<64x64xf16, shared>
    // expected-error @+1 {{'tile.copy' op tile dimension 1 (64) is larger than the tensor's static size 32 (dimension 2)}}
    tile.copy %A[%c0, %c0, %c0], %s : !tile.tensor<[B, 64, 32], f16>, !tile.tile<64x64xf16, shared>
  }
  tile.return
}

// -----

tile.func @load_index_count() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %t = tile.alloc : !tile.tile<64x32xf32, fragment>
    tile.parallel (%i, %j) in [64, 32] {
      // expected-error @+1 {{'tile.load' op tile of rank 2 needs 2 indices, got 1}}
      %v = tile.load %t[%i] : !tile.tile<64x32xf32, fragment>
    }
  }
  tile.return
}

// -----

tile.func @fill_type_mismatch() {
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f16
  tile.kernel blocks(%b) in (%c1) threads = 32 {
    %t = tile.alloc : !tile.tile<64xf32, fragment>
    // expected-error @+1 {{'tile.fill' op fill value of type 'f16' does not match the tile element type 'f32'}}
    tile.fill %t, %v : !tile.tile<64xf32, fragment>, f16
  }
  tile.return
}

// -----

tile.func @kernel_four_dims() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op grid must have 1 to 3 dimensions, got 4}}
  tile.kernel blocks(%x, %y, %z, %w) in (%c1, %c1, %c1, %c1) threads = 32 {
  }
  tile.return
}

// -----

tile.func @kernel_zero_threads() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op threads must be positive, got 0}}
  tile.kernel blocks(%x) in (%c1) threads = 0 {
  }
  tile.return
}

// -----

tile.func @kernel_index_count() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op has 1 block indices for a 2-dimensional grid}}
  tile.kernel blocks(%x) in (%c1, %c1) threads = 32 {
  }
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op a kernel function returns no results; write outputs to a global tensor argument}}
tile.func @func_with_result() -> f32 {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%c1) threads = 32 {
  }
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op body must launch exactly one 'tile.kernel', found 2}}
tile.func @two_kernels() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%c1) threads = 32 {
  }
  tile.kernel blocks(%y) in (%c1) threads = 32 {
  }
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument #0 has type '!tile.tile<64xf32, shared>'; expected a !tile.tensor, an integer, a float or index}}
tile.func @tile_argument(%t: !tile.tile<64xf32, shared>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%c1) threads = 32 {
  }
  tile.return
}

// -----

tile.func @dim_out_of_range(%A: !tile.tensor<[M, K], f16>) {
  // expected-error @+1 {{'tile.dim' op dimension 2 is out of range for a tensor of rank 2}}
  %d = tile.dim %A, 2 : !tile.tensor<[M, K], f16>
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%c1) threads = 32 {
  }
  tile.return
}

// -----

tile.func @atomic_dtype(%C: !tile.tensor<[N], i8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%c1) threads = 32 {
    %t = tile.alloc : !tile.tile<64xi8, fragment>
    // expected-error @+1 {{'tile.atomic' op atomics support f16, bf16, f32, f64 and i32, got 'i8'}}
    tile.atomic add %t, %C[%c0] : !tile.tile<64xi8, fragment>, !tile.tensor<[N], i8>
  }
  tile.return
}

// -----

tile.func @copy_in_parallel(%A: !tile.tensor<[N], f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%c1) threads = 32 {
    %t = tile.alloc : !tile.tile<64xf32, fragment>
    tile.parallel (%i) in [64] {
      // expected-error @+1 {{'tile.copy' op is not allowed inside 'tile.parallel', which holds element-wise code only}}
      tile.copy %A[%c0], %t : !tile.tensor<[N], f32>, !tile.tile<64xf32, fragment>
    }
  }
  tile.return
}

// -----

tile.func @parallel_zero_size() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%x) in (%c1) threads = 32 {
    // expected-error @+1 {{'tile.parallel' op index space sizes must be positive, got 0}}
    tile.parallel (%i) in [0] {
    }
  }
  tile.return
}
