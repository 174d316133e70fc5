//===- E2EHelpers.h - shared helpers of the end-to-end tests ----*- C++ -*-===//
//
// The e2e tests compile examples by running the built `tessera compile`
// binary (so they exercise exactly what a user runs, and link only the
// runtime), load the bundle through the runtime C++ API and compare results
// with plain C++ references.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TESTS_E2E_E2EHELPERS_H
#define TESSERA_TESTS_E2E_E2EHELPERS_H

#include "tessera/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace e2e {

/// A fresh directory under $TMPDIR (or /tmp), removed by the destructor.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(base && *base ? base : "/tmp") + "/tessera-e2e-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()))
      path_ = buf.data();
  }
  ~TempDir() {
    if (!path_.empty())
      run("rm -rf '" + path_ + "'");
  }
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

  static int run(const std::string &cmd) { return std::system(cmd.c_str()); }

private:
  std::string path_;
};

struct CommandResult {
  int exitCode = -1;  // -1: did not exit normally (signal)
  std::string output; // stdout and stderr together
};

/// Runs a shell command line, capturing stdout + stderr.
inline CommandResult runCommand(const std::string &cmd) {
  CommandResult r;
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p)
    return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    r.output.append(buf, n);
  int status = pclose(p);
  if (WIFEXITED(status))
    r.exitCode = WEXITSTATUS(status);
  return r;
}

inline std::string examplePath(const std::string &name) {
  return std::string(TESSERA_EXAMPLES_DIR) + "/" + name + ".mlir";
}

inline std::string readFile(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  std::ostringstream os;
  os << is.rdbuf();
  return os.str();
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  os.write(bytes.data(), bytes.size());
}

inline bool fileExists(const std::string &path) {
  return access(path.c_str(), F_OK) == 0;
}

/// A runtime that finds the plugins of this build tree, and its CPU device.
/// The device the end-to-end tests run on: the CPU plugin's, or the first
/// device of the runtime plugin that $TESSERA_E2E_PLUGIN names (e.g. "spirv"
/// runs them on a Vulkan device such as lavapipe).
struct CpuRuntime {
  tessera::Runtime runtime;
  /// The chosen device (the CPU's unless $TESSERA_E2E_PLUGIN says otherwise).
  tessera_device_t cpu = nullptr;
  std::string plugin = "cpu";

  CpuRuntime() {
    if (const char *p = std::getenv("TESSERA_E2E_PLUGIN"); p && *p)
      plugin = p;
    tessera_runtime_options options = {};
    options.plugin_path = TESSERA_PLUGIN_DIR;
    runtime = tessera::Runtime::create(&options);
    for (const tessera::Device &d : runtime.devices())
      if (std::string(d.info().plugin) == plugin && !cpu)
        cpu = d.get();
  }
  tessera::Device device() const { return tessera::Device(cpu); }
  /// `tessera compile` options for the device: none for the host, else its
  /// --target.
  std::string targetOption() const {
    if (plugin == "cpu" || !cpu)
      return "";
    tessera_device_info info = device().info();
    return std::string(" --target '") + info.triple + ":" + info.chip + "'";
  }
  /// Why the tests cannot run: no such device here ("" when there is one).
  std::string missing() const {
    if (cpu)
      return "";
    return plugin == "cpu" ? "no CPU device"
                           : "skipped: no " + plugin + " device";
  }
};

/// At the top of a test: fails without a CPU device, skips when another
/// plugin's device was asked for and is not here.
#define E2E_REQUIRE_DEVICE(rt)                                                 \
  do {                                                                         \
    if ((rt).cpu == nullptr) {                                                 \
      if ((rt).plugin != "cpu")                                                \
        GTEST_SKIP() << (rt).missing();                                        \
      FAIL() << (rt).missing();                                                \
    }                                                                          \
  } while (0)

/// Relative 2-norm error ||got - want|| / ||want|| (absolute when want is 0).
/// Any NaN or infinity in `got` that `want` does not have gives +inf, so an
/// element a kernel left poisoned always fails.
inline double relError(const std::vector<double> &got,
                       const std::vector<double> &want) {
  if (got.size() != want.size())
    return INFINITY;
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i]))
      return INFINITY;
    double d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

} // namespace e2e

#endif
