//===- HostReference.h - reference results from a bundle's source -*- C++
//-*-===//
#ifndef TESSERA_TOOLS_TESSERA_HOSTREFERENCE_H
#define TESSERA_TOOLS_TESSERA_HOSTREFERENCE_H

#include "HostTensor.h"

#include "tessera/runtime.h"

namespace tessera::tool {

/// Computes the expected tensors of `kernel` by interpreting the tile source
/// the bundle image carries (`tessera.source`) on the same inputs. Returns
/// false with `why` when no reference can be computed (no source, no
/// compiler library to load, an op the interpreter lacks).
bool computeReference(const std::string &source, const std::string &kernel,
                      const std::vector<HostTensor> &tensors,
                      const std::vector<tessera_arg> &scalars,
                      std::vector<HostTensor> &out, std::string &why);

} // namespace tessera::tool

#endif
