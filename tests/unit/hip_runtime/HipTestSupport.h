//===- HipTestSupport.h - the hip runtime tests' shared helpers -*- C++ -*-===//
//
// Where the stand-in libraries and the compiled test kernels are, the
// stand-in's query API, and readers of what LLVM and `tessera info` say
// about a compiled kernel: `llvm-readelf --notes` (the code object's
// amdhsa.kernels, as LLVM prints it) and the bundle's kernel lines. The
// launches the stand-in records are checked against these, not against
// what the plugin itself read from the code object.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TESTS_UNIT_HIP_RUNTIME_HIPTESTSUPPORT_H
#define TESSERA_TESTS_UNIT_HIP_RUNTIME_HIPTESTSUPPORT_H

#include "TestFiles.h"
#include "hip_api.h"
#include "stand_in_hip.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace tessera::test::hip {

/// libtessera_test_stand_in_hip<variant>.so beside the test binary;
/// variant "", "_no_launch" or "_rocm5".
inline std::string standInPath(const std::string &variant = "") {
  return exeDir() + "/libtessera_test_stand_in_hip" + variant + ".so";
}

/// A compiled test kernel's file: `ext` is tsb, hsaco, notes or info.
inline std::string kernelFile(const std::string &name, const std::string &chip,
                              const std::string &ext) {
  return exeDir() + "/hip_runtime_kernels/" + name + "." + chip + "." + ext;
}

inline std::string readText(const std::string &path) {
  std::vector<char> bytes = readFile(path);
  return std::string(bytes.begin(), bytes.end());
}

/// The stand-in's query API, through dlsym on the library the plugin loads
/// (the same path: one copy, one state).
struct StandIn {
  void *lib = nullptr;
  tessera_stand_in_hip_launch_at_fn launchAt = nullptr;
  tessera_stand_in_hip_counts_get_fn countsGet = nullptr;
  tessera_stand_in_hip_reset_fn reset = nullptr;
  tessera_stand_in_hip_set_device_count_fn setDeviceCount = nullptr;
  tessera_stand_in_hip_fail_next_fn failNext = nullptr;

  static StandIn &get() {
    static StandIn s = [] {
      StandIn s;
      s.lib = dlopen(standInPath().c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!s.lib)
        return s;
      s.launchAt = reinterpret_cast<tessera_stand_in_hip_launch_at_fn>(
          dlsym(s.lib, "tessera_stand_in_hip_launch_at"));
      s.countsGet = reinterpret_cast<tessera_stand_in_hip_counts_get_fn>(
          dlsym(s.lib, "tessera_stand_in_hip_counts_get"));
      s.reset = reinterpret_cast<tessera_stand_in_hip_reset_fn>(
          dlsym(s.lib, "tessera_stand_in_hip_reset"));
      s.setDeviceCount =
          reinterpret_cast<tessera_stand_in_hip_set_device_count_fn>(
              dlsym(s.lib, "tessera_stand_in_hip_set_device_count"));
      s.failNext = reinterpret_cast<tessera_stand_in_hip_fail_next_fn>(
          dlsym(s.lib, "tessera_stand_in_hip_fail_next"));
      return s;
    }();
    return s;
  }
  bool ok() const {
    return lib && launchAt && countsGet && reset && setDeviceCount && failNext;
  }
  tessera_stand_in_hip_counts counts() const {
    tessera_stand_in_hip_counts c;
    countsGet(&c);
    return c;
  }
  /// A stream of the stand-in's own, as an application's hipStream_t
  /// (called through its exact type: UBSan checks function types).
  void *createNativeStream() const {
    using Fn = tessera::hip::hipError_t (*)(tessera::hip::hipStream_t *);
    tessera::hip::hipStream_t stream = nullptr;
    auto fn = reinterpret_cast<Fn>(dlsym(lib, "hipStreamCreate"));
    return fn && fn(&stream) == tessera::hip::hipSuccess ? stream : nullptr;
  }
  bool destroyNativeStream(void *stream) const {
    using Fn = tessera::hip::hipError_t (*)(tessera::hip::hipStream_t);
    auto fn = reinterpret_cast<Fn>(dlsym(lib, "hipStreamDestroy"));
    return fn && fn(static_cast<tessera::hip::hipStream_t>(stream)) ==
                     tessera::hip::hipSuccess;
  }
};

/// One kernel of `llvm-readelf --notes` output.
struct NoteArg {
  uint32_t offset = 0, size = 0;
  std::string valueKind;
};
struct NoteKernel {
  std::string name;
  uint32_t kernargSegmentSize = 0, groupSegmentFixedSize = 0;
  uint32_t maxFlatWorkgroupSize = 0, wavefrontSize = 0;
  std::vector<uint32_t> reqdWorkgroupSize;
  std::vector<NoteArg> args;
};

/// Reads the amdhsa.kernels list that llvm-readelf prints as YAML: kernels
/// are "  - " items, their keys at indent 4, .args items at indent 6 with
/// keys at indent 8, .reqd_workgroup_size items "      - N".
inline std::vector<NoteKernel> parseNotes(const std::string &text) {
  std::vector<NoteKernel> kernels;
  std::istringstream in(text);
  std::string line, lastKey;
  bool inKernels = false;
  while (std::getline(in, line)) {
    if (line.rfind("amdhsa.kernels:", 0) == 0) {
      inKernels = true;
      continue;
    }
    if (!inKernels)
      continue;
    if (!line.empty() && line[0] != ' ') {
      inKernels = false; // the next top-level key
      continue;
    }
    size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos)
      continue;
    std::string content = line.substr(indent);
    bool item = content.rfind("- ", 0) == 0;
    if (item) {
      content = content.substr(2);
      indent += 2;
    }
    if (item && indent == 4)
      kernels.emplace_back();
    if (kernels.empty())
      continue;
    NoteKernel &k = kernels.back();
    size_t colon = content.find(':');
    if (colon == std::string::npos) { // a list value
      if (lastKey == ".reqd_workgroup_size" && indent == 8)
        k.reqdWorkgroupSize.push_back(uint32_t(std::stoul(content)));
      continue;
    }
    std::string key = content.substr(0, colon);
    std::string value = content.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    auto num = [&] { return uint32_t(std::stoul(value)); };
    if (indent == 4) {
      lastKey = key;
      if (key == ".name")
        k.name = value;
      else if (key == ".kernarg_segment_size")
        k.kernargSegmentSize = num();
      else if (key == ".group_segment_fixed_size")
        k.groupSegmentFixedSize = num();
      else if (key == ".max_flat_workgroup_size")
        k.maxFlatWorkgroupSize = num();
      else if (key == ".wavefront_size")
        k.wavefrontSize = num();
    } else if (indent == 8 && lastKey == ".args") {
      if (item)
        k.args.emplace_back();
      if (k.args.empty())
        continue;
      if (key == ".offset")
        k.args.back().offset = num();
      else if (key == ".size")
        k.args.back().size = num();
      else if (key == ".value_kind")
        k.args.back().valueKind = value;
    }
  }
  return kernels;
}

inline const NoteKernel *findNote(const std::vector<NoteKernel> &kernels,
                                  const std::string &name) {
  for (const NoteKernel &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

/// A kernel line of `tessera info`: "  kernel gemm (symbol
/// tessera_kernel_gemm): 128 threads, 49152 shared bytes, grid [...]".
struct InfoKernel {
  std::string name, symbol;
  uint32_t threads = 0, sharedBytes = 0;
};

inline std::vector<InfoKernel> parseInfo(const std::string &text) {
  std::vector<InfoKernel> kernels;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    char name[256], symbol[256];
    unsigned threads = 0, shared = 0;
    if (std::sscanf(line.c_str(),
                    "  kernel %255s (symbol %255[^)]): %u threads, %u shared",
                    name, symbol, &threads, &shared) == 4)
      kernels.push_back({name, symbol, threads, shared});
  }
  return kernels;
}

/// Sets an environment variable for a scope, restoring the old value.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name)) {
      had = true;
      previous = old;
    }
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had)
      setenv(name, previous.c_str(), 1);
    else
      unsetenv(name);
  }

private:
  const char *name;
  bool had = false;
  std::string previous;
};

/// The low `size` bytes of `value` (little-endian), as a kernarg holds them.
inline std::vector<unsigned char> lowBytes(uint64_t value, uint32_t size) {
  std::vector<unsigned char> out(size);
  for (uint32_t i = 0; i < size && i < 8; ++i)
    out[i] = static_cast<unsigned char>(value >> (8 * i));
  return out;
}

/// Checks a recorded kernarg segment against the notes' kernel: its size is
/// .kernarg_segment_size, explicit argument i holds the low .size bytes of
/// slots[i] at its .offset, and every other byte is zero (hidden arguments
/// are HIP's to fill).
inline void expectKernarg(const tessera_stand_in_hip_launch &launch,
                          const NoteKernel &kernel,
                          const std::vector<uint64_t> &slots) {
  EXPECT_EQ(launch.used_extra, 1);
  ASSERT_EQ(launch.kernarg_size, kernel.kernargSegmentSize);
  std::vector<bool> covered(kernel.kernargSegmentSize, false);
  size_t slot = 0;
  for (const NoteArg &arg : kernel.args) {
    if (arg.valueKind.rfind("hidden_", 0) == 0)
      continue;
    ASSERT_LT(slot, slots.size()) << "more explicit .args than slots";
    ASSERT_LE(arg.offset + arg.size, kernel.kernargSegmentSize);
    std::vector<unsigned char> want = lowBytes(slots[slot], arg.size);
    std::vector<unsigned char> got(launch.kernarg + arg.offset,
                                   launch.kernarg + arg.offset + arg.size);
    EXPECT_EQ(got, want) << kernel.name << " argument " << slot << " ("
                         << arg.valueKind << ", " << arg.size
                         << " bytes at offset " << arg.offset << ")";
    for (uint32_t b = 0; b < arg.size; ++b)
      covered[arg.offset + b] = true;
    ++slot;
  }
  EXPECT_EQ(slot, slots.size()) << "explicit .args vs slots";
  for (uint32_t b = 0; b < kernel.kernargSegmentSize; ++b)
    if (!covered[b])
      EXPECT_EQ(launch.kernarg[b], 0) << "padding byte " << b;
}

} // namespace tessera::test::hip

#endif
