//===- TileDialect.cpp - the tile dialect ---------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Dialect/Tile/TileOps.h"

#include "mlir/IR/Builders.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cctype>

using namespace mlir;
using namespace tessera::tile;

#include "tessera/Dialect/Tile/TileDialect.cpp.inc"
#include "tessera/Dialect/Tile/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Tile/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/Dialect/Tile/TileAttrs.cpp.inc"
      >();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Tile/TileOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

static int64_t basisRank(ArrayAttr list) {
  for (Attribute basis : list)
    if (auto vec = dyn_cast<ArrayAttr>(basis))
      return vec.size();
  return -1;
}

int64_t LayoutAttr::getRank() const {
  for (ArrayAttr list : {getReg(), getLane(), getWarp(), getBlock()})
    if (int64_t r = basisRank(list); r >= 0)
      return r;
  return 0;
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayAttr reg, ArrayAttr lane, ArrayAttr warp,
                                 ArrayAttr block) {
  int64_t rank = -1;
  const std::pair<StringRef, ArrayAttr> lists[] = {
      {"reg", reg}, {"lane", lane}, {"warp", warp}, {"block", block}};
  for (auto [name, list] : lists) {
    for (Attribute basis : list) {
      auto vec = dyn_cast<ArrayAttr>(basis);
      if (!vec)
        return emitError() << "layout '" << name
                           << "' basis must be a list of integers, got "
                           << basis;
      if (rank >= 0 && (int64_t)vec.size() != rank)
        return emitError() << "layout '" << name << "' basis " << basis
                           << " has " << vec.size() << " coordinates, expected "
                           << rank;
      rank = vec.size();
      for (Attribute c : vec) {
        // Bit width and sign first: getInt() is only meaningful for values
        // that fit in 64 bits.
        auto i = dyn_cast<IntegerAttr>(c);
        if (!i || i.getValue().isNegative() ||
            i.getValue().getActiveBits() > 62)
          return emitError() << "layout '" << name << "' basis " << basis
                             << " must hold non-negative integers";
      }
    }
  }
  return success();
}

/// Skips what MLIR's lexer skips from `i`: whitespace, NUL bytes inside the
/// buffer and `//` comments, which end at '\n' or '\r'.
static size_t skipLexerTrivia(llvm::StringRef text, size_t i) {
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == '\0') {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      size_t eol = text.find_first_of("\n\r", i);
      i = eol == llvm::StringRef::npos ? text.size() : eol + 1;
    } else {
      break;
    }
  }
  return i;
}

std::optional<size_t> tessera::tile::findDeepNesting(llvm::StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '"') {
      // A string literal: up to the closing quote, past escaped characters.
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (ch == '/' && text.substr(i).starts_with("//")) {
      size_t eol = text.find_first_of("\n\r", i);
      i = eol == llvm::StringRef::npos ? text.size() : eol;
    } else if (ch == '(' || ch == '[' || ch == '{' || ch == '<') {
      if (++depth > kMaxBracketDepth)
        return i;
    } else if ((ch == ')' || ch == ']' || ch == '}' ||
                (ch == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::optional<size_t> tessera::tile::findDenseIndexArray(llvm::StringRef text) {
  for (size_t at = text.find("array"); at != llvm::StringRef::npos;
       at = text.find("array", at + 1)) {
    size_t i = skipLexerTrivia(text, at + 5);
    if (i >= text.size() || text[i] != '<')
      continue;
    i = skipLexerTrivia(text, i + 1);
    if (text.substr(i).starts_with("index"))
      return at;
  }
  return std::nullopt;
}
