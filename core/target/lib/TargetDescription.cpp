//===- TargetDescription.cpp - TargetDescription from TOML ----------------===//
#include "tessera/target/TargetDescription.h"
#include "tessera/layout/LayoutSpec.h"
#include "tessera/layout/NamedLayouts.h"

#include "tessera/Toml.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace tessera::target {

const char *toString(MmaKind k) {
  switch (k) {
  case MmaKind::MmaSync:
    return "mma.sync";
  case MmaKind::Wgmma:
    return "wgmma";
  case MmaKind::Mfma:
    return "mfma";
  case MmaKind::Wmma:
    return "wmma";
  case MmaKind::CoopMat:
    return "coopmat";
  case MmaKind::Fma:
    return "fma";
  }
  return "?";
}

std::optional<MmaKind> parseMmaKind(std::string_view s) {
  for (MmaKind k : {MmaKind::MmaSync, MmaKind::Wgmma, MmaKind::Mfma,
                    MmaKind::Wmma, MmaKind::CoopMat, MmaKind::Fma})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

const char *toString(AsyncCopyKind k) {
  switch (k) {
  case AsyncCopyKind::None:
    return "none";
  case AsyncCopyKind::CpAsync:
    return "cp.async";
  case AsyncCopyKind::Tma:
    return "tma";
  case AsyncCopyKind::LdsDma:
    return "lds_dma";
  case AsyncCopyKind::Registers:
    return "registers";
  }
  return "?";
}

std::optional<AsyncCopyKind> parseAsyncCopyKind(std::string_view s) {
  for (AsyncCopyKind k :
       {AsyncCopyKind::None, AsyncCopyKind::CpAsync, AsyncCopyKind::Tma,
        AsyncCopyKind::LdsDma, AsyncCopyKind::Registers})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

const std::vector<std::string> &knownDataTypes() {
  static const std::vector<std::string> types = {
      "f64",    "f32",    "tf32", "f16", "bf16",
      "f8e4m3", "f8e5m2", "i32",  "i8",  "i4"};
  return types;
}

std::vector<const MmaAtom *>
TargetDescription::findMmaAtoms(std::string_view ab, std::string_view c) const {
  std::vector<const MmaAtom *> r;
  for (auto &a : mmaAtoms)
    if (a.aType == ab && a.bType == ab && a.cType == c)
      r.push_back(&a);
  return r;
}

const MmaAtom *TargetDescription::findMmaAtom(std::string_view name) const {
  for (auto &a : mmaAtoms)
    if (a.name == name)
      return &a;
  return nullptr;
}

const std::vector<std::string> &shippedTargetFiles() {
  static const std::vector<std::string> files = {
      "backends/cuda/targets/sm_80.toml",
      "backends/cuda/targets/sm_90a.toml",
      "backends/hip/targets/gfx942.toml",
      "backends/hip/targets/gfx950.toml",
      "backends/hip/targets/gfx1100.toml",
      "backends/hip/targets/gfx1201.toml",
      "backends/spirv/targets/vulkan-generic.toml",
      "backends/spirv/targets/lavapipe.toml",
      "backends/spirv/targets/nvidia-vk.toml",
      "backends/spirv/targets/amd-vk.toml",
      "backends/cpu/targets/host.toml",
  };
  return files;
}

namespace {

struct TargetError {
  std::string message;
};

std::string typeName(const toml::node &n) {
  switch (n.type()) {
  case toml::node_type::string:
    return "string";
  case toml::node_type::integer:
    return "integer";
  case toml::node_type::floating_point:
    return "float";
  case toml::node_type::boolean:
    return "boolean";
  case toml::node_type::table:
    return "table";
  case toml::node_type::array:
    return "array";
  case toml::node_type::date:
    return "date";
  case toml::node_type::time:
    return "time";
  case toml::node_type::date_time:
    return "date-time";
  default:
    return "nothing";
  }
}

/// Reads one table, remembering which keys were consumed so that leftovers
/// are reported as unknown keys.
class TableReader {
public:
  TableReader(const toml::table &t, std::string prefix, const std::string &file)
      : t(t), prefix(std::move(prefix)), file(file) {}

  [[noreturn]] void fail(const std::string &msg) const {
    throw TargetError{file + ": " + msg};
  }
  std::string path(const std::string &key) const {
    return prefix.empty() ? key : prefix + "." + key;
  }

  const toml::node &need(const std::string &key) {
    used.insert(key);
    const toml::node *n = t.get(key);
    if (!n)
      fail("missing key '" + path(key) + "'");
    return *n;
  }
  bool has(const std::string &key) const { return t.contains(key); }

  std::string str(const std::string &key) {
    const toml::node &n = need(key);
    if (!n.is_string())
      fail("key '" + path(key) + "' must be a string, got " + typeName(n));
    return **n.as_string();
  }
  int64_t integer(const std::string &key, int64_t min = 1) {
    const toml::node &n = need(key);
    if (!n.is_integer())
      fail("key '" + path(key) + "' must be an integer, got " + typeName(n));
    int64_t v = **n.as_integer();
    if (v < min)
      fail("key '" + path(key) + "' must be >= " + std::to_string(min) +
           ", got " + std::to_string(v));
    return v;
  }
  int32_t int32(const std::string &key, int64_t min = 1) {
    int64_t v = integer(key, min);
    if (v > INT32_MAX)
      fail("key '" + path(key) + "' is too large: " + std::to_string(v));
    return int32_t(v);
  }
  int32_t pow2(const std::string &key) {
    int32_t v = int32(key);
    if (!layout::isPowerOf2(v))
      fail("key '" + path(key) + "' must be a power of two, got " +
           std::to_string(v));
    return v;
  }
  bool boolean(const std::string &key) {
    const toml::node &n = need(key);
    if (!n.is_boolean())
      fail("key '" + path(key) + "' must be a boolean, got " + typeName(n));
    return **n.as_boolean();
  }
  /// A number (integer or float), > 0.
  double number(const std::string &key) {
    const toml::node &n = need(key);
    double v;
    if (n.is_integer())
      v = double(**n.as_integer());
    else if (n.is_floating_point())
      v = **n.as_floating_point();
    else
      fail("key '" + path(key) + "' must be a number, got " + typeName(n));
    if (!(v > 0))
      fail("key '" + path(key) + "' must be > 0");
    return v;
  }
  TableReader table(const std::string &key) {
    const toml::node &n = need(key);
    if (!n.is_table())
      fail("key '" + path(key) + "' must be a table, got " + typeName(n));
    return TableReader(*n.as_table(), path(key), file);
  }
  const toml::array &array(const std::string &key) {
    const toml::node &n = need(key);
    if (!n.is_array())
      fail("key '" + path(key) + "' must be an array, got " + typeName(n));
    return *n.as_array();
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> r;
    for (auto &&[k, v] : t)
      r.push_back(std::string(k.str()));
    return r;
  }
  void markUsed(const std::string &key) { used.insert(key); }
  /// Every key must have been read.
  void done() const {
    for (auto &&[k, v] : t)
      if (!used.count(std::string(k.str())))
        fail("unknown key '" + path(std::string(k.str())) + "'");
  }

private:
  const toml::table &t;
  std::string prefix;
  const std::string &file;
  std::set<std::string> used;
};

std::string dtype(TableReader &r, const std::string &key) {
  std::string v = r.str(key);
  auto &known = knownDataTypes();
  if (std::find(known.begin(), known.end(), v) == known.end())
    r.fail("key '" + r.path(key) + "': unknown data type '" + v + "'");
  return v;
}

/// Resolves an operand layout and checks it covers rows x cols with the
/// target's lanes and the atom's warps.
std::optional<layout::LinearLayout>
operandLayout(TableReader &r, const std::string &key, const std::string &spec,
              int rows, int cols, int warpSize, int warps) {
  if (spec == "shared" || spec == "opaque")
    return std::nullopt;
  layout::LinearLayout l;
  try {
    l = layout::parseLayoutSpec(spec);
  } catch (const layout::LayoutError &e) {
    r.fail("key '" + r.path(key) + "': " + e.what());
  }
  auto shapeOf = [](const layout::LinearLayout &x) {
    return std::to_string(x.getOutDimSize("dim0")) + "x" +
           std::to_string(x.getOutDimSize("dim1"));
  };
  if (l.getOutDimSize("dim0") != rows || l.getOutDimSize("dim1") != cols ||
      l.getOutDims().size() != 2)
    r.fail("key '" + r.path(key) + "': layout '" + spec + "' covers " +
           shapeOf(l) + " but the operand is " + std::to_string(rows) + "x" +
           std::to_string(cols));
  if (l.getInDimSize(layout::kLane) != warpSize)
    r.fail("key '" + r.path(key) + "': layout '" + spec + "' has " +
           std::to_string(l.getInDimSize(layout::kLane)) +
           " lanes but warp_size is " + std::to_string(warpSize));
  if (l.getInDimSize(layout::kWarp) != warps)
    r.fail("key '" + r.path(key) + "': layout '" + spec + "' spans " +
           std::to_string(l.getInDimSize(layout::kWarp)) +
           " warps but the atom has warps = " + std::to_string(warps));
  if (!l.isSurjective())
    r.fail("key '" + r.path(key) + "': layout '" + spec +
           "' does not cover every element of the operand");
  return l;
}

MmaAtom readAtom(TableReader &r, int warpSize) {
  MmaAtom a;
  a.name = r.str("name");
  std::string kind = r.str("kind");
  auto k = parseMmaKind(kind);
  if (!k)
    r.fail("key '" + r.path("kind") + "': unknown MMA kind '" + kind +
           "' (expected mma.sync, wgmma, mfma, wmma, coopmat or fma)");
  a.kind = *k;
  a.m = r.int32("m");
  a.n = r.int32("n");
  a.k = r.int32("k");
  a.aType = dtype(r, "a_type");
  a.bType = dtype(r, "b_type");
  a.cType = dtype(r, "c_type");
  a.warps = r.pow2("warps");
  a.aLayoutName = r.str("a_layout");
  a.bLayoutName = r.str("b_layout");
  a.cLayoutName = r.str("c_layout");
  a.aLayout =
      operandLayout(r, "a_layout", a.aLayoutName, a.m, a.k, warpSize, a.warps);
  a.bLayout =
      operandLayout(r, "b_layout", a.bLayoutName, a.k, a.n, warpSize, a.warps);
  if (a.cLayoutName == "shared")
    r.fail("key '" + r.path("c_layout") +
           "': the accumulator cannot live in shared memory");
  a.cLayout =
      operandLayout(r, "c_layout", a.cLayoutName, a.m, a.n, warpSize, a.warps);
  if (r.has("async"))
    a.async = r.boolean("async");
  if (r.has("c_order")) {
    std::string order = r.str("c_order");
    if (order != "layout" && order != "opaque")
      r.fail("key '" + r.path("c_order") +
             "': expected \"layout\" or "
             "\"opaque\", got '" +
             order + "'");
    a.cOpaque = order == "opaque";
    if (a.cOpaque && !a.cLayout)
      r.fail("key '" + r.path("c_layout") +
             "': an opaque accumulator still needs a register layout that "
             "counts its registers and places its instances");
  }
  r.done();
  return a;
}

TargetDescription readTarget(const toml::table &root, const std::string &file) {
  TableReader r(root, "", file);
  TargetDescription t;
  t.sourceFile = file;
  t.name = r.str("name");
  t.triple = r.str("triple");
  t.chip = r.str("chip");
  t.warpSize = r.pow2("warp_size");
  t.maxThreadsPerBlock = r.int32("max_threads_per_block");
  if (t.maxThreadsPerBlock % t.warpSize != 0)
    r.fail("key 'max_threads_per_block' must be a multiple of warp_size");
  t.computeUnits = r.int32("compute_units");
  t.l2Bytes = r.integer("l2_bytes", 0);
  t.memoryBandwidth = r.number("memory_bandwidth");
  t.globalLoadVectorBytes = r.pow2("global_load_vector_bytes");
  std::string ac = r.str("async_copy");
  auto ack = parseAsyncCopyKind(ac);
  if (!ack)
    r.fail("key 'async_copy': unknown kind '" + ac +
           "' (expected none, cp.async, tma, lds_dma or registers)");
  t.asyncCopy = *ack;
  if (r.has("min_pipeline_stages"))
    t.minPipelineStages = r.int32("min_pipeline_stages");
  if (r.has("max_k_step_bytes"))
    t.maxKStepBytes = r.int32("max_k_step_bytes");
  if (r.has("min_k_step_macs"))
    t.minKStepMacs = r.integer("min_k_step_macs", 0);
  if (r.has("cluster_multicast")) {
    t.clusterMulticast = r.int32("cluster_multicast");
    if (t.clusterMulticast != 1 && t.clusterMulticast != 2)
      r.fail("key 'cluster_multicast' must be 1 or 2");
  }
  if (r.has("widen_tile_n")) {
    t.widenTileN = r.int32("widen_tile_n");
    if (t.widenTileN < 0)
      r.fail("key 'widen_tile_n' must not be negative");
  }
  if (r.has("widen_tile_m")) {
    t.widenTileM = r.int32("widen_tile_m");
    if (t.widenTileM < 0)
      r.fail("key 'widen_tile_m' must not be negative");
  }
  if (r.has("softmax_key_block")) {
    t.softmaxKeyBlock = r.int32("softmax_key_block");
    if (t.softmaxKeyBlock < 0)
      r.fail("key 'softmax_key_block' must not be negative");
  }
  if (r.has("persistent_blocks"))
    t.persistentBlocks = r.boolean("persistent_blocks");
  if (r.has("max_fragment_words_per_thread")) // 0: no rule
    t.maxFragmentWordsPerThread =
        r.int32("max_fragment_words_per_thread", /*min=*/0);

  TableReader smem = r.table("shared_memory");
  t.sharedMemoryPerBlock = smem.integer("per_block");
  t.sharedMemoryPerBlockOptin = smem.integer("per_block_optin");
  if (t.sharedMemoryPerBlockOptin < t.sharedMemoryPerBlock)
    smem.fail("key 'shared_memory.per_block_optin' must be >= "
              "'shared_memory.per_block'");
  smem.done();

  TableReader regs = r.table("registers");
  t.registersPerThread = regs.int32("per_thread");
  t.registersPerBlock = regs.integer("per_block");
  regs.done();

  TableReader banks = r.table("banks");
  t.banks.banks = banks.pow2("count");
  t.banks.bankWidthBytes = banks.pow2("width_bytes");
  banks.done();

  TableReader flops = r.table("peak_flops");
  for (auto &k : flops.keys()) {
    auto &known = knownDataTypes();
    if (std::find(known.begin(), known.end(), k) == known.end())
      flops.fail("unknown key 'peak_flops." + k + "' (not a data type)");
    t.peakFlops[k] = flops.number(k);
  }
  flops.done();

  const toml::array &atoms = r.array("mma");
  std::set<std::string> names;
  for (size_t i = 0; i < atoms.size(); ++i) {
    std::string p = "mma[" + std::to_string(i) + "]";
    const toml::node &n = atoms[i];
    if (!n.is_table())
      r.fail("key '" + p + "' must be a table, got " + typeName(n));
    TableReader ar(*n.as_table(), p, file);
    MmaAtom a = readAtom(ar, t.warpSize);
    if (!names.insert(a.name).second)
      r.fail("key '" + p + ".name': duplicate atom name '" + a.name + "'");
    t.mmaAtoms.push_back(std::move(a));
  }
  r.done();
  return t;
}

} // namespace

std::optional<TargetDescription> parseTargetDescription(std::string_view text,
                                                        const std::string &file,
                                                        std::string *error) {
  toml::table root;
#if TOML_EXCEPTIONS
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error &e) {
    if (error) {
      std::ostringstream os;
      os << file << ":" << e.source().begin.line << ":"
         << e.source().begin.column
         << ": TOML syntax error: " << e.description();
      *error = os.str();
    }
    return std::nullopt;
  }
#else
  toml::parse_result res = toml::parse(text, file);
  if (!res) {
    if (error) {
      std::ostringstream os;
      os << file << ":" << res.error().source().begin.line << ":"
         << res.error().source().begin.column
         << ": TOML syntax error: " << res.error().description();
      *error = os.str();
    }
    return std::nullopt;
  }
  root = std::move(res).table();
#endif
  try {
    return readTarget(root, file);
  } catch (const TargetError &e) {
    if (error)
      *error = e.message;
    return std::nullopt;
  }
}

std::optional<TargetDescription> loadTargetDescription(const std::string &path,
                                                       std::string *error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    if (error)
      *error = path + ": cannot open file";
    return std::nullopt;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return parseTargetDescription(ss.str(), path, error);
}

} // namespace tessera::target
