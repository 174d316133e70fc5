//===- UniformConditions.cpp - masks decided once per block ---------------===//

#include "UniformConditions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cstdlib>

using namespace mlir;

namespace tessera::passes {
namespace {

/// Run-time bound on a side's outside part: |u| < 2^29.
constexpr int64_t kSmall = int64_t(1) << 29;
/// Compile-time bound on how far a side moves over the box: 2^27. Sums of
/// two such (a difference of sides) and u stay inside 31 signed bits.
constexpr int64_t kMove = int64_t(1) << 27;

/// Integer types whose arithmetic the bounds above cover without wrapping.
bool wideInteger(Type t) {
  if (isa<IndexType>(t))
    return true;
  auto it = dyn_cast<IntegerType>(t);
  return it && it.getWidth() >= 32;
}

bool isI1(Type t) {
  auto it = dyn_cast<IntegerType>(t);
  return it && it.getWidth() == 1;
}

/// `v` of type `t`, truncated to its width as the arithmetic would.
Value constant(OpBuilder &b, Location loc, Type t, int64_t v) {
  unsigned width = isa<IndexType>(t) ? IndexType::kInternalStorageBitWidth
                                     : t.getIntOrFloatBitWidth();
  APInt a(width, uint64_t(v), /*isSigned=*/true, /*implicitTrunc=*/true);
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, a));
}

Value boolConst(OpBuilder &b, Location loc, bool v) {
  return arith::ConstantIntOp::create(b, loc, v ? 1 : 0, 1);
}

} // namespace

UniformConditions::UniformConditions(Block &body, ArrayRef<int64_t> shape)
    : body(body), shape(shape.begin(), shape.end()) {
  auto consider = [&](Value c) {
    if (!c || !isI1(c.getType()) || llvm::is_contained(rootList, c))
      return;
    std::optional<bool> varies = analyze(c);
    if (varies && *varies)
      rootList.push_back(c);
  };
  body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto s = dyn_cast<arith::SelectOp>(op))
      consider(s.getCondition());
    else if (auto i = dyn_cast<scf::IfOp>(op))
      consider(i.getCondition());
  });
}

bool UniformConditions::outside(Value v) const {
  Region *r = body.getParent();
  return !r->isAncestor(v.getParentRegion());
}

std::pair<int64_t, int64_t>
UniformConditions::offRange(ArrayRef<int64_t> coef) const {
  int64_t lo = 0, hi = 0;
  for (auto [k, s] : llvm::zip(coef, shape)) {
    int64_t m = k * (s - 1);
    (m < 0 ? lo : hi) += m;
  }
  return {lo, hi};
}

std::optional<UniformConditions::Affine> UniformConditions::affineOf(Value v) {
  if (auto it = affineMemo.find(v); it != affineMemo.end())
    return it->second;
  auto compute = [&]() -> std::optional<Affine> {
    if (!wideInteger(v.getType()))
      return std::nullopt;
    Affine a;
    a.coef.assign(shape.size(), 0);
    if (outside(v)) {
      a.terms.push_back({v, 1});
      return a;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &body || arg.getArgNumber() >= shape.size())
        return std::nullopt;
      a.coef[arg.getArgNumber()] = 1;
      return a;
    }
    Operation *op = v.getDefiningOp();
    // A region index converted to another integer type: its values, in
    // [0, shape), are the same in any of them.
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>(op)) {
      auto arg = dyn_cast<BlockArgument>(op->getOperand(0));
      if (!arg || arg.getOwner() != &body || arg.getArgNumber() >= shape.size())
        return std::nullopt;
      a.coef[arg.getArgNumber()] = 1;
      return a;
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto ia = dyn_cast<IntegerAttr>(c.getValue());
      if (!ia)
        return std::nullopt;
      a.cst = ia.getValue().getSExtValue();
      return a;
    }
    // x + s * y
    auto combine = [&](const Affine &x, const Affine &y,
                       int64_t s) -> std::optional<Affine> {
      Affine r = x;
      for (size_t d = 0; d < r.coef.size(); ++d) {
        auto m = llvm::checkedMul(y.coef[d], s);
        auto t = m ? llvm::checkedAdd(r.coef[d], *m) : std::nullopt;
        if (!t)
          return std::nullopt;
        r.coef[d] = *t;
      }
      auto m = llvm::checkedMul(y.cst, s);
      auto t = m ? llvm::checkedAdd(r.cst, *m) : std::nullopt;
      if (!t)
        return std::nullopt;
      r.cst = *t;
      for (auto [val, k] : y.terms) {
        auto km = llvm::checkedMul(k, s);
        if (!km)
          return std::nullopt;
        auto *same = llvm::find_if(
            r.terms, [&](const auto &p) { return p.first == val; });
        if (same == r.terms.end()) {
          r.terms.push_back({val, *km});
        } else {
          auto sum = llvm::checkedAdd(same->second, *km);
          if (!sum)
            return std::nullopt;
          same->second = *sum;
        }
      }
      return r;
    };
    auto constantOf = [](const Affine &x) -> std::optional<int64_t> {
      if (!x.terms.empty() ||
          llvm::any_of(x.coef, [](int64_t k) { return k != 0; }))
        return std::nullopt;
      return x.cst;
    };
    if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op)) {
      auto x = affineOf(op->getOperand(0));
      auto y = affineOf(op->getOperand(1));
      if (!x || !y)
        return std::nullopt;
      if (isa<arith::AddIOp>(op))
        return combine(*x, *y, 1);
      if (isa<arith::SubIOp>(op))
        return combine(*x, *y, -1);
      Affine zero;
      zero.coef.assign(shape.size(), 0);
      if (auto k = constantOf(*y))
        return combine(zero, *x, *k);
      if (auto k = constantOf(*x))
        return combine(zero, *y, *k);
    }
    return std::nullopt;
  };
  std::optional<Affine> a = compute();
  // How far the expression moves over the box is bounded at compile time,
  // so that its extremes (and a difference of two) need no wide arithmetic.
  if (a) {
    for (int64_t k : a->coef)
      if (k > kMove || k < -kMove) {
        a.reset();
        break;
      }
    if (a) {
      auto [lo, hi] = offRange(a->coef);
      if (lo < -kMove || hi > kMove)
        a.reset();
    }
  }
  affineMemo[v] = a;
  return a;
}

std::optional<bool> UniformConditions::analyze(Value cond) {
  if (auto it = condMemo.find(cond); it != condMemo.end())
    return it->second;
  auto compute = [&]() -> std::optional<bool> {
    if (!isI1(cond.getType()))
      return std::nullopt;
    if (outside(cond))
      return false;
    Operation *op = cond.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (auto c = dyn_cast<arith::ConstantOp>(op))
      return isa<IntegerAttr>(c.getValue()) ? std::optional<bool>(false)
                                            : std::nullopt;
    if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
      auto l = affineOf(cmp.getLhs());
      auto r = affineOf(cmp.getRhs());
      if (!l || !r)
        return std::nullopt;
      auto moves = [](const Affine &a) {
        return llvm::any_of(a.coef, [](int64_t k) { return k != 0; });
      };
      return moves(*l) || moves(*r);
    }
    if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
      auto x = analyze(op->getOperand(0));
      auto y = analyze(op->getOperand(1));
      if (!x || !y)
        return std::nullopt;
      return *x || *y;
    }
    return std::nullopt;
  };
  std::optional<bool> r = compute();
  condMemo[cond] = r;
  return r;
}

std::pair<Value, Value> UniformConditions::emit(OpBuilder &b, Location loc,
                                                Value cond) {
  if (auto it = emitted.find(cond); it != emitted.end())
    return it->second;
  auto notOf = [&](Value v) {
    return arith::XOrIOp::create(b, loc, v, boolConst(b, loc, true))
        .getResult();
  };
  auto andOf = [&](Value x, Value y) {
    return arith::AndIOp::create(b, loc, x, y).getResult();
  };
  auto orOf = [&](Value x, Value y) {
    return arith::OrIOp::create(b, loc, x, y).getResult();
  };
  auto compute = [&]() -> std::pair<Value, Value> {
    if (!analyze(cond))
      return {boolConst(b, loc, false), boolConst(b, loc, false)};
    if (outside(cond))
      return {cond, notOf(cond)};
    Operation *op = cond.getDefiningOp();
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      bool v = !cast<IntegerAttr>(c.getValue()).getValue().isZero();
      return {boolConst(b, loc, v), boolConst(b, loc, !v)};
    }
    if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
      auto [tx, fx] = emit(b, loc, op->getOperand(0));
      auto [ty, fy] = emit(b, loc, op->getOperand(1));
      if (isa<arith::AndIOp>(op))
        return {andOf(tx, ty), orOf(fx, fy)};
      if (isa<arith::OrIOp>(op))
        return {orOf(tx, ty), andOf(fx, fy)};
      // x ^ y: a constant side is a negation or nothing (the usual `not`).
      for (int k = 0; k < 2; ++k) {
        APInt one;
        if (matchPattern(op->getOperand(k), m_ConstantInt(&one))) {
          auto [t, f] = k == 0 ? std::pair{ty, fy} : std::pair{tx, fx};
          return one.isZero() ? std::pair{t, f} : std::pair{f, t};
        }
      }
      return {orOf(andOf(tx, fy), andOf(fx, ty)),
              orOf(andOf(tx, ty), andOf(fx, fy))};
    }
    auto cmp = cast<arith::CmpIOp>(op);
    using P = arith::CmpIPredicate;
    P pred = cmp.getPredicate();
    Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
    // Greater-than as less-than with the sides swapped.
    switch (pred) {
    case P::sgt:
      std::swap(lhs, rhs);
      pred = P::slt;
      break;
    case P::ugt:
      std::swap(lhs, rhs);
      pred = P::ult;
      break;
    case P::sge:
      std::swap(lhs, rhs);
      pred = P::sle;
      break;
    case P::uge:
      std::swap(lhs, rhs);
      pred = P::ule;
      break;
    default:
      break;
    }
    bool isUnsigned = pred == P::ult || pred == P::ule;
    Affine l = *affineOf(lhs), r = *affineOf(rhs);
    Type t = lhs.getType();
    auto outsidePart = [&](const Affine &a) {
      Value u;
      for (auto [v, m] : a.terms) {
        if (m == 0)
          continue;
        Value term =
            m == 1 ? v
                   : arith::MulIOp::create(b, loc, v, constant(b, loc, t, m))
                         .getResult();
        u = u ? arith::AddIOp::create(b, loc, u, term).getResult() : term;
      }
      if (!u)
        return constant(b, loc, t, a.cst);
      if (a.cst)
        u = arith::AddIOp::create(b, loc, u, constant(b, loc, t, a.cst));
      return u;
    };
    // Whether u is small enough that u + off never wraps (and, unsigned,
    // never goes below zero) over the box: u in [lo, kSmall).
    auto small = [&](Value u, const Affine &a) {
      int64_t lo =
          isUnsigned ? std::max<int64_t>(0, -offRange(a.coef).first) : -kSmall;
      Value shifted =
          lo == 0 ? u
                  : arith::SubIOp::create(b, loc, u, constant(b, loc, t, lo))
                        .getResult();
      return arith::CmpIOp::create(b, loc, P::ult, shifted,
                                   constant(b, loc, t, kSmall - lo))
          .getResult();
    };
    Value uL = outsidePart(l), uR = outsidePart(r);
    Value valid = andOf(small(uL, l), small(uR, r));
    SmallVector<int64_t, 4> diff;
    for (auto [x, y] : llvm::zip(l.coef, r.coef))
      diff.push_back(x - y);
    auto [dMin, dMax] = offRange(diff);
    // Exact values now: compare uL + off against uR as signed numbers.
    auto cmpAt = [&](P p, int64_t off) {
      Value x =
          off ? arith::AddIOp::create(b, loc, uL, constant(b, loc, t, off))
                    .getResult()
              : uL;
      return arith::CmpIOp::create(b, loc, p, x, uR).getResult();
    };
    Value holds, fails;
    switch (pred) {
    case P::slt:
    case P::ult:
      holds = cmpAt(P::slt, dMax);
      fails = cmpAt(P::sge, dMin);
      break;
    case P::sle:
    case P::ule:
      holds = cmpAt(P::sle, dMax);
      fails = cmpAt(P::sgt, dMin);
      break;
    case P::eq:
    case P::ne: {
      Value eqHolds = dMin == dMax ? cmpAt(P::eq, dMax) : boolConst(b, loc, 0);
      Value eqFails = orOf(cmpAt(P::slt, dMax), cmpAt(P::sgt, dMin));
      holds = pred == P::eq ? eqHolds : eqFails;
      fails = pred == P::eq ? eqFails : eqHolds;
      break;
    }
    default:
      return {boolConst(b, loc, false), boolConst(b, loc, false)};
    }
    return {andOf(valid, holds), andOf(valid, fails)};
  };
  auto res = compute();
  emitted[cond] = res;
  return res;
}

} // namespace tessera::passes
