//===- vk_symbols.h - Vulkan entry points loaded by dlopen ------*- C++ -*-===//
//
// The plugin reaches Vulkan only through these tables: the loader is
// dlopened, vkGetInstanceProcAddr is its one dlsym'd symbol, and everything
// else comes through it (instance functions) or through vkGetDeviceProcAddr
// (device functions, which then skip the loader's dispatch trampolines).
// Each list is an X-macro, so adding a call is one line; <vulkan/vulkan.h>
// supplies only the types and PFN_ typedefs (VK_NO_PROTOTYPES).
//
// Thread-safety: tables are filled once (initialize, device_open) and are
// read-only afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_RUNTIME_VK_SYMBOLS_H
#define TESSERA_BACKENDS_SPIRV_RUNTIME_VK_SYMBOLS_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <string>

namespace tessera::spirv {

// Through vkGetInstanceProcAddr(NULL, name).
#define TESSERA_VK_GLOBAL_SYMBOLS(X)                                           \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceExtensionProperties)

// Absent from Vulkan 1.0 loaders, which is how one tells them apart.
#define TESSERA_VK_OPTIONAL_GLOBAL_SYMBOLS(X) X(vkEnumerateInstanceVersion)

#define TESSERA_VK_INSTANCE_SYMBOLS(X)                                         \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

// Core Vulkan 1.0-1.2 only: every device the plugin accepts has them.
#define TESSERA_VK_DEVICE_SYMBOLS(X)                                           \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkDeviceWaitIdle)                                                          \
  X(vkQueueSubmit)                                                             \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkFreeCommandBuffers)                                                      \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdFillBuffer)                                                           \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdPushConstants)                                                        \
  X(vkCmdDispatch)                                                             \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkCreateSemaphore)                                                         \
  X(vkDestroySemaphore)                                                        \
  X(vkWaitSemaphores)                                                          \
  X(vkGetSemaphoreCounterValue)                                                \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkGetQueryPoolResults)                                                     \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkFreeDescriptorSets)                                                      \
  X(vkUpdateDescriptorSets)

#define TESSERA_VK_DECLARE_FIELD(name) PFN_##name name = nullptr;

/// The loader library and the functions that need no instance.
struct VulkanLoader {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  TESSERA_VK_GLOBAL_SYMBOLS(TESSERA_VK_DECLARE_FIELD)
  TESSERA_VK_OPTIONAL_GLOBAL_SYMBOLS(TESSERA_VK_DECLARE_FIELD)

  /// dlopens `library` (RTLD_NOW | RTLD_LOCAL) and resolves the global
  /// functions. On failure returns false with a sentence in `error`:
  /// "libvulkan.so.1 not found (dlopen <library>: <dlerror>)" or
  /// "<library> lacks vkXxx (not a Vulkan loader?)".
  bool load(const char *library, std::string &error);

  // Never dlclosed: a loader may have registered exit handlers, and a later
  // initialize dlopens it again (which only bumps its reference count).
  void *handle = nullptr;
};

struct InstanceFunctions {
  TESSERA_VK_INSTANCE_SYMBOLS(TESSERA_VK_DECLARE_FIELD)
  /// vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR, or null (the loader
  /// or the headers predate VK_KHR_cooperative_matrix; its structures are
  /// spelled out in vk_statistics.cpp).
  PFN_vkVoidFunction getCooperativeMatrixProperties = nullptr;

  /// Resolves every function for `instance`; false with the first missing
  /// name in `missing`.
  bool load(PFN_vkGetInstanceProcAddr getProcAddr, VkInstance instance,
            std::string &missing);
};

struct DeviceFunctions {
  TESSERA_VK_DEVICE_SYMBOLS(TESSERA_VK_DECLARE_FIELD)

  /// Resolves every function for `device`; false with the first missing
  /// name in `missing`.
  bool load(PFN_vkGetDeviceProcAddr getProcAddr, VkDevice device,
            std::string &missing);
};

#undef TESSERA_VK_DECLARE_FIELD

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY", or "VkResult <n>" for codes it does not
/// know.
std::string vkResultName(VkResult result);

} // namespace tessera::spirv

#endif
