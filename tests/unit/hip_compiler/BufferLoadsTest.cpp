//===- BufferLoadsTest.cpp - the hip backend's buffer loads ---------------===//
//
// What can be checked of BufferLoads.h without an AMD GPU: the resource
// flags word of each chip, field by field against the descriptor layouts of
// the GFX9 and GFX11/GFX12 ISA guides and the words AMD's Composable Kernel
// uses (ck/ck.hpp, CK_BUFFER_RESOURCE_3RD_DWORD); and the loads' byte offsets
// and types, built on constants and folded by MLIR's canonicalizer: a piece
// inside the tensor reads at index * element bytes, one outside at 2^31,
// past every extent a resource is built with; the elements of a piece at a
// row's end read at the piece's offset (or 2^31 each) and their place in
// the scalar offset; resources run from a
// copy's origin to the tensor's end, at most 2^31 bytes; copies that reach
// further stop the kernel.
//
//===----------------------------------------------------------------------===//

#include "BufferLoads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace mlir;
using namespace tessera::hip;

namespace {

uint32_t field(uint32_t word, int lo, int bits) {
  return (word >> lo) & ((1u << bits) - 1);
}

TEST(BufferResourceFlags, Cdna) {
  for (const char *chip : {"gfx942", "gfx950"}) {
    std::optional<uint32_t> w = bufferResourceFlags(chip);
    ASSERT_TRUE(w) << chip;
    EXPECT_EQ(field(*w, 0, 12), 0u) << chip; // DST_SEL: unused by raw loads
    EXPECT_EQ(field(*w, 15, 4), 4u) << chip; // DATA_FORMAT 32: valid
    EXPECT_EQ(field(*w, 19, 2), 0u) << chip; // no user VM
    EXPECT_EQ(field(*w, 21, 2), 0u) << chip; // INDEX_STRIDE
    EXPECT_EQ(field(*w, 23, 1), 0u) << chip; // ADD_TID_ENABLE off
    EXPECT_EQ(field(*w, 30, 2), 0u) << chip; // TYPE: buffer
    EXPECT_EQ(*w, 0x00020000u) << chip;      // Composable Kernel's gfx9 word
  }
}

TEST(BufferResourceFlags, Rdna) {
  for (const char *chip : {"gfx1100", "gfx1201"}) {
    std::optional<uint32_t> w = bufferResourceFlags(chip);
    ASSERT_TRUE(w) << chip;
    EXPECT_NE(field(*w, 12, 7), 0u) << chip; // FORMAT: not INVALID
    EXPECT_EQ(field(*w, 21, 2), 0u) << chip; // INDEX_STRIDE
    EXPECT_EQ(field(*w, 23, 1), 0u) << chip; // ADD_TID_ENABLE off
    EXPECT_EQ(field(*w, 24, 1), 1u) << chip; // RESOURCE_LEVEL
    EXPECT_EQ(field(*w, 28, 2), 3u) << chip; // OOB_SELECT raw: offset only
    EXPECT_EQ(field(*w, 30, 2), 0u) << chip; // TYPE: buffer
    EXPECT_EQ(*w, 0x31004000u) << chip;      // CK's gfx11 and gfx12 word
  }
}

TEST(BufferResourceFlags, UnknownChipsHaveNone) {
  for (const char *chip : {"gfx1030", "gfx1250", "sm_90a", ""})
    EXPECT_FALSE(bufferResourceFlags(chip)) << chip;
}

/// Builds one bufferLoad on constants in a function and folds it.
class BufferLoadTest : public ::testing::Test {
protected:
  BufferLoadTest() {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect, LLVM::LLVMDialect,
                    ROCDL::ROCDLDialect, memref::MemRefDialect, scf::SCFDialect,
                    vector::VectorDialect>();
  }

  /// The folded load of `n` `elem`s at element `index` (valid or not), or
  /// null where bufferLoad declines. `result` gets the value's type.
  ROCDL::RawPtrBufferLoadOp build(Type elem, int64_t n, int64_t index,
                                  bool valid, Type *result = nullptr) {
    std::vector<ROCDL::RawPtrBufferLoadOp> loads =
        buildAll(elem, n, index, {valid}, result);
    return loads.empty() ? ROCDL::RawPtrBufferLoadOp() : loads.back();
  }

  /// The loads left after folding a bufferLoad of `n` `elem`s at element
  /// `index` whose validity is `bits`: one bit for the whole piece, or one
  /// per element (a row's end).
  std::vector<ROCDL::RawPtrBufferLoadOp> buildAll(Type elem, int64_t n,
                                                  int64_t index,
                                                  std::vector<bool> bits,
                                                  Type *result = nullptr) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto memTy = MemRefType::get({ShapedType::kDynamic}, elem);
    auto fn = func::FuncOp::create(b, loc, "f",
                                   b.getFunctionType({memTy}, TypeRange{}));
    b.setInsertionPointToStart(fn.addEntryBlock());
    Value extent = arith::ConstantIndexOp::create(b, loc, 1 << 20);
    Value rsrc = makeBufferResource(b, loc, fn.getArgument(0), extent,
                                    arith::ConstantIndexOp::create(b, loc, 0),
                                    *bufferResourceFlags("gfx942"));
    SmallVector<Value> consts;
    for (bool bit : bits)
      consts.push_back(arith::ConstantIntOp::create(b, loc, bit, 1));
    Value valid =
        consts.size() == 1
            ? consts[0]
            : vector::FromElementsOp::create(
                  b, loc,
                  VectorType::get({int64_t(consts.size())}, b.getI1Type()),
                  consts)
                  .getResult();
    Value v =
        bufferLoad(b, loc, rsrc, arith::ConstantIndexOp::create(b, loc, index),
                   elem, n, valid);
    if (!v)
      return {};
    if (result)
      *result = v.getType();
    // Returned, so that the canonicalizer keeps it.
    func::ReturnOp::create(b, loc, v);
    fn.setFunctionType(b.getFunctionType({memTy}, v.getType()));
    PassManager pm(&ctx);
    pm.addPass(createCanonicalizerPass());
    EXPECT_TRUE(succeeded(pm.run(*module)));
    std::vector<ROCDL::RawPtrBufferLoadOp> loads;
    module->walk([&](ROCDL::RawPtrBufferLoadOp op) { loads.push_back(op); });
    return loads;
  }

  static int64_t constant(Value v) {
    APInt a;
    EXPECT_TRUE(matchPattern(v, m_ConstantInt(&a)));
    return a.getSExtValue();
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(BufferLoadTest, PiecesInsideReadAtTheirByteOffset) {
  Builder b(&ctx);
  Type result;
  auto load = build(b.getF16Type(), 8, 40, true, &result);
  ASSERT_TRUE(load);
  EXPECT_EQ(constant(load.getOffset()), 80);
  EXPECT_EQ(constant(load.getSoffset()), 0);
  EXPECT_EQ(load.getRes().getType(), VectorType::get({4}, b.getI32Type()));
  EXPECT_EQ(result, VectorType::get({8}, b.getF16Type()));

  load = build(b.getF32Type(), 1, 7, true, &result);
  ASSERT_TRUE(load);
  EXPECT_EQ(constant(load.getOffset()), 28);
  EXPECT_EQ(load.getRes().getType(), b.getI32Type());
  EXPECT_EQ(result, b.getF32Type());
}

TEST_F(BufferLoadTest, PiecesOutsideReadPastEveryExtent) {
  Builder b(&ctx);
  auto load = build(b.getBF16Type(), 4, 12, false);
  ASSERT_TRUE(load);
  EXPECT_EQ(uint32_t(constant(load.getOffset())), kOutOfRangeOffset);
  EXPECT_GE(int64_t(kOutOfRangeOffset), kMaxBufferBytes);
}

TEST_F(BufferLoadTest, ElementsAtARowsEndShareOneOffset) {
  Builder b(&ctx);
  // Three halves inside, five past the row's end: one load per element, all
  // at the piece's byte offset (80) where inside and at 2^31 where not, each
  // placed by the scalar offset (2 i).
  std::vector<ROCDL::RawPtrBufferLoadOp> loads =
      buildAll(b.getF16Type(), 8, 40,
               {true, true, true, false, false, false, false, false});
  ASSERT_EQ(loads.size(), 8u);
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(uint32_t(constant(loads[i].getOffset())),
              i < 3 ? 80u : kOutOfRangeOffset);
    EXPECT_EQ(constant(loads[i].getSoffset()), 2 * i);
    EXPECT_EQ(loads[i].getRes().getType(), b.getI16Type());
  }
}

TEST_F(BufferLoadTest, RowsWhollyOutsideReadPastEveryExtent) {
  Builder b(&ctx);
  // Bits known only at run time: a select per element between the piece's
  // offset and 2^31 (a row outside the tensor reads nothing).
  OpBuilder ob(&ctx);
  Location loc = ob.getUnknownLoc();
  module = ModuleOp::create(loc);
  ob.setInsertionPointToEnd(module->getBody());
  auto memTy = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
  auto bitsTy = VectorType::get({4}, b.getI1Type());
  auto fn = func::FuncOp::create(ob, loc, "f",
                                 ob.getFunctionType({memTy, bitsTy}, {}));
  ob.setInsertionPointToStart(fn.addEntryBlock());
  Value rsrc = makeBufferResource(ob, loc, fn.getArgument(0),
                                  arith::ConstantIndexOp::create(ob, loc, 64),
                                  arith::ConstantIndexOp::create(ob, loc, 0),
                                  *bufferResourceFlags("gfx950"));
  Value v =
      bufferLoad(ob, loc, rsrc, arith::ConstantIndexOp::create(ob, loc, 9),
                 b.getI8Type(), 4, fn.getArgument(1));
  ASSERT_TRUE(v);
  EXPECT_EQ(v.getType(), VectorType::get({4}, b.getI8Type()));
  func::ReturnOp::create(ob, loc, v);
  fn.setFunctionType(ob.getFunctionType({memTy, bitsTy}, v.getType()));
  PassManager pm(&ctx);
  pm.addPass(createCanonicalizerPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  int loads = 0;
  module->walk([&](ROCDL::RawPtrBufferLoadOp load) {
    // Element i: the piece's offset where its own bit holds, else 2^31
    // (range-checked); its place in the scalar offset.
    auto select = load.getOffset().getDefiningOp<arith::SelectOp>();
    ASSERT_TRUE(select);
    EXPECT_EQ(constant(select.getTrueValue()), 9);
    EXPECT_EQ(uint32_t(constant(select.getFalseValue())), kOutOfRangeOffset);
    auto bit = select.getCondition().getDefiningOp<vector::ExtractOp>();
    ASSERT_TRUE(bit);
    EXPECT_EQ(bit.getStaticPosition()[0], loads);
    EXPECT_EQ(constant(load.getSoffset()), loads);
    ++loads;
  });
  EXPECT_EQ(loads, 4);
}

TEST_F(BufferLoadTest, EachPieceSizeHasItsLoad) {
  Builder b(&ctx);
  struct Case {
    Type elem;
    int64_t n;
    Type raw;
  } cases[] = {
      {b.getI8Type(), 1, b.getI8Type()},
      {b.getF16Type(), 1, b.getI16Type()},
      {b.getI8Type(), 4, b.getI32Type()},
      {b.getF16Type(), 4, VectorType::get({2}, b.getI32Type())},
      {b.getF64Type(), 1, VectorType::get({2}, b.getI32Type())},
      {b.getI8Type(), 16, VectorType::get({4}, b.getI32Type())},
      {Float8E4M3FNType::get(&ctx), 16, VectorType::get({4}, b.getI32Type())},
  };
  for (const Case &c : cases) {
    Type result;
    auto load = build(c.elem, c.n, 0, true, &result);
    ASSERT_TRUE(load);
    EXPECT_EQ(load.getRes().getType(), c.raw);
    EXPECT_EQ(result, c.n == 1 ? c.elem : VectorType::get({c.n}, c.elem));
  }
}

/// The NUM_RECORDS of a resource over `extent` bytes from `origin`, folded.
int64_t recordsOf(MLIRContext &ctx, int64_t extent, int64_t origin) {
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto memTy = MemRefType::get({ShapedType::kDynamic}, b.getF16Type());
  auto ptr8 = LLVM::LLVMPointerType::get(&ctx, 8);
  auto fn =
      func::FuncOp::create(b, loc, "f", b.getFunctionType({memTy}, {ptr8}));
  b.setInsertionPointToStart(fn.addEntryBlock());
  Value rsrc = makeBufferResource(
      b, loc, fn.getArgument(0), arith::ConstantIndexOp::create(b, loc, extent),
      arith::ConstantIndexOp::create(b, loc, origin),
      *bufferResourceFlags("gfx1100"));
  func::ReturnOp::create(b, loc, rsrc);
  PassManager pm(&ctx);
  pm.addPass(createCanonicalizerPass());
  EXPECT_TRUE(succeeded(pm.run(*module)));
  ROCDL::MakeBufferRsrcOp op;
  module->walk([&](ROCDL::MakeBufferRsrcOp o) { op = o; });
  APInt records, flags;
  EXPECT_TRUE(matchPattern(op.getNumRecords(), m_ConstantInt(&records)));
  EXPECT_TRUE(matchPattern(op.getFlags(), m_ConstantInt(&flags)));
  EXPECT_EQ(flags.getZExtValue(), *bufferResourceFlags("gfx1100"));
  return records.getSExtValue();
}

TEST_F(BufferLoadTest, ResourcesRunFromTheOriginToTheEnd) {
  EXPECT_EQ(recordsOf(ctx, 1000, 0), 1000);
  EXPECT_EQ(recordsOf(ctx, 1000, 200), 800);
  EXPECT_EQ(recordsOf(ctx, 1000, 1000), 0);
  EXPECT_EQ(recordsOf(ctx, 1000, 4096), 0); // a tile past the end
  // Never past 2^31 bytes, so that kOutOfRangeOffset stays out of range.
  EXPECT_EQ(recordsOf(ctx, int64_t(1) << 40, 0), kMaxBufferBytes);
  EXPECT_EQ(recordsOf(ctx, int64_t(1) << 40, (int64_t(1) << 40) - 64), 64);
}

TEST_F(BufferLoadTest, CopiesReachingTooFarStopTheKernel) {
  for (int64_t reach :
       {int64_t(1) << 20, kMaxBufferBytes, kMaxBufferBytes + 1}) {
    OpBuilder b(&ctx);
    Location loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, loc, "f", b.getFunctionType({}, {}));
    b.setInsertionPointToStart(fn.addEntryBlock());
    trapBeyondBufferReach(b, loc,
                          arith::ConstantIndexOp::create(b, loc, reach));
    func::ReturnOp::create(b, loc);
    PassManager pm(&ctx);
    pm.addPass(createCanonicalizerPass());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    int traps = 0;
    module->walk([&](LLVM::Trap) { ++traps; });
    EXPECT_EQ(traps, reach > kMaxBufferBytes ? 1 : 0) << reach;
  }
}

TEST_F(BufferLoadTest, DeclinesWhatNoLoadMoves) {
  Builder b(&ctx);
  EXPECT_FALSE(build(b.getI1Type(), 8, 0, true));
  EXPECT_FALSE(build(b.getF16Type(), 3, 0, true)); // 6 bytes
  EXPECT_FALSE(build(b.getF32Type(), 8, 0, true)); // 32 bytes
}

} // namespace
