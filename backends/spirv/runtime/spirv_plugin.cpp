//===- spirv_plugin.cpp - the spirv runtime plugin's ABI table -----------===//
//
// Runs SPIR-V images (tessera/spirv/image.h) on any Vulkan 1.2+ device with
// a compute queue and timeline semaphores, Mesa lavapipe included. Vulkan is
// reached only through the symbol tables of vk_symbols.h (dlopen of
// libvulkan.so.1, or $TESSERA_VULKAN_LOADER): the plugin loads on machines
// without Vulkan, where initialize reports TESSERA_PLUGIN_ERROR_UNAVAILABLE.
//
// Streams are timeline-semaphore streams (vk_device.h). The NULL stream is
// synchronous: its work goes through a per-device stream and is waited for
// before the call returns. Copies between the host and a buffer whose
// memory is host-visible (lavapipe, integrated GPUs) are memcpys after the
// stream's earlier work; elsewhere they go through staging buffers.
//
// A kernel launch binds each BUFFER slot's buffer as a storage buffer from
// its address rounded down to minStorageBufferOffsetAlignment, and pushes
// one 32-bit word per slot: a VALUE slot's low bits, a BUFFER slot's byte
// offset from the start of the bound range. Kernels whose shared tiles did
// not fit workgroup memory get the stream's scratch buffer bound after the
// tensors (image.h).
//
// Environment: TESSERA_VULKAN_LOADER (the loader library to dlopen);
// TESSERA_SPIRV_FORCE_STAGING=1 and TESSERA_SPIRV_TIMELINE_WAITS=1 make a
// device opened afterwards take the paths of discrete GPUs (staging copies,
// timeline-wait ordering) on lavapipe, for tests. TESSERA_VULKAN_STATS=1
// prints what the driver compiled of each kernel (vk_statistics.h).
//
//===----------------------------------------------------------------------===//

#include "image_reader.h"
#include "vk_device.h"
#include "vk_symbols.h"

#include "tessera/plugin/runtime_abi.h"
#include "tessera/spirv/image.h"

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#ifndef TESSERA_SPIRV_PLUGIN_VERSION
#define TESSERA_SPIRV_PLUGIN_VERSION "0.1.0"
#endif

using namespace tessera::spirv;

namespace {

int fail(char *err, size_t errLen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int fail(char *err, size_t errLen, int code, const char *fmt, ...) {
  if (err && errLen) {
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(err, errLen, fmt, args);
    va_end(args);
  }
  return code;
}

int report(char *err, size_t errLen, const Failure &failure,
           const char *context) {
  return fail(err, errLen,
              failure.code ? failure.code : TESSERA_PLUGIN_ERROR_INTERNAL,
              "%s: %s", context, failure.message.c_str());
}

/// What initialize set up; owned by the plugin until shutdown.
struct PluginState {
  VulkanLoader loader;
  VkInstance instance = VK_NULL_HANDLE;
  InstanceFunctions vki;
  std::vector<Capabilities> devices; // those the plugin can use, in order
  std::mutex openMutex;
  std::set<tessera_plugin_device> open; // closed at shutdown if still open
};

// The first initialize's outcome; reset by shutdown.
std::mutex gInitMutex;
bool gInitDone = false;
int gInitCode = TESSERA_PLUGIN_OK;
std::string gInitMessage;
std::atomic<bool> gReady{false};
PluginState *gState = nullptr;

#define REQUIRE_READY(err, errLen)                                             \
  if (!gReady.load(std::memory_order_acquire))                                 \
  return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,                   \
              "spirv plugin is not initialized (or initialize failed)")

/// A kernel's descriptor set layout, pipeline layout and pipeline; shared
/// by the kernel and the submissions that use it, so that unloading a
/// module does not pull a pipeline from under work in flight.
struct Pipeline {
  explicit Pipeline(Device &device) : device(device) {}
  ~Pipeline() {
    if (pipeline)
      device.vk.vkDestroyPipeline(device.device, pipeline, nullptr);
    if (layout)
      device.vk.vkDestroyPipelineLayout(device.device, layout, nullptr);
    if (setLayout)
      device.vk.vkDestroyDescriptorSetLayout(device.device, setLayout, nullptr);
  }
  Device &device;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

} // namespace

// The ABI's opaque types. A device keeps track of what was created on it,
// so that closing it frees whatever the host left behind.
struct tessera_plugin_device_s : Device {
  using Device::Device;
  std::mutex childrenMutex;
  std::set<tessera_plugin_stream> streams;
  std::set<tessera_plugin_event> events;
  std::set<tessera_plugin_module> modules;
};

struct tessera_plugin_stream_s : Stream {
  explicit tessera_plugin_stream_s(tessera_plugin_device device)
      : Stream(*device), owner(device) {}
  tessera_plugin_device owner;
};

struct tessera_plugin_event_s {
  tessera_plugin_device device = nullptr;
  VkQueryPool queries = VK_NULL_HANDLE; // one timestamp; none without them
  std::mutex mutex;
  // Where the latest record stands: the stream's timeline and the value
  // that passes once the recorded point is reached. Null: never recorded.
  std::shared_ptr<Timeline> timeline;
  uint64_t value = 0;
};

struct tessera_plugin_kernel_s {
  tessera_plugin_module module = nullptr;
  KernelRecord record;
  std::shared_ptr<Pipeline> pipeline;
};

struct tessera_plugin_module_s {
  tessera_plugin_device device = nullptr;
  VkShaderModule shader = VK_NULL_HANDLE;
  std::vector<KernelRecord> records;
  std::mutex mutex;
  // Kernels live as long as their module; kernel_get of the same name
  // returns the same handle.
  std::map<std::string, std::unique_ptr<tessera_plugin_kernel_s>> kernels;
};

namespace {

/// Runs `op` on `s`, or on the device's NULL stand-in and then waits for
/// it. `op(Stream &, Failure &)` records and submits, or returns false.
template <typename Op>
int onStream(tessera_plugin_device device, tessera_plugin_stream s,
             const char *context, char *err, size_t errLen, Op &&op) {
  if (s && s->owner != device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "%s: the stream belongs to another device", context);
  Stream &stream = s ? static_cast<Stream &>(*s) : device->nullStream();
  std::lock_guard<std::mutex> lock(stream.mutex);
  Failure failure;
  if (!op(stream, failure) || (!s && !stream.finish(failure)))
    return report(err, errLen, failure, context);
  return TESSERA_PLUGIN_OK;
}

/// The buffer of a copy's or fill's address range; INVALID naming `role`
/// ("destination", "source") otherwise.
BufferRef lookupRange(tessera_plugin_device device, tessera_device_ptr address,
                      uint64_t bytes, uint64_t &offset, const char *context,
                      const char *role, char *err, size_t errLen, int &rc) {
  std::string why;
  BufferRef buffer = device->lookup(address, bytes, offset, why);
  rc = buffer ? TESSERA_PLUGIN_OK
              : fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "%s: %s %s",
                     context, role, why.c_str());
  return buffer;
}

void destroyEvent(tessera_plugin_event e) {
  Device &device = *e->device;
  if (e->timeline)
    e->timeline->wait(e->value); // its timestamp may still be written
  if (e->queries)
    device.vk.vkDestroyQueryPool(device.device, e->queries, nullptr);
  delete e;
}

void destroyModule(tessera_plugin_module m) {
  Device &device = *m->device;
  // Pipelines in flight stay alive through their submissions.
  m->kernels.clear();
  if (m->shader)
    device.vk.vkDestroyShaderModule(device.device, m->shader, nullptr);
  delete m;
}

/// Frees what the host left on the device, then the device.
void destroyDevice(tessera_plugin_device d) {
  for (tessera_plugin_event e : d->events)
    destroyEvent(e);
  for (tessera_plugin_module m : d->modules)
    destroyModule(m);
  for (tessera_plugin_stream s : d->streams)
    delete s; // waits for its work
  delete d;
}

/// Creates the instance and finds the devices; the message says why when the
/// plugin cannot run here (the host prefixes "unavailable: ").
int initializeState(std::string &message) {
  const char *override = std::getenv("TESSERA_VULKAN_LOADER");
  const char *library = override && *override ? override : "libvulkan.so.1";
  auto st = std::make_unique<PluginState>();
  std::string error;
  if (!st->loader.load(library, error)) {
    message = error;
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  }
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (st->loader.vkEnumerateInstanceVersion)
    st->loader.vkEnumerateInstanceVersion(&loaderVersion);
  if (VK_API_VERSION_MAJOR(loaderVersion) == 1 &&
      VK_API_VERSION_MINOR(loaderVersion) < 1) {
    message = std::string("the Vulkan loader ") + library +
              " supports only Vulkan 1.0; the spirv plugin needs 1.2 or newer";
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  }

  // Portability drivers (MoltenVK) are listed only when asked for.
  std::vector<const char *> extensions;
  VkInstanceCreateFlags flags = 0;
  uint32_t count = 0;
  if (st->loader.vkEnumerateInstanceExtensionProperties(
          nullptr, &count, nullptr) == VK_SUCCESS) {
    std::vector<VkExtensionProperties> available(count);
    if (st->loader.vkEnumerateInstanceExtensionProperties(
            nullptr, &count, available.data()) == VK_SUCCESS)
      for (const VkExtensionProperties &e : available)
        if (std::strcmp(e.extensionName,
                        VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME) == 0) {
          extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
          flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
        }
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tessera";
  app.pEngineName = "tessera";
  app.engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult r = st->loader.vkCreateInstance(&info, nullptr, &st->instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
    message = "no Vulkan device with a compute queue (no Vulkan "
              "driver: vkCreateInstance failed: VK_ERROR_INCOMPATIBLE_DRIVER)";
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  }
  if (r != VK_SUCCESS) {
    message = "vkCreateInstance failed: " + vkResultName(r);
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  }
  std::string missing;
  if (!st->vki.load(st->loader.vkGetInstanceProcAddr, st->instance, missing)) {
    if (st->vki.vkDestroyInstance)
      st->vki.vkDestroyInstance(st->instance, nullptr);
    message = std::string("the Vulkan loader ") + library + " lacks " + missing;
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  }

  std::vector<VkPhysicalDevice> physical;
  do {
    count = 0;
    r = st->vki.vkEnumeratePhysicalDevices(st->instance, &count, nullptr);
    if (r != VK_SUCCESS)
      break;
    physical.resize(count);
    r = st->vki.vkEnumeratePhysicalDevices(st->instance, &count,
                                           physical.data());
  } while (r == VK_INCOMPLETE);
  physical.resize(r == VK_SUCCESS ? count : 0);
  std::string refused;
  for (VkPhysicalDevice p : physical) {
    Capabilities caps;
    std::string whyNot;
    if (probeDevice(st->vki, p, caps, whyNot))
      st->devices.push_back(std::move(caps));
    else
      refused += (refused.empty() ? "" : "; ") + whyNot;
  }
  if (st->devices.empty()) {
    st->vki.vkDestroyInstance(st->instance, nullptr);
    message = "no Vulkan device with a compute queue";
    if (r != VK_SUCCESS)
      message +=
          " (vkEnumeratePhysicalDevices failed: " + vkResultName(r) + ")";
    else if (!refused.empty())
      message += " that the spirv plugin can use (" + refused + ")";
    return TESSERA_PLUGIN_ERROR_UNAVAILABLE;
  }
  gState = st.release();
  return TESSERA_PLUGIN_OK;
}

/// How a kernel compiled for a subgroup size is pinned to it: `required`
/// (chain VkPipelineShaderStageRequiredSubgroupSizeCreateInfo) and `flags`
/// (full subgroups). False with the reason when the device cannot.
bool subgroupRequest(const Capabilities &caps, const KernelRecord &r,
                     bool &required, VkPipelineShaderStageCreateFlags &flags,
                     std::string &why) {
  required = false;
  flags = 0;
  uint32_t s = r.subgroupSize;
  if (s == 0)
    return true;
  uint32_t x = r.localSize[0];
  // With SPIR-V 1.6 the size may vary unless it is required, so require it
  // wherever the device lets us, even when it is the device's usual one.
  if (caps.subgroupSizeControl &&
      (caps.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
      caps.minSubgroupSize <= s && s <= caps.maxSubgroupSize) {
    uint64_t invocations = uint64_t(x) * r.localSize[1] * r.localSize[2];
    if (caps.maxComputeWorkgroupSubgroups &&
        invocations > uint64_t(s) * caps.maxComputeWorkgroupSubgroups) {
      why = "kernel " + r.name + " has " + std::to_string(invocations) +
            " threads in subgroups of " + std::to_string(s) +
            ", more than this device's " +
            std::to_string(caps.maxComputeWorkgroupSubgroups) +
            " subgroups per workgroup";
      return false;
    }
    required = true;
    if (caps.computeFullSubgroups && x % s == 0)
      flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    return true;
  }
  if (s == caps.subgroupSize) {
    // Without a required size, full subgroups need X to be a multiple of
    // the largest size the device may pick.
    if (caps.computeFullSubgroups && x % caps.maxSubgroupSize == 0)
      flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    return true;
  }
  why = "kernel " + r.name + " was compiled for subgroup size " +
        std::to_string(s) + "; this device has " +
        std::to_string(caps.subgroupSize);
  if (caps.subgroupSizeControl && caps.minSubgroupSize != caps.maxSubgroupSize)
    why += " (and can be asked for " + std::to_string(caps.minSubgroupSize) +
           " to " + std::to_string(caps.maxSubgroupSize) + ")";
  return false;
}

/// Checks a record against the device's limits; UNAVAILABLE with the reason
/// when this device cannot run it.
int checkLimits(const Capabilities &caps, const KernelRecord &r, char *err,
                size_t errLen) {
  const VkPhysicalDeviceLimits &l = caps.limits;
  const char *name = r.name.c_str();
  const uint32_t *b = r.localSize;
  uint64_t invocations = uint64_t(b[0]) * b[1] * b[2];
  if (b[0] > l.maxComputeWorkGroupSize[0] ||
      b[1] > l.maxComputeWorkGroupSize[1] ||
      b[2] > l.maxComputeWorkGroupSize[2] ||
      invocations > l.maxComputeWorkGroupInvocations)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,
                "kernel %s has blocks of %u x %u x %u threads; this device "
                "allows at most %u x %u x %u and %u in all",
                name, b[0], b[1], b[2], l.maxComputeWorkGroupSize[0],
                l.maxComputeWorkGroupSize[1], l.maxComputeWorkGroupSize[2],
                l.maxComputeWorkGroupInvocations);
  if (r.sharedBytes > l.maxComputeSharedMemorySize)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,
                "kernel %s uses %u bytes of workgroup memory; this device "
                "has %u (maxComputeSharedMemorySize)",
                name, r.sharedBytes, l.maxComputeSharedMemorySize);
  if (r.pushBytes > l.maxPushConstantsSize)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,
                "kernel %s takes %zu slots, %u bytes of push constants; this "
                "device allows %u (maxPushConstantsSize)",
                name, r.slotKinds.size(), r.pushBytes, l.maxPushConstantsSize);
  uint64_t buffers = uint64_t(r.bufferSlots()) + r.scratchBindings;
  uint32_t maxBuffers = std::min(l.maxPerStageDescriptorStorageBuffers,
                                 l.maxDescriptorSetStorageBuffers);
  if (buffers > maxBuffers)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE,
                "kernel %s binds %llu storage buffers (%u scratch); this "
                "device allows %u per shader",
                name, (unsigned long long)buffers, r.scratchBindings,
                maxBuffers);
  return TESSERA_PLUGIN_OK;
}

int createPipeline(tessera_plugin_module module, const KernelRecord &r,
                   std::shared_ptr<Pipeline> &out, char *err, size_t errLen) {
  Device &device = *module->device;
  const Capabilities &caps = device.caps;
  if (int rc = checkLimits(caps, r, err, errLen))
    return rc;
  bool required = false;
  VkPipelineShaderStageCreateFlags flags = 0;
  std::string why;
  if (!subgroupRequest(caps, r, required, flags, why))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_UNAVAILABLE, "%s",
                why.c_str());

  std::string context = "kernel_get '" + r.name + "'";
  auto failed = [&](VkResult result, const std::string &call,
                    int code = TESSERA_PLUGIN_ERROR_INTERNAL) {
    Failure failure;
    vkFailed(failure, result, call, code);
    return report(err, errLen, failure, context.c_str());
  };
  auto p = std::make_shared<Pipeline>(device);
  // The tensors' buffers, then the views of the scratch buffer.
  std::vector<VkDescriptorSetLayoutBinding> bindings(r.bufferSlots() +
                                                     r.scratchBindings);
  for (uint32_t i = 0; i < bindings.size(); ++i)
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo setInfo{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = uint32_t(bindings.size());
  setInfo.pBindings = bindings.data();
  if (VkResult res = device.vk.vkCreateDescriptorSetLayout(
          device.device, &setInfo, nullptr, &p->setLayout))
    return failed(res, "vkCreateDescriptorSetLayout");
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, r.pushBytes};
  VkPipelineLayoutCreateInfo layoutInfo{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &p->setLayout;
  layoutInfo.pushConstantRangeCount = r.pushBytes ? 1 : 0;
  layoutInfo.pPushConstantRanges = &range;
  if (VkResult res = device.vk.vkCreatePipelineLayout(
          device.device, &layoutInfo, nullptr, &p->layout))
    return failed(res, "vkCreatePipelineLayout");

  VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroupSize{
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
  subgroupSize.requiredSubgroupSize = r.subgroupSize;
  VkComputePipelineCreateInfo info{
      VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.pNext = required ? &subgroupSize : nullptr;
  info.stage.flags = flags;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module->shader;
  info.stage.pName = r.name.c_str();
  info.layout = p->layout;
  info.flags = device.statisticsFlags();
  if (VkResult res = device.vk.vkCreateComputePipelines(
          device.device, VK_NULL_HANDLE, 1, &info, nullptr, &p->pipeline)) {
    p->pipeline = VK_NULL_HANDLE;
    return failed(res,
                  "vkCreateComputePipelines (entry point '" + r.name + "')",
                  TESSERA_PLUGIN_ERROR_BAD_IMAGE);
  }
  if (info.flags)
    reportPipeline(device, p->pipeline, r.name);
  out = std::move(p);
  return TESSERA_PLUGIN_OK;
}

/// Copies between two ranges of one buffer that overlap go through a
/// temporary buffer (vkCmdCopyBuffer forbids overlapping regions).
bool overlaps(const BufferRef &a, uint64_t aOffset, const BufferRef &b,
              uint64_t bOffset, uint64_t bytes) {
  return a == b && aOffset < bOffset + bytes && bOffset < aOffset + bytes;
}

/// Appends the descriptors of the scratch bindings of a launch of `r` on a
/// grid of `grid` workgroups: the whole of `stream`'s scratch buffer, grown
/// first to grid x scratchBytes where needed.
bool bindScratch(Device &device, Stream &stream, const KernelRecord &r,
                 const uint32_t *grid,
                 std::vector<VkDescriptorBufferInfo> &bound, Retained &retained,
                 Failure &failure) {
  const uint64_t maxRange = device.caps.limits.maxStorageBufferRange;
  uint64_t groups = uint64_t(grid[0]) * grid[1] * grid[2];
  // The kernel addresses workgroup w's region from the start of the
  // binding, so the whole grid's must lie within one descriptor's range.
  if (r.scratchBytes && groups > maxRange / r.scratchBytes) {
    failure.code = TESSERA_PLUGIN_ERROR_LAUNCH;
    failure.message = "kernel " + r.name + " keeps " +
                      std::to_string(r.scratchBytes) +
                      " bytes of shared tiles per workgroup in device "
                      "memory; " +
                      std::to_string(groups) +
                      " workgroups need more than "
                      "this device's maxStorageBufferRange (" +
                      std::to_string(maxRange) + " bytes)";
    return false;
  }
  uint64_t bytes = std::max<uint64_t>(groups * r.scratchBytes, 4);
  if (!stream.scratch || stream.scratch->size < bytes) {
    BufferRef grown;
    if (!device.createBuffer(bytes, Device::Placement::Device, grown,
                             "scratch memory for kernel " + r.name, failure))
      return false;
    // Launches still in flight keep the old one.
    stream.scratch = std::move(grown);
  }
  VkDescriptorBufferInfo whole{stream.scratch->buffer, 0,
                               std::min(stream.scratch->allocSize, maxRange)};
  bound.insert(bound.end(), r.scratchBindings, whole);
  retained.objects.push_back(stream.scratch);
  return true;
}

void transferBarrier(Device &device, VkCommandBuffer commands) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  device.vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier,
                                 0, nullptr, 0, nullptr);
}

} // namespace

extern "C" {

static int spirvInitialize(char *err, size_t errLen) {
  std::lock_guard<std::mutex> lock(gInitMutex);
  if (!gInitDone) {
    gInitDone = true;
    gInitMessage.clear();
    gInitCode = initializeState(gInitMessage);
    gReady.store(gInitCode == TESSERA_PLUGIN_OK, std::memory_order_release);
  }
  if (gInitCode != TESSERA_PLUGIN_OK)
    return fail(err, errLen, gInitCode, "%s", gInitMessage.c_str());
  return TESSERA_PLUGIN_OK;
}

// The host releases its objects first; whatever it left is freed here, so
// that the Vulkan instance goes away clean. The loader stays loaded, and a
// later initialize starts over (reading $TESSERA_VULKAN_LOADER again).
static void spirvShutdown(void) {
  std::lock_guard<std::mutex> lock(gInitMutex);
  gReady.store(false, std::memory_order_release);
  gInitDone = false;
  PluginState *st = gState;
  gState = nullptr;
  if (!st)
    return;
  for (tessera_plugin_device d : st->open)
    destroyDevice(d);
  st->vki.vkDestroyInstance(st->instance, nullptr);
  delete st;
}

static int spirvDeviceCount(uint32_t *count, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!count)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "count is NULL");
  *count = uint32_t(gState->devices.size());
  return TESSERA_PLUGIN_OK;
}

static int spirvDeviceOpen(uint32_t ordinal, tessera_plugin_device *out,
                           char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!out)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  PluginState *st = gState;
  if (ordinal >= st->devices.size())
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "spirv device %u does not exist (%zu present)", ordinal,
                st->devices.size());
  auto d = std::make_unique<tessera_plugin_device_s>(st->devices[ordinal]);
  Failure failure;
  if (!d->create(st->vki, failure))
    return report(err, errLen, failure, "device_open");
  std::lock_guard<std::mutex> lock(st->openMutex);
  st->open.insert(d.get());
  *out = d.release();
  return TESSERA_PLUGIN_OK;
}

static void spirvDeviceClose(tessera_plugin_device device) {
  if (!device)
    return;
  if (PluginState *st = gState) {
    std::lock_guard<std::mutex> lock(st->openMutex);
    st->open.erase(device);
  }
  destroyDevice(device);
}

static int spirvDeviceInfo(tessera_plugin_device device,
                           tessera_plugin_device_info *info, char *err,
                           size_t errLen) {
  if (!device || !info)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "device or info is NULL");
  *info = device->caps.info;
  return TESSERA_PLUGIN_OK;
}

static int spirvMemAlloc(tessera_plugin_device device, uint64_t bytes,
                         tessera_device_ptr *ptr, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !ptr)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "mem_alloc: NULL argument");
  std::string what = "mem_alloc of " + std::to_string(bytes) + " bytes";
  BufferRef buffer;
  Failure failure;
  if (!device->createBuffer(bytes, Device::Placement::Device, buffer, what,
                            failure) ||
      !device->addBuffer(buffer, *ptr, failure))
    return fail(err, errLen, failure.code, "%s", failure.message.c_str());
  return TESSERA_PLUGIN_OK;
}

static void spirvMemFree(tessera_plugin_device device, tessera_device_ptr ptr) {
  if (!device || !ptr || !gReady.load(std::memory_order_acquire))
    return;
  // Work in flight keeps its own references; the buffer goes with the last.
  device->removeBuffer(ptr);
}

static int spirvCopyToDevice(tessera_plugin_device device,
                             tessera_plugin_stream s, tessera_device_ptr dst,
                             const void *src, uint64_t bytes, char *err,
                             size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || (!src && bytes))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "copy_to_device: NULL argument");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  uint64_t offset = 0;
  int rc = 0;
  BufferRef buffer = lookupRange(device, dst, bytes, offset, "copy_to_device",
                                 "destination", err, errLen, rc);
  if (!buffer)
    return rc;
  return onStream(
      device, s, "copy_to_device", err, errLen,
      [&](Stream &stream, Failure &failure) {
        if (buffer->mapped) {
          // After the stream's earlier work, which may still read the
          // bytes this overwrites.
          if (!stream.finish(failure))
            return false;
          std::memcpy(buffer->mapped + offset, src, size_t(bytes));
          return true;
        }
        // Staged now, so the caller may reuse `src` at once.
        BufferRef staging;
        if (!device->createBuffer(bytes, Device::Placement::Staging, staging,
                                  "staging buffer", failure))
          return false;
        std::memcpy(staging->mapped, src, size_t(bytes));
        VkCommandBuffer commands;
        if (!stream.begin(commands, failure))
          return false;
        VkBufferCopy region{0, offset, bytes};
        device->vk.vkCmdCopyBuffer(commands, staging->buffer, buffer->buffer, 1,
                                   &region);
        Retained retained;
        retained.objects = {staging, buffer};
        return stream.submit(commands, std::move(retained), failure);
      });
}

static int spirvCopyToHost(tessera_plugin_device device,
                           tessera_plugin_stream s, void *dst,
                           tessera_device_ptr src, uint64_t bytes, char *err,
                           size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || (!dst && bytes))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "copy_to_host: NULL argument");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  uint64_t offset = 0;
  int rc = 0;
  BufferRef buffer = lookupRange(device, src, bytes, offset, "copy_to_host",
                                 "source", err, errLen, rc);
  if (!buffer)
    return rc;
  // Synchronous on every stream: the bytes are on the host when it returns.
  return onStream(
      device, s, "copy_to_host", err, errLen,
      [&](Stream &stream, Failure &failure) {
        if (buffer->mapped) {
          if (!stream.finish(failure))
            return false;
          std::memcpy(dst, buffer->mapped + offset, size_t(bytes));
          return true;
        }
        BufferRef staging;
        if (!device->createBuffer(bytes, Device::Placement::Staging, staging,
                                  "staging buffer", failure))
          return false;
        VkCommandBuffer commands;
        if (!stream.begin(commands, failure))
          return false;
        VkBufferCopy region{offset, 0, bytes};
        device->vk.vkCmdCopyBuffer(commands, buffer->buffer, staging->buffer, 1,
                                   &region);
        Retained retained;
        retained.objects = {staging, buffer};
        if (!stream.submit(commands, std::move(retained), failure) ||
            !stream.finish(failure))
          return false;
        std::memcpy(dst, staging->mapped, size_t(bytes));
        return true;
      });
}

static int spirvCopyDevice(tessera_plugin_device device,
                           tessera_plugin_stream s, tessera_device_ptr dst,
                           tessera_device_ptr src, uint64_t bytes, char *err,
                           size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  uint64_t dstOffset = 0, srcOffset = 0;
  int rc = 0;
  BufferRef to = lookupRange(device, dst, bytes, dstOffset, "copy_device",
                             "destination", err, errLen, rc);
  if (!to)
    return rc;
  BufferRef from = lookupRange(device, src, bytes, srcOffset, "copy_device",
                               "source", err, errLen, rc);
  if (!from)
    return rc;
  return onStream(
      device, s, "copy_device", err, errLen,
      [&](Stream &stream, Failure &failure) {
        Retained retained;
        retained.objects = {from, to};
        BufferRef temp;
        if (overlaps(to, dstOffset, from, srcOffset, bytes)) {
          if (!device->createBuffer(bytes, Device::Placement::Device, temp,
                                    "copy_device (overlapping ranges)",
                                    failure))
            return false;
          retained.objects.push_back(temp);
        }
        VkCommandBuffer commands;
        if (!stream.begin(commands, failure))
          return false;
        auto &vk = device->vk;
        if (temp) {
          VkBufferCopy in{srcOffset, 0, bytes}, out{0, dstOffset, bytes};
          vk.vkCmdCopyBuffer(commands, from->buffer, temp->buffer, 1, &in);
          transferBarrier(*device, commands);
          vk.vkCmdCopyBuffer(commands, temp->buffer, to->buffer, 1, &out);
        } else {
          VkBufferCopy region{srcOffset, dstOffset, bytes};
          vk.vkCmdCopyBuffer(commands, from->buffer, to->buffer, 1, &region);
        }
        return stream.submit(commands, std::move(retained), failure);
      });
}

static int spirvMemSet(tessera_plugin_device device, tessera_plugin_stream s,
                       tessera_device_ptr dst, uint8_t value, uint64_t bytes,
                       char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "device is NULL");
  if (!bytes)
    return TESSERA_PLUGIN_OK;
  uint64_t offset = 0;
  int rc = 0;
  BufferRef buffer = lookupRange(device, dst, bytes, offset, "mem_set",
                                 "destination", err, errLen, rc);
  if (!buffer)
    return rc;
  return onStream(
      device, s, "mem_set", err, errLen, [&](Stream &stream, Failure &failure) {
        // vkCmdFillBuffer writes whole aligned words; the up to three bytes
        // on either side are copied from the device's pattern buffer.
        uint64_t head = std::min<uint64_t>(bytes, (4 - offset % 4) % 4);
        uint64_t middle = (bytes - head) & ~uint64_t(3);
        uint64_t tail = bytes - head - middle;
        const BufferRef &patterns = device->fillPatterns();
        VkCommandBuffer commands;
        if (!stream.begin(commands, failure))
          return false;
        auto &vk = device->vk;
        if (head) {
          VkBufferCopy edge{4ull * value, offset, head};
          vk.vkCmdCopyBuffer(commands, patterns->buffer, buffer->buffer, 1,
                             &edge);
        }
        if (middle)
          vk.vkCmdFillBuffer(commands, buffer->buffer, offset + head, middle,
                             uint32_t(value) * 0x01010101u);
        if (tail) {
          VkBufferCopy edge{4ull * value, offset + head + middle, tail};
          vk.vkCmdCopyBuffer(commands, patterns->buffer, buffer->buffer, 1,
                             &edge);
        }
        Retained retained;
        retained.objects = {buffer, patterns};
        return stream.submit(commands, std::move(retained), failure);
      });
}

static int spirvStreamCreate(tessera_plugin_device device,
                             tessera_plugin_stream *s, char *err,
                             size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !s)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "stream_create: NULL argument");
  auto stream = std::make_unique<tessera_plugin_stream_s>(device);
  Failure failure;
  if (!stream->init(failure))
    return report(err, errLen, failure, "stream_create");
  std::lock_guard<std::mutex> lock(device->childrenMutex);
  device->streams.insert(stream.get());
  *s = stream.release();
  return TESSERA_PLUGIN_OK;
}

static void spirvStreamDestroy(tessera_plugin_stream s) {
  if (!s)
    return;
  {
    std::lock_guard<std::mutex> lock(s->owner->childrenMutex);
    s->owner->streams.erase(s);
  }
  delete s; // waits for its work
}

static int spirvStreamSynchronize(tessera_plugin_stream s, char *err,
                                  size_t errLen) {
  REQUIRE_READY(err, errLen);
  // Work on the NULL stream is complete when its call returns.
  if (!s)
    return TESSERA_PLUGIN_OK;
  std::lock_guard<std::mutex> lock(s->mutex);
  Failure failure;
  if (!s->finish(failure))
    return report(err, errLen, failure, "stream_synchronize");
  return TESSERA_PLUGIN_OK;
}

// A VkQueue has no stream semantics of its own to attach to (what is
// enqueued on it runs in no defined order), so there is nothing sound to
// wrap.
static int spirvStreamWrap(tessera_plugin_device device, void *native,
                           tessera_plugin_stream *s, char *err, size_t errLen) {
  (void)device;
  (void)native;
  (void)s;
  return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
              "stream_wrap: the spirv plugin cannot wrap native streams");
}

static int spirvEventCreate(tessera_plugin_device device,
                            tessera_plugin_event *e, char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_create: NULL argument");
  auto event = std::make_unique<tessera_plugin_event_s>();
  event->device = device;
  // Without timestamps an event still orders and waits; only
  // event_elapsed_ms refuses.
  if (device->caps.timestampValidBits) {
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = 1;
    if (VkResult r = device->vk.vkCreateQueryPool(device->device, &info,
                                                  nullptr, &event->queries)) {
      Failure failure;
      vkFailed(failure, r, "vkCreateQueryPool");
      return report(err, errLen, failure, "event_create");
    }
  }
  std::lock_guard<std::mutex> lock(device->childrenMutex);
  device->events.insert(event.get());
  *e = event.release();
  return TESSERA_PLUGIN_OK;
}

static void spirvEventDestroy(tessera_plugin_event e) {
  if (!e)
    return;
  {
    std::lock_guard<std::mutex> lock(e->device->childrenMutex);
    e->device->events.erase(e);
  }
  destroyEvent(e);
}

static int spirvEventRecord(tessera_plugin_event e, tessera_plugin_stream s,
                            char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "event is NULL");
  tessera_plugin_device device = e->device;
  return onStream(
      device, s, "event_record", err, errLen,
      [&](Stream &stream, Failure &failure) {
        VkCommandBuffer commands;
        if (!stream.begin(commands, failure))
          return false;
        if (e->queries) {
          device->vk.vkCmdResetQueryPool(commands, e->queries, 0, 1);
          device->vk.vkCmdWriteTimestamp(
              commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, e->queries, 0);
        }
        if (!stream.submit(commands, Retained(), failure))
          return false;
        std::lock_guard<std::mutex> lock(e->mutex);
        e->timeline = stream.timeline();
        e->value = stream.lastValue();
        return true;
      });
}

static int spirvEventSynchronize(tessera_plugin_event e, char *err,
                                 size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!e)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID, "event is NULL");
  std::shared_ptr<Timeline> timeline;
  uint64_t value;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    timeline = e->timeline;
    value = e->value;
  }
  if (!timeline) // never recorded: nothing to wait for
    return TESSERA_PLUGIN_OK;
  if (VkResult r = timeline->wait(value)) {
    Failure failure;
    vkFailed(failure, r, "vkWaitSemaphores", TESSERA_PLUGIN_ERROR_LAUNCH);
    return report(err, errLen, failure, "event_synchronize");
  }
  return TESSERA_PLUGIN_OK;
}

static int spirvEventElapsedMs(tessera_plugin_event start,
                               tessera_plugin_event end, float *ms, char *err,
                               size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!start || !end || !ms)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_elapsed_ms: NULL argument");
  if (start->device != end->device)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_elapsed_ms: the events belong to different devices");
  Device &device = *start->device;
  if (!device.caps.timestampValidBits)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "event_elapsed_ms: the compute queue of %s has no timestamps "
                "(timestampValidBits is 0)",
                device.caps.info.name);
  uint64_t ticks[2] = {};
  tessera_plugin_event events[2] = {start, end};
  const char *names[2] = {"start", "end"};
  for (int i = 0; i < 2; ++i) {
    std::lock_guard<std::mutex> lock(events[i]->mutex);
    if (!events[i]->timeline)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "event_elapsed_ms: the %s event has not been recorded",
                  names[i]);
    if (events[i]->timeline->completed() < events[i]->value)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "event_elapsed_ms: the %s event has not completed yet "
                  "(synchronize it first)",
                  names[i]);
    VkResult r = device.vk.vkGetQueryPoolResults(
        device.device, events[i]->queries, 0, 1, sizeof(uint64_t), &ticks[i],
        sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "event_elapsed_ms: the %s event's timestamp cannot be read: "
                  "vkGetQueryPoolResults returned %s",
                  names[i], vkResultName(r).c_str());
  }
  // Timestamps count modulo 2^validBits; a difference of more than half
  // the range means the end came first.
  uint32_t bits = device.caps.timestampValidBits;
  uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  uint64_t diff = (ticks[1] - ticks[0]) & mask;
  double signedTicks =
      diff > mask / 2 ? -double((mask - diff) + 1) : double(diff);
  *ms = float(signedTicks * device.caps.limits.timestampPeriod / 1e6);
  return TESSERA_PLUGIN_OK;
}

static int spirvModuleLoad(tessera_plugin_device device, const void *image,
                           uint64_t size, tessera_plugin_module *module,
                           char *err, size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!device || !module)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "module_load: NULL argument");
  SpirvImage parsed;
  std::string error;
  if (!readSpirvImage(image, size, parsed, error))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "spirv module image (%llu bytes): %s", (unsigned long long)size,
                error.c_str());
  // Vulkan 1.2 consumes SPIR-V up to 1.5, 1.3 up to 1.6.
  uint32_t api = device->caps.apiVersion;
  uint32_t maxMinor = VK_API_VERSION_MINOR(api) >= 3 ? 6 : 5;
  if (parsed.spirvMajor() != 1 || parsed.spirvMinor() > maxMinor)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_BAD_IMAGE,
                "spirv module image: its SPIR-V is version %u.%u; %s (Vulkan "
                "%u.%u) accepts 1.0 to 1.%u",
                parsed.spirvMajor(), parsed.spirvMinor(),
                device->caps.info.name, VK_API_VERSION_MAJOR(api),
                VK_API_VERSION_MINOR(api), maxMinor);
  auto m = std::make_unique<tessera_plugin_module_s>();
  m->device = device;
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = parsed.spirv.size() * sizeof(uint32_t);
  info.pCode = parsed.spirv.data();
  if (VkResult r = device->vk.vkCreateShaderModule(device->device, &info,
                                                   nullptr, &m->shader)) {
    Failure failure;
    vkFailed(failure, r, "vkCreateShaderModule",
             TESSERA_PLUGIN_ERROR_BAD_IMAGE);
    return report(err, errLen, failure, "module_load");
  }
  m->records = std::move(parsed.kernels);
  std::lock_guard<std::mutex> lock(device->childrenMutex);
  device->modules.insert(m.get());
  *module = m.release();
  return TESSERA_PLUGIN_OK;
}

static void spirvModuleUnload(tessera_plugin_module module) {
  if (!module)
    return;
  {
    std::lock_guard<std::mutex> lock(module->device->childrenMutex);
    module->device->modules.erase(module);
  }
  destroyModule(module);
}

static int spirvKernelGet(tessera_plugin_module module, const char *name,
                          tessera_plugin_kernel *kernel, char *err,
                          size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!module || !name || !kernel)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "kernel_get: NULL argument");
  std::lock_guard<std::mutex> lock(module->mutex);
  auto cached = module->kernels.find(name);
  if (cached != module->kernels.end()) {
    *kernel = cached->second.get();
    return TESSERA_PLUGIN_OK;
  }
  auto record =
      std::find_if(module->records.begin(), module->records.end(),
                   [&](const KernelRecord &r) { return r.name == name; });
  if (record == module->records.end()) {
    std::string present;
    for (const KernelRecord &r : module->records)
      present += (present.empty() ? "'" : ", '") + r.name + "'";
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_NOT_FOUND,
                "kernel '%s' not found in the spirv module (it has %s)", name,
                present.empty() ? "no kernels" : present.c_str());
  }
  auto k = std::make_unique<tessera_plugin_kernel_s>();
  k->module = module;
  k->record = *record;
  if (int rc = createPipeline(module, k->record, k->pipeline, err, errLen))
    return rc;
  *kernel = k.get();
  module->kernels.emplace(name, std::move(k));
  return TESSERA_PLUGIN_OK;
}

static int spirvLaunch(tessera_plugin_kernel kernel, tessera_plugin_stream s,
                       const tessera_plugin_launch *launch, char *err,
                       size_t errLen) {
  REQUIRE_READY(err, errLen);
  if (!kernel || !launch)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch: NULL kernel or launch");
  const KernelRecord &r = kernel->record;
  const char *name = r.name.c_str();
  tessera_plugin_device device = kernel->module->device;
  const VkPhysicalDeviceLimits &limits = device->caps.limits;
  if (launch->num_slots && !launch->slots)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of %s: %u slots but slots is NULL", name,
                launch->num_slots);
  const uint32_t *b = launch->block, *g = launch->grid;
  if (!std::equal(b, b + 3, r.localSize))
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "kernel %s is compiled for blocks of %u x %u x %u threads; "
                "the launch asks for %u x %u x %u",
                name, r.localSize[0], r.localSize[1], r.localSize[2], b[0],
                b[1], b[2]);
  if (launch->num_slots != r.slotKinds.size())
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of %s: the kernel takes %zu slots but the launch has "
                "%u",
                name, r.slotKinds.size(), launch->num_slots);
  for (int d = 0; d < 3; ++d)
    if (g[d] == 0 || g[d] > limits.maxComputeWorkGroupCount[d])
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "launch of %s: grid %u x %u x %u; each dimension must be 1 "
                  "to this device's %u x %u x %u",
                  name, g[0], g[1], g[2], limits.maxComputeWorkGroupCount[0],
                  limits.maxComputeWorkGroupCount[1],
                  limits.maxComputeWorkGroupCount[2]);
  if (launch->shared_bytes > limits.maxComputeSharedMemorySize)
    return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                "launch of %s: %u bytes of shared memory; this device has %u",
                name, launch->shared_bytes, limits.maxComputeSharedMemorySize);

  // Push words and the descriptors of the buffer slots.
  std::vector<uint32_t> words(launch->num_slots);
  std::vector<VkDescriptorBufferInfo> bound;
  Retained retained;
  const uint64_t alignment =
      std::max<uint64_t>(1, limits.minStorageBufferOffsetAlignment);
  for (uint32_t i = 0; i < launch->num_slots; ++i) {
    uint64_t slot = launch->slots[i];
    if (r.slotKinds[i] == TESSERA_SPIRV_SLOT_VALUE) {
      words[i] = uint32_t(slot);
      continue;
    }
    uint64_t offset = 0;
    std::string why;
    BufferRef buffer = device->lookup(slot, 0, offset, why);
    if (!buffer)
      return fail(err, errLen, TESSERA_PLUGIN_ERROR_INVALID,
                  "launch of %s: slot %u (a buffer): %s", name, i, why.c_str());
    uint64_t base = offset - offset % alignment;
    uint64_t range = std::min<uint64_t>(buffer->allocSize - base,
                                        limits.maxStorageBufferRange);
    bound.push_back({buffer->buffer, base, range});
    words[i] = uint32_t(offset - base);
    retained.objects.push_back(std::move(buffer));
  }
  retained.objects.push_back(kernel->pipeline);
  const Pipeline &p = *kernel->pipeline;

  return onStream(
      device, s, "launch", err, errLen, [&](Stream &stream, Failure &failure) {
        auto &vk = device->vk;
        if (r.scratchBindings &&
            !bindScratch(*device, stream, r, g, bound, retained, failure))
          return false;
        if (!bound.empty()) {
          if (!stream.allocateSet(p.setLayout, uint32_t(bound.size()), retained,
                                  failure))
            return false;
          std::vector<VkWriteDescriptorSet> writes(bound.size());
          for (uint32_t i = 0; i < bound.size(); ++i) {
            writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[i].dstSet = retained.set;
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[i].pBufferInfo = &bound[i];
          }
          vk.vkUpdateDescriptorSets(device->device, uint32_t(writes.size()),
                                    writes.data(), 0, nullptr);
        }
        VkCommandBuffer commands;
        if (!stream.begin(commands, failure)) {
          stream.release(retained);
          return false;
        }
        vk.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                             p.pipeline);
        if (retained.set)
          vk.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                                     p.layout, 0, 1, &retained.set, 0, nullptr);
        if (!words.empty())
          vk.vkCmdPushConstants(commands, p.layout, VK_SHADER_STAGE_COMPUTE_BIT,
                                0, uint32_t(words.size() * 4), words.data());
        vk.vkCmdDispatch(commands, g[0], g[1], g[2]);
        return stream.submit(commands, std::move(retained), failure);
      });
}

static const tessera_runtime_plugin kSpirvPlugin = {
    TESSERA_RUNTIME_ABI_MAJOR,
    TESSERA_RUNTIME_ABI_MINOR,
    sizeof(tessera_runtime_plugin),
    "spirv",
    TESSERA_SPIRV_PLUGIN_VERSION,
    spirvInitialize,
    spirvShutdown,
    spirvDeviceCount,
    spirvDeviceOpen,
    spirvDeviceClose,
    spirvDeviceInfo,
    spirvMemAlloc,
    spirvMemFree,
    spirvCopyToDevice,
    spirvCopyToHost,
    spirvCopyDevice,
    spirvMemSet,
    spirvStreamCreate,
    spirvStreamDestroy,
    spirvStreamSynchronize,
    spirvEventCreate,
    spirvEventDestroy,
    spirvEventRecord,
    spirvEventSynchronize,
    spirvEventElapsedMs,
    spirvModuleLoad,
    spirvModuleUnload,
    spirvKernelGet,
    spirvLaunch,
    spirvStreamWrap,
};

__attribute__((visibility("default"))) const tessera_runtime_plugin *
TESSERA_RUNTIME_PLUGIN_ENTRY(void) {
  return &kSpirvPlugin;
}

} // extern "C"
