//===- make_sample_bundle.cpp - write a bundle for the tool tests ---------===//
//
// Usage: make_sample_bundle <out.tsb> [--truncate]

#include "tessera/bundle/Bundle.h"
#include "tessera/bundle/KernelMetadata.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <tuple>

using namespace tessera::bundle;

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  KernelInfo gemm;
  gemm.name = "gemm";
  gemm.symbol = "tessera_kernel_gemm";
  gemm.threads = 128;
  gemm.grid = {"ceildiv(N, 128)", "ceildiv(M, 128)", "1"};
  gemm.args = {{"A", ArgKind::Tensor, DType::F16, {"M", "K"}},
               {"B", ArgKind::Tensor, DType::F16, {"K", "N"}},
               {"C", ArgKind::Tensor, DType::F32, {"M", "N"}},
               {"alpha", ArgKind::Scalar, DType::F32, {}}};
  Bundle bundle;
  for (auto [triple, chip, kind] :
       {std::tuple{"x86_64-unknown-linux-gnu", "x86-64-v3", ImageKind::Object},
        std::tuple{"nvptx64-nvidia-cuda", "sm_90a", ImageKind::Cubin}}) {
    Image image;
    image.imageKind = kind;
    image.offloadKind =
        kind == ImageKind::Cubin ? OffloadKind::Cuda : OffloadKind::OpenMP;
    image.setString(kTripleKey, triple);
    image.setString(kArchKey, chip);
    image.setString(kKernelsKey, printKernelMetadata({gemm}));
    image.setString(kVersionKey, "0.1.0");
    image.bytes.assign(4096, 'x');
    bundle.images.push_back(image);
  }
  std::string data = writeBundle(bundle);
  if (argc > 2 && !std::strcmp(argv[2], "--truncate"))
    data.resize(data.size() - 1000);
  std::ofstream(argv[1], std::ios::binary) << data;
  return 0;
}
