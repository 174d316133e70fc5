//===- vk_statistics.h - what the driver compiled, on request ---*- C++ -*-===//
//
// $TESSERA_VULKAN_STATS asks the plugin to say what the driver made of each
// kernel, which the SPIR-V cannot tell (registers, spills, instruction
// counts): with VK_KHR_pipeline_executable_properties every pipeline is
// created with VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR and its
// executables' statistics are printed to stderr, one line each:
//
//   tessera-vk-stats: kernel gemm executable 0 "Compute shader": Register
//   Count = 128; Local Memory Size = 0; ...
//
// and at device open the cooperative-matrix shapes the driver reports
// (vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR):
//
//   tessera-vk-stats: cooperative matrix 16x16x16 f16 x f16 + f32 -> f32
//   (subgroup)
//
// A value naming a folder (holding a '/') also writes the executables'
// internal representations where the driver offers them, as
// <folder>/<kernel>.<executable>.<representation>.txt.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_RUNTIME_VK_STATISTICS_H
#define TESSERA_BACKENDS_SPIRV_RUNTIME_VK_STATISTICS_H

#include "vk_symbols.h"

#include <string>
#include <vector>

namespace tessera::spirv {

class Device;

/// What $TESSERA_VULKAN_STATS asks for.
struct StatisticsRequest {
  bool statistics = false;
  std::string representationsDir; // empty: none
};
StatisticsRequest statisticsRequested();

/// The cooperative-matrix shapes `physical` reports, one phrase each
/// ("16x16x16 f16 x f16 + f32 -> f32 (subgroup)"); empty without
/// VK_KHR_cooperative_matrix.
std::vector<std::string> cooperativeMatrixShapes(const InstanceFunctions &vki,
                                                 VkPhysicalDevice physical);

/// Prints (and writes) what $TESSERA_VULKAN_STATS asks about `pipeline`,
/// created with the capture flags by device.statisticsFlags().
void reportPipeline(const Device &device, VkPipeline pipeline,
                    const std::string &kernel);

} // namespace tessera::spirv

#endif
