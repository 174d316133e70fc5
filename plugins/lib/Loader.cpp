//===- Loader.cpp - dlopen runtime plugins --------------------------------===//

#include "tessera/plugin/Loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

namespace tessera::plugin {

const char *pluginStateName(PluginState state) {
  switch (state) {
  case PluginState::Ready:
    return "ready";
  case PluginState::Unavailable:
    return "unavailable";
  case PluginState::Refused:
    return "refused";
  }
  return "unknown";
}

RuntimePlugin::~RuntimePlugin() {
  if (table && state == PluginState::Ready && table->shutdown)
    table->shutdown();
  if (handle)
    ::dlclose(handle);
}

namespace {

std::string abiString(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

/// The fields every ABI 1.x table must have, up to and including launch.
constexpr size_t kMinTableSize =
    offsetof(tessera_runtime_plugin, launch) + sizeof(void *);

/// Fails with "plugin 'x' (file): why", leaving the plugin refused.
void refuse(RuntimePlugin &plugin, const std::string &why) {
  plugin.state = PluginState::Refused;
  plugin.message = why;
  plugin.table = nullptr;
  if (plugin.handle) {
    ::dlclose(plugin.handle);
    plugin.handle = nullptr;
  }
}

std::string who(const Manifest &manifest) {
  return "plugin '" + manifest.name + "' (" + manifest.path + ")";
}

void load(RuntimePlugin &plugin) {
  Manifest &manifest = plugin.manifest;
  if (manifest.abiMajor != TESSERA_RUNTIME_ABI_MAJOR)
    return refuse(plugin, who(manifest) + " speaks runtime ABI " +
                              abiString(manifest.abiMajor, manifest.abiMinor) +
                              ", this runtime speaks " +
                              abiString(TESSERA_RUNTIME_ABI_MAJOR,
                                        TESSERA_RUNTIME_ABI_MINOR));
  struct stat info;
  if (::stat(manifest.runtimeLibrary.c_str(), &info) != 0)
    return refuse(plugin, who(manifest) + " names runtime library '" +
                              manifest.runtimeLibrary +
                              "', which does not exist");

  ::dlerror();
  plugin.handle =
      ::dlopen(manifest.runtimeLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!plugin.handle) {
    const char *why = ::dlerror();
    return refuse(plugin, who(manifest) + " cannot be loaded: " +
                              (why ? why : "dlopen failed"));
  }
  auto entry = reinterpret_cast<tessera_runtime_plugin_entry_fn>(
      ::dlsym(plugin.handle, TESSERA_RUNTIME_PLUGIN_ENTRY_NAME));
  if (!entry)
    return refuse(plugin, who(manifest) + ": library '" +
                              manifest.runtimeLibrary + "' does not export " +
                              TESSERA_RUNTIME_PLUGIN_ENTRY_NAME);
  const tessera_runtime_plugin *table = entry();
  if (!table)
    return refuse(plugin, who(manifest) + ": " +
                              TESSERA_RUNTIME_PLUGIN_ENTRY_NAME +
                              " returned no table");
  if (table->abi_major != TESSERA_RUNTIME_ABI_MAJOR)
    return refuse(plugin, who(manifest) + " speaks runtime ABI " +
                              abiString(table->abi_major, table->abi_minor) +
                              ", this runtime speaks " +
                              abiString(TESSERA_RUNTIME_ABI_MAJOR,
                                        TESSERA_RUNTIME_ABI_MINOR));
  if (table->struct_size < kMinTableSize)
    return refuse(plugin, who(manifest) + ": its function table has " +
                              std::to_string(table->struct_size) +
                              " bytes, ABI 1.0 needs at least " +
                              std::to_string(kMinTableSize));
  // Every function of ABI 1.0 is mandatory: a null one would crash later,
  // far from its cause.
  const void *const functions[] = {
      (void *)table->initialize,         (void *)table->shutdown,
      (void *)table->device_count,       (void *)table->device_open,
      (void *)table->device_close,       (void *)table->device_info,
      (void *)table->mem_alloc,          (void *)table->mem_free,
      (void *)table->copy_to_device,     (void *)table->copy_to_host,
      (void *)table->copy_device,        (void *)table->mem_set,
      (void *)table->stream_create,      (void *)table->stream_destroy,
      (void *)table->stream_synchronize, (void *)table->event_create,
      (void *)table->event_destroy,      (void *)table->event_record,
      (void *)table->event_synchronize,  (void *)table->event_elapsed_ms,
      (void *)table->module_load,        (void *)table->module_unload,
      (void *)table->kernel_get,         (void *)table->launch};
  for (const void *function : functions)
    if (!function)
      return refuse(plugin, who(manifest) + ": its function table has a null "
                                            "entry");
  if (!table->name || manifest.name != table->name)
    return refuse(plugin, who(manifest) + ": the library calls itself '" +
                              (table->name ? table->name : "") + "'");

  plugin.table = table;
  char err[512] = {0};
  if (table->initialize(err, sizeof err) != TESSERA_PLUGIN_OK) {
    err[sizeof err - 1] = '\0';
    plugin.state = PluginState::Unavailable;
    plugin.message = err[0] ? err : "initialize failed without a reason";
    return;
  }
  plugin.state = PluginState::Ready;
  plugin.message.clear();
}

} // namespace

std::unique_ptr<RuntimePlugin>
loadRuntimePlugin(const std::string &manifestPath) {
  auto plugin = std::make_unique<RuntimePlugin>();
  std::string error;
  if (!readManifest(manifestPath, plugin->manifest, error)) {
    refuse(*plugin, error);
    return plugin;
  }
  load(*plugin);
  return plugin;
}

std::vector<std::unique_ptr<RuntimePlugin>>
loadRuntimePlugins(const std::vector<std::string> &dirs) {
  std::vector<std::unique_ptr<RuntimePlugin>> plugins;
  for (const std::string &dir : dirs) {
    for (const std::string &path : listManifests(dir)) {
      auto plugin = std::make_unique<RuntimePlugin>();
      std::string error;
      if (!readManifest(path, plugin->manifest, error)) {
        refuse(*plugin, error);
        plugins.push_back(std::move(plugin));
        continue;
      }
      const RuntimePlugin *first = nullptr;
      for (const auto &other : plugins)
        if (other->state != PluginState::Refused &&
            other->manifest.name == plugin->manifest.name)
          first = other.get();
      if (first)
        refuse(*plugin, who(plugin->manifest) + " is shadowed by " +
                            first->manifest.path);
      else
        load(*plugin);
      plugins.push_back(std::move(plugin));
    }
  }
  return plugins;
}

} // namespace tessera::plugin
