//===- HostReference.cpp - reference results from a bundle's source -------===//

#include "HostReference.h"

#include "Compile.h"
#include "TileInterpreter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using namespace tessera;
using namespace tessera::tool;

bool tessera::tool::computeReference(const std::string &source,
                                     const std::string &kernel,
                                     const std::vector<HostTensor> &tensors,
                                     const std::vector<tessera_arg> &scalars,
                                     std::vector<HostTensor> &out,
                                     std::string &why) {
  if (source.empty()) {
    why = "the bundle carries no tile source";
    return false;
  }
  mlir::DialectRegistry registry;
  registerTileModuleDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
  if (!module) {
    why = "the bundle's tile source does not parse";
    return false;
  }
  tile::FuncOp func;
  for (auto f : module->getOps<tile::FuncOp>())
    if (f.getSymName() == kernel)
      func = f;
  if (!func) {
    why = "the bundle's source has no tile.func @" + kernel;
    return false;
  }
  std::vector<reference::Arg> args;
  size_t t = 0, s = 0;
  for (mlir::Type type : func.getArgumentTypes()) {
    reference::Arg a;
    if (mlir::isa<tile::GlobalTensorType>(type)) {
      const HostTensor &h = tensors[t++];
      a.isTensor = true;
      a.dims = h.dims;
      a.data.resize(h.numElements());
      for (int64_t i = 0; i < h.numElements(); ++i)
        a.data[i] = h.get(i);
    } else {
      const tessera_scalar_arg &sc = scalars[s++].u.scalar;
      a.scalar = sc.dtype == TESSERA_DTYPE_F32   ? sc.value.f32
                 : sc.dtype == TESSERA_DTYPE_F64 ? sc.value.f64
                                                 : double(sc.value.i);
    }
    args.push_back(std::move(a));
  }
  if (!reference::interpret(func, args, why))
    return false;
  out = tensors;
  t = 0;
  for (reference::Arg &a : args) {
    if (!a.isTensor)
      continue;
    HostTensor &h = out[t++];
    for (int64_t i = 0; i < h.numElements(); ++i)
      h.set(i, a.data[i]);
  }
  return true;
}
