//===- vk_symbols.cpp - Vulkan entry points loaded by dlopen -------------===//

#include "vk_symbols.h"

#include <dlfcn.h>

namespace tessera::spirv {

bool VulkanLoader::load(const char *library, std::string &error) {
  dlerror();
  void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    error = std::string("libvulkan.so.1 not found (dlopen ") + library + ": " +
            (why ? why : "unknown error") + ")";
    return false;
  }
  VulkanLoader table;
  table.handle = lib;
  table.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(lib, "vkGetInstanceProcAddr"));
  if (!table.vkGetInstanceProcAddr) {
    error = std::string(library) +
            " lacks vkGetInstanceProcAddr (not a Vulkan loader?)";
    return false;
  }
  std::string missing;
#define TESSERA_VK_RESOLVE(name)                                               \
  table.name = reinterpret_cast<PFN_##name>(                                   \
      table.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));                     \
  if (!table.name && missing.empty())                                          \
    missing = #name;
  TESSERA_VK_GLOBAL_SYMBOLS(TESSERA_VK_RESOLVE)
#undef TESSERA_VK_RESOLVE
  if (!missing.empty()) {
    error =
        std::string(library) + " lacks " + missing + " (not a Vulkan loader?)";
    return false;
  }
#define TESSERA_VK_RESOLVE_OPTIONAL(name)                                      \
  table.name = reinterpret_cast<PFN_##name>(                                   \
      table.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));
  TESSERA_VK_OPTIONAL_GLOBAL_SYMBOLS(TESSERA_VK_RESOLVE_OPTIONAL)
#undef TESSERA_VK_RESOLVE_OPTIONAL
  *this = table;
  return true;
}

bool InstanceFunctions::load(PFN_vkGetInstanceProcAddr getProcAddr,
                             VkInstance instance, std::string &missing) {
  missing.clear();
#define TESSERA_VK_RESOLVE(name)                                               \
  name = reinterpret_cast<PFN_##name>(getProcAddr(instance, #name));           \
  if (!name && missing.empty())                                                \
    missing = #name;
  TESSERA_VK_INSTANCE_SYMBOLS(TESSERA_VK_RESOLVE)
#undef TESSERA_VK_RESOLVE
  getCooperativeMatrixProperties = getProcAddr(
      instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
  return missing.empty();
}

bool DeviceFunctions::load(PFN_vkGetDeviceProcAddr getProcAddr, VkDevice device,
                           std::string &missing) {
  missing.clear();
#define TESSERA_VK_RESOLVE(name)                                               \
  name = reinterpret_cast<PFN_##name>(getProcAddr(device, #name));             \
  if (!name && missing.empty())                                                \
    missing = #name;
  TESSERA_VK_DEVICE_SYMBOLS(TESSERA_VK_RESOLVE)
#undef TESSERA_VK_RESOLVE
  return missing.empty();
}

std::string vkResultName(VkResult result) {
  switch (result) {
#define TESSERA_VK_RESULT(name)                                                \
  case name:                                                                   \
    return #name;
    TESSERA_VK_RESULT(VK_SUCCESS)
    TESSERA_VK_RESULT(VK_NOT_READY)
    TESSERA_VK_RESULT(VK_TIMEOUT)
    TESSERA_VK_RESULT(VK_INCOMPLETE)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    TESSERA_VK_RESULT(VK_ERROR_DEVICE_LOST)
    TESSERA_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    TESSERA_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    TESSERA_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    TESSERA_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    TESSERA_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    TESSERA_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    TESSERA_VK_RESULT(VK_ERROR_UNKNOWN)
    TESSERA_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    TESSERA_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    TESSERA_VK_RESULT(VK_ERROR_FRAGMENTATION)
    TESSERA_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    TESSERA_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    TESSERA_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef TESSERA_VK_RESULT
  default:
    return "VkResult " + std::to_string(int(result));
  }
}

} // namespace tessera::spirv
