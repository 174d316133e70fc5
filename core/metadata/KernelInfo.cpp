//===- KernelInfo.cpp - what a bundle records about a kernel --------------===//

#include "KernelInfo.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessera;

std::string tessera::dtypeName(Type t) {
  if (t.isF16()) return "f16";
  if (t.isBF16()) return "bf16";
  if (t.isF32()) return "f32";
  if (t.isF64()) return "f64";
  if (isa<Float8E4M3FNType>(t)) return "f8e4m3";
  if (isa<Float8E5M2Type>(t)) return "f8e5m2";
  if (t.isIndex()) return "index";
  if (t.isInteger(1)) return "i1";
  if (t.isInteger(8)) return "i8";
  if (t.isInteger(16)) return "i16";
  if (t.isInteger(32)) return "i32";
  if (t.isInteger(64)) return "i64";
  return "";
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
    if (failed(l)) return failure();
    auto r = gridFormula(def->getOperand(1), func);
    if (failed(r)) return failure();
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
  if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def)) return bin("ceildiv");
  if (isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(def)) return bin("/");
  if (isa<arith::MulIOp>(def)) return bin("*");
  if (isa<arith::AddIOp>(def)) return bin("+");
  if (isa<arith::SubIOp>(def)) return bin("-");
  if (isa<arith::RemUIOp, arith::RemSIOp>(def)) return bin("%");
  if (isa<arith::MinUIOp, arith::MinSIOp>(def)) return bin("min");
  if (isa<arith::MaxUIOp, arith::MaxSIOp>(def)) return bin("max");
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
    if (auto t = dyn_cast<tile::GlobalTensorType>(arg.getType())) {
      a.kind = "tensor";
      a.dtype = dtypeName(t.getElementType());
      for (unsigned d = 0; d < t.getRank(); ++d)
        a.dims.push_back(!t.getSymbol(d).empty() ? t.getSymbol(d).str()
                         : t.isDynamicDim(d)     ? std::string("?")
                                                 : std::to_string(t.getShape()[d]));
    } else {
      a.kind = "scalar";
      a.dtype = dtypeName(arg.getType());
    }
    if (a.dtype.empty())
      return emitError(arg.getLoc()) << "argument type " << arg.getType()
                                     << " cannot be passed to a kernel",
             failure();
    info.args.push_back(std::move(a));
  }
  return info;
}

static std::string quoted(llvm::StringRef s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string tessera::kernelsToToml(const std::vector<KernelInfo> &kernels) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const KernelInfo &k : kernels) {
    os << "[[kernel]]\n"
       << "name = " << quoted(k.name) << "\n"
       << "symbol = " << quoted(k.symbol) << "\n"
       << "threads = " << k.threads << "\n"
       << "shared_bytes = " << k.sharedBytes << "\n"
       << "grid = [" << quoted(k.grid[0]) << ", " << quoted(k.grid[1]) << ", "
       << quoted(k.grid[2]) << "]\n";
    for (const KernelArgInfo &a : k.args) {
      os << "[[kernel.arg]]\n"
         << "name = " << quoted(a.name) << "\n"
         << "kind = " << quoted(a.kind) << "\n"
         << "dtype = " << quoted(a.dtype) << "\n";
      if (a.kind == "tensor") {
        os << "dims = [";
        llvm::interleaveComma(a.dims, os, [&](const std::string &d) { os << quoted(d); });
        os << "]\n";
      }
    }
    os << "\n";
  }
  return text;
}
