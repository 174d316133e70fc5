//===- BufferLoads.h - global tensor loads as AMD buffer loads --*- C++ -*-===//
//
// A buffer resource (V#) built from an address and a byte extent makes the
// hardware check every load's byte offset against the extent: an offset at
// or past it reads 0 and touches no memory. Distribution's copies
// (TargetHooks::loadGlobal) use that at the tensor's edges: a piece that is
// not wholly inside the tensor gets an offset past every extent instead of a
// branch around its load.
//
// Offsets are 32-bit (the VGPR offset of a MUBUF load), and so is the
// resource's NUM_RECORDS field on these chips. Each copy therefore gets a
// resource of its own that starts at the copy's first element (the tile's
// origin, which is the same for every lane: the resource stays in SGPRs)
// and ends at the tensor's end, at most kMaxBufferBytes (2^31) past its
// start: the offsets of the pieces count from the origin, so a tensor of
// any size is read correctly as long as one copy's elements lie within
// 2^31 bytes of its first one (for a rank-2 tile of R rows:
// ((R - 1) * row pitch + columns) * element bytes <= 2^31, rows of up to
// 16 MiB under 128-row tiles). A copy that reaches further stops the kernel
// (s_trap) instead of reading zeros (trapBeyondBufferReach). The piece
// offsets no longer depend on where the tile is, only on the lane: in a
// loop over tiles they are computed once and only the resource moves.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_BACKENDS_HIP_BUFFERLOADS_H
#define TESSERA_BACKENDS_HIP_BUFFERLOADS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace tessera::hip {

/// The furthest a copy reaches from its first element (bytes) through one
/// buffer resource.
constexpr int64_t kMaxBufferBytes = int64_t(1) << 31;
/// The byte offset of a piece outside the tensor: at or past every extent a
/// resource is built with, so the hardware returns zeros.
constexpr uint32_t kOutOfRangeOffset = uint32_t(1) << 31;

/// The last 32-bit word of a raw buffer resource (stride 0, bounds checked
/// against NUM_RECORDS in bytes) for `chip`, or nothing for chips whose
/// word is not known here (no buffer loads there).
std::optional<uint32_t> bufferResourceFlags(llvm::StringRef chip);

/// The buffer resource (`!llvm.ptr<8>`) of the bytes of row-major memref
/// `memref` (`extentBytes` of them, an `index`) from byte `originBytes` on
/// (an `index`, possibly past the end: then the resource is empty), at most
/// kMaxBufferBytes of them, with the flags word `flags`.
mlir::Value makeBufferResource(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value memref, mlir::Value extentBytes,
                               mlir::Value originBytes, uint32_t flags);

/// Stops the kernel (llvm.trap) where `reachBytes` (an `index`: how far a
/// copy's elements lie from its first one) exceeds kMaxBufferBytes.
void trapBeyondBufferReach(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value reachBytes);

/// `n` consecutive elements of type `elem` of one row from element `index`
/// (an `index`, counted from the resource's start) of the resource `rsrc`:
/// a `vector<n x elem>` (`elem` for n = 1). `valid` is an i1 for the whole
/// piece (one load of n elements; zeros where false) or a `vector<n x i1>`
/// (one load per element, element i out of range where bit i is false). Null
/// for pieces no buffer load moves (elements of fewer than 8 bits, loads other
/// than 1, 2, 4, 8 or 16 bytes).
mlir::Value bufferLoad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value rsrc,
                       mlir::Value index, mlir::Type elem, int64_t n,
                       mlir::Value valid);

} // namespace tessera::hip

#endif
