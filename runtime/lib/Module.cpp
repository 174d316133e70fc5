//===- Module.cpp - load a bundle image onto a device ---------------------===//

#include "Internal.h"
#include "tessera/bundle/Bundle.h"

#include <cstddef>
#include <cstring>

using namespace tessera;
using tessera::runtime::makeStatus;
using tessera::runtime::PluginError;
using tessera::runtime::pluginStatus;

namespace {

/// CPU triples accept an image built for any chip of the triple: host code
/// for a baseline chip runs on a newer one. GPU chips must match exactly,
/// but for Vulkan's generic images.
bool isCpuTriple(std::string_view triple) {
  std::string_view arch = triple.substr(0, triple.find('-'));
  for (const char *cpu :
       {"x86_64", "i386", "i686", "aarch64", "arm64", "arm", "riscv64",
        "riscv32", "powerpc64le", "powerpc64", "s390x", "loongarch64"})
    if (arch == cpu)
      return true;
  return false;
}

/// An image that belongs to the image before it (bundle::kOnDemandKey).
bool isOnDemand(const bundle::Image &image) {
  return image.hasString(bundle::kOnDemandKey);
}

std::string describeImages(const bundle::Bundle &bundle) {
  std::string list;
  for (const bundle::Image &image : bundle.images) {
    if (isOnDemand(image))
      continue;
    if (!list.empty())
      list += ", ";
    list += std::string(image.triple()) + ":" + std::string(image.arch());
  }
  return list.empty() ? "no images" : list;
}

/// Vulkan images built for the "generic" device description (no
/// cooperative matrices, the minimum limits) run on every Vulkan device.
bool isGenericImage(std::string_view triple, std::string_view chip) {
  return triple.substr(0, triple.find('-')) == "spirv64" && chip == "generic";
}

/// The index of the image to load, or -1: the device's own chip first, then
/// an image any chip of the triple runs.
int pickImage(const bundle::Bundle &bundle, const tessera_device_s &device) {
  std::string_view triple = device.info.triple, chip = device.info.chip;
  int fallback = -1;
  for (size_t i = 0; i < bundle.images.size(); ++i) {
    const bundle::Image &image = bundle.images[i];
    if (image.triple() != triple || isOnDemand(image))
      continue;
    if (image.arch() == chip)
      return static_cast<int>(i);
    if (fallback < 0 &&
        (isCpuTriple(triple) || isGenericImage(triple, image.arch())))
      fallback = static_cast<int>(i);
  }
  return fallback;
}

tessera_status_t loadBundle(tessera_device_s *device, std::string_view data,
                            const std::string &name, tessera_module_t *out) {
  bundle::Bundle bundle;
  std::string error;
  if (!bundle::readBundle(data, name, bundle, error))
    return makeStatus(TESSERA_BAD_BUNDLE, error);
  int index = pickImage(bundle, *device);
  if (index < 0)
    return makeStatus(TESSERA_INCOMPATIBLE,
                      "bundle '" + name + "' has no image for device '" +
                          device->info.name + "' (" + device->info.triple +
                          ":" + device->info.chip + "); it holds " +
                          describeImages(bundle));
  const bundle::Image &image = bundle.images[index];
  std::string source = name + " image " + std::to_string(index) + " (" +
                       std::string(image.triple()) + ":" +
                       std::string(image.arch()) + ")";
  if (!image.hasString(bundle::kKernelsKey))
    return makeStatus(TESSERA_BAD_BUNDLE,
                      source + " has no 'tessera.kernels' metadata");
  auto module = std::make_unique<tessera_module_s>();
  module->device = device;
  module->name = name;
  std::vector<bundle::KernelInfo> kernels;
  if (!bundle::parseKernelMetadata(image.kernels(), source, kernels, error))
    return makeStatus(TESSERA_BAD_BUNDLE, error);

  PluginError err;
  if (auto *s = pluginStatus(
          device->api->module_load(device->handle, image.bytes.data(),
                                   image.bytes.size(), &module->handle,
                                   err.data(), err.size()),
          err.text,
          "the '" + device->plugin->manifest.name + "' plugin rejected " +
              source))
    return s;
  // The on-demand images that follow it (ABI 1.2; a plugin without the
  // entry gets none, and launches that need their kernels fail there).
  const tessera_runtime_plugin *api = device->api;
  bool takesOnDemand =
      api->struct_size >=
          offsetof(tessera_runtime_plugin, module_add_on_demand_image) +
              sizeof(api->module_add_on_demand_image) &&
      api->module_add_on_demand_image;
  for (size_t i = index + 1; takesOnDemand && i < bundle.images.size() &&
                             isOnDemand(bundle.images[i]);
       ++i) {
    const bundle::Image &part = bundle.images[i];
    if (part.triple() != image.triple() || part.arch() != image.arch())
      break;
    if (auto *s = pluginStatus(
            api->module_add_on_demand_image(module->handle, part.bytes.data(),
                                            part.bytes.size(), err.data(),
                                            err.size()),
            err.text,
            "the '" + device->plugin->manifest.name + "' plugin rejected " +
                name + " image " + std::to_string(i) + " (on demand)")) {
      api->module_unload(module->handle);
      return s;
    }
  }
  for (bundle::KernelInfo &info : kernels) {
    auto kernel = std::make_unique<tessera_kernel_s>();
    kernel->module = module.get();
    if (auto *s = pluginStatus(
            device->api->kernel_get(module->handle, info.symbol.c_str(),
                                    &kernel->handle, err.data(), err.size()),
            err.text,
            source + ": kernel '" + info.name + "' (symbol '" + info.symbol +
                "') not found")) {
      device->api->module_unload(module->handle);
      return s;
    }
    kernel->info = std::move(info);
    tessera::runtime::prepareLaunchPlan(*kernel);
    module->kernels.push_back(std::move(kernel));
  }
  *out = module.release();
  return nullptr;
}

} // namespace

extern "C" {

tessera_status_t tessera_module_load_bundle_file(tessera_device_t device,
                                                 const char *path,
                                                 tessera_module_t *out) {
  TESSERA_CHECK_ARG(device && path && out,
                    "tessera_module_load_bundle_file: NULL argument");
  FILE *file = std::fopen(path, "rb");
  if (!file)
    return makeStatus(TESSERA_NOT_FOUND, std::string("cannot open bundle '") +
                                             path +
                                             "': " + std::strerror(errno));
  std::string data;
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0)
    data.append(chunk, n);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    return makeStatus(TESSERA_NOT_FOUND,
                      std::string("cannot read bundle '") + path + "'");
  return loadBundle(device, data, path, out);
}

tessera_status_t tessera_module_load_bundle_memory(tessera_device_t device,
                                                   const void *data,
                                                   uint64_t size,
                                                   const char *name,
                                                   tessera_module_t *out) {
  TESSERA_CHECK_ARG(device && (data || !size) && out,
                    "tessera_module_load_bundle_memory: NULL argument");
  return loadBundle(device,
                    std::string_view(static_cast<const char *>(data), size),
                    name ? name : "<memory>", out);
}

void tessera_module_unload(tessera_module_t module) {
  if (!module)
    return;
  module->device->api->module_unload(module->handle);
  delete module;
}

uint32_t tessera_module_kernel_count(tessera_module_t module) {
  return module ? static_cast<uint32_t>(module->kernels.size()) : 0;
}

const char *tessera_module_kernel_name(tessera_module_t module,
                                       uint32_t index) {
  if (!module || index >= module->kernels.size())
    return nullptr;
  return module->kernels[index]->info.name.c_str();
}

tessera_status_t tessera_module_get_kernel(tessera_module_t module,
                                           const char *name,
                                           tessera_kernel_t *out) {
  TESSERA_CHECK_ARG(module && name && out,
                    "tessera_module_get_kernel: NULL argument");
  std::string names;
  for (auto &kernel : module->kernels) {
    if (kernel->info.name == name) {
      *out = kernel.get();
      return nullptr;
    }
    names += (names.empty() ? "" : ", ") + kernel->info.name;
  }
  return makeStatus(TESSERA_NOT_FOUND,
                    "bundle '" + module->name + "' has no kernel '" + name +
                        "'; it has: " + (names.empty() ? "none" : names));
}

} // extern "C"
