/*===- tessera/spirv/image.h - the spirv backend's module image ---*- C -*-===//
 *
 * What the spirv compiler plugin writes into a bundle for the triple
 * spirv64-unknown-vulkan1.3 and what the Vulkan runtime plugin loads: one
 * SPIR-V module (one compute entry point per kernel) behind a small table of
 * what a launch needs that SPIR-V does not say in a form the runtime can read
 * cheaply. Every field is a little-endian uint32 ("word").
 *
 *   header (8 words)
 *     magic            TESSERA_SPIRV_IMAGE_MAGIC ("TVK1")
 *     version          TESSERA_SPIRV_IMAGE_VERSION
 *     kernel_count
 *     spirv_offset     in words from the start of the image
 *     spirv_words      the SPIR-V module's length in words
 *     reserved[3]      0
 *   kernel_count records, one after the other, each:
 *     record_words     this record's length in words, this word included
 *     local_size[3]    the entry point's LocalSize (a launch's block must
 *                      equal it: Vulkan fixes it at compile time)
 *     subgroup_size    the subgroup size the code assumes (0: any); the
 *                      runtime requests it with full subgroups
 *                      (VK_EXT_subgroup_size_control) or refuses the launch
 *     shared_bytes     static workgroup memory the entry point declares
 *     num_slots        the kernel's launch slots (runtime_abi.h)
 *     push_bytes       4 * num_slots
 *     name_bytes       the entry point's name, without a NUL
 *     scratch_bytes    bytes per workgroup of shared tiles placed in device
 *                      memory (those beyond the device's workgroup memory)
 *     scratch_bindings how many storage-buffer bindings, right after the
 *                      tensors' (binding = number of BUFFER slots + j), view
 *                      the scratch buffer; the runtime binds one buffer of
 *                      at least grid x scratch_bytes bytes to all of them
 *                      (workgroup w uses bytes [w * scratch_bytes, ...),
 *                      w = x + gx * (y + gy * z))
 *     name             name_bytes bytes, zero-padded to a multiple of 4
 *     slot_kind        num_slots bytes, zero-padded to a multiple of 4:
 *                      TESSERA_SPIRV_SLOT_VALUE or TESSERA_SPIRV_SLOT_BUFFER
 *
 * The kernel ABI: slot i of a launch becomes push-constant word i (offset
 * 4 * i in one push-constant block of push_bytes bytes). A VALUE slot's word
 * is the low 32 bits of the slot. A BUFFER slot (a tensor's device address)
 * is bound as a storage buffer at descriptor set 0, binding = the number of
 * BUFFER slots before it, and its word is the byte offset of the address
 * from the start of the bound range (the runtime binds from the address
 * rounded down to the device's storage-buffer offset alignment).
 *
 * Device addresses of the Vulkan runtime plugin are handles:
 * (buffer id << TESSERA_SPIRV_ADDRESS_SHIFT) | byte offset, buffer id >= 1,
 * so a host may add byte offsets to them as to any device address.
 *===----------------------------------------------------------------------===*/

#ifndef TESSERA_SPIRV_IMAGE_H
#define TESSERA_SPIRV_IMAGE_H

#include <stdint.h>

#define TESSERA_SPIRV_IMAGE_MAGIC 0x314B5654u /* "TVK1" */
#define TESSERA_SPIRV_IMAGE_VERSION 1u
#define TESSERA_SPIRV_IMAGE_HEADER_WORDS 8u
/* Words of a kernel record before its name. */
#define TESSERA_SPIRV_RECORD_FIXED_WORDS 11u

#define TESSERA_SPIRV_SLOT_VALUE 0u
#define TESSERA_SPIRV_SLOT_BUFFER 1u

#define TESSERA_SPIRV_ADDRESS_SHIFT 40u
#define TESSERA_SPIRV_ADDRESS_OFFSET_MASK                                      \
  ((1ull << TESSERA_SPIRV_ADDRESS_SHIFT) - 1ull)

/* The triple whose bundle images hold this format. */
#define TESSERA_SPIRV_TRIPLE "spirv64-unknown-vulkan1.3"

#endif /* TESSERA_SPIRV_IMAGE_H */
