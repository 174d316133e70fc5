//===- SpirvTargetHooks.cpp - what Vulkan adds to distribution ------------===//

#include "SpirvTargetHooks.h"

using namespace mlir;

namespace tessera::spirv {

bool SpirvTargetHooks::canEmitAtom(const target::MmaAtom &) const {
  // No per-lane matrix instruction: Vulkan's cooperative matrices keep their
  // elements' placement opaque, so they cannot be a register-layout atom.
  // Layout inference then takes the core's vector FMA.
  return false;
}

SmallVector<Value> SpirvTargetHooks::emitMma(OpBuilder &, Location,
                                             const target::MmaAtom &,
                                             ArrayRef<Value>, ArrayRef<Value>,
                                             ArrayRef<Value> c) {
  return SmallVector<Value>(c);
}

} // namespace tessera::spirv
