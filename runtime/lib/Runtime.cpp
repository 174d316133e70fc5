//===- Runtime.cpp - plugin discovery and devices -------------------------===//

#include "Internal.h"

#include <cstring>
#include <dlfcn.h>

using namespace tessera;
using tessera::runtime::makeStatus;

namespace {

/// <dir of libtessera_runtime.so>/tessera/plugins: the build tree's
/// lib/tessera/plugins, or <prefix>/lib/tessera/plugins once installed.
std::string defaultPluginDir() {
  Dl_info info;
  if (!::dladdr(reinterpret_cast<void *>(&tessera_runtime_create), &info) ||
      !info.dli_fname)
    return "";
  std::string library = info.dli_fname;
  size_t slash = library.rfind('/');
  std::string dir = slash == std::string::npos ? "." : library.substr(0, slash);
  return dir + "/tessera/plugins";
}

std::vector<std::string> splitPath(const char *path) {
  std::vector<std::string> dirs;
  if (!path)
    return dirs;
  std::string text = path;
  size_t start = 0;
  while (start <= text.size()) {
    size_t colon = text.find(':', start);
    if (colon == std::string::npos)
      colon = text.size();
    if (colon > start)
      dirs.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  return dirs;
}

/// Opens every device of a ready plugin. A device that fails to open is
/// skipped: one bad GPU must not hide the others.
void openDevices(tessera_runtime_s &rt, plugin::RuntimePlugin &plugin) {
  uint32_t opened = 0;
  const tessera_runtime_plugin *api = plugin.table;
  runtime::PluginError err;
  uint32_t count = 0;
  if (api->device_count(&count, err.data(), err.size()) != TESSERA_PLUGIN_OK) {
    plugin.state = plugin::PluginState::Unavailable;
    plugin.message = std::string("device_count failed: ") + err.text;
    rt.devicesPerPlugin.push_back(0);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) {
    auto device = std::make_unique<tessera_device_s>();
    device->runtime = &rt;
    device->plugin = &plugin;
    device->api = api;
    device->ordinal = i;
    if (api->device_open(i, &device->handle, err.data(), err.size()) !=
        TESSERA_PLUGIN_OK)
      continue;
    if (api->device_info(device->handle, &device->info, err.data(),
                         err.size()) != TESSERA_PLUGIN_OK) {
      api->device_close(device->handle);
      continue;
    }
    // The plugin fills fixed arrays; never trust their termination.
    device->info.name[sizeof device->info.name - 1] = '\0';
    device->info.triple[sizeof device->info.triple - 1] = '\0';
    device->info.chip[sizeof device->info.chip - 1] = '\0';
    rt.devices.push_back(std::move(device));
    ++opened;
  }
  rt.devicesPerPlugin.push_back(opened);
}

} // namespace

tessera_runtime_s::~tessera_runtime_s() {
  for (auto &device : devices)
    device->api->device_close(device->handle);
  devices.clear();
  plugins.clear(); // shuts down and unloads
}

extern "C" {

tessera_status_t tessera_runtime_create(tessera_runtime_t *out) {
  return tessera_runtime_create_with_options(nullptr, out);
}

tessera_status_t
tessera_runtime_create_with_options(const tessera_runtime_options *options,
                                    tessera_runtime_t *out) {
  TESSERA_CHECK_ARG(out, "tessera_runtime_create: out is NULL");
  std::vector<std::string> defaults;
  if (options)
    defaults = splitPath(options->plugin_path);
  if (!options || !options->skip_default_plugin_dir) {
    std::string dir = defaultPluginDir();
    if (!dir.empty())
      defaults.push_back(dir);
  }
  auto rt = std::make_unique<tessera_runtime_s>();
  rt->plugins = plugin::loadRuntimePlugins(plugin::pluginSearchPath(defaults));
  for (auto &plugin : rt->plugins) {
    if (plugin->state == plugin::PluginState::Ready)
      openDevices(*rt, *plugin);
    else
      rt->devicesPerPlugin.push_back(0);
  }
  *out = rt.release();
  return nullptr;
}

void tessera_runtime_destroy(tessera_runtime_t runtime) { delete runtime; }

tessera_status_t tessera_runtime_plugin_count(tessera_runtime_t runtime,
                                              uint32_t *count) {
  TESSERA_CHECK_ARG(runtime && count,
                    "tessera_runtime_plugin_count: NULL argument");
  *count = static_cast<uint32_t>(runtime->plugins.size());
  return nullptr;
}

tessera_status_t tessera_runtime_plugin_info(tessera_runtime_t runtime,
                                             uint32_t index,
                                             tessera_plugin_info *info) {
  TESSERA_CHECK_ARG(runtime && info,
                    "tessera_runtime_plugin_info: NULL argument");
  if (index >= runtime->plugins.size())
    return makeStatus(TESSERA_NOT_FOUND,
                      "plugin index " + std::to_string(index) +
                          " is out of range; there are " +
                          std::to_string(runtime->plugins.size()));
  const plugin::RuntimePlugin &plugin = *runtime->plugins[index];
  info->name = plugin.manifest.name.c_str();
  info->version = plugin.manifest.version.c_str();
  info->manifest_path = plugin.manifest.path.c_str();
  info->library_path = plugin.manifest.runtimeLibrary.c_str();
  switch (plugin.state) {
  case plugin::PluginState::Ready:
    info->state = TESSERA_PLUGIN_READY;
    break;
  case plugin::PluginState::Unavailable:
    info->state = TESSERA_PLUGIN_UNAVAILABLE;
    break;
  case plugin::PluginState::Refused:
    info->state = TESSERA_PLUGIN_REFUSED;
    break;
  }
  info->message = plugin.message.c_str();
  info->device_count = runtime->devicesPerPlugin[index];
  info->abi_major = plugin.manifest.abiMajor;
  info->abi_minor = plugin.manifest.abiMinor;
  return nullptr;
}

tessera_status_t tessera_runtime_device_count(tessera_runtime_t runtime,
                                              uint32_t *count) {
  TESSERA_CHECK_ARG(runtime && count,
                    "tessera_runtime_device_count: NULL argument");
  *count = static_cast<uint32_t>(runtime->devices.size());
  return nullptr;
}

tessera_status_t tessera_runtime_device(tessera_runtime_t runtime,
                                        uint32_t index,
                                        tessera_device_t *device) {
  TESSERA_CHECK_ARG(runtime && device, "tessera_runtime_device: NULL argument");
  if (index >= runtime->devices.size())
    return makeStatus(TESSERA_NOT_FOUND,
                      "device index " + std::to_string(index) +
                          " is out of range; there are " +
                          std::to_string(runtime->devices.size()) + " devices");
  *device = runtime->devices[index].get();
  return nullptr;
}

tessera_status_t tessera_device_get_info(tessera_device_t device,
                                         tessera_device_info *info) {
  TESSERA_CHECK_ARG(device && info, "tessera_device_get_info: NULL argument");
  std::memset(info, 0, sizeof *info);
  const tessera_plugin_device_info &src = device->info;
  std::memcpy(info->name, src.name, sizeof info->name);
  std::memcpy(info->triple, src.triple, sizeof info->triple);
  std::memcpy(info->chip, src.chip, sizeof info->chip);
  std::strncpy(info->plugin, device->plugin->manifest.name.c_str(),
               sizeof info->plugin - 1);
  info->total_memory = src.total_memory;
  info->compute_units = src.compute_units;
  info->max_threads_per_block = src.max_threads_per_block;
  info->max_shared_bytes_per_block = src.max_shared_bytes_per_block;
  info->warp_size = src.warp_size;
  return nullptr;
}

} // extern "C"
