//===- LowerTileToGpu.cpp - tile dialect to gpu/scf/memref (SIMT path) ----===//
//
// The general, always-correct lowering of the cuda backend. Every tile op is
// a block-wide loop over the tile's elements (element e goes to thread
// e mod threads), followed by a barrier, so no op needs to know how another
// op distributed its elements. Shared and fragment tiles are views into the
// kernel's dynamic shared memory; `local` tiles are per-thread arrays that
// each thread processes whole. Global accesses are masked element-wise.
// Reductions give each output element to one warp (lanes stride the reduced
// dimension, then a butterfly of shuffles).
//
// Layout attributes (`#tile.layout`) are accepted and ignored here: this
// path is layout-agnostic by construction; the fast paths consume them.
//
//===----------------------------------------------------------------------===//

#include "LowerTileToGpu.h"
#include "AttentionFastPath.h"
#include "CudaTargetHooks.h"
#include "GemmFastPath.h"
#include "TileLoweringUtils.h"

#include "tessera/Passes/Distribute.h"
#include "tessera/Passes/Passes.h"

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
using namespace tessera::lowering;
namespace tile = tessera::tile;

namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kSmemAlign = 128;
constexpr llvm::StringLiteral kSmemOffsetAttr = "tessera.smem_offset";
constexpr llvm::StringLiteral kThreadsAttr = "tessera.threads";

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// The block's thread count, recorded on the gpu.func.
int64_t threadsOf(Operation *op) {
  auto fn = op->getParentOfType<gpu::GPUFuncOp>();
  return cast<IntegerAttr>(fn->getAttr(kThreadsAttr)).getInt();
}

Value threadId(OpBuilder &b, Location loc) {
  return gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
}

/// Runs `body` for every element index of `shape`: spread over the block's
/// threads when `distributed`, else every thread visits all of them.
void forEachElement(
    OpBuilder &b, Location loc, ArrayRef<int64_t> shape, bool distributed,
    int64_t threads,
    function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  int64_t total = numElements(shape);
  Value lb = distributed ? threadId(b, loc) : idx(b, loc, 0);
  Value step = idx(b, loc, distributed ? threads : 1);
  SmallVector<int64_t> shapeCopy(shape);
  scf::ForOp::create(b, loc, lb, idx(b, loc, total), step, ValueRange{},
                     [&](OpBuilder &nb, Location l, Value e, ValueRange) {
                       SmallVector<Value> ivs(shapeCopy.size());
                       Value rest = e;
                       for (int64_t d = shapeCopy.size() - 1; d >= 0; --d) {
                         if (d == 0) {
                           ivs[d] = rest;
                           break;
                         }
                         Value size = idx(nb, l, shapeCopy[d]);
                         ivs[d] = arith::RemUIOp::create(nb, l, rest, size);
                         rest = arith::DivUIOp::create(nb, l, rest, size);
                       }
                       body(nb, l, ivs);
                       scf::YieldOp::create(nb, l);
                     });
}

void barrier(OpBuilder &b, Location loc) { gpu::BarrierOp::create(b, loc); }

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Attribute workgroupSpace(MLIRContext *ctx) {
  return gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
}

/// Shared and fragment tiles live in workgroup memory, `local` tiles are
/// per-thread arrays.
Attribute tileMemorySpace(tile::TileType t) {
  return t.isLocal() ? Attribute() : workgroupSpace(t.getContext());
}

//===----------------------------------------------------------------------===//
// Function entry: the kernel's parameters are the runtime's slots
//===----------------------------------------------------------------------===//

/// Places every shared/fragment alloc of `f` at an offset in dynamic shared
/// memory (no reuse yet: the core planner will provide lifetimes). Returns
/// the total size in bytes.
int64_t planSharedMemory(Operation *f, int64_t start) {
  int64_t offset = start;
  f->walk([&](tile::AllocOp alloc) {
    auto t = cast<tile::TileType>(alloc.getType());
    if (t.isLocal())
      return;
    int64_t bits = t.getElementType().getIntOrFloatBitWidth();
    if (t.getElementType().isIndex())
      bits = 64;
    int64_t bytes = (numElements(t.getShape()) * bits + 7) / 8;
    offset = llvm::alignTo(offset, kSmemAlign);
    alloc->setAttr(kSmemOffsetAttr,
                   IntegerAttr::get(IndexType::get(f->getContext()), offset));
    offset += bytes;
  });
  return offset;
}

/// Moves `f`'s body into a new gpu.func `tessera_kernel_<name>` of
/// `gpuModule` whose parameters are the runtime's slots, and erases `f`.
gpu::GPUFuncOp createKernelFunction(tile::FuncOp f, gpu::GPUModuleOp gpuModule,
                                    const TypeConverter &converter) {
  MLIRContext *ctx = f.getContext();
  Location loc = f.getLoc();
  tile::KernelOp kernel;
  f.walk([&](tile::KernelOp k) { kernel = k; });
  if (!kernel) {
    f.emitOpError("launches no tile.kernel");
    return {};
  }
  // Parameter list: the slots.
  SmallVector<Type> params;
  Block &old = f.getBody().front();
  for (BlockArgument arg : old.getArguments())
    appendSlotTypes(arg.getType(), params);
  OpBuilder b(gpuModule.getBodyRegion());
  b.setInsertionPointToEnd(&gpuModule.getBodyRegion().front());
  auto fn = gpu::GPUFuncOp::create(
      b, loc, (tessera::cuda::kKernelSymbolPrefix + f.getSymName()).str(),
      b.getFunctionType(params, {}));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int64_t threads = kernel.getThreads();
  fn.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {(int32_t)threads, 1, 1}));
  fn->setAttr(kThreadsAttr, b.getI64IntegerAttr(threads));

  Block *entry = &fn.getBody().front();
  b.setInsertionPointToStart(entry);
  unsigned p = 0;
  unpackArgumentSlots(b, loc, old, converter,
                      [&](Type) -> Value { return entry->getArgument(p++); });
  entry->getOperations().splice(entry->end(), old.getOperations());
  f.erase();
  return fn;
}

/// The descriptor global of a kernel with TMA copies (LowerTileToGpu.h):
/// its tensor maps and what its twin without TMA needs to launch.
void addTensorMapDescriptor(
    gpu::GPUFuncOp fn, ArrayRef<tessera::cuda::CudaTargetHooks::TensorMap> maps,
    int64_t twinThreads, int64_t twinShared) {
  OpBuilder b(fn);
  b.setInsertionPointAfter(fn);
  SmallVector<int32_t> words = {(int32_t)tessera::cuda::kTmaMagic,
                                (int32_t)maps.size(), (int32_t)twinThreads,
                                (int32_t)twinShared};
  for (const auto &m : maps) {
    // CU_TENSOR_MAP_DATA_TYPE_UINT8/16/32/64: a copy moves bytes.
    int32_t dtype = m.elemBytes == 1   ? 0
                    : m.elemBytes == 2 ? 1
                    : m.elemBytes == 4 ? 2
                                       : 4;
    words.append({(int32_t)m.slot, (int32_t)m.rank, dtype, (int32_t)m.elemBytes,
                  (int32_t)m.swizzle,
                  /*L2 promotion 128B*/ 2});
    for (int64_t d : m.box)
      words.push_back((int32_t)d);
    words.push_back(0);
  }
  auto arrTy = LLVM::LLVMArrayType::get(b.getI32Type(), words.size());
  LLVM::GlobalOp::create(
      b, fn.getLoc(), arrTy, /*isConstant=*/true, LLVM::Linkage::External,
      (tessera::cuda::kTmaGlobalPrefix + fn.getName()).str(),
      DenseIntElementsAttr::get(
          RankedTensorType::get({(int64_t)words.size()}, b.getI32Type()),
          ArrayRef<int32_t>(words)),
      /*alignment=*/4, /*addrSpace=*/1);
}

/// Tries the whole-kernel fast paths (retired as the distribution catches up
/// with them) on `f`. When one matches, `matched` is set, the kernel is in
/// `gpuModule` and `sharedBytes` holds its dynamic shared memory; otherwise
/// nothing was added.
LogicalResult tryFastPath(tile::FuncOp f, gpu::GPUModuleOp gpuModule,
                          const TypeConverter &converter, StringRef chip,
                          int64_t &sharedBytes, bool &matched) {
  MLIRContext *ctx = f.getContext();
  Location loc = f.getLoc();
  matched = false;
  gpu::GPUFuncOp fn = createKernelFunction(f, gpuModule, converter);
  if (!fn)
    return failure();
  OpBuilder b(fn);
  // sm_90a: the TMA + wgmma kernel for the canonical GEMM, plus the mma.sync
  // kernel `<symbol>__fallback` that the runtime launches instead where a
  // tensor map cannot describe the operands (row pitch or base address not
  // 16-byte aligned). The descriptor global `tessera_tma_<symbol>` tells
  // the runtime which tensor maps to build (docs/backends/cuda.md).
  if (chip == "sm_90a") {
    b.setInsertionPointAfter(fn);
    auto fallback = cast<gpu::GPUFuncOp>(b.clone(*fn.getOperation()));
    fallback.setName((fn.getName() + tessera::cuda::kFallbackSuffix).str());
    tessera::cuda::Sm90Gemm g;
    if (tessera::cuda::lowerCanonicalGemmSm90(fn, g)) {
      int64_t fbBytes = tessera::cuda::lowerCanonicalGemm(fallback, chip);
      // fp8 has no mma.sync kernel here: its fallback is the SIMT path.
      if (fbBytes == 0 && g.fp8)
        fbBytes = planSharedMemory(fallback, 0);
      if (fbBytes == 0)
        return fn.emitOpError("internal: the fallback of the wgmma kernel "
                              "does not match the mma.sync path");
      fn.setKnownBlockSizeAttr(
          DenseI32ArrayAttr::get(ctx, {(int32_t)g.threads, 1, 1}));
      fn->setAttr(kThreadsAttr, b.getI64IntegerAttr(g.threads));
      fn->setAttr("tessera.threads_override", b.getI64IntegerAttr(g.threads));
      fallback->setAttr("tessera.shared_bytes", b.getI64IntegerAttr(fbBytes));
      int64_t elemBytes = g.fp8 ? 1 : 2;
      auto mapOf = [&](int64_t slot, const int64_t box[2]) {
        tessera::cuda::CudaTargetHooks::TensorMap m;
        m.slot = slot;
        m.rank = 2;
        m.elemBytes = elemBytes;
        m.swizzle = 3; // 128 bytes
        m.box[0] = box[0];
        m.box[1] = box[1];
        return m;
      };
      addTensorMapDescriptor(
          fn, {mapOf(g.aSlot, g.boxA), mapOf(g.bSlot, g.boxB)}, 128, fbBytes);
      sharedBytes = planSharedMemory(fn, g.sharedBytes);
      fn->setAttr("tessera.shared_bytes", b.getI64IntegerAttr(sharedBytes));
      matched = true;
      return success();
    }
    fallback->erase();
  }
  // Tensor-core kernel for the canonical GEMM, then the remaining tile ops
  // (element-wise) after its buffers.
  int64_t fastBytes = tessera::cuda::lowerCanonicalAttention(fn, chip);
  if (fastBytes == 0)
    fastBytes = tessera::cuda::lowerCanonicalGemm(fn, chip);
  if (fastBytes == 0) {
    fn.erase();
    return success();
  }
  matched = true;
  sharedBytes = planSharedMemory(fn, fastBytes);
  fn->setAttr("tessera.shared_bytes", b.getI64IntegerAttr(sharedBytes));
  return success();
}

//===----------------------------------------------------------------------===//
// Op patterns
//===----------------------------------------------------------------------===//

struct ReturnLowering : TilePattern<tile::ReturnOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ReturnOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<gpu::ReturnOp>(op);
    return success();
  }
};

struct KernelLowering : TilePattern<tile::KernelOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::KernelOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    static const gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                                          gpu::Dimension::z};
    SmallVector<Value> blockIds;
    for (unsigned i = 0; i < op.getGrid().size(); ++i)
      blockIds.push_back(gpu::BlockIdOp::create(rw, op.getLoc(), dims[i]));
    inlineKernel(rw, op, blockIds);
    return success();
  }
};

struct AllocLowering : TilePattern<tile::AllocOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::AllocOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    auto type = cast<MemRefType>(getTypeConverter()->convertType(op.getType()));
    auto fn = op->getParentOfType<gpu::GPUFuncOp>();
    OpBuilder::InsertionGuard g(rw);
    rw.setInsertionPointToStart(&fn.getBody().front());
    Location loc = op.getLoc();
    Value buf;
    if (auto off = op->getAttrOfType<IntegerAttr>(kSmemOffsetAttr)) {
      auto bytesTy = MemRefType::get(
          {ShapedType::kDynamic}, rw.getIntegerType(8),
          MemRefLayoutAttrInterface{}, workgroupSpace(rw.getContext()));
      Value base = gpu::DynamicSharedMemoryOp::create(rw, loc, bytesTy);
      buf = memref::ViewOp::create(rw, loc, type, base,
                                   idx(rw, loc, off.getInt()), ValueRange{});
    } else {
      buf = memref::AllocaOp::create(rw, loc, type);
    }
    rw.replaceOp(op, buf);
    return success();
  }
};

void fillTile(OpBuilder &b, Location loc, tile::TileType t, Value buf,
              Value value, int64_t threads) {
  forEachElement(b, loc, t.getShape(), !t.isLocal(), threads,
                 [&](OpBuilder &nb, Location l, ValueRange ivs) {
                   memref::StoreOp::create(nb, l, value, buf, ivs);
                 });
  if (!t.isLocal())
    barrier(b, loc);
}

struct FillLowering : TilePattern<tile::FillOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::FillOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    fillTile(rw, op.getLoc(), tileTypeOf(op.getDst()), a.getDst(), a.getValue(),
             threadsOf(op));
    rw.eraseOp(op);
    return success();
  }
};

struct ClearLowering : TilePattern<tile::ClearOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ClearOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    auto t = tileTypeOf(op.getDst());
    fillTile(rw, op.getLoc(), t, a.getDst(),
             zeroOf(rw, op.getLoc(), t.getElementType()), threadsOf(op));
    rw.eraseOp(op);
    return success();
  }
};

struct CopyLowering : TilePattern<tile::CopyOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::CopyOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    int64_t threads = threadsOf(op);
    bool srcGlobal = isa<tile::GlobalTensorType>(op.getSrc().getType());
    bool dstGlobal = isa<tile::GlobalTensorType>(op.getDst().getType());
    Value src = a.getSrc(), dst = a.getDst();
    Type srcElem = cast<MemRefType>(src.getType()).getElementType();
    Type dstElem = cast<MemRefType>(dst.getType()).getElementType();
    bool transpose = op.getTranspose();

    if (!srcGlobal && !dstGlobal) {
      auto st = tileTypeOf(op.getSrc()), dt = tileTypeOf(op.getDst());
      bool distributed = !st.isLocal() && !dt.isLocal();
      forEachElement(rw, loc, st.getShape(), distributed, threads,
                     [&](OpBuilder &b, Location l, ValueRange ivs) {
                       SmallVector<Value> dIdx(ivs);
                       if (transpose)
                         std::swap(dIdx[0], dIdx[1]);
                       Value v = memref::LoadOp::create(b, l, src, ivs);
                       memref::StoreOp::create(
                           b, l, convertScalar(b, l, v, dstElem), dst, dIdx);
                     });
      if (distributed)
        barrier(rw, loc);
      rw.eraseOp(op);
      return success();
    }

    Value global = srcGlobal ? src : dst;
    Value tileBuf = srcGlobal ? dst : src;
    ValueRange offsets = srcGlobal ? a.getSrcOffsets() : a.getDstOffsets();
    auto tt = tileTypeOf(srcGlobal ? op.getDst() : op.getSrc());
    ArrayRef<int64_t> tileShape = tt.getShape();
    bool distributed = !tt.isLocal();
    int64_t rank = cast<MemRefType>(global.getType()).getRank();
    int64_t r = tileShape.size();
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(memref::DimOp::create(rw, loc, global, d));

    forEachElement(
        rw, loc, tileShape, distributed, threads,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> g(offsets.begin(), offsets.end());
          SmallVector<Value> t(ivs);
          if (transpose)
            std::swap(t[0], t[1]);
          for (int64_t k = 0; k < r; ++k)
            g[rank - r + k] =
                arith::AddIOp::create(b, l, offsets[rank - r + k], t[k]);
          // Unsigned compares reject negative offsets too.
          SmallVector<Value> conds;
          for (int64_t d = 0; d < rank; ++d)
            conds.push_back(arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::ult, g[d], dims[d]));
          Value inside = andAll(b, l, conds);
          if (srcGlobal) {
            auto ifOp = scf::IfOp::create(
                b, l, inside,
                [&](OpBuilder &tb, Location tl) {
                  scf::YieldOp::create(
                      tb, tl,
                      ValueRange{memref::LoadOp::create(tb, tl, global, g)});
                },
                [&](OpBuilder &eb, Location el) {
                  scf::YieldOp::create(eb, el,
                                       ValueRange{zeroOf(eb, el, srcElem)});
                });
            memref::StoreOp::create(
                b, l, convertScalar(b, l, ifOp.getResult(0), dstElem), tileBuf,
                ivs);
          } else {
            auto ifOp =
                scf::IfOp::create(b, l, inside, /*withElseRegion=*/false);
            OpBuilder tb = ifOp.getThenBodyBuilder();
            Value v = memref::LoadOp::create(tb, l, tileBuf, ivs);
            memref::StoreOp::create(tb, l, convertScalar(tb, l, v, dstElem),
                                    global, g);
          }
        });
    if (distributed)
      barrier(rw, loc);
    rw.eraseOp(op);
    return success();
  }
};

/// tile.gemm on the SIMT path: each thread owns C elements and walks K.
struct GemmLowering : TilePattern<tile::GemmOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::GemmOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    auto at = tileTypeOf(op.getA()), bt = tileTypeOf(op.getB());
    (void)bt;
    auto ct = tileTypeOf(op.getC());
    Type acc = ct.getElementType();
    // fp8 inputs decode to f32 on load (decodeF8): correct on every chip,
    // at SIMT speed; the sm_90a fast path uses fp8 wgmma instead.
    int64_t k = op.getTransposeA() ? at.getShape()[0] : at.getShape()[1];
    Value A = a.getA(), B = a.getB(), C = a.getC();
    bool clear = op.getClear();
    bool transA = op.getTransposeA(), transB = op.getTransposeB();
    bool isFloat = isa<FloatType>(acc);
    // Products in f32 for f16 accumulators, as the tensor cores do.
    Type sumTy = acc.isF16() ? rw.getF32Type() : acc;
    auto fm = arith::FastMathFlagsAttr::get(rw.getContext(),
                                            arith::FastMathFlags::contract);
    bool distributed = !ct.isLocal();
    forEachElement(
        rw, loc, ct.getShape(), distributed, threadsOf(op),
        [&](OpBuilder &b, Location l, ValueRange ij) {
          Value init =
              clear ? zeroOf(b, l, sumTy)
                    : convertScalar(b, l, memref::LoadOp::create(b, l, C, ij),
                                    sumTy);
          auto loop = scf::ForOp::create(
              b, l, idx(b, l, 0), idx(b, l, k), idx(b, l, 1), ValueRange{init},
              [&](OpBuilder &lb, Location ll, Value kk, ValueRange iter) {
                SmallVector<Value> aIdx = {ij[0], kk}, bIdx = {kk, ij[1]};
                if (transA)
                  std::swap(aIdx[0], aIdx[1]);
                if (transB)
                  std::swap(bIdx[0], bIdx[1]);
                Value av = convertScalar(
                    lb, ll, memref::LoadOp::create(lb, ll, A, aIdx), sumTy);
                Value bv = convertScalar(
                    lb, ll, memref::LoadOp::create(lb, ll, B, bIdx), sumTy);
                Value s;
                if (isFloat)
                  s = arith::AddFOp::create(
                      lb, ll, iter[0],
                      arith::MulFOp::create(lb, ll, av, bv, fm), fm);
                else
                  s = arith::AddIOp::create(
                      lb, ll, iter[0], arith::MulIOp::create(lb, ll, av, bv));
                scf::YieldOp::create(lb, ll, s);
              });
          memref::StoreOp::create(
              b, l, convertScalar(b, l, loop.getResult(0), acc), C, ij);
        });
    if (distributed)
      barrier(rw, loc);
    rw.eraseOp(op);
    return success();
  }
};

struct ParallelLowering : TilePattern<tile::ParallelOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::ParallelOp op, OpAdaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    // A body touching a per-thread tile runs whole in every thread.
    bool touchesLocal = false;
    op.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (auto t = dyn_cast<tile::TileType>(v.getType()))
          touchesLocal |= t.isLocal();
    });
    SmallVector<int64_t> shape(op.getShape());
    Block &body = op.getBodyBlock();
    forEachElement(rw, loc, shape, !touchesLocal, threadsOf(op),
                   [&](OpBuilder &b, Location l, ValueRange ivs) {
                     // The yield is created after this callback returns;
                     // inline at the end of the loop body for now.
                     Block *inner = b.getInsertionBlock();
                     OpBuilder::InsertionGuard g(rw);
                     rw.setInsertionPointToEnd(inner);
                     auto marker = arith::ConstantIndexOp::create(rw, l, 0);
                     inlineBody(rw, body, marker, ivs);
                     rw.eraseOp(marker);
                   });
    if (!touchesLocal)
      barrier(rw, loc);
    rw.eraseOp(op);
    return success();
  }
};

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
    int64_t threads = threadsOf(op);
    bool local = st.isLocal() || tileTypeOf(op.getDst()).isLocal();
    bool shuffles = !local && threads % kWarpSize == 0 &&
                    (elem.isF32() || elem.isInteger(32));

    auto finish = [&](OpBuilder &b, Location l, ValueRange ivs, Value r) {
      if (accumulate)
        r = combineReduce(b, l, kind, memref::LoadOp::create(b, l, dst, ivs),
                          r);
      memref::StoreOp::create(b, l, r, dst, ivs);
    };

    if (!shuffles) {
      // One thread per output element walks the reduced dimension.
      forEachElement(
          rw, loc, outer, !local, threads,
          [&](OpBuilder &b, Location l, ValueRange ivs) {
            auto loop = scf::ForOp::create(
                b, l, idx(b, l, 0), idx(b, l, len), idx(b, l, 1),
                ValueRange{reduceIdentity(b, l, kind, elem)},
                [&](OpBuilder &lb, Location ll, Value r, ValueRange iter) {
                  SmallVector<Value> sIdx(ivs);
                  sIdx.insert(sIdx.begin() + dim, r);
                  Value v = memref::LoadOp::create(lb, ll, src, sIdx);
                  scf::YieldOp::create(lb, ll,
                                       combineReduce(lb, ll, kind, iter[0], v));
                });
            finish(b, l, ivs, loop.getResult(0));
          });
      if (!local)
        barrier(rw, loc);
      rw.eraseOp(op);
      return success();
    }

    // One warp per output element; lanes stride the reduced dimension.
    Value tid = threadId(rw, loc);
    Value warp = arith::DivUIOp::create(rw, loc, tid, idx(rw, loc, kWarpSize));
    Value lane = arith::RemUIOp::create(rw, loc, tid, idx(rw, loc, kWarpSize));
    int64_t warps = threads / kWarpSize;
    int64_t total = numElements(outer);
    scf::ForOp::create(
        rw, loc, warp, idx(rw, loc, total), idx(rw, loc, warps), ValueRange{},
        [&](OpBuilder &b, Location l, Value e, ValueRange) {
          SmallVector<Value> ivs(outer.size());
          Value rest = e;
          for (int64_t d = outer.size() - 1; d >= 0; --d) {
            if (d == 0) {
              ivs[d] = rest;
              break;
            }
            Value size = idx(b, l, outer[d]);
            ivs[d] = arith::RemUIOp::create(b, l, rest, size);
            rest = arith::DivUIOp::create(b, l, rest, size);
          }
          auto loop = scf::ForOp::create(
              b, l, lane, idx(b, l, len), idx(b, l, kWarpSize),
              ValueRange{reduceIdentity(b, l, kind, elem)},
              [&](OpBuilder &lb, Location ll, Value r, ValueRange iter) {
                SmallVector<Value> sIdx(ivs);
                sIdx.insert(sIdx.begin() + dim, r);
                Value v = memref::LoadOp::create(lb, ll, src, sIdx);
                scf::YieldOp::create(lb, ll,
                                     combineReduce(lb, ll, kind, iter[0], v));
              });
          Value v = loop.getResult(0);
          Value width = arith::ConstantIntOp::create(b, l, kWarpSize, 32);
          for (int64_t off = kWarpSize / 2; off >= 1; off /= 2) {
            Value o = arith::ConstantIntOp::create(b, l, off, 32);
            auto sh = gpu::ShuffleOp::create(b, l, v, o, width,
                                             gpu::ShuffleMode::XOR);
            v = combineReduce(b, l, kind, v, sh.getShuffleResult());
          }
          Value isLane0 = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                lane, idx(b, l, 0));
          auto ifOp = scf::IfOp::create(b, l, isLane0, false);
          OpBuilder tb = ifOp.getThenBodyBuilder();
          finish(tb, l, ivs, v);
          scf::YieldOp::create(b, l);
        });
    barrier(rw, loc);
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
    bool isFloat = isa<FloatType>(st.getElementType());
    arith::AtomicRMWKind kind = op.getKind() == tile::AtomicKind::Add
                                    ? (isFloat ? arith::AtomicRMWKind::addf
                                               : arith::AtomicRMWKind::addi)
                                    : (isFloat ? arith::AtomicRMWKind::maximumf
                                               : arith::AtomicRMWKind::maxs);
    SmallVector<Value> dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(memref::DimOp::create(rw, loc, global, d));
    forEachElement(rw, loc, st.getShape(), !st.isLocal(), threadsOf(op),
                   [&](OpBuilder &b, Location l, ValueRange ivs) {
                     SmallVector<Value> g(offsets.begin(), offsets.end());
                     for (int64_t k = 0; k < r; ++k)
                       g[rank - r + k] = arith::AddIOp::create(
                           b, l, offsets[rank - r + k], ivs[k]);
                     SmallVector<Value> conds;
                     for (int64_t d = 0; d < rank; ++d)
                       conds.push_back(arith::CmpIOp::create(
                           b, l, arith::CmpIPredicate::ult, g[d], dims[d]));
                     auto ifOp =
                         scf::IfOp::create(b, l, andAll(b, l, conds), false);
                     OpBuilder tb = ifOp.getThenBodyBuilder();
                     Value v = memref::LoadOp::create(tb, l, src, ivs);
                     memref::AtomicRMWOp::create(tb, l, kind, v, global, g);
                   });
    if (!st.isLocal())
      barrier(rw, loc);
    rw.eraseOp(op);
    return success();
  }
};

} // namespace

LogicalResult tessera::cuda::lowerTileToGpu(
    ModuleOp module, const tessera::CompileTarget &target,
    const tessera::CompileOptions &options,
    std::vector<std::pair<std::string, unsigned>> &shared,
    std::vector<std::pair<std::string, unsigned>> *threads) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<gpu::GPUDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect, LLVM::LLVMDialect,
                   vector::VectorDialect>();
  StringRef chip = target.chip;
  gpu::GPUModuleOp gpuModule;
  for (auto m : module.getOps<gpu::GPUModuleOp>())
    if (m.getName() == kGpuModuleName)
      gpuModule = m;
  if (!gpuModule) {
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kGpuModuleName);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
  }
  TileTypeConverter converter(tileMemorySpace);
  // 1. The whole-kernel fast paths, on the canonical IR (being retired;
  //    TESSERA_CUDA_NO_FAST_PATHS=1 sends every kernel to distribution).
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(module.getLoc());
  const char *noFast = std::getenv("TESSERA_CUDA_NO_FAST_PATHS");
  bool fastPaths = !noFast || !*noFast || std::string(noFast) == "0";
  for (auto f : llvm::make_early_inc_range(module.getOps<tile::FuncOp>())) {
    if (!fastPaths)
      break;
    if (f.isExternal())
      return f.emitOpError("has no body to compile");
    auto probe = cast<tile::FuncOp>(f->clone());
    scratch->push_back(probe);
    int64_t bytes = 0;
    bool matched = false;
    // A fast path that gives up part-way may have said why; that is no error
    // of the kernel, which then takes the distribution path.
    std::string probeLog;
    LogicalResult probed = failure();
    {
      ScopedDiagnosticHandler quiet(ctx, [&](Diagnostic &d) {
        probeLog += d.str() + "\n";
        return success();
      });
      probed = tryFastPath(probe, gpuModule, converter, chip, bytes, matched);
    }
    if (failed(probed))
      return f.emitOpError("internal: the fast-path probe failed: ")
             << probeLog;
    if (matched) {
      shared.emplace_back(f.getSymName().str(), (unsigned)bytes);
      f.erase();
    }
  }
  // 2. Every other kernel: the core passes, then distribution through the
  //    cuda hooks.
  if (!module.getOps<tile::FuncOp>().empty()) {
    std::string spec =
        target.descriptionPath.empty() ? target.chip : target.descriptionPath;
    std::string error;
    auto desc = tessera::passes::resolveTarget(spec, &error);
    if (!desc)
      return emitError(module.getLoc()) << error;
    bool hasWgmma = llvm::any_of(desc->mmaAtoms, [](const auto &a) {
      return a.kind == tessera::target::MmaKind::Wgmma;
    });
    CudaTargetHooks hooks(hasWgmma);
    // A copy warp for loops on TMA copies is opt-in for now
    // (TESSERA_CUDA_WARP_SPECIALIZATION=1): on the H100 it is slower than
    // thread 0 issuing the copies for most of the zoo (docs/benchmarks.md).
    const char *ws = std::getenv("TESSERA_CUDA_WARP_SPECIALIZATION");
    hooks.setWarpSpecialization(ws && *ws && std::string(ws) != "0");
    PassManager pm(ctx);
    if (options.printIRAfterAll) {
      ctx->disableMultithreading();
      pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                          [](Pass *, Operation *) { return true; },
                          /*printModuleScope=*/true,
                          /*printAfterOnlyOnChange=*/false);
    }
    tessera::passes::buildTesseraPipeline(
        pm, spec,
        [&](const tessera::target::MmaAtom &a,
            const tessera::target::MmaUse &use) {
          return hooks.canEmitAtomFor(a, use);
        });
    if (failed(pm.run(module)))
      return failure();
    for (auto f : llvm::make_early_inc_range(module.getOps<tile::FuncOp>())) {
      std::string name = f.getSymName().str();
      gpu::GPUFuncOp fn = createKernelFunction(f, gpuModule, converter);
      if (!fn)
        return failure();
      // The twin without TMA, distributed only when the kernel uses TMA.
      OpBuilder tb(fn);
      tb.setInsertionPointAfter(fn);
      auto twin = cast<gpu::GPUFuncOp>(tb.clone(*fn.getOperation()));
      twin.setName((fn.getName() + kFallbackSuffix).str());
      auto distribute = [&](gpu::GPUFuncOp k,
                            tessera::passes::DistributedKernel &dk) {
        if (failed(tessera::passes::distributeKernel(k.getBody(), *desc, hooks,
                                                     dk)))
          return failure();
        k.walk([](tile::ReturnOp r) {
          OpBuilder b(r);
          gpu::ReturnOp::create(b, r.getLoc());
          r.erase();
        });
        k->setAttr("tessera.shared_bytes",
                   OpBuilder(ctx).getI64IntegerAttr(dk.sharedBytes));
        if (options.printIRAfterAll)
          llvm::errs() << "// -----// IR Dump After TesseraDistribute ("
                       << k.getName() << ") //----- //\n"
                       << k << "\n";
        return success();
      };
      tessera::passes::DistributedKernel dk, twinDk;
      (void)hooks.takeTensorMaps();
      hooks.setBulkCopies(true);
      if (failed(distribute(fn, dk)))
        return failure();
      // A warp-specialized kernel launches with its copy warp.
      if (auto t = fn->getAttrOfType<IntegerAttr>(kThreadsAttr);
          t && dk.threads > t.getInt()) {
        fn.setKnownBlockSizeAttr(
            DenseI32ArrayAttr::get(ctx, {(int32_t)dk.threads, 1, 1}));
        fn->setAttr(kThreadsAttr, OpBuilder(ctx).getI64IntegerAttr(dk.threads));
        fn->setAttr("tessera.threads_override",
                    OpBuilder(ctx).getI64IntegerAttr(dk.threads));
      }
      std::vector<CudaTargetHooks::TensorMap> maps = hooks.takeTensorMaps();
      if (dk.bulkCopies) {
        if (maps.size() > kMaxTensorMaps)
          return fn.emitOpError("uses ")
                 << maps.size() << " tensor maps, more than the "
                 << kMaxTensorMaps << " a kernel may have";
        hooks.setBulkCopies(false);
        LogicalResult twinOk = distribute(twin, twinDk);
        hooks.setBulkCopies(true);
        if (failed(twinOk))
          return failure();
        auto threadsAttr = twin->getAttrOfType<IntegerAttr>(kThreadsAttr);
        addTensorMapDescriptor(fn, maps, threadsAttr ? threadsAttr.getInt() : 0,
                               twinDk.sharedBytes);
      } else {
        twin.erase();
      }
      shared.emplace_back(name, (unsigned)dk.sharedBytes);
    }
  }
  if (threads)
    for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>())
      if (auto t = fn->getAttrOfType<IntegerAttr>("tessera.threads_override"))
        threads->emplace_back(
            fn.getName().drop_front(kKernelSymbolPrefix.size()).str(),
            (unsigned)t.getInt());

  // f32 exp that may be approximated (fastmath afn or fast) becomes
  // exp2(x * log2 e): one multiply and one ex2.approx instead of libdevice's
  // range-reduced expf.
  gpuModule.walk([&](math::ExpOp e) {
    if (!e.getType().isF32() ||
        !bitEnumContainsAll(e.getFastmath(), arith::FastMathFlags::afn))
      return;
    OpBuilder b(e);
    Value log2e = arith::ConstantOp::create(
        b, e.getLoc(), b.getF32FloatAttr(1.4426950408889634f));
    Value x = arith::MulFOp::create(b, e.getLoc(), e.getOperand(), log2e,
                                    e.getFastmath());
    Value r = math::Exp2Op::create(b, e.getLoc(), x, e.getFastmath());
    e.replaceAllUsesWith(r);
    e.erase();
  });

  // The fast-path kernels' remaining element-wise tile ops.
  ConversionTarget ct(*ctx);
  ct.addIllegalDialect<tile::TileDialect>();
  ct.addLegalDialect<gpu::GPUDialect, memref::MemRefDialect, scf::SCFDialect,
                     arith::ArithDialect, math::MathDialect, LLVM::LLVMDialect,
                     vector::VectorDialect>();
  ct.addLegalOp<UnrealizedConversionCastOp>();
  RewritePatternSet patterns(ctx);
  patterns.add<ReturnLowering, KernelLowering, AllocLowering, FillLowering,
               ClearLowering, CopyLowering, GemmLowering, ParallelLowering,
               ReduceLowering, AtomicLowering>(converter, ctx);
  populateCommonTilePatterns(converter, patterns);
  return applyPartialConversion(gpuModule, ct, std::move(patterns));
}
