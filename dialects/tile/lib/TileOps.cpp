//===- TileOps.cpp - tile dialect operations ------------------------------===//

#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace tessera::tile;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Tile ops other than the function's shape queries run per block, so they
/// must sit inside a tile.kernel.
static LogicalResult requireInKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be inside a 'tile.kernel'");
  return success();
}

static bool isFloat8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(t);
}

bool tessera::tile::isSupportedGemmTypes(Type a, Type b, Type acc) {
  if (a.isF16() && b.isF16())
    return acc.isF32() || acc.isF16();
  if (a.isBF16() && b.isBF16())
    return acc.isF32();
  if (isFloat8(a) && isFloat8(b))
    return acc.isF32();
  if (a.isInteger(8) && b.isInteger(8))
    return acc.isInteger(32);
  if (a.isF32() && b.isF32())
    return acc.isF32();
  return false;
}

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

KernelOp FuncOp::getKernel() {
  if (isExternal())
    return {};
  for (Operation &op : getBody().front())
    if (auto kernel = dyn_cast<KernelOp>(op))
      return kernel;
  return {};
}

LogicalResult FuncOp::verify() {
  if (!getResultTypes().empty())
    return emitOpError("a kernel function returns no results; write outputs "
                       "to a global tensor argument");
  for (auto [i, type] : llvm::enumerate(getArgumentTypes()))
    if (!isa<GlobalTensorType, IntegerType, FloatType, IndexType>(type))
      return emitOpError("argument #")
             << i << " has type " << type
             << "; expected a !tile.tensor, an integer, a float or index";
  if (isExternal())
    return success();
  if (!getBody().hasOneBlock())
    return emitOpError("body must be a single block");
  unsigned kernels = 0;
  for (Operation &op : getBody().front())
    kernels += isa<KernelOp>(op);
  if (kernels != 1)
    return emitOpError("body must launch exactly one 'tile.kernel', found ")
           << kernels;
  return success();
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  auto type = getTensor().getType();
  int64_t rank = type.getRank();
  // I64Attr accessors return uint64_t; read the signed value.
  int64_t index = getIndexAttr().getInt();
  if (index < 0 || index >= rank)
    return emitOpError("dimension ")
           << index << " is out of range for a tensor of rank " << rank;
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  auto type = getTensor().getType();
  int64_t index = getIndexAttr().getInt();
  if (index < 0 || index >= type.getRank() || type.isDynamicDim(index))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), type.getShape()[index]);
}

//===----------------------------------------------------------------------===//
// KernelOp: tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 { ... }
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> indices;
  SmallVector<OpAsmParser::UnresolvedOperand> grid;
  Type indexType = parser.getBuilder().getIndexType();
  if (parser.parseKeyword("blocks") ||
      parser.parseArgumentList(indices, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseOperandList(grid, OpAsmParser::Delimiter::Paren) ||
      parser.resolveOperands(grid, indexType, result.operands))
    return failure();
  int64_t threads;
  if (parser.parseKeyword("threads") || parser.parseEqual() ||
      parser.parseInteger(threads))
    return failure();
  result.addAttribute(getThreadsAttrName(result.name),
                      parser.getBuilder().getI64IntegerAttr(threads));
  for (auto &arg : indices)
    arg.type = indexType;
  Region *body = result.addRegion();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseRegion(*body, indices))
    return failure();
  KernelOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " blocks(";
  llvm::interleaveComma(getBlockIndices(), p,
                        [&](BlockArgument a) { p.printOperand(a); });
  p << ") in (" << getGrid() << ") threads = " << getThreadsAttr().getInt();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"threads"});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult KernelOp::verify() {
  if (getGrid().empty() || getGrid().size() > 3)
    return emitOpError("grid must have 1 to 3 dimensions, got ")
           << getGrid().size();
  if (getThreadsAttr().getInt() < 1)
    return emitOpError("threads must be positive, got ")
           << getThreadsAttr().getInt();
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  if (getBodyBlock().getNumArguments() != getGrid().size())
    return emitOpError("has ")
           << getBodyBlock().getNumArguments() << " block indices for a "
           << getGrid().size() << "-dimensional grid";
  for (BlockArgument arg : getBlockIndices())
    if (!arg.getType().isIndex())
      return emitOpError("block indices must be of type index");
  return success();
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() { return requireInKernel(*this); }

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  if (failed(requireInKernel(*this)))
    return failure();
  auto srcTensor = dyn_cast<GlobalTensorType>(getSrc().getType());
  auto dstTensor = dyn_cast<GlobalTensorType>(getDst().getType());
  if (srcTensor && dstTensor)
    return emitOpError("cannot copy from a global tensor to a global tensor; "
                       "stage the data through a tile");
  auto checkOffsets = [&](StringRef side, GlobalTensorType tensor,
                          ValueRange offsets) -> LogicalResult {
    if (!tensor) {
      if (!offsets.empty())
        return emitOpError() << side << " is a tile and takes no offsets";
      return success();
    }
    if ((int64_t)offsets.size() != tensor.getRank())
      return emitOpError() << side << " tensor of rank " << tensor.getRank()
                           << " needs " << tensor.getRank() << " offsets, got "
                           << offsets.size();
    return success();
  };
  if (failed(checkOffsets("source", srcTensor, getSrcOffsets())) ||
      failed(checkOffsets("destination", dstTensor, getDstOffsets())))
    return failure();

  auto srcTile = dyn_cast<TileType>(getSrc().getType());
  auto dstTile = dyn_cast<TileType>(getDst().getType());
  if (srcTile && dstTile) {
    if (srcTile.getRank() != dstTile.getRank())
      return emitOpError("source tile has rank ")
             << srcTile.getRank() << " but destination tile has rank "
             << dstTile.getRank();
    if (getTranspose() && srcTile.getRank() != 2)
      return emitOpError("transpose needs rank-2 tiles, got rank ")
             << srcTile.getRank();
    SmallVector<int64_t> want(srcTile.getShape());
    if (getTranspose())
      std::swap(want[0], want[1]);
    if (ArrayRef<int64_t>(want) != dstTile.getShape())
      return emitOpError("destination tile shape does not match the source")
             << (getTranspose() ? " transposed" : "");
    return success();
  }

  // One side is a global tensor of rank R, the other a tile of rank r <= R
  // covering the tensor's last r dimensions; the leading R - r offsets pick
  // single elements (rank-reducing copy, e.g. one [S, D] slice of Q[B, H, S,
  // D]).
  GlobalTensorType tensor = srcTensor ? srcTensor : dstTensor;
  TileType tile = srcTensor ? dstTile : srcTile;
  int64_t rank = tile.getRank(), tensorRank = tensor.getRank();
  if (rank > tensorRank)
    return emitOpError("tile of rank ")
           << rank << " does not fit in a tensor of rank " << tensorRank;
  if (getTranspose() && rank != 2)
    return emitOpError("transpose needs a rank-2 tile, got rank ") << rank;
  // Static tensor dimensions: the tile must not be larger (partial tiles at
  // symbolic edges are masked, a static mismatch is a bug).
  SmallVector<int64_t> tileShape(tile.getShape());
  if (getTranspose())
    std::swap(tileShape[0], tileShape[1]);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = tensorRank - rank + i;
    if (!tensor.isDynamicDim(dim) && tileShape[i] > tensor.getShape()[dim])
      return emitOpError("tile dimension ")
             << i << " (" << tileShape[i] << ") is larger than the tensor's "
             << "static size " << tensor.getShape()[dim] << " (dimension "
             << dim << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::verify() {
  if (failed(requireInKernel(*this)))
    return failure();
  auto a = cast<TileType>(getA().getType());
  auto b = cast<TileType>(getB().getType());
  auto c = cast<TileType>(getC().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be rank-2 tiles");
  if (a.isLocal() || b.isLocal())
    return emitOpError("A and B must be shared or fragment tiles");
  if (!c.isFragment())
    return emitOpError("accumulator C must be a fragment tile, got ")
           << stringifyMemorySpace(c.getMemorySpace());
  int64_t m = getTransposeA() ? a.getShape()[1] : a.getShape()[0];
  int64_t ka = getTransposeA() ? a.getShape()[0] : a.getShape()[1];
  int64_t kb = getTransposeB() ? b.getShape()[1] : b.getShape()[0];
  int64_t n = getTransposeB() ? b.getShape()[0] : b.getShape()[1];
  if (ka != kb)
    return emitOpError("reduction dimension mismatch: A has K = ")
           << ka << " but B has K = " << kb;
  if (c.getShape()[0] != m || c.getShape()[1] != n)
    return emitOpError("accumulator shape ")
           << c.getShape()[0] << "x" << c.getShape()[1]
           << " does not match the product shape " << m << "x" << n;
  if (!isSupportedGemmTypes(a.getElementType(), b.getElementType(),
                            c.getElementType()))
    return emitOpError("unsupported dtype combination: ")
           << a.getElementType() << " x " << b.getElementType() << " -> "
           << c.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp / ClearOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  if (failed(requireInKernel(*this)))
    return failure();
  Type elem = cast<TileType>(getDst().getType()).getElementType();
  if (getValue().getType() != elem)
    return emitOpError("fill value of type ")
           << getValue().getType() << " does not match the tile element type "
           << elem;
  return success();
}

LogicalResult ClearOp::verify() { return requireInKernel(*this); }

//===----------------------------------------------------------------------===//
// ParallelOp: tile.parallel (%i, %j) in [128, 64] { ... }
//===----------------------------------------------------------------------===//

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in"))
    return failure();
  SMLoc shapeLoc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  auto parseSize = [&]() -> ParseResult {
    int64_t size;
    if (parser.parseInteger(size))
      return failure();
    shape.push_back(size);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseSize))
    return failure();
  if (shape.size() != ivs.size())
    return parser.emitError(shapeLoc, "expected ")
           << ivs.size() << " sizes for " << ivs.size()
           << " induction variables, got " << shape.size();
  result.addAttribute(getShapeAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(shape));
  for (auto &iv : ivs)
    iv.type = parser.getBuilder().getIndexType();
  Region *body = result.addRegion();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseRegion(*body, ivs))
    return failure();
  ParallelOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument a) { p.printOperand(a); });
  p << ") in [";
  llvm::interleaveComma(getShape(), p);
  p << "]";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"shape"});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult ParallelOp::verify() {
  if (failed(requireInKernel(*this)))
    return failure();
  if (getShape().empty() || getShape().size() > 3)
    return emitOpError("index space must have 1 to 3 dimensions");
  for (int64_t d : getShape())
    if (d <= 0)
      return emitOpError("index space sizes must be positive, got ") << d;
  return success();
}

LogicalResult ParallelOp::verifyRegions() {
  if (getBodyBlock().getNumArguments() != getShape().size())
    return emitOpError("has ")
           << getBodyBlock().getNumArguments() << " induction variables for "
           << getShape().size() << " dimensions";
  for (BlockArgument iv : getInductionVars())
    if (!iv.getType().isIndex())
      return emitOpError("induction variables must be of type index");
  for (Operation &op : getBodyBlock())
    if (isa<CopyOp, GemmOp, ReduceOp, AllocOp, AtomicOp, PipelinedOp,
            ParallelOp>(op))
      return op.emitOpError("is not allowed inside 'tile.parallel', which "
                            "holds element-wise code only");
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

template <typename OpT> static LogicalResult verifyElementAccess(OpT op) {
  if (failed(requireInKernel(op)))
    return failure();
  auto tile = cast<TileType>(op.getTile().getType());
  if ((int64_t)op.getIndices().size() != tile.getRank())
    return op.emitOpError("tile of rank ")
           << tile.getRank() << " needs " << tile.getRank() << " indices, got "
           << op.getIndices().size();
  return success();
}

LogicalResult LoadOp::verify() { return verifyElementAccess(*this); }
LogicalResult StoreOp::verify() { return verifyElementAccess(*this); }

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  if (failed(requireInKernel(*this)))
    return failure();
  auto src = cast<TileType>(getSrc().getType());
  auto dst = cast<TileType>(getDst().getType());
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= src.getRank())
    return emitOpError("reduction dimension ")
           << dim << " does not exist in a source tile of rank "
           << src.getRank();
  if (src.getRank() < 2)
    return emitOpError("source must have rank 2 or more; reduce a rank-1 "
                       "tile by reshaping it to 1xN");
  SmallVector<int64_t> want(src.getShape());
  want.erase(want.begin() + dim);
  if (ArrayRef<int64_t>(want) != dst.getShape())
    return emitOpError("destination shape must be the source shape without "
                       "dimension ")
           << dim;
  if (src.getElementType() != dst.getElementType())
    return emitOpError("source and destination element types differ: ")
           << src.getElementType() << " vs " << dst.getElementType();
  if (src.isShared() || dst.isShared())
    return emitOpError("reduces fragment or local tiles; copy shared tiles "
                       "into a fragment first");
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicOp
//===----------------------------------------------------------------------===//

LogicalResult AtomicOp::verify() {
  if (failed(requireInKernel(*this)))
    return failure();
  auto src = cast<TileType>(getSrc().getType());
  auto dst = getDst().getType();
  // Like tile.copy, a tile of rank r covers the tensor's last r dimensions.
  if (src.getRank() > dst.getRank())
    return emitOpError("tile of rank ")
           << src.getRank() << " does not fit in a tensor of rank "
           << dst.getRank();
  if ((int64_t)getOffsets().size() != dst.getRank())
    return emitOpError("tensor of rank ")
           << dst.getRank() << " needs " << dst.getRank() << " offsets, got "
           << getOffsets().size();
  for (int64_t i = 0, r = src.getRank(); i < r; ++i) {
    int64_t dim = dst.getRank() - r + i;
    if (!dst.isDynamicDim(dim) && src.getShape()[i] > dst.getShape()[dim])
      return emitOpError("tile dimension ")
             << i << " (" << src.getShape()[i] << ") is larger than the "
             << "tensor's static size " << dst.getShape()[dim] << " (dimension "
             << dim << ")";
  }
  if (src.getElementType() != dst.getElementType())
    return emitOpError("tile element type ")
           << src.getElementType() << " does not match tensor element type "
           << dst.getElementType();
  Type elem = dst.getElementType();
  if (!elem.isF32() && !elem.isF16() && !elem.isBF16() && !elem.isInteger(32) &&
      !elem.isF64())
    return emitOpError("atomics support f16, bf16, f32, f64 and i32, got ")
           << elem;
  return success();
}

//===----------------------------------------------------------------------===//
// PipelinedOp: tile.pipelined %k = %lb to %ub step %s stages = 3 { ... }
//===----------------------------------------------------------------------===//

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub, step;
  Type indexType = parser.getBuilder().getIndexType();
  int64_t stages;
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("stages") ||
      parser.parseEqual() || parser.parseInteger(stages) ||
      parser.resolveOperand(lb, indexType, result.operands) ||
      parser.resolveOperand(ub, indexType, result.operands) ||
      parser.resolveOperand(step, indexType, result.operands))
    return failure();
  result.addAttribute(getNumStagesAttrName(result.name),
                      parser.getBuilder().getI64IntegerAttr(stages));
  iv.type = indexType;
  Region *body = result.addRegion();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseRegion(*body, {iv}))
    return failure();
  PipelinedOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getInductionVar());
  p << " = " << getLowerBound() << " to " << getUpperBound() << " step "
    << getStep() << " stages = " << getNumStagesAttr().getInt();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"num_stages"});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult PipelinedOp::verify() {
  if (failed(requireInKernel(*this)))
    return failure();
  if (getNumStagesAttr().getInt() < 1)
    return emitOpError("num_stages must be at least 1, got ")
           << getNumStagesAttr().getInt();
  return success();
}

LogicalResult PipelinedOp::verifyRegions() {
  if (getBodyBlock().getNumArguments() != 1 ||
      !getInductionVar().getType().isIndex())
    return emitOpError("body must have a single index induction variable");
  return success();
}

#define GET_OP_CLASSES
#include "tessera/Dialect/Tile/TileOps.cpp.inc"
