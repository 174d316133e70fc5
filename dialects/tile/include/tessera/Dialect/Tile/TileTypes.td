//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TESSERA_DIALECT_TILE_TILETYPES_TD
#define TESSERA_DIALECT_TILE_TILETYPES_TD

include "tessera/Dialect/Tile/TileBase.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_GlobalTensorType : Tile_Type<"GlobalTensor", "tensor"> {
  let summary = "A row-major tensor in global (device) memory";
  let description = [{
    A kernel argument in global memory. Each dimension is a static size, a
    named symbol (bound at launch from the argument's shape; the same name in
    two places means the same size) or `?` (any size).

    ```mlir
    !tile.tensor<[M, K], f16>
    !tile.tensor<[?, 128], bf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        ArrayRefParameter<"::mlir::StringAttr">:$symbols,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    bool isDynamicDim(unsigned i) const {
      return getShape()[i] == ::mlir::ShapedType::kDynamic;
    }
    /// The symbol naming dimension `i`, or an empty string.
    ::llvm::StringRef getSymbol(unsigned i) const {
      return getSymbols()[i] ? getSymbols()[i].getValue() : ::llvm::StringRef();
    }
  }];
}

def Tile_TileType : Tile_Type<"Tile", "tile"> {
  let summary = "A statically shaped tile in shared, fragment or local memory";
  let description = [{
    `shared` tiles live in the block's shared memory; `fragment` tiles are
    distributed over the block's threads' registers; `local` tiles are
    private to each thread. An optional `#tile.layout` forces the layout.

    ```mlir
    !tile.tile<128x32xf16, shared>
    !tile.tile<128x128xf32, fragment>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::tessera::tile::MemorySpace":$memorySpace,
                        OptionalParameter<"::tessera::tile::LayoutAttr">:$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, "::tessera::tile::MemorySpace":$space), [{
      return $_get(elementType.getContext(), shape, elementType, space,
                   ::tessera::tile::LayoutAttr());
    }]>];
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    int64_t getNumElements() const {
      int64_t n = 1;
      for (int64_t d : getShape()) n *= d;
      return n;
    }
    bool isShared() const { return getMemorySpace() == MemorySpace::Shared; }
    bool isFragment() const { return getMemorySpace() == MemorySpace::Fragment; }
    bool isLocal() const { return getMemorySpace() == MemorySpace::Local; }
  }];
}

#endif // TESSERA_DIALECT_TILE_TILETYPES_TD
