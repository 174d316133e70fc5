// Seed: examples/flash_attention_fwd.mlir in the generic op form.
"builtin.module"() ({
  "tile.func"() <{function_type = (!tile.tensor<[B, H, S, 128], f16>, !tile.tensor<[B, H, S, 128], f16>, !tile.tensor<[B, H, S, 128], f16>, !tile.tensor<[B, H, S, 128], f16>, i32, f32) -> (), sym_name = "flash_attention_fwd"}> ({
  ^bb0(%arg0: !tile.tensor<[B, H, S, 128], f16>, %arg1: !tile.tensor<[B, H, S, 128], f16>, %arg2: !tile.tensor<[B, H, S, 128], f16>, %arg3: !tile.tensor<[B, H, S, 128], f16>, %arg4: i32, %arg5: f32):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "arith.constant"() <{value = 64 : index}> : () -> index
    %3 = "arith.constant"() <{value = true}> : () -> i1
    %4 = "arith.constant"() <{value = 1 : i32}> : () -> i32
    %5 = "arith.constant"() <{value = 0xFF800000 : f32}> : () -> f32
    %6 = "tile.dim"(%arg0) <{index = 0 : i64}> : (!tile.tensor<[B, H, S, 128], f16>) -> index
    %7 = "tile.dim"(%arg0) <{index = 1 : i64}> : (!tile.tensor<[B, H, S, 128], f16>) -> index
    %8 = "tile.dim"(%arg0) <{index = 2 : i64}> : (!tile.tensor<[B, H, S, 128], f16>) -> index
    %9 = "arith.ceildivui"(%8, %2) : (index, index) -> index
    %10 = "arith.ceildivui"(%8, %2) : (index, index) -> index
    %11 = "arith.cmpi"(%arg4, %4) <{predicate = 0 : i64}> : (i32, i32) -> i1
    "tile.kernel"(%9, %7, %6) <{threads = 128 : i64}> ({
    ^bb0(%arg6: index, %arg7: index, %arg8: index):
      %12 = "arith.muli"(%arg6, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %13 = "arith.addi"(%arg6, %1) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
      %14 = "arith.minui"(%13, %10) : (index, index) -> index
      %15 = "arith.select"(%11, %14, %10) : (i1, index, index) -> index
      %16 = "tile.alloc"() : () -> !tile.tile<64x128xf16, shared>
      %17 = "tile.alloc"() : () -> !tile.tile<64x128xf16, shared>
      %18 = "tile.alloc"() : () -> !tile.tile<64x128xf16, shared>
      %19 = "tile.alloc"() : () -> !tile.tile<64x64xf32, fragment>
      %20 = "tile.alloc"() : () -> !tile.tile<64x64xf16, fragment>
      %21 = "tile.alloc"() : () -> !tile.tile<64x128xf32, fragment>
      %22 = "tile.alloc"() : () -> !tile.tile<64xf32, fragment>
      %23 = "tile.alloc"() : () -> !tile.tile<64xf32, fragment>
      %24 = "tile.alloc"() : () -> !tile.tile<64xf32, fragment>
      %25 = "tile.alloc"() : () -> !tile.tile<64xf32, fragment>
      "tile.fill"(%22, %5) : (!tile.tile<64xf32, fragment>, f32) -> ()
      "tile.clear"(%24) : (!tile.tile<64xf32, fragment>) -> ()
      "tile.clear"(%21) : (!tile.tile<64x128xf32, fragment>) -> ()
      "tile.copy"(%arg0, %arg8, %arg7, %12, %0, %16) <{operandSegmentSizes = array<i32: 1, 4, 1, 0>}> : (!tile.tensor<[B, H, S, 128], f16>, index, index, index, index, !tile.tile<64x128xf16, shared>) -> ()
      "tile.pipelined"(%0, %15, %1) <{num_stages = 2 : i64}> ({
      ^bb0(%arg11: index):
        %29 = "arith.muli"(%arg11, %2) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
        "tile.copy"(%arg1, %arg8, %arg7, %29, %0, %17) <{operandSegmentSizes = array<i32: 1, 4, 1, 0>}> : (!tile.tensor<[B, H, S, 128], f16>, index, index, index, index, !tile.tile<64x128xf16, shared>) -> ()
        "tile.copy"(%arg2, %arg8, %arg7, %29, %0, %18) <{operandSegmentSizes = array<i32: 1, 4, 1, 0>}> : (!tile.tensor<[B, H, S, 128], f16>, index, index, index, index, !tile.tile<64x128xf16, shared>) -> ()
        "tile.gemm"(%16, %17, %19) <{clear, transpose_b}> : (!tile.tile<64x128xf16, shared>, !tile.tile<64x128xf16, shared>, !tile.tile<64x64xf32, fragment>) -> ()
        "tile.parallel"() <{shape = array<i64: 64, 64>}> ({
        ^bb0(%arg17: index, %arg18: index):
          %43 = "tile.load"(%19, %arg17, %arg18) : (!tile.tile<64x64xf32, fragment>, index, index) -> f32
          %44 = "arith.mulf"(%43, %arg5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %45 = "arith.addi"(%29, %arg18) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
          %46 = "arith.addi"(%12, %arg17) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
          %47 = "arith.cmpi"(%45, %8) <{predicate = 6 : i64}> : (index, index) -> i1
          %48 = "arith.cmpi"(%45, %46) <{predicate = 8 : i64}> : (index, index) -> i1
          %49 = "arith.andi"(%11, %48) : (i1, i1) -> i1
          %50 = "arith.xori"(%49, %3) : (i1, i1) -> i1
          %51 = "arith.andi"(%47, %50) : (i1, i1) -> i1
          %52 = "arith.select"(%51, %44, %5) : (i1, f32, f32) -> f32
          "tile.store"(%52, %19, %arg17, %arg18) : (f32, !tile.tile<64x64xf32, fragment>, index, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.copy"(%22, %23) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!tile.tile<64xf32, fragment>, !tile.tile<64xf32, fragment>) -> ()
        "tile.reduce"(%19, %22) <{accumulate, dim = 1 : i64, kind = 1 : i32}> : (!tile.tile<64x64xf32, fragment>, !tile.tile<64xf32, fragment>) -> ()
        "tile.parallel"() <{shape = array<i64: 64, 64>}> ({
        ^bb0(%arg15: index, %arg16: index):
          %39 = "tile.load"(%19, %arg15, %arg16) : (!tile.tile<64x64xf32, fragment>, index, index) -> f32
          %40 = "tile.load"(%22, %arg15) : (!tile.tile<64xf32, fragment>, index) -> f32
          %41 = "arith.subf"(%39, %40) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %42 = "math.exp"(%41) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "tile.store"(%42, %19, %arg15, %arg16) : (f32, !tile.tile<64x64xf32, fragment>, index, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.parallel"() <{shape = array<i64: 64>}> ({
        ^bb0(%arg14: index):
          %33 = "tile.load"(%23, %arg14) : (!tile.tile<64xf32, fragment>, index) -> f32
          %34 = "tile.load"(%22, %arg14) : (!tile.tile<64xf32, fragment>, index) -> f32
          %35 = "arith.subf"(%33, %34) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %36 = "math.exp"(%35) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
          "tile.store"(%36, %25, %arg14) : (f32, !tile.tile<64xf32, fragment>, index) -> ()
          %37 = "tile.load"(%24, %arg14) : (!tile.tile<64xf32, fragment>, index) -> f32
          %38 = "arith.mulf"(%37, %36) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "tile.store"(%38, %24, %arg14) : (f32, !tile.tile<64xf32, fragment>, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.reduce"(%19, %24) <{accumulate, dim = 1 : i64, kind = 0 : i32}> : (!tile.tile<64x64xf32, fragment>, !tile.tile<64xf32, fragment>) -> ()
        "tile.parallel"() <{shape = array<i64: 64, 128>}> ({
        ^bb0(%arg12: index, %arg13: index):
          %30 = "tile.load"(%21, %arg12, %arg13) : (!tile.tile<64x128xf32, fragment>, index, index) -> f32
          %31 = "tile.load"(%25, %arg12) : (!tile.tile<64xf32, fragment>, index) -> f32
          %32 = "arith.mulf"(%30, %31) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "tile.store"(%32, %21, %arg12, %arg13) : (f32, !tile.tile<64x128xf32, fragment>, index, index) -> ()
          "tile.yield"() : () -> ()
        }) : () -> ()
        "tile.copy"(%19, %20) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!tile.tile<64x64xf32, fragment>, !tile.tile<64x64xf16, fragment>) -> ()
        "tile.gemm"(%20, %18, %21) : (!tile.tile<64x64xf16, fragment>, !tile.tile<64x128xf16, shared>, !tile.tile<64x128xf32, fragment>) -> ()
        "tile.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "tile.parallel"() <{shape = array<i64: 64, 128>}> ({
      ^bb0(%arg9: index, %arg10: index):
        %26 = "tile.load"(%21, %arg9, %arg10) : (!tile.tile<64x128xf32, fragment>, index, index) -> f32
        %27 = "tile.load"(%24, %arg9) : (!tile.tile<64xf32, fragment>, index) -> f32
        %28 = "arith.divf"(%26, %27) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "tile.store"(%28, %21, %arg9, %arg10) : (f32, !tile.tile<64x128xf32, fragment>, index, index) -> ()
        "tile.yield"() : () -> ()
      }) : () -> ()
      "tile.copy"(%21, %arg3, %arg8, %arg7, %12, %0) <{operandSegmentSizes = array<i32: 1, 0, 1, 4>}> : (!tile.tile<64x128xf32, fragment>, !tile.tensor<[B, H, S, 128], f16>, index, index, index, index) -> ()
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "tile.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

