//===- FmaLayout.h - the vector-FMA accumulator layout -----------*- C++
//-*-===//
//
// A gemm with no matrix instruction accumulates with scalar FMAs: each thread
// holds a block of the accumulator and, per k, reads the A values of its
// rows and the B values of its columns. How the accumulator's rows and
// columns are spread over the thread's registers, the warp's lanes and the
// block's warps decides how many shared-memory reads feed the FMAs and how
// many bank wavefronts they take, and that depends on how each operand is
// stored:
//  - K contiguous (A as [M, K], B as [N, K]): a thread reads a chunk of K of
//    one row with one vector load. Lanes must read consecutive rows: the
//    swizzle pass makes the same chunk of consecutive rows fall in distinct
//    banks (and so do TMA's swizzle atoms), while rows a power of two apart
//    share banks. Such a dim holds one element per thread and lane step.
//  - M / N contiguous (A as [K, M], B as [K, N]): a thread reads a vector of
//    consecutive columns of one row of K; lanes read consecutive vectors.
//  - In registers (a fragment operand): no reads.
// chooseFmaTiling enumerates the splits of M and N over registers, lanes and
// warps and keeps the one with the fewest shared loads plus wavefronts per
// k step. Exposed without MLIR so unit tests can check the choice.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PASSES_FMALAYOUT_H
#define TESSERA_PASSES_FMALAYOUT_H

#include "tessera/layout/LinearLayout.h"
#include "tessera/layout/SharedMemory.h"

#include <optional>

namespace tessera::passes {

/// Whether the choices below are on: TESSERA_FMA_LAYOUT=0 turns them off
/// (the accumulator takes the plain blocked layout, row-major vectors of 16
/// bytes over the lanes, and K loops unroll within 7/8 of the registers), so
/// that one build can measure both.
bool fmaLayoutEnabled();

/// The registers a vector-FMA K loop may give accumulators and the operand
/// values of one unrolled step: all but what its addresses and counter need
/// (a sixteenth of the registers; an eighth when the choices are off).
int64_t fmaUnrollRegisterBudget(int64_t registersPerThread);

/// Whether the vector-FMA loop reads a K group's operands during the group
/// before it (TESSERA_FMA_PREFETCH=0: no, each group reads its own first).
bool fmaOperandPrefetch();

/// How a vector-FMA gemm reads one operand.
enum class FmaOperandRead { Registers, KContiguous, MNContiguous };

struct FmaOperand {
  FmaOperandRead read = FmaOperandRead::Registers;
  int elemBytes = 4;
  /// Elements one vector load moves: along K (K contiguous) or along M / N
  /// (M / N contiguous).
  int vectorElems = 1;
};

/// One dim (M or N) of the accumulator over a block: element index
/// = v + vec * (lane + lanes * (warp + warps * r)), v < vec, r < regs.
/// A thread's repeats are the highest bits: its rows (columns) differ by a
/// multiple of the block-wide stride, above the bits an XOR swizzle mixes,
/// so all of them share one swizzled offset plus constants.
struct FmaDimSplit {
  int vec = 1, lanes = 1, regs = 1, warps = 1;
  int perThread() const { return vec * regs; }
};

struct FmaTiling {
  FmaDimSplit m, n;
  /// The model's cost per k step and warp: shared loads + wavefronts.
  double cost = 0;
};

/// Shared loads and bank wavefronts per k step of one warp reading one
/// operand along a dim split `s`.
double fmaOperandCost(const FmaOperand &op, const FmaDimSplit &s,
                      const layout::BankModel &banks);

/// The cheapest split of an M x N accumulator over warpSize lanes and
/// numWarps warps, every lane and warp holding distinct elements; none when
/// the tile has fewer elements than threads (or is not a power of two).
std::optional<FmaTiling> chooseFmaTiling(int64_t m, int64_t n, int warpSize,
                                         int numWarps, const FmaOperand &a,
                                         const FmaOperand &b,
                                         const layout::BankModel &banks);

/// The accumulator layout of a tiling: (register, lane, warp) -> (dim0,
/// dim1); registers take N's vector, M's vector, N's and then M's repeats.
layout::LinearLayout fmaAccumulatorLayout(const FmaTiling &t);

} // namespace tessera::passes

#endif
