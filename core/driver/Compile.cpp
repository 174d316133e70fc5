//===- Compile.cpp - tile module to per-target images ---------------------===//

#include "Compile.h"
#include "PhaseTimes.h"

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tessera;

llvm::Expected<CompileTarget> tessera::parseTargetSpec(llvm::StringRef spec) {
  auto [triple, chip] = spec.split(':');
  if (triple.empty() || triple.count('-') < 2)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "bad target '%s': expected <arch>-<vendor>-<os>[:<chip>], e.g. "
        "nvptx64-nvidia-cuda:sm_90a or x86_64-unknown-linux-gnu",
        spec.str().c_str());
  CompileTarget t;
  t.triple = triple.str();
  t.chip = chip.str();
  return t;
}

void tessera::registerTileModuleDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect>();
}

/// The innermost file position of a location, if it has one.
static std::optional<FileLineColLoc> filePosition(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return f;
  if (auto n = dyn_cast<NameLoc>(loc))
    return filePosition(n.getChildLoc());
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return filePosition(c.getCallee());
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (auto p = filePosition(l))
        return p;
  return std::nullopt;
}

static void printDiagnostic(Diagnostic &diag, llvm::raw_ostream &os,
                            llvm::StringRef indent) {
  os << indent;
  if (auto pos = filePosition(diag.getLocation()))
    os << pos->getFilename().getValue() << ":" << pos->getLine() << ":"
       << pos->getColumn() << ": ";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  case DiagnosticSeverity::Note:
    os << "note: ";
    break;
  case DiagnosticSeverity::Remark:
    os << "remark: ";
    break;
  }
  os << diag << "\n";
  for (Diagnostic &note : diag.getNotes())
    printDiagnostic(note, os, "  ");
}

void tessera::printCompilerDiagnostic(Diagnostic &diag, llvm::raw_ostream &os) {
  printDiagnostic(diag, os, "");
}

void tessera::installCompilerDiagnosticHandler(MLIRContext &ctx) {
  ctx.getDiagEngine().registerHandler([](Diagnostic &diag) {
    printDiagnostic(diag, llvm::errs(), "");
    return success();
  });
}

OwningOpRef<ModuleOp> tessera::parseTileModule(llvm::StringRef path,
                                               MLIRContext &ctx) {
  std::string error;
  auto file = mlir::openInputFile(path, &error);
  if (!file) {
    emitError(UnknownLoc::get(&ctx)) << error;
    return {};
  }
  // Text MLIR 22's parser would crash on: reported here instead.
  auto errorAt = [&](size_t at) {
    llvm::StringRef before = file->getBuffer().take_front(at);
    unsigned line = 1 + before.count('\n');
    size_t bol = before.rfind('\n');
    unsigned col = at - (bol == llvm::StringRef::npos ? 0 : bol + 1) + 1;
    return emitError(FileLineColLoc::get(&ctx, path, line, col));
  };
  if (auto at = tile::findDenseIndexArray(file->getBuffer())) {
    errorAt(*at)
        << "dense arrays of 'index' (array<index: ...>) are not supported by "
           "the MLIR parser this tessera uses; use i64 elements";
    return {};
  }
  if (auto at = tile::findDeepNesting(file->getBuffer())) {
    errorAt(*at) << "brackets nested more than " << tile::kMaxBracketDepth
                 << " deep";
    return {};
  }
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // Parse with an AsmParserState so the source names of kernel arguments
  // (%A, %B) survive: bundles and `tessera run` refer to arguments by them.
  Block block;
  AsmParserState state;
  ParserConfig config(&ctx, /*verifyAfterParse=*/false);
  if (failed(parseAsmSourceFile(sm, &block, config, &state)))
    return {};
  OwningOpRef<ModuleOp> module;
  if (llvm::hasSingleElement(block) && isa<ModuleOp>(block.front())) {
    module = cast<ModuleOp>(block.front());
    module.get()->remove();
  } else {
    module = ModuleOp::create(FileLineColLoc::get(&ctx, path, 1, 1));
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              block.getOperations());
  }
  for (auto f : module->getOps<tile::FuncOp>()) {
    if (f.isExternal())
      continue;
    const AsmParserState::BlockDefinition *def =
        state.getBlockDef(&f.getBody().front());
    if (!def)
      continue;
    for (auto [arg, argDef] :
         llvm::zip(f.getBody().front().getArguments(), def->arguments)) {
      llvm::StringRef text(argDef.loc.Start.getPointer(),
                           argDef.loc.End.getPointer() -
                               argDef.loc.Start.getPointer());
      text.consume_front("%");
      if (!text.empty())
        arg.setLoc(NameLoc::get(StringAttr::get(&ctx, text), arg.getLoc()));
    }
  }
  if (failed(verify(*module)))
    return {};
  return module;
}

LogicalResult tessera::compileForTarget(ModuleOp module, CompileTarget target,
                                        const CompileOptions &options,
                                        const PluginResolver &resolve,
                                        TargetImage &out) {
  MLIRContext *ctx = module.getContext();
  ScopedPhase loadPhase("load the plugin");
  auto plugin = resolve(target);
  loadPhase.stop();
  if (!plugin)
    return emitError(module.getLoc()) << llvm::toString(plugin.takeError());
  out.kernels.clear();
  for (auto f : module.getOps<tile::FuncOp>()) {
    auto info = extractKernelInfo(f);
    if (failed(info))
      return failure();
    out.kernels.push_back(std::move(*info));
  }
  if (out.kernels.empty())
    return emitError(module.getLoc())
           << "the module has no tile.func to compile";
  ctx->loadDialect<func::FuncDialect, memref::MemRefDialect,
                   LLVM::LLVMDialect>();
  OwningOpRef<ModuleOp> clone = module.clone();
  if (failed((*plugin)->plugin->compile(*clone, target, options, out.image)))
    return failure();
  for (KernelInfo &k : out.kernels) {
    for (auto &[name, bytes] : out.image.sharedBytes)
      if (k.name == name)
        k.sharedBytes = bytes;
    for (auto &[name, threads] : out.image.threads)
      if (k.name == name)
        k.threads = threads;
    for (auto &[name, grid] : out.image.grids)
      if (k.name == name)
        k.grid = grid;
  }
  out.target = target;
  return success();
}
