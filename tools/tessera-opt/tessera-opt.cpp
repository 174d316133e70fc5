//===- tessera-opt.cpp - mlir-opt for the tile dialect --------------------===//
//
// Registers only what tessera uses: the tile dialect, the upstream dialects
// kernels are written with (arith, math, scf) and tessera's passes.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Passes/Passes.h"
#include "tessera/layout/LayoutSpec.h"

#include <iostream>
#include <string>
#include <vector>

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  // `tessera-opt --dump-layouts <spec>... [--svg=<file>]`: print layouts.
  if (argc > 1 && std::string(argv[1]) == "--dump-layouts")
    return tessera::layout::dumpLayoutsMain(
        std::vector<std::string>(argv + 2, argv + argc), std::cout, std::cerr);
  // `--print-ir-after-all` (the spelling `tessera compile` uses too) is
  // MLIR's `--mlir-print-ir-after-all`.
  std::vector<std::string> storage(argv, argv + argc);
  for (std::string &a : storage)
    if (a == "--print-ir-after-all" || a == "-print-ir-after-all")
      a = "--mlir-print-ir-after-all";
  std::vector<char *> args;
  for (std::string &a : storage)
    args.push_back(a.data());
  argc = static_cast<int>(args.size());
  argv = args.data();

  mlir::DialectRegistry registry;
  registry.insert<tessera::tile::TileDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  tessera::passes::registerTesseraPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tessera optimizer driver\n", registry));
}
