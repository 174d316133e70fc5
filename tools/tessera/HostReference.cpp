//===- HostReference.cpp - reference results from a bundle's source -------===//
//
// The tile interpreter lives in libtessera_compiler.so, which the tool loads
// only here (CompilerLibrary.h); without it the check is skipped.
//
//===----------------------------------------------------------------------===//

#include "HostReference.h"

#include "CompilerLibrary.h"

#include <cstdio>
#include <stdexcept>
#include <string>

using namespace tessera;
using namespace tessera::tool;

bool tessera::tool::computeReference(const std::string &source,
                                     const std::string &kernel,
                                     const std::vector<HostTensor> &tensors,
                                     const std::vector<tessera_arg> &scalars,
                                     std::vector<HostTensor> &out,
                                     std::string &why) {
  if (source.empty()) {
    why = "the bundle carries no tile source";
    return false;
  }
  std::string loadError;
  const CompilerLibrary *compiler = loadCompilerLibrary(loadError);
  if (!compiler) {
    why = "no compiler library for the reference";
    return false;
  }
  // The interpreter works on doubles: 8 bytes an element, whatever the
  // dtype. Without room for them the check is skipped, not the run.
  // Lazily committed memory would not throw here but kill the process when
  // touched: check the budget first (doubles, plus a copy of the results).
  long double needed = 0;
  for (const HostTensor &h : tensors)
    needed += 8.0L * h.numElements() + h.bytes.size();
  uint64_t available = hostAvailableBytes();
  if (available && needed > available) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "the tile interpreter needs %.0Lf bytes of host memory; %llu "
                  "are available",
                  needed, (unsigned long long)available);
    why = text;
    return false;
  }
  std::vector<std::vector<double>> data(tensors.size());
  std::vector<tessera_reference_tensor> refs(tensors.size());
  for (size_t t = 0; t < tensors.size(); ++t) {
    const HostTensor &h = tensors[t];
    try {
      data[t].resize(size_t(h.numElements()));
    } catch (const std::exception &) {
      why = "cannot allocate " + std::to_string(8 * h.numElements()) +
            " bytes of host memory for the reference's copy of argument " +
            std::to_string(t);
      return false;
    }
    for (int64_t i = 0; i < h.numElements(); ++i)
      data[t][size_t(i)] = h.get(i);
    refs[t] = {h.dims.data(), h.dims.size(), data[t].data()};
  }
  std::vector<double> values;
  for (const tessera_arg &arg : scalars) {
    const tessera_scalar_arg &sc = arg.u.scalar;
    values.push_back(sc.dtype == TESSERA_DTYPE_F32   ? double(sc.value.f32)
                     : sc.dtype == TESSERA_DTYPE_F64 ? sc.value.f64
                                                     : double(sc.value.i));
  }
  char message[512] = "";
  if (compiler->reference(source.data(), source.size(), kernel.c_str(),
                          refs.data(), refs.size(), values.data(),
                          values.size(), message, sizeof(message)) != 0) {
    why = message[0] ? message : "the reference interpreter failed";
    return false;
  }
  try {
    out = tensors;
  } catch (const std::exception &) {
    why = "no host memory left for the reference's results";
    return false;
  }
  for (size_t t = 0; t < out.size(); ++t)
    for (int64_t i = 0; i < out[t].numElements(); ++i)
      out[t].set(i, data[t][size_t(i)]);
  return true;
}
