//===- tessera-opt.cpp - mlir-opt for the tile dialect --------------------===//
//
// Registers only what tessera uses: the tile dialect, the upstream dialects
// kernels are written with (arith, math, scf) and tessera's passes.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<tessera::tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tessera optimizer driver\n", registry));
}
