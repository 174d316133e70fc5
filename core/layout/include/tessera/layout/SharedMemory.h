//===- SharedMemory.h - swizzled shared-memory layouts, bank conflicts -*- C++
//-*-//
//
// A shared-memory layout is a bijective LinearLayout from the element offset
// within the tile (input dim `offset`) to tensor coordinates (dim0 = row,
// dim1 = column). Reading it backwards gives where element (r, c) is stored.
//
// XOR swizzle (vec, perPhase, maxPhase), for a row-major tile of C columns:
//   phase(r)      = (r / perPhase) % maxPhase
//   offset(r, c)  = r * C + ((c / vec) ^ phase(r)) * vec + c % vec
// Every quantity is a power of two, so this is linear over GF(2).
//
// The TMA / wgmma swizzle modes are the same thing in 16-byte chunks on rows
// of S = 32, 64 or 128 bytes: vec = 16 / elemBytes, perPhase = 128 / S,
// maxPhase = S / 16 (CUTLASS's Swizzle<log2(S/16), 4, 3> on byte addresses).
// A tile wider than S bytes is stored as column blocks of S bytes, one after
// the other.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LAYOUT_SHAREDMEMORY_H
#define TESSERA_LAYOUT_SHAREDMEMORY_H

#include "tessera/layout/LinearLayout.h"

namespace tessera::layout {

struct BankModel {
  int banks = 32;         ///< number of banks
  int bankWidthBytes = 4; ///< bytes per bank word
  int bytesPerCycle() const { return banks * bankWidthBytes; }
};

struct SwizzleParams {
  int vec = 1, perPhase = 1, maxPhase = 1;
  bool operator==(const SwizzleParams &o) const {
    return vec == o.vec && perPhase == o.perPhase && maxPhase == o.maxPhase;
  }
};

/// offset -> (dim0, dim1) for a row-major rows x cols tile with the given
/// XOR swizzle; (1, 1, 1) is plain row-major.
LinearLayout swizzledSharedLayout(int rows, int cols, SwizzleParams p);

/// Swizzle parameters of a TMA/wgmma mode: swizzleBytes in {0, 32, 64, 128}.
SwizzleParams swizzleForMode(int swizzleBytes, int elemBytes);

/// The TMA/wgmma ("NVMMA") shared layout: column blocks of swizzleBytes,
/// each a rows x (swizzleBytes/elemBytes) swizzled tile. swizzleBytes = 0 is
/// plain row-major.
LinearLayout nvmmaSharedLayout(int rows, int cols, int elemBytes,
                               int swizzleBytes);

/// A swizzle that makes reads of `accessBytes` per lane from 8 (or, in
/// general, bytesPerCycle/accessBytes) consecutive rows hit distinct banks:
/// vec = accessBytes/elemBytes, perPhase = rows sharing one bank row,
/// maxPhase = chunks of one bank row (capped by the chunks in a tile row).
SwizzleParams chooseSwizzle(int rows, int cols, int elemBytes,
                            const BankModel &banks, int accessBytes = 16);

/// One shared-memory instruction: lane i reads or writes `bytesPerLane`
/// contiguous bytes starting at element laneCoords[i] (its (dim0, dim1));
/// an empty coordinate list means the lane is inactive.
struct SharedAccess {
  std::vector<std::vector<int32_t>> laneCoords;
  int bytesPerLane = 4;
};

struct ConflictReport {
  int phases = 0;     ///< groups of lanes the hardware serves together
  int wavefronts = 0; ///< cycles needed (>= phases)
  int conflicts = 0;  ///< wavefronts - phases: extra cycles from conflicts
};

/// Counts bank conflicts of `access` on a tile stored with `shared`
/// (offset -> tensor). Lanes are served in phases of
/// bytesPerCycle / bytesPerLane lanes (NVIDIA: 8 lanes for 16-byte
/// accesses); within a phase, a bank hit by k distinct words costs k
/// wavefronts (the same word is a broadcast, no conflict).
ConflictReport countBankConflicts(const LinearLayout &shared, int elemBytes,
                                  const BankModel &banks,
                                  const SharedAccess &access);

/// ldmatrix.x4 on a 16x16 16-bit block at (row0, col0): lane l gives the
/// address of row row0 + l%16, columns col0 + 8*(l/16) .. +7 (16 bytes).
SharedAccess ldmatrixX4Access(int row0, int col0);

} // namespace tessera::layout

#endif
