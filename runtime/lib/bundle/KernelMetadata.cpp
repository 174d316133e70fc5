//===- KernelMetadata.cpp - parse and print `tessera.kernels` -------------===//

#include "tessera/bundle/KernelMetadata.h"
#include "tessera/bundle/GridExpr.h"

#include "tessera/Toml.h"

#include <cctype>
#include <sstream>

namespace tessera::bundle {
namespace {

bool isIdentifier(std::string_view s) {
  if (s.empty() ||
      !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return false;
  return true;
}

bool isDecimal(std::string_view s) {
  if (s.empty() || s.size() > 18)
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

/// Reads one [[kernel]] table; messages name the kernel and the line.
class KernelReader {
public:
  KernelReader(const std::string &source, std::string &error)
      : source(source), error(error) {}

  bool read(const toml::table &table, unsigned index, KernelInfo &kernel);

private:
  bool fail(const toml::node &at, const std::string &what) {
    error = source + ":" + std::to_string(at.source().begin.line) + ": " +
            context + what;
    return false;
  }
  bool requireString(const toml::table &table, const char *key,
                     std::string &out);
  bool readUInt32(const toml::table &table, const char *key, uint32_t &out,
                  bool required, uint32_t min);
  bool readArg(const toml::table &table, unsigned index, KernelArg &arg);

  const std::string &source;
  std::string &error;
  std::string context;
};

bool KernelReader::requireString(const toml::table &table, const char *key,
                                 std::string &out) {
  const toml::node *node = table.get(key);
  if (!node)
    return fail(table, std::string("missing key '") + key + "'");
  if (!node->is_string())
    return fail(*node, std::string("key '") + key + "' must be a string");
  out = node->as_string()->get();
  return true;
}

bool KernelReader::readUInt32(const toml::table &table, const char *key,
                              uint32_t &out, bool required, uint32_t min) {
  const toml::node *node = table.get(key);
  if (!node) {
    if (required)
      return fail(table, std::string("missing key '") + key + "'");
    return true;
  }
  if (!node->is_integer())
    return fail(*node, std::string("key '") + key + "' must be an integer");
  int64_t value = node->as_integer()->get();
  if (value < min || value > UINT32_MAX)
    return fail(*node, std::string("key '") + key + "' is " +
                           std::to_string(value) + ", outside [" +
                           std::to_string(min) + ", 4294967295]");
  out = static_cast<uint32_t>(value);
  return true;
}

bool KernelReader::readArg(const toml::table &table, unsigned index,
                           KernelArg &arg) {
  std::string saved = context;
  context += "argument " + std::to_string(index) + ": ";
  if (!requireString(table, "name", arg.name))
    return false;
  context = saved + "argument '" + arg.name + "': ";
  std::string kind, dtype;
  if (!requireString(table, "kind", kind) ||
      !requireString(table, "dtype", dtype))
    return false;
  if (kind == "tensor")
    arg.kind = ArgKind::Tensor;
  else if (kind == "scalar")
    arg.kind = ArgKind::Scalar;
  else
    return fail(*table.get("kind"),
                "kind is '" + kind + "'; expected 'tensor' or 'scalar'");
  auto type = parseDType(dtype);
  if (!type)
    return fail(*table.get("dtype"), "unknown dtype '" + dtype + "'");
  arg.dtype = *type;

  const toml::node *dims = table.get("dims");
  if (arg.kind == ArgKind::Scalar) {
    if (dims && !(dims->is_array() && dims->as_array()->empty()))
      return fail(*dims, "a scalar has no dims");
    context = saved;
    return true;
  }
  if (!dims)
    return fail(table, "missing key 'dims'");
  if (!dims->is_array())
    return fail(*dims, "key 'dims' must be an array");
  const toml::array &list = *dims->as_array();
  if (list.size() > kMaxRank)
    return fail(*dims, "rank " + std::to_string(list.size()) +
                           " exceeds the maximum of " +
                           std::to_string(kMaxRank));
  for (const toml::node &dim : list) {
    std::string text;
    if (dim.is_integer() && dim.as_integer()->get() >= 0)
      text = std::to_string(dim.as_integer()->get());
    else if (dim.is_string())
      text = dim.as_string()->get();
    else
      return fail(dim, "each dim must be a symbol, \"?\" or an integer");
    if (text != "?" && !isIdentifier(text) && !isDecimal(text))
      return fail(dim, "dim '" + text +
                           "' is not a symbol, \"?\" or a decimal integer");
    arg.dims.push_back(std::move(text));
  }
  context = saved;
  return true;
}

bool KernelReader::read(const toml::table &table, unsigned index,
                        KernelInfo &kernel) {
  context = "kernel " + std::to_string(index) + ": ";
  if (!requireString(table, "name", kernel.name))
    return false;
  context = "kernel '" + kernel.name + "': ";
  if (!requireString(table, "symbol", kernel.symbol) ||
      !readUInt32(table, "threads", kernel.threads, true, 1) ||
      !readUInt32(table, "shared_bytes", kernel.sharedBytes, false, 0))
    return false;

  const toml::node *grid = table.get("grid");
  if (!grid)
    return fail(table, "missing key 'grid'");
  if (!grid->is_array() || grid->as_array()->empty() ||
      grid->as_array()->size() > 3)
    return fail(*grid, "key 'grid' must be an array of 1 to 3 formulas");
  unsigned axis = 0;
  for (const toml::node &formula : *grid->as_array()) {
    std::string text;
    if (formula.is_integer())
      text = std::to_string(formula.as_integer()->get());
    else if (formula.is_string())
      text = formula.as_string()->get();
    else
      return fail(formula, "each grid formula must be a string");
    std::string why;
    if (!checkGridExprSyntax(text, why))
      return fail(formula, why);
    kernel.grid[axis++] = std::move(text);
  }

  if (const toml::node *args = table.get("arg")) {
    if (!args->is_array_of_tables())
      return fail(*args, "'arg' must be an array of tables ([[kernel.arg]])");
    unsigned argIndex = 0;
    for (const toml::node &arg : *args->as_array()) {
      KernelArg parsed;
      if (!readArg(*arg.as_table(), argIndex++, parsed))
        return false;
      kernel.args.push_back(std::move(parsed));
    }
  }
  std::string why;
  if (!validateKernel(kernel, why))
    return fail(table, why);
  return true;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

} // namespace

bool validateKernel(const KernelInfo &kernel, std::string &error) {
  if (kernel.name.empty())
    return error = "kernel has an empty name", false;
  if (kernel.symbol.empty())
    return error = "kernel has an empty symbol", false;
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const KernelArg &arg = kernel.args[i];
    for (size_t j = 0; j < i; ++j)
      if (kernel.args[j].name == arg.name)
        return error = "argument name '" + arg.name + "' is used twice", false;
    if (arg.dims.size() > kMaxRank)
      return error = "argument '" + arg.name + "' has rank above " +
                     std::to_string(kMaxRank),
             false;
  }
  for (const std::string &formula : kernel.grid)
    if (!checkGridExprSyntax(formula, error))
      return false;
  return true;
}

bool parseKernelMetadata(std::string_view text, const std::string &source,
                         std::vector<KernelInfo> &kernels, std::string &error) {
  kernels.clear();
  toml::parse_result result = toml::parse(text, source);
  if (!result) {
    const toml::parse_error &err = result.error();
    error = source + ":" + std::to_string(err.source().begin.line) + ": " +
            std::string(err.description());
    return false;
  }
  const toml::table &root = result.table();
  const toml::node *list = root.get("kernel");
  if (!list)
    return true; // an image without kernels is valid, if useless
  if (!list->is_array_of_tables()) {
    error = source + ":" + std::to_string(list->source().begin.line) +
            ": 'kernel' must be an array of tables ([[kernel]])";
    return false;
  }
  unsigned index = 0;
  for (const toml::node &node : *list->as_array()) {
    KernelInfo kernel;
    if (!KernelReader(source, error).read(*node.as_table(), index++, kernel))
      return false;
    for (const KernelInfo &other : kernels)
      if (other.name == kernel.name) {
        error = source + ": kernel '" + kernel.name + "' is defined twice";
        return false;
      }
    kernels.push_back(std::move(kernel));
  }
  return true;
}

std::string printKernelMetadata(const std::vector<KernelInfo> &kernels) {
  std::ostringstream out;
  for (const KernelInfo &kernel : kernels) {
    out << "[[kernel]]\n"
        << "name = " << quote(kernel.name) << "\n"
        << "symbol = " << quote(kernel.symbol) << "\n"
        << "threads = " << kernel.threads << "\n"
        << "shared_bytes = " << kernel.sharedBytes << "\n"
        << "grid = [" << quote(kernel.grid[0]) << ", " << quote(kernel.grid[1])
        << ", " << quote(kernel.grid[2]) << "]\n";
    for (const KernelArg &arg : kernel.args) {
      out << "[[kernel.arg]]\n"
          << "name = " << quote(arg.name) << "\n"
          << "kind = \"" << (arg.kind == ArgKind::Tensor ? "tensor" : "scalar")
          << "\"\n"
          << "dtype = \"" << dtypeName(arg.dtype) << "\"\n";
      if (arg.kind == ArgKind::Tensor) {
        out << "dims = [";
        for (size_t i = 0; i < arg.dims.size(); ++i)
          out << (i ? ", " : "") << quote(arg.dims[i]);
        out << "]\n";
      }
    }
    out << "\n";
  }
  return out.str();
}

} // namespace tessera::bundle
