//===- CudaTargetHooks.cpp - NVIDIA's part of distribution ----------------===//

#include "CudaTargetHooks.h"
#include "PtxEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cstdlib>

using namespace mlir;
using namespace tessera;
using namespace tessera::cuda;

namespace {

bool isHalfLike(const std::string &t) { return t == "f16" || t == "bf16"; }

/// Two 16-bit values in one b32 register (the first in the low half).
Value pack2(PtxEmitter &p, Value lo, Value hi) {
  auto vt = VectorType::get({2}, lo.getType());
  Value v = vector::FromElementsOp::create(p.b, p.loc, vt, ValueRange{lo, hi});
  return LLVM::BitcastOp::create(p.b, p.loc, p.i32, v);
}

void unpack2(PtxEmitter &p, Value r, Type elem, SmallVectorImpl<Value> &out) {
  auto vt = VectorType::get({2}, elem);
  Value v = LLVM::BitcastOp::create(p.b, p.loc, vt, r);
  out.push_back(vector::ExtractOp::create(p.b, p.loc, v, 0));
  out.push_back(vector::ExtractOp::create(p.b, p.loc, v, 1));
}

Value toI32(PtxEmitter &p, Value index) {
  return arith::IndexCastUIOp::create(p.b, p.loc, p.i32, index);
}

/// A bulk tensor copy's coordinates in inline-asm text: "{$first, ...}"
/// for `rank` 32-bit operands, each also added to the constraints.
void appendCoordinates(std::string &text, std::string &cons, int64_t first,
                       int64_t rank) {
  text += "{";
  for (int64_t d = 0; d < rank; ++d) {
    text += (d ? ", $" : "$") + std::to_string(first + d);
    cons += ",r";
  }
  text += "}";
}

} // namespace

namespace {
bool isByte(const std::string &t) {
  return t == "i8" || t == "f8e4m3" || t == "f8e5m2";
}

/// Four 8-bit values in one b32 register (the first in the low byte).
Value pack4(PtxEmitter &p, ArrayRef<Value> v) {
  SmallVector<Value> bytes;
  for (Value x : v)
    bytes.push_back(
        x.getType().isInteger(8)
            ? x
            : arith::BitcastOp::create(p.b, p.loc, p.b.getI8Type(), x)
                  .getResult());
  auto vt = VectorType::get({4}, p.b.getI8Type());
  Value vec = vector::FromElementsOp::create(p.b, p.loc, vt, bytes);
  return LLVM::BitcastOp::create(p.b, p.loc, p.i32, vec);
}

const char *ptxType(const std::string &t) {
  return t == "i8"       ? "s8"
         : t == "f8e4m3" ? "e4m3"
         : t == "f8e5m2" ? "e5m2"
                         : t.c_str();
}
} // namespace

bool CudaTargetHooks::canEmitAtom(const target::MmaAtom &atom) const {
  if (atom.kind == target::MmaKind::MmaSync && atom.m == 16 && atom.n == 8 &&
      atom.k == 32 && atom.aType == atom.bType && isByte(atom.aType))
    // 8-bit integers since sm_80; fp8 since sm_89 (here: Hopper).
    return atom.aType == "i8" ? atom.cType == "i32"
                              : wgmma && atom.cType == "f32";
  if (atom.kind == target::MmaKind::Wgmma)
    // 8-bit operands (fp8 into f32, s8 into s32) are read K-major from
    // shared memory, both of them.
    return wgmma && atom.m == 64 && atom.aType == atom.bType &&
           atom.cType == (atom.aType == "i8" ? "i32" : "f32") &&
           atom.bLayoutName == "shared" && atom.n % 8 == 0 && atom.n <= 256 &&
           ((isHalfLike(atom.aType) && atom.k == 16) ||
            (isByte(atom.aType) && atom.k == 32 &&
             atom.aLayoutName == "shared"));
  return atom.kind == target::MmaKind::MmaSync && atom.m == 16 && atom.n == 8 &&
         atom.k == 16 && atom.aType == atom.bType && isHalfLike(atom.aType) &&
         (atom.cType == "f32" || (atom.cType == "f16" && atom.aType == "f16"));
}

bool CudaTargetHooks::canEmitAtomFor(const target::MmaAtom &atom,
                                     const target::MmaUse &use) const {
  if (!canEmitAtom(atom))
    return false;
  // fp8 wgmma reads both operands K-major from shared memory: A as M x K,
  // B as N x K (no transpose immediates for 8-bit types).
  if (atom.kind == target::MmaKind::Wgmma && isByte(atom.aType))
    return !use.transposeA && use.transposeB && !use.aInRegisters;
  return true;
}

SmallVector<Value> CudaTargetHooks::emitMma(OpBuilder &b, Location loc,
                                            const target::MmaAtom &atom,
                                            ArrayRef<Value> a,
                                            ArrayRef<Value> bv,
                                            ArrayRef<Value> c) {
  PtxEmitter p(b, loc);
  SmallVector<Value> ops;
  if (atom.k == 32) {
    // 8-bit inputs: four per register.
    for (size_t i = 0; i < a.size(); i += 4)
      ops.push_back(pack4(p, a.slice(i, 4)));
    for (size_t i = 0; i < bv.size(); i += 4)
      ops.push_back(pack4(p, bv.slice(i, 4)));
    ops.append(c.begin(), c.end());
    bool integer = atom.cType == "i32";
    std::string ab = ptxType(atom.aType);
    std::string text = std::string("mma.sync.aligned.m16n8k32.row.col.") +
                       (integer ? "s32." : "f32.") + ab + "." + ab +
                       (integer ? ".s32" : ".f32") +
                       " {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
                       "{$10,$11,$12,$13};";
    Type ct = c[0].getType();
    std::string o = integer ? "=r," : "=f,";
    std::string i = integer ? "r" : "f";
    return p.asmOp(
        text, o + o + o + o + "r,r,r,r,r,r," + i + "," + i + "," + i + "," + i,
        ops, {ct, ct, ct, ct});
  }
  for (size_t i = 0; i < a.size(); i += 2)
    ops.push_back(pack2(p, a[i], a[i + 1]));
  for (size_t i = 0; i < bv.size(); i += 2)
    ops.push_back(pack2(p, bv[i], bv[i + 1]));
  std::string ab = atom.aType;
  if (atom.cType == "f32") {
    ops.append(c.begin(), c.end());
    std::string text = "mma.sync.aligned.m16n8k16.row.col.f32." + ab + "." +
                       ab +
                       ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
                       "{$10,$11,$12,$13};";
    return p.asmOp(text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", ops,
                   {p.f32, p.f32, p.f32, p.f32});
  }
  // f16 accumulators: two b32 registers of two halves each.
  ops.push_back(pack2(p, c[0], c[1]));
  ops.push_back(pack2(p, c[2], c[3]));
  SmallVector<Value> r =
      p.asmOp("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {$0,$1}, "
              "{$2,$3,$4,$5}, {$6,$7}, {$8,$9};",
              "=r,=r,r,r,r,r,r,r,r,r", ops, {p.i32, p.i32});
  SmallVector<Value> out;
  unpack2(p, r[0], c[0].getType(), out);
  unpack2(p, r[1], c[0].getType(), out);
  return out;
}

bool CudaTargetHooks::loadMmaOperand(OpBuilder &b, Location loc,
                                     const target::MmaAtom &atom,
                                     MmaOperandKind which,
                                     const SharedMatrix &m, bool transposed,
                                     Value row0, Value col0, Type elemType,
                                     SmallVectorImpl<Value> &out) {
  // ldmatrix moves 8x8 blocks of 16-bit elements whose rows are 16
  // contiguous, 16-byte aligned bytes in shared memory.
  if (!canEmitAtom(atom) || m.elemBytes != 2 || m.contiguousElems % 8 ||
      m.cols % 8 || !m.addressOf)
    return false;
  PtxEmitter p(b, loc);
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = p.remu(tid, 32);
  Value l8 = p.remu(lane, 8);
  Value j = p.divu(lane, 8); // which 8x8 matrix this lane addresses
  Value row, col;            // in the tile as stored
  bool trans;                // ldmatrix .trans
  int count;
  if (which == MmaOperandKind::A) {
    count = 4;
    if (!transposed) { // stored M x K: matrices (m0,k0) (m8,k0) (m0,k8) (m8,k8)
      row = p.add(row0, p.add(l8, p.mul(p.remu(j, 2), p.ci(8))));
      col = p.add(col0, p.mul(p.divu(j, 2), p.ci(8)));
      trans = false;
    } else { // stored K x M
      row = p.add(col0, p.add(l8, p.mul(p.divu(j, 2), p.ci(8))));
      col = p.add(row0, p.mul(p.remu(j, 2), p.ci(8)));
      trans = true;
    }
  } else {
    count = 2;
    Value jj = p.remu(j, 2);
    if (!transposed) { // stored K x N: matrices k0..7, k8..15
      row = p.add(row0, p.add(l8, p.mul(jj, p.ci(8))));
      col = col0;
      trans = true;
    } else { // stored N x K
      row = p.add(col0, l8);
      col = p.add(row0, p.mul(jj, p.ci(8)));
      trans = false;
    }
  }
  Value addr = toI32(p, m.addressOf(b, loc, row, col));
  std::string text = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(count) +
                     (trans ? ".trans" : "") + ".shared.b16 ";
  std::string cons;
  text += "{";
  for (int i = 0; i < count; ++i) {
    text += (i ? ",$" : "$") + std::to_string(i);
    cons += "=r,";
  }
  text += "}, [$" + std::to_string(count) + "];";
  cons += "r";
  SmallVector<Type> res(count, p.i32);
  SmallVector<Value> regs = p.asmOp(text, cons, ValueRange{addr}, res);
  for (Value r : regs)
    unpack2(p, r, elemType, out);
  return true;
}

bool CudaTargetHooks::emitAsyncCopy(OpBuilder &b, Location loc, Value shared,
                                    Value global, int bytes, Value valid) {
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return false;
  PtxEmitter p(b, loc);
  Value size = p.sel(valid, p.c32(bytes), p.c32(0));
  Value g = arith::IndexCastUIOp::create(b, loc, p.i64, global);
  std::string text = std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") +
                     ".shared.global [$0], [$1], " + std::to_string(bytes) +
                     ", $2;";
  p.asmOp(text, "r,l,r", ValueRange{toI32(p, shared), g, size});
  return true;
}

Value CudaTargetHooks::loadGlobalKept(OpBuilder &b, Location loc, Value address,
                                      Type type) {
  // ld.global with an L2 cache policy of evict_last for every line it
  // touches (createpolicy: sm_80 and later, PTX 7.4), in 32-bit words.
  auto vt = dyn_cast<VectorType>(type);
  Type elem = vt ? vt.getElementType() : type;
  if (!elem.isIntOrFloat())
    return {};
  int64_t bits = elem.getIntOrFloatBitWidth() * (vt ? vt.getNumElements() : 1);
  if (bits != 32 && bits != 64 && bits != 128)
    return {};
  PtxEmitter p(b, loc);
  int64_t words = bits / 32;
  Value policy =
      p.pureAsm("createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l",
                ValueRange{}, p.i64);
  std::string text = "ld.global.L2::cache_hint";
  if (words > 1)
    text += ".v" + std::to_string(words);
  text += ".b32 ";
  std::string cons;
  text += words > 1 ? "{" : "";
  for (int64_t w = 0; w < words; ++w) {
    text += (w ? ", $" : "$") + std::to_string(w);
    cons += (w ? ",=r" : "=r");
  }
  text += words > 1 ? "}" : "";
  text +=
      ", [$" + std::to_string(words) + "], $" + std::to_string(words + 1) + ";";
  cons += ",l,l";
  SmallVector<Type> results(words, p.i32);
  SmallVector<Value> got = p.asmOp(
      text, cons,
      ValueRange{arith::IndexCastUIOp::create(b, loc, p.i64, address), policy},
      results);
  Value v = vector::FromElementsOp::create(
      b, loc, VectorType::get({words}, p.i32), got);
  if (vt)
    return vector::BitCastOp::create(b, loc, vt, v);
  Value one = vector::BitCastOp::create(b, loc, VectorType::get({1}, elem), v);
  return vector::ExtractOp::create(b, loc, one, 0);
}

bool CudaTargetHooks::canAtomicAddVector(Type elem, int64_t n) const {
  // red.global.add.v2/.v4.f32: PTX 8.1, sm_90 and later (the chips with
  // wgmma here).
  return wgmma && elem.isF32() && (n == 2 || n == 4);
}

void CudaTargetHooks::emitAtomicAddVector(OpBuilder &b, Location loc,
                                          Value addr, ValueRange vals) {
  PtxEmitter p(b, loc);
  std::string text =
      "red.global.add.v" + std::to_string(vals.size()) + ".f32 [$0], {";
  std::string cons = "l";
  SmallVector<Value> ops{arith::IndexCastUIOp::create(b, loc, p.i64, addr)};
  for (size_t i = 0; i < vals.size(); ++i) {
    text += (i ? ", $" : "$") + std::to_string(i + 1);
    cons += ",f";
    ops.push_back(vals[i]);
  }
  text += "};";
  p.asmOp(text, cons, ops);
}

void CudaTargetHooks::emitCommitGroup(OpBuilder &b, Location loc) {
  PtxEmitter(b, loc).asmOp("cp.async.commit_group;", "", ValueRange{});
}

void CudaTargetHooks::emitWaitGroup(OpBuilder &b, Location loc,
                                    int64_t pending) {
  PtxEmitter(b, loc).asmOp(
      "cp.async.wait_group " + std::to_string(pending) + ";", "", ValueRange{});
}

//===----------------------------------------------------------------------===//
// wgmma (sm_90a)
//===----------------------------------------------------------------------===//

namespace {

/// A wgmma matrix descriptor (PTX ISA "Matrix Descriptor Format"): start
/// address, leading and stride byte offsets (all >> 4), swizzle mode.
Value descriptor(PtxEmitter &p, Value addr, int64_t lbo, int64_t sbo,
                 int mode) {
  Value a = arith::IndexCastUIOp::create(p.b, p.loc, p.i64, addr);
  Value start = arith::AndIOp::create(
      p.b, p.loc, arith::ShRUIOp::create(p.b, p.loc, a, p.c64(4)),
      p.c64(0x3FFF));
  uint64_t rest = (uint64_t(lbo >> 4) & 0x3FFF) << 16 |
                  (uint64_t(sbo >> 4) & 0x3FFF) << 32 | uint64_t(mode) << 62;
  return arith::OrIOp::create(p.b, p.loc, start,
                              p.c64(static_cast<int64_t>(rest)));
}

/// TESSERA_WGMMA_DESC=0: each wgmma's descriptors are built from the
/// instance's address (for A/B).
bool wgmmaDescriptorOffsets() {
  const char *v = std::getenv("TESSERA_WGMMA_DESC");
  return !(v && std::string(v) == "0");
}

/// The descriptor of one wgmma operand. K-major when K runs along the stored
/// rows (A stored M x K, B stored N x K), else MN-major (transposed in the
/// instruction). Null when the tile's layout has no descriptor form.
Value operandDescriptor(PtxEmitter &p, const MmaOperandRef &op, bool isA) {
  const SharedMatrix &m = *op.shared;
  int mode = m.swizzleBytes == 128  ? 1
             : m.swizzleBytes == 64 ? 2
             : m.swizzleBytes == 32 ? 3
                                    : 0;
  if (!mode)
    return {};
  bool kMajor = isA ? !op.transposed : op.transposed;
  // The element the instance starts at, in stored coordinates. Its row is a
  // multiple of 8, so the swizzle leaves its address alone.
  Value row = op.row0, col = op.col0;
  if (op.transposed)
    std::swap(row, col);
  int64_t rowBytes = (m.blockCols ? m.blockCols : m.cols) * m.elemBytes;
  int64_t groupStride = 8 * rowBytes; // 8 stored rows: one swizzle atom
  // MN-major: MN runs along the stored rows in atoms of rowBytes; the next
  // atom along MN is the next column block.
  int64_t lbo = kMajor ? 16 : m.rows * rowBytes;
  if (!wgmmaDescriptorOffsets() || !m.offsetOf)
    return descriptor(p, m.addressOf(p.b, p.loc, row, col), lbo, groupStride,
                      mode);
  // The tile's descriptor plus the instance's offset from the tile's start
  // (in 16-byte units, added to the start address field): every
  // instruction of a gemm then costs one 32-bit add of a constant to a
  // descriptor built once per tile (per stage), where the address
  // arithmetic of each descriptor (64-bit add, shift, mask, or) took ptxas
  // about eight uniform-datapath instructions per wgmma. Exact: shared
  // addresses are below 2^18, so the start field (address bits 4-17) of
  // every element of the tile is its own address >> 4 and does not carry.
  Value zero = p.ci(0);
  Value tile = m.addressOf(p.b, p.loc, zero, zero);
  Value delta =
      arith::SubIOp::create(p.b, p.loc, m.offsetOf(p.b, p.loc, row, col),
                            m.offsetOf(p.b, p.loc, zero, zero));
  Value units = p.divu(p.mul(delta, p.ci(m.elemBytes)), 16);
  Value start = p.andi(p.shr(p.toI32(tile), p.c32(4)), p.c32(0x3FFF));
  Value lo = p.add(p.add(start, p.c32(int64_t((lbo >> 4) & 0x3FFF) << 16)),
                   p.toI32(units));
  uint64_t hi = (uint64_t(groupStride >> 4) & 0x3FFF) | uint64_t(mode) << 30;
  return p.ori(arith::ExtUIOp::create(p.b, p.loc, p.i64, lo),
               p.c64(int64_t(hi << 32)));
}

/// Passes `acc` through an empty asm statement so that no use of the
/// accumulators moves across the wgmma fence or wait next to it.
void fenceOperands(PtxEmitter &p, SmallVectorImpl<Value> &acc) {
  for (size_t start = 0; start < acc.size(); start += 64) {
    size_t n = std::min<size_t>(64, acc.size() - start);
    std::string cons;
    SmallVector<Type> types;
    SmallVector<Value> ops;
    for (size_t i = 0; i < n; ++i) {
      // f32 accumulators in .f32 registers, s32 ones in .b32 registers.
      cons += i ? "," : "";
      cons += acc[start + i].getType().isInteger(32) ? "=r" : "=f";
      types.push_back(acc[start + i].getType());
      ops.push_back(acc[start + i]);
    }
    for (size_t i = 0; i < n; ++i)
      cons += "," + std::to_string(i);
    SmallVector<Value> out = p.asmOp("", cons, ops, types);
    for (size_t i = 0; i < n; ++i)
      acc[start + i] = out[i];
  }
}

} // namespace

SmallVector<Value> CudaTargetHooks::emitMmaShared(OpBuilder &b, Location loc,
                                                  const target::MmaAtom &atom,
                                                  const MmaOperandRef &a,
                                                  const MmaOperandRef &bo,
                                                  ArrayRef<Value> c) {
  if (!canEmitAtom(atom) || atom.kind != target::MmaKind::Wgmma || !bo.shared)
    return {};
  PtxEmitter p(b, loc);
  Value bDesc = operandDescriptor(p, bo, /*isA=*/false);
  if (!bDesc)
    return {};
  int n = int(c.size());
  // Null accumulators: a first K step of a `clear` gemm (mmaStartsFromZero),
  // d = a*b with scale-d = 0; the registers are outputs only.
  bool fromZero = n > 0 && !c[0];
  bool integer = atom.cType == "i32";
  SmallVector<Value> ops;
  std::string cons;
  std::string dlist = "{";
  for (int i = 0; i < n; ++i) {
    cons += integer ? "=r," : "=f,";
    dlist += (i ? ",$" : "$") + std::to_string(i);
  }
  dlist += "}";
  int next = n;
  std::string aText;
  if (a.shared) {
    Value aDesc = operandDescriptor(p, a, /*isA=*/true);
    if (!aDesc)
      return {};
    ops.push_back(aDesc);
    cons += "l,";
    aText = "$" + std::to_string(next++);
  } else {
    // Eight 16-bit elements, or the four b32 registers prepareMmaOperands
    // packed them into.
    bool packed = a.regs.size() == 4 && a.regs[0].getType().isInteger(32);
    if (a.regs.size() != 8 && !packed)
      return {};
    aText = "{";
    for (int i = 0; i < 4; ++i) {
      ops.push_back(packed ? a.regs[i]
                           : pack2(p, a.regs[2 * i], a.regs[2 * i + 1]));
      cons += "r,";
      aText += (i ? ",$" : "$") + std::to_string(next++);
    }
    aText += "}";
  }
  ops.push_back(bDesc);
  cons += "l,";
  std::string bText = "$" + std::to_string(next++);
  if (!fromZero) {
    for (int i = 0; i < n; ++i) {
      ops.push_back(c[i]);
      cons += std::to_string(i) + ",";
    }
    next += n;
  }
  ops.push_back(p.c32(fromZero ? 0 : 1));
  cons += "r";
  std::string ab = atom.aType;
  std::string text =
      "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(next) + ", 0;\n";
  bool bytes = isByte(atom.aType);
  if (bytes && (a.transposed || !bo.transposed || !a.shared))
    return {}; // 8-bit wgmma: K-major shared operands only
  // Integer wgmma has no scale or transpose immediates: d, a, b, scale-d.
  text += "wgmma.mma_async.sync.aligned.m64n" + std::to_string(atom.n) + "k" +
          std::to_string(atom.k) + (integer ? ".s32." : ".f32.") + ptxType(ab) +
          "." + ptxType(ab) + " " + dlist + ", " + aText + ", " + bText +
          (integer ? ", p" : ", p, 1, 1");
  if (!bytes) {
    if (a.shared)
      text += std::string(", ") + (a.transposed ? "1" : "0");
    text += std::string(", ") + (bo.transposed ? "0" : "1");
  }
  text += ";\n}";
  SmallVector<Type> res(n, integer ? p.i32 : p.f32);
  return p.asmOp(text, cons, ops, res);
}

namespace {
/// TESSERA_WGMMA_FENCE=0: wgmma's register A operands are packed next to
/// each instruction, after the sequence's wgmma.fence (for A/B: ptxas then
/// injects a warpgroup.arrive before each such wgmma, C7519).
bool wgmmaFenceOperands() {
  const char *v = std::getenv("TESSERA_WGMMA_FENCE");
  return !(v && std::string(v) == "0");
}
} // namespace

bool CudaTargetHooks::storesFragmentPairs(Type elem) const {
  // f16x2 / bf16x2 registers, one cvt.rn.f16x2.f32 per pair (TESSERA_
  // PACKED_HALVES=0: element by element, for A/B).
  const char *v = std::getenv("TESSERA_PACKED_HALVES");
  return (elem.isF16() || elem.isBF16()) && !(v && std::string(v) == "0");
}

bool CudaTargetHooks::mmaOperandsFirst(const target::MmaAtom &atom) const {
  // wgmma reads A's registers asynchronously: every write to them must come
  // before the wgmma.fence that starts the sequence, or ptxas fences (and
  // serializes) each instruction itself.
  return atom.kind == target::MmaKind::Wgmma && wgmmaFenceOperands();
}

void CudaTargetHooks::prepareMmaOperands(
    OpBuilder &b, Location loc, const target::MmaAtom &atom,
    MutableArrayRef<SmallVector<Value>> operands) {
  if (atom.kind != target::MmaKind::Wgmma)
    return;
  PtxEmitter p(b, loc);
  SmallVector<Value> words;
  for (SmallVector<Value> &regs : operands) {
    if (regs.size() != 8)
      return; // not wgmma's 16-bit A: emitMmaShared refuses it
  }
  for (SmallVector<Value> &regs : operands)
    for (int i = 0; i < 4; ++i)
      words.push_back(pack2(p, regs[2 * i], regs[2 * i + 1]));
  // Through an empty asm statement (ordered before the fence
  // beginMmaSequence emits next): no conversion sinks past the fence.
  fenceOperands(p, words);
  for (auto [n, regs] : llvm::enumerate(operands))
    regs.assign(words.begin() + 4 * n, words.begin() + 4 * n + 4);
}

void CudaTargetHooks::beginMmaSequence(OpBuilder &b, Location loc,
                                       const target::MmaAtom &atom,
                                       SmallVectorImpl<Value> &acc) {
  if (atom.kind != target::MmaKind::Wgmma)
    return;
  PtxEmitter p(b, loc);
  fenceOperands(p, acc);
  p.asmOp("wgmma.fence.sync.aligned;", "", ValueRange{});
}

void CudaTargetHooks::endMmaSequence(OpBuilder &b, Location loc,
                                     const target::MmaAtom &atom,
                                     SmallVectorImpl<Value> &acc) {
  if (atom.kind != target::MmaKind::Wgmma)
    return;
  PtxEmitter p(b, loc);
  p.asmOp("wgmma.commit_group.sync.aligned;", "", ValueRange{});
  p.asmOp("wgmma.wait_group.sync.aligned 0;", "", ValueRange{});
  fenceOperands(p, acc);
}

void CudaTargetHooks::emitBarrier(OpBuilder &b, Location loc) {
  // Shared memory written by ordinary stores or cp.async and read next by
  // wgmma (the async proxy) needs a proxy fence in the writing threads.
  if (wgmma)
    PtxEmitter(b, loc).asmOp("fence.proxy.async.shared::cta;", "",
                             ValueRange{});
  TargetHooks::emitBarrier(b, loc);
}

bool CudaTargetHooks::deferMmaWait(OpBuilder &b, Location loc,
                                   const target::MmaAtom &atom) {
  if (atom.kind != target::MmaKind::Wgmma)
    return false;
  PtxEmitter p(b, loc);
  p.asmOp("wgmma.commit_group.sync.aligned;", "", ValueRange{});
  p.asmOp("wgmma.wait_group.sync.aligned 1;", "", ValueRange{});
  return true;
}

bool CudaTargetHooks::commitMma(OpBuilder &b, Location loc,
                                const target::MmaAtom &atom) {
  if (atom.kind != target::MmaKind::Wgmma)
    return false;
  PtxEmitter(b, loc).asmOp("wgmma.commit_group.sync.aligned;", "",
                           ValueRange{});
  return true;
}

void CudaTargetHooks::waitMma(OpBuilder &b, Location loc,
                              const target::MmaAtom &atom, int64_t pending,
                              SmallVectorImpl<Value> &acc) {
  PtxEmitter p(b, loc);
  // Distribution placed this wait where an op first needs the gemms, after
  // work that runs while they compute (the softmax beside the previous
  // iteration's P V). ptxas's scheduler issues it as early as its block
  // allows -- before that work. TESSERA_WAIT_FENCE=1 puts a CTA-scope
  // fence (MEMBAR.ALL.CTA) before it, a point ptxas does not move the wait
  // across, so the softmax does run beside P V: on the H200 the q128 flash
  // program gained 1-2.5% and GQA lost 8% (docs/benchmarks.md,
  // 2026-11-28 night), hence opt-in.
  if (waitFence)
    p.asmOp("fence.acq_rel.cta;", "", ValueRange{});
  p.asmOp("wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";", "",
          ValueRange{});
  // The accumulators are read only through these values, defined after the
  // wait.
  fenceOperands(p, acc);
}

void CudaTargetHooks::drainMma(OpBuilder &b, Location loc,
                               const target::MmaAtom &atom,
                               SmallVectorImpl<Value> &acc) {
  PtxEmitter p(b, loc);
  p.asmOp("wgmma.wait_group.sync.aligned 0;", "", ValueRange{});
  fenceOperands(p, acc);
}

//===----------------------------------------------------------------------===//
// TMA tile copies on mbarriers (sm_90a)
//===----------------------------------------------------------------------===//

int64_t tessera::cuda::kernelSlotOf(Value memref) {
  auto cast = memref.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || cast.getInputs().size() != 1)
    return -1;
  Value v = cast.getInputs()[0];
  while (auto ins = v.getDefiningOp<LLVM::InsertValueOp>()) {
    if (ins.getPosition().size() == 1 && ins.getPosition()[0] == 1) {
      auto arg = dyn_cast<BlockArgument>(ins.getValue());
      if (!arg || !isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()))
        return -1;
      return arg.getArgNumber();
    }
    v = ins.getContainer();
  }
  return -1;
}

bool CudaTargetHooks::canBulkCopy(const BulkCopy &c) const {
  if (!wgmma || !bulkCopies || c.tensorRank < 2 || c.tensorRank > 5)
    return false;
  int64_t inner = c.blockCols ? c.blockCols : c.cols;
  // A box: at most 256 elements a dim, its rows a multiple of 16 bytes; a
  // swizzled box's rows exactly as long as the swizzle atom.
  if (inner > 256 || c.rows > 256 || (inner * c.elemBytes) % 16 ||
      (c.blockCols && c.cols % c.blockCols))
    return false;
  if (c.swizzleBytes && inner * c.elemBytes != c.swizzleBytes)
    return false;
  return c.elemBytes == 1 || c.elemBytes == 2 || c.elemBytes == 4 ||
         c.elemBytes == 8;
}

void CudaTargetHooks::emitBulkCopy(OpBuilder &b, Location loc,
                                   const BulkCopy &c, Value tensor,
                                   ValueRange offsets, Value shared,
                                   Value barrier) {
  issueBulkCopy(b, loc, c, tensor, offsets, shared, barrier, Value(), 1);
}

void CudaTargetHooks::emitBulkCopyMulticast(OpBuilder &b, Location loc,
                                            const BulkCopy &c, Value tensor,
                                            ValueRange offsets, Value shared,
                                            Value barrier, Value rank,
                                            int64_t clusterSize) {
  issueBulkCopy(b, loc, c, tensor, offsets, shared, barrier, rank, clusterSize);
}

std::pair<int64_t, Value> CudaTargetHooks::tensorMap(OpBuilder &b, Location loc,
                                                     const BulkCopy &c,
                                                     Value tensor,
                                                     int64_t rows) {
  PtxEmitter p(b, loc);
  TensorMap m;
  m.slot = kernelSlotOf(tensor);
  m.rank = c.tensorRank;
  m.elemBytes = c.elemBytes;
  m.swizzle = c.swizzleBytes == 128  ? 3
              : c.swizzleBytes == 64 ? 2
              : c.swizzleBytes == 32 ? 1
                                     : 0;
  m.box[0] = c.blockCols ? c.blockCols : c.cols;
  m.box[1] = rows;
  auto found = std::find(maps.begin(), maps.end(), m);
  int64_t index = found - maps.begin();
  if (found == maps.end())
    maps.push_back(m);
  // The map's address: a placeholder NvptxCodegen turns into the address of
  // the index-th tensor-map parameter.
  MLIRContext *ctx = b.getContext();
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<gpu::GPUModuleOp>();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  if (module && !module.lookupSymbol(kTmaMapFn)) {
    OpBuilder mb(ctx);
    mb.setInsertionPointToStart(&module.getBodyRegion().front());
    LLVM::LLVMFuncOp::create(mb, loc, kTmaMapFn,
                             LLVM::LLVMFunctionType::get(ptrTy, {p.i32}));
  }
  auto call = LLVM::CallOp::create(b, loc, TypeRange{ptrTy},
                                   SymbolRefAttr::get(ctx, kTmaMapFn),
                                   ValueRange{p.c32(index)});
  return {index, LLVM::PtrToIntOp::create(b, loc, p.i64, call.getResult())};
}

/// One cp.async.bulk.tensor per column block of `c`; with `clusterSize` >
/// 1, block `rank`'s share of each column block's rows, multicast to every
/// block of the cluster (the tensor map's box is that share).
void CudaTargetHooks::issueBulkCopy(OpBuilder &b, Location loc,
                                    const BulkCopy &c, Value tensor,
                                    ValueRange offsets, Value shared,
                                    Value barrier, Value share,
                                    int64_t clusterSize) {
  PtxEmitter p(b, loc);
  int64_t rows = c.rows / clusterSize;
  int64_t inner = c.blockCols ? c.blockCols : c.cols;
  Value map = tensorMap(b, loc, c, tensor, rows).second;
  // Coordinates innermost first: the column (of the block), the row, then
  // the outer dims the tile does not cover.
  int64_t rank = c.tensorRank;
  bool multicast = clusterSize > 1;
  std::string text = "cp.async.bulk.tensor." + std::to_string(rank) +
                     "d.shared::cluster.global.tile.mbarrier::complete_tx::"
                     "bytes" +
                     std::string(multicast ? ".multicast::cluster" : "") +
                     " [$0], [$1, ";
  std::string cons = "r,l";
  appendCoordinates(text, cons, 2, rank);
  text += "], [$" + std::to_string(2 + rank) + "]";
  cons += ",r";
  if (multicast) {
    // Every block of the cluster: a 16-bit mask of ranks.
    text += ", $" + std::to_string(3 + rank);
    cons += ",h";
  }
  text += ";";
  Value bar32 = toI32(p, barrier), dst32 = toI32(p, shared);
  // The share's first row and its bytes into each column block.
  Value row0 = multicast ? p.mul(share, p.ci(rows)) : p.ci(0);
  Value rowBytes32 =
      multicast ? toI32(p, p.mul(row0, p.ci(inner * c.elemBytes))) : Value();
  Value mask = multicast ? LLVM::ConstantOp::create(
                               b, loc, b.getI16Type(),
                               b.getI16IntegerAttr((1 << clusterSize) - 1))
                               .getResult()
                         : Value();
  int64_t blocks = c.blockCols ? c.cols / c.blockCols : 1;
  for (int64_t blk = 0; blk < blocks; ++blk) {
    Value dst = p.add(dst32, p.c32(blk * c.rows * inner * c.elemBytes));
    if (multicast)
      dst = p.add(dst, rowBytes32);
    SmallVector<Value> ops{dst, map};
    ops.push_back(toI32(p, p.add(offsets[rank - 1], p.ci(blk * inner))));
    ops.push_back(toI32(p, multicast ? p.add(offsets[rank - 2], row0)
                                     : offsets[rank - 2]));
    for (int64_t d = rank - 3; d >= 0; --d)
      ops.push_back(toI32(p, offsets[d]));
    ops.push_back(bar32);
    if (multicast)
      ops.push_back(mask);
    p.asmOp(text, cons, ops);
  }
}

void CudaTargetHooks::emitClusterArrive(OpBuilder &b, Location loc,
                                        Value barrier, Value rank) {
  PtxEmitter p(b, loc);
  // The same barrier in the block of that rank (mapa). The arrival orders
  // nothing but the reads of the stage, which the caller's MMA wait has
  // completed: the default (CTA-scope) release is enough, and a
  // cluster-scope release costs a fence on every refill.
  p.asmOp("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, $0, $1;\n"
          "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
          "r,r", ValueRange{toI32(p, barrier), toI32(p, rank)});
}

void CudaTargetHooks::emitClusterBarrierWait(OpBuilder &b, Location loc,
                                             Value barrier, Value phase) {
  PtxEmitter p(b, loc);
  p.asmOp("{\n.reg .pred P1;\nTESSERA_CWAIT:\n"
          "mbarrier.try_wait.parity.shared::cta.b64 P1, "
          "[$0], $1;\n"
          "@P1 bra TESSERA_CDONE;\nbra TESSERA_CWAIT;\nTESSERA_CDONE:\n}",
          "r,r", ValueRange{toI32(p, barrier), toI32(p, phase)});
}

void CudaTargetHooks::emitClusterSync(OpBuilder &b, Location loc) {
  PtxEmitter p(b, loc);
  p.asmOp("barrier.cluster.arrive.release.aligned;\n"
          "barrier.cluster.wait.acquire.aligned;",
          "", ValueRange{});
}

void CudaTargetHooks::emitBarrierInit(OpBuilder &b, Location loc, Value barrier,
                                      int64_t arrivals) {
  PtxEmitter p(b, loc);
  p.asmOp("mbarrier.init.shared::cta.b64 [$0], $1;", "r,r",
          ValueRange{toI32(p, barrier), p.c32(arrivals)});
}

void CudaTargetHooks::emitBarrierInitFence(OpBuilder &b, Location loc) {
  PtxEmitter p(b, loc);
  p.asmOp("fence.mbarrier_init.release.cluster;", "", ValueRange{});
  p.asmOp("fence.proxy.async.shared::cta;", "", ValueRange{});
}

void CudaTargetHooks::emitBarrierArriveExpect(OpBuilder &b, Location loc,
                                              Value barrier, int64_t bytes) {
  PtxEmitter p(b, loc);
  if (bytes == 0) {
    p.asmOp("mbarrier.arrive.shared::cta.b64 _, [$0];", "r",
            ValueRange{toI32(p, barrier)});
    return;
  }
  p.asmOp("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r",
          ValueRange{toI32(p, barrier), p.c32(bytes)});
}

void CudaTargetHooks::emitBarrierWait(OpBuilder &b, Location loc, Value barrier,
                                      Value phase) {
  PtxEmitter p(b, loc);
  p.asmOp("{\n.reg .pred P1;\nTESSERA_WAIT:\n"
          "mbarrier.try_wait.parity.shared::cta.b64 P1, [$0], $1;\n"
          "@P1 bra TESSERA_DONE;\nbra TESSERA_WAIT;\nTESSERA_DONE:\n}",
          "r,r", ValueRange{toI32(p, barrier), toI32(p, phase)});
}

int64_t CudaTargetHooks::copyWarpThreads(int64_t consumerThreads) const {
  if (!wgmma || !bulkCopies || !warpSpecialization)
    return 0;
  // One warp beside one consumer warpgroup (registers are allocated per
  // warpgroup: 160 threads get what 256 do); beside more, a warpgroup that
  // gives its registers to the consumers (setmaxnreg works per warpgroup).
  return consumerThreads <= 128 ? 32 : 128;
}

void CudaTargetHooks::emitRoleStart(OpBuilder &b, Location loc, bool copyRole,
                                    int64_t consumerThreads,
                                    int64_t copyThreads) {
  if (copyThreads % 128)
    return;
  PtxEmitter p(b, loc);
  constexpr int64_t kCopyRegs = 40, kRegsPerSm = 65536;
  if (copyRole) {
    p.asmOp("setmaxnreg.dec.sync.aligned.u32 " + std::to_string(kCopyRegs) +
                ";",
            "", ValueRange{});
    return;
  }
  int64_t regs = (kRegsPerSm - copyThreads * kCopyRegs) / consumerThreads;
  regs = std::min<int64_t>(240, regs / 8 * 8);
  p.asmOp("setmaxnreg.inc.sync.aligned.u32 " + std::to_string(regs) + ";", "",
          ValueRange{});
}

void CudaTargetHooks::emitTurnWait(OpBuilder &b, Location loc, int64_t group,
                                   int64_t threads) {
  // Named barriers 2 and 3 (0 is the block's, 1 the consumers'), as
  // constants: ptxas reserves all 16 for a barrier named by a register.
  PtxEmitter(b, loc).asmOp("bar.sync " + std::to_string(2 + group) + ", " +
                               std::to_string(threads) + ";",
                           "", ValueRange{});
}

void CudaTargetHooks::emitTurnPass(OpBuilder &b, Location loc, int64_t group,
                                   int64_t threads) {
  PtxEmitter(b, loc).asmOp("bar.arrive " + std::to_string(2 + group) + ", " +
                               std::to_string(threads) + ";",
                           "", ValueRange{});
}

void CudaTargetHooks::emitPartialBarrier(OpBuilder &b, Location loc,
                                         int64_t threads, bool untilReads) {
  PtxEmitter p(b, loc);
  // (fence.proxy.async is a MEMBAR.ALL.CTA in SASS: it also waits for the
  // thread's outstanding global stores, e.g. a whole epilogue's.)
  if (wgmma && !untilReads)
    p.asmOp("fence.proxy.async.shared::cta;", "", ValueRange{});
  // Named barrier 1 (0 is the block's): the first `threads` threads.
  p.asmOp("bar.sync 1, $0;", "r", ValueRange{p.c32(threads)});
}

//===----------------------------------------------------------------------===//
// TMA stores (sm_90a)
//===----------------------------------------------------------------------===//

bool CudaTargetHooks::canBulkStore(const BulkCopy &c) const {
  // The same boxes as the loads' (canBulkCopy); the tensor map describes
  // the tensor's true extents, so the hardware clips a box that reaches
  // past them. TESSERA_TMA_STORE=1 turns stores on (setBulkStores).
  return bulkStoresOn && canBulkCopy(c);
}

void CudaTargetHooks::emitBulkStore(OpBuilder &b, Location loc,
                                    const BulkCopy &c, Value tensor,
                                    ValueRange offsets, Value shared) {
  PtxEmitter p(b, loc);
  int64_t inner = c.blockCols ? c.blockCols : c.cols;
  Value map = tensorMap(b, loc, c, tensor, c.rows).second;
  // Coordinates innermost first: the column (of the block), the row, then
  // the outer dims the tile does not cover.
  int64_t rank = c.tensorRank;
  std::string text = "cp.async.bulk.tensor." + std::to_string(rank) +
                     "d.global.shared::cta.bulk_group [$0, ";
  std::string cons = "l";
  appendCoordinates(text, cons, 1, rank);
  text += "], [$" + std::to_string(1 + rank) + "];";
  cons += ",r";
  Value src32 = toI32(p, shared);
  int64_t blocks = c.blockCols ? c.cols / c.blockCols : 1;
  for (int64_t blk = 0; blk < blocks; ++blk) {
    SmallVector<Value> ops{map};
    ops.push_back(toI32(p, p.add(offsets[rank - 1], p.ci(blk * inner))));
    ops.push_back(toI32(p, offsets[rank - 2]));
    for (int64_t d = rank - 3; d >= 0; --d)
      ops.push_back(toI32(p, offsets[d]));
    ops.push_back(p.add(src32, p.c32(blk * c.rows * inner * c.elemBytes)));
    p.asmOp(text, cons, ops);
  }
  p.asmOp("cp.async.bulk.commit_group;", "", ValueRange{});
}

void CudaTargetHooks::emitBulkStoreBarrier(OpBuilder &b, Location loc,
                                           int64_t threads) {
  PtxEmitter p(b, loc);
  // The writers' generic-proxy stores become visible to the TMA unit (the
  // async proxy) through a proxy fence in each writer before the barrier.
  p.asmOp("fence.proxy.async.shared::cta;", "", ValueRange{});
  if (threads)
    p.asmOp("bar.sync 1, $0;", "r", ValueRange{p.c32(threads)});
  else
    TargetHooks::emitBarrier(b, loc);
}

void CudaTargetHooks::emitBulkStoreWait(OpBuilder &b, Location loc) {
  // Only the reads of shared memory: the global writes complete by the
  // kernel's end at the latest.
  PtxEmitter(b, loc).asmOp("cp.async.bulk.wait_group.read 0;", "",
                           ValueRange{});
}

bool CudaTargetHooks::canStoreMatrices(Type elem) const {
  // stmatrix: sm_90 (the chips with wgmma here). TESSERA_STMATRIX=0 stores
  // pairs with st.shared instead (for A/B).
  const char *v = std::getenv("TESSERA_STMATRIX");
  return wgmma && (elem.isF16() || elem.isBF16()) &&
         !(v && std::string(v) == "0");
}

void CudaTargetHooks::emitStoreMatrices(OpBuilder &b, Location loc,
                                        Value rowAddress, ValueRange pairs) {
  PtxEmitter p(b, loc);
  int64_t n = pairs.size();
  std::string text = "stmatrix.sync.aligned.m8n8.x" + std::to_string(n) +
                     ".shared.b16 [$0], {";
  std::string cons = "r";
  SmallVector<Value> ops{toI32(p, rowAddress)};
  for (int64_t i = 0; i < n; ++i) {
    text += (i ? ", $" : "$") + std::to_string(1 + i);
    cons += ",r";
    ops.push_back(LLVM::BitcastOp::create(b, loc, p.i32, pairs[i]));
  }
  text += "};";
  p.asmOp(text, cons, ops);
}
