//===- image_reader.h - parsing the spirv backend's module image -*- C++
//-*-===//
//
// Reads the image format of tessera/spirv/image.h into plain structures,
// checking everything before the plugin hands a byte of it to the driver:
// a malformed SPIR-V module can crash a Vulkan driver, and a record that
// overruns the image would make the plugin read past the caller's buffer.
// Beyond the format itself it walks the SPIR-V module's preamble, so a
// record naming an entry point the module lacks (or declaring another
// LocalSize than the module) is refused at load rather than at pipeline
// creation. Needs no Vulkan.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_RUNTIME_IMAGE_READER_H
#define TESSERA_BACKENDS_SPIRV_RUNTIME_IMAGE_READER_H

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::spirv {

/// One kernel record of an image.
struct KernelRecord {
  std::string name; // the SPIR-V entry point
  uint32_t localSize[3] = {1, 1, 1};
  uint32_t subgroupSize = 0; // 0: any
  uint32_t sharedBytes = 0;
  uint32_t pushBytes = 0; // 4 * slotKinds.size()
  // Shared tiles in device memory: bytes per workgroup, and the bindings
  // after the tensors' that view the one scratch buffer.
  uint32_t scratchBytes = 0;
  uint32_t scratchBindings = 0;
  std::vector<uint8_t> slotKinds; // TESSERA_SPIRV_SLOT_*

  /// Slots bound as storage buffers (the descriptor set's first bindings).
  uint32_t bufferSlots() const;
};

struct SpirvImage {
  std::vector<KernelRecord> kernels;
  std::vector<uint32_t> spirv; // the module, copied out of the image

  /// The SPIR-V version word's major and minor (e.g. 1 and 6).
  uint32_t spirvMajor() const { return spirv.size() > 1 ? spirv[1] >> 16 : 0; }
  uint32_t spirvMinor() const {
    return spirv.size() > 1 ? (spirv[1] >> 8) & 0xff : 0;
  }
};

/// Parses `size` bytes at `data` (any alignment). On failure returns false
/// with a sentence saying what is wrong in `error`.
bool readSpirvImage(const void *data, uint64_t size, SpirvImage &image,
                    std::string &error);

} // namespace tessera::spirv

#endif
