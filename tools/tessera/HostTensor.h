//===- HostTensor.h - host copies of kernel arguments -----------*- C++ -*-===//
#ifndef TESSERA_TOOLS_TESSERA_HOSTTENSOR_H
#define TESSERA_TOOLS_TESSERA_HOSTTENSOR_H

#include "tessera/bundle/KernelMetadata.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tessera::tool {

/// The bytes of one tensor argument in its dtype, on the host.
struct HostTensor {
  bundle::DType dtype;
  std::vector<int64_t> dims;
  std::vector<unsigned char> bytes;

  int64_t numElements() const;
  /// Element i widened to double.
  double get(int64_t i) const;
  void set(int64_t i, double v);
};

/// The host memory a new allocation can use without swapping (Linux's
/// MemAvailable, else the physical memory), or 0 when unknown.
uint64_t hostAvailableBytes();

/// Fills the sized `t` with uniform values in [-1, 1), or with `normal`
/// standard normal values (torch.randn's distribution, for timings beside
/// torch peers: a GPU's clock under load depends on the data), seeded by
/// one draw of `rng` (the same values on any machine, filled on up to 16
/// threads); small integers in [-8, 8] for integer dtypes either way.
void fillRandom(HostTensor &t, std::mt19937_64 &rng, bool normal = false);

/// Relative error ||a - b|| / ||b|| (2-norms); infinity when either holds a
/// NaN or their shapes differ.
double relativeError(const HostTensor &a, const HostTensor &b);

/// The tolerance a result of `dtype` computed two independent ways should
/// meet.
double toleranceFor(bundle::DType dtype);

} // namespace tessera::tool

#endif
