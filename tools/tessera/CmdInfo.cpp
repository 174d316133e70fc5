//===- CmdInfo.cpp - `tessera info <bundle>` ------------------------------===//
//
// Prints what a bundle holds: each image's target, kind and size, and each
// kernel's launch facts and arguments. Reads the file with the same code the
// runtime uses, so a bundle `info` accepts is one the runtime accepts.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/KernelMetadata.h"

#include <cstdio>

namespace tessera::tool {

namespace {

void printKernel(const bundle::KernelInfo &kernel) {
  std::printf("  kernel %s (symbol %s): %u threads, %u shared bytes, grid "
              "[%s, %s, %s]\n",
              kernel.name.c_str(), kernel.symbol.c_str(), kernel.threads,
              kernel.sharedBytes, kernel.grid[0].c_str(),
              kernel.grid[1].c_str(), kernel.grid[2].c_str());
  for (const bundle::KernelArg &arg : kernel.args) {
    if (arg.kind == bundle::ArgKind::Scalar) {
      std::printf("    %s: scalar %s\n", arg.name.c_str(),
                  bundle::dtypeName(arg.dtype));
      continue;
    }
    std::string dims;
    for (const std::string &dim : arg.dims)
      dims += (dims.empty() ? "" : ", ") + dim;
    std::printf("    %s: tensor %s [%s]\n", arg.name.c_str(),
                bundle::dtypeName(arg.dtype), dims.c_str());
  }
}

} // namespace

int runInfo(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tessera info <bundle.tsb>\n");
    return 2;
  }
  std::string path = argv[1];
  bundle::Bundle contents;
  std::string error;
  if (!bundle::readBundleFile(path, contents, error)) {
    std::fprintf(stderr, "tessera: %s\n", error.c_str());
    return 1;
  }
  std::printf("bundle %s: %zu image%s\n", path.c_str(), contents.images.size(),
              contents.images.size() == 1 ? "" : "s");
  int status = 0;
  for (size_t i = 0; i < contents.images.size(); ++i) {
    const bundle::Image &image = contents.images[i];
    std::string version(image.string(bundle::kVersionKey));
    std::printf("image %zu: %s:%s, %s image (%s), %zu bytes%s%s\n", i,
                std::string(image.triple()).c_str(),
                std::string(image.arch()).c_str(),
                bundle::imageKindName(image.imageKind),
                bundle::offloadKindName(image.offloadKind), image.bytes.size(),
                version.empty() ? "" : ", tessera ", version.c_str());
    std::printf("  sha256 = %s (verified)\n", image.sha256.c_str());
    for (const auto &[key, value] : image.strings)
      if (key != bundle::kTripleKey && key != bundle::kArchKey &&
          key != bundle::kKernelsKey && key != bundle::kVersionKey) {
        // Multi-line values (the embedded tile source) print as a size only.
        if (value.find('\n') != std::string::npos)
          std::printf("  %s: %zu bytes of text\n", key.c_str(), value.size());
        else
          std::printf("  %s = %s\n", key.c_str(), value.c_str());
      }
    if (!image.hasString(bundle::kKernelsKey)) {
      // An on-demand image's kernels are described by the image before it.
      if (!image.hasString(bundle::kOnDemandKey))
        std::printf("  (no tessera.kernels metadata)\n");
      continue;
    }
    std::vector<bundle::KernelInfo> kernels;
    std::string source = path + " image " + std::to_string(i);
    if (!bundle::parseKernelMetadata(image.kernels(), source, kernels, error)) {
      std::fprintf(stderr, "tessera: %s\n", error.c_str());
      status = 1;
      continue;
    }
    for (const bundle::KernelInfo &kernel : kernels)
      printKernel(kernel);
  }
  return status;
}

} // namespace tessera::tool
