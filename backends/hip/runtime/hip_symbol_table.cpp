//===- hip_symbol_table.cpp - HIP entry points loaded by dlopen -----------===//

#include "hip_symbol_table.h"

#include <dlfcn.h>

namespace tessera::hip {

bool HipSymbolTable::load(const char *library, std::string &error) {
  dlerror();
  void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    error = std::string("libamdhip64 not found (dlopen ") + library + ": " +
            (why ? why : "unknown error") + ")";
    return false;
  }

  HipSymbolTable table;
  table.handle = lib;
  std::string missing;
#define TESSERA_HIP_RESOLVE(name, params)                                      \
  table.name = reinterpret_cast<decltype(table.name)>(dlsym(lib, #name));      \
  if (!table.name && missing.empty())                                          \
    missing = #name;
  TESSERA_HIP_REQUIRED_SYMBOLS(TESSERA_HIP_RESOLVE)
  TESSERA_HIP_RESOLVE(hipGetErrorString, ())
#undef TESSERA_HIP_RESOLVE
#define TESSERA_HIP_RESOLVE_OPTIONAL(name, params)                             \
  table.name = reinterpret_cast<decltype(table.name)>(dlsym(lib, #name));
  TESSERA_HIP_OPTIONAL_SYMBOLS(TESSERA_HIP_RESOLVE_OPTIONAL)
  TESSERA_HIP_RESOLVE_OPTIONAL(hipGetErrorName, ())
#undef TESSERA_HIP_RESOLVE_OPTIONAL
  if (missing.empty() && !table.hipGetDevicePropertiesR0600 &&
      !table.hipGetDeviceProperties)
    missing = "hipGetDevicePropertiesR0600 and hipGetDeviceProperties";
  if (!missing.empty()) {
    error = "libamdhip64 lacks " + missing + " (" + library +
            " is not the HIP runtime, or too old)";
    // Nothing of it was called: unloading it is safe, and a wrong library
    // named by $TESSERA_HIP_LIBRARY does not stay in the process.
    dlclose(lib);
    return false;
  }
  *this = table;
  return true;
}

std::string HipSymbolTable::describe(hipError_t result) const {
  const char *name = hipGetErrorName ? hipGetErrorName(result) : nullptr;
  const char *text = hipGetErrorString ? hipGetErrorString(result) : nullptr;
  std::string out = name && *name ? std::string(name)
                                  : "hipError_t " + std::to_string(result);
  if (text && *text && (!name || std::string(text) != name))
    out += std::string(" (") + text + ")";
  return out;
}

} // namespace tessera::hip
