//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
#ifndef TESSERA_DIALECT_TILE_TILEDIALECT_H
#define TESSERA_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include <optional>

namespace tessera::tile {
/// MLIR 22's parser crashes (a null dereference in parseDenseArrayAttr) on a
/// dense array of `index` elements, `array<index...>`. Returns the byte
/// offset of the first one in `text` (seen through whitespace, NUL bytes and
/// `//` comments as the lexer sees them), so callers can reject the text with
/// an error instead of handing it to the parser.
std::optional<size_t> findDenseIndexArray(llvm::StringRef text);

/// Brackets nested deeper than this are refused before parsing.
inline constexpr unsigned kMaxBracketDepth = 256;
/// MLIR's parser descends one call level per nested bracket (`[[[...`,
/// `(((...`, `<<<...`) and overflows the stack on deep enough text. Returns
/// the byte offset of the first bracket deeper than kMaxBracketDepth (seen
/// outside strings and `//` comments), so callers can reject the text with
/// an error first; real programs nest a handful deep.
std::optional<size_t> findDeepNesting(llvm::StringRef text);
} // namespace tessera::tile

#include "tessera/Dialect/Tile/TileEnums.h.inc"

#include "tessera/Dialect/Tile/TileDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Tile/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/Tile/TileTypes.h.inc"

#endif // TESSERA_DIALECT_TILE_TILEDIALECT_H
