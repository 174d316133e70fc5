//===- TileLoweringUtils.h - helpers shared by backend lowerings -*- C++
//-*-===//
//
// Target-neutral building blocks of the tile -> scf/memref/arith lowerings
// that the backends' compile sides write: scalar conversion between element
// types (fp8 decoding included), constants, static loop nests, mask
// conjunctions, reduction identities and combiners, the tile type converter,
// the unpacking of the runtime's argument slots, and the op patterns whose
// lowering does not depend on the target. Nothing here knows about a backend;
// a backend passes in what differs (memory spaces, where a slot comes from).
//
//===----------------------------------------------------------------------===//
#ifndef TESSERA_CORE_LOWERING_TILELOWERINGUTILS_H
#define TESSERA_CORE_LOWERING_TILELOWERINGUTILS_H

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

namespace tessera::lowering {

/// An `index` constant.
mlir::Value idx(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// A constant of integer or float type `t` (`fv` for floats, `iv` for
/// integers), or a splat of one when `t` is a vector type.
mlir::Value constOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                    double fv, int64_t iv);

/// The zero of scalar type `t`.
mlir::Value zeroOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t);

/// Whether `t` (or its element type) is f8E4M3FN or f8E5M2.
bool isF8(mlir::Type t);

/// Decodes an f8E4M3FN or f8E5M2 value (scalar or vector) to f32 with
/// integer ops: LLVM has no fp8 types, so arith.extf cannot lower.
mlir::Value decodeF8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Encodes an f32 value (scalar or vector) as f8E4M3FN or f8E5M2 (`to`,
/// the element type) with integer ops: rounds to nearest, ties to even, and
/// saturates values beyond the largest finite one (448 or 57344; infinities
/// included) to it; NaN stays NaN. What `tile.copy` does when it narrows to
/// fp8, and what the tile interpreter computes.
mlir::Value encodeF8(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                     mlir::Type to);

/// Converts a scalar between element types (the conversions tile.copy does).
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          mlir::Type to);

/// Builds a nest of static loops [0, shape[d]) and calls `body` innermost.
void loopNest(mlir::OpBuilder &b, mlir::Location loc,
              llvm::ArrayRef<int64_t> shape,
              llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                      mlir::ValueRange)>
                  body);

/// The conjunction of the non-empty list of i1 values `conds`.
mlir::Value andAll(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<mlir::Value> conds);

/// The tile type of a value of the original (unconverted) IR.
tile::TileType tileTypeOf(mlir::Value original);

/// The start value of a reduction of `kind` over elements of type `t`.
mlir::Value reduceIdentity(mlir::OpBuilder &b, mlir::Location loc,
                           tile::ReduceKind kind, mlir::Type t);

/// Combines two partial results of a reduction of `kind`; float sums carry
/// the fast-math flags `sumFlags`.
mlir::Value combineReduce(
    mlir::OpBuilder &b, mlir::Location loc, tile::ReduceKind kind,
    mlir::Value x, mlir::Value y,
    mlir::arith::FastMathFlags sumFlags = mlir::arith::FastMathFlags::none);

/// Replaces `kernel` by its body, its block indices by `blockIds`.
void inlineKernel(mlir::ConversionPatternRewriter &rw, tile::KernelOp kernel,
                  mlir::ValueRange blockIds);

/// Inlines a single-block region before `before`, dropping its tile.yield.
void inlineBody(mlir::ConversionPatternRewriter &rw, mlir::Block &body,
                mlir::Operation *before, mlir::ValueRange args);

/// Tiles become static memrefs (in the memory space `tileSpace` returns, none
/// when it is empty or returns a null attribute), global tensors dynamic
/// row-major memrefs; other types stay.
class TileTypeConverter : public mlir::TypeConverter {
public:
  explicit TileTypeConverter(
      std::function<mlir::Attribute(tile::TileType)> tileSpace = {});
};

//===----------------------------------------------------------------------===//
// Argument slots: a tensor is a pointer then its dims (i64), an index an i64,
// an i1 an i8, anything else itself.
//===----------------------------------------------------------------------===//

/// Appends the slot types of a kernel argument of type `t` to `out`.
void appendSlotTypes(mlir::Type t, llvm::SmallVectorImpl<mlir::Type> &out);

/// Replaces every argument of `old` by values built from its slots, which
/// `nextSlot(type)` provides in order.
void unpackArgumentSlots(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Block &old, const mlir::TypeConverter &converter,
                         llvm::function_ref<mlir::Value(mlir::Type)> nextSlot);

/// The base of the backends' one-op conversion patterns.
template <typename OpT> struct TilePattern : mlir::OpConversionPattern<OpT> {
  using mlir::OpConversionPattern<OpT>::OpConversionPattern;
};

/// Adds the patterns whose lowering is the same on every target: tile.dim,
/// tile.load, tile.store, and tile.pipelined as a plain loop (for targets
/// whose loads are synchronous).
void populateCommonTilePatterns(const mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);

} // namespace tessera::lowering

#endif
