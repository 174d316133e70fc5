//===- Fp8InRegisters.h - OCP fp8 bytes for matrix cores that read others -===//
//
// The tile dialect's 8-bit floats are OCP's E4M3 (f8E4M3FN) and E5M2
// (f8E5M2). Two AMD chips have matrix cores that cannot take them as they are:
//
// - CDNA3 (gfx942) multiplies fp8 only in the FNUZ encodings, whose exponent
//   bias is OCP's plus one. The same bits then mean exactly half the OCP value
//   for every finite value, subnormals included; only negative zero (0x80,
//   FNUZ's NaN) and OCP's NaN / infinity need rewriting. ocpToFnuzHalved does
//   that on packed bytes, and the hooks scale the accumulator (a product of two
//   halved operands is a quarter of the true one).
// - RDNA3 (gfx1100) has no fp8 WMMA at all. ocpToF16Scaled widens the bytes to
//   f16 (exact: every OCP fp8 value is an f16 value), for its f16 WMMA.
//
// Both are a few bitwise operations on packed lanes, never byte by byte: the
// FNUZ rewrite on words of four bytes (a vector of i32, byte j of word w being
// element 4w + j), the widening on 16-bit lanes (two per register).
// They are separate from the hooks so that a unit test can evaluate exactly
// these operations on every byte value (tests/unit/hip_compiler).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_BACKENDS_HIP_FP8INREGISTERS_H
#define TESSERA_BACKENDS_HIP_FP8INREGISTERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace tessera::hip {

enum class Fp8Format {
  E4M3, ///< OCP E4M3 (f8E4M3FN): bias 7, no infinities, NaN = S.1111.111
  E5M2, ///< OCP E5M2 (f8E5M2): bias 15, IEEE-like infinities and NaNs
};

/// OCP bytes -> FNUZ bytes of half the value, on `words` (vector<N x i32>):
/// every finite byte other than 0x80 is kept (the FNUZ reading of its bits is
/// half the OCP value), negative zero 0x80 becomes +0 0x00, and NaN (E4M3:
/// magnitude 0x7F; E5M2: exponent all ones, infinities included, FNUZ having
/// none) becomes FNUZ's only NaN, 0x80. Returns a value of `words`' type.
mlir::Value ocpToFnuzHalved(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value words, Fp8Format format);

/// OCP bytes -> f16 of exactly the same value: `lanes` (vector<N x i16>, each
/// lane one byte, zero-extended) becomes vector<N x f16>. E5M2 is the upper
/// byte of an f16; E4M3's bits are moved into f16's fields (bias 15 instead
/// of 7) and multiplied by 2^8, which also normalizes its subnormals; NaN
/// stays NaN, -0 stays -0.
mlir::Value ocpToF16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lanes,
                     Fp8Format format);

} // namespace tessera::hip

#endif
