//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//
#ifndef TESSERA_DIALECT_TILE_TILEOPS_H
#define TESSERA_DIALECT_TILE_TILEOPS_H

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tessera::tile {
class KernelOp;
/// True when (a, b) -> acc is a gemm dtype combination tile.gemm accepts.
bool isSupportedGemmTypes(mlir::Type a, mlir::Type b, mlir::Type acc);
} // namespace tessera::tile

#define GET_OP_CLASSES
#include "tessera/Dialect/Tile/TileOps.h.inc"

#endif // TESSERA_DIALECT_TILE_TILEOPS_H
