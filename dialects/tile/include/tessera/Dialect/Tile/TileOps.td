//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TILE_TILEOPS_TD
#define TESSERA_DIALECT_TILE_TILEOPS_TD

include "tessera/Dialect/Tile/TileBase.td"
include "tessera/Dialect/Tile/TileAttrs.td"
include "tessera/Dialect/Tile/TileTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_AnyTile : Type<CPred<"::llvm::isa<::tessera::tile::TileType>($_self)">,
                        "tile", "::tessera::tile::TileType">;
def Tile_AnyTensor : Type<CPred<"::llvm::isa<::tessera::tile::GlobalTensorType>($_self)">,
                          "global tensor", "::tessera::tile::GlobalTensorType">;
def Tile_TileOrTensor : AnyTypeOf<[Tile_AnyTile, Tile_AnyTensor]>;

//===----------------------------------------------------------------------===//
// Functions and kernels
//===----------------------------------------------------------------------===//

def Tile_FuncOp : Tile_Op<"func", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "A kernel function over global tensors and scalars";
  let description = [{
    The unit a bundle exports: its arguments are global tensors
    (`!tile.tensor`) and scalars (integers, floats, index). Its body computes
    the grid from argument shapes and launches one `tile.kernel`.

    ```mlir
    tile.func @add(%a: !tile.tensor<[N], f32>, %b: !tile.tensor<[N], f32>) {
      ...
      tile.return
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() {
      return isExternal() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    bool isDeclaration() { return isExternal(); }
    /// The single tile.kernel of the body, or null.
    class KernelOp getKernel();
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"FuncOp">, Terminator,
                                       ReturnLike]> {
  let summary = "Ends a kernel function";
  let assemblyFormat = "attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "ParallelOp", "PipelinedOp"]>]> {
  let summary = "Ends the region of a kernel, parallel or pipelined op";
  let assemblyFormat = "attr-dict";
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "The run-time size of one dimension of a global tensor";
  let description = [{
    ```mlir
    %m = tile.dim %A, 0 : !tile.tensor<[M, K], f16>
    ```
  }];
  let arguments = (ins Tile_AnyTensor:$tensor, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$tensor `,` $index attr-dict `:` type($tensor)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_KernelOp : Tile_Op<"kernel", [
    SingleBlockImplicitTerminator<"YieldOp">, HasParent<"FuncOp">,
    RecursiveMemoryEffects]> {
  let summary = "A grid of blocks, each running the region with `threads` threads";
  let description = [{
    The region's arguments are the block's indices, one per grid dimension
    (one to three). The grid sizes are index values computed from argument
    shapes; the compiler records how, so the runtime derives the grid from the
    shapes at launch.

    ```mlir
    tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
      ...
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$grid, I64Attr:$threads);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::Block::BlockArgListType getBlockIndices() {
      return getBodyBlock().getArguments();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Tiles and data movement
//===----------------------------------------------------------------------===//

def Tile_AllocOp : Tile_Op<"alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "Allocates a shared, fragment or local tile";
  let description = [{
    ```mlir
    %As = tile.alloc : !tile.tile<128x32xf16, shared>
    ```
  }];
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    TileType getType() { return ::llvm::cast<TileType>(getResult().getType()); }
  }];
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "Copies a tile between global memory, shared and fragment tiles";
  let description = [{
    One side may be a global tensor, indexed by the element offsets of the
    tile's origin; elements outside the tensor are masked (loads read zero,
    stores are skipped), so partial tiles at the edges are handled. A copy
    between different element types converts each element. `transpose`
    (rank-2 tiles) swaps the two dimensions on the way.

    A tile of rank r may cover the last r dimensions of a global tensor of
    rank R > r: the copy still takes R offsets, and the leading R - r of them
    select a single element along their dimension (a rank-reducing copy).
    Between two tiles, the ranks and shapes (after `transpose`) must agree.

    ```mlir
    tile.copy %A[%m, %k], %As : !tile.tensor<[M, K], f16>, !tile.tile<128x32xf16, shared>
    tile.copy %Cf, %C[%m, %n] : !tile.tile<128x128xf32, fragment>, !tile.tensor<[M, N], f16>
    // One 64x128 slice Q[b, h, q0:q0+64, 0:128] of a rank-4 tensor.
    tile.copy %Q[%b, %h, %q0, %c0], %Qs : !tile.tensor<[B, H, S, 128], f16>, !tile.tile<64x128xf16, shared>
    ```
  }];
  let arguments = (ins Tile_TileOrTensor:$src, Variadic<Index>:$src_offsets,
                       Tile_TileOrTensor:$dst, Variadic<Index>:$dst_offsets,
                       UnitAttr:$transpose);
  let assemblyFormat = [{
    $src (`[` $src_offsets^ `]`)? `,` $dst (`[` $dst_offsets^ `]`)?
    (`transpose` $transpose^)? attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_GemmOp : Tile_Op<"gemm"> {
  let summary = "C += op(A) * op(B) on tiles";
  let description = [{
    A and B live in shared memory or fragments, C in a fragment. `transpose_a`
    reads A as KxM, `transpose_b` reads B as NxK. `clear` zeroes C first.
    Supported inputs -> accumulator: f16 -> f32|f16, bf16 -> f32,
    f8E4M3FN/f8E5M2 (any mix) -> f32, i8 -> i32, f32 -> f32.

    ```mlir
    tile.gemm %As, %Bs, %Cf : !tile.tile<128x32xf16, shared>, !tile.tile<32x128xf16, shared>, !tile.tile<128x128xf32, fragment>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$a, Tile_AnyTile:$b, Tile_AnyTile:$c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$clear);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`clear` $clear^)? attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "Sets every element of a tile to a value";
  let description = [{
    ```mlir
    tile.fill %m, %neg_inf : !tile.tile<64xf32, fragment>, f32
    ```
  }];
  let arguments = (ins Tile_AnyTile:$dst, AnyTypeOf<[AnyInteger, AnyFloat, Index]>:$value);
  let assemblyFormat = "$dst `,` $value attr-dict `:` type($dst) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_ClearOp : Tile_Op<"clear"> {
  let summary = "Sets every element of a tile to zero";
  let description = [{
    ```mlir
    tile.clear %Cf : !tile.tile<128x128xf32, fragment>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$dst);
  let assemblyFormat = "$dst attr-dict `:` type($dst)";
  let hasVerifier = 1;
}

def Tile_ParallelOp : Tile_Op<"parallel", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "An element-wise region over a tile-shaped index space";
  let description = [{
    Runs the region once for every index in the static `shape`; the
    iterations are independent (the compiler distributes them over threads
    following the layouts of the tiles they touch). Use `tile.load` and
    `tile.store` with the region's indices, and `arith`/`math` in between.

    ```mlir
    tile.parallel (%i, %j) in [128, 128] {
      %v = tile.load %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
      %r = arith.maximumf %v, %zero : f32
      tile.store %r, %Cf[%i, %j] : !tile.tile<128x128xf32, fragment>
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$shape);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBodyBlock().getArguments();
    }
  }];
}

def Tile_LoadOp : Tile_Op<"load", [
    TypesMatchWith<"result type is the tile's element type", "tile", "result",
                   "::llvm::cast<::tessera::tile::TileType>($_self).getElementType()">]> {
  let summary = "Reads one element of a tile";
  let arguments = (ins Tile_AnyTile:$tile, Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$tile `[` $indices `]` attr-dict `:` type($tile)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    TypesMatchWith<"value type is the tile's element type", "tile", "value",
                   "::llvm::cast<::tessera::tile::TileType>($_self).getElementType()">]> {
  let summary = "Writes one element of a tile";
  let arguments = (ins AnyType:$value, Tile_AnyTile:$tile, Variadic<Index>:$indices);
  let assemblyFormat = "$value `,` $tile `[` $indices `]` attr-dict `:` type($tile)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "Reduces a tile along one dimension into a tile of one rank less";
  let description = [{
    Combines the elements of `src` along `dim` with `sum`, `max` or `min`
    into `dst`, whose shape is `src`'s without `dim`. With `accumulate` the
    old contents of `dst` take part; otherwise they are overwritten.

    ```mlir
    tile.reduce max %S, %m dim = 1 : !tile.tile<64x128xf32, fragment>, !tile.tile<64xf32, fragment>
    ```
  }];
  let arguments = (ins Tile_ReduceKind:$kind, Tile_AnyTile:$src, Tile_AnyTile:$dst,
                       I64Attr:$dim, UnitAttr:$accumulate);
  let assemblyFormat = [{
    $kind $src `,` $dst `dim` `=` $dim (`accumulate` $accumulate^)? attr-dict
    `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicOp : Tile_Op<"atomic"> {
  let summary = "Atomically combines a tile into a global tensor";
  let description = [{
    Each element of `src` is combined (`add` or `max`) into the global tensor
    at the tile's origin, atomically with respect to other blocks. Elements
    outside the tensor are skipped. As with `tile.copy`, a tile of rank r may
    cover the last r dimensions of a tensor of higher rank; `offsets` always
    has one value per tensor dimension. Element types must match.

    ```mlir
    tile.atomic add %Cf, %C[%m, %n] : !tile.tile<64x64xf32, fragment>, !tile.tensor<[M, N], f32>
    ```
  }];
  let arguments = (ins Tile_AtomicKind:$kind, Tile_AnyTile:$src,
                       Tile_AnyTensor:$dst, Variadic<Index>:$offsets);
  let assemblyFormat = [{
    $kind $src `,` $dst `[` $offsets `]` attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "A loop whose copies the compiler overlaps with compute";
  let description = [{
    Iterates `%iv` from `lb` to `ub` (exclusive) by `step`. The copies into
    shared memory in the body are issued `num_stages - 1` iterations ahead of
    their use (with as many buffers), so loads overlap with the compute of
    earlier iterations.

    ```mlir
    tile.pipelined %k = %c0 to %nk step %c1 stages = 3 {
      ...
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       I64Attr:$num_stages);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    ::mlir::BlockArgument getInductionVar() { return getBodyBlock().getArgument(0); }
  }];
}

include "tessera/Dialect/Tile/TileAsyncOps.td"

#endif // TESSERA_DIALECT_TILE_TILEOPS_TD
