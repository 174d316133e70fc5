//===- vk_statistics.cpp - what the driver compiled, on request ----------===//

#include "vk_statistics.h"

#include "vk_device.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tessera::spirv {

namespace {

// VK_KHR_cooperative_matrix's properties as the registry defines them (the
// headers some distributions ship predate it).
constexpr VkStructureType kCooperativeMatrixPropertiesType =
    VkStructureType(1000506001);
struct CooperativeMatrixProperties {
  VkStructureType sType = kCooperativeMatrixPropertiesType;
  void *pNext = nullptr;
  uint32_t m = 0, n = 0, k = 0;
  int32_t a = 0, b = 0, c = 0, result = 0; // VkComponentTypeKHR
  VkBool32 saturating = VK_FALSE;
  int32_t scope = 0; // VkScopeKHR
};
using GetCooperativeMatrixProperties = VkResult(VKAPI_PTR *)(
    VkPhysicalDevice, uint32_t *, CooperativeMatrixProperties *);

const char *componentName(int32_t t) {
  switch (t) {
  case 0:
    return "f16";
  case 1:
    return "f32";
  case 2:
    return "f64";
  case 3:
    return "i8";
  case 4:
    return "i16";
  case 5:
    return "i32";
  case 6:
    return "i64";
  case 7:
    return "u8";
  case 8:
    return "u16";
  case 9:
    return "u32";
  case 10:
    return "u64";
  case 1000141000:
    return "bf16";
  case 1000491002:
    return "e4m3";
  case 1000491003:
    return "e5m2";
  default:
    return "?";
  }
}

const char *scopeName(int32_t s) {
  switch (s) {
  case 1:
    return "device";
  case 2:
    return "workgroup";
  case 3:
    return "subgroup";
  case 5:
    return "queue family";
  default:
    return "?";
  }
}

/// An integer statistic. NVIDIA's driver 580 reports "Local Memory Size" as
/// a 64-bit integer whose upper word is not part of the value (the gemm's
/// 112 bytes came out as 68719476848 = 16 << 32 | 112, flash attention's 0
/// as 16 << 32): a value with a non-zero upper word is printed as its lower
/// word, the whole 64 bits and the format after it.
std::string integerValue(uint64_t v, bool isSigned) {
  char buf[96];
  if (v >> 32 && !(isSigned && int64_t(v) < 0 && int64_t(v) >= INT32_MIN))
    std::snprintf(buf, sizeof(buf), "%" PRIu32 " (raw %s 0x%016" PRIx64 ")",
                  uint32_t(v), isSigned ? "i64" : "u64", v);
  else if (isSigned)
    std::snprintf(buf, sizeof(buf), "%" PRId64, int64_t(v));
  else
    std::snprintf(buf, sizeof(buf), "%" PRIu64, v);
  return buf;
}

std::string statisticValue(const VkPipelineExecutableStatisticKHR &s) {
  char buf[64];
  switch (s.format) {
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
    return s.value.b32 ? "true" : "false";
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
    return integerValue(uint64_t(s.value.i64), true);
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
    return integerValue(s.value.u64, false);
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
    std::snprintf(buf, sizeof(buf), "%g", s.value.f64);
    return buf;
  default:
    std::snprintf(buf, sizeof(buf), "? (format %d, raw 0x%016" PRIx64 ")",
                  int(s.format), s.value.u64);
    return buf;
  }
}

/// `name` with every character but letters, digits, '-' and '_' made '_'.
std::string fileWord(const char *name) {
  std::string out;
  for (const char *p = name; *p; ++p)
    out +=
        (std::isalnum((unsigned char)*p) || *p == '-' || *p == '_') ? *p : '_';
  return out;
}

} // namespace

StatisticsRequest statisticsRequested() {
  StatisticsRequest r;
  const char *v = std::getenv("TESSERA_VULKAN_STATS");
  if (!v || !*v || std::strcmp(v, "0") == 0)
    return r;
  r.statistics = true;
  if (std::strchr(v, '/'))
    r.representationsDir = v;
  return r;
}

std::vector<std::string> cooperativeMatrixShapes(const InstanceFunctions &vki,
                                                 VkPhysicalDevice physical) {
  std::vector<std::string> out;
  auto get = reinterpret_cast<GetCooperativeMatrixProperties>(
      vki.getCooperativeMatrixProperties);
  uint32_t count = 0;
  if (!get || get(physical, &count, nullptr) != VK_SUCCESS)
    return out;
  std::vector<CooperativeMatrixProperties> props(count);
  if (get(physical, &count, props.data()) != VK_SUCCESS)
    return out;
  for (const CooperativeMatrixProperties &p : props) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%ux%ux%u %s x %s + %s -> %s%s (%s)", p.m,
                  p.n, p.k, componentName(p.a), componentName(p.b),
                  componentName(p.c), componentName(p.result),
                  p.saturating ? " saturating" : "", scopeName(p.scope));
    out.push_back(buf);
  }
  return out;
}

void reportPipeline(const Device &device, VkPipeline pipeline,
                    const std::string &kernel) {
  const Device::Statistics &st = device.statistics;
  if (!st.getProperties || !st.getStatistics)
    return;
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  uint32_t count = 0;
  if (st.getProperties(device.device, &info, &count, nullptr) != VK_SUCCESS)
    return;
  std::vector<VkPipelineExecutablePropertiesKHR> execs(
      count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
  if (st.getProperties(device.device, &info, &count, execs.data()) !=
      VK_SUCCESS)
    return;
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR which{
        VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    which.pipeline = pipeline;
    which.executableIndex = e;
    std::string line = "tessera-vk-stats: kernel " + kernel + " executable " +
                       std::to_string(e) + " \"" + execs[e].name +
                       "\" subgroup " + std::to_string(execs[e].subgroupSize) +
                       ":";
    uint32_t n = 0;
    if (st.getStatistics(device.device, &which, &n, nullptr) == VK_SUCCESS) {
      std::vector<VkPipelineExecutableStatisticKHR> stats(
          n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
      if (st.getStatistics(device.device, &which, &n, stats.data()) ==
          VK_SUCCESS)
        for (uint32_t i = 0; i < n; ++i)
          line += std::string(i ? ";" : "") + " " + stats[i].name + " = " +
                  statisticValue(stats[i]);
    }
    std::fprintf(stderr, "%s\n", line.c_str());
    if (st.request.representationsDir.empty() || !st.getRepresentations)
      continue;
    uint32_t r = 0;
    if (st.getRepresentations(device.device, &which, &r, nullptr) != VK_SUCCESS)
      continue;
    std::vector<VkPipelineExecutableInternalRepresentationKHR> reps(
        r, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
    // Twice: once for the sizes, once for the data.
    if (st.getRepresentations(device.device, &which, &r, reps.data()) !=
        VK_SUCCESS)
      continue;
    std::vector<std::vector<char>> data(r);
    for (uint32_t i = 0; i < r; ++i) {
      data[i].resize(reps[i].dataSize + 1);
      reps[i].pData = data[i].data();
    }
    VkResult got =
        st.getRepresentations(device.device, &which, &r, reps.data());
    if (got != VK_SUCCESS && got != VK_INCOMPLETE)
      continue;
    for (uint32_t i = 0; i < r; ++i) {
      std::string path = st.request.representationsDir + "/" +
                         fileWord(kernel.c_str()) + "." + std::to_string(e) +
                         "." + fileWord(reps[i].name) + ".txt";
      if (FILE *f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data[i].data(), 1, reps[i].dataSize, f);
        std::fclose(f);
        std::fprintf(stderr, "tessera-vk-stats: wrote %s (%s)\n", path.c_str(),
                     reps[i].description);
      }
    }
  }
}

} // namespace tessera::spirv
