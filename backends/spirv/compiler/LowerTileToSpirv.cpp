//===- LowerTileToSpirv.cpp - tile dialect to distributed gpu functions ---===//
//
// Every tile.func becomes a gpu.func whose parameters follow the kernel ABI of
// tessera/spirv/image.h: one storage buffer per tensor (1-D, its element
// type) and one 32-bit word per launch slot (the push constants, substituted
// after conversion). Its tile.kernel runs the core passes with the Vulkan
// TargetDescription and is distributed through the SpirvTargetHooks; nothing
// here recognizes a whole kernel. Distribution's output is then made legal
// for Vulkan's logical addressing:
//  - a global tensor is a row-major view of its buffer from the slot's byte
//    offset: every access is linearized over the buffer;
//  - a shared tile (a view of dynamic shared memory at its planned offset)
//    becomes a workgroup variable of its own type; views at one offset with
//    one type share it;
//  - fragments and local tiles are function variables;
//  - vector loads and stores are scalarized (a pointer to a scalar array
//    cannot be reinterpreted as a pointer to vectors in logical addressing).
//
//===----------------------------------------------------------------------===//

#include "LowerTileToSpirv.h"
#include "KernelFunction.h"
#include "SpirvScheduling.h"
#include "SpirvTargetHooks.h"
#include "TileLoweringUtils.h"

#include "tessera/Dialect/Tile/TileOps.h"
#include "tessera/Passes/Distribute.h"
#include "tessera/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "tessera/spirv/image.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace tessera::lowering;
namespace tile = tessera::tile;

namespace {

/// A global tensor's row-major view of its storage buffer.
struct GlobalView {
  Value view;   // the rank-r memref distribution addresses
  Value buffer; // the 1-D storage-buffer memref
  unsigned binding = 0;
  Value elemOff; // index: first element of the tensor in the buffer
  Value byteOff; // index: the same in bytes
  SmallVector<Value> dims, strides;
};

Attribute storageClass(MLIRContext *ctx, ::mlir::spirv::StorageClass sc) {
  return ::mlir::spirv::StorageClassAttr::get(ctx, sc);
}

int64_t elemBytesOf(Type t) {
  if (auto v = dyn_cast<VectorType>(t)) // a widened tile's 16-byte pieces
    return v.getNumElements() * elemBytesOf(v.getElementType());
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

/// The scalar a VALUE slot's 32-bit word carries, as type `t`; null when a
/// word cannot carry it.
Value scalarFromWord(OpBuilder &b, Location loc, Value word, Type t) {
  if (t.isIndex())
    return arith::IndexCastOp::create(b, loc, t, word);
  if (t.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, word,
                                 arith::ConstantIntOp::create(b, loc, 0, 32));
  if (t.isInteger(32))
    return word;
  if (t.isInteger(8) || t.isInteger(16))
    return arith::TruncIOp::create(b, loc, t, word);
  if (t.isF32())
    return arith::BitcastOp::create(b, loc, t, word);
  if (t.isF16() || t.isBF16()) {
    Value h = arith::TruncIOp::create(b, loc, b.getI16Type(), word);
    return arith::BitcastOp::create(b, loc, t, h);
  }
  return {};
}

/// Moves `f`'s body into a new gpu.func of `gpuModule` with the Vulkan kernel
/// ABI, erases `f`, and records the tensors' views and the slot kinds.
gpu::GPUFuncOp createKernelFunction(tile::FuncOp f, gpu::GPUModuleOp gpuModule,
                                    const TypeConverter &converter,
                                    SmallVectorImpl<GlobalView> &globals,
                                    tessera::spirv::KernelRecord &record) {
  MLIRContext *ctx = f.getContext();
  Location loc = f.getLoc();
  tile::KernelOp kernel;
  f.walk([&](tile::KernelOp k) { kernel = k; });
  if (!kernel) {
    f.emitOpError("launches no tile.kernel");
    return {};
  }
  Block &old = f.getBody().front();
  Attribute sbSpace =
      storageClass(ctx, ::mlir::spirv::StorageClass::StorageBuffer);
  SmallVector<Type> buffers;
  unsigned slots = 0;
  for (BlockArgument arg : old.getArguments()) {
    Type t = arg.getType();
    if (auto tensor = dyn_cast<tile::GlobalTensorType>(t)) {
      buffers.push_back(MemRefType::get({ShapedType::kDynamic},
                                        tensor.getElementType(),
                                        MemRefLayoutAttrInterface{}, sbSpace));
      record.slotKinds.push_back(TESSERA_SPIRV_SLOT_BUFFER);
      record.slotKinds.insert(record.slotKinds.end(), tensor.getRank(),
                              (uint8_t)TESSERA_SPIRV_SLOT_VALUE);
      slots += 1 + tensor.getRank();
      continue;
    }
    if (!t.isIndex() && !t.isInteger(1) && !t.isInteger(8) &&
        !t.isInteger(16) && !t.isInteger(32) && !t.isF32() && !t.isF16() &&
        !t.isBF16()) {
      emitError(arg.getLoc())
          << "a kernel argument of type " << t
          << " does not fit the 32-bit push-constant word a Vulkan launch "
             "passes per slot";
      return {};
    }
    record.slotKinds.push_back(TESSERA_SPIRV_SLOT_VALUE);
    ++slots;
  }
  SmallVector<Type> params(buffers);
  params.append(slots, IntegerType::get(ctx, 32));
  OpBuilder b(gpuModule.getBodyRegion());
  b.setInsertionPointToEnd(&gpuModule.getBodyRegion().front());
  auto fn = gpu::GPUFuncOp::create(
      b, loc, (tessera::spirv::kKernelSymbolPrefix + f.getSymName()).str(),
      b.getFunctionType(params, {}));
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int64_t threads = kernel.getThreads();
  fn.setKnownBlockSizeAttr(
      DenseI32ArrayAttr::get(ctx, {(int32_t)threads, 1, 1}));
  for (unsigned i = 0; i < buffers.size(); ++i)
    fn.setArgAttr(
        i, ::mlir::spirv::getInterfaceVarABIAttrName(),
        ::mlir::spirv::getInterfaceVarABIAttr(0, i, std::nullopt, ctx));
  for (unsigned i = 0; i < slots; ++i)
    fn.setArgAttr(
        buffers.size() + i, ::mlir::spirv::getInterfaceVarABIAttrName(),
        ::mlir::spirv::getInterfaceVarABIAttr(1, i, std::nullopt, ctx));

  Block *entry = &fn.getBody().front();
  b.setInsertionPointToStart(entry);
  unsigned buffer = 0, slot = 0;
  auto word = [&]() { return entry->getArgument(buffers.size() + slot++); };
  for (BlockArgument arg : old.getArguments()) {
    Type t = arg.getType();
    Value repl;
    if (auto tensor = dyn_cast<tile::GlobalTensorType>(t)) {
      GlobalView g;
      g.binding = buffer;
      g.buffer = entry->getArgument(buffer++);
      Value off = word();
      g.byteOff = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), off);
      int64_t eb = elemBytesOf(tensor.getElementType());
      g.elemOff = arith::DivUIOp::create(b, loc, g.byteOff, idx(b, loc, eb));
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        g.dims.push_back(
            arith::IndexCastUIOp::create(b, loc, b.getIndexType(), word()));
      g.strides.assign(g.dims.size(), idx(b, loc, 1));
      for (int64_t d = tensor.getRank() - 2; d >= 0; --d)
        g.strides[d] =
            arith::MulIOp::create(b, loc, g.strides[d + 1], g.dims[d + 1]);
      auto memrefTy = cast<MemRefType>(converter.convertType(t));
      SmallVector<Value> parts{g.buffer, g.elemOff};
      parts.append(g.dims);
      g.view = UnrealizedConversionCastOp::create(b, loc, memrefTy, parts)
                   .getResult(0);
      repl = UnrealizedConversionCastOp::create(b, loc, t, g.view).getResult(0);
      globals.push_back(g);
    } else {
      repl = scalarFromWord(b, loc, word(), t);
    }
    arg.replaceAllUsesWith(repl);
  }
  entry->getOperations().splice(entry->end(), old.getOperations());
  f.erase();
  record.threads = threads;
  return fn;
}

//===----------------------------------------------------------------------===//
// Legalization for logical addressing
//===----------------------------------------------------------------------===//

/// A 16-byte vector of whole bytes: what a tensor's 16-byte view moves.
bool isWideVector(VectorType vt) {
  Type e = vt.getElementType();
  return vt.getRank() == 1 && e.isIntOrFloat() &&
         e.getIntOrFloatBitWidth() >= 8 &&
         vt.getNumElements() * e.getIntOrFloatBitWidth() == 128;
}

/// A 16-byte vector as the four 32-bit words that hold it.
Value packWords(OpBuilder &b, Location loc, Value v) {
  auto vt = cast<VectorType>(v.getType());
  int64_t per = vt.getNumElements() / 4;
  SmallVector<Value> words;
  for (int64_t w = 0; w < 4; ++w) {
    SmallVector<Value> parts;
    for (int64_t j = 0; j < per; ++j)
      parts.push_back(
          vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{w * per + j}));
    if (per == 1) {
      words.push_back(
          arith::BitcastOp::create(b, loc, b.getI32Type(), parts[0]));
      continue;
    }
    Value packed = vector::FromElementsOp::create(
        b, loc, VectorType::get({per}, vt.getElementType()), parts);
    Value one = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), packed);
    words.push_back(
        vector::ExtractOp::create(b, loc, one, ArrayRef<int64_t>{0}));
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({4}, b.getI32Type()), words);
}

/// The reverse: the 16-byte vector of type `vt` that four words hold.
Value unpackWords(OpBuilder &b, Location loc, Value words, VectorType vt) {
  int64_t per = vt.getNumElements() / 4;
  SmallVector<Value> elems;
  for (int64_t w = 0; w < 4; ++w) {
    Value word = vector::ExtractOp::create(b, loc, words, ArrayRef<int64_t>{w});
    if (per == 1) {
      elems.push_back(
          arith::BitcastOp::create(b, loc, vt.getElementType(), word));
      continue;
    }
    Value one = vector::FromElementsOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), ValueRange{word});
    Value parts = vector::BitCastOp::create(
        b, loc, VectorType::get({per}, vt.getElementType()), one);
    for (int64_t j = 0; j < per; ++j)
      elems.push_back(
          vector::ExtractOp::create(b, loc, parts, ArrayRef<int64_t>{j}));
  }
  return vector::FromElementsOp::create(b, loc, vt, elems);
}

/// Shared tiles whose every access moves whole 16-byte pieces — copies'
/// 16-byte vector stores and loads (TargetHooks::storesSharedVectors) and
/// cooperative-matrix loads and stores whose rows are a whole number of
/// pieces apart — become tiles of 4 x i32 vectors: one OpStore of 16 bytes
/// per piece instead of one per element (logical addressing cannot
/// reinterpret an element array, and Vulkan without
/// VK_KHR_workgroup_memory_explicit_layout cannot alias two typed views).
/// The cooperative-matrix loads then read through a pointer to the 4 x i32
/// array, with the index and stride counted in pieces. Views at one offset
/// with one type are one variable later, so they change together.
void widenSharedTiles(gpu::GPUFuncOp fn) {
  MLIRContext *ctx = fn.getContext();
  auto wordsTy = VectorType::get({4}, IntegerType::get(ctx, 32));
  std::map<std::tuple<int64_t, std::string, int64_t>,
           SmallVector<memref::ViewOp>>
      groups;
  fn.walk([&](memref::ViewOp view) {
    if (!view.getSource().getDefiningOp<gpu::DynamicSharedMemoryOp>())
      return;
    APInt off;
    MemRefType vt = view.getType();
    if (!matchPattern(view.getByteShift(), m_ConstantInt(&off)) ||
        !vt.hasStaticShape() || vt.getRank() != 1 ||
        !vt.getElementType().isIntOrFloat())
      return;
    std::string elem;
    llvm::raw_string_ostream os(elem);
    os << vt.getElementType();
    groups[{off.getSExtValue(), elem, vt.getNumElements()}].push_back(view);
  });
  for (auto &[key, views] : groups) {
    MemRefType vt = views.front().getType();
    unsigned bits = vt.getElementType().getIntOrFloatBitWidth();
    if (bits < 8 || 128 % bits || (vt.getNumElements() * bits) % 128 ||
        std::get<0>(key) % 16)
      continue;
    int64_t per = 128 / bits;
    auto wholePieces = [&](Operation *op) {
      if (auto st = dyn_cast<vector::StoreOp>(op))
        return isWideVector(st.getVectorType());
      if (auto ld = dyn_cast<vector::LoadOp>(op))
        return isWideVector(ld.getVectorType());
      // Matrices of 16 x 16 elements (or more): rows (row-major) or columns
      // hold whole pieces when their stride does.
      auto mat = [&](gpu::MMAMatrixType t, APInt lead, bool colMajor) {
        int64_t inner = colMajor ? t.getShape()[0] : t.getShape()[1];
        return lead.getSExtValue() % per == 0 && inner % per == 0;
      };
      if (auto ml = dyn_cast<gpu::SubgroupMmaLoadMatrixOp>(op))
        return mat(cast<gpu::MMAMatrixType>(ml.getRes().getType()),
                   ml.getLeadDimension(), ml.getTranspose().has_value());
      if (auto ms = dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(op))
        return mat(cast<gpu::MMAMatrixType>(ms.getSrc().getType()),
                   ms.getLeadDimension(), ms.getTranspose().has_value());
      return false;
    };
    bool all = true;
    for (memref::ViewOp v : views)
      for (Operation *u : v->getUsers())
        all &= wholePieces(u);
    if (!all)
      continue;
    for (memref::ViewOp v : views) {
      OpBuilder vb(v);
      auto wide = memref::ViewOp::create(
          vb, v.getLoc(),
          MemRefType::get({vt.getNumElements() / per}, wordsTy,
                          MemRefLayoutAttrInterface{}, vt.getMemorySpace()),
          v.getSource(), v.getByteShift(), ValueRange{});
      for (Operation *u : llvm::make_early_inc_range(v->getUsers())) {
        OpBuilder b(u);
        Location loc = u->getLoc();
        auto piece = [&](Value i) -> Value {
          return arith::DivUIOp::create(b, loc, i, idx(b, loc, per));
        };
        if (auto st = dyn_cast<vector::StoreOp>(u)) {
          memref::StoreOp::create(b, loc,
                                  packWords(b, loc, st.getValueToStore()), wide,
                                  ValueRange{piece(st.getIndices()[0])});
          st.erase();
        } else if (auto ld = dyn_cast<vector::LoadOp>(u)) {
          Value w = memref::LoadOp::create(
              b, loc, wide, ValueRange{piece(ld.getIndices()[0])});
          ld.replaceAllUsesWith(unpackWords(b, loc, w, ld.getVectorType()));
          ld.erase();
        } else if (auto ml = dyn_cast<gpu::SubgroupMmaLoadMatrixOp>(u)) {
          ml.getSrcMemrefMutable().assign(wide);
          ml.getIndicesMutable().assign(ValueRange{piece(ml.getIndices()[0])});
          ml.setLeadDimensionAttr(
              b.getIndexAttr(ml.getLeadDimension().getSExtValue() / per));
        } else if (auto ms = dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(u)) {
          ms.getDstMemrefMutable().assign(wide);
          ms.getIndicesMutable().assign(ValueRange{piece(ms.getIndices()[0])});
          ms.setLeadDimensionAttr(
              b.getIndexAttr(ms.getLeadDimension().getSExtValue() / per));
        }
      }
      v.erase();
    }
  }
}

/// Private arrays of 16-byte vectors (register staging's pieces) become
/// arrays of 4 x i32: SPIR-V has no vectors of 8 or 16 elements, and a
/// piece stays one 128-bit value from its global load to its shared store.
void widenPrivateVectors(gpu::GPUFuncOp fn) {
  auto wordsTy = VectorType::get({4}, IntegerType::get(fn.getContext(), 32));
  SmallVector<memref::AllocaOp> allocas;
  fn.walk([&](memref::AllocaOp a) {
    auto vt = dyn_cast<VectorType>(a.getType().getElementType());
    if (vt && vt != wordsTy && isWideVector(vt) && a.getType().getRank() == 1)
      allocas.push_back(a);
  });
  for (memref::AllocaOp a : allocas) {
    auto vt = cast<VectorType>(a.getType().getElementType());
    OpBuilder ab(a);
    auto words = memref::AllocaOp::create(
        ab, a.getLoc(),
        MemRefType::get(a.getType().getShape(), wordsTy,
                        MemRefLayoutAttrInterface{},
                        a.getType().getMemorySpace()));
    for (Operation *u : llvm::make_early_inc_range(a->getUsers())) {
      OpBuilder b(u);
      if (auto st = dyn_cast<memref::StoreOp>(u)) {
        memref::StoreOp::create(b, u->getLoc(),
                                packWords(b, u->getLoc(), st.getValueToStore()),
                                words, st.getIndices());
        st.erase();
      } else if (auto ld = dyn_cast<memref::LoadOp>(u)) {
        Value w =
            memref::LoadOp::create(b, u->getLoc(), words, ld.getIndices());
        ld.replaceAllUsesWith(unpackWords(b, u->getLoc(), w, vt));
        ld.erase();
      }
    }
    if (a->use_empty())
      a.erase();
  }
}

/// Replaces vector.load/vector.store by scalar accesses along the innermost
/// index, but for 16-byte accesses to the memrefs in `wideOk` (global
/// tensors, which move them through a 16-byte view).
void scalarizeVectorAccesses(gpu::GPUFuncOp fn,
                             const llvm::DenseSet<Value> &wideOk) {
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (auto l = dyn_cast<vector::LoadOp>(op))
      if (wideOk.contains(l.getBase()) && isWideVector(l.getVectorType()))
        return;
    if (auto st = dyn_cast<vector::StoreOp>(op))
      if (wideOk.contains(st.getBase()) && isWideVector(st.getVectorType()))
        return;
    if (isa<vector::LoadOp, vector::StoreOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto ld = dyn_cast<vector::LoadOp>(op)) {
      auto vt = ld.getVectorType();
      SmallVector<Value> idxs(ld.getIndices());
      Value last = idxs.back();
      SmallVector<Value> elems;
      for (int64_t j = 0; j < vt.getNumElements(); ++j) {
        idxs.back() =
            j ? arith::AddIOp::create(b, loc, last, idx(b, loc, j)).getResult()
              : last;
        elems.push_back(memref::LoadOp::create(b, loc, ld.getBase(), idxs));
      }
      Value v = vector::FromElementsOp::create(b, loc, vt, elems);
      ld.replaceAllUsesWith(v);
      ld.erase();
      continue;
    }
    auto st = cast<vector::StoreOp>(op);
    auto vt = st.getVectorType();
    SmallVector<Value> idxs(st.getIndices());
    Value last = idxs.back();
    for (int64_t j = 0; j < vt.getNumElements(); ++j) {
      idxs.back() =
          j ? arith::AddIOp::create(b, loc, last, idx(b, loc, j)).getResult()
            : last;
      Value e = vector::ExtractOp::create(b, loc, st.getValueToStore(),
                                          ArrayRef<int64_t>{j});
      memref::StoreOp::create(b, loc, e, st.getBase(), idxs);
    }
    st.erase();
  }
}

/// Rewrites every access to a global view over its 1-D buffer.
/// A second view of the storage buffer at `g`'s binding with elements of
/// `elem` (one per binding and element type, added as a kernel argument):
/// 16-byte accesses go through vector<4xi32>, float atomics Vulkan only has
/// on integers through i32.
Value bindingView(gpu::GPUFuncOp fn, const GlobalView &g, Type elem,
                  std::map<unsigned, Value> &views) {
  Value &v = views[g.binding];
  if (v)
    return v;
  MLIRContext *ctx = fn.getContext();
  auto ty = MemRefType::get(
      {ShapedType::kDynamic}, elem, MemRefLayoutAttrInterface{},
      storageClass(ctx, ::mlir::spirv::StorageClass::StorageBuffer));
  unsigned index = fn.getNumArguments();
  if (failed(fn.insertArgument(
          index, ty,
          DictionaryAttr::get(
              ctx, {NamedAttribute(::mlir::spirv::getInterfaceVarABIAttrName(),
                                   ::mlir::spirv::getInterfaceVarABIAttr(
                                       0, g.binding, std::nullopt, ctx))}),
          fn.getLoc())))
    return {};
  v = fn.getBody().front().getArgument(index);
  return v;
}

/// The 16-byte view of a tensor's storage buffer: a second variable at the
/// same binding whose elements are 4 x i32 (Vulkan lets a shader declare
/// several variables of compatible types at one binding). Distribution's
/// 16-byte vector accesses use it: one load or store instead of one per
/// element (logical addressing cannot reinterpret the element array).
Value vectorView(gpu::GPUFuncOp fn, const GlobalView &g,
                 std::map<unsigned, Value> &views) {
  return bindingView(
      fn, g, VectorType::get({4}, IntegerType::get(fn.getContext(), 32)),
      views);
}

Value intView(gpu::GPUFuncOp fn, const GlobalView &g,
              std::map<unsigned, Value> &views) {
  return bindingView(fn, g, IntegerType::get(fn.getContext(), 32), views);
}

LogicalResult linearizeGlobals(gpu::GPUFuncOp fn,
                               ArrayRef<GlobalView> globals) {
  std::map<unsigned, Value> views, intViews;
  for (const GlobalView &g : globals) {

    auto lin = [&](OpBuilder &b, Location loc, ValueRange idxs) {
      Value f = g.elemOff;
      for (size_t k = 0; k < idxs.size(); ++k) {
        Value term = k + 1 == idxs.size()
                         ? idxs[k]
                         : arith::MulIOp::create(b, loc, idxs[k], g.strides[k])
                               .getResult();
        f = arith::AddIOp::create(b, loc, f, term);
      }
      return f;
    };
    for (Operation *user : llvm::make_early_inc_range(g.view.getUsers())) {
      OpBuilder b(user);
      Location loc = user->getLoc();
      // 16 bytes at a 16-byte aligned element (distribution takes vector
      // paths only where it checked that the row and the base are aligned).
      auto wide = isWideVector;
      auto vecIndex = [&](ValueRange idxs, Type elem) {
        int64_t perVec = 128 / elem.getIntOrFloatBitWidth();
        return arith::DivUIOp::create(b, loc, lin(b, loc, idxs),
                                      idx(b, loc, perVec))
            .getResult();
      };
      if (auto vl = dyn_cast<vector::LoadOp>(user);
          vl && wide(vl.getVectorType())) {
        VectorType vt = vl.getVectorType();
        Value view = vectorView(fn, g, views);
        if (!view)
          return vl.emitOpError("cannot add a 16-byte view of its tensor");
        Value words = memref::LoadOp::create(
            b, loc, view,
            ValueRange{vecIndex(vl.getIndices(), vt.getElementType())});
        vl.replaceAllUsesWith(unpackWords(b, loc, words, vt));
        vl.erase();
        continue;
      }
      if (auto vs = dyn_cast<vector::StoreOp>(user);
          vs && wide(vs.getVectorType())) {
        VectorType vt = vs.getVectorType();
        Value view = vectorView(fn, g, views);
        if (!view)
          return vs.emitOpError("cannot add a 16-byte view of its tensor");
        Value v = packWords(b, loc, vs.getValueToStore());
        memref::StoreOp::create(
            b, loc, v, view,
            ValueRange{vecIndex(vs.getIndices(), vt.getElementType())});
        vs.erase();
        continue;
      }
      if (auto ld = dyn_cast<memref::LoadOp>(user)) {
        Value v = memref::LoadOp::create(
            b, loc, g.buffer, ValueRange{lin(b, loc, ld.getIndices())});
        ld.replaceAllUsesWith(v);
        ld.erase();
      } else if (auto st = dyn_cast<memref::StoreOp>(user)) {
        memref::StoreOp::create(b, loc, st.getValueToStore(), g.buffer,
                                ValueRange{lin(b, loc, st.getIndices())});
        st.erase();
      } else if (auto dim = dyn_cast<memref::DimOp>(user)) {
        auto c = dim.getConstantIndex();
        if (!c || *c < 0 || *c >= (int64_t)g.dims.size())
          return dim.emitOpError("of a tensor with a non-constant dimension");
        dim.replaceAllUsesWith(g.dims[*c]);
        dim.erase();
      } else if (auto p =
                     dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user)) {
        // Only ever used for alignment tests: the offset from the bound
        // range, whose start the runtime aligns.
        p.replaceAllUsesWith(g.byteOff);
        p.erase();
      } else if (auto at = dyn_cast<memref::AtomicRMWOp>(user)) {
        using K = arith::AtomicRMWKind;
        K kind = at.getKind();
        bool fmax = kind == K::maximumf || kind == K::maxnumf;
        bool fmin = kind == K::minimumf || kind == K::minnumf;
        if ((fmax || fmin) && at.getValue().getType().isF32()) {
          // Vulkan has no float max/min atomic in core: the value's bits
          // through a 32-bit integer view of the same buffer. Non-negative
          // floats order as signed integers, negative ones inversely as
          // unsigned: max = v >= 0 ? signed max : unsigned min (min: the
          // reverse). NaNs are not ordered.
          Value view = intView(fn, g, intViews);
          if (!view)
            return at.emitOpError("cannot add a 32-bit integer view of its "
                                  "tensor");
          Value bits =
              arith::BitcastOp::create(b, loc, b.getI32Type(), at.getValue());
          Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
          Value nonNeg = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::sge, bits, zero);
          Value at_ = lin(b, loc, at.getIndices());
          auto ifOp = scf::IfOp::create(b, loc, b.getI32Type(), nonNeg, true);
          {
            OpBuilder tb = ifOp.getThenBodyBuilder();
            Value r = memref::AtomicRMWOp::create(
                tb, loc, fmax ? K::maxs : K::mins, bits, view, ValueRange{at_});
            scf::YieldOp::create(tb, loc, r);
            OpBuilder eb = ifOp.getElseBodyBuilder();
            Value r2 = memref::AtomicRMWOp::create(
                eb, loc, fmax ? K::minu : K::maxu, bits, view, ValueRange{at_});
            scf::YieldOp::create(eb, loc, r2);
          }
          Value old = arith::BitcastOp::create(b, loc, b.getF32Type(),
                                               ifOp.getResult(0));
          at.getResult().replaceAllUsesWith(old);
          at.erase();
          continue;
        }
        Value v = memref::AtomicRMWOp::create(
            b, loc, at.getKind(), at.getValue(), g.buffer,
            ValueRange{lin(b, loc, at.getIndices())});
        at.replaceAllUsesWith(v);
        at.erase();
      } else if (!isa<UnrealizedConversionCastOp>(user)) {
        return user->emitOpError(
            "uses a global tensor in a way the Vulkan lowering cannot "
            "linearize");
      }
    }
    for (Operation *user : llvm::make_early_inc_range(g.view.getUsers()))
      if (user->use_empty())
        user->erase();
    if (!g.view.use_empty())
      return g.view.getDefiningOp()->emitOpError(
          "global tensor still used after linearization");
    g.view.getDefiningOp()->erase();
  }
  return success();
}

/// Where the shared tiles of a kernel went.
struct SharedPlacement {
  int64_t workgroupBytes = 0;
  /// Bytes per workgroup of the tiles placed in device memory, and the
  /// storage-buffer arguments (one per element type) that address it.
  int64_t scratchBytes = 0;
  unsigned scratchBindings = 0;
};

/// Shared tiles become workgroup variables, one per (offset, type, size):
/// Vulkan cannot alias typed workgroup variables, so tiles the plan placed
/// at one offset with different types take separate variables. While they
/// fit the device's workgroup memory (`workgroupLimit`) they stay there, in
/// the order distribution created them; the rest live in a per-workgroup
/// region of a device-memory scratch buffer the runtime binds after the
/// tensors (`firstBinding` on), one binding per element type, all views of
/// one buffer.
FailureOr<SharedPlacement> placeSharedTiles(gpu::GPUFuncOp fn,
                                            int64_t workgroupLimit,
                                            unsigned firstBinding) {
  MLIRContext *ctx = fn.getContext();
  Attribute wg = storageClass(ctx, ::mlir::spirv::StorageClass::Workgroup);
  Attribute sb = storageClass(ctx, ::mlir::spirv::StorageClass::StorageBuffer);
  struct Var {
    MemRefType type;
    Location loc;
    SmallVector<memref::ViewOp> views;
  };
  std::map<std::tuple<int64_t, std::string, int64_t>, unsigned> keys;
  SmallVector<Var> vars;
  SmallVector<gpu::DynamicSharedMemoryOp> smems;
  fn.walk([&](gpu::DynamicSharedMemoryOp s) { smems.push_back(s); });
  for (auto smem : smems) {
    for (Operation *user : smem->getUsers()) {
      auto view = dyn_cast<memref::ViewOp>(user);
      if (!view)
        return user->emitOpError(
                   "addresses shared memory by pointer; Vulkan has no "
                   "pointers to workgroup memory"),
               failure();
      APInt off;
      if (!matchPattern(view.getByteShift(), m_ConstantInt(&off)) ||
          !view.getType().hasStaticShape() || view.getType().getRank() != 1)
        return view.emitOpError("shared tile at a dynamic offset or size"),
               failure();
      MemRefType vt = view.getType();
      std::string elem;
      llvm::raw_string_ostream os(elem);
      os << vt.getElementType();
      auto key = std::make_tuple(off.getSExtValue(), elem, vt.getNumElements());
      auto [it, inserted] = keys.try_emplace(key, vars.size());
      if (inserted)
        vars.push_back({vt, view.getLoc(), {}});
      vars[it->second].views.push_back(view);
    }
  }
  SharedPlacement placed;
  Block &entry = fn.getBody().front();
  OpBuilder eb(ctx);
  eb.setInsertionPointToStart(&entry);
  Location loc = fn.getLoc();
  Value scratchBase; // index: this workgroup's region, in bytes
  std::map<std::string, Value> scratchArgs;
  for (Var &v : vars) {
    int64_t bytes =
        v.type.getNumElements() * elemBytesOf(v.type.getElementType());
    Value repl;
    if (placed.workgroupBytes + bytes <= workgroupLimit) {
      placed.workgroupBytes += bytes;
      repl = memref::AllocOp::create(
          eb, v.loc,
          MemRefType::get(v.type.getShape(), v.type.getElementType(),
                          MemRefLayoutAttrInterface{}, wg));
    } else {
      Type elemTy = v.type.getElementType();
      int64_t eBytes = elemBytesOf(elemTy);
      std::string elem;
      llvm::raw_string_ostream os(elem);
      os << elemTy;
      Value &arg = scratchArgs[elem];
      if (!arg) {
        unsigned index = firstBinding + placed.scratchBindings++;
        auto ty = MemRefType::get({ShapedType::kDynamic}, elemTy,
                                  MemRefLayoutAttrInterface{}, sb);
        if (failed(fn.insertArgument(
                index, ty,
                DictionaryAttr::get(
                    ctx,
                    {NamedAttribute(::mlir::spirv::getInterfaceVarABIAttrName(),
                                    ::mlir::spirv::getInterfaceVarABIAttr(
                                        0, index, std::nullopt, ctx))}),
                loc)))
          return fn.emitOpError("cannot add a scratch buffer argument"),
                 failure();
        arg = entry.getArgument(index);
      }
      if (!scratchBase) {
        // The workgroup's linear index in the grid.
        Value x = gpu::BlockIdOp::create(eb, loc, gpu::Dimension::x);
        Value y = gpu::BlockIdOp::create(eb, loc, gpu::Dimension::y);
        Value z = gpu::BlockIdOp::create(eb, loc, gpu::Dimension::z);
        Value nx = gpu::GridDimOp::create(eb, loc, gpu::Dimension::x);
        Value ny = gpu::GridDimOp::create(eb, loc, gpu::Dimension::y);
        Value lin = arith::AddIOp::create(
            eb, loc, x,
            arith::MulIOp::create(
                eb, loc, nx,
                arith::AddIOp::create(eb, loc, y,
                                      arith::MulIOp::create(eb, loc, ny, z))));
        scratchBase = lin; // scaled below, once the region's size is known
      }
      int64_t off = llvm::alignTo(placed.scratchBytes, 16);
      placed.scratchBytes = off + bytes;
      // A 1-D view of the element type over the scratch binding: its
      // accesses are rewritten to base + index below.
      repl = UnrealizedConversionCastOp::create(
                 eb, v.loc,
                 MemRefType::get(v.type.getShape(), elemTy,
                                 MemRefLayoutAttrInterface{}, wg),
                 ValueRange{arg, idx(eb, v.loc, off / eBytes)})
                 .getResult(0);
    }
    for (memref::ViewOp view : v.views) {
      view.replaceAllUsesWith(repl);
      view.erase();
    }
  }
  for (auto smem : smems)
    smem.erase();
  if (!placed.scratchBindings)
    return placed;
  // Each workgroup's region starts at lin * scratchBytes (16-byte aligned).
  placed.scratchBytes = llvm::alignTo(placed.scratchBytes, 16);
  SmallVector<UnrealizedConversionCastOp> casts;
  fn.walk([&](UnrealizedConversionCastOp c) {
    if (c.getNumOperands() == 2 && c.getNumResults() == 1 &&
        isa<MemRefType>(c.getResult(0).getType()) &&
        llvm::is_contained(llvm::make_second_range(scratchArgs),
                           c.getOperand(0)))
      casts.push_back(c);
  });
  for (auto c : casts) {
    Value buffer = c.getOperand(0);
    Type elemTy = cast<MemRefType>(buffer.getType()).getElementType();
    int64_t eBytes = elemBytesOf(elemTy);
    OpBuilder b(c);
    b.setInsertionPointAfter(c);
    Value base = arith::AddIOp::create(
        b, c.getLoc(),
        arith::MulIOp::create(b, c.getLoc(), scratchBase,
                              idx(b, c.getLoc(), placed.scratchBytes / eBytes)),
        c.getOperand(1));
    for (Operation *user : llvm::make_early_inc_range(c->getUsers())) {
      OpBuilder ub(user);
      Location l = user->getLoc();
      if (auto ld = dyn_cast<memref::LoadOp>(user)) {
        Value i = arith::AddIOp::create(ub, l, base, ld.getIndices()[0]);
        ld.replaceAllUsesWith(
            memref::LoadOp::create(ub, l, buffer, ValueRange{i}).getResult());
        ld.erase();
      } else if (auto st = dyn_cast<memref::StoreOp>(user)) {
        Value i = arith::AddIOp::create(ub, l, base, st.getIndices()[0]);
        memref::StoreOp::create(ub, l, st.getValueToStore(), buffer,
                                ValueRange{i});
        st.erase();
      } else if (auto ml = dyn_cast<gpu::SubgroupMmaLoadMatrixOp>(user)) {
        Value i = arith::AddIOp::create(ub, l, base, ml.getIndices()[0]);
        ml.getSrcMemrefMutable().assign(buffer);
        ml.getIndicesMutable().assign(ValueRange{i});
      } else if (auto ms = dyn_cast<gpu::SubgroupMmaStoreMatrixOp>(user)) {
        Value i = arith::AddIOp::create(ub, l, base, ms.getIndices()[0]);
        ms.getDstMemrefMutable().assign(buffer);
        ms.getIndicesMutable().assign(ValueRange{i});
      } else if (auto at = dyn_cast<memref::AtomicRMWOp>(user)) {
        Value i = arith::AddIOp::create(ub, l, base, at.getIndices()[0]);
        at.replaceAllUsesWith(memref::AtomicRMWOp::create(ub, l, at.getKind(),
                                                          at.getValue(), buffer,
                                                          ValueRange{i})
                                  .getResult());
        at.erase();
      } else {
        return user->emitOpError("uses a shared tile the Vulkan lowering "
                                 "placed in device memory in a way it cannot "
                                 "rewrite"),
               failure();
      }
    }
    c.erase();
  }
  fn->setAttr("tessera.scratch_bytes",
              OpBuilder(ctx).getI64IntegerAttr(placed.scratchBytes));
  return placed;
}

/// Private arrays live in the Function storage class.
void privateToFunction(gpu::GPUFuncOp fn) {
  Attribute fs =
      storageClass(fn.getContext(), ::mlir::spirv::StorageClass::Function);
  fn.walk([&](memref::AllocaOp a) {
    MemRefType t = a.getType();
    if (t.getMemorySpace())
      return;
    a.getResult().setType(
        MemRefType::get(t.getShape(), t.getElementType(), t.getLayout(), fs));
  });
}

} // namespace

/// bf16 and fp8 have no SPIR-V type: their storage becomes integers of the
/// same width. Values of those types (what loads and constants produce
/// before arith-expand turns extf/truncf into integer code) become those
/// integers; arithmetic on them is an error.
LogicalResult tessera::spirv::narrowFloatsToIntegers(Operation *root) {
  auto narrow = [](Type t) -> Type {
    if (isa<BFloat16Type, Float8E4M3FNType, Float8E5M2Type>(t))
      return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
    return {};
  };
  auto convert = [&](Type t) -> Type {
    if (Type n = narrow(t))
      return n;
    if (auto m = dyn_cast<MemRefType>(t))
      if (Type n = narrow(m.getElementType()))
        return MemRefType::get(m.getShape(), n, m.getLayout(),
                               m.getMemorySpace());
    if (auto v = dyn_cast<VectorType>(t))
      if (Type n = narrow(v.getElementType()))
        return VectorType::get(v.getShape(), n);
    return {};
  };
  LogicalResult result = success();
  root->walk([&](Operation *op) {
    if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
      SmallVector<Type> ins;
      bool changed = false;
      for (Type t : fn.getArgumentTypes()) {
        Type n = convert(t);
        ins.push_back(n ? n : t);
        changed |= bool(n);
      }
      if (changed) {
        fn.setType(
            FunctionType::get(op->getContext(), ins, fn.getResultTypes()));
      }
    }
    for (Region &r : op->getRegions())
      for (Block &blk : r)
        for (BlockArgument a : blk.getArguments())
          if (Type n = convert(a.getType()))
            a.setType(n);
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto f = dyn_cast<FloatAttr>(c.getValue()))
        if (Type n = narrow(f.getType())) {
          OpBuilder b(c);
          Value v = arith::ConstantOp::create(
              b, c.getLoc(),
              IntegerAttr::get(n, f.getValue().bitcastToAPInt()));
          c.replaceAllUsesWith(v);
          c.erase();
          return;
        }
    }
    if (auto bc = dyn_cast<arith::BitcastOp>(op)) {
      Type in = convert(bc.getIn().getType()), out = convert(bc.getType());
      Type inT = in ? in : bc.getIn().getType();
      Type outT = out ? out : bc.getType();
      if (inT == outT) {
        bc.getResult().setType(outT);
        bc.replaceAllUsesWith(bc.getIn());
        bc.erase();
        return;
      }
    }
    for (Value res : op->getResults()) {
      Type n = convert(res.getType());
      if (!n)
        continue;
      if (!isa<memref::LoadOp, memref::AllocOp, memref::AllocaOp,
               UnrealizedConversionCastOp, scf::IfOp, scf::ForOp,
               arith::SelectOp, vector::FromElementsOp, vector::ExtractOp,
               arith::BitcastOp, vector::BitCastOp>(op)) {
        result = op->emitOpError("computes in ")
                 << res.getType()
                 << ", which Vulkan has no type for; compute in f32";
        return;
      }
      res.setType(n);
    }
  });
  return result;
}

namespace {} // namespace

LogicalResult
tessera::spirv::lowerTileToSpirvGpu(ModuleOp module,
                                    const tessera::CompileTarget &target,
                                    const tessera::CompileOptions &options,
                                    std::vector<KernelRecord> &kernels) {
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<gpu::GPUDialect, memref::MemRefDialect, scf::SCFDialect,
                   arith::ArithDialect, math::MathDialect,
                   vector::VectorDialect, ::mlir::spirv::SPIRVDialect>();
  for (auto f : module.getOps<tile::FuncOp>())
    if (f.isExternal())
      return f.emitOpError("has no body to compile");
  std::string spec =
      target.descriptionPath.empty() ? target.chip : target.descriptionPath;
  std::string error;
  auto desc = tessera::passes::resolveTarget(spec, &error);
  if (!desc)
    return emitError(module.getLoc()) << error;

  OpBuilder mb(ctx);
  mb.setInsertionPointToEnd(module.getBody());
  auto gpuModule =
      gpu::GPUModuleOp::create(mb, module.getLoc(), kGpuModuleName);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  mb.getUnitAttr());

  SpirvTargetHooks hooks;
  if (failed(tessera::lowering::runCorePasses(module, spec, hooks,
                                              options.printIRAfterAll)))
    return failure();

  // Global tensors' memrefs carry no memory space until linearized.
  TileTypeConverter converter;
  for (auto f : llvm::make_early_inc_range(module.getOps<tile::FuncOp>())) {
    KernelRecord rec;
    rec.name = f.getSymName().str();
    rec.symbol = (kKernelSymbolPrefix + rec.name).str();
    SmallVector<GlobalView> globals;
    gpu::GPUFuncOp fn =
        createKernelFunction(f, gpuModule, converter, globals, rec);
    if (!fn)
      return failure();
    tessera::passes::DistributedKernel dk;
    if (failed(tessera::lowering::distributeKernelFunction(
            fn, *desc, hooks, dk, options.printIRAfterAll)))
      return failure();
    if (dk.threads && dk.threads != (int64_t)rec.threads)
      return fn.emitOpError("distribution asked for a copy warp, which the "
                            "Vulkan lowering does not schedule");
    // Accumulators across the K loop as values (cooperative matrices where
    // they are some): TESSERA_SPIRV_CARRY=1, docs/backends/spirv.md.
    if (tessera::spirv::switchOn("TESSERA_SPIRV_CARRY"))
      tessera::spirv::carryPrivateArrays(fn, desc->warpSize > 1 ? desc->warpSize
                                                                : 0);
    llvm::DenseSet<Value> views;
    for (const GlobalView &g : globals)
      views.insert(g.view);
    widenSharedTiles(fn);
    widenPrivateVectors(fn);
    scalarizeVectorAccesses(fn, views);
    if (failed(linearizeGlobals(fn, globals)))
      return failure();
    // The refill's second half halfway through the body
    // (TESSERA_SPIRV_SPLIT_REFILL=1), its loads above the stage barrier
    // (TESSERA_SPIRV_EARLY_LOADS=1).
    if (tessera::spirv::switchOn("TESSERA_SPIRV_SPLIT_REFILL"))
      tessera::spirv::splitRefills(fn);
    if (tessera::spirv::switchOn("TESSERA_SPIRV_EARLY_LOADS"))
      tessera::spirv::issueLoadsBeforeBarriers(fn);
    unsigned tensors = llvm::count(rec.slotKinds, TESSERA_SPIRV_SLOT_BUFFER);
    FailureOr<SharedPlacement> placed =
        placeSharedTiles(fn, desc->sharedMemoryPerBlock, tensors);
    if (failed(placed))
      return failure();
    privateToFunction(fn);
    rec.sharedBytes = (unsigned)placed->workgroupBytes;
    rec.scratchBytes = (unsigned)placed->scratchBytes;
    rec.scratchBindings = placed->scratchBindings;
    // A description with one-thread "warps" assumes no subgroup size.
    rec.subgroupSize = desc->warpSize > 1 ? desc->warpSize : 0;
    fn->setAttr(
        ::mlir::spirv::getEntryPointABIAttrName(),
        ::mlir::spirv::getEntryPointABIAttr(ctx, {(int32_t)rec.threads, 1, 1}));
    kernels.push_back(std::move(rec));
  }
  tessera::lowering::approximateFastExp(gpuModule);
  // Fold the scalarized vectors away and clean up before conversion.
  PassManager clean(ctx);
  clean.addPass(createCanonicalizerPass());
  clean.addPass(createCSEPass());
  if (options.printIRAfterAll)
    tessera::lowering::printIRAfterAll(clean);
  return clean.run(module);
}
