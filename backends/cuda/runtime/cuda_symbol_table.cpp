//===- cuda_symbol_table.cpp - driver entry points loaded by dlopen ------===//

#include "cuda_symbol_table.h"

#include <dlfcn.h>

namespace tessera::cuda {

bool CudaSymbolTable::load(const char *library, std::string &error) {
  dlerror();
  void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    error = std::string("libcuda not found (dlopen ") + library + ": " +
            (why ? why : "unknown error") + ")";
    return false;
  }

  CudaSymbolTable table;
  table.handle = lib;
  std::string missing;
#define TESSERA_CUDA_RESOLVE(name, params)                                     \
  table.name = reinterpret_cast<decltype(table.name)>(dlsym(lib, #name));      \
  if (!table.name && missing.empty())                                          \
    missing = #name;
  TESSERA_CUDA_REQUIRED_SYMBOLS(TESSERA_CUDA_RESOLVE)
#undef TESSERA_CUDA_RESOLVE
  if (!missing.empty()) {
    error = std::string(library) + " lacks " + missing +
            " (driver too old, or not the CUDA driver?)";
    // Leave it loaded: a library may not expect to be unloaded this soon.
    return false;
  }
#define TESSERA_CUDA_RESOLVE_OPTIONAL(name, params)                            \
  table.name = reinterpret_cast<decltype(table.name)>(dlsym(lib, #name));
  TESSERA_CUDA_OPTIONAL_SYMBOLS(TESSERA_CUDA_RESOLVE_OPTIONAL)
#undef TESSERA_CUDA_RESOLVE_OPTIONAL
  table.eventElapsedTime = table.cuEventElapsedTime_v2
                               ? table.cuEventElapsedTime_v2
                               : table.cuEventElapsedTime;
  if (!table.eventElapsedTime) {
    error = std::string(library) + " lacks cuEventElapsedTime";
    return false;
  }
  *this = table;
  return true;
}

std::string CudaSymbolTable::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string out = name ? name : "CUresult " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

} // namespace tessera::cuda
