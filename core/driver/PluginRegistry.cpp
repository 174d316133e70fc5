//===- PluginRegistry.cpp - find the compile side of a target -------------===//

#include "PluginRegistry.h"

#include "tessera/plugin/Manifest.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>

using namespace tessera;

/// lib/tessera/plugins beside the library holding this code.
static std::string defaultPluginDir() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&defaultPluginDir), &info) ||
      !info.dli_fname)
    return {};
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(info.dli_fname));
  llvm::sys::path::append(dir, "tessera", "plugins");
  return std::string(dir);
}

CompilerPluginRegistry::CompilerPluginRegistry() {
  std::vector<std::string> defaults;
  if (std::string d = defaultPluginDir(); !d.empty())
    defaults.push_back(d);
  dirs = plugin::pluginSearchPath(defaults);
  for (const std::string &dir : dirs) {
    for (const std::string &path : plugin::listManifests(dir)) {
      plugin::Manifest m;
      std::string error;
      if (!plugin::readManifest(path, m, error)) {
        problems.push_back(error);
        continue;
      }
      if (m.compilerLibrary.empty())
        continue;
      // The first plugin on the search path that serves a triple wins.
      entries.push_back({m.name, m.version, m.compilerLibrary, m.path,
                         m.triples, m.targets});
    }
  }
}

const CompilerPluginRegistry::Entry *
CompilerPluginRegistry::find(llvm::StringRef triple) const {
  for (const Entry &e : entries)
    for (const std::string &t : e.triples)
      if (t == triple)
        return &e;
  return nullptr;
}

std::string CompilerPluginRegistry::versionFor(llvm::StringRef triple) const {
  const Entry *e = find(triple);
  return e ? e->name + " " + e->version : std::string("none");
}

llvm::Expected<std::shared_ptr<LoadedCompilerPlugin>>
CompilerPluginRegistry::resolve(CompileTarget &target) {
  const Entry *e = find(target.triple);
  if (!e) {
    std::string msg = llvm::formatv("no compiler plugin serves target '{0}'",
                                    target.triple);
    std::string known;
    for (const Entry &x : entries)
      for (const std::string &t : x.triples)
        known += (known.empty() ? "" : ", ") + t;
    msg += known.empty() ? std::string("; no compiler plugins were found")
                         : "; known targets: " + known;
    msg += "; searched:";
    for (const std::string &d : dirs)
      msg += " " + d;
    for (const std::string &p : problems)
      msg += "\n  note: " + p;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  }
  std::string chip = target.chip;
  if (!e->targets.empty()) {
    if (chip.empty())
      chip = target.chip = e->targets.front().first;
    bool found = false;
    for (auto &[name, path] : e->targets)
      if (name == chip) {
        target.descriptionPath = path;
        found = true;
      }
    if (!found) {
      std::string chips;
      for (auto &[name, path] : e->targets)
        chips += (chips.empty() ? "" : ", ") + name;
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "plugin '%s' has no chip '%s' for %s; it knows: %s", e->name.c_str(),
          chip.c_str(), target.triple.c_str(), chips.c_str());
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto &slot = loaded[e->library];
  if (!slot) {
    auto plugin = loadCompilerPlugin(e->library);
    if (!plugin)
      return plugin.takeError();
    slot = *plugin;
  }
  return slot;
}
