//===- SwizzleChoice.h - how the swizzle pass picks a swizzle --*- C++ -*-===//
//
// Exposed (no MLIR) so unit tests can check the exact choice the pass makes.
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_PASSES_SWIZZLECHOICE_H
#define TESSERA_PASSES_SWIZZLECHOICE_H

#include "tessera/layout/SharedMemory.h"

namespace tessera::passes {

/// The bytes one lane moves per shared-memory access of a rows x cols tile
/// whose copies move `copyVectorBytes` per thread: the copy's vector width,
/// capped by a row and by 16 bytes (the widest shared access of any target).
int sharedAccessBytes(int cols, int elemBytes, int copyVectorBytes);

/// The swizzle of a rows x cols shared tile read by column blocks of
/// consecutive rows (MMA operand / ldmatrix-like reads) and written by
/// row-contiguous vectors, both of `accessBytes` per lane.
layout::SwizzleParams chooseSharedSwizzle(int rows, int cols, int elemBytes,
                                          const layout::BankModel &banks,
                                          int accessBytes);

/// Lanes of one access instruction reading `accessBytes` each, lane l at row
/// row0 + l % rowsPerAccess ... (a column of chunks: the MMA operand pattern).
layout::SharedAccess columnChunkAccess(int rows, int cols, int elemBytes,
                                       int accessBytes, int warpSize, int row0,
                                       int col0);
/// Lanes writing consecutive chunks of consecutive rows (the copy pattern).
layout::SharedAccess rowChunkAccess(int rows, int cols, int elemBytes,
                                    int accessBytes, int warpSize, int row0);

} // namespace tessera::passes

#endif
