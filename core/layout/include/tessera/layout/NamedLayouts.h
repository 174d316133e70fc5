//===- NamedLayouts.h - vendor fragment layouts and blocked layouts -*- C++
//-*-//
//
// Constructors for the layouts the hardware and the passes use, all as
// LinearLayouts from (register, lane, warp) to (dim0, dim1). For a matrix
// operand dim0 is the row and dim1 the column of the operand as the ISA
// documents it: A is MxK, B is KxN, C/D is MxN.
//
// A "register" here is one element of the fragment (an f16 half of an
// .f16x2 register counts as one register), so element index i of the ISA's
// fragment table (a0..a7, c0..c3) is register i.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LAYOUT_NAMEDLAYOUTS_H
#define TESSERA_LAYOUT_NAMEDLAYOUTS_H

#include "tessera/layout/LinearLayout.h"

namespace tessera::layout {

inline const std::string kRegister = "register";
inline const std::string kLane = "lane";
inline const std::string kWarp = "warp";
inline const std::string kBlock = "block";
inline const std::string kOffset = "offset";
/// "dim0", "dim1", ...
std::string dimName(int d);

/// Which operand of a matrix instruction.
enum class MmaOperand { A, B, C };

// NVIDIA mma.sync.m16n8k16 with f16/bf16 inputs, f32 (or f16) accumulators;
// one warp (32 lanes). PTX ISA "Matrix Fragments for mma.m16n8k16".
LinearLayout mmaM16N8K16(MmaOperand op);

// NVIDIA mma.sync.m16n8k32 with 8-bit inputs (s8, u8, e4m3, e5m2), i32 or
// f32 accumulators; one warp. Registers are single bytes (4 per b32).
LinearLayout mmaM16N8K32Byte(MmaOperand op);

// NVIDIA wgmma.m64nNk16 accumulator (f32), one warpgroup of 4 warps; warp w
// owns rows 16w..16w+15 laid out like mma.m16n8 C, repeated along N.
// N must be a power of two in [8, 256].
LinearLayout wgmmaM64K16Acc(int n);
// wgmma A operand from registers (m64k16, f16): warp w owns rows 16w.., laid
// out like mma.m16n8k16 A.
LinearLayout wgmmaM64K16A();

// AMD CDNA3 (wave64) v_mfma_f32_32x32x8_f16 and v_mfma_f32_16x16x16_f16.
LinearLayout mfma32x32x8F16(MmaOperand op);
LinearLayout mfma16x16x16F16(MmaOperand op);
// AMD RDNA3 (wave32) v_wmma_f32_16x16x16_f16: A/B are replicated in lanes
// 16..31 (lane bit 4 is a broadcast), C/D rows striped across lane halves.
LinearLayout wmma16x16x16F16(MmaOperand op);

/// Triton-style blocked layout. All vectors have one entry per tensor dim;
/// order[0] is the fastest-varying dim. `shape` is the tensor shape: where the
/// layout's tile is smaller, registers repeat it (in `order`); where larger,
/// the excess lanes/warps broadcast. Empty shape = exactly one tile.
struct BlockedSpec {
  std::vector<int32_t> sizePerThread, threadsPerWarp, warpsPerBlock;
  std::vector<int32_t> order;
  std::vector<int32_t> shape;
};
LinearLayout blockedLayout(const BlockedSpec &spec);

/// Makes `l` cover exactly `shape` (one size per output dim, in order):
/// smaller: repeat over registers (dims in `order`, fastest first);
/// larger: basis values wrap (excess bits broadcast).
LinearLayout ensureShape(const LinearLayout &l,
                         const std::vector<int32_t> &shape,
                         const std::vector<int32_t> &order);

/// A blocked layout for a coalesced copy: each thread moves `vectorBytes`
/// contiguous bytes along the fastest dim (order[0]), lanes fill that dim
/// first, warps take the slowest dims.
LinearLayout vectorizedCopyLayout(const std::vector<int32_t> &shape,
                                  int elemBytes, int warpSize, int numWarps,
                                  const std::vector<int32_t> &order = {},
                                  int vectorBytes = 16);

/// Tiles an MMA atom over a larger block tile: warps repeat the atom along
/// dims in `warpsPerBlock`, then registers repeat it to cover `shape`.
LinearLayout tileAtom(const LinearLayout &atom,
                      const std::vector<int32_t> &warpsPerBlock,
                      const std::vector<int32_t> &shape);

/// Cost class of moving data from one distributed layout to another.
enum class ConversionKind {
  None,            ///< same map: nothing to do
  RegisterPermute, ///< every thread already holds what it needs
  WarpShuffle,     ///< data moves only between lanes of one warp
  SharedMemory,    ///< data moves between warps of one block
  CrossBlock,      ///< data moves between blocks (distributed shared / global)
};
const char *toString(ConversionKind k);

struct ConversionCost {
  ConversionKind kind;
  /// Rough instructions per thread: 0 for None, ~0.25/register for register
  /// moves (often folded away), ~4/register for shuffles (index math plus
  /// shfl), ~12/register plus a barrier for a round trip through shared
  /// memory, and 100x that across blocks. Good enough to rank candidates.
  double cost;
};
/// Both layouts map hardware dims (register, lane, warp, block; any subset)
/// to the same tensor dims.
ConversionCost estimateConversionCost(const LinearLayout &src,
                                      const LinearLayout &dst);

} // namespace tessera::layout

#endif
