//===- TileBase.td - the tile dialect and its enums --------*- tablegen -*-===//
//
// The target-neutral tile dialect: what a kernel author writes. Tiles have
// reference semantics (ops update them in place), like the buffers of the
// tile languages authors already know.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TILE_TILEBASE_TD
#define TESSERA_DIALECT_TILE_TILEBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tessera::tile";
  let summary = "Target-neutral tile-level kernel IR";
  let description = [{
    Kernels over global tensors, written with shared, fragment and local tiles,
    copies, GEMMs, element-wise parallel regions, reductions and pipelined
    loops. Layouts are inferred by the compiler; `#tile.layout` forces one.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Defined beside the type storage classes (TileTypes.cpp).
    void registerTypes();
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

def Tile_MemorySpace : I32EnumAttr<"MemorySpace", "where a tile lives", [
    I32EnumAttrCase<"Shared", 0, "shared">,
    I32EnumAttrCase<"Fragment", 1, "fragment">,
    I32EnumAttrCase<"Local", 2, "local">]> {
  let cppNamespace = "::tessera::tile";
  let genSpecializedAttr = 0;
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "combining function of a reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let cppNamespace = "::tessera::tile";
}

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "read-modify-write of an atomic update", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Max", 1, "max">]> {
  let cppNamespace = "::tessera::tile";
}

#endif // TESSERA_DIALECT_TILE_TILEBASE_TD
