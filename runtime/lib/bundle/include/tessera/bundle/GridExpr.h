//===- tessera/bundle/GridExpr.h - grid size formulas -----------*- C++ -*-===//
//
// Grid formulas from kernel metadata, e.g. "ceildiv(N, 128)". Grammar:
//   expr   := term (('+' | '-') term)*
//   term   := unary (('*' | '/' | '%') unary)*      '/' is floor division
//   unary  := '-' unary | atom
//   atom   := integer | symbol | '(' expr ')'
//           | ceildiv '(' expr ',' expr ')' | min(...) | max(...)
//           | dim '(' integer ',' integer ')'     dimension of an argument
// Everything is int64 with overflow checks; evaluation never crashes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_BUNDLE_GRIDEXPR_H
#define TESSERA_BUNDLE_GRIDEXPR_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace tessera::bundle {

/// A symbol the runtime binds to the device's compute units (SMs, CUs) at
/// each launch; persistent kernels launch min(tiles, __compute_units)
/// blocks. Tensor dimension symbols may not use the name.
inline constexpr const char *kComputeUnitsSymbol = "__compute_units";

struct GridEnv {
  /// Symbol values, e.g. {"M": 1000}.
  std::map<std::string, int64_t, std::less<>> symbols;
  /// dim(arg, d): returns false when the argument or dimension is absent.
  std::function<bool(int64_t arg, int64_t dim, int64_t &value)> dim;
};

/// Evaluates \p expr. Returns false and sets \p error ("unknown symbol 'K'
/// in grid formula 'ceildiv(K, 4)'") on any problem.
bool evaluateGridExpr(std::string_view expr, const GridEnv &env, int64_t &value,
                      std::string &error);

/// Checks that \p expr parses, without evaluating symbols.
bool checkGridExprSyntax(std::string_view expr, std::string &error);

} // namespace tessera::bundle

#endif // TESSERA_BUNDLE_GRIDEXPR_H
