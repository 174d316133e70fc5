//===- LowerTileToLoops.cpp - tile dialect to scf/memref for CPUs ---------===//

#include "LowerTileToLoops.h"
#include "TileLoweringUtils.h"

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace tessera::lowering;
namespace tile = tessera::tile;

namespace {

//===----------------------------------------------------------------------===//
// Function entry: unpack the argument slots
//===----------------------------------------------------------------------===//

LogicalResult rewriteFunction(tile::FuncOp f, const TypeConverter &converter) {
  OpBuilder b(f);
  Location loc = f.getLoc();
  MLIRContext *ctx = f.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto i64 = b.getI64Type();
  auto fnType = b.getFunctionType({ptrTy, i64, i64, i64}, {});
  auto fn = func::FuncOp::create(
      b, loc, (tessera::cpu::kKernelSymbolPrefix + f.getSymName()).str(),
      fnType);
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value slots = entry->getArgument(0);
  int64_t slot = 0;
  auto slotAddr = [&](int64_t s) -> Value {
    return LLVM::GEPOp::create(b, loc, ptrTy, i64, slots,
                               ArrayRef<LLVM::GEPArg>{(int32_t)s});
  };
  Block &old = f.getBody().front();
  unpackArgumentSlots(b, loc, old, converter, [&](Type t) -> Value {
    return LLVM::LoadOp::create(b, loc, t, slotAddr(slot++));
  });
  entry->getOperations().splice(entry->end(), old.getOperations());
  f.erase();
  return success();
}

//===----------------------------------------------------------------------===//
// Op patterns
//===----------------------------------------------------------------------===//

struct ReturnLowering : TilePattern<tile::ReturnOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ReturnOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<func::ReturnOp>(op);
    return success();
  }
};

struct KernelLowering : TilePattern<tile::KernelOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::KernelOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto fn = op->getParentOfType<func::FuncOp>();
    if (!fn)
      return rw.notifyMatchFailure(op, "kernel outside a lowered function");
    SmallVector<Value> blockIds;
    for (unsigned i = 0; i < op.getGrid().size(); ++i)
      blockIds.push_back(arith::IndexCastOp::create(
          rw, op.getLoc(), rw.getIndexType(), fn.getArgument(1 + i)));
    inlineKernel(rw, op, blockIds);
    return success();
  }
};

struct AllocLowering : TilePattern<tile::AllocOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AllocOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto type = cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    // Allocate once per block run, at function entry, whatever loop the
    // alloc sits in.
    auto fn = op->getParentOfType<func::FuncOp>();
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(&fn.getBody().front());
    Value buf = memref::AllocaOp::create(rw, op.getLoc(), type, ValueRange{},
                                         rw.getI64IntegerAttr(64));
    rw.replaceOp(op, buf);
    return success();
  }
};

/// Stores `value` into every element of `buf`.
void fillBuffer(OpBuilder &b, Location loc, Value buf, Value value) {
  auto type = cast<MemRefType>(buf.getType());
  loopNest(b, loc, type.getShape(),
           [&](OpBuilder &nb, Location l, ValueRange ivs) {
             memref::StoreOp::create(nb, l, value, buf, ivs);
           });
}

struct FillLowering : TilePattern<tile::FillOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::FillOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    fillBuffer(rw, op.getLoc(), a.getDst(), a.getValue());
    rw.eraseOp(op);
    return success();
  }
};

struct ClearLowering : TilePattern<tile::ClearOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ClearOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Type elem = tileTypeOf(op.getDst()).getElementType();
    fillBuffer(rw, op.getLoc(), a.getDst(), zeroOf(rw, op.getLoc(), elem));
    rw.eraseOp(op);
    return success();
  }
};

/// tile.copy: loop nests over the tile; global accesses are masked against
/// the tensor's sizes, with an unmasked fast path for interior tiles.
struct CopyLowering : TilePattern<tile::CopyOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::CopyOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    bool srcGlobal = isa<tile::GlobalTensorType>(op.getSrc().getType());
    bool dstGlobal = isa<tile::GlobalTensorType>(op.getDst().getType());
    Value src = a.getSrc(), dst = a.getDst();
    Type srcElem = cast<MemRefType>(src.getType()).getElementType();
    Type dstElem = cast<MemRefType>(dst.getType()).getElementType();
    bool transpose = op.getTranspose();

    if (!srcGlobal && !dstGlobal) {
      ArrayRef<int64_t> shape = tileTypeOf(op.getSrc()).getShape();
      loopNest(rw, loc, shape, [&](OpBuilder &b, Location l, ValueRange ivs) {
        SmallVector<Value> dIdx(ivs);
        if (transpose)
          std::swap(dIdx[0], dIdx[1]);
        Value v = memref::LoadOp::create(b, l, src, ivs);
        memref::StoreOp::create(b, l, convertScalar(b, l, v, dstElem), dst,
                                dIdx);
      });
      rw.eraseOp(op);
      return success();
    }

    Value global = srcGlobal ? src : dst;
    Value tileBuf = srcGlobal ? dst : src;
    ValueRange offsets = srcGlobal ? a.getSrcOffsets() : a.getDstOffsets();
    auto tileShape =
        tileTypeOf(srcGlobal ? op.getDst() : op.getSrc()).getShape();
    int64_t rank = cast<MemRefType>(global.getType()).getRank();
    int64_t r = tileShape.size();
    // The tile covers the tensor's last r dimensions (after transposition).
    SmallVector<int64_t> extent(rank, 1);
    for (int64_t k = 0; k < r; ++k)
      extent[rank - r + k] = tileShape[k];
    if (transpose)
      std::swap(extent[rank - 2], extent[rank - 1]);
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(memref::DimOp::create(rw, loc, global, d));

    // Interior test: offset + extent <= size in every dimension.
    SmallVector<Value> fits;
    for (int64_t d = 0; d < rank; ++d) {
      Value end =
          arith::AddIOp::create(rw, loc, offsets[d], idx(rw, loc, extent[d]));
      fits.push_back(arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::sle,
                                           end, dims[d]));
    }
    Value interior = andAll(rw, loc, fits);

    auto globalIndex = [&](OpBuilder &b, Location l, ValueRange ivs) {
      SmallVector<Value> g(offsets.begin(), offsets.end());
      SmallVector<Value> t(ivs);
      if (transpose)
        std::swap(t[0], t[1]);
      for (int64_t k = 0; k < r; ++k)
        g[rank - r + k] =
            arith::AddIOp::create(b, l, offsets[rank - r + k], t[k]);
      return g;
    };
    auto inBounds = [&](OpBuilder &b, Location l, ArrayRef<Value> g) {
      SmallVector<Value> conds;
      for (int64_t d = 0; d < rank; ++d) {
        conds.push_back(arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              g[d], dims[d]));
        conds.push_back(arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                              g[d], idx(b, l, 0)));
      }
      return andAll(b, l, conds);
    };
    auto emit = [&](OpBuilder &b, Location l, bool masked) {
      loopNest(
          b, l, tileShape, [&](OpBuilder &nb, Location ll, ValueRange ivs) {
            SmallVector<Value> g = globalIndex(nb, ll, ivs);
            if (srcGlobal) {
              Value v;
              if (!masked) {
                v = memref::LoadOp::create(nb, ll, global, g);
              } else {
                auto ifOp = scf::IfOp::create(
                    nb, ll, inBounds(nb, ll, g),
                    [&](OpBuilder &tb, Location tl) {
                      scf::YieldOp::create(tb, tl,
                                           ValueRange{memref::LoadOp::create(
                                               tb, tl, global, g)});
                    },
                    [&](OpBuilder &eb, Location el) {
                      scf::YieldOp::create(eb, el,
                                           ValueRange{zeroOf(eb, el, srcElem)});
                    });
                v = ifOp.getResult(0);
              }
              memref::StoreOp::create(nb, ll, convertScalar(nb, ll, v, dstElem),
                                      tileBuf, ivs);
            } else {
              auto store = [&](OpBuilder &sb, Location sl) {
                Value v = memref::LoadOp::create(sb, sl, tileBuf, ivs);
                memref::StoreOp::create(
                    sb, sl, convertScalar(sb, sl, v, dstElem), global, g);
              };
              if (!masked) {
                store(nb, ll);
              } else {
                auto ifOp = scf::IfOp::create(nb, ll, inBounds(nb, ll, g),
                                              /*withElseRegion=*/false);
                OpBuilder tb = ifOp.getThenBodyBuilder();
                store(tb, ll);
              }
            }
          });
    };
    scf::IfOp::create(
        rw, loc, interior,
        [&](OpBuilder &b, Location l) {
          emit(b, l, /*masked=*/false);
          scf::YieldOp::create(b, l);
        },
        [&](OpBuilder &b, Location l) {
          emit(b, l, /*masked=*/true);
          scf::YieldOp::create(b, l);
        });
    rw.eraseOp(op);
    return success();
  }
};

/// tile.gemm: for f32 accumulation with float inputs, a register-blocked
/// micro-kernel (below); otherwise i-k-j loops whose innermost loop streams
/// rows of B and C (vectorizable), with multiply-adds allowed to contract
/// into FMAs. Both stream rows of B, so a transposed B (stored N x K) is
/// first packed into a K x N scratch tile: O(K*N) moves against O(M*N*K)
/// multiply-adds, where reading B^T in place would stride by K on every
/// element of the innermost loop (~16x slower for an f32 linear layer). A
/// transposed A needs nothing: both paths read A one element at a time.
struct GemmLowering : TilePattern<tile::GemmOp> {
  using TilePattern::TilePattern;

  /// Rows and columns of C one micro-kernel step keeps in registers: 4 rows
  /// of vector<32xf32> are 8 zmm (AVX-512) or 16 ymm (AVX2) accumulators,
  /// enough independent FMA chains to hide the FMA latency. (8 rows, 16 zmm,
  /// measured no faster on Zen 4: the kernel is at the FMA peak once the
  /// tiles sit in L1/L2, and AVX2 would spill.)
  static constexpr int64_t kMR = 4, kNR = 32;

  /// C[i0:i0+mr, j0:j0+NR] += A[i0:i0+mr, :] * B[:, j0:j0+NR] with the mr
  /// accumulator vectors carried through the K loop (K innermost): per k,
  /// one vector load of a B row, mr broadcasts of A elements and mr FMAs.
  /// f16/bf16 inputs are widened to f32 on load.
  static void emitBlock(OpBuilder &b, Location l, tile::GemmOp op, Value A,
                        Value B, Value C, Value i0, int64_t mr, Value j0,
                        int64_t k) {
    Type acc = tileTypeOf(op.getC()).getElementType();
    Type bElem = cast<MemRefType>(B.getType()).getElementType();
    bool transA = op.getTransposeA();
    auto accVec = VectorType::get({kNR}, acc);
    auto bVec = VectorType::get({kNR}, bElem);
    SmallVector<Value> rows, init;
    for (int64_t r = 0; r < mr; ++r) {
      rows.push_back(arith::AddIOp::create(b, l, i0, idx(b, l, r)));
      init.push_back(
          vector::LoadOp::create(b, l, accVec, C, ValueRange{rows[r], j0}));
    }
    auto kLoop = scf::ForOp::create(
        b, l, idx(b, l, 0), idx(b, l, k), idx(b, l, 1), init,
        [&](OpBuilder &kb, Location kl, Value kk, ValueRange accs) {
          Value bv =
              vector::LoadOp::create(kb, kl, bVec, B, ValueRange{kk, j0});
          if (isF8(bElem))
            bv = decodeF8(kb, kl, bv); // f8 widened on load, to f32
          else if (bElem != acc)
            bv = arith::ExtFOp::create(kb, kl, accVec, bv);
          SmallVector<Value> next;
          for (int64_t r = 0; r < mr; ++r) {
            SmallVector<Value> aIdx = {rows[r], kk};
            if (transA)
              std::swap(aIdx[0], aIdx[1]);
            Value av = convertScalar(
                kb, kl, memref::LoadOp::create(kb, kl, A, aIdx), acc);
            Value splat = vector::BroadcastOp::create(kb, kl, accVec, av);
            next.push_back(vector::FMAOp::create(kb, kl, splat, bv, accs[r]));
          }
          scf::YieldOp::create(kb, kl, next);
        });
    for (int64_t r = 0; r < mr; ++r)
      vector::StoreOp::create(b, l, kLoop.getResult(r), C,
                              ValueRange{rows[r], j0});
  }

  /// The micro-kernel over the whole C tile: MR x NR blocks, row blocks
  /// outer (the MR rows of A stay in L1 while B's tile streams past),
  /// plus one block of m % MR rows when MR does not divide m. Applies when
  /// C's columns divide into NR-wide panels and everything accumulates in
  /// f32 from float inputs; fails (emitting nothing) else. `B` is K x N
  /// (a transposed B arrives packed).
  static LogicalResult emitMicroKernel(OpBuilder &rw, Location loc,
                                       tile::GemmOp op, Value A, Value B,
                                       Value C, int64_t m, int64_t n,
                                       int64_t k) {
    Type acc = tileTypeOf(op.getC()).getElementType();
    Type aElem = tileTypeOf(op.getA()).getElementType();
    Type bElem = tileTypeOf(op.getB()).getElementType();
    if (!acc.isF32() || !isa<FloatType>(aElem) || !isa<FloatType>(bElem) ||
        aElem.getIntOrFloatBitWidth() > 32 ||
        bElem.getIntOrFloatBitWidth() > 32 || m < 1 || n % kNR != 0 || k < 1)
      return failure();
    int64_t fullBlocks = m / kMR, tail = m % kMR;
    if (fullBlocks > 0)
      loopNest(rw, loc, {fullBlocks, n / kNR},
               [&](OpBuilder &b, Location l, ValueRange blk) {
                 Value i0 = arith::MulIOp::create(b, l, blk[0], idx(b, l, kMR));
                 Value j0 = arith::MulIOp::create(b, l, blk[1], idx(b, l, kNR));
                 emitBlock(b, l, op, A, B, C, i0, kMR, j0, k);
               });
    if (tail > 0)
      loopNest(rw, loc, {n / kNR},
               [&](OpBuilder &b, Location l, ValueRange blk) {
                 Value j0 = arith::MulIOp::create(b, l, blk[0], idx(b, l, kNR));
                 emitBlock(b, l, op, A, B, C, idx(b, l, fullBlocks * kMR), tail,
                           j0, k);
               });
    return success();
  }

  /// Copies `bt` (N x K, the stored form of a transposed B) into a fresh
  /// K x N scratch tile, allocated once at function entry like tile.alloc,
  /// and returns it. Loops run in blocks of NR columns of the result so that
  /// each block reads NR rows of `bt` (contiguous, K elements each) while
  /// writing K rows of NR contiguous elements: both sides stay in L1.
  static Value packTransposed(ConversionPatternRewriter &rw, tile::GemmOp op,
                              Value bt) {
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(bt.getType());
    int64_t n = type.getShape()[0], k = type.getShape()[1];
    auto packedType = MemRefType::get({k, n}, type.getElementType());
    Value packed;
    {
      OpBuilder::InsertionGuard g(rw);
      auto fn = op->getParentOfType<func::FuncOp>();
      rw.setInsertionPointToStart(&fn.getBody().front());
      packed = memref::AllocaOp::create(rw, loc, packedType, ValueRange{},
                                        rw.getI64IntegerAttr(64));
    }
    int64_t block = n % kNR == 0 ? kNR : 1;
    loopNest(
        rw, loc, {n / block, k}, [&](OpBuilder &b, Location l, ValueRange jk) {
          Value j0 = arith::MulIOp::create(b, l, jk[0], idx(b, l, block));
          loopNest(
              b, l, {block}, [&](OpBuilder &ib, Location il, ValueRange jj) {
                Value j = arith::AddIOp::create(ib, il, j0, jj[0]);
                Value v =
                    memref::LoadOp::create(ib, il, bt, ValueRange{j, jk[1]});
                memref::StoreOp::create(ib, il, v, packed,
                                        ValueRange{jk[1], j});
              });
        });
    return packed;
  }

  LogicalResult matchAndRewrite(tile::GemmOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto at = tileTypeOf(op.getA()), bt = tileTypeOf(op.getB());
    auto ct = tileTypeOf(op.getC());
    Type acc = ct.getElementType();
    if (!acc.isF32() && !acc.isF16() && !acc.isInteger(32))
      return op.emitOpError("the cpu backend has no gemm accumulating in ")
             << acc;
    // fp8 inputs (f8E4M3FN, f8E5M2) are decoded to f32 on load
    // (convertScalar / decodeF8) and accumulate in f32.
    (void)bt;
    int64_t m = ct.getShape()[0], n = ct.getShape()[1];
    int64_t k = op.getTransposeA() ? at.getShape()[0] : at.getShape()[1];
    Value A = a.getA(), B = a.getB(), C = a.getC();
    if (op.getClear())
      fillBuffer(rw, loc, C, zeroOf(rw, loc, acc));
    if (op.getTransposeB())
      B = packTransposed(rw, op, B);
    bool isFloat = isa<FloatType>(acc);
    if (succeeded(emitMicroKernel(rw, loc, op, A, B, C, m, n, k))) {
      rw.eraseOp(op);
      return success();
    }
    auto fm = arith::FastMathFlagsAttr::get(rw.getContext(),
                                            arith::FastMathFlags::contract);
    loopNest(rw, loc, {m, k}, [&](OpBuilder &b, Location l, ValueRange ik) {
      Value i = ik[0], kk = ik[1];
      SmallVector<Value> aIdx = {i, kk};
      if (op.getTransposeA())
        std::swap(aIdx[0], aIdx[1]);
      Value av =
          convertScalar(b, l, memref::LoadOp::create(b, l, A, aIdx), acc);
      loopNest(b, l, {n}, [&](OpBuilder &ib, Location il, ValueRange js) {
        Value j = js[0];
        Value bv = convertScalar(
            ib, il, memref::LoadOp::create(ib, il, B, ValueRange{kk, j}), acc);
        Value cv = memref::LoadOp::create(ib, il, C, ValueRange{i, j});
        Value sum;
        if (isFloat) {
          Value prod = arith::MulFOp::create(ib, il, av, bv, fm);
          sum = arith::AddFOp::create(ib, il, cv, prod, fm);
        } else {
          Value prod = arith::MulIOp::create(ib, il, av, bv);
          sum = arith::AddIOp::create(ib, il, cv, prod);
        }
        memref::StoreOp::create(ib, il, sum, C, ValueRange{i, j});
      });
    });
    rw.eraseOp(op);
    return success();
  }
};

struct ParallelLowering : TilePattern<tile::ParallelOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ParallelOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t d : op.getShape()) {
      lbs.push_back(idx(rw, loc, 0));
      ubs.push_back(idx(rw, loc, d));
      steps.push_back(idx(rw, loc, 1));
    }
    scf::LoopNest nest = scf::buildLoopNest(rw, loc, lbs, ubs, steps);
    SmallVector<Value> ivs;
    for (scf::ForOp f : nest.loops)
      ivs.push_back(f.getInductionVar());
    Block *inner = nest.loops.back().getBody();
    inlineBody(rw, op.getBodyBlock(), inner->getTerminator(), ivs);
    rw.eraseOp(op);
    return success();
  }
};

/// Host sums may reassociate (and contract), so they vectorize.
constexpr arith::FastMathFlags kReduceSumFlags =
    arith::FastMathFlags::reassoc | arith::FastMathFlags::contract;

struct ReduceLowering : TilePattern<tile::ReduceOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ReduceOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto st = tileTypeOf(op.getSrc());
    int64_t dim = op.getDim();
    SmallVector<int64_t> outer(st.getShape());
    int64_t len = outer[dim];
    outer.erase(outer.begin() + dim);
    Type elem = st.getElementType();
    tile::ReduceKind kind = op.getKind();
    Value src = a.getSrc(), dst = a.getDst();
    bool accumulate = op.getAccumulate();
    loopNest(rw, loc, outer, [&](OpBuilder &b, Location l, ValueRange ivs) {
      Value init = accumulate ? (Value)memref::LoadOp::create(b, l, dst, ivs)
                              : reduceIdentity(b, l, kind, elem);
      auto loop = scf::ForOp::create(
          b, l, idx(b, l, 0), idx(b, l, len), idx(b, l, 1), ValueRange{init},
          [&](OpBuilder &lb, Location ll, Value r, ValueRange iter) {
            SmallVector<Value> sIdx(ivs);
            sIdx.insert(sIdx.begin() + dim, r);
            Value v = memref::LoadOp::create(lb, ll, src, sIdx);
            scf::YieldOp::create(
                lb, ll,
                combineReduce(lb, ll, kind, iter[0], v, kReduceSumFlags));
          });
      memref::StoreOp::create(b, l, loop.getResult(0), dst, ivs);
    });
    rw.eraseOp(op);
    return success();
  }
};

struct AtomicLowering : TilePattern<tile::AtomicOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AtomicOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto st = tileTypeOf(op.getSrc());
    Value src = a.getSrc(), global = a.getDst();
    ValueRange offsets = a.getOffsets();
    int64_t rank = cast<MemRefType>(global.getType()).getRank();
    int64_t r = st.getRank();
    Type elem = st.getElementType();
    bool isFloat = isa<FloatType>(elem);
    arith::AtomicRMWKind kind = op.getKind() == tile::AtomicKind::Add
                                    ? (isFloat ? arith::AtomicRMWKind::addf
                                               : arith::AtomicRMWKind::addi)
                                    : (isFloat ? arith::AtomicRMWKind::maximumf
                                               : arith::AtomicRMWKind::maxs);
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(memref::DimOp::create(rw, loc, global, d));
    loopNest(rw, loc, st.getShape(),
             [&](OpBuilder &b, Location l, ValueRange ivs) {
               SmallVector<Value> g(offsets.begin(), offsets.end());
               for (int64_t k = 0; k < r; ++k)
                 g[rank - r + k] =
                     arith::AddIOp::create(b, l, offsets[rank - r + k], ivs[k]);
               SmallVector<Value> conds;
               for (int64_t d = 0; d < rank; ++d) {
                 conds.push_back(arith::CmpIOp::create(
                     b, l, arith::CmpIPredicate::slt, g[d], dims[d]));
                 conds.push_back(arith::CmpIOp::create(
                     b, l, arith::CmpIPredicate::sge, g[d], idx(b, l, 0)));
               }
               auto ifOp = scf::IfOp::create(b, l, andAll(b, l, conds), false);
               OpBuilder tb = ifOp.getThenBodyBuilder();
               Value v = memref::LoadOp::create(tb, l, src, ivs);
               memref::AtomicRMWOp::create(tb, l, kind, v, global, g);
             });
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

LogicalResult tessera::cpu::lowerTileToLoops(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<func::FuncDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect, LLVM::LLVMDialect,
                   vector::VectorDialect>();
  TileTypeConverter converter;
  for (auto f : llvm::make_early_inc_range(module.getOps<tile::FuncOp>())) {
    if (f.isExternal())
      return f.emitOpError("has no body to compile");
    if (failed(rewriteFunction(f, converter)))
      return failure();
  }

  ConversionTarget target(*ctx);
  target.addIllegalDialect<tile::TileDialect>();
  target
      .addLegalDialect<func::FuncDialect, memref::MemRefDialect,
                       scf::SCFDialect, arith::ArithDialect, math::MathDialect,
                       LLVM::LLVMDialect, vector::VectorDialect>();
  target.addLegalOp<UnrealizedConversionCastOp>();
  RewritePatternSet patterns(ctx);
  patterns.add<ReturnLowering, KernelLowering, AllocLowering, FillLowering,
               ClearLowering, CopyLowering, GemmLowering, ParallelLowering,
               ReduceLowering, AtomicLowering>(converter, ctx);
  populateCommonTilePatterns(converter, patterns);
  return applyPartialConversion(module, target, std::move(patterns));
}
