//===- PluginRegistry.cpp - find the compile side of a target -------------===//

#include "PluginRegistry.h"

#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>

using namespace tessera;

std::string CompilerPluginRegistry::defaultPluginDir() {
  Dl_info info;
  if (!dladdr(
          reinterpret_cast<void *>(&CompilerPluginRegistry::defaultPluginDir),
          &info) ||
      !info.dli_fname)
    return {};
  return defaultPluginDirBeside(info.dli_fname);
}

CompilerPluginRegistry::CompilerPluginRegistry()
    : index(CompilerPluginIndex::fromSearchPath(defaultPluginDir())) {}

CompilerPluginRegistry::CompilerPluginRegistry(CompilerPluginIndex index)
    : index(std::move(index)) {}

std::string CompilerPluginRegistry::versionFor(llvm::StringRef triple) const {
  return index.versionFor(triple.str());
}

llvm::Expected<std::shared_ptr<LoadedCompilerPlugin>>
CompilerPluginRegistry::resolve(CompileTarget &target) {
  const CompilerPluginIndex::Entry *e = index.find(target.triple);
  if (!e) {
    std::string msg =
        llvm::formatv("no compiler plugin serves target '{0}'", target.triple);
    std::string known;
    for (const CompilerPluginIndex::Entry &x : index.entries())
      for (const std::string &t : x.triples)
        known += (known.empty() ? "" : ", ") + t;
    msg += known.empty() ? std::string("; no compiler plugins were found")
                         : "; known targets: " + known;
    msg += "; searched:";
    for (const std::string &d : index.searchPath())
      msg += " " + d;
    for (const std::string &p : index.problems())
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
