//===- TileInterpreter.cpp - a reference executor for tile kernels --------===//

#include "TileInterpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>

using namespace mlir;
using namespace tessera;
using namespace tessera::reference;

namespace {

/// Rounds v to what a value of type t can hold.
double roundTo(Type t, double v) {
  if (t.isF64() || t.isIndex() || t.isInteger(64))
    return v;
  if (t.isF32())
    return double(float(v));
  if (t.isF16())
    return double(_Float16(v));
  if (t.isBF16()) {
    float f = float(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (std::isnan(f))
      return v;
    bits += 0x7fff + ((bits >> 16) & 1);
    bits &= 0xffff0000u;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (auto it = dyn_cast<IntegerType>(t)) {
    unsigned w = it.getWidth();
    if (w == 1)
      return v != 0;
    int64_t x = int64_t(v);
    int64_t lo = -(int64_t(1) << (w - 1)), span = int64_t(1) << w;
    x = ((x - lo) % span + span) % span + lo; // wrap like hardware
    return double(x);
  }
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t)) {
    // Round to nearest even, saturating to the largest finite value (what
    // the backends' tile.copy to fp8 does); NaN stays NaN.
    if (std::isnan(v))
      return v;
    const llvm::fltSemantics &sem = cast<FloatType>(t).getFloatSemantics();
    llvm::APFloat f(static_cast<float>(v));
    bool lost = false;
    f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    if (!f.isFinite())
      f = llvm::APFloat::getLargest(sem, /*Negative=*/v < 0);
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.convertToDouble();
  }
  return v;
}

struct Buffer {
  std::vector<int64_t> dims;
  std::vector<double> data;
  Type elem;
  int64_t flat(ArrayRef<int64_t> idx) const {
    int64_t f = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      f = f * dims[d] + idx[d];
    return f;
  }
};

class Interpreter {
public:
  explicit Interpreter(std::string &error) : error(error) {}

  bool run(tile::FuncOp func, std::vector<Arg> &args);

private:
  bool fail(Operation *op, const llvm::Twine &msg) {
    std::string loc;
    llvm::raw_string_ostream os(loc);
    op->getLoc().print(os);
    error = loc + ": reference interpreter: " + msg.str();
    return false;
  }
  double &scalar(Value v) { return scalars[v]; }
  Buffer *buf(Value v) { return buffers.lookup(v); }
  bool runBlock(Block &block);
  bool runOp(Operation &op);
  bool runArith(Operation &op);
  bool runCopy(Value srcV, ValueRange srcOffsets, Value dstV,
               ValueRange dstOffsets, bool transpose);
  bool runGemm(tile::GemmOp op);
  bool runReduce(tile::ReduceOp op);
  bool runAtomic(tile::AtomicOp op);

  std::string &error;
  llvm::DenseMap<Value, double> scalars;
  llvm::DenseMap<Value, Buffer *> buffers;
  /// The stages of multi-buffered tiles (tile.stage_view), by buffer and
  /// stage; an alloc of the buffer starts them afresh.
  std::map<std::pair<Buffer *, int64_t>, std::unique_ptr<Buffer>> stages;
  std::vector<std::unique_ptr<Buffer>> storage;
  /// Values the current region's terminator yielded.
  SmallVector<double> yielded;
};

/// Iterates all indices of a shape in row-major order.
template <typename F> void forEachIndex(ArrayRef<int64_t> shape, F f) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    f(ArrayRef<int64_t>(idx));
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

bool Interpreter::run(tile::FuncOp func, std::vector<Arg> &args) {
  Block &entry = func.getBody().front();
  if (args.size() != entry.getNumArguments()) {
    error = "reference interpreter: expected " +
            std::to_string(entry.getNumArguments()) + " arguments, got " +
            std::to_string(args.size());
    return false;
  }
  for (auto [arg, a] : llvm::zip(entry.getArguments(), args)) {
    if (auto t = dyn_cast<tile::GlobalTensorType>(arg.getType())) {
      if (!a.isTensor || int64_t(a.dims.size()) != t.getRank())
        return fail(func, "argument " + std::to_string(arg.getArgNumber()) +
                              " must be a rank-" + std::to_string(t.getRank()) +
                              " tensor");
      auto b = std::make_unique<Buffer>();
      b->dims = a.dims;
      b->data = std::move(a.data);
      b->elem = t.getElementType();
      buffers[arg] = b.get();
      storage.push_back(std::move(b));
    } else {
      scalars[arg] = roundTo(arg.getType(), a.scalar);
    }
  }
  bool ok = runBlock(entry);
  // Hand the tensors back.
  for (auto [arg, a] : llvm::zip(entry.getArguments(), args))
    if (Buffer *b = buffers.lookup(arg))
      a.data = std::move(b->data);
  return ok;
}

bool Interpreter::runBlock(Block &block) {
  for (Operation &op : block)
    if (!runOp(op))
      return false;
  return true;
}

bool Interpreter::runOp(Operation &op) {
  if (isa<tile::ReturnOp>(op))
    return true;
  if (isa<tile::YieldOp>(op))
    return true;
  if (auto y = dyn_cast<scf::YieldOp>(op)) {
    yielded.clear();
    for (Value v : y.getOperands())
      yielded.push_back(scalar(v));
    return true;
  }
  if (auto dim = dyn_cast<tile::DimOp>(op)) {
    scalar(dim.getResult()) =
        double(buf(dim.getTensor())->dims[dim.getIndex()]);
    return true;
  }
  if (auto k = dyn_cast<tile::KernelOp>(op)) {
    int64_t g[3] = {1, 1, 1};
    for (auto [i, v] : llvm::enumerate(k.getGrid()))
      g[i] = int64_t(scalar(v));
    auto ids = k.getBlockIndices();
    for (int64_t z = 0; z < g[2]; ++z)
      for (int64_t y = 0; y < g[1]; ++y)
        for (int64_t x = 0; x < g[0]; ++x) {
          int64_t id[3] = {x, y, z};
          for (auto [i, a] : llvm::enumerate(ids))
            scalar(a) = double(id[i]);
          if (!runBlock(k.getBodyBlock()))
            return false;
        }
    return true;
  }
  if (auto a = dyn_cast<tile::AllocOp>(op)) {
    // Fresh tiles hold NaN: a kernel that reads a tile before writing it is
    // wrong on real hardware, and NaN makes that visible.
    Buffer *&b = buffers[a.getResult()];
    if (!b) {
      storage.push_back(std::make_unique<Buffer>());
      b = storage.back().get();
    }
    b->dims.assign(a.getType().getShape().begin(),
                   a.getType().getShape().end());
    b->elem = a.getType().getElementType();
    b->data.assign(a.getType().getNumElements(),
                   std::numeric_limits<double>::quiet_NaN());
    for (auto it = stages.begin(); it != stages.end();)
      it = it->first.first == b ? stages.erase(it) : std::next(it);
    return true;
  }
  if (auto f = dyn_cast<tile::FillOp>(op)) {
    Buffer *b = buf(f.getDst());
    std::fill(b->data.begin(), b->data.end(),
              roundTo(b->elem, scalar(f.getValue())));
    return true;
  }
  if (auto c = dyn_cast<tile::ClearOp>(op)) {
    Buffer *b = buf(c.getDst());
    std::fill(b->data.begin(), b->data.end(), 0.0);
    return true;
  }
  if (auto p = dyn_cast<tile::ParallelOp>(op)) {
    auto ivs = p.getInductionVars();
    bool ok = true;
    forEachIndex(p.getShape(), [&](ArrayRef<int64_t> idx) {
      if (!ok)
        return;
      for (auto [iv, i] : llvm::zip(ivs, idx))
        scalar(iv) = double(i);
      ok = runBlock(p.getBodyBlock());
    });
    return ok;
  }
  if (auto l = dyn_cast<tile::LoadOp>(op)) {
    Buffer *b = buf(l.getTile());
    SmallVector<int64_t> idx;
    for (Value v : l.getIndices())
      idx.push_back(int64_t(scalar(v)));
    for (auto [i, d] : llvm::zip(idx, b->dims))
      if (i < 0 || i >= d)
        return fail(&op, "tile.load index out of range");
    scalar(l.getResult()) = b->data[b->flat(idx)];
    return true;
  }
  if (auto s = dyn_cast<tile::StoreOp>(op)) {
    Buffer *b = buf(s.getTile());
    SmallVector<int64_t> idx;
    for (Value v : s.getIndices())
      idx.push_back(int64_t(scalar(v)));
    for (auto [i, d] : llvm::zip(idx, b->dims))
      if (i < 0 || i >= d)
        return fail(&op, "tile.store index out of range");
    b->data[b->flat(idx)] = roundTo(b->elem, scalar(s.getValue()));
    return true;
  }
  if (auto c = dyn_cast<tile::CopyOp>(op))
    return runCopy(c.getSrc(), c.getSrcOffsets(), c.getDst(), c.getDstOffsets(),
                   c.getTranspose());
  // The core passes' ops (the IR after tessera-pipeline runs too): an
  // asynchronous copy is a copy, its groups and waits order nothing here,
  // a stage of a multi-buffered tile is a tile of its own that lives as
  // long as the buffer (nothing else reads the buffer), a layout
  // conversion is a copy.
  if (auto ac = dyn_cast<tile::AsyncCopyOp>(op))
    return runCopy(ac.getSrc(), ac.getSrcOffsets(), ac.getDst(), ValueRange{},
                   false);
  if (isa<tile::CommitGroupOp, tile::WaitGroupOp>(op))
    return true;
  if (auto cv = dyn_cast<tile::ConvertLayoutOp>(op))
    return runCopy(cv.getSrc(), ValueRange{}, cv.getDst(), ValueRange{}, false);
  if (auto sv = dyn_cast<tile::StageViewOp>(op)) {
    Buffer *whole = buf(sv.getBuffer());
    int64_t slot = int64_t(scalar(sv.getStage()));
    if (!whole || whole->dims.empty() || slot < 0 || slot >= whole->dims[0])
      return fail(&op, "tile.stage_view of stage " + std::to_string(slot) +
                           " out of range");
    std::unique_ptr<Buffer> &stage = stages[{whole, slot}];
    if (!stage) {
      stage = std::make_unique<Buffer>();
      stage->dims.assign(whole->dims.begin() + 1, whole->dims.end());
      stage->elem = whole->elem;
      stage->data.assign(whole->data.size() / whole->dims[0],
                         std::numeric_limits<double>::quiet_NaN());
    }
    buffers[sv.getResult()] = stage.get();
    return true;
  }
  if (auto g = dyn_cast<tile::GemmOp>(op))
    return runGemm(g);
  if (auto r = dyn_cast<tile::ReduceOp>(op))
    return runReduce(r);
  if (auto a = dyn_cast<tile::AtomicOp>(op))
    return runAtomic(a);
  if (auto p = dyn_cast<tile::PipelinedOp>(op)) {
    int64_t lb = int64_t(scalar(p.getLowerBound()));
    int64_t ub = int64_t(scalar(p.getUpperBound()));
    int64_t st = int64_t(scalar(p.getStep()));
    if (st <= 0)
      return fail(&op, "tile.pipelined step must be positive");
    for (int64_t i = lb; i < ub; i += st) {
      scalar(p.getInductionVar()) = double(i);
      if (!runBlock(p.getBodyBlock()))
        return false;
    }
    return true;
  }
  if (auto f = dyn_cast<scf::ForOp>(op)) {
    int64_t lb = int64_t(scalar(f.getLowerBound()));
    int64_t ub = int64_t(scalar(f.getUpperBound()));
    int64_t st = int64_t(scalar(f.getStep()));
    if (st <= 0)
      return fail(&op, "scf.for step must be positive");
    SmallVector<double> iter;
    for (Value v : f.getInitArgs())
      iter.push_back(scalar(v));
    for (int64_t i = lb; i < ub; i += st) {
      scalar(f.getInductionVar()) = double(i);
      for (auto [a, v] : llvm::zip(f.getRegionIterArgs(), iter))
        scalar(a) = v;
      if (!runBlock(*f.getBody()))
        return false;
      iter.assign(yielded.begin(), yielded.end());
    }
    for (auto [r, v] : llvm::zip(f.getResults(), iter))
      scalar(r) = v;
    return true;
  }
  if (auto i = dyn_cast<scf::IfOp>(op)) {
    Region &region =
        scalar(i.getCondition()) != 0 ? i.getThenRegion() : i.getElseRegion();
    yielded.clear();
    if (!region.empty() && !runBlock(region.front()))
      return false;
    for (auto [r, v] : llvm::zip(i.getResults(), yielded))
      scalar(r) = v;
    return true;
  }
  return runArith(op);
}

bool Interpreter::runArith(Operation &op) {
  if (op.getNumResults() != 1)
    return fail(&op, "unsupported op '" + op.getName().getStringRef() + "'");
  Value res = op.getResult(0);
  Type t = res.getType();
  auto in = [&](unsigned i) { return scalar(op.getOperand(i)); };
  auto ii = [&](unsigned i) { return int64_t(scalar(op.getOperand(i))); };
  double r;
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto f = dyn_cast<FloatAttr>(c.getValue()))
      r = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      r = t.isInteger(1) ? double(i.getValue().getBoolValue())
                         : double(i.getValue().getSExtValue());
    else
      return fail(&op, "unsupported constant");
  } else if (isa<arith::AddFOp, arith::AddIOp>(op))
    r = in(0) + in(1);
  else if (isa<arith::SubFOp, arith::SubIOp>(op))
    r = in(0) - in(1);
  else if (isa<arith::MulFOp, arith::MulIOp>(op))
    r = in(0) * in(1);
  else if (isa<arith::DivFOp>(op))
    r = in(0) / in(1);
  else if (isa<arith::DivSIOp, arith::DivUIOp>(op)) {
    if (ii(1) == 0)
      return fail(&op, "integer division by zero");
    r = double(ii(0) / ii(1));
  } else if (isa<arith::FloorDivSIOp>(op)) {
    if (ii(1) == 0)
      return fail(&op, "integer division by zero");
    r = std::floor(double(ii(0)) / double(ii(1)));
  } else if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op)) {
    if (ii(1) == 0)
      return fail(&op, "integer division by zero");
    r = std::ceil(double(ii(0)) / double(ii(1)));
  } else if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    if (ii(1) == 0)
      return fail(&op, "integer division by zero");
    r = double(ii(0) % ii(1));
  } else if (isa<arith::RemFOp>(op))
    r = std::fmod(in(0), in(1));
  else if (isa<arith::MaximumFOp>(op))
    r = (std::isnan(in(0)) || std::isnan(in(1))) ? NAN : std::max(in(0), in(1));
  else if (isa<arith::MinimumFOp>(op))
    r = (std::isnan(in(0)) || std::isnan(in(1))) ? NAN : std::min(in(0), in(1));
  else if (isa<arith::MaxNumFOp>(op))
    r = std::fmax(in(0), in(1));
  else if (isa<arith::MinNumFOp>(op))
    r = std::fmin(in(0), in(1));
  else if (isa<arith::MaxSIOp, arith::MaxUIOp>(op))
    r = std::max(in(0), in(1));
  else if (isa<arith::MinSIOp, arith::MinUIOp>(op))
    r = std::min(in(0), in(1));
  else if (isa<arith::NegFOp>(op))
    r = -in(0);
  else if (isa<arith::AndIOp>(op))
    r = double(ii(0) & ii(1));
  else if (isa<arith::OrIOp>(op))
    r = double(ii(0) | ii(1));
  else if (isa<arith::XOrIOp>(op))
    r = double(ii(0) ^ ii(1));
  else if (isa<arith::SelectOp>(op))
    r = in(0) != 0 ? in(1) : in(2);
  else if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp,
               arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
               arith::ExtUIOp, arith::TruncIOp>(op))
    r = in(0);
  else if (isa<arith::FPToSIOp, arith::FPToUIOp>(op))
    r = std::trunc(in(0));
  else if (auto c = dyn_cast<arith::CmpFOp>(op)) {
    double a = in(0), b = in(1);
    bool unord = std::isnan(a) || std::isnan(b);
    using P = arith::CmpFPredicate;
    switch (c.getPredicate()) {
    case P::OEQ:
      r = !unord && a == b;
      break;
    case P::ONE:
      r = !unord && a != b;
      break;
    case P::OLT:
      r = !unord && a < b;
      break;
    case P::OLE:
      r = !unord && a <= b;
      break;
    case P::OGT:
      r = !unord && a > b;
      break;
    case P::OGE:
      r = !unord && a >= b;
      break;
    case P::UEQ:
      r = unord || a == b;
      break;
    case P::UNE:
      r = unord || a != b;
      break;
    case P::ULT:
      r = unord || a < b;
      break;
    case P::ULE:
      r = unord || a <= b;
      break;
    case P::UGT:
      r = unord || a > b;
      break;
    case P::UGE:
      r = unord || a >= b;
      break;
    case P::ORD:
      r = !unord;
      break;
    case P::UNO:
      r = unord;
      break;
    case P::AlwaysTrue:
      r = 1;
      break;
    case P::AlwaysFalse:
      r = 0;
      break;
    }
  } else if (auto c = dyn_cast<arith::CmpIOp>(op)) {
    int64_t a = ii(0), b = ii(1);
    using P = arith::CmpIPredicate;
    switch (c.getPredicate()) {
    case P::eq:
      r = a == b;
      break;
    case P::ne:
      r = a != b;
      break;
    case P::slt:
    case P::ult:
      r = a < b;
      break;
    case P::sle:
    case P::ule:
      r = a <= b;
      break;
    case P::sgt:
    case P::ugt:
      r = a > b;
      break;
    case P::sge:
    case P::uge:
      r = a >= b;
      break;
    }
  } else if (isa<math::ExpOp>(op))
    r = std::exp(in(0));
  else if (isa<math::Exp2Op>(op))
    r = std::exp2(in(0));
  else if (isa<math::LogOp>(op))
    r = std::log(in(0));
  else if (isa<math::Log2Op>(op))
    r = std::log2(in(0));
  else if (isa<math::SqrtOp>(op))
    r = std::sqrt(in(0));
  else if (isa<math::RsqrtOp>(op))
    r = 1.0 / std::sqrt(in(0));
  else if (isa<math::TanhOp>(op))
    r = std::tanh(in(0));
  else if (isa<math::AbsFOp>(op))
    r = std::fabs(in(0));
  else if (isa<math::ErfOp>(op))
    r = std::erf(in(0));
  else if (isa<math::PowFOp>(op))
    r = std::pow(in(0), in(1));
  else if (isa<math::FmaOp>(op))
    r = in(0) * in(1) + in(2);
  else
    return fail(&op, "unsupported op '" + op.getName().getStringRef() + "'");
  scalar(res) = isa<IntegerType, IndexType>(t) ? roundTo(t, r) : roundTo(t, r);
  return true;
}

bool Interpreter::runCopy(Value srcV, ValueRange srcOffsets, Value dstV,
                          ValueRange dstOffsets, bool transpose) {
  Buffer *src = buf(srcV), *dst = buf(dstV);
  bool srcGlobal = isa<tile::GlobalTensorType>(srcV.getType());
  bool dstGlobal = isa<tile::GlobalTensorType>(dstV.getType());
  Buffer *tileBuf = srcGlobal ? dst : src;
  SmallVector<int64_t> offsets;
  for (Value v : srcGlobal ? srcOffsets : dstOffsets)
    offsets.push_back(int64_t(scalar(v)));
  forEachIndex(tileBuf->dims, [&](ArrayRef<int64_t> t) {
    SmallVector<int64_t> other(t);
    if (transpose)
      std::swap(other[0], other[1]);
    if (!srcGlobal && !dstGlobal) {
      dst->data[dst->flat(other)] = roundTo(dst->elem, src->data[src->flat(t)]);
      return;
    }
    // Global index: leading offsets, then offset + tile index.
    Buffer *g = srcGlobal ? src : dst;
    SmallVector<int64_t> gi(offsets);
    size_t r = other.size(), rank = gi.size();
    for (size_t k = 0; k < r; ++k)
      gi[rank - r + k] += other[k];
    bool in = true;
    for (size_t d = 0; d < rank; ++d)
      in &= gi[d] >= 0 && gi[d] < g->dims[d];
    if (srcGlobal)
      dst->data[dst->flat(t)] =
          in ? roundTo(dst->elem, src->data[src->flat(gi)]) : 0.0;
    else if (in)
      dst->data[dst->flat(gi)] = roundTo(dst->elem, src->data[src->flat(t)]);
  });
  return true;
}

bool Interpreter::runGemm(tile::GemmOp op) {
  Buffer *a = buf(op.getA()), *b = buf(op.getB()), *c = buf(op.getC());
  int64_t m = c->dims[0], n = c->dims[1];
  int64_t k = op.getTransposeA() ? a->dims[0] : a->dims[1];
  if (op.getClear())
    std::fill(c->data.begin(), c->data.end(), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = c->data[i * n + j];
      for (int64_t kk = 0; kk < k; ++kk) {
        double av = op.getTransposeA() ? a->data[kk * a->dims[1] + i]
                                       : a->data[i * a->dims[1] + kk];
        double bv = op.getTransposeB() ? b->data[j * b->dims[1] + kk]
                                       : b->data[kk * b->dims[1] + j];
        s += av * bv;
      }
      c->data[i * n + j] = roundTo(c->elem, s);
    }
  return true;
}

bool Interpreter::runReduce(tile::ReduceOp op) {
  Buffer *src = buf(op.getSrc()), *dst = buf(op.getDst());
  int64_t dim = op.getDim();
  bool isFloat = isa<FloatType>(src->elem);
  double init = op.getKind() == tile::ReduceKind::Sum ? 0.0
                : op.getKind() == tile::ReduceKind::Max
                    ? (isFloat ? -INFINITY : -9.2e18)
                    : (isFloat ? INFINITY : 9.2e18);
  std::vector<double> acc(dst->data.size(), init);
  if (op.getAccumulate())
    acc = dst->data;
  forEachIndex(src->dims, [&](ArrayRef<int64_t> idx) {
    SmallVector<int64_t> o(idx);
    o.erase(o.begin() + dim);
    double &x = acc[dst->flat(o)];
    double v = src->data[src->flat(idx)];
    switch (op.getKind()) {
    case tile::ReduceKind::Sum:
      x += v;
      break;
    case tile::ReduceKind::Max:
      x = (std::isnan(x) || std::isnan(v)) ? NAN : std::max(x, v);
      break;
    case tile::ReduceKind::Min:
      x = (std::isnan(x) || std::isnan(v)) ? NAN : std::min(x, v);
      break;
    }
  });
  for (size_t i = 0; i < acc.size(); ++i)
    dst->data[i] = roundTo(dst->elem, acc[i]);
  return true;
}

bool Interpreter::runAtomic(tile::AtomicOp op) {
  Buffer *src = buf(op.getSrc()), *g = buf(op.getDst());
  SmallVector<int64_t> offsets;
  for (Value v : op.getOffsets())
    offsets.push_back(int64_t(scalar(v)));
  forEachIndex(src->dims, [&](ArrayRef<int64_t> t) {
    SmallVector<int64_t> gi(offsets);
    size_t r = t.size(), rank = gi.size();
    for (size_t k = 0; k < r; ++k)
      gi[rank - r + k] += t[k];
    for (size_t d = 0; d < rank; ++d)
      if (gi[d] < 0 || gi[d] >= g->dims[d])
        return;
    double &x = g->data[g->flat(gi)];
    double v = src->data[src->flat(t)];
    x = roundTo(g->elem,
                op.getKind() == tile::AtomicKind::Add ? x + v : std::max(x, v));
  });
  return true;
}

} // namespace

bool tessera::reference::interpret(tile::FuncOp func, std::vector<Arg> &args,
                                   std::string &error) {
  Interpreter interp(error);
  return interp.run(func, args);
}
