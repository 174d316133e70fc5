//===- SpirvScheduling.cpp - how distributed Vulkan kernels are laid out --===//

#include "SpirvScheduling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVTypes.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

#include <cstdlib>
#include <map>
#include <set>
#include <string>

using namespace mlir;
namespace spv = ::mlir::spirv;

namespace tessera::spirv {

bool switchOn(const char *name) {
  const char *v = std::getenv(name);
  return v && std::string(v) == "1";
}

bool switchOff(const char *name) {
  const char *v = std::getenv(name);
  return v && std::string(v) == "0";
}

namespace {

//===----------------------------------------------------------------------===//
// Private arrays carried through loops
//===----------------------------------------------------------------------===//

std::optional<int64_t> constantIndex(ValueRange indices) {
  if (indices.size() != 1)
    return std::nullopt;
  return getConstantIntValue(indices.front());
}

/// A private array whose every use in `fn` is a load or a store (no views,
/// no other ops): its elements are values the rewrite below can follow.
bool plainPrivateArray(memref::AllocaOp a) {
  MemRefType t = a.getType();
  if (t.getRank() != 1 || !t.hasStaticShape() ||
      !t.getElementType().isIntOrIndexOrFloat())
    return false;
  return llvm::all_of(a->getUsers(), [&](Operation *u) {
    if (auto l = dyn_cast<memref::LoadOp>(u))
      return l.getMemref() == a.getResult();
    if (auto s = dyn_cast<memref::StoreOp>(u))
      return s.getMemref() == a.getResult() &&
             s.getValueToStore() != a.getResult();
    return false;
  });
}

/// Carries the elements of `a` that `loop` accesses through it as values:
/// loads before the loop, iter_args, stores after it. Every access inside
/// the loop must be in its body block (not nested) at a constant index.
bool carryThrough(scf::ForOp &loop, memref::AllocaOp a) {
  Block *body = loop.getBody();
  SmallVector<Operation *> inside;
  for (Operation *u : a->getUsers())
    if (loop->isProperAncestor(u))
      inside.push_back(u);
  if (inside.empty())
    return false;
  std::map<int64_t, unsigned> slot; // element -> position among the carried
  for (Operation *u : inside) {
    if (u->getBlock() != body)
      return false;
    auto i = isa<memref::LoadOp>(u)
                 ? constantIndex(cast<memref::LoadOp>(u).getIndices())
                 : constantIndex(cast<memref::StoreOp>(u).getIndices());
    if (!i)
      return false;
    slot.try_emplace(*i, 0);
  }
  SmallVector<int64_t> elems;
  for (auto &[e, s] : slot) {
    s = elems.size();
    elems.push_back(e);
  }
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  for (int64_t e : elems)
    inits.push_back(memref::LoadOp::create(
        b, loc, a, ValueRange{arith::ConstantIndexOp::create(b, loc, e)}));
  IRRewriter rw(loop.getContext());
  rw.setInsertionPoint(loop);
  auto grown = loop.replaceWithAdditionalYields(
      rw, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        // Called before the body moves into the new loop: walk it where it
        // is (the new block arguments replace the loads).
        SmallVector<Value> cur(args.begin(), args.end());
        for (Operation &op :
             llvm::make_early_inc_range(body->without_terminator())) {
          if (auto l = dyn_cast<memref::LoadOp>(op);
              l && l.getMemref() == a.getResult()) {
            l.replaceAllUsesWith(cur[slot[*constantIndex(l.getIndices())]]);
            l.erase();
          } else if (auto s = dyn_cast<memref::StoreOp>(op);
                     s && s.getMemref() == a.getResult()) {
            cur[slot[*constantIndex(s.getIndices())]] = s.getValueToStore();
            s.erase();
          }
        }
        return cur;
      });
  if (failed(grown))
    return false;
  loop = cast<scf::ForOp>(grown->getOperation());
  OpBuilder after(loop);
  after.setInsertionPointAfter(loop);
  unsigned first = loop.getNumResults() - elems.size();
  for (auto [k, e] : llvm::enumerate(elems))
    memref::StoreOp::create(
        after, loc, loop.getResult(first + k), a,
        ValueRange{arith::ConstantIndexOp::create(after, loc, e)});
  return true;
}

/// The matrix and component `v` is extracted from, if it is.
std::pair<Value, int64_t> componentOf(Value v) {
  auto e = v.getDefiningOp<gpu::SubgroupMmaExtractThreadLocalOp>();
  if (!e || e.getIndices().size() != 1)
    return {};
  std::optional<int64_t> i = getConstantIntValue(e.getIndices().front());
  if (!i)
    return {};
  return {e.getMatrix(), *i};
}

int64_t componentsOf(gpu::MMAMatrixType t, int64_t subgroup) {
  int64_t n = 1;
  for (int64_t d : t.getShape())
    n *= d;
  return subgroup > 0 ? n / subgroup : 0;
}

/// Iter_args of `loop` whose yielded values are all the components of one
/// cooperative matrix (component i of M yielded for one arg each) become
/// one iter_arg carrying M: inside the loop and after it the components
/// are extracted from the carried matrix (and the extract / insert pairs
/// fold below). The old iter_args are left unused for the canonicalizer.
void carryMatrices(scf::ForOp &loop, int64_t subgroup) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  // matrix -> component -> iter_arg position
  llvm::MapVector<Value, std::map<int64_t, unsigned>> groups;
  for (auto [k, v] : llvm::enumerate(yield.getOperands())) {
    auto [m, i] = componentOf(v);
    if (!m)
      continue;
    groups[m].try_emplace(i, unsigned(k));
  }
  SmallVector<std::pair<Value, SmallVector<unsigned>>> whole;
  for (auto &[m, comps] : groups) {
    auto t = cast<gpu::MMAMatrixType>(m.getType());
    int64_t n = componentsOf(t, subgroup);
    if (n <= 0 || int64_t(comps.size()) != n ||
        comps.rbegin()->first != n - 1 || comps.begin()->first != 0)
      continue;
    SmallVector<unsigned> args;
    bool typed = true;
    for (auto &[i, k] : comps) {
      args.push_back(k);
      typed &= loop.getInitArgs()[k].getType() == t.getElementType();
    }
    if (typed)
      whole.push_back({m, args});
  }
  if (whole.empty())
    return;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> inits;
  for (auto &[m, args] : whole) {
    auto t = cast<gpu::MMAMatrixType>(m.getType());
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(t.getElementType()));
    Value mat = gpu::SubgroupMmaConstantMatrixOp::create(b, loc, t, zero);
    for (auto [i, k] : llvm::enumerate(args)) {
      Value at = arith::ConstantIndexOp::create(b, loc, int64_t(i));
      mat = gpu::SubgroupMmaInsertThreadLocalOp::create(
          b, loc, t, loop.getInitArgs()[k], mat, at);
    }
    inits.push_back(mat);
  }
  unsigned oldArgs = loop.getNumRegionIterArgs();
  IRRewriter rw(loop.getContext());
  rw.setInsertionPoint(loop);
  auto grown = loop.replaceWithAdditionalYields(
      rw, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        SmallVector<Value> ms;
        for (auto &[m, args] : whole)
          ms.push_back(m);
        return ms;
      });
  if (failed(grown))
    return;
  loop = cast<scf::ForOp>(grown->getOperation());
  OpBuilder in = OpBuilder::atBlockBegin(loop.getBody());
  OpBuilder after(loop);
  after.setInsertionPointAfter(loop);
  for (auto [g, w] : llvm::enumerate(whole)) {
    Value carried = loop.getRegionIterArgs()[oldArgs + g];
    Value result = loop.getResult(oldArgs + g);
    for (auto [i, k] : llvm::enumerate(w.second)) {
      Value ii = arith::ConstantIndexOp::create(in, loc, int64_t(i));
      Value inner =
          gpu::SubgroupMmaExtractThreadLocalOp::create(in, loc, carried, ii);
      loop.getRegionIterArgs()[k].replaceAllUsesWith(inner);
      Value oi = arith::ConstantIndexOp::create(after, loc, int64_t(i));
      Value outer =
          gpu::SubgroupMmaExtractThreadLocalOp::create(after, loc, result, oi);
      loop.getResult(k).replaceAllUsesWith(outer);
    }
  }
}

/// An insert chain that puts every component i of one matrix M back at
/// position i of a constant matrix of M's type is M.
void foldRepacks(gpu::GPUFuncOp fn, int64_t subgroup) {
  SmallVector<gpu::SubgroupMmaInsertThreadLocalOp> ends;
  fn.walk([&](gpu::SubgroupMmaInsertThreadLocalOp ins) {
    bool chained = llvm::any_of(ins->getUsers(), [&](Operation *u) {
      auto next = dyn_cast<gpu::SubgroupMmaInsertThreadLocalOp>(u);
      return next && next.getMatrix() == ins.getRes();
    });
    if (!chained)
      ends.push_back(ins);
  });
  for (auto end : ends) {
    auto t = cast<gpu::MMAMatrixType>(end.getRes().getType());
    int64_t n = componentsOf(t, subgroup);
    std::map<int64_t, Value> at;
    Value whole;
    bool ok = n > 0;
    Value cur = end.getRes();
    while (ok) {
      auto ins = cur.getDefiningOp<gpu::SubgroupMmaInsertThreadLocalOp>();
      if (!ins)
        break;
      std::optional<int64_t> i =
          ins.getIndices().size() == 1
              ? getConstantIntValue(ins.getIndices().front())
              : std::nullopt;
      auto [m, j] = componentOf(ins.getValue());
      ok = i && m && j == *i && m.getType() == t && (!whole || whole == m) &&
           !at.count(*i);
      if (ok) {
        whole = m;
        at[*i] = m;
      }
      cur = ins.getMatrix();
    }
    if (!ok || !cur.getDefiningOp<gpu::SubgroupMmaConstantMatrixOp>() ||
        int64_t(at.size()) != n)
      continue;
    end.getRes().replaceAllUsesWith(whole);
  }
}

//===----------------------------------------------------------------------===//
// Loads above barriers
//===----------------------------------------------------------------------===//

/// Storage-buffer arguments of `fn` whose binding nothing in `fn` writes.
llvm::DenseSet<Value> readOnlyBuffers(gpu::GPUFuncOp fn) {
  auto bindingOf = [&](Value v) -> std::optional<unsigned> {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &fn.getBody().front())
      return std::nullopt;
    auto abi = fn.getArgAttrOfType<spv::InterfaceVarABIAttr>(
        arg.getArgNumber(), spv::getInterfaceVarABIAttrName());
    if (!abi || abi.getDescriptorSet() != 0)
      return std::nullopt;
    return abi.getBinding();
  };
  llvm::DenseSet<unsigned> written;
  bool unknown = false;
  fn.walk([&](Operation *op) {
    Value dst;
    if (auto s = dyn_cast<memref::StoreOp>(op))
      dst = s.getMemref();
    else if (auto s = dyn_cast<vector::StoreOp>(op))
      dst = s.getBase();
    else if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
      dst = a.getMemref();
    else if (auto m = dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(op))
      dst = m.getDstMemref();
    else
      return;
    if (auto bnd = bindingOf(dst))
      written.insert(*bnd);
    else if (isa<BlockArgument>(dst))
      unknown = true;
  });
  llvm::DenseSet<Value> out;
  if (unknown)
    return out;
  for (BlockArgument arg : fn.getArguments())
    if (auto bnd = bindingOf(arg); bnd && !written.contains(*bnd))
      out.insert(arg);
  return out;
}

/// Whether `op` (with its regions) touches no memory but loads from
/// `readOnly` buffers and private arrays, and stores into private arrays.
bool loadsIntoPrivate(Operation *op, const llvm::DenseSet<Value> &readOnly) {
  auto isPrivate = [](Value m) {
    auto t = dyn_cast<MemRefType>(m.getType());
    return t && !t.getMemorySpace() && m.getDefiningOp<memref::AllocaOp>();
  };
  WalkResult r = op->walk([&](Operation *o) {
    if (auto l = dyn_cast<memref::LoadOp>(o))
      return readOnly.contains(l.getMemref()) || isPrivate(l.getMemref())
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (auto l = dyn_cast<vector::LoadOp>(o))
      return readOnly.contains(l.getBase()) ? WalkResult::advance()
                                            : WalkResult::interrupt();
    if (auto s = dyn_cast<memref::StoreOp>(o))
      return isPrivate(s.getMemref()) ? WalkResult::advance()
                                      : WalkResult::interrupt();
    if (isa<scf::IfOp, scf::YieldOp>(o) || isMemoryEffectFree(o))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

} // namespace

void carryPrivateArrays(gpu::GPUFuncOp fn, int64_t subgroupSize) {
  SmallVector<memref::AllocaOp> arrays;
  fn.walk([&](memref::AllocaOp a) {
    if (plainPrivateArray(a))
      arrays.push_back(a);
  });
  SmallVector<scf::ForOp> loops; // innermost first
  fn.walk<WalkOrder::PostOrder>([&](scf::ForOp f) { loops.push_back(f); });
  for (scf::ForOp loop : loops) {
    bool carried = false;
    for (memref::AllocaOp a : arrays)
      if (!loop->isProperAncestor(a))
        carried |= carryThrough(loop, a);
    if (carried && subgroupSize > 0)
      carryMatrices(loop, subgroupSize);
  }
  foldRepacks(fn, subgroupSize);
}

void issueLoadsBeforeBarriers(gpu::GPUFuncOp fn) {
  llvm::DenseSet<Value> readOnly = readOnlyBuffers(fn);
  if (readOnly.empty())
    return;
  SmallVector<gpu::BarrierOp> barriers;
  fn.walk([&](gpu::BarrierOp b) { barriers.push_back(b); });
  for (gpu::BarrierOp bar : barriers) {
    // The run of ops after the barrier that touch no memory, up to the
    // first region that only loads into private arrays.
    SmallVector<Operation *> run;
    Operation *issue = nullptr;
    for (Operation *op = bar->getNextNode(); op; op = op->getNextNode()) {
      if (op->getNumRegions() == 0 && isMemoryEffectFree(op)) {
        run.push_back(op);
        continue;
      }
      if (isa<scf::IfOp>(op) && op->getNumResults() == 0 &&
          loadsIntoPrivate(op, readOnly))
        issue = op;
      break;
    }
    if (!issue)
      continue;
    // What it needs of the run moves up with it, in order.
    llvm::SetVector<Operation *> need;
    llvm::DenseSet<Operation *> inRun(run.begin(), run.end());
    std::function<void(Value)> want = [&](Value v) {
      Operation *d = v.getDefiningOp();
      if (!d || !inRun.contains(d) || need.contains(d))
        return;
      for (Value o : d->getOperands())
        want(o);
      need.insert(d);
    };
    issue->walk([&](Operation *o) {
      for (Value v : o->getOperands())
        want(v);
    });
    for (Operation *op : run)
      if (need.contains(op))
        op->moveBefore(bar);
    issue->moveBefore(bar);
  }
}

void splitRefills(gpu::GPUFuncOp fn) {
  llvm::DenseSet<Value> readOnly = readOnlyBuffers(fn);
  if (readOnly.empty())
    return;
  SmallVector<scf::IfOp> refills;
  fn.walk([&](scf::IfOp i) {
    if (isa<scf::ForOp>(i->getParentOp()) && i->getNumResults() == 0 &&
        loadsIntoPrivate(i, readOnly))
      refills.push_back(i);
  });
  for (scf::IfOp refill : refills) {
    // The private arrays it fills, in the order of their first stores.
    SmallVector<Value> arrays;
    refill.walk([&](memref::StoreOp st) {
      if (!llvm::is_contained(arrays, st.getMemref()))
        arrays.push_back(st.getMemref());
    });
    if (arrays.size() < 2)
      continue;
    llvm::DenseSet<Value> late(arrays.begin() + arrays.size() / 2,
                               arrays.end());
    // Where the second half goes: the first multiply-add of the block
    // whose accumulator another one of the block computed (the second K
    // step of a gemm), else the middle of the ops after the refill.
    Block *blk = refill->getBlock();
    SmallVector<Operation *> after;
    for (Operation *op = refill->getNextNode();
         op && op != blk->getTerminator(); op = op->getNextNode())
      after.push_back(op);
    Operation *at = nullptr;
    for (Operation *op : after)
      if (auto mma = dyn_cast<gpu::SubgroupMmaComputeOp>(op)) {
        auto prev = mma.getOpC().getDefiningOp<gpu::SubgroupMmaComputeOp>();
        if (prev && prev->getBlock() == blk) {
          at = op;
          break;
        }
      }
    if (!at && after.size() >= 2)
      at = after[after.size() / 2];
    if (!at)
      continue;
    // Nothing between may touch the arrays that move.
    bool touched = false;
    for (Operation *op : after) {
      if (op == at)
        break;
      op->walk([&](Operation *o) {
        for (Value v : o->getOperands())
          touched |= late.contains(v);
      });
    }
    if (touched)
      continue;
    // A copy of the refill at `at` keeps the stores into the late arrays,
    // the refill keeps the others; the loads left without a use go with
    // the canonicalizer (they only read memory nothing writes).
    OpBuilder b(at);
    Operation *second = b.clone(*refill);
    auto keepOnly = [&](Operation *root, bool keepLate) {
      SmallVector<memref::StoreOp> drop;
      root->walk([&](memref::StoreOp st) {
        if (llvm::is_contained(arrays, st.getMemref()) &&
            late.contains(st.getMemref()) != keepLate)
          drop.push_back(st);
      });
      for (memref::StoreOp st : drop)
        st.erase();
    };
    keepOnly(refill, false);
    keepOnly(second, true);
  }
}

void setLoopControl(spv::ModuleOp m) {
  const char *v = std::getenv("TESSERA_SPIRV_LOOP_CONTROL");
  if (!v || !*v)
    return;
  std::string s(v);
  std::optional<spv::LoopControl> control;
  if (s == "unroll")
    control = spv::LoopControl::Unroll;
  else if (s == "dont_unroll")
    control = spv::LoopControl::DontUnroll;
  if (!control)
    return;
  m.walk([&](spv::LoopOp loop) {
    // Loops that synchronize the workgroup in their own body (not in a
    // loop nested in it): the pipelined K loops and loops of staged copies.
    bool barrier = false;
    loop.getBody().walk([&](Operation *op) {
      if (auto cb = dyn_cast<spv::ControlBarrierOp>(op);
          cb && cb.getExecutionScope() == spv::Scope::Workgroup &&
          cb->getParentOfType<spv::LoopOp>() == loop)
        barrier = true;
    });
    if (barrier)
      loop.setLoopControl(*control);
  });
}

void decorateReadOnlyBuffers(spv::ModuleOp m) {
  // binding -> its variables, and whether any access writes through one.
  std::map<std::pair<unsigned, unsigned>, SmallVector<spv::GlobalVariableOp>>
      vars;
  llvm::DenseMap<Operation *, std::pair<unsigned, unsigned>> bindingOf;
  for (auto v : m.getOps<spv::GlobalVariableOp>()) {
    auto pt = dyn_cast<spv::PointerType>(v.getType());
    if (!pt || pt.getStorageClass() != spv::StorageClass::StorageBuffer ||
        !v.getDescriptorSet() || !v.getBinding())
      continue;
    auto key = std::make_pair(*v.getDescriptorSet(), *v.getBinding());
    vars[key].push_back(v);
    bindingOf[v] = key;
  }
  std::set<std::pair<unsigned, unsigned>> written;
  m.walk([&](spv::AddressOfOp addr) {
    auto v = dyn_cast_or_null<spv::GlobalVariableOp>(
        SymbolTable::lookupNearestSymbolFrom(addr, addr.getVariableAttr()));
    if (!v || !bindingOf.count(v))
      return;
    auto key = bindingOf[v];
    // Follow the pointers derived from the variable to what uses them.
    SmallVector<Value> ptrs{addr.getPointer()};
    while (!ptrs.empty()) {
      Value p = ptrs.pop_back_val();
      for (Operation *u : p.getUsers()) {
        if (isa<spv::AccessChainOp, spv::InBoundsPtrAccessChainOp,
                spv::PtrAccessChainOp>(u)) {
          ptrs.push_back(u->getResult(0));
        } else if (isa<spv::LoadOp, spv::KHRCooperativeMatrixLoadOp>(u)) {
          continue;
        } else {
          written.insert(key); // a store, an atomic, anything else
        }
      }
    }
  });
  MLIRContext *ctx = m.getContext();
  for (auto &[key, vs] : vars) {
    if (written.count(key))
      continue;
    for (spv::GlobalVariableOp v : vs) {
      v->setAttr("non_writable", UnitAttr::get(ctx));
      v->setAttr("restrict", UnitAttr::get(ctx));
    }
  }
}

void separateContinueBlocks(spv::ModuleOp m) {
  m.walk([&](spv::LoopOp loop) {
    Block *cont = loop.getContinueBlock();
    Block *header = loop.getHeaderBlock();
    if (!cont || cont == header)
      return;
    Operation *back = cont->getTerminator();
    auto br = dyn_cast<spv::BranchOp>(back);
    // A continue block that already holds only the back edge stays.
    if (!br || br.getTarget() != header || &cont->front() == back)
      return;
    // The step and the values the back edge passes stay in the body (they
    // dominate the new block); the new continue block holds the branch.
    Block *fresh = cont->splitBlock(back);
    OpBuilder b = OpBuilder::atBlockEnd(cont);
    spv::BranchOp::create(b, back->getLoc(), fresh);
  });
}

} // namespace tessera::spirv
