//===- TileLoweringUtils.cpp - helpers shared by backend lowerings --------===//

#include "TileLoweringUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;

namespace tessera::lowering {

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value constOf(OpBuilder &b, Location loc, Type t, double fv, int64_t iv) {
  Type elem = getElementTypeOrSelf(t);
  TypedAttr attr = isa<FloatType>(elem) ? (TypedAttr)b.getFloatAttr(elem, fv)
                                        : (TypedAttr)b.getIntegerAttr(elem, iv);
  if (auto vt = dyn_cast<VectorType>(t))
    return arith::ConstantOp::create(b, loc, vt,
                                     DenseElementsAttr::get(vt, attr));
  return arith::ConstantOp::create(b, loc, t, attr);
}

Value zeroOf(OpBuilder &b, Location loc, Type t) {
  return arith::ConstantOp::create(b, loc, t, b.getZeroAttr(t));
}

bool isF8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t));
}

//   E4M3FN: bias 7, no infinities, S.1111.111 is NaN, subnormals m * 2^-9.
//   E5M2:   bias 15, exponent 31 is inf (m = 0) or NaN, subnormals m * 2^-16.
Value decodeF8(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  bool e4m3 = isa<Float8E4M3FNType>(getElementTypeOrSelf(t));
  auto shaped = [&](Type elem) -> Type {
    if (auto vt = dyn_cast<VectorType>(t))
      return VectorType::get(vt.getShape(), elem);
    return elem;
  };
  Type i8 = shaped(b.getI8Type()), i32 = shaped(b.getI32Type()),
       f32 = shaped(b.getF32Type());
  auto ci = [&](int64_t x) { return constOf(b, loc, i32, 0, x); };
  int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15, emax = e4m3 ? 15 : 31;
  Value x = arith::ExtUIOp::create(b, loc, i32,
                                   arith::BitcastOp::create(b, loc, i8, v));
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, x, ci(0x80)), ci(24));
  Value mag = arith::AndIOp::create(b, loc, x, ci(0x7F));
  Value e = arith::ShRUIOp::create(b, loc, mag, ci(mbits));
  Value m = arith::AndIOp::create(b, loc, mag, ci((1 << mbits) - 1));
  // Normal: rebias the exponent, left-align the mantissa.
  Value normal = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(
          b, loc, arith::AddIOp::create(b, loc, e, ci(127 - bias)), ci(23)),
      arith::ShLIOp::create(b, loc, m, ci(23 - mbits)));
  // Subnormal: m * 2^(1 - bias - mbits), exact in f32.
  Value sub = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32, m),
      constOf(b, loc, f32, std::ldexp(1.0, 1 - bias - mbits), 0));
  Value subBits = arith::BitcastOp::create(b, loc, i32, sub);
  auto eq = [&](Value p, Value q) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, p, q);
  };
  Value bits = arith::SelectOp::create(b, loc, eq(e, ci(0)), subBits, normal);
  if (e4m3) {
    bits = arith::SelectOp::create(b, loc, eq(mag, ci(0x7F)), ci(0x7FC00000),
                                   bits);
  } else {
    Value special = arith::SelectOp::create(b, loc, eq(m, ci(0)),
                                            ci(0x7F800000), ci(0x7FC00000));
    bits = arith::SelectOp::create(b, loc, eq(e, ci(emax)), special, bits);
  }
  bits = arith::OrIOp::create(b, loc, bits, sign);
  return arith::BitcastOp::create(b, loc, f32, bits);
}

Value encodeF8(OpBuilder &b, Location loc, Value v, Type to) {
  Type t = v.getType();
  bool e4m3 = isa<Float8E4M3FNType>(getElementTypeOrSelf(to));
  auto shaped = [&](Type elem) -> Type {
    if (auto vt = dyn_cast<VectorType>(t))
      return VectorType::get(vt.getShape(), elem);
    return elem;
  };
  Type i8 = shaped(b.getI8Type()), i32 = shaped(b.getI32Type()),
       f32 = shaped(b.getF32Type());
  auto ci = [&](int64_t x) { return constOf(b, loc, i32, 0, x); };
  auto cf = [&](double x) { return constOf(b, loc, f32, x, 0); };
  int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  double largest = e4m3 ? 448.0 : 57344.0;
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  Value sign = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, bits, ci(24)), ci(0x80));
  Value mag = arith::BitcastOp::create(
      b, loc, f32, arith::AndIOp::create(b, loc, bits, ci(0x7FFFFFFF)));
  Value isNan =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, mag, mag);
  // Saturate: anything above the largest finite value (infinity included)
  // becomes it; a value at or below it never rounds past it.
  Value over = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, mag,
                                     cf(largest));
  Value a = arith::SelectOp::create(b, loc, over, cf(largest), mag);
  // Normal: round the f32 mantissa to mbits (to nearest, ties to even; a
  // carry into the exponent is the right answer), then rebias.
  Value ab = arith::BitcastOp::create(b, loc, i32, a);
  int drop = 23 - mbits;
  Value odd = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, ab, ci(drop)), ci(1));
  Value rounded = arith::ShRUIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, ab, ci((1 << (drop - 1)) - 1)),
          odd),
      ci(drop));
  Value normal =
      arith::SubIOp::create(b, loc, rounded, ci((127 - bias) << mbits));
  // Subnormal: a / 2^(1 - bias - mbits) rounded to an integer (to nearest,
  // ties to even), from the bits: the 24-bit significand shifted right by
  // 24 - bias - mbits - e for a = 1.m * 2^e. Integer arithmetic only: a
  // float trick such as (x + 2^23) - 2^23 is folded away by drivers that
  // reassociate (Vulkan compilers may). f32 subnormal inputs give 0.
  Value e = arith::SubIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, ab, ci(23)), ci(127));
  Value sig = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, ab, ci(0x7FFFFF)), ci(0x800000));
  Value shift = arith::SubIOp::create(b, loc, ci(24 - bias - mbits), e);
  shift = arith::MinSIOp::create(b, loc, shift, ci(31));
  shift = arith::MaxSIOp::create(b, loc, shift, ci(1));
  Value q = arith::ShRUIOp::create(b, loc, sig, shift);
  Value rem = arith::AndIOp::create(
      b, loc, sig,
      arith::SubIOp::create(b, loc, arith::ShLIOp::create(b, loc, ci(1), shift),
                            ci(1)));
  Value half = arith::ShLIOp::create(
      b, loc, ci(1), arith::SubIOp::create(b, loc, shift, ci(1)));
  Value above =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, rem, half);
  Value tie = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, half),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            arith::AndIOp::create(b, loc, q, ci(1)), ci(0)));
  Value up = arith::OrIOp::create(b, loc, above, tie);
  Value sub =
      arith::AddIOp::create(b, loc, q, arith::ExtUIOp::create(b, loc, i32, up));
  Value f32Sub =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::ShRUIOp::create(b, loc, ab, ci(23)), ci(0));
  sub = arith::SelectOp::create(b, loc, f32Sub, ci(0), sub);
  Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a,
                                     cf(std::ldexp(1.0, 1 - bias)));
  Value code = arith::SelectOp::create(b, loc, tiny, sub, normal);
  code = arith::SelectOp::create(b, loc, isNan, ci(0x7F), code);
  code = arith::OrIOp::create(b, loc, code, sign);
  Value byte = arith::TruncIOp::create(b, loc, i8, code);
  return arith::BitcastOp::create(b, loc, shaped(getElementTypeOrSelf(to)),
                                  byte);
}

Value convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isF8(from)) {
    // fp8 sources decode to f32 first, then convert from there.
    Value wide = decodeF8(b, loc, v);
    return to.isF32() ? wide : convertScalar(b, loc, wide, to);
  }
  if (isF8(to)) {
    // To fp8 through f32 (exact for every narrower source, one rounding
    // from f64).
    Value narrow = convertScalar(b, loc, v, b.getF32Type());
    return encodeF8(b, loc, narrow, to);
  }
  if (from.isIndex() || to.isIndex()) {
    if (isa<FloatType>(from)) {
      Value i = arith::FPToSIOp::create(b, loc, b.getI64Type(), v);
      return arith::IndexCastOp::create(b, loc, to, i);
    }
    if (isa<FloatType>(to)) {
      Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
      return arith::SIToFPOp::create(b, loc, to, i);
    }
    return arith::IndexCastOp::create(b, loc, to, v);
  }
  auto ff = dyn_cast<FloatType>(from), tf = dyn_cast<FloatType>(to);
  if (ff && tf) {
    if (ff.getWidth() < tf.getWidth() ||
        (ff.getWidth() == tf.getWidth() &&
         ff.getFPMantissaWidth() < tf.getFPMantissaWidth()))
      return arith::ExtFOp::create(b, loc, to, v);
    if (ff.getWidth() == tf.getWidth()) {
      // bf16 <-> f16: go through f32.
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
      return arith::TruncFOp::create(b, loc, to, wide);
    }
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (!ff && !tf) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtSIOp::create(b, loc, to, v);
    return arith::TruncIOp::create(b, loc, to, v);
  }
  if (ff)
    return arith::FPToSIOp::create(b, loc, to, v);
  return arith::SIToFPOp::create(b, loc, to, v);
}

void loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
              function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d : shape) {
    lbs.push_back(idx(b, loc, 0));
    ubs.push_back(idx(b, loc, d));
    steps.push_back(idx(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
  Value r = conds.front();
  for (Value c : conds.drop_front())
    r = arith::AndIOp::create(b, loc, r, c);
  return r;
}

tile::TileType tileTypeOf(Value original) {
  return cast<tile::TileType>(original.getType());
}

Value reduceIdentity(OpBuilder &b, Location loc, tile::ReduceKind kind,
                     Type t) {
  if (kind == tile::ReduceKind::Sum)
    return zeroOf(b, loc, t);
  bool isMax = kind == tile::ReduceKind::Max;
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::ConstantOp::create(
        b, loc, t,
        b.getFloatAttr(t, APFloat::getInf(ft.getFloatSemantics(), isMax)));
  unsigned w = t.getIntOrFloatBitWidth();
  APInt v = isMax ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

Value combineReduce(OpBuilder &b, Location loc, tile::ReduceKind kind, Value x,
                    Value y, arith::FastMathFlags sumFlags) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case tile::ReduceKind::Sum:
    if (!isFloat)
      return arith::AddIOp::create(b, loc, x, y);
    if (sumFlags == arith::FastMathFlags::none)
      return arith::AddFOp::create(b, loc, x, y);
    return arith::AddFOp::create(
        b, loc, x, y, arith::FastMathFlagsAttr::get(b.getContext(), sumFlags));
  case tile::ReduceKind::Max:
    return isFloat ? (Value)arith::MaximumFOp::create(b, loc, x, y)
                   : (Value)arith::MaxSIOp::create(b, loc, x, y);
  case tile::ReduceKind::Min:
    return isFloat ? (Value)arith::MinimumFOp::create(b, loc, x, y)
                   : (Value)arith::MinSIOp::create(b, loc, x, y);
  }
  llvm_unreachable("reduce kind");
}

void inlineKernel(ConversionPatternRewriter &rw, tile::KernelOp kernel,
                  ValueRange blockIds) {
  Block &body = kernel.getBodyBlock();
  rw.eraseOp(body.getTerminator());
  rw.inlineBlockBefore(&body, kernel, blockIds);
  rw.eraseOp(kernel);
}

void inlineBody(ConversionPatternRewriter &rw, Block &body, Operation *before,
                ValueRange args) {
  rw.eraseOp(body.getTerminator());
  rw.inlineBlockBefore(&body, before, args);
}

TileTypeConverter::TileTypeConverter(
    std::function<Attribute(tile::TileType)> tileSpace) {
  addConversion([](Type t) { return t; });
  addConversion([tileSpace](tile::TileType t) -> Type {
    Attribute space = tileSpace ? tileSpace(t) : Attribute();
    if (!space)
      return MemRefType::get(t.getShape(), t.getElementType());
    return MemRefType::get(t.getShape(), t.getElementType(),
                           MemRefLayoutAttrInterface{}, space);
  });
  addConversion([](tile::GlobalTensorType t) -> Type {
    SmallVector<int64_t> shape(t.getRank(), ShapedType::kDynamic);
    return MemRefType::get(shape, t.getElementType());
  });
  auto cast = [](OpBuilder &b, Type type, ValueRange inputs,
                 Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

void appendSlotTypes(Type t, SmallVectorImpl<Type> &out) {
  MLIRContext *ctx = t.getContext();
  auto i64 = IntegerType::get(ctx, 64);
  if (auto tensor = dyn_cast<tile::GlobalTensorType>(t)) {
    out.push_back(LLVM::LLVMPointerType::get(ctx));
    out.append(tensor.getRank(), i64);
  } else if (t.isIndex()) {
    out.push_back(i64);
  } else if (t.isInteger(1)) {
    out.push_back(IntegerType::get(ctx, 8));
  } else {
    out.push_back(t);
  }
}

namespace {

/// Builds the memref descriptor of a row-major tensor whose data pointer and
/// sizes were read from the slots.
Value buildTensorMemref(OpBuilder &b, Location loc, MemRefType type, Value ptr,
                        ArrayRef<Value> dims) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  auto i64 = b.getI64Type();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto arr = LLVM::LLVMArrayType::get(i64, rank);
  auto descTy =
      LLVM::LLVMStructType::getLiteral(ctx, {ptrTy, ptrTy, i64, arr, arr});
  Value desc = LLVM::UndefOp::create(b, loc, descTy);
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
  desc = LLVM::InsertValueOp::create(b, loc, desc, zero, ArrayRef<int64_t>{2});
  Value stride = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
  for (int64_t d = rank - 1; d >= 0; --d) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, dims[d],
                                       ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, stride,
                                       ArrayRef<int64_t>{4, d});
    if (d > 0)
      stride = LLVM::MulOp::create(b, loc, stride, dims[d]);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

} // namespace

void unpackArgumentSlots(OpBuilder &b, Location loc, Block &old,
                         const TypeConverter &converter,
                         function_ref<Value(Type)> nextSlot) {
  MLIRContext *ctx = b.getContext();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  auto i64 = b.getI64Type();
  for (BlockArgument arg : old.getArguments()) {
    Type t = arg.getType();
    Value repl;
    if (auto tensor = dyn_cast<tile::GlobalTensorType>(t)) {
      Value ptr = nextSlot(ptrTy);
      SmallVector<Value> dims;
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        dims.push_back(nextSlot(i64));
      auto memrefTy = cast<MemRefType>(converter.convertType(t));
      Value memref = buildTensorMemref(b, loc, memrefTy, ptr, dims);
      repl = UnrealizedConversionCastOp::create(b, loc, t, memref).getResult(0);
    } else if (t.isIndex()) {
      repl = arith::IndexCastOp::create(b, loc, t, nextSlot(i64));
    } else if (t.isInteger(1)) {
      Value v = nextSlot(b.getI8Type());
      repl = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                   zeroOf(b, loc, v.getType()));
    } else {
      repl = nextSlot(t);
    }
    arg.replaceAllUsesWith(repl);
  }
}

namespace {

template <typename OpT> struct TilePattern : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
};

struct DimLowering : TilePattern<tile::DimOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::DimOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<memref::DimOp>(op, a.getTensor(), op.getIndex());
    return success();
  }
};

struct PipelinedLowering : TilePattern<tile::PipelinedOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::PipelinedOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    // Synchronous loads: the stages collapse to a plain loop.
    auto loop = scf::ForOp::create(rw, op.getLoc(), a.getLowerBound(),
                                   a.getUpperBound(), a.getStep());
    inlineBody(rw, op.getBodyBlock(), loop.getBody()->getTerminator(),
               loop.getInductionVar());
    rw.eraseOp(op);
    return success();
  }
};

struct LoadLowering : TilePattern<tile::LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::LoadOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<memref::LoadOp>(op, a.getTile(), a.getIndices());
    return success();
  }
};

struct StoreLowering : TilePattern<tile::StoreOp> {
  using TilePattern::TilePattern;
  LogicalResult matchAndRewrite(tile::StoreOp op, OpAdaptor a,
                                ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<memref::StoreOp>(op, a.getValue(), a.getTile(),
                                           a.getIndices());
    return success();
  }
};

} // namespace

void populateCommonTilePatterns(const TypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<DimLowering, PipelinedLowering, LoadLowering, StoreLowering>(
      converter, patterns.getContext());
}

} // namespace tessera::lowering
