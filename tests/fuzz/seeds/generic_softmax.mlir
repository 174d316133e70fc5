// Seed: examples/softmax.mlir in the generic op form.
"builtin.module"() ({
  "tile.func"() <{function_type = (!tile.tensor<[M, N], f32>, !tile.tensor<[M, N], f32>) -> (), sym_name = "softmax"}> ({
  ^bb0(%arg0: !tile.tensor<[M, N], f32>, %arg1: !tile.tensor<[M, N], f32>):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "arith.constant"() <{value = 4 : index}> : () -> index
    %3 = "arith.constant"() <{value = 1024 : index}> : () -> index
    %4 = "arith.constant"() <{value = 0xFF800000 : f32}> : () -> f32
    %5 = "tile.dim"(%arg0) <{index = 0 : i64}> : (!tile.tensor<[M, N], f32>) -> index
    %6 = "tile.dim"(%arg0) <{index = 1 : i64}> : (!tile.tensor<[M, N], f32>) -> index
    %7 = "arith.ceildivui"(%5, %2) : (index, index) -> index
    %8 = "arith.ceildivui"(%6, %3) : (index, index) -> index
    "tile.kernel"(%7) <{threads = 128 : i64}> ({
    ^bb0(%arg2: index):
      %9 = "arith.muli"(%arg2, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %10 = "tile.alloc"() : () -> !tile.tile<4x1024xf32, fragment>
      %11 = "tile.alloc"() : () -> !tile.tile<4xf32, fragment>
      %12 = "tile.alloc"() : () -> !tile.tile<4xf32, fragment>
      %13 = "tile.alloc"() : () -> !tile.tile<4xf32, fragment>
      "tile.fill"(%11, %4) : (!tile.tile<4xf32, fragment>, f32) -> ()
      "tile.clear"(%13) : (!tile.tile<4xf32, fragment>) -> ()
      "scf.for"(%0, %8, %1) ({
      ^bb0(%arg6: index):
        %21 = "arith.muli"(%arg6, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "tile.copy"(%arg0, %9, %21, %10) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (!tile.tensor<[M, N], f32>, index, index, !tile.tile<4x1024xf32, fragment>) -> ()
        "tile.parallel"() <{shape = array<i64: 4, 1024>}> ({
        ^bb0(%arg10: index, %arg11: index):
          %32 = "arith.addi"(%21, %arg11) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
          %33 = "arith.cmpi"(%32, %6) <{predicate = 6 : i64}> : (index, index) -> i1
          %34 = "tile.load"(%10, %arg10, %arg11) : (!tile.tile<4x1024xf32, fragment>, index, index) -> f32
          %35 = "arith.select"(%33, %34, %4) : (i1, f32, f32) -> f32
          "tile.store"(%35, %10, %arg10, %arg11) : (f32, !tile.tile<4x1024xf32, fragment>, index, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.copy"(%11, %12) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!tile.tile<4xf32, fragment>, !tile.tile<4xf32, fragment>) -> ()
        "tile.reduce"(%10, %11) <{accumulate, dim = 1 : i64, kind = 1 : i32}> : (!tile.tile<4x1024xf32, fragment>, !tile.tile<4xf32, fragment>) -> ()
        "tile.parallel"() <{shape = array<i64: 4, 1024>}> ({
        ^bb0(%arg8: index, %arg9: index):
          %28 = "tile.load"(%10, %arg8, %arg9) : (!tile.tile<4x1024xf32, fragment>, index, index) -> f32
          %29 = "tile.load"(%11, %arg8) : (!tile.tile<4xf32, fragment>, index) -> f32
          %30 = "arith.subf"(%28, %29) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %31 = "math.exp"(%30) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "tile.store"(%31, %10, %arg8, %arg9) : (f32, !tile.tile<4x1024xf32, fragment>, index, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.parallel"() <{shape = array<i64: 4>}> ({
        ^bb0(%arg7: index):
          %22 = "tile.load"(%12, %arg7) : (!tile.tile<4xf32, fragment>, index) -> f32
          %23 = "tile.load"(%11, %arg7) : (!tile.tile<4xf32, fragment>, index) -> f32
          %24 = "arith.subf"(%22, %23) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %25 = "math.exp"(%24) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          %26 = "tile.load"(%13, %arg7) : (!tile.tile<4xf32, fragment>, index) -> f32
          %27 = "arith.mulf"(%26, %25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "tile.store"(%27, %13, %arg7) : (f32, !tile.tile<4xf32, fragment>, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.reduce"(%10, %13) <{accumulate, dim = 1 : i64, kind = 0 : i32}> : (!tile.tile<4x1024xf32, fragment>, !tile.tile<4xf32, fragment>) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.for"(%0, %8, %1) ({
      ^bb0(%arg3: index):
        %14 = "arith.muli"(%arg3, %3) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "tile.copy"(%arg0, %9, %14, %10) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (!tile.tensor<[M, N], f32>, index, index, !tile.tile<4x1024xf32, fragment>) -> ()
        "tile.parallel"() <{shape = array<i64: 4, 1024>}> ({
        ^bb0(%arg4: index, %arg5: index):
          %15 = "tile.load"(%10, %arg4, %arg5) : (!tile.tile<4x1024xf32, fragment>, index, index) -> f32
          %16 = "tile.load"(%11, %arg4) : (!tile.tile<4xf32, fragment>, index) -> f32
          %17 = "tile.load"(%13, %arg4) : (!tile.tile<4xf32, fragment>, index) -> f32
          %18 = "arith.subf"(%15, %16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %19 = "math.exp"(%18) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          %20 = "arith.divf"(%19, %17) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "tile.store"(%20, %10, %arg4, %arg5) : (f32, !tile.tile<4x1024xf32, fragment>, index, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.copy"(%10, %arg1, %9, %14) <{operandSegmentSizes = array<i32: 1, 0, 1, 2>}> : (!tile.tile<4x1024xf32, fragment>, !tile.tensor<[M, N], f32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "tile.yield"() : () -> ()
    }) : (index) -> ()
    "tile.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

