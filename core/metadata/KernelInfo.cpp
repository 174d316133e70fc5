//===- KernelInfo.cpp - what a bundle records about a kernel --------------===//

#include "KernelInfo.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessera;

std::optional<bundle::DType> tessera::dtypeOf(Type t) {
  using bundle::DType;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isF32())
    return DType::F32;
  if (t.isF64())
    return DType::F64;
  if (isa<Float8E4M3FNType>(t))
    return DType::F8E4M3;
  if (isa<Float8E5M2Type>(t))
    return DType::F8E5M2;
  if (t.isIndex())
    return DType::Index;
  if (t.isInteger(1))
    return DType::I1;
  if (t.isInteger(8))
    return DType::I8;
  if (t.isInteger(16))
    return DType::I16;
  if (t.isInteger(32))
    return DType::I32;
  if (t.isInteger(64))
    return DType::I64;
  return std::nullopt;
}

/// The formula of a grid size: constants, tensor dims and integer arithmetic.
static FailureOr<std::string> gridFormula(Value v, tile::FuncOp func) {
  Operation *def = v.getDefiningOp();
  if (!def) {
    emitError(v.getLoc()) << "grid size must be computed from tensor shapes "
                             "and constants, not taken from a scalar argument";
    return failure();
  }
  auto bin = [&](const char *fmt) -> FailureOr<std::string> {
    auto l = gridFormula(def->getOperand(0), func);
    if (failed(l))
      return failure();
    auto r = gridFormula(def->getOperand(1), func);
    if (failed(r))
      return failure();
    std::string f(fmt);
    if (f == "ceildiv" || f == "min" || f == "max")
      return f + "(" + *l + ", " + *r + ")";
    return "(" + *l + " " + f + " " + *r + ")";
  };
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return std::to_string(i.getInt());
  }
  if (auto dim = dyn_cast<tile::DimOp>(def)) {
    auto arg = dyn_cast<BlockArgument>(dim.getTensor());
    auto type = dim.getTensor().getType();
    unsigned d = dim.getIndex();
    if (!type.getSymbol(d).empty())
      return type.getSymbol(d).str();
    if (!type.isDynamicDim(d))
      return std::to_string(type.getShape()[d]);
    if (arg)
      return "dim(" + std::to_string(arg.getArgNumber()) + ", " +
             std::to_string(d) + ")";
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def))
    return gridFormula(def->getOperand(0), func);
  if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def))
    return bin("ceildiv");
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def))
    return bin("/");
  if (isa<arith::MulIOp>(def))
    return bin("*");
  if (isa<arith::AddIOp>(def))
    return bin("+");
  if (isa<arith::SubIOp>(def))
    return bin("-");
  if (isa<arith::RemUIOp, arith::RemSIOp>(def))
    return bin("%");
  if (isa<arith::MinUIOp, arith::MinSIOp>(def))
    return bin("min");
  if (isa<arith::MaxUIOp, arith::MaxSIOp>(def))
    return bin("max");
  def->emitOpError("cannot be part of a grid size: grid sizes are formulas "
                   "of tensor dimensions and constants (+ - * / % ceildiv "
                   "min max)");
  return failure();
}

static std::string argName(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  return "arg" + std::to_string(arg.getArgNumber());
}

FailureOr<KernelInfo> tessera::extractKernelInfo(tile::FuncOp func) {
  KernelInfo info;
  info.name = func.getSymName().str();
  info.symbol = "tessera_kernel_" + info.name;
  tile::KernelOp kernel = func.getKernel();
  if (!kernel)
    return func.emitOpError("has no tile.kernel"), failure();
  info.threads = kernel.getThreads();
  for (auto [i, g] : llvm::enumerate(kernel.getGrid())) {
    auto f = gridFormula(g, func);
    if (failed(f))
      return failure();
    info.grid[i] = *f;
  }
  for (BlockArgument arg : func.getBody().front().getArguments()) {
    KernelArgInfo a;
    a.name = argName(arg);
    Type elem;
    if (auto t = dyn_cast<tile::GlobalTensorType>(arg.getType())) {
      a.kind = bundle::ArgKind::Tensor;
      elem = t.getElementType();
      for (unsigned d = 0; d < t.getRank(); ++d)
        a.dims.push_back(!t.getSymbol(d).empty() ? t.getSymbol(d).str()
                         : t.isDynamicDim(d) ? std::string("?")
                                             : std::to_string(t.getShape()[d]));
    } else {
      a.kind = bundle::ArgKind::Scalar;
      elem = arg.getType();
    }
    auto dtype = dtypeOf(elem);
    if (!dtype)
      return emitError(arg.getLoc()) << "argument type " << arg.getType()
                                     << " cannot be passed to a kernel",
             failure();
    a.dtype = *dtype;
    info.args.push_back(std::move(a));
  }
  return info;
}
