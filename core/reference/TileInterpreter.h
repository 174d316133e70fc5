//===- TileInterpreter.h - a reference executor for tile kernels -*- C++
//-*-===//
//
// Runs a tile.func on the host in double precision, op by op, following the
// dialect's documented semantics rather than any backend's lowering: it is
// the independent reference `tessera run` checks host runs against. Values
// are rounded to their element type wherever the program stores into a
// narrower type (f16, bf16, f32 tiles and tensors, truncf), so a correct
// kernel differs from it only by summation order.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CORE_REFERENCE_TILEINTERPRETER_H
#define TESSERA_CORE_REFERENCE_TILEINTERPRETER_H

#include "tessera/Dialect/Tile/TileOps.h"

#include <string>
#include <vector>

namespace tessera::reference {

/// One kernel argument: a dense row-major tensor (values widened to double)
/// or a scalar.
struct Arg {
  bool isTensor = false;
  std::vector<int64_t> dims;
  std::vector<double> data; // tensors
  double scalar = 0;        // scalars (integers too)
};

/// Runs every block of `func`'s kernel on `args`, updating tensors in place.
/// Returns false with `error` for an op the interpreter does not know or a
/// malformed argument list.
bool interpret(tile::FuncOp func, std::vector<Arg> &args, std::string &error);

} // namespace tessera::reference

#endif
