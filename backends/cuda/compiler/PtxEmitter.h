//===- PtxEmitter.h - small builders for the cuda hooks ---------*- C++ -*-===//
//
// The CudaTargetHooks emit integer arithmetic on i32/index values and inline
// PTX for the instructions MLIR has no op for; these are their builders.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BACKENDS_CUDA_PTXEMITTER_H
#define TESSERA_BACKENDS_CUDA_PTXEMITTER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace tessera::cuda {

struct PtxEmitter {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type i32, i64, f32;

  PtxEmitter(mlir::OpBuilder &b, mlir::Location loc)
      : b(b), loc(loc), i32(b.getI32Type()), i64(b.getI64Type()),
        f32(b.getF32Type()) {}

  mlir::Value c32(int64_t v) {
    return mlir::arith::ConstantIntOp::create(b, loc, v, 32);
  }
  mlir::Value c64(int64_t v) {
    return mlir::arith::ConstantIntOp::create(b, loc, v, 64);
  }
  mlir::Value ci(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value cf(float v) {
    return mlir::arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(v));
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return mlir::arith::MulIOp::create(b, loc, x, y);
  }
  mlir::Value divu(mlir::Value x, int64_t y) {
    return mlir::arith::DivUIOp::create(b, loc, x, ci(y));
  }
  mlir::Value remu(mlir::Value x, int64_t y) {
    return mlir::arith::RemUIOp::create(b, loc, x, ci(y));
  }
  mlir::Value xori(mlir::Value x, mlir::Value y) {
    return mlir::arith::XOrIOp::create(b, loc, x, y);
  }
  mlir::Value andi(mlir::Value x, mlir::Value y) {
    return mlir::arith::AndIOp::create(b, loc, x, y);
  }
  mlir::Value ori(mlir::Value x, mlir::Value y) {
    return mlir::arith::OrIOp::create(b, loc, x, y);
  }
  mlir::Value shr(mlir::Value x, mlir::Value y) {
    return mlir::arith::ShRUIOp::create(b, loc, x, y);
  }
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y) {
    return mlir::arith::CmpIOp::create(b, loc, p, x, y);
  }
  mlir::Value ult(mlir::Value x, mlir::Value y) {
    return cmp(mlir::arith::CmpIPredicate::ult, x, y);
  }
  mlir::Value ule(mlir::Value x, mlir::Value y) {
    return cmp(mlir::arith::CmpIPredicate::ule, x, y);
  }
  mlir::Value sel(mlir::Value c, mlir::Value x, mlir::Value y) {
    return mlir::arith::SelectOp::create(b, loc, c, x, y);
  }
  mlir::Value fmul(mlir::Value x, mlir::Value y) {
    return mlir::arith::MulFOp::create(b, loc, x, y);
  }
  mlir::Value fadd(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddFOp::create(b, loc, x, y);
  }
  mlir::Value fsub(mlir::Value x, mlir::Value y) {
    return mlir::arith::SubFOp::create(b, loc, x, y);
  }
  mlir::Value fmax(mlir::Value x, mlir::Value y) {
    return mlir::arith::MaxNumFOp::create(b, loc, x, y);
  }
  mlir::Value toI32(mlir::Value index) {
    return mlir::arith::IndexCastUIOp::create(b, loc, i32, index);
  }
  mlir::Value toI64(mlir::Value index) {
    return mlir::arith::IndexCastUIOp::create(b, loc, i64, index);
  }

  /// Inline PTX with side effects; `results` empty for statements.
  llvm::SmallVector<mlir::Value> asmOp(llvm::StringRef text,
                                       llvm::StringRef constraints,
                                       mlir::ValueRange operands,
                                       mlir::TypeRange results = {}) {
    mlir::Type res;
    if (results.size() == 1)
      res = results[0];
    else if (results.size() > 1)
      res = mlir::LLVM::LLVMStructType::getLiteral(
          b.getContext(), llvm::SmallVector<mlir::Type>(results));
    auto op = inlineAsm(res, text, constraints, operands, true);
    llvm::SmallVector<mlir::Value> out;
    if (results.size() == 1)
      out.push_back(op.getResult(0));
    else
      for (unsigned i = 0; i < results.size(); ++i)
        out.push_back(mlir::LLVM::ExtractValueOp::create(
            b, loc, op.getResult(0), llvm::ArrayRef<int64_t>{i}));
    return out;
  }
  /// Pure inline PTX (no side effects: may be scheduled / CSE'd freely).
  mlir::Value pureAsm(llvm::StringRef text, llvm::StringRef constraints,
                      mlir::ValueRange operands, mlir::Type result) {
    return inlineAsm(result, text, constraints, operands, false).getResult(0);
  }

private:
  mlir::LLVM::InlineAsmOp inlineAsm(mlir::Type result, llvm::StringRef text,
                                    llvm::StringRef constraints,
                                    mlir::ValueRange operands,
                                    bool sideEffects) {
    return mlir::LLVM::InlineAsmOp::create(
        b, loc, result, operands, text, constraints, sideEffects,
        /*is_align_stack=*/false, mlir::LLVM::tailcallkind::TailCallKind::None,
        mlir::LLVM::AsmDialectAttr::get(b.getContext(),
                                        mlir::LLVM::AsmDialect::AD_ATT),
        mlir::ArrayAttr());
  }
};

} // namespace tessera::cuda

#endif
