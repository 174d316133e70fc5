//===- GridExprTest.cpp - grid formula evaluation -------------------------===//

#include "tessera/bundle/GridExpr.h"

#include <gtest/gtest.h>

using namespace tessera::bundle;

namespace {

int64_t eval(const char *expr, const GridEnv &env = {}) {
  int64_t value = -12345;
  std::string error;
  EXPECT_TRUE(evaluateGridExpr(expr, env, value, error))
      << expr << ": " << error;
  return value;
}

std::string evalError(const char *expr, const GridEnv &env = {}) {
  int64_t value;
  std::string error;
  EXPECT_FALSE(evaluateGridExpr(expr, env, value, error)) << expr;
  return error;
}

TEST(GridExpr, Arithmetic) {
  EXPECT_EQ(eval("1"), 1);
  EXPECT_EQ(eval(" 2 + 3 * 4 "), 14);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(eval("7 / 2"), 3);
  EXPECT_EQ(eval("-7 / 2"), -4); // floor division
  EXPECT_EQ(eval("-7 % 3"), 2);
  EXPECT_EQ(eval("7 % -3"), -2);
  EXPECT_EQ(eval("ceildiv(1000, 128)"), 8);
  EXPECT_EQ(eval("ceildiv(1024, 128)"), 8);
  EXPECT_EQ(eval("ceildiv(-5, 2)"), -2);
  EXPECT_EQ(eval("min(3, max(1, 2))"), 2);
  EXPECT_EQ(eval("--3"), 3);
}

TEST(GridExpr, SymbolsAndDims) {
  GridEnv env;
  env.symbols = {{"M", 1000}, {"N_2", 7}};
  env.dim = [](int64_t arg, int64_t dim, int64_t &value) {
    if (arg != 1 || dim > 1)
      return false;
    value = 10 * arg + dim + 1;
    return true;
  };
  EXPECT_EQ(eval("ceildiv(M, 128) * N_2", env), 56);
  EXPECT_EQ(eval("dim(1, 1) + dim(1,0)", env), 23);
  EXPECT_NE(evalError("dim(0, 0)", env).find("names no tensor dimension"),
            std::string::npos);
  EXPECT_EQ(evalError("ceildiv(K, 4)", env),
            "unknown symbol 'K' in grid formula 'ceildiv(K, 4)'");
}

TEST(GridExpr, Errors) {
  EXPECT_NE(evalError("1 / 0").find("division by zero"), std::string::npos);
  EXPECT_NE(evalError("ceildiv(1, 0)").find("division by zero"),
            std::string::npos);
  EXPECT_NE(evalError("9223372036854775807 + 1").find("overflow"),
            std::string::npos);
  EXPECT_NE(evalError("99999999999999999999").find("too large"),
            std::string::npos);
  EXPECT_NE(evalError("3037000500 * 3037000500").find("overflow"),
            std::string::npos);
  EXPECT_NE(evalError("1 2").find("trailing"), std::string::npos);
  EXPECT_NE(evalError("").find("unexpected end"), std::string::npos);
  EXPECT_NE(evalError("(1").find("expected ')'"), std::string::npos);
  EXPECT_NE(evalError("pow(2, 3)").find("unknown function"), std::string::npos);
  EXPECT_NE(evalError("1 + $").find("unexpected '$'"), std::string::npos);
  EXPECT_NE(evalError(std::string(10000, '(').c_str()).find("too deep"),
            std::string::npos);
  EXPECT_NE(
      evalError(std::string(10000, '-').append("1").c_str()).find("too deep"),
      std::string::npos);
}

TEST(GridExpr, SyntaxCheckIgnoresValues) {
  std::string error;
  EXPECT_TRUE(checkGridExprSyntax("ceildiv(N, 128) / (N - 1)", error)) << error;
  EXPECT_FALSE(checkGridExprSyntax("ceildiv(N)", error));
}

} // namespace
