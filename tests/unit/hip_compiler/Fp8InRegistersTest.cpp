//===- Fp8InRegistersTest.cpp - the hip backend's fp8 rewrites, all bytes -===//
//
// The operations Fp8InRegisters emits (the ones that reach the hsaco) are
// built on constant words holding all 256 byte values and evaluated by
// MLIR's constant folding; the results are compared with decodings of the
// OCP E4M3/E5M2 and FNUZ encodings written out here from their definitions
// (sign, exponent bias, subnormals, special values), not taken from the code
// under test or from LLVM's float semantics.
//
//===----------------------------------------------------------------------===//

#include "Fp8InRegisters.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace mlir;
using tessera::hip::Fp8Format;

namespace {

/// A decoded 8-bit float: NaN, or a value (infinities as +-inf).
struct Decoded {
  bool nan = false;
  double value = 0;
};

/// An fp8 encoding with `expBits` exponent bits and bias `bias`; `ocp`
/// selects the OCP special values (E4M3: S.1111.111 is NaN, no infinities;
/// E5M2: exponent all ones is Inf/NaN), otherwise FNUZ (0x80 is the only
/// NaN, no infinities, no negative zero).
Decoded decode(uint8_t x, int expBits, int bias, bool ocp) {
  int manBits = 7 - expBits;
  int e = (x >> manBits) & ((1 << expBits) - 1);
  int m = x & ((1 << manBits) - 1);
  bool negative = x & 0x80;
  Decoded d;
  if (!ocp && x == 0x80) {
    d.nan = true;
    return d;
  }
  if (ocp && expBits == 4 && e == 15 && m == 7) {
    d.nan = true;
    return d;
  }
  if (ocp && expBits == 5 && e == 31) {
    if (m) {
      d.nan = true;
      return d;
    }
    d.value = negative ? -INFINITY : INFINITY;
    return d;
  }
  double frac = double(m) / double(1 << manBits);
  double v = e ? std::ldexp(1.0 + frac, e - bias) : std::ldexp(frac, 1 - bias);
  d.value = negative ? -v : v;
  return d;
}

Decoded ocp(uint8_t x, Fp8Format f) {
  return f == Fp8Format::E4M3 ? decode(x, 4, 7, true) : decode(x, 5, 15, true);
}
Decoded fnuz(uint8_t x, Fp8Format f) {
  return f == Fp8Format::E4M3 ? decode(x, 4, 8, false)
                              : decode(x, 5, 16, false);
}

/// An IEEE half from its bits (independent of the code under test).
Decoded half(uint16_t h) {
  int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  bool negative = h & 0x8000;
  Decoded d;
  if (e == 31) {
    if (m)
      d.nan = true;
    else
      d.value = negative ? -INFINITY : INFINITY;
    return d;
  }
  double v = e ? std::ldexp(1.0 + m / 1024.0, e - 15) : std::ldexp(m, -24);
  d.value = negative ? -v : v;
  return d;
}

class Fp8InRegisters : public ::testing::Test {
protected:
  Fp8InRegisters() {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect,
                    vector::VectorDialect>();
  }

  /// Runs `emit` on a constant holding bytes 0..255 in order, as
  /// vector<64xi32> words (byte j of word w is 4w + j) or, with `asBytes`,
  /// as vector<256xi16> (one byte per lane); folds, and returns the constant
  /// result.
  DenseElementsAttr
  evaluate(function_ref<Value(OpBuilder &, Location, Value)> emit,
           bool asBytes = false) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto wt = VectorType::get({64}, b.getI32Type());
    std::vector<int32_t> words(64);
    for (int w = 0; w < 64; ++w)
      words[w] = int32_t(uint32_t(4 * w) | uint32_t(4 * w + 1) << 8 |
                         uint32_t(4 * w + 2) << 16 | uint32_t(4 * w + 3) << 24);
    Value in; // set below, inside the function
    auto probe = func::FuncOp::create(b, loc, "probe",
                                      b.getFunctionType({}, {b.getI32Type()}));
    Block *body = probe.addEntryBlock();
    b.setInsertionPointToStart(body);
    std::vector<int16_t> all(256);
    for (int x = 0; x < 256; ++x)
      all[x] = int16_t(x);
    auto bt = VectorType::get({256}, b.getI16Type());
    in = asBytes ? arith::ConstantOp::create(
                       b, loc, bt,
                       DenseElementsAttr::get(bt, ArrayRef<int16_t>(all)))
                 : arith::ConstantOp::create(
                       b, loc, wt,
                       DenseElementsAttr::get(wt, ArrayRef<int32_t>(words)));
    Value out = emit(b, loc, in);
    // The function's type follows the result.
    probe.setType(b.getFunctionType({}, {out.getType()}));
    func::ReturnOp::create(b, loc, out);
    PassManager pm(&ctx);
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(*module)))
      return {};
    auto ret = cast<func::ReturnOp>(probe.getBody().front().getTerminator());
    auto cst = ret.getOperand(0).getDefiningOp<arith::ConstantOp>();
    if (!cst) {
      module->print(llvm::errs());
      return {};
    }
    return dyn_cast<DenseElementsAttr>(cst.getValue());
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

void checkFnuz(Fp8Format f, DenseElementsAttr r) {
  ASSERT_TRUE(r) << "the conversion did not fold to a constant";
  std::vector<uint8_t> bytes;
  for (const APInt &w : r.getValues<APInt>())
    for (int j = 0; j < 4; ++j)
      bytes.push_back(uint8_t(w.getZExtValue() >> (8 * j)));
  ASSERT_EQ(bytes.size(), 256u);
  int nans = 0;
  for (int x = 0; x < 256; ++x) {
    uint8_t y = bytes[x];
    Decoded in = ocp(uint8_t(x), f), out = fnuz(y, f);
    SCOPED_TRACE(::testing::Message() << "OCP byte 0x" << std::hex << x
                                      << " -> FNUZ byte 0x" << int(y));
    if (in.nan || std::isinf(in.value)) {
      // FNUZ has no infinities: OCP Inf and NaN both become its NaN.
      EXPECT_EQ(y, 0x80);
      ++nans;
      continue;
    }
    ASSERT_FALSE(out.nan);
    // Exactly half, signs included; OCP -0 becomes FNUZ's (only) zero.
    EXPECT_EQ(2 * out.value, in.value);
    if (in.value == 0)
      EXPECT_EQ(y, 0x00);
    else
      EXPECT_EQ(y, x) << "finite nonzero bytes keep their bits";
  }
  EXPECT_EQ(nans, f == Fp8Format::E4M3 ? 2 : 8);
}

TEST_F(Fp8InRegisters, OcpE4M3ToFnuzIsHalfOnEveryByte) {
  checkFnuz(Fp8Format::E4M3, evaluate([](OpBuilder &b, Location l, Value w) {
              return tessera::hip::ocpToFnuzHalved(b, l, w, Fp8Format::E4M3);
            }));
}

TEST_F(Fp8InRegisters, OcpE5M2ToFnuzIsHalfOnEveryByte) {
  checkFnuz(Fp8Format::E5M2, evaluate([](OpBuilder &b, Location l, Value w) {
              return tessera::hip::ocpToFnuzHalved(b, l, w, Fp8Format::E5M2);
            }));
}

/// f16 results as their bits (folded f16 constants, read back as APFloat).
void checkF16(Fp8Format f, DenseElementsAttr r) {
  ASSERT_TRUE(r) << "the conversion did not fold to a constant";
  std::vector<uint16_t> bits;
  for (const APFloat &h : r.getValues<APFloat>())
    bits.push_back(uint16_t(h.bitcastToAPInt().getZExtValue()));
  ASSERT_EQ(bits.size(), 256u);
  for (int x = 0; x < 256; ++x) {
    Decoded in = ocp(uint8_t(x), f), out = half(bits[x]);
    SCOPED_TRACE(::testing::Message()
                 << "OCP byte 0x" << std::hex << x << " -> f16 0x" << bits[x]);
    EXPECT_EQ(out.nan, in.nan);
    if (in.nan)
      continue;
    EXPECT_EQ(out.value, in.value);
    EXPECT_EQ(std::signbit(out.value), std::signbit(in.value));
  }
}

TEST_F(Fp8InRegisters, OcpE4M3ToF16IsExactOnEveryByte) {
  checkF16(Fp8Format::E4M3,
           evaluate(
               [](OpBuilder &b, Location l, Value w) {
                 return tessera::hip::ocpToF16(b, l, w, Fp8Format::E4M3);
               },
               /*asBytes=*/true));
}

TEST_F(Fp8InRegisters, OcpE5M2ToF16IsExactOnEveryByte) {
  checkF16(Fp8Format::E5M2,
           evaluate(
               [](OpBuilder &b, Location l, Value w) {
                 return tessera::hip::ocpToF16(b, l, w, Fp8Format::E5M2);
               },
               /*asBytes=*/true));
}

} // namespace
