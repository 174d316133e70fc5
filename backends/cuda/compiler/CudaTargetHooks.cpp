//===- CudaTargetHooks.cpp - NVIDIA's part of distribution ----------------===//

#include "CudaTargetHooks.h"
#include "PtxEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

} // namespace

bool CudaTargetHooks::canEmitAtom(const target::MmaAtom &atom) const {
  return atom.kind == target::MmaKind::MmaSync && atom.m == 16 && atom.n == 8 &&
         atom.k == 16 && atom.aType == atom.bType && isHalfLike(atom.aType) &&
         (atom.cType == "f32" || (atom.cType == "f16" && atom.aType == "f16"));
}

SmallVector<Value> CudaTargetHooks::emitMma(OpBuilder &b, Location loc,
                                            const target::MmaAtom &atom,
                                            ArrayRef<Value> a,
                                            ArrayRef<Value> bv,
                                            ArrayRef<Value> c) {
  PtxEmitter p(b, loc);
  SmallVector<Value> ops;
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

void CudaTargetHooks::emitCommitGroup(OpBuilder &b, Location loc) {
  PtxEmitter(b, loc).asmOp("cp.async.commit_group;", "", ValueRange{});
}

void CudaTargetHooks::emitWaitGroup(OpBuilder &b, Location loc,
                                    int64_t pending) {
  PtxEmitter(b, loc).asmOp(
      "cp.async.wait_group " + std::to_string(pending) + ";", "", ValueRange{});
}
