// Seed: examples/gemm.mlir in the generic op form.
"builtin.module"() ({
  "tile.func"() <{function_type = (!tile.tensor<[M, K], f16>, !tile.tensor<[K, N], f16>, !tile.tensor<[M, N], f16>) -> (), sym_name = "gemm"}> ({
  ^bb0(%arg0: !tile.tensor<[M, K], f16>, %arg1: !tile.tensor<[K, N], f16>, %arg2: !tile.tensor<[M, N], f16>):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "arith.constant"() <{value = 32 : index}> : () -> index
    %3 = "arith.constant"() <{value = 128 : index}> : () -> index
    %4 = "tile.dim"(%arg0) <{index = 0 : i64}> : (!tile.tensor<[M, K], f16>) -> index
    %5 = "tile.dim"(%arg0) <{index = 1 : i64}> : (!tile.tensor<[M, K], f16>) -> index
    %6 = "tile.dim"(%arg1) <{index = 1 : i64}> : (!tile.tensor<[K, N], f16>) -> index
    %7 = "arith.ceildivui"(%6, %3) : (index, index) -> index
    %8 = "arith.ceildivui"(%4, %3) : (index, index) -> index
    %9 = "arith.ceildivui"(%5, %2) : (index, index) -> index
    "tile.kernel"(%7, %8) <{threads = 128 : i64}> ({
    ^bb0(%arg3: index, %arg4: index):
      %10 = "tile.alloc"() : () -> !tile.tile<128x32xf16, shared>
      %11 = "tile.alloc"() : () -> !tile.tile<32x128xf16, shared>
      %12 = "tile.alloc"() : () -> !tile.tile<128x128xf32, fragment>
      "tile.clear"(%12) : (!tile.tile<128x128xf32, fragment>) -> ()
      %13 = "arith.muli"(%arg4, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %14 = "arith.muli"(%arg3, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      "tile.pipelined"(%0, %9, %1) <{num_stages = 3 : i64}> ({
      ^bb0(%arg5: index):
        %15 = "arith.muli"(%arg5, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "tile.copy"(%arg0, %13, %15, %10) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (!tile.tensor<[M, K], f16>, index, index, !tile.tile<128x32xf16, shared>) -> ()
        "tile.copy"(%arg1, %15, %14, %11) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (!tile.tensor<[K, N], f16>, index, index, !tile.tile<32x128xf16, shared>) -> ()
        "tile.gemm"(%10, %11, %12) : (!tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>) -> ()
        "tile.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "tile.copy"(%12, %arg2, %13, %14) <{operandSegmentSizes = array<i32: 1, 0, 1, 2>}> : (!tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>, index, index) -> ()
      "tile.yield"() : () -> ()
    }) : (index, index) -> ()
    "tile.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

