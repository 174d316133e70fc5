//===- AccumulatorScaling.h - exact accumulator scalings out of loops ----*- C++
//-*-===//
//
// CDNA3's fp8 MFMA multiplies operands worth half the tile dialect's values
// (Fp8InRegisters.h), so HipTargetHooks brackets the atoms of each such gemm
// with accumulator *= 0.25 before and *= 4 after, both marked with
// kAccumulatorScaleAttr. In a loop whose every access to the accumulator's
// registers is such a bracketed read or write (the K loop of a gemm), the
// accumulator may just as well stay scaled through the whole loop:
// hoistAccumulatorScaling drops the brackets inside the loop and scales the
// registers once before it and once after it. Every scaling is by a power of
// two and exact in f32 (short of results below 2^-124).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_BACKENDS_HIP_ACCUMULATORSCALING_H
#define TESSERA_BACKENDS_HIP_ACCUMULATORSCALING_H

#include "mlir/IR/Operation.h"

namespace tessera::hip {

/// The discardable attribute (an f64: 0.25 or 4.0) on the arith.mulf ops of
/// the brackets.
inline constexpr const char *kAccumulatorScaleAttr = "tessera.hip.acc_scale";

/// Moves the brackets out of every scf.for under `root` where that is exact
/// (see above), then drops the marks.
void hoistAccumulatorScaling(mlir::Operation *root);

} // namespace tessera::hip

#endif
