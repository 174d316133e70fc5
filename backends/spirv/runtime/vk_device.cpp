//===- vk_device.cpp - a Vulkan device, its memory and its queues --------===//

#include "vk_device.h"

#include "tessera/spirv/image.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace tessera::spirv {

namespace {

// VK_KHR_cooperative_matrix is newer (header 1.3.255) than the headers some
// distributions ship, so its features structure is spelled out here as the
// registry defines it; only the enable flag is read.
constexpr const char *kCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
constexpr VkStructureType kCooperativeMatrixFeaturesType =
    VkStructureType(1000506000);
struct CooperativeMatrixFeatures {
  VkStructureType sType = kCooperativeMatrixFeaturesType;
  void *pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

constexpr const char *kPortabilitySubsetExtension = "VK_KHR_portability_subset";

constexpr uint64_t kMaxBufferId =
    (1ull << (64 - TESSERA_SPIRV_ADDRESS_SHIFT)) - 1;

bool atLeast13(uint32_t apiVersion) {
  return VK_API_VERSION_MAJOR(apiVersion) > 1 ||
         VK_API_VERSION_MINOR(apiVersion) >= 3;
}

std::string versionString(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." +
         std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

/// Appends `s` to a pNext chain whose open end is `tail`.
template <typename T> void chain(void **&tail, T &s) {
  *tail = &s;
  tail = &s.pNext;
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
  return buf;
}

} // namespace

bool vkFailed(Failure &failure, VkResult result, const std::string &what,
              int code) {
  switch (result) {
  case VK_ERROR_OUT_OF_HOST_MEMORY:
  case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    code = TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY;
    break;
  case VK_ERROR_DEVICE_LOST:
    code = TESSERA_PLUGIN_ERROR_LAUNCH;
    break;
  default:
    break;
  }
  failure.code = code;
  failure.message = what + " failed: " + vkResultName(result);
  return false;
}

bool probeDevice(const InstanceFunctions &vki, VkPhysicalDevice physical,
                 Capabilities &caps, std::string &whyNot) {
  caps = Capabilities();
  caps.physical = physical;
  VkPhysicalDeviceProperties props{};
  vki.vkGetPhysicalDeviceProperties(physical, &props);
  std::string name = props.deviceName;
  caps.apiVersion = props.apiVersion;
  if (VK_API_VERSION_MAJOR(props.apiVersion) == 1 &&
      VK_API_VERSION_MINOR(props.apiVersion) < 2) {
    whyNot = name + " supports Vulkan " + versionString(props.apiVersion) +
             "; the spirv plugin needs 1.2 or newer";
    return false;
  }
  bool is13 = atLeast13(props.apiVersion);

  // The compute queue: one with timestamps if any has them, then a
  // compute-only family (graphics work does not compete with it there).
  uint32_t familyCount = 0;
  vki.vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vki.vkGetPhysicalDeviceQueueFamilyProperties(physical, &familyCount,
                                               families.data());
  int best = -1, bestScore = -1;
  for (uint32_t i = 0; i < familyCount; ++i) {
    const VkQueueFamilyProperties &f = families[i];
    if (!(f.queueFlags & VK_QUEUE_COMPUTE_BIT) || f.queueCount == 0)
      continue;
    int score = (f.timestampValidBits ? 2 : 0) +
                (f.queueFlags & VK_QUEUE_GRAPHICS_BIT ? 0 : 1);
    if (score > bestScore) {
      best = int(i);
      bestScore = score;
    }
  }
  if (best < 0) {
    whyNot = name + " has no compute queue";
    return false;
  }
  caps.queueFamily = uint32_t(best);
  caps.timestampValidBits = families[best].timestampValidBits;

  uint32_t extensionCount = 0;
  std::vector<VkExtensionProperties> extensions;
  VkResult listed;
  do {
    vki.vkEnumerateDeviceExtensionProperties(physical, nullptr, &extensionCount,
                                             nullptr);
    extensions.resize(extensionCount);
    listed = vki.vkEnumerateDeviceExtensionProperties(
        physical, nullptr, &extensionCount, extensions.data());
  } while (listed == VK_INCOMPLETE);
  extensions.resize(listed == VK_SUCCESS ? extensionCount : 0);
  auto has = [&](const char *extension) {
    return std::any_of(extensions.begin(), extensions.end(),
                       [&](const VkExtensionProperties &e) {
                         return std::strcmp(e.extensionName, extension) == 0;
                       });
  };
  // Subgroup size control is core in 1.3; a 1.2 device may have the EXT.
  bool sizeControlExt =
      !is13 && has(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  bool atomicFloatExt = has(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  bool cooperativeMatrixExt = has(kCooperativeMatrixExtension);
  bool smBuiltinsExt = has(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  bool amdCoreExt = has(VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  bool executableExt =
      has(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);

  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features v11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features v13{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceSubgroupSizeControlFeatures sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  CooperativeMatrixFeatures cooperativeMatrix;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  void **tail = &features.pNext;
  chain(tail, v11);
  chain(tail, v12);
  if (is13)
    chain(tail, v13);
  if (sizeControlExt)
    chain(tail, sizeControl);
  if (atomicFloatExt)
    chain(tail, atomicFloat);
  if (cooperativeMatrixExt)
    chain(tail, cooperativeMatrix);
  if (executableExt)
    chain(tail, executable);
  vki.vkGetPhysicalDeviceFeatures2(physical, &features);
  if (!v12.timelineSemaphore) {
    whyNot = name + " has no timeline semaphores (the spirv plugin's streams "
                    "are built on them)";
    return false;
  }
  caps.shaderFloat16 = v12.shaderFloat16;
  caps.shaderInt8 = v12.shaderInt8;
  caps.shaderInt16 = features.features.shaderInt16;
  caps.shaderInt64 = features.features.shaderInt64;
  caps.storageBuffer16BitAccess = v11.storageBuffer16BitAccess;
  caps.uniformAndStorageBuffer16BitAccess =
      v11.uniformAndStorageBuffer16BitAccess;
  caps.storagePushConstant16 = v11.storagePushConstant16;
  caps.storageBuffer8BitAccess = v12.storageBuffer8BitAccess;
  caps.uniformAndStorageBuffer8BitAccess =
      v12.uniformAndStorageBuffer8BitAccess;
  caps.storagePushConstant8 = v12.storagePushConstant8;
  caps.vulkanMemoryModel = v12.vulkanMemoryModel;
  caps.vulkanMemoryModelDeviceScope = v12.vulkanMemoryModelDeviceScope;
  caps.bufferDeviceAddress = v12.bufferDeviceAddress;
  caps.subgroupSizeControl =
      is13 ? v13.subgroupSizeControl : sizeControl.subgroupSizeControl;
  caps.computeFullSubgroups =
      is13 ? v13.computeFullSubgroups : sizeControl.computeFullSubgroups;
  caps.shaderBufferFloat32AtomicAdd = atomicFloat.shaderBufferFloat32AtomicAdd;
  caps.shaderSharedFloat32AtomicAdd = atomicFloat.shaderSharedFloat32AtomicAdd;
  caps.cooperativeMatrix = cooperativeMatrix.cooperativeMatrix;
  caps.pipelineExecutableInfo = executable.pipelineExecutableInfo;
  if (caps.cooperativeMatrix)
    caps.cooperativeMatrixShapes = cooperativeMatrixShapes(vki, physical);

  if (sizeControlExt && (caps.subgroupSizeControl || caps.computeFullSubgroups))
    caps.extensions.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if (caps.shaderBufferFloat32AtomicAdd || caps.shaderSharedFloat32AtomicAdd)
    caps.extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  if (caps.cooperativeMatrix)
    caps.extensions.push_back(kCooperativeMatrixExtension);
  // The spec requires enabling it wherever it is offered (MoltenVK).
  if (has(kPortabilitySubsetExtension))
    caps.extensions.push_back(kPortabilitySubsetExtension);

  VkPhysicalDeviceProperties2 properties{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maintenance3{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceMaintenance4Properties maintenance4{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
  VkPhysicalDeviceSubgroupSizeControlProperties sizes{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smBuiltins{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceShaderCorePropertiesAMD amdCore{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
  tail = &properties.pNext;
  chain(tail, subgroup);
  chain(tail, driver);
  chain(tail, maintenance3);
  if (is13)
    chain(tail, maintenance4);
  if (is13 || sizeControlExt)
    chain(tail, sizes);
  if (smBuiltinsExt)
    chain(tail, smBuiltins);
  if (amdCoreExt)
    chain(tail, amdCore);
  vki.vkGetPhysicalDeviceProperties2(physical, &properties);
  caps.limits = properties.properties.limits;
  caps.subgroupSize = subgroup.subgroupSize;
  if (is13 || sizeControlExt) {
    caps.minSubgroupSize = sizes.minSubgroupSize;
    caps.maxSubgroupSize = sizes.maxSubgroupSize;
    caps.maxComputeWorkgroupSubgroups = sizes.maxComputeWorkgroupSubgroups;
    caps.requiredSubgroupSizeStages = sizes.requiredSubgroupSizeStages;
  } else {
    caps.minSubgroupSize = caps.maxSubgroupSize = subgroup.subgroupSize;
  }
  caps.maxMemoryAllocationSize = maintenance3.maxMemoryAllocationSize;
  caps.maxBufferSize = is13 ? maintenance4.maxBufferSize : 0;
  vki.vkGetPhysicalDeviceMemoryProperties(physical, &caps.memory);

  tessera_plugin_device_info &info = caps.info;
  std::memset(&info, 0, sizeof(info));
  std::snprintf(info.name, sizeof(info.name), "%s%s", props.deviceName,
                caps.cooperativeMatrix ? " (cooperative matrix)" : "");
  std::snprintf(info.triple, sizeof(info.triple), "%s", TESSERA_SPIRV_TRIPLE);
  bool llvmpipe = driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE ||
                  name.compare(0, 8, "llvmpipe") == 0;
  const char *chip = llvmpipe                    ? "lavapipe"
                     : props.vendorID == 0x10DEu ? "nvidia-vk"
                     : props.vendorID == 0x1002u ? "amd-vk"
                                                 : "generic";
  std::snprintf(info.chip, sizeof(info.chip), "%s", chip);
  caps.orderByBarrier = llvmpipe;
  for (uint32_t h = 0; h < caps.memory.memoryHeapCount; ++h)
    if (caps.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      info.total_memory = std::max<uint64_t>(info.total_memory,
                                             caps.memory.memoryHeaps[h].size);
  // Vulkan has no core query for it; the vendor extensions tell where
  // present, and llvmpipe runs a thread per host core.
  uint32_t units = 1;
  if (smBuiltinsExt && smBuiltins.shaderSMCount)
    units = smBuiltins.shaderSMCount;
  else if (amdCoreExt && amdCore.shaderEngineCount)
    units = amdCore.shaderEngineCount * amdCore.shaderArraysPerEngineCount *
            amdCore.computeUnitsPerShaderArray;
  else if (llvmpipe)
    units = std::max(1u, std::thread::hardware_concurrency());
  info.compute_units = units;
  info.max_threads_per_block = caps.limits.maxComputeWorkGroupInvocations;
  info.max_shared_bytes_per_block = caps.limits.maxComputeSharedMemorySize;
  info.warp_size = caps.subgroupSize;
  return true;
}

// ---------------------------------------------------------------------------

Buffer::~Buffer() {
  if (buffer)
    device.vk.vkDestroyBuffer(device.device, buffer, nullptr);
  // Freeing memory unmaps it.
  if (memory)
    device.vk.vkFreeMemory(device.device, memory, nullptr);
}

Timeline::~Timeline() {
  device.vk.vkDestroySemaphore(device.device, semaphore, nullptr);
}

VkResult Timeline::wait(uint64_t value) const {
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  return device.vk.vkWaitSemaphores(device.device, &info, UINT64_MAX);
}

uint64_t Timeline::completed() const {
  uint64_t value = 0;
  if (device.vk.vkGetSemaphoreCounterValue(device.device, semaphore, &value) !=
      VK_SUCCESS)
    return 0;
  return value;
}

// ---------------------------------------------------------------------------

bool Stream::init(Failure &failure) {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  if (VkResult r = device.vk.vkCreateSemaphore(device.device, &info, nullptr,
                                               &semaphore))
    return vkFailed(failure, r, "vkCreateSemaphore (a timeline)");
  timeline_ = std::make_shared<Timeline>(device, semaphore);

  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  // Command buffers are re-begun once their submission completes.
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT |
                   VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = device.caps.queueFamily;
  if (VkResult r = device.vk.vkCreateCommandPool(device.device, &poolInfo,
                                                 nullptr, &pool))
    return vkFailed(failure, r, "vkCreateCommandPool");
  return true;
}

Stream::~Stream() {
  Failure ignored;
  if (!finish(ignored)) {
    // A lost device completes nothing; its objects may be destroyed anyway.
    device.waitIdle();
    reclaim(UINT64_MAX);
  }
  // Destroying a pool frees what was allocated from it.
  for (VkDescriptorPool p : setPools)
    device.vk.vkDestroyDescriptorPool(device.device, p, nullptr);
  if (pool)
    device.vk.vkDestroyCommandPool(device.device, pool, nullptr);
}

void Stream::reclaim(uint64_t completed) {
  while (!inFlight.empty() && inFlight.front().value <= completed) {
    Submission &s = inFlight.front();
    idle.push_back(s.commands);
    release(s.retained);
    inFlight.pop_front();
  }
}

void Stream::release(Retained &retained) {
  if (retained.set)
    device.vk.vkFreeDescriptorSets(device.device, retained.setPool, 1,
                                   &retained.set);
  retained.set = VK_NULL_HANDLE;
  retained.objects.clear();
}

bool Stream::begin(VkCommandBuffer &commands, Failure &failure) {
  if (!inFlight.empty())
    reclaim(timeline_->completed());
  if (idle.empty()) {
    VkCommandBufferAllocateInfo info{
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = pool;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    VkCommandBuffer fresh = VK_NULL_HANDLE;
    if (VkResult r =
            device.vk.vkAllocateCommandBuffers(device.device, &info, &fresh))
      return vkFailed(failure, r, "vkAllocateCommandBuffers");
    idle.push_back(fresh);
  }
  commands = idle.back();
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = device.vk.vkBeginCommandBuffer(commands, &begin))
    return vkFailed(failure, r, "vkBeginCommandBuffer");
  idle.pop_back();
  if (device.orderByBarrier && last) {
    // After everything earlier on the queue, this stream's work included.
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    after.dstAccessMask =
        VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    device.vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                                   &after, 0, nullptr, 0, nullptr);
  }
  return true;
}

bool Stream::submit(VkCommandBuffer commands, Retained retained,
                    Failure &failure) {
  // A semaphore wait on the host does not make device writes visible to
  // it; this barrier does, for mapped buffers and staging copies alike.
  VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  toHost.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  device.vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                                 nullptr, 0, nullptr);
  VkResult r = device.vk.vkEndCommandBuffer(commands);
  if (r == VK_SUCCESS) {
    uint64_t waitValue = last, signalValue = last + 1;
    bool wait = last && !device.orderByBarrier;
    VkSemaphore semaphore = timeline_->semaphore;
    VkTimelineSemaphoreSubmitInfo values{
        VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = wait ? 1 : 0;
    values.pWaitSemaphoreValues = &waitValue;
    values.signalSemaphoreValueCount = 1;
    values.pSignalSemaphoreValues = &signalValue;
    VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
    submit.waitSemaphoreCount = wait ? 1 : 0;
    submit.pWaitSemaphores = &semaphore;
    submit.pWaitDstStageMask = &waitStage;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &semaphore;
    r = device.submit(submit);
    if (r == VK_SUCCESS) {
      last = signalValue;
      inFlight.push_back({signalValue, commands, std::move(retained)});
      return true;
    }
    // Executable but never submitted: begin may record it again.
    idle.push_back(commands);
    release(retained);
    return vkFailed(failure, r, "vkQueueSubmit", TESSERA_PLUGIN_ERROR_LAUNCH);
  }
  // Invalid after a failed end; the pool's reset flag lets begin reuse it.
  idle.push_back(commands);
  release(retained);
  return vkFailed(failure, r, "vkEndCommandBuffer");
}

bool Stream::allocateSet(VkDescriptorSetLayout layout, uint32_t bindings,
                         Retained &retained, Failure &failure) {
  VkDescriptorSetAllocateInfo info{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  // Newest pool first: older ones are full unless sets were freed there.
  for (auto it = setPools.rbegin(); it != setPools.rend(); ++it) {
    info.descriptorPool = *it;
    VkResult r =
        device.vk.vkAllocateDescriptorSets(device.device, &info, &retained.set);
    if (r == VK_SUCCESS) {
      retained.setPool = *it;
      return true;
    }
    if (r != VK_ERROR_OUT_OF_POOL_MEMORY && r != VK_ERROR_FRAGMENTED_POOL)
      return vkFailed(failure, r, "vkAllocateDescriptorSets");
  }
  constexpr uint32_t kSetsPerPool = 64, kBuffersPerSet = 8;
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                            std::max(kSetsPerPool * kBuffersPerSet, bindings)};
  VkDescriptorPoolCreateInfo poolInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
  poolInfo.maxSets = kSetsPerPool;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &size;
  VkDescriptorPool fresh = VK_NULL_HANDLE;
  if (VkResult r = device.vk.vkCreateDescriptorPool(device.device, &poolInfo,
                                                    nullptr, &fresh))
    return vkFailed(failure, r, "vkCreateDescriptorPool");
  setPools.push_back(fresh);
  info.descriptorPool = fresh;
  if (VkResult r = device.vk.vkAllocateDescriptorSets(device.device, &info,
                                                      &retained.set))
    return vkFailed(failure, r, "vkAllocateDescriptorSets");
  retained.setPool = fresh;
  return true;
}

bool Stream::finish(Failure &failure) {
  if (last) {
    if (VkResult r = timeline_->wait(last))
      return vkFailed(failure, r, "vkWaitSemaphores",
                      TESSERA_PLUGIN_ERROR_LAUNCH);
  }
  reclaim(last);
  return true;
}

// ---------------------------------------------------------------------------

VkPipelineCreateFlags Device::statisticsFlags() const {
  VkPipelineCreateFlags flags = 0;
  if (statistics.getStatistics)
    flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  if (statistics.getRepresentations &&
      !statistics.request.representationsDir.empty())
    flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  return flags;
}

bool Device::create(const InstanceFunctions &vki, Failure &failure) {
  auto set = [](const char *name) {
    const char *value = std::getenv(name);
    return value && *value && std::strcmp(value, "0") != 0;
  };
  forceStaging = set("TESSERA_SPIRV_FORCE_STAGING");
  orderByBarrier = caps.orderByBarrier && !set("TESSERA_SPIRV_TIMELINE_WAITS");
  bool is13 = atLeast13(caps.apiVersion);
  auto enabled = [&](const char *extension) {
    return std::find(caps.extensions.begin(), caps.extensions.end(),
                     extension) != caps.extensions.end();
  };

  // Everything the device has of what kernels may use, so that no image
  // fails for a feature left off.
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.features.shaderInt16 = caps.shaderInt16;
  features.features.shaderInt64 = caps.shaderInt64;
  VkPhysicalDeviceVulkan11Features v11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  v11.storageBuffer16BitAccess = caps.storageBuffer16BitAccess;
  v11.uniformAndStorageBuffer16BitAccess =
      caps.uniformAndStorageBuffer16BitAccess;
  v11.storagePushConstant16 = caps.storagePushConstant16;
  VkPhysicalDeviceVulkan12Features v12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.shaderFloat16 = caps.shaderFloat16;
  v12.shaderInt8 = caps.shaderInt8;
  v12.storageBuffer8BitAccess = caps.storageBuffer8BitAccess;
  v12.uniformAndStorageBuffer8BitAccess =
      caps.uniformAndStorageBuffer8BitAccess;
  v12.storagePushConstant8 = caps.storagePushConstant8;
  v12.timelineSemaphore = VK_TRUE;
  v12.vulkanMemoryModel = caps.vulkanMemoryModel;
  v12.vulkanMemoryModelDeviceScope = caps.vulkanMemoryModelDeviceScope;
  v12.bufferDeviceAddress = caps.bufferDeviceAddress;
  VkPhysicalDeviceVulkan13Features v13{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  v13.subgroupSizeControl = caps.subgroupSizeControl;
  v13.computeFullSubgroups = caps.computeFullSubgroups;
  VkPhysicalDeviceSubgroupSizeControlFeatures sizeControl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
  sizeControl.subgroupSizeControl = caps.subgroupSizeControl;
  sizeControl.computeFullSubgroups = caps.computeFullSubgroups;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomicFloat{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  atomicFloat.shaderBufferFloat32AtomicAdd = caps.shaderBufferFloat32AtomicAdd;
  atomicFloat.shaderSharedFloat32AtomicAdd = caps.shaderSharedFloat32AtomicAdd;
  CooperativeMatrixFeatures cooperativeMatrix;
  cooperativeMatrix.cooperativeMatrix = caps.cooperativeMatrix;
  // What the driver compiled, only on request: capturing statistics may
  // cost the driver time at every pipeline.
  statistics.request = statisticsRequested();
  bool captureStatistics =
      statistics.request.statistics && caps.pipelineExecutableInfo;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  executable.pipelineExecutableInfo = VK_TRUE;
  void **tail = &features.pNext;
  chain(tail, v11);
  chain(tail, v12);
  if (is13)
    chain(tail, v13);
  else if (enabled(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME))
    chain(tail, sizeControl);
  if (enabled(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME))
    chain(tail, atomicFloat);
  if (enabled(kCooperativeMatrixExtension))
    chain(tail, cooperativeMatrix);
  if (captureStatistics)
    chain(tail, executable);

  std::vector<const char *> extensions;
  for (const std::string &e : caps.extensions)
    extensions.push_back(e.c_str());
  if (captureStatistics)
    extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueFamilyIndex = caps.queueFamily;
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queueInfo;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = vki.vkCreateDevice(caps.physical, &info, nullptr, &device))
    return vkFailed(failure, r,
                    std::string("vkCreateDevice (") + caps.info.name + ")",
                    TESSERA_PLUGIN_ERROR_UNAVAILABLE);
  std::string missing;
  if (!vk.load(vki.vkGetDeviceProcAddr, device, missing)) {
    // Without vkDestroyDevice there is no way to give the device back.
    if (vk.vkDestroyDevice)
      vk.vkDestroyDevice(device, nullptr);
    device = VK_NULL_HANDLE;
    failure.code = TESSERA_PLUGIN_ERROR_UNAVAILABLE;
    failure.message = std::string(caps.info.name) + " lacks " + missing;
    return false;
  }
  vk.vkGetDeviceQueue(device, caps.queueFamily, 0, &queue);
  if (statistics.request.statistics) {
    for (const std::string &shape : caps.cooperativeMatrixShapes)
      std::fprintf(stderr, "tessera-vk-stats: %s: cooperative matrix %s\n",
                   caps.info.name, shape.c_str());
    if (!captureStatistics)
      std::fprintf(stderr,
                   "tessera-vk-stats: %s has no "
                   "VK_KHR_pipeline_executable_properties\n",
                   caps.info.name);
  }
  if (captureStatistics) {
    auto get = [&](const char *name) {
      return vki.vkGetDeviceProcAddr(device, name);
    };
    statistics.getProperties =
        reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
            get("vkGetPipelineExecutablePropertiesKHR"));
    statistics.getStatistics =
        reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
            get("vkGetPipelineExecutableStatisticsKHR"));
    statistics.getRepresentations =
        reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
            get("vkGetPipelineExecutableInternalRepresentationsKHR"));
  }

  nullStream_ = std::make_unique<Stream>(*this);
  if (!nullStream_->init(failure))
    return false;
  if (!createBuffer(1024, Placement::Staging, patterns, "device_open", failure))
    return false;
  for (uint32_t i = 0; i < 1024; ++i)
    patterns->mapped[i] = uint8_t(i / 4);
  return true;
}

Device::~Device() {
  if (!device)
    return;
  nullStream_.reset();
  waitIdle();
  buffers.clear();
  patterns.reset();
  vk.vkDestroyDevice(device, nullptr);
}

bool Device::createBuffer(uint64_t bytes, Placement placement, BufferRef &out,
                          const std::string &what, Failure &failure) {
  const std::string size = std::to_string(bytes) + " bytes";
  // Device buffers get at least one byte past the end, so that an address
  // at the end of a buffer (a tensor with no elements) can still be bound
  // (a descriptor's range must be non-zero), and Vulkan has no empty
  // buffers.
  uint64_t allocSize = placement == Placement::Device
                           ? (bytes + 4) & ~uint64_t(3)
                           : std::max<uint64_t>(bytes, 4);
  if (bytes > TESSERA_SPIRV_ADDRESS_OFFSET_MASK || allocSize < bytes) {
    failure.code = TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY;
    failure.message = what + ": " + size +
                      " exceed what a spirv device address can span (2^40)";
    return false;
  }
  // Past the limit, vkCreateBuffer's behaviour is undefined.
  if (caps.maxBufferSize && allocSize > caps.maxBufferSize) {
    failure.code = TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY;
    failure.message = what + ": " + size +
                      " exceed the device's largest buffer (maxBufferSize " +
                      std::to_string(caps.maxBufferSize) + ")";
    return false;
  }
  auto buffer = std::make_shared<Buffer>(*this);
  buffer->size = bytes;
  buffer->allocSize = allocSize;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = allocSize;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vk.vkCreateBuffer(device, &info, nullptr, &buffer->buffer))
    return vkFailed(failure, r, what + ": vkCreateBuffer of " + size);
  VkMemoryRequirements needs{};
  vk.vkGetBufferMemoryRequirements(device, buffer->buffer, &needs);
  if (caps.maxMemoryAllocationSize &&
      needs.size > caps.maxMemoryAllocationSize) {
    failure.code = TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY;
    failure.message = what + ": " + size +
                      " exceed the device's largest allocation "
                      "(maxMemoryAllocationSize " +
                      std::to_string(caps.maxMemoryAllocationSize) + ")";
    return false;
  }

  // Memory types in the driver's order of preference among those that fit.
  const VkMemoryPropertyFlags hostCoherent =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags wanted = placement == Placement::Device
                                           ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                                           : hostCoherent;
  std::vector<uint32_t> candidates;
  uint64_t largestHeap = 0;
  for (uint32_t t = 0; t < caps.memory.memoryTypeCount; ++t) {
    const VkMemoryType &type = caps.memory.memoryTypes[t];
    if (!(needs.memoryTypeBits & (1u << t)) ||
        (type.propertyFlags & wanted) != wanted)
      continue;
    // Asking a heap for more than it holds is invalid, not just a failure.
    uint64_t heap = caps.memory.memoryHeaps[type.heapIndex].size;
    largestHeap = std::max(largestHeap, heap);
    if (needs.size <= heap)
      candidates.push_back(t);
  }
  if (candidates.empty()) {
    failure.code = largestHeap ? TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY
                               : TESSERA_PLUGIN_ERROR_INTERNAL;
    failure.message =
        what + ": " +
        (largestHeap ? size +
                           " exceed the device's memory heaps (the "
                           "largest that fits has " +
                           std::to_string(largestHeap) + " bytes)"
                     : "no memory type fits a buffer of " + size);
    return false;
  }
  VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  uint32_t type = 0;
  for (uint32_t t : candidates) {
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = needs.size;
    alloc.memoryTypeIndex = t;
    r = vk.vkAllocateMemory(device, &alloc, nullptr, &buffer->memory);
    type = t;
    if (r != VK_ERROR_OUT_OF_DEVICE_MEMORY && r != VK_ERROR_OUT_OF_HOST_MEMORY)
      break;
  }
  if (r != VK_SUCCESS) {
    buffer->memory = VK_NULL_HANDLE;
    return vkFailed(failure, r, what + ": vkAllocateMemory of " + size);
  }
  if (VkResult b =
          vk.vkBindBufferMemory(device, buffer->buffer, buffer->memory, 0))
    return vkFailed(failure, b, what + ": vkBindBufferMemory");
  VkMemoryPropertyFlags flags = caps.memory.memoryTypes[type].propertyFlags;
  if ((flags & hostCoherent) == hostCoherent &&
      (placement == Placement::Staging || !forceStaging)) {
    void *mapped = nullptr;
    if (VkResult m = vk.vkMapMemory(device, buffer->memory, 0, VK_WHOLE_SIZE, 0,
                                    &mapped))
      return vkFailed(failure, m, what + ": vkMapMemory");
    buffer->mapped = static_cast<uint8_t *>(mapped);
  }
  out = std::move(buffer);
  return true;
}

bool Device::addBuffer(const BufferRef &buffer, tessera_device_ptr &address,
                       Failure &failure) {
  std::lock_guard<std::mutex> lock(buffersMutex);
  if (buffers.size() >= kMaxBufferId) {
    failure.code = TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY;
    failure.message = "mem_alloc: " + std::to_string(buffers.size()) +
                      " buffers are live, as many as spirv addresses can name";
    return false;
  }
  // Ids count up and wrap, so a freed id comes back only after 2^24 - 1
  // allocations: a stale address is reported as unknown rather than
  // silently reaching a newer buffer.
  while (buffers.count(nextId))
    nextId = nextId == kMaxBufferId ? 1 : nextId + 1;
  buffer->id = nextId;
  buffers.emplace(nextId, buffer);
  address = tessera_device_ptr(nextId) << TESSERA_SPIRV_ADDRESS_SHIFT;
  nextId = nextId == kMaxBufferId ? 1 : nextId + 1;
  return true;
}

BufferRef Device::removeBuffer(tessera_device_ptr address) {
  if (address & TESSERA_SPIRV_ADDRESS_OFFSET_MASK)
    return nullptr;
  std::lock_guard<std::mutex> lock(buffersMutex);
  auto found = buffers.find(address >> TESSERA_SPIRV_ADDRESS_SHIFT);
  if (found == buffers.end())
    return nullptr;
  BufferRef buffer = std::move(found->second);
  buffers.erase(found);
  return buffer;
}

BufferRef Device::lookup(tessera_device_ptr address, uint64_t bytes,
                         uint64_t &offset, std::string &why) {
  uint64_t id = address >> TESSERA_SPIRV_ADDRESS_SHIFT;
  offset = address & TESSERA_SPIRV_ADDRESS_OFFSET_MASK;
  if (id == 0) {
    why = hex(address) + " is not a spirv device address (buffer id 0)";
    return nullptr;
  }
  BufferRef buffer;
  {
    std::lock_guard<std::mutex> lock(buffersMutex);
    auto found = buffers.find(id);
    if (found != buffers.end())
      buffer = found->second;
  }
  if (!buffer) {
    why = hex(address) + " is not an address on this device (no live buffer " +
          std::to_string(id) + ")";
    return nullptr;
  }
  if (offset > buffer->size || bytes > buffer->size - offset) {
    std::string end =
        offset + bytes >= offset ? std::to_string(offset + bytes) : "past 2^64";
    why = "bytes " + std::to_string(offset) + " to " + end + " (at " +
          hex(address) + ") lie outside buffer " + std::to_string(id) + " of " +
          std::to_string(buffer->size) + " bytes";
    return nullptr;
  }
  return buffer;
}

VkResult Device::submit(const VkSubmitInfo &info) {
  std::lock_guard<std::mutex> lock(queueMutex);
  return vk.vkQueueSubmit(queue, 1, &info, VK_NULL_HANDLE);
}

void Device::waitIdle() {
  std::lock_guard<std::mutex> lock(queueMutex);
  vk.vkDeviceWaitIdle(device);
}

} // namespace tessera::spirv
