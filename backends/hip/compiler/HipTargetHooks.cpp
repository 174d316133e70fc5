//===- HipTargetHooks.cpp - AMD's part of distribution --------------------===//

#include "HipTargetHooks.h"
#include "AccumulatorScaling.h"
#include "BufferLoads.h"
#include "Fp8InRegisters.h"

#include "tessera/layout/LayoutSpec.h"
#include "tessera/layout/NamedLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::hip;

MatrixCores tessera::hip::matrixCoresOf(llvm::StringRef chip) {
  if (chip == "gfx940" || chip == "gfx941" || chip == "gfx942")
    return MatrixCores::Cdna3;
  if (chip == "gfx950")
    return MatrixCores::Cdna4;
  if (chip.starts_with("gfx11"))
    return MatrixCores::Rdna3;
  if (chip.starts_with("gfx12"))
    return MatrixCores::Rdna4;
  return MatrixCores::None;
}

HipTargetHooks::HipTargetHooks(llvm::StringRef chip)
    : cores(matrixCoresOf(chip)), bufferFlags(bufferResourceFlags(chip)) {}

bool HipTargetHooks::beginGlobalLoads(OpBuilder &b, Location loc,
                                      GlobalTensorRef &t) {
  if (!bufferFlags)
    return false;
  trapBeyondBufferReach(b, loc, t.reachBytes);
  t.state = makeBufferResource(b, loc, t.memref, t.extentBytes, t.originBytes,
                               *bufferFlags);
  return true;
}

Value HipTargetHooks::loadGlobal(OpBuilder &b, Location loc,
                                 const GlobalTensorRef &t, Value index,
                                 Type elem, int64_t n, Value valid) {
  if (!t.state)
    return {};
  return bufferLoad(b, loc, t.state, index, elem, n, valid);
}

namespace {

bool isHalfLike(const std::string &t) { return t == "f16" || t == "bf16"; }
bool isFloat8(const std::string &t) { return t == "f8e4m3" || t == "f8e5m2"; }
Fp8Format fp8Format(const std::string &t) {
  return t == "f8e5m2" ? Fp8Format::E5M2 : Fp8Format::E4M3;
}

// The register layouts emitMma relies on: register i of each operand is
// element i of the intrinsic's vector operand (CDNA3/CDNA4 and RDNA3/RDNA4
// ISA guides, "matrix operand layouts").
constexpr const char *kMfma32A = "mfma_32x32x8_f16_a";
constexpr const char *kMfma32B = "mfma_32x32x8_f16_b";
constexpr const char *kMfma32C = "mfma_32x32x8_f16_c";
constexpr const char *kMfma16A = "mfma_16x16x16_f16_a";
constexpr const char *kMfma16B = "mfma_16x16x16_f16_b";
constexpr const char *kMfma16C = "mfma_16x16x16_f16_c";
// 8-bit MFMA 32x32x16: eight bytes per lane, k = 8*(lane/32) + r.
constexpr const char *kMfma32x16ByteA =
    "blocked:sizePerThread=1x8,threadsPerWarp=32x2,warpsPerBlock=1x1,"
    "order=0x1,shape=32x16";
constexpr const char *kMfma32x16ByteB =
    "blocked:sizePerThread=8x1,threadsPerWarp=2x32,warpsPerBlock=1x1,"
    "order=1x0,shape=16x32";
// f32 MFMA 32x32x2: one element per lane, k = lane/32.
constexpr const char *kMfma32x2A =
    "blocked:sizePerThread=1x1,threadsPerWarp=32x2,warpsPerBlock=1x1,"
    "order=0x1,shape=32x2";
constexpr const char *kMfma32x2B =
    "blocked:sizePerThread=1x1,threadsPerWarp=2x32,warpsPerBlock=1x1,"
    "order=1x0,shape=2x32";
constexpr const char *kWmma3A = "wmma_16x16x16_f16_a";
constexpr const char *kWmma3B = "wmma_16x16x16_f16_b";
constexpr const char *kWmma3C = "wmma_16x16x16_f16_c";
// RDNA4: the half-waves split K (A/B) and M (C) instead of copying A/B.
constexpr const char *kWmma4A =
    "blocked:sizePerThread=1x8,threadsPerWarp=16x2,warpsPerBlock=1x1,"
    "order=0x1,shape=16x16";
constexpr const char *kWmma4BC =
    "blocked:sizePerThread=8x1,threadsPerWarp=2x16,warpsPerBlock=1x1,"
    "order=1x0,shape=16x16";

bool hasLayout(const std::optional<layout::LinearLayout> &l, const char *spec) {
  if (!l)
    return false;
  try {
    return *l == layout::parseLayoutSpec(spec);
  } catch (const layout::LayoutError &) {
    return false;
  }
}

bool hasLayouts(const target::MmaAtom &atom, const char *a, const char *b,
                const char *c) {
  return atom.warps == 1 && !atom.cOpaque && hasLayout(atom.aLayout, a) &&
         hasLayout(atom.bLayout, b) && hasLayout(atom.cLayout, c);
}

/// `values` as one vector of `elem` (bitcast element by element where the
/// element types differ in name only: bf16 -> i16, f8 -> i8).
Value packVector(OpBuilder &b, Location loc, ArrayRef<Value> values,
                 Type elem) {
  SmallVector<Value> elems;
  for (Value v : values)
    elems.push_back(
        v.getType() == elem
            ? v
            : arith::BitcastOp::create(b, loc, elem, v).getResult());
  auto vt = VectorType::get({(int64_t)elems.size()}, elem);
  return vector::FromElementsOp::create(b, loc, vt, elems);
}

/// Eight bytes as the i64 the 8-bit MFMA intrinsics take.
Value packBytes(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value v = packVector(b, loc, values, b.getI8Type());
  return LLVM::BitcastOp::create(b, loc, b.getI64Type(), v);
}

/// The lane's bytes (i8 or fp8, a multiple of four) as vector<N/4 x i32>,
/// byte j of word w being element 4w + j (the intrinsics' packing).
Value packWords(OpBuilder &b, Location loc, ArrayRef<Value> values) {
  Value v = packVector(b, loc, values, b.getI8Type());
  auto wt = VectorType::get({(int64_t)values.size() / 4}, b.getI32Type());
  return vector::BitCastOp::create(b, loc, wt, v);
}

/// Whether `atom` is an fp8 MFMA on CDNA3, which reads FNUZ bytes: its
/// operands are rewritten (ocpToFnuzHalved) and its accumulators scaled.
bool isFnuzMfma(MatrixCores cores, const target::MmaAtom &atom) {
  return cores == MatrixCores::Cdna3 && atom.kind == target::MmaKind::Mfma &&
         isFloat8(atom.aType);
}

SmallVector<Value> unpack(OpBuilder &b, Location loc, Value vec,
                          Type elemType) {
  auto vt = cast<VectorType>(vec.getType());
  SmallVector<Value> out;
  for (int64_t i = 0; i < vt.getNumElements(); ++i) {
    Value e = vector::ExtractOp::create(b, loc, vec, i);
    if (e.getType() != elemType)
      e = arith::BitcastOp::create(b, loc, elemType, e);
    out.push_back(e);
  }
  return out;
}

Value i32Const(OpBuilder &b, Location loc, int32_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(v));
}

} // namespace

bool HipTargetHooks::canEmitAtom(const target::MmaAtom &atom) const {
  if (atom.aType != atom.bType)
    return false;
  bool cdna = cores == MatrixCores::Cdna3 || cores == MatrixCores::Cdna4;
  if (atom.kind == target::MmaKind::Mfma && cdna) {
    if (isHalfLike(atom.aType) && atom.cType == "f32") {
      if (atom.m == 32 && atom.n == 32 && atom.k == 8)
        return hasLayouts(atom, kMfma32A, kMfma32B, kMfma32C);
      if (atom.m == 16 && atom.n == 16 && atom.k == 16)
        return hasLayouts(atom, kMfma16A, kMfma16B, kMfma16C);
      return false;
    }
    if (atom.aType == "f32" && atom.bType == "f32" && atom.cType == "f32")
      return atom.m == 32 && atom.n == 32 && atom.k == 2 &&
             hasLayouts(atom, kMfma32x2A, kMfma32x2B, kMfma32C);
    // fp8: CDNA4 reads the OCP E4M3/E5M2 of the tile dialect as written;
    // CDNA3 reads the FNUZ encodings, and emitMma rewrites the bytes
    // (isFnuzMfma).
    bool bytes = (atom.aType == "i8" && atom.cType == "i32") ||
                 (isFloat8(atom.aType) && atom.cType == "f32");
    return bytes && atom.m == 32 && atom.n == 32 && atom.k == 16 &&
           hasLayouts(atom, kMfma32x16ByteA, kMfma32x16ByteB, kMfma32C);
  }
  // WMMA 16x16x16: f16/bf16 and fp8 into f32, i8 into i32. The 8-bit
  // operands have the 16-bit operands' layouts (one byte per register instead
  // of two halves). RDNA3 has no fp8 WMMA: emitMma widens fp8 to f16.
  bool wmmaTypes = (isHalfLike(atom.aType) && atom.cType == "f32") ||
                   (isFloat8(atom.aType) && atom.cType == "f32") ||
                   (atom.aType == "i8" && atom.cType == "i32");
  if (atom.kind == target::MmaKind::Wmma && wmmaTypes && atom.m == 16 &&
      atom.n == 16 && atom.k == 16) {
    if (cores == MatrixCores::Rdna3)
      return hasLayouts(atom, kWmma3A, kWmma3B, kWmma3C);
    if (cores == MatrixCores::Rdna4)
      return hasLayouts(atom, kWmma4A, kWmma4BC, kWmma4BC);
  }
  return false;
}

SmallVector<Value> HipTargetHooks::emitMma(OpBuilder &b, Location loc,
                                           const target::MmaAtom &atom,
                                           ArrayRef<Value> a,
                                           ArrayRef<Value> bv,
                                           ArrayRef<Value> c) {
  Type cElem = c[0].getType();
  auto cType = VectorType::get({(int64_t)c.size()}, cElem);
  Value acc = vector::FromElementsOp::create(b, loc, cType, c);
  Value result;
  if (atom.kind == target::MmaKind::Wmma && atom.aType == "i8") {
    // Signed bytes (signA = signB = 1), wrapping i32 sums (clamp = 0): the
    // tile dialect's i8 as MFMA multiplies it.
    result = ROCDL::wmma_i32_16x16x16_iu8::create(
        b, loc, cType, /*signA=*/true, packWords(b, loc, a), /*signB=*/true,
        packWords(b, loc, bv), acc, /*clamp=*/false);
    return unpack(b, loc, result, cElem);
  }
  if (atom.kind == target::MmaKind::Wmma && isFloat8(atom.aType)) {
    Fp8Format f = fp8Format(atom.aType);
    if (cores == MatrixCores::Rdna3) {
      // Each byte zero-extended into a 16-bit lane, then widened.
      auto widen = [&](ArrayRef<Value> v) {
        SmallVector<Value> lanes;
        for (Value e : v)
          lanes.push_back(arith::ExtUIOp::create(
              b, loc, b.getI16Type(),
              arith::BitcastOp::create(b, loc, b.getI8Type(), e)));
        auto lt = VectorType::get({(int64_t)lanes.size()}, b.getI16Type());
        return ocpToF16(b, loc,
                        vector::FromElementsOp::create(b, loc, lt, lanes), f);
      };
      result = ROCDL::wmma_f32_16x16x16_f16::create(b, loc, cType, widen(a),
                                                    widen(bv), acc);
      return unpack(b, loc, result, cElem);
    }
    Value va = packWords(b, loc, a), vb = packWords(b, loc, bv);
    if (f == Fp8Format::E5M2)
      result =
          ROCDL::wmma_f32_16x16x16_bf8_bf8::create(b, loc, cType, va, vb, acc);
    else
      result =
          ROCDL::wmma_f32_16x16x16_fp8_fp8::create(b, loc, cType, va, vb, acc);
    return unpack(b, loc, result, cElem);
  }
  if (atom.kind == target::MmaKind::Wmma) {
    // f16 operands as they are, bf16 as i16 (the intrinsics' operand types).
    Type ab = atom.aType == "bf16" ? b.getI16Type() : a[0].getType();
    Value va = packVector(b, loc, a, ab), vb = packVector(b, loc, bv, ab);
    if (atom.aType == "bf16")
      result =
          ROCDL::wmma_f32_16x16x16_bf16::create(b, loc, cType, va, vb, acc);
    else
      result = ROCDL::wmma_f32_16x16x16_f16::create(b, loc, cType, va, vb, acc);
    return unpack(b, loc, result, cElem);
  }
  // MFMA: cbsz, abid and blgp (operand broadcast controls) are zero.
  SmallVector<Value> ops;
  if (atom.aType == "f32") {
    ops = {a[0], bv[0], acc};
    for (int i = 0; i < 3; ++i)
      ops.push_back(i32Const(b, loc, 0));
    result = ROCDL::mfma_f32_32x32x2f32::create(b, loc, cType, ops);
    return unpack(b, loc, result, cElem);
  }
  if (isFnuzMfma(cores, atom)) {
    auto asI64 = [&](ArrayRef<Value> bytes) -> Value {
      Value w = ocpToFnuzHalved(b, loc, packWords(b, loc, bytes),
                                fp8Format(atom.aType));
      return LLVM::BitcastOp::create(b, loc, b.getI64Type(), w);
    };
    ops = {asI64(a), asI64(bv), acc};
  } else if (atom.k == 16 && atom.m == 32) {
    ops = {packBytes(b, loc, a), packBytes(b, loc, bv), acc};
  } else {
    Type ab = atom.aType == "bf16" ? b.getI16Type() : a[0].getType();
    ops = {packVector(b, loc, a, ab), packVector(b, loc, bv, ab), acc};
  }
  for (int i = 0; i < 3; ++i)
    ops.push_back(i32Const(b, loc, 0));
  if (atom.m == 32 && atom.k == 8)
    result = atom.aType == "bf16"
                 ? ROCDL::mfma_f32_32x32x8bf16_1k::create(b, loc, cType, ops)
                       .getResult()
                 : ROCDL::mfma_f32_32x32x8f16::create(b, loc, cType, ops)
                       .getResult();
  else if (atom.m == 16)
    result = atom.aType == "bf16"
                 ? ROCDL::mfma_f32_16x16x16bf16_1k::create(b, loc, cType, ops)
                       .getResult()
                 : ROCDL::mfma_f32_16x16x16f16::create(b, loc, cType, ops)
                       .getResult();
  else if (atom.aType == "i8")
    result = ROCDL::mfma_i32_32x32x16_i8::create(b, loc, cType, ops);
  else if (atom.aType == "f8e5m2")
    result = ROCDL::mfma_f32_32x32x16_bf8_bf8::create(b, loc, cType, ops);
  else
    result = ROCDL::mfma_f32_32x32x16_fp8_fp8::create(b, loc, cType, ops);
  return unpack(b, loc, result, cElem);
}

// The FNUZ operands of CDNA3's fp8 MFMA are half the OCP values, so each
// product is a quarter: the atoms of one gemm accumulate into a quarter of
// the accumulator and the result is scaled back, both by powers of two and
// exact in f32 (short of results below 2^-124). The multiplies are marked so
// that hoistAccumulatorScaling (AccumulatorScaling.h) can keep the
// accumulator scaled across a K loop instead of rescaling every iteration.
void HipTargetHooks::beginMmaSequence(OpBuilder &b, Location loc,
                                      const target::MmaAtom &atom,
                                      SmallVectorImpl<Value> &acc) {
  if (isFnuzMfma(cores, atom))
    scaleAll(b, loc, acc, 0.25);
}

void HipTargetHooks::endMmaSequence(OpBuilder &b, Location loc,
                                    const target::MmaAtom &atom,
                                    SmallVectorImpl<Value> &acc) {
  if (isFnuzMfma(cores, atom))
    scaleAll(b, loc, acc, 4.0);
}

void HipTargetHooks::scaleAll(OpBuilder &b, Location loc,
                              SmallVectorImpl<Value> &acc, double factor) {
  for (Value &v : acc) {
    Value k =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(v.getType(), factor));
    auto m = arith::MulFOp::create(b, loc, v, k);
    m->setAttr(kAccumulatorScaleAttr, b.getF64FloatAttr(factor));
    v = m;
  }
}

bool HipTargetHooks::loadMmaOperand(OpBuilder &b, Location loc,
                                    const target::MmaAtom &atom,
                                    MmaOperandKind which, const SharedMatrix &m,
                                    bool transposed, Value row0, Value col0,
                                    Type elemType,
                                    SmallVectorImpl<Value> &out) {
  // The lane's registers of every accepted atom run along K; they are one
  // contiguous run in LDS only where K runs along the stored rows: A stored
  // M x K, B stored N x K. The other cases keep the core's element loads.
  bool isA = which == MmaOperandKind::A;
  if (transposed == isA || !m.memref || !m.offsetOf || !canEmitAtom(atom))
    return false;
  const layout::LinearLayout &l = isA ? *atom.aLayout : *atom.bLayout;
  std::string kDim = layout::dimName(isA ? 1 : 0);
  std::string oDim = layout::dimName(isA ? 0 : 1);
  int regBits = l.getInDimSizeLog2(layout::kRegister);
  int64_t n = int64_t(1) << regBits;
  for (int i = 0; i < regBits; ++i)
    if (l.getBasis(layout::kRegister, i, kDim) != (1 << i) ||
        l.getBasis(layout::kRegister, i, oDim) != 0)
      return false;
  int laneBits = l.getInDimSizeLog2(layout::kLane);
  for (int i = 0; i < laneBits; ++i)
    if (l.getBasis(layout::kLane, i, kDim) % n)
      return false;
  // Reads of at most 16 bytes, each within one swizzle chunk and one column
  // block (a run aligned to its length inside them stays contiguous).
  int64_t piece = std::min<int64_t>(n, 16 / std::max(1, m.elemBytes));
  if (piece < 2 || m.contiguousElems % piece || m.cols % piece ||
      (m.blockCols && m.blockCols % piece))
    return false;

  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // The lane's origin in the operand: the XOR of its lane bits' bases.
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(b, loc, tid, c(int64_t(1) << laneBits));
  Value o = c(0), k = c(0);
  for (int i = 0; i < laneBits; ++i) {
    int64_t bo = l.getBasis(layout::kLane, i, oDim);
    int64_t bk = l.getBasis(layout::kLane, i, kDim);
    if (!bo && !bk)
      continue;
    Value bit = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, lane, c(i)), c(1));
    if (bo)
      o = arith::XOrIOp::create(b, loc, o,
                                arith::MulIOp::create(b, loc, bit, c(bo)));
    if (bk)
      k = arith::XOrIOp::create(b, loc, k,
                                arith::MulIOp::create(b, loc, bit, c(bk)));
  }
  // Stored (row, col): A is M x K from (row0, col0); B is N x K, its
  // operand origin (row0 = K, col0 = N) swapped.
  Value row = arith::AddIOp::create(b, loc, isA ? row0 : col0, o);
  Value col = arith::AddIOp::create(b, loc, isA ? col0 : row0, k);
  auto vt = VectorType::get({piece}, elemType);
  for (int64_t p = 0; p < n; p += piece) {
    Value at = p ? arith::AddIOp::create(b, loc, col, c(p)).getResult() : col;
    Value off = m.offsetOf(b, loc, row, at);
    Value v = vector::LoadOp::create(b, loc, vt, m.memref, ValueRange{off},
                                     /*nontemporal=*/false,
                                     llvm::MaybeAlign(piece * m.elemBytes));
    for (int64_t e = 0; e < piece; ++e)
      out.push_back(vector::ExtractOp::create(b, loc, v, e));
  }
  return true;
}
