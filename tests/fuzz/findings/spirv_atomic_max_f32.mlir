// Found by the random tile programs (gen_tile_programs.py run 15 --family
// multi --targets spirv64-unknown-vulkan1.3:lavapipe --devices spirv, shrunk,
// then cut down by hand): the spirv backend cannot compile `tile.atomic max`
// on f32, which docs/dialect.md allows (the cuda and cpu backends compile and
// run it; `tile.atomic add` on f32 compiles for spirv):
//
//   build/default/bin/tessera compile tests/fuzz/findings/spirv_atomic_max_f32.mlir \
//     --target spirv64-unknown-vulkan1.3:lavapipe --no-cache -o /tmp/a.tsb
//   spirv_atomic_max_f32.mlir:26:5: error: failed to legalize operation 'memref.atomic_rmw'
//     note: see current operation: %87 = "memref.atomic_rmw"(%82, <<UNKNOWN SSA VALUE>>, %86) <{kind = 4 : i64}> ...
//
// (every spirv chip: lavapipe, nvidia-vk, generic). Expected: SPIR-V code
// (a compare-and-swap loop, or SPV_EXT_shader_atomic_float_min_max where the
// device has it), or a positioned diagnostic saying the target lacks it. The
// generator turns these reductions into partial outputs for spirv targets
// (families/multi.py `restrict`) until then.
tile.func @atomic_max_f32(%X: !tile.tensor<[M], f32>, %R: !tile.tensor<[16], f32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %m = tile.dim %X, 0 : !tile.tensor<[M], f32>
  %g = arith.ceildivui %m, %c16 : index
  tile.kernel blocks(%b) in (%g) threads = 32 {
    %x0 = arith.muli %b, %c16 : index
    %t = tile.alloc : !tile.tile<16xf32, fragment>
    tile.copy %X[%x0], %t : !tile.tensor<[M], f32>, !tile.tile<16xf32, fragment>
    tile.atomic max %t, %R[%c0] : !tile.tile<16xf32, fragment>, !tile.tensor<[16], f32>
  }
  tile.return
}
