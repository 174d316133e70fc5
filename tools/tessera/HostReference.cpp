//===- HostReference.cpp - reference results from a bundle's source -------===//
//
// The tile interpreter lives in libtessera_compiler.so, which the tool loads
// only here (CompilerLibrary.h); without it the check is skipped.
//
//===----------------------------------------------------------------------===//

#include "HostReference.h"

#include "CompilerLibrary.h"

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
  std::vector<std::vector<double>> data(tensors.size());
  std::vector<tessera_reference_tensor> refs(tensors.size());
  for (size_t t = 0; t < tensors.size(); ++t) {
    const HostTensor &h = tensors[t];
    data[t].resize(size_t(h.numElements()));
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
  out = tensors;
  for (size_t t = 0; t < out.size(); ++t)
    for (int64_t i = 0; i < out[t].numElements(); ++i)
      out[t].set(i, data[t][size_t(i)]);
  return true;
}
