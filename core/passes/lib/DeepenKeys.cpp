//===- DeepenKeys.cpp - tessera-deepen-keys -------------------------------===//
//
// Deepens the key blocks of an online-softmax loop: F consecutive
// iterations of a pipelined loop over blocks of KB keys become one
// iteration over F KB keys. A loop
//
//   tile.pipelined %j = %lb to %ub step %c1 stages = S {
//     %k0 = arith.muli %j, %cKB : index
//     tile.copy %K[.., %k0, ..], %Ks        // Ks: KB x D, shared
//     tile.copy %V[.., %k0, ..], %Vs
//     tile.gemm %Qs, %Ks, %Sf transpose_b clear   // Sf: M x KB, fragment
//     tile.parallel (%i, %jj) in [M, KB] { ... S = f(S, k0 + jj, ...) }
//     tile.copy %m, %m_prev
//     tile.reduce max %Sf, %m dim = 1 accumulate
//     ... alpha = exp(m_prev - g(m)); l = l * alpha; P = exp(S - g(m))
//     tile.reduce sum %Sf, %l dim = 1 accumulate
//     ... acc = acc * alpha
//     tile.copy %Sf, %Pf
//     tile.gemm %Pf, %Vs, %acc
//   }
//
// runs over [lb / F, ceildiv(ub, F)) with k0 = j * F KB, its key tiles
// (Ks, Vs, Sf, Pf) and the tile.parallel dimensions over keys F times as
// deep. Merging is exact up to rounding: max is associative, and with
// m1 the max after the first block and m2 after the second,
//   exp(m0 - m1) exp(m1 - m2) = exp(m0 - m2),
//   exp(S1 - m1) exp(m1 - m2) = exp(S1 - m2),
// so the two rescales of l and acc are one and the first block's terms
// are scaled as the merged block's are (g(m) = m, or 0 where m = -inf,
// keeps both identities: a row that saw no key contributes zeros either
// way). Keys of the merged range outside the original [lb KB, ub KB)
// (half a block past ub for an odd trip count; before lb where lb is odd)
// are set to -inf where the program writes S before its max, so they add
// nothing (and P is set to 0 where the exponent's scale is not a positive
// constant); the program's own masks still see each key's position.
//
// Legality is proven by evaluating one iteration symbolically (each
// tile's content as an expression of the iteration's inputs) and matching
// the recurrence, not the ops' order or how the program groups them:
//   - the only use of the induction variable is k0 = iv * KB; k0 is used
//     as a copy's offset along a tile's key dimension or as k0 + jj (jj a
//     tile.parallel index over keys), and jj only so or as a tile index;
//   - copies from global tensors at k0 into shared tiles (the key tiles),
//     a `clear` gemm of a loop-invariant A and a key tile's keys as B's N
//     into a fragment S (keys along its columns), elementwise tile.parallel
//     regions, tile.reduce max / sum over the keys, copies between
//     fragments, gemms contracting a key fragment with a key tile into an
//     accumulator defined outside the loop; nothing else;
//   - the tiles the loop writes and the kernel reads after it are one m
//     with m' = max(m, rowmax(E)) (E key-local: no carried value in it)
//     and others X with X' = X * exp(c (m - G)) + T, T = rowsum(P) or
//     P V, P = exp(c (E - G)), the same c, E and G (G = m' or its -inf
//     guard), exp or exp2 alike; tiles written in the loop and read only
//     in it are never read before they are written.
//
// When: where the target has `softmax_key_block = N` (sm_90a: 128), up to
// N keys per block while the loop's shared tiles, multi-buffered as the
// program asks, fit the block's shared memory with the kernel's other
// tiles and the fragments stay within 224 32-bit words per thread (128 for
// the largest), and no deeper than S's rows or the head dimension: on an
// H200 every kernel deepened past either ran 13-44% slower (d64 attention
// to 128 keys, 64-row blocks), those within both gained (GQA 1.15x, 1.93x
// as written with 32 keys; d256 cross 1.79x). A program keeps
// its key blocks with `tile.keys_from` on the loop (the attribute the pass
// leaves: the depth it was written with). TESSERA_DEEPEN_KEYS=0 turns the
// pass off, =explain remarks on each loop, =N deepens to N keys on any
// target wherever shared memory and registers allow, rows and head
// dimension regardless (tests on CPU and Vulkan, A/B runs); in the compile
// cache key.
//
//===----------------------------------------------------------------------===//

#include "PassCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

namespace tessera::passes {
namespace {

/// A hash-consed expression: equal expressions are the same node.
struct Node {
  std::string op; ///< "in", "inv", "const", "k0", "row", "key", "col",
                  ///< "score", "rmax", "rsum", "dot", "conv" or an op name
  llvm::SmallVector<const Node *, 3> args;
  const void *id = nullptr; ///< the tile, value or op a leaf stands for
  bool isConst = false;
  double value = 0; ///< a float or integer constant's value
};

class Pool {
  std::map<std::string, std::unique_ptr<Node>> nodes;

public:
  const Node *get(StringRef op, ArrayRef<const Node *> args,
                  const void *id = nullptr, std::string extra = "") {
    std::string key;
    llvm::raw_string_ostream os(key);
    os << op << '#' << id << '#' << extra << '(';
    for (const Node *a : args)
      os << a << ',';
    os << ')';
    auto &slot = nodes[key];
    if (!slot) {
      slot = std::make_unique<Node>();
      slot->op = op.str();
      slot->args.assign(args.begin(), args.end());
      slot->id = id;
    }
    return slot.get();
  }
  const Node *constant(Attribute a) {
    std::string s;
    llvm::raw_string_ostream os(s);
    a.print(os);
    const Node *n = get("const", {}, nullptr, s);
    auto *m = const_cast<Node *>(n);
    m->isConst = true;
    if (auto f = dyn_cast<FloatAttr>(a))
      m->value = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(a))
      m->value = double(i.getValue().getSExtValue());
    else
      m->isConst = false;
    return n;
  }
};

bool contains(const Node *n, llvm::function_ref<bool(const Node *)> pred) {
  if (pred(n))
    return true;
  return llvm::any_of(n->args,
                      [&](const Node *a) { return contains(a, pred); });
}

/// A loop the pass may deepen and what to rewrite in it.
struct KeyLoop {
  PipelinedOp loop;
  int64_t kb = 0;
  arith::MulIOp mul;
  unsigned constIdx = 0;
  Value k0;
  /// Key tiles (allocs) and the dimension holding the keys.
  llvm::MapVector<Value, int64_t> keyTiles;
  /// tile.parallel regions over keys and their key dimension.
  llvm::MapVector<Operation *, int64_t> regions;
  int64_t rows = 0;          ///< S's rows (query rows)
  int64_t headDim = 0;       ///< the key blocks' other extent (least of them)
  StoreOp maskScores;        ///< writes S before its max
  StoreOp maskProbabilities; ///< writes P (where the scale may be <= 0)
};

/// Finds whether `p` is an online-softmax loop the pass can deepen.
class Analysis {
public:
  Analysis(PipelinedOp p) { k.loop = p; }
  std::optional<KeyLoop> run(std::string &why);

private:
  KeyLoop k;
  Pool pool;
  std::string why;
  llvm::DenseMap<Value, const Node *> cur; ///< tile -> content
  llvm::DenseMap<Value, StoreOp> writer;   ///< tile -> last whole store
  llvm::DenseMap<Value, const Node *> vals;
  /// The roles of the current tile.parallel's dimensions.
  Operation *region = nullptr;
  llvm::SmallVector<StringRef> roles;
  int64_t rows = -1;
  StoreOp scoreWriter, probWriter;
  const Node *scoreNode = nullptr, *probNode = nullptr;

  bool fail(const Twine &w) {
    if (why.empty())
      why = w.str();
    return false;
  }
  bool outside(Value v) {
    Operation *def = v.getDefiningOp();
    if (auto ba = dyn_cast<BlockArgument>(v))
      def = ba.getOwner()->getParentOp();
    return !k.loop->isAncestor(def);
  }
  /// An alloc defined outside the loop, or null.
  AllocOp outerAlloc(Value t) {
    auto a = t.getDefiningOp<AllocOp>();
    return a && !k.loop->isAncestor(a) ? a : AllocOp();
  }
  const Node *content(Value t) {
    auto it = cur.find(t);
    if (it != cur.end())
      return it->second;
    return cur[t] = pool.get("in", {}, t.getAsOpaquePointer());
  }
  const Node *eval(Value v);
  bool parallel(ParallelOp par);
  bool step(Operation &op);
  bool matchRecurrence();
};

const Node *Analysis::eval(Value v) {
  if (auto it = vals.find(v); it != vals.end())
    return it->second;
  const Node *n = nullptr;
  Attribute cst;
  if (v == k.k0) {
    n = pool.get("k0", {});
  } else if (matchPattern(v, m_Constant(&cst))) {
    n = pool.constant(cst);
  } else if (auto ba = dyn_cast<BlockArgument>(v);
             ba && region && ba.getOwner()->getParentOp() == region) {
    n = pool.get(roles[ba.getArgNumber()], {});
  } else if (outside(v)) {
    n = pool.get("inv", {}, v.getAsOpaquePointer());
  } else {
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumResults() != 1 || def->getNumRegions() != 0 ||
        !isMemoryEffectFree(def) || !def->getDialect() ||
        !llvm::is_contained(ArrayRef<StringRef>{"arith", "math"},
                            def->getDialect()->getNamespace())) {
      fail("a value in the loop is not plain arithmetic ('" +
           (def ? def->getName().getStringRef().str() : std::string("arg")) +
           "')");
      return nullptr;
    }
    llvm::SmallVector<const Node *> args;
    for (Value o : def->getOperands()) {
      const Node *a = eval(o);
      if (!a)
        return nullptr;
      args.push_back(a);
    }
    std::string extra;
    if (Attribute pred = def->getAttr("predicate")) {
      llvm::raw_string_ostream os(extra);
      pred.print(os);
    }
    if (def->getName().getStringRef() == "arith.addi" && args.size() == 2) {
      // k0 + jj is a key's position; k0 and jj mean nothing alone.
      bool pos = (args[0]->op == "k0" && args[1]->op == "key") ||
                 (args[0]->op == "key" && args[1]->op == "k0");
      if (pos) {
        vals[v] = pool.get("keypos", {});
        return vals[v];
      }
    }
    for (const Node *a : args)
      if (a->op == "k0" || a->op == "key") {
        fail("k0 or a key index is used other than as k0 + index");
        return nullptr;
      }
    n = pool.get(def->getName().getStringRef(), args, nullptr, extra);
  }
  vals[v] = n;
  return n;
}

bool Analysis::parallel(ParallelOp par) {
  Block &body = par.getBodyBlock();
  ArrayRef<int64_t> shape = par.getShape();
  roles.assign(shape.size(), "");
  int64_t keyDim = -1;
  // Roles of the region's dimensions from the tiles it touches.
  for (Operation &op : body.without_terminator()) {
    Value t;
    ValueRange idx;
    if (auto l = dyn_cast<LoadOp>(&op)) {
      t = l.getTile();
      idx = l.getIndices();
    } else if (auto s = dyn_cast<StoreOp>(&op)) {
      t = s.getTile();
      idx = s.getIndices();
    } else {
      continue;
    }
    auto tt = cast<TileType>(t.getType());
    if (!outerAlloc(t) || !tt.isFragment())
      return fail("a tile.parallel touches a tile that is not a fragment "
                  "allocated outside the loop");
    auto dims = parallelAccessDims(body, idx, tt.getShape());
    auto key = k.keyTiles.find(t);
    if (tt.getRank() > 2)
      return fail("a tile.parallel touches a tile of rank > 2");
    for (auto [d, r] : llvm::enumerate(dims)) {
      if (r < 0)
        return fail("a tile.parallel indexes a tile other than by its "
                    "indices");
      StringRef role = d == 0 ? "row" : key != k.keyTiles.end() ? "key" : "col";
      if (d == 0 && key != k.keyTiles.end() && key->second == 0)
        return fail("a fragment holds keys along its rows");
      int64_t ext = tt.getShape()[d];
      if (role == "row") {
        if (rows < 0)
          rows = ext;
        if (ext != rows)
          return fail("fragments of the loop have different row counts");
      }
      if (!roles[r].empty() && roles[r] != role)
        return fail("a tile.parallel index is a key in one tile and not "
                    "in another");
      if (shape[r] != ext)
        return fail("a tile.parallel's extent differs from its tile's");
      roles[r] = role;
      if (role == "key")
        keyDim = r;
    }
    if (isa<StoreOp>(op) && int64_t(dims.size()) != int64_t(shape.size()))
      return fail("a tile.parallel stores to a tile of lower rank than it");
  }
  for (StringRef r : roles)
    if (r.empty())
      return fail("a tile.parallel has an index that indexes no tile");
  region = par;
  for (Operation &op : body.without_terminator()) {
    if (auto l = dyn_cast<LoadOp>(&op)) {
      const Node *c = content(l.getTile());
      if (k.keyTiles.count(l.getTile()) && c->op == "in")
        return fail("a key tile is read before the loop writes it");
      vals[l.getResult()] = c;
      continue;
    }
    if (auto s = dyn_cast<StoreOp>(&op)) {
      const Node *v = eval(s.getValue());
      if (!v)
        return false;
      cur[s.getTile()] = v;
      writer[s.getTile()] = s;
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return fail("a tile.parallel holds '" + op.getName().getStringRef() +
                  "'");
    // Pure arithmetic: evaluated where used.
  }
  // The key indices: tile indices or k0 + jj alone.
  if (keyDim >= 0) {
    for (Operation *u : body.getArgument(keyDim).getUsers()) {
      if (isa<LoadOp, StoreOp>(u))
        continue;
      auto add = dyn_cast<arith::AddIOp>(u);
      if (!add || (add.getLhs() != k.k0 && add.getRhs() != k.k0))
        return fail("a key index is used other than as a tile index or "
                    "k0 + index");
    }
    k.regions[par] = keyDim;
  }
  region = nullptr;
  roles.clear();
  return true;
}

bool Analysis::step(Operation &op) {
  if (&op == k.mul.getOperation())
    return true;
  if (auto c = dyn_cast<CopyOp>(&op)) {
    auto dt = dyn_cast<TileType>(c.getDst().getType());
    if (!dt)
      return fail("the loop copies a tile to global memory");
    if (isa<GlobalTensorType>(c.getSrc().getType())) {
      if (!outerAlloc(c.getDst()) || !dt.isShared() ||
          !c.getDstOffsets().empty())
        return fail("a copy in the loop is not from a global tensor into a "
                    "shared tile allocated outside it");
      int64_t dim = -1;
      auto src = cast<GlobalTensorType>(c.getSrc().getType());
      for (auto [i, o] : llvm::enumerate(c.getSrcOffsets())) {
        if (o == k.k0) {
          int64_t lead = src.getRank() - dt.getRank();
          int64_t d = int64_t(i) - lead;
          if (c.getTranspose())
            d = dt.getRank() - 1 - d;
          if (d < 0 || dim >= 0 || dt.getShape()[d] != k.kb)
            return fail("a copy's key offset is not at a tile dimension of "
                        "KB keys");
          dim = d;
        } else if (!outside(o)) {
          return fail("a copy's offset other than k0 is computed in the "
                      "loop");
        }
      }
      if (dim < 0)
        return fail("a copy in the loop does not follow the key block");
      k.keyTiles[c.getDst()] = dim;
      if (dt.getRank() == 2) {
        int64_t other = dt.getShape()[1 - dim];
        k.headDim = k.headDim ? std::min(k.headDim, other) : other;
      }
      cur[c.getDst()] = pool.get("data", {}, c.getDst().getAsOpaquePointer());
      return true;
    }
    auto st = dyn_cast<TileType>(c.getSrc().getType());
    if (!st || !st.isFragment() || !dt.isFragment() ||
        !outerAlloc(c.getSrc()) || !outerAlloc(c.getDst()) ||
        !c.getSrcOffsets().empty() || !c.getDstOffsets().empty() ||
        c.getTranspose() || st.getShape() != dt.getShape())
      return fail("a copy in the loop is neither a key block's load nor a "
                  "copy between fragments");
    const Node *v = content(c.getSrc());
    auto key = k.keyTiles.find(c.getSrc());
    if (key != k.keyTiles.end()) {
      if (v->op == "in")
        return fail("a key tile is read before the loop writes it");
      k.keyTiles[c.getDst()] = key->second;
    } else if (k.keyTiles.count(c.getDst())) {
      return fail("a key tile is overwritten by a tile without keys");
    }
    if (st.getElementType() != dt.getElementType())
      v = pool.get("conv", {v});
    cur[c.getDst()] = v;
    if (auto w = writer.find(c.getSrc()); w != writer.end())
      writer[c.getDst()] = w->second;
    else
      writer.erase(c.getDst());
    return true;
  }
  if (auto g = dyn_cast<GemmOp>(&op)) {
    auto keyOf = [&](Value t) -> int64_t {
      auto it = k.keyTiles.find(t);
      return it == k.keyTiles.end() ? -1 : it->second;
    };
    if (!outerAlloc(g.getC()) ||
        !cast<TileType>(g.getC().getType()).isFragment())
      return fail("a gemm's accumulator is not a fragment allocated outside "
                  "the loop");
    if (g.getClear()) {
      // S = A B^T: keys are B's N, A holds none.
      int64_t bn = g.getTransposeB() ? 0 : 1;
      if (keyOf(g.getA()) >= 0 || keyOf(g.getB()) != bn ||
          content(g.getA())->op != "in" || !outerAlloc(g.getA()))
        return fail("a clearing gemm does not take its N from a key block "
                    "and its A from a tile the loop does not write");
      if (k.keyTiles.count(g.getC()) == 0 && content(g.getC())->op != "in")
        return fail("a clearing gemm overwrites a tile without keys");
      k.keyTiles[g.getC()] = 1;
      k.rows = cast<TileType>(g.getC().getType()).getShape()[0];
      cur[g.getC()] = pool.get("score", {}, g.getOperation());
      writer.erase(g.getC());
      return true;
    }
    // acc += P V: contracts the keys of a key fragment with a key block.
    int64_t bk = g.getTransposeB() ? 1 : 0;
    auto at = cast<TileType>(g.getA().getType());
    if (g.getTransposeA() || !at.isFragment() || keyOf(g.getA()) != 1 ||
        keyOf(g.getB()) != bk || keyOf(g.getC()) >= 0)
      return fail("an accumulating gemm does not contract a key fragment's "
                  "keys with a key block's");
    const Node *p = content(g.getA());
    if (p->op == "in")
      return fail("a key tile is read before the loop writes it");
    const Node *unconv = p->op == "conv" ? p->args[0] : p;
    if (probNode && probNode != unconv)
      return fail("two different probability tiles");
    probNode = unconv;
    auto w = writer.find(g.getA());
    if (w != writer.end() && !probWriter)
      probWriter = w->second;
    const Node *d = pool.get("dot", {p}, g.getB().getAsOpaquePointer());
    cur[g.getC()] = pool.get("arith.addf", {content(g.getC()), d});
    return true;
  }
  if (auto r = dyn_cast<ReduceOp>(&op)) {
    auto key = k.keyTiles.find(r.getSrc());
    auto dt = cast<TileType>(r.getDst().getType());
    if (key == k.keyTiles.end() || int64_t(r.getDim()) != key->second ||
        !outerAlloc(r.getDst()) || !dt.isFragment() ||
        k.keyTiles.count(r.getDst()))
      return fail("a tile.reduce does not reduce a key tile over its keys");
    const Node *s = content(r.getSrc());
    if (s->op == "in")
      return fail("a key tile is read before the loop writes it");
    const Node *red;
    StringRef comb;
    if (r.getKind() == ReduceKind::Max) {
      if (scoreNode && scoreNode != s)
        return fail("two different maxima over keys");
      scoreNode = s;
      auto w = writer.find(r.getSrc());
      scoreWriter = w == writer.end() ? StoreOp() : w->second;
      red = pool.get("rmax", {s});
      comb = "arith.maximumf";
    } else if (r.getKind() == ReduceKind::Sum) {
      if (probNode && probNode != s)
        return fail("two different probability tiles");
      probNode = s;
      auto w = writer.find(r.getSrc());
      if (w != writer.end())
        probWriter = w->second;
      red = pool.get("rsum", {s});
      comb = "arith.addf";
    } else {
      return fail("a tile.reduce min over keys");
    }
    cur[r.getDst()] =
        r.getAccumulate() ? pool.get(comb, {content(r.getDst()), red}) : red;
    writer.erase(r.getDst());
    return true;
  }
  if (auto f = dyn_cast<FillOp>(&op)) {
    if (!outerAlloc(f.getDst()))
      return fail("a tile.fill of a tile allocated in the loop");
    const Node *v = eval(f.getValue());
    if (!v)
      return false;
    cur[f.getDst()] = v;
    writer.erase(f.getDst());
    return true;
  }
  if (auto c = dyn_cast<ClearOp>(&op)) {
    if (!outerAlloc(c.getDst()))
      return fail("a tile.clear of a tile allocated in the loop");
    cur[c.getDst()] = pool.get("zero", {});
    writer.erase(c.getDst());
    return true;
  }
  if (auto par = dyn_cast<ParallelOp>(&op))
    return parallel(par);
  if (op.getNumRegions() == 0 && isMemoryEffectFree(&op))
    return true; // arithmetic: evaluated where used
  return fail("the loop holds '" + op.getName().getStringRef() + "'");
}

/// exp(c (a - b)) or exp2 of it: the base, c (null: 1), a, b.
struct ExpForm {
  StringRef base;
  const Node *c = nullptr, *a = nullptr, *b = nullptr;
};
std::optional<ExpForm> expForm(const Node *n) {
  if ((n->op != "math.exp" && n->op != "math.exp2") || n->args.size() != 1)
    return std::nullopt;
  ExpForm f;
  f.base = n->op;
  const Node *x = n->args[0];
  auto isSub = [](const Node *s) {
    return s->op == "arith.subf" && s->args.size() == 2;
  };
  auto isMul = [](const Node *s) {
    return s->op == "arith.mulf" && s->args.size() == 2;
  };
  auto invariant = [](const Node *s) {
    return !contains(s, [](const Node *m) {
      return m->op != "inv" && m->op != "const" && m->op.rfind("arith.", 0);
    });
  };
  if (isSub(x) && !(isMul(x->args[0]) && isMul(x->args[1]))) {
    f.a = x->args[0];
    f.b = x->args[1];
    return f;
  }
  if (isMul(x)) {
    for (int i = 0; i < 2; ++i)
      if (isSub(x->args[i]) && invariant(x->args[1 - i])) {
        f.c = x->args[1 - i];
        f.a = x->args[i]->args[0];
        f.b = x->args[i]->args[1];
        return f;
      }
    return std::nullopt;
  }
  if (isSub(x)) {
    // a c - b c (either factor order).
    const Node *l = x->args[0], *r = x->args[1];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        if (l->args[i] == r->args[j] && invariant(l->args[i])) {
          f.c = l->args[i];
          f.a = l->args[1 - i];
          f.b = r->args[1 - j];
          return f;
        }
  }
  return std::nullopt;
}

bool Analysis::matchRecurrence() {
  PipelinedOp p = k.loop;
  // Tiles the loop writes, split by whether the kernel reads them after it.
  llvm::SmallVector<Value> carried;
  for (auto &[t, n] : cur) {
    if (n->op == "in" && n->id == t.getAsOpaquePointer())
      continue;
    bool usedOutside = llvm::any_of(
        t.getUsers(), [&](Operation *u) { return !p->isAncestor(u); });
    if (k.keyTiles.count(t)) {
      if (usedOutside)
        return fail("a key tile is used outside the loop");
      continue;
    }
    if (usedOutside)
      carried.push_back(t);
  }
  // Tiles read only in the loop must not carry values across iterations.
  for (Value t : carried) {
    const Node *n = cur[t];
    for (auto &[u, un] : cur) {
      if (llvm::is_contained(carried, u))
        continue;
      const void *id = u.getAsOpaquePointer();
      if (contains(n,
                   [&](const Node *m) { return m->op == "in" && m->id == id; }))
        return fail("a tile written in the loop is read in a later "
                    "iteration before it is written");
    }
  }
  if (!scoreNode || !probNode)
    return fail("the loop has no max and no sum or gemm over keys");
  auto keyLocal = [](const Node *n) {
    return !contains(n, [](const Node *m) {
      return m->op == "in" || m->op == "rmax" || m->op == "rsum" ||
             m->op == "dot";
    });
  };
  if (!keyLocal(scoreNode))
    return fail("the scores depend on a value carried between iterations");
  const Node *rmax = pool.get("rmax", {scoreNode});
  Value mTile;
  const Node *mOut = nullptr;
  for (Value t : carried) {
    const Node *n = cur[t];
    const Node *in = pool.get("in", {}, t.getAsOpaquePointer());
    if (n->op == "arith.maximumf" && n->args.size() == 2 &&
        ((n->args[0] == in && n->args[1] == rmax) ||
         (n->args[1] == in && n->args[0] == rmax))) {
      if (mTile)
        return fail("two running maxima");
      mTile = t;
      mOut = n;
    }
  }
  if (!mTile)
    return fail("no tile carries max(m, rowmax(S))");
  const Node *mIn = pool.get("in", {}, mTile.getAsOpaquePointer());
  auto isGuard = [&](const Node *g) {
    if (g == mOut)
      return true;
    // select(m' == -inf, 0, m')
    if (g->op != "arith.select" || g->args.size() != 3 || g->args[2] != mOut ||
        !g->args[1]->isConst || g->args[1]->value != 0)
      return false;
    const Node *c = g->args[0];
    if (c->op != "arith.cmpf" || c->args.size() != 2)
      return false;
    const Node *x = c->args[0], *y = c->args[1];
    if (y == mOut)
      std::swap(x, y);
    return x == mOut && y->isConst && std::isinf(y->value) && y->value < 0;
  };
  std::optional<ExpForm> prob = expForm(probNode);
  if (!prob || prob->a != scoreNode || !isGuard(prob->b))
    return fail("P is not exp(S - m) of the max's S and m");
  for (Value t : carried) {
    if (t == mTile)
      continue;
    const Node *n = cur[t];
    const Node *in = pool.get("in", {}, t.getAsOpaquePointer());
    if (n->op != "arith.addf" || n->args.size() != 2)
      return fail("a carried tile is not X * alpha + (a sum over keys)");
    bool ok = false;
    for (int i = 0; i < 2 && !ok; ++i) {
      const Node *scaled = n->args[i], *term = n->args[1 - i];
      bool termOk =
          (term->op == "rsum" && term->args[0] == probNode) ||
          (term->op == "dot" &&
           (term->args[0] == probNode || (term->args[0]->op == "conv" &&
                                          term->args[0]->args[0] == probNode)));
      if (!termOk || scaled->op != "arith.mulf")
        continue;
      for (int j = 0; j < 2 && !ok; ++j) {
        if (scaled->args[j] != in)
          continue;
        std::optional<ExpForm> a = expForm(scaled->args[1 - j]);
        ok = a && a->base == prob->base && a->c == prob->c && a->a == mIn &&
             a->b == prob->b;
      }
    }
    if (!ok)
      return fail("a carried tile is not X * exp(m - m') + (a sum over keys "
                  "of exp(S - m'))");
  }
  if (carried.size() < 2)
    return fail("the loop carries nothing but its max");
  if (!scoreWriter)
    return fail("no tile.parallel writes the scores before their max");
  k.maskScores = scoreWriter;
  bool positive = !prob->c || (prob->c->isConst && prob->c->value > 0);
  if (!positive) {
    if (!probWriter)
      return fail("no tile.parallel writes P (its scale may be negative)");
    k.maskProbabilities = probWriter;
  }
  return true;
}

std::optional<KeyLoop> Analysis::run(std::string &whyOut) {
  PipelinedOp p = k.loop;
  Value iv = p.getInductionVar();
  auto done = [&]() -> std::optional<KeyLoop> {
    whyOut = why;
    return std::nullopt;
  };
  if (!matchPattern(p.getStep(), m_One()))
    return fail("the loop's step is not 1"), done();
  APInt kb;
  if (!iv.hasOneUse() ||
      !(k.mul = dyn_cast<arith::MulIOp>(iv.use_begin()->getOwner())) ||
      k.mul->getBlock() != &p.getBodyBlock())
    return fail("the induction variable is used other than once, as iv * "
                "KB"),
           done();
  k.constIdx = k.mul.getLhs() == iv ? 1 : 0;
  if (!matchPattern(k.mul->getOperand(k.constIdx), m_ConstantInt(&kb)) ||
      kb.getSExtValue() <= 1)
    return fail("the induction variable is not multiplied by a constant"),
           done();
  k.kb = kb.getSExtValue();
  k.k0 = k.mul.getResult();
  for (Operation *u : k.k0.getUsers())
    if (!isa<CopyOp, arith::AddIOp>(u))
      return fail("k0 is used other than as a copy offset or k0 + index"),
             done();
  for (Operation &op : p.getBodyBlock().without_terminator())
    if (!step(op))
      return done();
  if (!matchRecurrence())
    return done();
  // Every region over keys was found through a key tile; key tiles hold
  // their keys at their recorded dimension only.
  return k;
}

/// What the kernel takes with its key blocks F times as deep: shared bytes
/// (the loop's tiles multi-buffered as the program asks), 32-bit fragment
/// words per thread (all, and the largest fragment's), and the largest key
/// fragment's bytes.
struct Footprint {
  int64_t shared = 0, words = 0, largestWords = 0, largestKeyFragment = 0;
};
Footprint footprint(KernelOp kernel, const KeyLoop &k, int64_t f) {
  PipelinedOp loop = k.loop;
  int64_t stages = std::max<int64_t>(1, loop.getNumStages());
  int64_t threads = std::max<int64_t>(1, kernel.getThreads());
  Footprint fp;
  kernel.walk([&](AllocOp a) {
    TileType t = a.getType();
    bool key = k.keyTiles.count(a.getResult());
    if (t.isShared()) {
      fp.shared += sharedTileBytes(t, 0) * (key ? f * stages : 1);
      return;
    }
    if (!t.isFragment())
      return;
    int64_t bytes =
        t.getNumElements() * elementBytes(t.getElementType()) * (key ? f : 1);
    int64_t w = (bytes + 4 * threads - 1) / (4 * threads);
    fp.words += w;
    fp.largestWords = std::max(fp.largestWords, w);
    if (key)
      fp.largestKeyFragment = std::max(fp.largestKeyFragment, bytes);
  });
  return fp;
}

bool fits(KernelOp kernel, const KeyLoop &k, int64_t f,
          const target::TargetDescription &t, std::string &why) {
  Footprint fp = footprint(kernel, k, f);
  std::string keys = std::to_string(k.kb * f) + " keys ";
  // Room for a fragment copy staged through shared memory.
  int64_t shared = fp.shared + fp.largestKeyFragment;
  if (t.sharedMemoryPerBlockOptin > 0 && shared > t.sharedMemoryPerBlockOptin) {
    PipelinedOp loop = k.loop;
    why = keys + "need " + std::to_string(shared / 1024) +
          " KiB of shared memory with " + std::to_string(loop.getNumStages()) +
          " stages, more than the " +
          std::to_string(t.sharedMemoryPerBlockOptin / 1024) +
          " KiB of target '" + t.name + "'";
    return false;
  }
  if (fp.words > kMaxKernelWordsPerThread ||
      fp.largestWords > kMaxFragmentWordsPerThread) {
    why = keys + "need " + std::to_string(fp.words) +
          " fragment words per thread (largest " +
          std::to_string(fp.largestWords) + "), more than " +
          std::to_string(kMaxKernelWordsPerThread) + " (" +
          std::to_string(kMaxFragmentWordsPerThread) + ")";
    return false;
  }
  return true;
}

void deepen(KeyLoop &k, int64_t f) {
  PipelinedOp p = k.loop;
  MLIRContext *ctx = p.getContext();
  OpBuilder b(p);
  Location loc = p.getLoc();
  Value lb = p.getLowerBound(), ub = p.getUpperBound();
  Value cKB = arith::ConstantIndexOp::create(b, loc, k.kb);
  Value cF = arith::ConstantIndexOp::create(b, loc, f);
  Value hi = arith::MulIOp::create(b, loc, ub, cKB);
  Value lo;
  if (!matchPattern(lb, m_Zero()))
    lo = arith::MulIOp::create(b, loc, lb, cKB);
  p->setOperand(0, arith::DivUIOp::create(b, loc, lb, cF));
  p->setOperand(1, arith::CeilDivUIOp::create(b, loc, ub, cF));
  b.setInsertionPoint(k.mul);
  k.mul->setOperand(k.constIdx,
                    arith::ConstantIndexOp::create(b, loc, k.kb * f));
  for (auto &[t, d] : k.keyTiles) {
    auto a = t.getDefiningOp<AllocOp>();
    TileType tt = a.getType();
    SmallVector<int64_t> shape(tt.getShape());
    shape[d] *= f;
    t.setType(TileType::get(ctx, shape, tt.getElementType(),
                            tt.getMemorySpace(), tt.getLayout()));
  }
  for (auto &[op, d] : k.regions) {
    auto par = cast<ParallelOp>(op);
    SmallVector<int64_t> shape(par.getShape());
    shape[d] *= f;
    par.setShape(shape);
  }
  // Keys outside [lb KB, ub KB): -inf scores (0 probabilities).
  auto mask = [&](StoreOp s, bool scores) {
    auto par = s->getParentOfType<ParallelOp>();
    Value jj = par.getBodyBlock().getArgument(k.regions.lookup(par));
    OpBuilder sb(s);
    Location l = s.getLoc();
    Value pos = arith::AddIOp::create(sb, l, k.k0, jj);
    Value in = arith::CmpIOp::create(sb, l, arith::CmpIPredicate::ult, pos, hi);
    if (lo)
      in = arith::AndIOp::create(
          sb, l, in,
          arith::CmpIOp::create(sb, l, arith::CmpIPredicate::uge, pos, lo));
    auto ft = cast<FloatType>(s.getValue().getType());
    APFloat fill = scores ? APFloat::getInf(ft.getFloatSemantics(), true)
                          : APFloat::getZero(ft.getFloatSemantics());
    Value fv = arith::ConstantFloatOp::create(sb, l, ft, fill);
    Value v = arith::SelectOp::create(sb, l, in, s.getValue(), fv);
    s.getValueMutable().assign(v);
  };
  mask(k.maskScores, true);
  if (k.maskProbabilities)
    mask(k.maskProbabilities, false);
  p->setAttr("tile.keys_from", b.getI64IntegerAttr(k.kb));
}

struct DeepenKeysPass : TargetPass<DeepenKeysPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeepenKeysPass)
  DeepenKeysPass() = default;
  DeepenKeysPass(const DeepenKeysPass &o) : TargetPass(o) {}
  StringRef getName() const override { return "TesseraDeepenKeys"; }
  StringRef getArgument() const override { return "tessera-deepen-keys"; }
  StringRef getDescription() const override {
    return "Deepen the key blocks of online-softmax loops to the target's "
           "key block where shared memory and registers allow (exact up to "
           "rounding)";
  }
  void runWithTarget(const target::TargetDescription &t) {
    const char *env = std::getenv("TESSERA_DEEPEN_KEYS");
    std::string e = env ? env : "";
    bool explain = e == "explain";
    int64_t target = t.softmaxKeyBlock;
    bool forced = false;
    if (!e.empty() && !explain) {
      char *end = nullptr;
      long n = std::strtol(e.c_str(), &end, 10);
      if (end && *end == 0 && n >= 0) {
        target = n;
        forced = true;
      }
    }
    if (target <= 0)
      return;
    for (KernelOp kernel : kernelsOf(getOperation())) {
      SmallVector<PipelinedOp> loops;
      kernel.walk([&](PipelinedOp p) { loops.push_back(p); });
      for (PipelinedOp p : loops) {
        if (p->hasAttr("tile.keys_from"))
          continue;
        std::string why;
        std::optional<KeyLoop> k = Analysis(p).run(why);
        if (!k) {
          if (explain)
            p.emitRemark() << "key blocks kept: " << why;
          continue;
        }
        // No deeper than S's rows or the head dimension (not forced): on an
        // H200 (2026-11-28) every kernel deepened past either ran 13-44%
        // slower (d64 attention to 128 keys, 64-row blocks), those within
        // both gained (GQA 64 -> 128 keys 1.15x, written with 32 keys 1.93x;
        // d256 cross 32 -> 64 keys 1.79x).
        int64_t most = target;
        std::string cap = "the target's " + std::to_string(target);
        if (!forced && k->rows > 0 && k->rows < most) {
          most = k->rows;
          cap = "S's " + std::to_string(k->rows) + " rows";
        }
        if (!forced && k->headDim > 0 && k->headDim < most) {
          most = k->headDim;
          cap = "the head dimension " + std::to_string(k->headDim);
        }
        int64_t f = 1;
        why = std::to_string(k->kb) + " keys already reach " + cap;
        while (k->kb * f * 2 <= most && fits(kernel, *k, f * 2, t, why))
          f *= 2;
        if (f == 1) {
          if (explain)
            p.emitRemark() << "key blocks of " << k->kb << " kept: " << why;
          continue;
        }
        deepen(*k, f);
        if (explain)
          p.emitRemark() << "key blocks " << k->kb << " -> " << k->kb * f;
      }
    }
  }
};

} // namespace

std::unique_ptr<Pass> createDeepenKeysPass(const std::string &target) {
  return makeTargetPass<DeepenKeysPass>(target);
}
void registerDeepenKeysPass() { PassRegistration<DeepenKeysPass>(); }

} // namespace tessera::passes
