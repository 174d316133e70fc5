//===- SpirvTargetHooks.cpp - what Vulkan adds to distribution ------------===//

#include "SpirvTargetHooks.h"

#include "tessera/layout/NamedLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir;
namespace spv = ::mlir::spirv;

namespace tessera::spirv {

namespace {

/// The cooperative matrix the accumulator registers `regs` are the
/// components of (component i is register i).
Value packAccumulator(OpBuilder &b, Location loc, const target::MmaAtom &atom,
                      ArrayRef<Value> regs) {
  Type elem = regs.front().getType();
  auto ty = gpu::MMAMatrixType::get({atom.m, atom.n}, elem, "COp");
  // Registers that are the components of one cooperative matrix in order
  // (the previous K step's result) are that matrix: an instance's
  // accumulator stays one matrix across the K steps of a gemm instead of
  // being taken apart and rebuilt between them (TESSERA_SPIRV_REPACK=1
  // rebuilds it, for A/B measurements).
  static const bool repack = [] {
    const char *v = std::getenv("TESSERA_SPIRV_REPACK");
    return v && std::string(v) == "1";
  }();
  auto componentOf = [](Value v, int64_t i) -> Value {
    auto e = v.getDefiningOp<gpu::SubgroupMmaExtractThreadLocalOp>();
    if (!e || e.getIndices().size() != 1)
      return {};
    std::optional<int64_t> at = getConstantIntValue(e.getIndices().front());
    return at && *at == i ? e.getMatrix() : Value();
  };
  if (Value whole = componentOf(regs.front(), 0);
      !repack && whole && whole.getType() == ty &&
      llvm::all_of(llvm::enumerate(regs), [&](auto r) {
        return componentOf(r.value(), int64_t(r.index())) == whole;
      }))
    return whole;
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
  Value m = gpu::SubgroupMmaConstantMatrixOp::create(b, loc, ty, zero);
  for (auto [i, r] : llvm::enumerate(regs)) {
    Value at = arith::ConstantIndexOp::create(b, loc, i);
    m = gpu::SubgroupMmaInsertThreadLocalOp::create(b, loc, ty, r, m, at);
  }
  return m;
}

void unpackAccumulator(OpBuilder &b, Location loc, Value m, int64_t n,
                       SmallVectorImpl<Value> &regs) {
  for (int64_t i = 0; i < n; ++i) {
    Value at = arith::ConstantIndexOp::create(b, loc, i);
    regs.push_back(gpu::SubgroupMmaExtractThreadLocalOp::create(b, loc, m, at));
  }
}

int64_t componentsOf(const target::MmaAtom &atom) {
  return atom.cLayout ? atom.cLayout->getInDimSize(layout::kRegister) : 0;
}

/// A or B of an atom from a row-major shared tile (rows possibly padded):
/// the cooperative matrix load takes a row stride and nothing else, so
/// swizzled or column-blocked tiles are refused.
Value loadOperand(OpBuilder &b, Location loc, const MmaOperandRef &ref,
                  int64_t rows, int64_t cols, StringRef kind) {
  const SharedMatrix *m = ref.shared;
  if (!m || !m->memref || !m->offsetOf || m->contiguousElems != m->cols ||
      (m->blockCols != 0 && m->blockCols != m->cols))
    return {};
  // The operand as the atom reads it starts at (row0, col0); a transposed
  // tile stores it the other way round, read column-major.
  Value r = ref.transposed ? ref.col0 : ref.row0;
  Value c = ref.transposed ? ref.row0 : ref.col0;
  Value off = m->offsetOf(b, loc, r, c);
  Type elem = cast<MemRefType>(m->memref.getType()).getElementType();
  auto ty = gpu::MMAMatrixType::get({rows, cols}, elem, kind);
  return gpu::SubgroupMmaLoadMatrixOp::create(
      b, loc, ty, m->memref, ValueRange{off},
      b.getIndexAttr(m->rowStride > 0 ? m->rowStride : m->cols),
      ref.transposed ? b.getUnitAttr() : UnitAttr());
}

} // namespace

bool SpirvTargetHooks::canEmitAtom(const target::MmaAtom &atom) const {
  // Cooperative matrices, where the description has them. Vector FMA needs
  // no atom: layout inference falls back to the core's.
  return atom.kind == target::MmaKind::CoopMat && atom.cOpaque &&
         atom.aLayoutName == "opaque" && atom.bLayoutName == "opaque";
}

bool SpirvTargetHooks::canEmitAtomFor(const target::MmaAtom &atom,
                                      const target::MmaUse &use) const {
  return canEmitAtom(atom) && !use.aInRegisters && !use.bInRegisters;
}

SmallVector<Value> SpirvTargetHooks::emitMma(OpBuilder &, Location,
                                             const target::MmaAtom &,
                                             ArrayRef<Value>, ArrayRef<Value>,
                                             ArrayRef<Value>) {
  return {}; // every atom here reads A and B from shared memory
}

SmallVector<Value> SpirvTargetHooks::emitMmaShared(OpBuilder &b, Location loc,
                                                   const target::MmaAtom &atom,
                                                   const MmaOperandRef &a,
                                                   const MmaOperandRef &b_,
                                                   ArrayRef<Value> c) {
  if (!canEmitAtom(atom) || int64_t(c.size()) != componentsOf(atom))
    return {};
  Value am = loadOperand(b, loc, a, atom.m, atom.k, "AOp");
  Value bm = loadOperand(b, loc, b_, atom.k, atom.n, "BOp");
  if (!am || !bm)
    return {};
  Value cm = packAccumulator(b, loc, atom, c);
  Value d = gpu::SubgroupMmaComputeOp::create(b, loc, cm.getType(), am, bm, cm,
                                              UnitAttr(), UnitAttr());
  SmallVector<Value> out;
  unpackAccumulator(b, loc, d, c.size(), out);
  return out;
}

bool SpirvTargetHooks::storeAccumulator(OpBuilder &b, Location loc,
                                        const target::MmaAtom &atom,
                                        ArrayRef<Value> regs, Value memref,
                                        Value offset, int64_t stride) {
  if (!canEmitAtom(atom) || int64_t(regs.size()) != componentsOf(atom))
    return false;
  Value m = packAccumulator(b, loc, atom, regs);
  gpu::SubgroupMmaStoreMatrixOp::create(b, loc, m, memref, ValueRange{offset},
                                        b.getIndexAttr(stride), UnitAttr());
  return true;
}

bool SpirvTargetHooks::loadAccumulator(OpBuilder &b, Location loc,
                                       const target::MmaAtom &atom,
                                       Value memref, Value offset,
                                       int64_t stride,
                                       SmallVectorImpl<Value> &regs) {
  if (!canEmitAtom(atom))
    return false;
  Type elem = cast<MemRefType>(memref.getType()).getElementType();
  auto ty = gpu::MMAMatrixType::get({atom.m, atom.n}, elem, "COp");
  Value m = gpu::SubgroupMmaLoadMatrixOp::create(
      b, loc, ty, memref, ValueRange{offset}, b.getIndexAttr(stride),
      UnitAttr());
  unpackAccumulator(b, loc, m, componentsOf(atom), regs);
  return true;
}

int64_t SpirvTargetHooks::stagingRegisterReserve(
    const target::TargetDescription &tgt) const {
  // Measured on an H100 (NVIDIA 580, gemm.mlir with the whole tile staged):
  // 255 registers and 28 words of local memory, i.e. some 283 words live
  // with 128 of accumulators and 32 of staging: about 120 beside them, of
  // which 64 are a K step's operand matrices. Targets without cooperative
  // matrices keep staging whole tiles (lavapipe: the vector FMA path).
  // Holding back that reserve took the spills away (112 -> 16 bytes of
  // local memory) but ran slower on the H100: 0.846 ms at 4096 against
  // 0.783 with the whole tile staged and spilling (the direct stores stall
  // the K loop more than the spills do). So no reserve by default;
  // TESSERA_SPIRV_STAGE_RESERVE=1 applies it (docs/backends/spirv.md).
  constexpr int64_t kOperandsAndAddresses = 112;
  const char *env = std::getenv("TESSERA_SPIRV_STAGE_RESERVE");
  if (!env || std::string(env) != "1")
    return 0;
  bool coopmat = llvm::any_of(
      tgt.mmaAtoms, [&](const target::MmaAtom &a) { return canEmitAtom(a); });
  return coopmat ? kOperandsAndAddresses : 0;
}

void SpirvTargetHooks::emitWarpBarrier(OpBuilder &b, Location loc) {
  // The subgroup's invocations, ordering workgroup memory.
  auto scope = spv::ScopeAttr::get(b.getContext(), spv::Scope::Subgroup);
  spv::ControlBarrierOp::create(
      b, loc, scope, scope,
      spv::MemorySemanticsAttr::get(b.getContext(),
                                    spv::MemorySemantics::AcquireRelease |
                                        spv::MemorySemantics::WorkgroupMemory));
}

} // namespace tessera::spirv
