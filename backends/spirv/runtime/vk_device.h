//===- vk_device.h - a Vulkan device, its memory and its queues -*- C++ -*-===//
//
// The parts of the plugin that talk to Vulkan below the ABI: what a physical
// device offers (Capabilities, found once at initialize), the logical device
// with its one compute queue, buffers and their handle addresses, and
// streams.
//
// A stream is a command pool and a timeline semaphore. Every operation is
// its own submission that waits for the stream's previous value and signals
// the next, so the stream runs in order and each submission sees the memory
// writes of the ones before it (a semaphore signal/wait pair is a full
// memory dependency; see Capabilities::orderByBarrier for lavapipe's
// exception). What a submission uses (its command buffer, descriptor
// set, buffers, pipeline) is kept until the semaphore passes its value, and
// released on the stream's next call, at synchronize, or at destroy.
//
// Addresses are handles, (buffer id << TESSERA_SPIRV_ADDRESS_SHIFT) | byte
// offset (tessera/spirv/image.h), since a storage buffer is bound by
// VkBuffer and offset, not by a raw pointer.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_SPIRV_RUNTIME_VK_DEVICE_H
#define TESSERA_BACKENDS_SPIRV_RUNTIME_VK_DEVICE_H

#include "vk_statistics.h"
#include "vk_symbols.h"

#include "tessera/plugin/runtime_abi.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::spirv {

/// A failure on its way to the ABI: a tessera_plugin_error code and a
/// sentence.
struct Failure {
  int code = TESSERA_PLUGIN_OK;
  std::string message;
};

/// Fills `failure` for a failed Vulkan call, "<what> failed: VK_ERROR_X",
/// with the code the result deserves (OUT_OF_MEMORY for the out-of-memory
/// results, LAUNCH for a lost device, else `code`). Returns false.
bool vkFailed(Failure &failure, VkResult result, const std::string &what,
              int code = TESSERA_PLUGIN_ERROR_INTERNAL);

/// What a physical device offers that the plugin uses.
struct Capabilities {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  uint32_t apiVersion = 0;
  uint32_t queueFamily = 0;
  VkPhysicalDeviceLimits limits{};
  VkPhysicalDeviceMemoryProperties memory{};
  uint32_t timestampValidBits = 0; // of the queue family; 0: no timestamps
  uint32_t subgroupSize = 0;
  uint32_t minSubgroupSize = 0, maxSubgroupSize = 0;
  uint32_t maxComputeWorkgroupSubgroups = 0;
  VkShaderStageFlags requiredSubgroupSizeStages = 0;
  uint64_t maxMemoryAllocationSize = 0;
  uint64_t maxBufferSize = 0; // Vulkan 1.3; 0: not said
  /// Order a stream's submissions by a leading full pipeline barrier (whose
  /// first scope is everything earlier on the queue) instead of a timeline
  /// wait. For lavapipe: Mesa's emulated timeline semaphores (22.x) crash
  /// in the queue thread when submissions of several threads wait on
  /// timelines, and lavapipe runs its one queue in order anyway, so the
  /// barrier costs it nothing.
  bool orderByBarrier = false;

  // Features the device has; device creation enables all of them.
  bool shaderFloat16 = false, shaderInt8 = false, shaderInt16 = false,
       shaderInt64 = false;
  bool storageBuffer16BitAccess = false,
       uniformAndStorageBuffer16BitAccess = false,
       storagePushConstant16 = false;
  bool storageBuffer8BitAccess = false,
       uniformAndStorageBuffer8BitAccess = false, storagePushConstant8 = false;
  bool vulkanMemoryModel = false, vulkanMemoryModelDeviceScope = false;
  bool bufferDeviceAddress = false;
  bool subgroupSizeControl = false, computeFullSubgroups = false;
  bool shaderBufferFloat32AtomicAdd = false,
       shaderSharedFloat32AtomicAdd = false;
  bool cooperativeMatrix = false;
  /// VK_KHR_pipeline_executable_properties (enabled only when
  /// $TESSERA_VULKAN_STATS asks: vk_statistics.h).
  bool pipelineExecutableInfo = false;
  /// The cooperative-matrix shapes the driver reports (vk_statistics.h).
  std::vector<std::string> cooperativeMatrixShapes;

  // Device extensions to enable (those features come from them here).
  std::vector<std::string> extensions;

  tessera_plugin_device_info info{};
};

/// Fills `caps` for `physical`. Returns false with a reason in `whyNot` when
/// the plugin cannot use it: no compute queue, Vulkan older than 1.2, or no
/// timeline semaphores.
bool probeDevice(const InstanceFunctions &vki, VkPhysicalDevice physical,
                 Capabilities &caps, std::string &whyNot);

class Device;

/// One VkBuffer with memory of its own; destroyed with the last reference
/// (the address table's, or an in-flight submission's).
struct Buffer {
  explicit Buffer(Device &device) : device(device) {}
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  Device &device;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;         // what was asked for; addresses are checked on it
  uint64_t allocSize = 0;    // the VkBuffer's size (see Device::createBuffer)
  uint8_t *mapped = nullptr; // host-coherent mapping, or null: use staging
  uint64_t id = 0;           // in the device's address table; 0: not in it
};
using BufferRef = std::shared_ptr<Buffer>;

/// A timeline semaphore. Shared by a stream and the events recorded on it,
/// so an event can be waited for after its stream is gone.
struct Timeline {
  Timeline(Device &device, VkSemaphore semaphore)
      : device(device), semaphore(semaphore) {}
  ~Timeline();
  Timeline(const Timeline &) = delete;
  Timeline &operator=(const Timeline &) = delete;

  /// Blocks until the semaphore reaches `value`.
  VkResult wait(uint64_t value) const;
  /// The value reached so far (0 if the driver cannot tell).
  uint64_t completed() const;

  Device &device;
  VkSemaphore semaphore;
};

/// What a submission keeps alive until it has completed.
struct Retained {
  std::vector<std::shared_ptr<const void>> objects; // buffers, pipelines
  VkDescriptorPool setPool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
};

/// An in-order stream on the device's compute queue. Every member function
/// but the constructor and destructor expects the caller to hold `mutex`.
class Stream {
public:
  explicit Stream(Device &device) : device(device) {}
  ~Stream(); // waits for the stream's work, then frees everything
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  bool init(Failure &failure);

  /// A command buffer in the recording state. Whatever can fail before
  /// recording (descriptor sets, staging buffers) is done before this, so
  /// that a failure never leaves a command buffer half recorded.
  bool begin(VkCommandBuffer &commands, Failure &failure);
  /// Ends `commands` (with a barrier making its writes visible to the host),
  /// submits it after the stream's previous work, and keeps `retained`
  /// until it completes. On failure the command buffer and `retained` are
  /// released.
  bool submit(VkCommandBuffer commands, Retained retained, Failure &failure);
  /// Allocates a descriptor set of `layout` (with `bindings` storage
  /// buffers) into `retained`.
  bool allocateSet(VkDescriptorSetLayout layout, uint32_t bindings,
                   Retained &retained, Failure &failure);
  /// Gives back what `retained` holds, for work that was never submitted.
  void release(Retained &retained);

  /// Waits for everything submitted so far.
  bool finish(Failure &failure);

  const std::shared_ptr<Timeline> &timeline() const { return timeline_; }
  uint64_t lastValue() const { return last; }

  Device &device;
  /// Held around each operation: the host serialises the calls on one
  /// stream, but the NULL stream's stand-in is shared by every thread.
  std::mutex mutex;
  /// The scratch buffer of the stream's launches (shared tiles placed in
  /// device memory), grown as launches need. Launches on one stream run one
  /// after the other, so they can all use the same one.
  BufferRef scratch;

private:
  struct Submission {
    uint64_t value;
    VkCommandBuffer commands;
    Retained retained;
  };
  /// Releases what the submissions that have completed held.
  void reclaim(uint64_t completed);

  std::shared_ptr<Timeline> timeline_;
  uint64_t last = 0; // the value the latest submission signals
  VkCommandPool pool = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> idle;
  std::deque<Submission> inFlight;
  std::vector<VkDescriptorPool> setPools;
};

/// A logical device with one compute queue. Thread-safe.
class Device {
public:
  explicit Device(const Capabilities &caps) : caps(caps) {}
  ~Device(); // the caller has destroyed its streams, events and modules
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  bool create(const InstanceFunctions &vki, Failure &failure);

  enum class Placement {
    Device, // device-local; mapped where it is also host-visible
    Staging // host-visible and coherent, always mapped
  };
  /// A buffer of `bytes` (any number, 0 included). `what` starts messages.
  bool createBuffer(uint64_t bytes, Placement placement, BufferRef &out,
                    const std::string &what, Failure &failure);

  /// Enters `buffer` in the address table; its address.
  bool addBuffer(const BufferRef &buffer, tessera_device_ptr &address,
                 Failure &failure);
  /// Takes the buffer at `address` (exactly its start) out of the table;
  /// null when there is none.
  BufferRef removeBuffer(tessera_device_ptr address);
  /// The buffer holding bytes [address, address + bytes), with the offset of
  /// `address` in it; null with the reason in `why` when there is none.
  BufferRef lookup(tessera_device_ptr address, uint64_t bytes, uint64_t &offset,
                   std::string &why);

  /// vkQueueSubmit under the queue's lock.
  VkResult submit(const VkSubmitInfo &info);
  /// vkDeviceWaitIdle under the queue's lock (it must not overlap a submit).
  void waitIdle();

  /// The stream that stands in for NULL: work on it is waited for before
  /// the call returns.
  Stream &nullStream() { return *nullStream_; }
  /// 1024 host-visible bytes, byte value v at [4v, 4v + 4): the source of
  /// the unaligned edges of a mem_set (vkCmdFillBuffer writes whole words).
  const BufferRef &fillPatterns() const { return patterns; }

  const Capabilities caps;
  DeviceFunctions vk;
  VkDevice device = VK_NULL_HANDLE;
  /// $TESSERA_SPIRV_FORCE_STAGING=1: device buffers are never mapped, so the
  /// staging paths of discrete GPUs run on any device (for tests).
  bool forceStaging = false;
  /// caps.orderByBarrier, unless $TESSERA_SPIRV_TIMELINE_WAITS=1 asks for
  /// the timeline waits of other devices (for tests, on one thread).
  bool orderByBarrier = false;
  /// $TESSERA_VULKAN_STATS (vk_statistics.h): what to report of each
  /// pipeline, and the entry points of VK_KHR_pipeline_executable_properties
  /// (null when it is not enabled).
  struct Statistics {
    StatisticsRequest request;
    PFN_vkGetPipelineExecutablePropertiesKHR getProperties = nullptr;
    PFN_vkGetPipelineExecutableStatisticsKHR getStatistics = nullptr;
    PFN_vkGetPipelineExecutableInternalRepresentationsKHR getRepresentations =
        nullptr;
  } statistics;
  /// The pipeline creation flags that capture what statistics asks for.
  VkPipelineCreateFlags statisticsFlags() const;

private:
  VkQueue queue = VK_NULL_HANDLE;
  std::mutex queueMutex;
  std::mutex buffersMutex;
  std::unordered_map<uint64_t, BufferRef> buffers;
  uint64_t nextId = 1;
  std::unique_ptr<Stream> nullStream_;
  BufferRef patterns;
};

} // namespace tessera::spirv

#endif
