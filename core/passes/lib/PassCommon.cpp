//===- PassCommon.cpp - target lookup and attribute conversions -----------===//

#include "PassCommon.h"

#include "tessera/layout/NamedLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <numeric>

using namespace mlir;

namespace tessera::passes {

namespace {
std::vector<std::string> splitPath(const char *env) {
  std::vector<std::string> out;
  if (!env)
    return out;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(env).split(parts, ':', -1, false);
  for (auto p : parts)
    out.push_back(p.str());
  return out;
}

std::string executableDir() {
  // Any address inside this library's process image identifies the binary.
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable("tessera", &anchor);
  return exe.empty() ? std::string() : llvm::sys::path::parent_path(exe).str();
}
} // namespace

std::optional<target::TargetDescription> resolveTarget(const std::string &spec,
                                                       std::string *error) {
  if (spec.empty()) {
    *error = "no target given (pass option 'target=<chip or file.toml>')";
    return std::nullopt;
  }
  if (llvm::sys::fs::exists(spec) && !llvm::sys::fs::is_directory(spec))
    return target::loadTargetDescription(spec, error);
  if (llvm::StringRef(spec).ends_with(".toml")) {
    *error = "target file '" + spec + "' does not exist";
    return std::nullopt;
  }
  std::vector<std::string> dirs = splitPath(std::getenv("TESSERA_TARGET_PATH"));
  for (auto &d : splitPath(std::getenv("TESSERA_PLUGIN_PATH")))
    dirs.push_back(d + "/targets");
  std::string exeDir = executableDir();
  if (!exeDir.empty())
    dirs.push_back(exeDir + "/../lib/tessera/plugins/targets");
#ifdef TESSERA_SOURCE_DIR
  for (const char *b : {"cuda", "hip", "spirv", "cpu"})
    dirs.push_back(std::string(TESSERA_SOURCE_DIR) + "/backends/" + b +
                   "/targets");
#endif
  for (auto &d : dirs) {
    std::string f = d + "/" + spec + ".toml";
    if (llvm::sys::fs::exists(f))
      return target::loadTargetDescription(f, error);
  }
  std::string msg = "unknown target '" + spec + "': no " + spec +
                    ".toml in TESSERA_TARGET_PATH, the plugin dirs or the "
                    "source tree (searched:";
  for (auto &d : dirs)
    msg += " " + d;
  *error = msg + ")";
  return std::nullopt;
}

std::optional<target::TargetDescription>
loadTargetFor(Operation *op, const std::string &spec, llvm::StringRef pass) {
  std::string err;
  auto t = resolveTarget(spec, &err);
  if (!t)
    mlir::emitError(op->getLoc()) << pass << ": " << err;
  return t;
}

tile::LayoutAttr toLayoutAttr(MLIRContext *ctx, const layout::LinearLayout &l) {
  Builder b(ctx);
  auto list = [&](const std::string &dim) {
    SmallVector<Attribute> bases;
    if (l.hasInDim(dim))
      for (int i = 0; i < l.getInDimSizeLog2(dim); ++i) {
        SmallVector<int64_t> v;
        for (int32_t x : l.getBasis(dim, i))
          v.push_back(x);
        bases.push_back(b.getI64ArrayAttr(v));
      }
    return b.getArrayAttr(bases);
  };
  return tile::LayoutAttr::get(ctx, list(layout::kRegister),
                               list(layout::kLane), list(layout::kWarp),
                               list(layout::kBlock));
}

layout::LinearLayout fromLayoutAttr(tile::LayoutAttr a,
                                    llvm::ArrayRef<int64_t> shape) {
  layout::LinearLayout::Bases bases;
  auto add = [&](const std::string &name, ArrayAttr list) {
    std::vector<layout::LinearLayout::Basis> v;
    for (Attribute e : list) {
      layout::LinearLayout::Basis basis;
      for (Attribute x : cast<ArrayAttr>(e))
        basis.push_back(int32_t(cast<IntegerAttr>(x).getInt()));
      v.push_back(basis);
    }
    bases.push_back({name, v});
  };
  add(layout::kRegister, a.getReg());
  add(layout::kLane, a.getLane());
  add(layout::kWarp, a.getWarp());
  add(layout::kBlock, a.getBlock());
  layout::NamedInts outs;
  for (size_t i = 0; i < shape.size(); ++i)
    outs.push_back({layout::dimName(int(i)), int32_t(shape[i])});
  return layout::LinearLayout(bases, outs);
}

tile::TileType withLayout(tile::TileType t, tile::LayoutAttr l) {
  return tile::TileType::get(t.getContext(), t.getShape(), t.getElementType(),
                             t.getMemorySpace(), l);
}

int elementBytes(Type t) {
  unsigned bits = t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
  return std::max(1u, bits / 8);
}

int64_t sharedRowPad(Operation *alloc) {
  auto a =
      alloc ? alloc->getAttrOfType<IntegerAttr>("tile.row_pad") : IntegerAttr();
  return a ? a.getInt() : 0;
}

static bool multipleOf(Value v, int64_t n, unsigned depth) {
  if (n <= 1)
    return true;
  if (depth > 24)
    return false;
  llvm::APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getSExtValue() % n == 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    // A loop's induction variable: its start and step.
    auto ivOf = [&](auto loop) {
      return loop && arg == loop.getInductionVar() &&
             multipleOf(loop.getLowerBound(), n, depth + 1) &&
             multipleOf(loop.getStep(), n, depth + 1);
    };
    Operation *owner = arg.getOwner()->getParentOp();
    return ivOf(dyn_cast<scf::ForOp>(owner)) ||
           ivOf(dyn_cast<tile::PipelinedOp>(owner));
  }
  Operation *d = v.getDefiningOp();
  if (!d)
    return false;
  if (isa<arith::AddIOp, arith::SubIOp>(d))
    return multipleOf(d->getOperand(0), n, depth + 1) &&
           multipleOf(d->getOperand(1), n, depth + 1);
  if (auto s = dyn_cast<arith::SelectOp>(d))
    return multipleOf(s.getTrueValue(), n, depth + 1) &&
           multipleOf(s.getFalseValue(), n, depth + 1);
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp>(d))
    return multipleOf(d->getOperand(0), n, depth + 1);
  if (isa<arith::MulIOp>(d)) {
    // A constant factor covers its share of n; the other factor the rest.
    for (int i = 0; i < 2; ++i) {
      llvm::APInt f;
      if (matchPattern(d->getOperand(i), m_ConstantInt(&f)) &&
          f.getSExtValue() != 0) {
        int64_t g = std::gcd<int64_t>(std::abs(f.getSExtValue()), n);
        return multipleOf(d->getOperand(1 - i), n / g, depth + 1);
      }
    }
    return multipleOf(d->getOperand(0), n, depth + 1) ||
           multipleOf(d->getOperand(1), n, depth + 1);
  }
  if (isa<arith::ShLIOp>(d)) {
    llvm::APInt sh;
    if (matchPattern(d->getOperand(1), m_ConstantInt(&sh)) &&
        sh.getZExtValue() < 62) {
      int64_t f = int64_t(1) << sh.getZExtValue();
      return multipleOf(d->getOperand(0), n / std::gcd<int64_t>(f, n),
                        depth + 1);
    }
    return false;
  }
  return false;
}

bool provablyMultipleOf(Value v, int64_t n) { return multipleOf(v, n, 0); }

int64_t boxAlignElements(int64_t elemBytes) {
  return 16 / std::gcd<int64_t>(16, std::max<int64_t>(1, elemBytes));
}

int64_t tileBytes(tile::TileType t) {
  return t.getNumElements() * elementBytes(t.getElementType());
}

int64_t sharedTileBytes(tile::TileType t, int64_t rowPad) {
  int64_t n = t.getNumElements();
  if (rowPad > 0 && t.getRank() >= 2) {
    int64_t cols = t.getShape().back();
    n = n / cols * (cols + rowPad);
  }
  return n * elementBytes(t.getElementType());
}

std::string dataTypeName(Type t) {
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (isa<Float8E4M3FNType>(t))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(t))
    return "f8e5m2";
  if (t.isInteger(8))
    return "i8";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(4))
    return "i4";
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

unsigned blockDeps(Value v, tile::KernelOp kernel,
                   llvm::DenseMap<Value, unsigned> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  memo[v] = 0; // cycles (loop-carried values) contribute nothing
  unsigned deps = 0;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() == &kernel.getBodyBlock())
      deps = 1u << arg.getArgNumber();
  } else if (Operation *def = v.getDefiningOp();
             def && kernel->isProperAncestor(def)) {
    for (Value o : def->getOperands())
      deps |= blockDeps(o, kernel, memo);
  }
  memo[v] = deps;
  return deps;
}

SmallVector<int> parallelAccessDims(Block &body, ValueRange indices,
                                    ArrayRef<int64_t> tileShape) {
  SmallVector<int> ds;
  for (auto [d, i] : llvm::enumerate(indices)) {
    auto ba = dyn_cast<BlockArgument>(i);
    if (ba && ba.getOwner() == &body)
      ds.push_back(int(ba.getArgNumber()));
    else if (d < tileShape.size() && tileShape[d] == 1 &&
             matchPattern(i, m_Zero()))
      ds.push_back(kUnitAccessDim);
    else
      ds.push_back(-1);
  }
  return ds;
}

std::string threadCountDependence(tile::KernelOp kernel) {
  std::string why;
  kernel.walk([&](Operation *op) {
    if (auto a = dyn_cast<tile::AllocOp>(op)) {
      tile::TileType t = a.getType();
      if (t.isLocal())
        why = "a local tile (private to each thread)";
      else if (t.isFragment() && t.getLayout())
        why = "a fragment with a layout written by the program";
    } else {
      StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
      if (!llvm::is_contained(
              ArrayRef<StringRef>{"tile", "arith", "math", "scf", "ub"}, ns))
        why = "an op the passes do not interpret (" +
              op->getName().getStringRef().str() + ")";
    }
    return why.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return why;
}

SmallVector<tile::KernelOp> kernelsOf(ModuleOp m) {
  SmallVector<tile::KernelOp> ks;
  m.walk([&](tile::KernelOp k) { ks.push_back(k); });
  return ks;
}

/// Blocks of `kernel` per multiprocessor as (estimated) registers allow:
/// fragments spread over the threads plus a few words of addresses,
/// indices and loop state per thread.
int64_t blocksByRegisters(tile::KernelOp kernel,
                          const target::TargetDescription &tgt) {
  int64_t threads = kernel ? kernel.getThreads() : 1;
  int64_t words = 32; // addresses, indices, loop state
  if (kernel)
    kernel.walk([&](tile::AllocOp a) {
      if (a.getType().isFragment())
        words += (tileBytes(a.getType()) + 4 * threads - 1) / (4 * threads);
    });
  return tgt.registersPerBlock > 0
             ? tgt.registersPerBlock / std::max<int64_t>(1, words * threads)
             : 2;
}

} // namespace tessera::passes
