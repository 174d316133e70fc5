//===- hsaco_reader.h - what a launch needs from an AMD code object -*- C++
//-*-===//
//
// The hip compiler writes each image as an AMDGPU code object (an "hsaco":
// an ELF64 shared object for e_machine EM_AMDGPU, OS/ABI AMDGPU_HSA, code
// object v5) whose NT_AMDGPU_METADATA note (a MessagePack map,
// "amdhsa.kernels") describes every kernel: its kernarg segment and the offset,
// size and kind of each argument in it, its LDS and its work-group size. The
// plugin reads them itself, without LLVM (the runtime side links no LLVM) and
// before HIP sees the image:
//  - to refuse what is not a code object for this device with a precise
//    reason, where HIP would answer hipErrorInvalidImage at best: HIP's
//    hipModuleLoadData takes no size and trusts the ELF's own offsets, so a
//    truncated or corrupt image must never reach it;
//  - to lay out the kernarg buffer of a launch (hip_plugin.cpp), and check
//    the launch's slots, block and LDS against the kernel.
//
// Everything is bounds-checked against the image's size; any inconsistency
// is an error naming what is wrong. Little-endian ELF64 only (what LLVM's
// AMDGPU backend and ld.lld write).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_HIP_RUNTIME_HSACO_READER_H
#define TESSERA_BACKENDS_HIP_RUNTIME_HSACO_READER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::hip {

/// One entry of a kernel's ".args".
struct KernelArgument {
  uint32_t offset = 0;   // .offset in the kernarg segment
  uint32_t size = 0;     // .size in bytes
  std::string valueKind; // .value_kind: by_value, global_buffer, hidden_...
  /// Hidden arguments (hidden_block_count_x, hidden_dynamic_lds_size, ...)
  /// follow the explicit ones; HIP fills them at launch.
  bool hidden() const { return valueKind.rfind("hidden_", 0) == 0; }
};

/// One entry of "amdhsa.kernels".
struct KernelDescriptor {
  std::string name;   // .name, the kernel's symbol (tessera_kernel_<name>)
  std::string symbol; // .symbol, its kernel descriptor (<name>.kd)
  std::vector<KernelArgument> args; // in .args order
  uint32_t kernargSegmentSize = 0;
  uint32_t kernargSegmentAlign = 0;
  uint32_t groupSegmentFixedSize = 0; // static LDS bytes
  uint32_t privateSegmentFixedSize = 0;
  uint32_t maxFlatWorkgroupSize = 0;         // 0: not given
  uint32_t reqdWorkgroupSize[3] = {0, 0, 0}; // all 0: not given
  uint32_t wavefrontSize = 0;

  /// The arguments a launch passes (every one that is not hidden), in
  /// order.
  std::vector<KernelArgument> explicitArgs() const;
};

struct CodeObject {
  uint8_t abiVersion = 0;     // EI_ABIVERSION: 2, 3, 4
  uint32_t codeObjectVersion; // 4, 5, 6 (ABI version + 2)
  std::string target;         // amdhsa.target: amdgcn-amd-amdhsa--gfx942
  std::string chip;           // gfx942
  /// Target features the code object was built with a setting of, as
  /// written: "sramecc+", "xnack-". None: it runs with either.
  std::vector<std::string> features;
  std::vector<KernelDescriptor> kernels;
  size_t elfBytes = 0; // the extent the ELF's headers describe

  const KernelDescriptor *find(const std::string &name) const;
};

/// Reads the code object in `image` (`size` bytes). On failure returns
/// false with a sentence in `error` saying what the image is instead ("an
/// ELF for machine 190 (NVIDIA CUDA)", "SPIR-V", "a clang offload bundle",
/// "truncated: the section headers end at byte N of M", ...).
bool readCodeObject(const void *image, size_t size, CodeObject &out,
                    std::string &error);

/// Splits an AMDGPU target id ("gfx942:sramecc+:xnack-", or a full
/// "amdgcn-amd-amdhsa--gfx942:xnack-") into its chip and feature settings.
void splitTargetId(const std::string &targetId, std::string &chip,
                   std::vector<std::string> &features);

/// Empty when a code object built with `objectFeatures` runs on a device
/// whose target id has `deviceFeatures`; else why not ("built for xnack+,
/// the device has xnack-").
std::string featureMismatch(const std::vector<std::string> &objectFeatures,
                            const std::vector<std::string> &deviceFeatures);

} // namespace tessera::hip

#endif
