//===- BundleCompiler.cpp - a tile source file to a .tsb bundle -----------===//

#include "BundleCompiler.h"
#include "PhaseTimes.h"

#include "tessera/bundle/Bundle.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace tessera;

#ifndef TESSERA_VERSION
#define TESSERA_VERSION "0.1.0"
#endif

static bundle::ImageKind imageKindFor(llvm::StringRef name) {
  return llvm::StringSwitch<bundle::ImageKind>(name)
      .Case("object", bundle::ImageKind::Object)
      // An AMD code object is an ELF shared object (LLVM's IMG_Object).
      .Case("hsaco", bundle::ImageKind::Object)
      .Case("cubin", bundle::ImageKind::Cubin)
      .Case("ptx", bundle::ImageKind::PTX)
      .Case("spirv", bundle::ImageKind::SPIRV)
      .Case("fatbinary", bundle::ImageKind::Fatbinary)
      .Default(bundle::ImageKind::None);
}

static bundle::OffloadKind offloadKindFor(llvm::StringRef triple) {
  if (triple.starts_with("nvptx"))
    return bundle::OffloadKind::Cuda;
  if (triple.starts_with("amdgcn"))
    return bundle::OffloadKind::HIP;
  return bundle::OffloadKind::OpenMP;
}

LogicalResult tessera::compileBundle(const BundleRequest &request,
                                     MLIRContext &ctx,
                                     CompilerPluginRegistry &plugins,
                                     const CompileCache &cache,
                                     BundleResult &result) {
  Location fileLoc = FileLineColLoc::get(&ctx, request.sourcePath, 0, 0);
  std::string error;
  auto source = openInputFile(request.sourcePath, &error);
  if (!source)
    return emitError(fileLoc) << error;

  std::vector<CompileTarget> targets;
  std::vector<std::string> specs = request.targets;
  if (specs.empty())
    specs.push_back(hostTriple());
  for (const std::string &spec : specs) {
    auto t = parseTargetSpec(spec);
    if (!t)
      return emitError(fileLoc) << llvm::toString(t.takeError());
    targets.push_back(*t);
  }

  // The key the `tessera` tool also computes, without LLVM (CompileKey.h).
  std::vector<TargetSpec> keyTargets;
  for (const CompileTarget &t : targets)
    keyTargets.push_back({t.triple, t.chip});
  std::string key =
      compileCacheKey(source->getBuffer().str(), request.options.optLevel,
                      keyTargets, plugins.manifests());
  result.key = key;
  bool useCache = cache.enabled() && !request.options.printIRAfterAll &&
                  request.options.dumpDir.empty();
  if (useCache) {
    switch (cache.get(key, result.bytes)) {
    case CompileCache::Lookup::Hit:
      result.cacheState = "hit";
      return success();
    case CompileCache::Lookup::Corrupt:
      result.cacheState = "corrupt";
      break;
    case CompileCache::Lookup::Miss:
      result.cacheState = "miss";
      break;
    }
  }

  ScopedPhase parsePhase("parse + verify");
  OwningOpRef<ModuleOp> module = parseTileModule(request.sourcePath, ctx);
  if (!module)
    return failure();
  parsePhase.stop();
  bundle::Bundle out;
  for (CompileTarget &t : targets) {
    TargetImage image;
    ScopedPhase targetPhase(t.chip.empty() ? t.triple
                                           : t.triple + ":" + t.chip);
    if (failed(compileForTarget(
            *module, t, request.options,
            [&](CompileTarget &tt) { return plugins.resolve(tt); }, image)))
      return failure();
    bundle::Image img;
    img.imageKind = imageKindFor(image.image.imageKind);
    img.offloadKind = offloadKindFor(image.target.triple);
    img.setString(bundle::kTripleKey, image.target.triple);
    // A CPU image cross-compiled for another machine targets no particular
    // chip of that machine: "host" would be a lie there.
    std::string arch = image.target.chip;
    if (arch.empty() || (arch == "host" && image.target.triple != hostTriple()))
      arch = "generic";
    img.setString(bundle::kArchKey, arch);
    img.setString(bundle::kKernelsKey,
                  bundle::printKernelMetadata(image.kernels));
    img.setString(bundle::kVersionKey, TESSERA_VERSION);
    img.setString("tessera.source", source->getBuffer().str());
    img.bytes.assign(image.image.bytes.begin(), image.image.bytes.end());
    out.images.push_back(std::move(img));
    if (!image.image.onDemandBytes.empty()) {
      bundle::Image part;
      part.imageKind = imageKindFor(image.image.onDemandKind);
      part.offloadKind = offloadKindFor(image.target.triple);
      part.setString(bundle::kTripleKey, image.target.triple);
      part.setString(bundle::kArchKey, arch);
      part.setString(bundle::kOnDemandKey, "fallback kernels");
      part.setString(bundle::kVersionKey, TESSERA_VERSION);
      part.bytes.assign(image.image.onDemandBytes.begin(),
                        image.image.onDemandBytes.end());
      out.images.push_back(std::move(part));
    }
  }
  ScopedPhase writePhase("bundle");
  result.bytes = bundle::writeBundle(out);
  if (useCache) {
    std::string cacheError;
    if (!cache.put(key, result.bytes, cacheError))
      emitWarning(fileLoc) << "compile cache: " << cacheError;
  }
  return success();
}
