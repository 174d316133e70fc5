//===- FragmentLiveness.cpp - fragments live at each op -------------------===//

#include "FragmentLiveness.h"

#include "PassCommon.h"

#include "tessera/layout/NamedLayouts.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessera::tile;

namespace tessera::passes {

int64_t fragmentTileWords(TileType t) {
  if (!t.isFragment() || !t.getLayout())
    return 0;
  int64_t regs = fromLayoutAttr(t.getLayout(), t.getShape())
                     .getInDimSize(layout::kRegister);
  return (regs *
              std::max<int64_t>(8, t.getElementType().getIntOrFloatBitWidth()) +
          31) /
         32;
}

std::string describeTile(TileType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(t.getShape(), os, "x");
  os << "x" << t.getElementType() << (t.isFragment() ? " fragment" : " tile");
  return s;
}

namespace {

bool isFragment(Value v) {
  auto t = dyn_cast<TileType>(v.getType());
  return t && t.isFragment();
}

/// What a leaf op (one without regions, or a tile.parallel) does to
/// fragments: reads (the value before the op is needed), overwrites whole,
/// and touches (read, written or both: live across the op). A sweep goes
/// over its tiles register by register (element-wise regions, copies,
/// conversions, fills): a tile it reads for the last time frees its
/// registers as the ones it writes fill theirs, so it needs at most what is
/// live before it or after it; the other ops (a gemm reads all of A and B
/// into every accumulator register) hold everything they touch at once.
struct Effects {
  SmallVector<Value, 4> reads, kills, touches;
  bool sweep = false;
  void read(Value v) {
    if (isFragment(v))
      reads.push_back(v), touches.push_back(v);
  }
  void kill(Value v) {
    if (isFragment(v))
      kills.push_back(v), touches.push_back(v);
  }
  void partialWrite(Value v) {
    if (isFragment(v))
      touches.push_back(v);
  }
};

/// Whether `s` stores the whole of its tile in one iteration sweep of `p`:
/// unconditionally (in the body's block) at exactly the region's induction
/// variables, over a tile of the region's shape.
bool storesWhole(ParallelOp p, StoreOp s) {
  Block &body = p.getBody().front();
  auto t = cast<TileType>(s.getTile().getType());
  if (s->getBlock() != &body || t.getShape() != p.getShape() ||
      s.getIndices().size() != body.getNumArguments())
    return false;
  for (auto [i, v] : llvm::enumerate(s.getIndices()))
    if (v != body.getArgument(i))
      return false;
  return true;
}

Effects effectsOf(Operation *op) {
  Effects e;
  e.sweep = isa<CopyOp, ConvertLayoutOp, FillOp, ClearOp, ParallelOp>(op);
  if (auto c = dyn_cast<CopyOp>(op)) {
    // Copies write every element of a tile destination (masked elements
    // read zero).
    e.read(c.getSrc());
    e.kill(c.getDst());
  } else if (auto cv = dyn_cast<ConvertLayoutOp>(op)) {
    e.read(cv.getSrc());
    e.kill(cv.getDst());
  } else if (auto g = dyn_cast<GemmOp>(op)) {
    e.read(g.getA());
    e.read(g.getB());
    if (g.getClear())
      e.kill(g.getC());
    else
      e.read(g.getC());
  } else if (auto f = dyn_cast<FillOp>(op)) {
    e.kill(f.getDst());
  } else if (auto cl = dyn_cast<ClearOp>(op)) {
    e.kill(cl.getDst());
  } else if (auto r = dyn_cast<ReduceOp>(op)) {
    e.read(r.getSrc());
    if (r.getAccumulate())
      e.read(r.getDst());
    else
      e.kill(r.getDst());
  } else if (auto p = dyn_cast<ParallelOp>(op)) {
    p.getBody().walk([&](Operation *inner) {
      if (auto l = dyn_cast<LoadOp>(inner))
        e.read(l.getTile());
      else if (auto s = dyn_cast<StoreOp>(inner))
        storesWhole(p, s) ? e.kill(s.getTile()) : e.partialWrite(s.getTile());
      else
        for (Value v : inner->getOperands())
          e.read(v);
    });
  } else if (auto s = dyn_cast<StoreOp>(op)) {
    e.partialWrite(s.getTile());
  } else if (!isa<AllocOp>(op)) {
    // Anything else is taken to read every fragment it names.
    for (Value v : op->getOperands())
      e.read(v);
  }
  return e;
}

} // namespace

FragmentLiveness::FragmentLiveness(KernelOp kernel) {
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == kernel.getOperation())
      return WalkResult::advance();
    order.push_back(op);
    if (auto a = dyn_cast<AllocOp>(op))
      allocIndex[a.getResult()] = int64_t(allocIndex.size());
    // A parallel region is one point.
    return isa<ParallelOp>(op) ? WalkResult::skip() : WalkResult::advance();
  });
  block(kernel.getBodyBlock(), TileSet());
}

FragmentLiveness::TileSet FragmentLiveness::block(Block &b,
                                                  const TileSet &liveOut) {
  TileSet live = liveOut;
  for (Operation &op : llvm::reverse(b))
    live = transfer(op, live);
  return live;
}

FragmentLiveness::TileSet FragmentLiveness::transfer(Operation &op,
                                                     const TileSet &liveOut) {
  if (op.getNumRegions() == 0 || isa<ParallelOp>(op)) {
    Effects e = effectsOf(&op);
    TileSet in = liveOut;
    for (Value v : e.kills)
      in.erase(v);
    for (Value v : e.reads)
      in.insert(v);
    SmallVector<TileSet, 2> &a = across[&op];
    a.clear();
    if (e.sweep) {
      // Before the sweep, and after it with every tile it wrote.
      a.push_back(in);
      a.push_back(liveOut);
      for (Value v : e.touches)
        if (!llvm::is_contained(e.reads, v))
          a.back().insert(v);
    } else {
      a.push_back(liveOut);
      a.back().insert(e.touches.begin(), e.touches.end());
    }
    return in;
  }
  // Operands of a region op (loop bounds, branch conditions) are scalars;
  // a fragment among them would be read on entry.
  TileSet entryReads;
  for (Value v : op.getOperands())
    if (isFragment(v))
      entryReads.insert(v);
  TileSet in;
  if (isa<LoopLikeOpInterface, PipelinedOp>(op)) {
    // The end of the body flows to its start (another iteration) and to
    // what follows the loop; the loop may also run no iteration.
    TileSet x = liveOut;
    while (true) {
      size_t before = x.size();
      for (Region &r : op.getRegions())
        for (Block &b : r) {
          TileSet bin = block(b, x);
          x.insert(bin.begin(), bin.end());
        }
      if (x.size() == before)
        break;
    }
    in = x;
  } else {
    // A branch (or any other region op): each region may run once, or
    // none.
    in = liveOut;
    for (Region &r : op.getRegions())
      for (Block &b : r) {
        TileSet bin = block(b, liveOut);
        in.insert(bin.begin(), bin.end());
      }
  }
  in.insert(entryReads.begin(), entryReads.end());
  SmallVector<TileSet, 2> &a = across[&op];
  a.assign(1, in);
  a.back().insert(liveOut.begin(), liveOut.end());
  return in;
}

SmallVector<SmallVector<Value>>
FragmentLiveness::liveAcross(Operation *op) const {
  SmallVector<SmallVector<Value>> out;
  auto it = across.find(op);
  if (it == across.end())
    return out;
  for (const TileSet &set : it->second) {
    SmallVector<Value> &vs = out.emplace_back(set.begin(), set.end());
    llvm::sort(vs, [&](Value a, Value b) {
      auto ia = allocIndex.find(a), ib = allocIndex.find(b);
      int64_t xa = ia == allocIndex.end() ? INT64_MAX : ia->second;
      int64_t xb = ib == allocIndex.end() ? INT64_MAX : ib->second;
      if (xa != xb)
        return xa < xb;
      return a.getAsOpaquePointer() < b.getAsOpaquePointer();
    });
  }
  return out;
}

RegisterPeak
fragmentRegisterPeak(KernelOp kernel,
                     const std::function<int64_t(Operation *)> &extra) {
  FragmentLiveness live(kernel);
  RegisterPeak peak;
  for (Operation *op : live.points())
    for (const SmallVector<Value> &here : live.liveAcross(op)) {
      int64_t words = 0;
      for (Value v : here)
        words += fragmentTileWords(cast<TileType>(v.getType()));
      int64_t more = extra ? extra(op) : 0;
      if (words + more <= peak.words)
        continue;
      peak.words = words + more;
      peak.extraWords = more;
      peak.at = op;
      peak.live.clear();
      for (Value v : here)
        if (int64_t w = fragmentTileWords(cast<TileType>(v.getType())))
          peak.live.push_back({v, w});
    }
  return peak;
}

} // namespace tessera::passes
