//===- TileAsyncOps.cpp - verifiers of the pass-produced tile ops ---------===//

#include "tessera/Dialect/Tile/TileOps.h"

using namespace mlir;
using namespace tessera::tile;

LogicalResult ConvertLayoutOp::verify() {
  auto s = getSrc().getType(), d = getDst().getType();
  if (!s.isFragment() || !d.isFragment())
    return emitOpError("converts between 'fragment' tiles");
  if (s.getShape() != d.getShape() || s.getElementType() != d.getElementType())
    return emitOpError(
        "source and destination differ in shape or element type");
  return success();
}

LogicalResult StageViewOp::verify() {
  auto b = getBuffer().getType(), r = getResult().getType();
  if (!b.isShared() || !r.isShared())
    return emitOpError("views a 'shared' tile as a 'shared' tile");
  if (b.getRank() != r.getRank() + 1 ||
      b.getShape().drop_front() != r.getShape() ||
      b.getElementType() != r.getElementType())
    return emitOpError("result must be the buffer's shape without its leading "
                       "stage dimension, with the same element type");
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  auto t = getSrc().getType();
  auto d = getDst().getType();
  if (!d.isShared())
    return emitOpError("destination must be a 'shared' tile");
  if ((int64_t)getSrcOffsets().size() != t.getRank())
    return emitOpError("expects one offset per tensor dimension");
  if (d.getRank() > t.getRank())
    return emitOpError("tile rank exceeds tensor rank");
  return success();
}

LogicalResult WaitGroupOp::verify() {
  if (getPending() < 0)
    return emitOpError("pending must be non-negative");
  if (!getStage().empty() && getStage().size() != 2)
    return emitOpError("stage takes a slot and a phase, got ")
           << getStage().size() << " values";
  return success();
}
