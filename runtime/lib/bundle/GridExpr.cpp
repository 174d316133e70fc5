//===- GridExpr.cpp - evaluate grid size formulas -------------------------===//
//
// A recursive-descent evaluator. Formulas come from files, so every step is
// checked: overflow, division by zero, unknown names, trailing junk, and a
// nesting limit that keeps hostile input from exhausting the stack.
//
//===----------------------------------------------------------------------===//

#include "tessera/bundle/GridExpr.h"

#include <cctype>

namespace tessera::bundle {
namespace {

constexpr int kMaxDepth = 64;

class Evaluator {
public:
  Evaluator(std::string_view text, const GridEnv *env) : text(text), env(env) {}

  bool run(int64_t &value, std::string &error) {
    bool ok = expr(value);
    skipSpace();
    if (ok && pos != text.size())
      ok = failAt("unexpected trailing text");
    if (!ok)
      error = message;
    return ok;
  }

private:
  bool fail(const std::string &what) {
    if (message.empty())
      message = what + " in grid formula '" + std::string(text) + "'";
    return false;
  }
  bool failAt(const std::string &what) {
    return fail(what + " at column " + std::to_string(pos + 1));
  }
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool expect(char c) {
    return consume(c) || failAt(std::string("expected '") + c + "'");
  }

  bool expr(int64_t &value) {
    if (!term(value))
      return false;
    for (;;) {
      if (consume('+')) {
        int64_t rhs;
        if (!term(rhs))
          return false;
        if (__builtin_add_overflow(value, rhs, &value))
          return fail("overflow");
      } else if (consume('-')) {
        int64_t rhs;
        if (!term(rhs))
          return false;
        if (__builtin_sub_overflow(value, rhs, &value))
          return fail("overflow");
      } else {
        return true;
      }
    }
  }

  bool term(int64_t &value) {
    if (!unary(value))
      return false;
    for (;;) {
      char op;
      if (consume('*'))
        op = '*';
      else if (consume('/'))
        op = '/';
      else if (consume('%'))
        op = '%';
      else
        return true;
      int64_t rhs;
      if (!unary(rhs))
        return false;
      if (op == '*') {
        if (__builtin_mul_overflow(value, rhs, &value))
          return fail("overflow");
      } else if (!divide(value, rhs, op == '%' ? Mod : Floor, value)) {
        return false;
      }
    }
  }

  enum DivKind { Floor, Ceil, Mod };
  bool divide(int64_t a, int64_t b, DivKind kind, int64_t &out) {
    if (!env) // checking syntax only: symbols are placeholders
      return out = 1, true;
    if (b == 0)
      return fail("division by zero");
    if (b == -1 && a == INT64_MIN)
      return fail("overflow");
    int64_t q = a / b, r = a % b;
    bool inexact = r != 0;
    bool negative = (a < 0) != (b < 0);
    if (kind == Mod) {
      // Floor modulo, consistent with floor division: the sign follows b.
      out = inexact && negative ? r + b : r;
      return true;
    }
    if (kind == Floor && inexact && negative)
      --q;
    if (kind == Ceil && inexact && !negative)
      ++q;
    out = q;
    return true;
  }

  bool integer(int64_t &value) {
    skipSpace();
    size_t start = pos;
    value = 0;
    while (pos < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text[pos] - '0', &value))
        return fail("integer too large");
      ++pos;
    }
    return pos != start || failAt("expected an integer");
  }

  bool call2(int64_t &a, int64_t &b) {
    if (!expect('(') || !expr(a) || !expect(',') || !expr(b) || !expect(')'))
      return false;
    return true;
  }

  bool unary(int64_t &value) {
    if (++depth > kMaxDepth)
      return fail("nesting too deep");
    bool ok = consume('-') ? unary(value) && negate(value) : atom(value);
    --depth;
    return ok;
  }
  bool negate(int64_t &value) {
    if (value == INT64_MIN)
      return fail("overflow");
    value = -value;
    return true;
  }

  bool atom(int64_t &value) {
    skipSpace();
    if (pos >= text.size())
      return failAt("unexpected end");
    char c = text[pos];
    if (std::isdigit(static_cast<unsigned char>(c)))
      return integer(value);
    if (c == '(') {
      ++pos;
      return expr(value) && expect(')');
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
      return failAt(std::string("unexpected '") + c + "'");
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '_'))
      ++pos;
    std::string_view name = text.substr(start, pos - start);
    skipSpace();
    bool isCall = pos < text.size() && text[pos] == '(';
    if (isCall) {
      int64_t a, b;
      if (name == "ceildiv") {
        if (!call2(a, b))
          return false;
        return divide(a, b, Ceil, value);
      }
      if (name == "min" || name == "max") {
        if (!call2(a, b))
          return false;
        value = name == "min" ? (a < b ? a : b) : (a > b ? a : b);
        return true;
      }
      if (name == "dim") {
        if (!expect('(') || !integer(a) || !expect(',') || !integer(b) ||
            !expect(')'))
          return false;
        if (!env)
          return value = 1, true;
        if (!env->dim || !env->dim(a, b, value))
          return fail("dim(" + std::to_string(a) + ", " + std::to_string(b) +
                      ") names no tensor dimension");
        return true;
      }
      return fail("unknown function '" + std::string(name) + "'");
    }
    if (!env)
      return value = 1, true;
    auto it = env->symbols.find(name);
    if (it == env->symbols.end())
      return fail("unknown symbol '" + std::string(name) + "'");
    value = it->second;
    return true;
  }

  std::string_view text;
  const GridEnv *env; // null: check syntax only
  size_t pos = 0;
  int depth = 0;
  std::string message;
};

} // namespace

bool evaluateGridExpr(std::string_view expr, const GridEnv &env, int64_t &value,
                      std::string &error) {
  return Evaluator(expr, &env).run(value, error);
}

bool checkGridExprSyntax(std::string_view expr, std::string &error) {
  int64_t ignored;
  return Evaluator(expr, nullptr).run(ignored, error);
}

} // namespace tessera::bundle
