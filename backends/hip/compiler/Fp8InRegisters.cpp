//===- Fp8InRegisters.cpp - OCP fp8 bytes for matrix cores that read others
//===//

#include "Fp8InRegisters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tessera::hip;

namespace {

/// Bitwise helpers on a vector of i32 words, with splat constants.
struct Words {
  OpBuilder &b;
  Location loc;
  VectorType type;

  Value k(uint32_t v) {
    return arith::ConstantOp::create(
        b, loc, type,
        DenseElementsAttr::get(type, b.getI32IntegerAttr(int32_t(v))));
  }
  Value band(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value shr(Value x, int s) { return arith::ShRUIOp::create(b, loc, x, k(s)); }
};

} // namespace

// Per byte x of a word, with t = x & 0x7F (the magnitude; no sum below
// carries out of its byte, since t <= 0x7F):
//   special = bit 7 of t + c, c = 0x01 (E4M3: t == 0x7F) or 0x04 (E5M2:
//             t >= 0x7C, exponent all ones)
//   nonzero = bit 7 of t + 0x7F
//   result  = (special ? 0x80 : t) | (sign & nonzero)
// For E4M3 a special byte has t = 0x7F, so t + (special >> 7) is already 0x80.
Value tessera::hip::ocpToFnuzHalved(OpBuilder &b, Location loc, Value words,
                                    Fp8Format format) {
  Words w{b, loc, cast<VectorType>(words.getType())};
  Value t = w.band(words, w.k(0x7F7F7F7Fu));
  uint32_t c = format == Fp8Format::E4M3 ? 0x01010101u : 0x04040404u;
  Value special = w.band(w.add(t, w.k(c)), w.k(0x80808080u));
  Value ones = w.shr(special, 7);
  Value low =
      format == Fp8Format::E4M3
          ? w.add(t, ones)
          // 0x7F in special bytes: clear t there, then set bit 7.
          : w.bor(w.band(t, arith::XOrIOp::create(b, loc, w.sub(special, ones),
                                                  w.k(0xFFFFFFFFu))),
                  special);
  Value nonzero = w.add(t, w.k(0x7F7F7F7Fu));
  Value sign = w.band(w.band(words, nonzero), w.k(0x80808080u));
  return w.bor(low, sign);
}

// Each byte goes to bits 8..15 of its 16-bit lane: E5M2 is then an f16 as it
// stands. For E4M3 each h becomes sign | (magnitude << 7): exponent field e
// in f16's low exponent bits and the 3 mantissa bits at the top of f16's
// mantissa, a value 2^-8 times the OCP one for every e (normal and subnormal
// alike), so one exact f16 multiply by 2^8 finishes it. NaN (magnitude 0x7F
// -> 0x3F80) first gets the exponent all ones (0x7F80, a quiet NaN).
Value tessera::hip::ocpToF16(OpBuilder &b, Location loc, Value lanes,
                             Fp8Format format) {
  auto it = cast<VectorType>(lanes.getType());
  auto ht = VectorType::get(it.getShape(), b.getF16Type());
  auto k = [&](uint16_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, it, DenseElementsAttr::get(it, b.getI16IntegerAttr(v)));
  };
  auto band = [&](Value x, Value y) -> Value {
    return arith::AndIOp::create(b, loc, x, y);
  };
  auto bor = [&](Value x, Value y) -> Value {
    return arith::OrIOp::create(b, loc, x, y);
  };
  auto shr = [&](Value x, int s) -> Value {
    return arith::ShRUIOp::create(b, loc, x, k(s));
  };
  Value h = arith::ShLIOp::create(b, loc, lanes, k(8));
  if (format == Fp8Format::E5M2)
    return arith::BitcastOp::create(b, loc, ht, h);
  Value r = bor(band(shr(h, 1), k(0x3F80)), band(h, k(0x8000)));
  Value nan = band(arith::AddIOp::create(b, loc, band(r, k(0x7FFF)), k(0x0080)),
                   k(0x4000));
  r = bor(r, bor(nan, arith::SubIOp::create(b, loc, nan, shr(nan, 4))));
  Value scale = arith::ConstantOp::create(
      b, loc, ht, DenseElementsAttr::get(ht, b.getF16FloatAttr(256.0f)));
  return arith::MulFOp::create(b, loc, arith::BitcastOp::create(b, loc, ht, r),
                               scale);
}
