//===- BufferLoads.cpp - loads from global tensors as AMD buffer loads ----===//

#include "BufferLoads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

std::optional<uint32_t>
tessera::hip::bufferResourceFlags(llvm::StringRef chip) {
  // Word 3 of the resource: the format fields only need to be valid (a
  // FORMAT or DATA_FORMAT of 0 makes the resource invalid and every load
  // read 0); untyped loads (buffer_load_dword*, _ushort, _ubyte) take their
  // size from the instruction.
  //
  // GFX9 (CDNA3 gfx942, CDNA4 gfx950): DATA_FORMAT [18:15] = 4 (32 bits),
  // NUM_FORMAT [14:12] = 0; no OUT_OF_BOUNDS field: with stride 0 the offset
  // is checked against NUM_RECORDS in bytes.
  if (chip.starts_with("gfx9"))
    return 4u << 15;
  // GFX11 (RDNA3) and GFX12 (RDNA4 gfx1200/gfx1201): FORMAT [18:12] = 4,
  // RESOURCE_LEVEL [24] = 1, OOB_SELECT [29:28] = 3 (raw: a load is out of
  // range when its offset is at or past NUM_RECORDS). gfx1250 has another
  // descriptor layout and is not served.
  if (chip.starts_with("gfx11") || chip == "gfx1200" || chip == "gfx1201")
    return (4u << 12) | (1u << 24) | (3u << 28);
  return std::nullopt;
}

Value tessera::hip::makeBufferResource(OpBuilder &b, Location loc, Value memref,
                                       Value extentBytes, Value originBytes,
                                       uint32_t flags) {
  MLIRContext *ctx = b.getContext();
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value start = arith::AddIOp::create(b, loc, base, originBytes);
  Value address = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), start);
  Value ptr = LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, /*global*/ 1), address);
  // The bytes from the origin to the tensor's end, none where the origin is
  // past it, and no more than offsets reach.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       originBytes, extentBytes);
  Value left = arith::SelectOp::create(
      b, loc, inside,
      arith::SubIOp::create(b, loc, extentBytes, originBytes).getResult(),
      zero);
  Value bytes = arith::MinUIOp::create(
      b, loc, left, arith::ConstantIndexOp::create(b, loc, kMaxBufferBytes));
  Value records = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), bytes);
  Value stride = arith::ConstantIntOp::create(b, loc, 0, 16);
  Value word = arith::ConstantIntOp::create(b, loc, int64_t(flags), 32);
  return ROCDL::MakeBufferRsrcOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, /*buffer resource*/ 8), ptr,
      stride, records, word);
}

void tessera::hip::trapBeyondBufferReach(OpBuilder &b, Location loc,
                                         Value reachBytes) {
  Value tooFar = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ugt, reachBytes,
      arith::ConstantIndexOp::create(b, loc, kMaxBufferBytes));
  auto ifOp = scf::IfOp::create(b, loc, tooFar, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  LLVM::Trap::create(b, loc);
}

namespace {

/// The integer type a buffer load of `bytes` bytes returns: i8, i16, i32 or
/// vector<k x i32>; null for sizes no load moves.
Type rawType(OpBuilder &b, int64_t bytes) {
  switch (bytes) {
  case 1:
    return b.getI8Type();
  case 2:
    return b.getI16Type();
  case 4:
    return b.getI32Type();
  case 8:
  case 16:
    return VectorType::get({bytes / 4}, b.getI32Type());
  default:
    return {};
  }
}

/// A raw buffer load of `raw` at byte offset `voffset` + `soffset`,
/// reinterpreted as vector<n x elem>. The hardware checks the VGPR offset
/// `voffset` against the resource's extent, not the scalar one (LLVM's
/// buffer intrinsics: "soffset ... excluded from bounds checking").
Value loadAs(OpBuilder &b, Location loc, Value rsrc, Type raw, Value voffset,
             int64_t soffset, Type elem, int64_t n) {
  Value scalar = arith::ConstantIntOp::create(b, loc, soffset, 32);
  Value aux = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value loaded = ROCDL::RawPtrBufferLoadOp::create(
      b, loc, raw, rsrc, voffset, scalar, aux, /*alias_scopes=*/nullptr,
      /*noalias_scopes=*/nullptr, /*tbaa=*/nullptr);
  if (!isa<VectorType>(raw))
    loaded =
        vector::BroadcastOp::create(b, loc, VectorType::get({1}, raw), loaded);
  return vector::BitCastOp::create(b, loc, VectorType::get({n}, elem), loaded);
}

} // namespace

Value tessera::hip::bufferLoad(OpBuilder &b, Location loc, Value rsrc,
                               Value index, Type elem, int64_t n, Value valid) {
  if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() % 8)
    return {};
  int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  auto perElement = dyn_cast<VectorType>(valid.getType());
  Type raw = rawType(b, perElement ? elemBytes : elemBytes * n);
  if (!raw)
    return {};
  // Offsets inside the tensor are below the resource's extent (at most
  // kMaxBufferBytes) and fit 32 bits; a piece outside reads at 2^31, past
  // every extent.
  Value bytes = arith::MulIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, elemBytes));
  Value offset = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), bytes);
  Value outside = arith::ConstantIntOp::create(
      b, loc, int64_t(int32_t(kOutOfRangeOffset)), 32);
  if (!perElement) {
    Value voffset = arith::SelectOp::create(b, loc, valid, offset, outside);
    Value v = loadAs(b, loc, rsrc, raw, voffset, 0, elem, n);
    return n == 1 ? vector::ExtractOp::create(b, loc, v, 0).getResult() : v;
  }
  // A bit per element (a row's end): one load per element, its VGPR offset
  // the piece's where the element is inside and 2^31 where it is not, its
  // place in the piece in the scalar offset. The hardware range-checks the
  // VGPR offset only, which suffices: an element inside reads inside, one
  // outside reads nothing. The VGPR offsets are distinct values, so LLVM
  // does not merge the loads into a wider one, which the hardware might
  // check as a whole (a partly outside access may read zeros for its inside
  // part too); and the pieces' offset is the one value per piece that stays
  // live in a loop over tiles.
  SmallVector<Value> elems;
  for (int64_t i = 0; i < n; ++i) {
    Value bit = vector::ExtractOp::create(b, loc, valid, i);
    Value voffset = arith::SelectOp::create(b, loc, bit, offset, outside);
    elems.push_back(vector::ExtractOp::create(
        b, loc, loadAs(b, loc, rsrc, raw, voffset, i * elemBytes, elem, 1), 0));
  }
  return vector::FromElementsOp::create(b, loc, VectorType::get({n}, elem),
                                        elems);
}
