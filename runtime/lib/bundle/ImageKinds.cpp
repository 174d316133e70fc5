//===- ImageKinds.cpp - names of image and offload kinds ------------------===//

#include "tessera/bundle/Bundle.h"

namespace tessera::bundle {

// Close to what `llvm-objdump --offloading` prints, so both tools use the
// same words.
const char *imageKindName(ImageKind kind) {
  switch (kind) {
  case ImageKind::None:
    return "none";
  case ImageKind::Object:
    return "elf";
  case ImageKind::Bitcode:
    return "bc";
  case ImageKind::Cubin:
    return "cubin";
  case ImageKind::Fatbinary:
    return "fatbin";
  case ImageKind::PTX:
    return "ptx";
  case ImageKind::SPIRV:
    return "spv";
  }
  return "unknown";
}

const char *offloadKindName(OffloadKind kind) {
  switch (kind) {
  case OffloadKind::None:
    return "none";
  case OffloadKind::OpenMP:
    return "openmp";
  case OffloadKind::Cuda:
    return "cuda";
  case OffloadKind::HIP:
    return "hip";
  case OffloadKind::SYCL:
    return "sycl";
  }
  return "unknown";
}

std::string_view Image::string(std::string_view key) const {
  for (auto it = strings.rbegin(); it != strings.rend(); ++it)
    if (it->first == key)
      return it->second;
  return {};
}

bool Image::hasString(std::string_view key) const {
  for (const auto &entry : strings)
    if (entry.first == key)
      return true;
  return false;
}

void Image::setString(std::string key, std::string value) {
  for (auto &entry : strings)
    if (entry.first == key) {
      entry.second = std::move(value);
      return;
    }
  strings.emplace_back(std::move(key), std::move(value));
}

} // namespace tessera::bundle
