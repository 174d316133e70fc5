//===- LayoutSpec.h - layouts by name or spec string, layout dumps -*- C++
//-*-===//
//
// One string names any layout tessera can build. Used by TargetDescription
// files (operand/accumulator layouts of MMA atoms) and by
// `tessera-opt --dump-layouts`.
//
//   mma_m16n8k16_{a,b,c}            NVIDIA mma.sync m16n8k16 fragments
//   wgmma_m64n<N>k16_acc            NVIDIA wgmma accumulator, N = 8..256 (pow2)
//   wgmma_m64k16_a                  NVIDIA wgmma A operand in registers
//   mfma_32x32x8_f16_{a,b,c}        AMD CDNA3 MFMA (wave64)
//   mfma_16x16x16_f16_{a,b,c}
//   wmma_16x16x16_f16_{a,b,c}       AMD RDNA3 WMMA (wave32)
//   blocked:sizePerThread=1x4,threadsPerWarp=8x4,warpsPerBlock=4x1,order=1x0[,shape=64x64]
//   copy:shape=64x64,elemBytes=2,warpSize=32,warps=4[,order=1x0][,vectorBytes=16]
//   swizzle:rows=128,cols=32,vec=8,perPhase=2,maxPhase=4
//   nvmma:rows=64,cols=64,elemBytes=2,swizzle=128
//   tile:atom=mma_m16n8k16_c,warpsPerBlock=2x2,shape=64x64
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_LAYOUT_LAYOUTSPEC_H
#define TESSERA_LAYOUT_LAYOUTSPEC_H

#include "tessera/layout/LinearLayout.h"

#include <ostream>
#include <string>
#include <vector>

namespace tessera::layout {

/// Builds the layout a spec string names. Throws LayoutError with a message
/// that quotes the spec.
LinearLayout parseLayoutSpec(const std::string &spec);

/// The fixed names (no parameters) plus one example of each family.
std::vector<std::string> namedLayoutExamples();

/// Entry point of `tessera-opt --dump-layouts <args...>`. Arguments:
///   <spec>...        layouts to print (table of T<thread>:r<register>)
///   --svg=<file>     also write an SVG picture (with several specs, the
///                    i-th goes to <file> with "-<i>" before the extension)
///   --bases          print the bases only, not the table
///   --list           print example specs
/// Returns 0 on success, 1 on error (message written to `err`).
int dumpLayoutsMain(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err);

} // namespace tessera::layout

#endif
