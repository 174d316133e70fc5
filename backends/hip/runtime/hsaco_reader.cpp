//===- hsaco_reader.cpp - what a launch needs from an AMD code object -----===//

#include "hsaco_reader.h"

#include <cstdio>
#include <cstring>
#include <limits>

namespace tessera::hip {

namespace {

// ELF constants (the System V gABI and LLVM's BinaryFormat/ELF.h values).
constexpr uint8_t kElfClass64 = 2;
constexpr uint8_t kElfData2Lsb = 1;
constexpr uint8_t kElfOsAbiAmdgpuHsa = 64;
constexpr uint16_t kEmAmdgpu = 224;
constexpr uint32_t kShtNote = 7;
constexpr uint32_t kShtNobits = 8;
constexpr uint32_t kNtAmdgpuMetadata = 32;
constexpr size_t kEhdrBytes = 64, kShdrBytes = 64, kPhdrBytes = 56;
// A kernarg segment larger than this is a corrupt note, not a kernel.
constexpr uint64_t kMaxKernargBytes = 1 << 20;

uint16_t rd16(const unsigned char *p) { return uint16_t(p[0] | p[1] << 8); }
uint32_t rd32(const unsigned char *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
uint64_t rd64(const unsigned char *p) {
  return uint64_t(rd32(p)) | uint64_t(rd32(p + 4)) << 32;
}

/// offset + count * each, or UINT64_MAX on overflow.
uint64_t extent(uint64_t offset, uint64_t count, uint64_t each) {
  uint64_t bytes;
  if (__builtin_mul_overflow(count, each, &bytes) ||
      __builtin_add_overflow(offset, bytes, &bytes))
    return std::numeric_limits<uint64_t>::max();
  return bytes;
}

const char *machineName(uint16_t machine) {
  switch (machine) {
  case 3:
    return "x86";
  case 62:
    return "x86-64";
  case 183:
    return "AArch64";
  case 190:
    return "NVIDIA CUDA: a cubin";
  case 243:
    return "RISC-V";
  default:
    return "not AMDGPU";
  }
}

/// What a non-ELF image looks like, for the error.
std::string describeNonElf(const unsigned char *p, size_t size) {
  static const char kBundle[] = "__CLANG_OFFLOAD_BUNDLE__";
  if (size >= sizeof(kBundle) - 1 &&
      std::memcmp(p, kBundle, sizeof(kBundle) - 1) == 0)
    return "is a clang offload bundle; the hip plugin loads single AMDGPU "
           "code objects (hsaco), as the tessera compiler writes them";
  if (size >= 4 && rd32(p) == 0x07230203u)
    return "is SPIR-V, not an AMDGPU code object";
  std::string head(reinterpret_cast<const char *>(p),
                   size < 4096 ? size : 4096);
  if (head.find(".version") != std::string::npos &&
      head.find(".target") != std::string::npos)
    return "is PTX text, not an AMDGPU code object";
  char bytes[64];
  std::snprintf(bytes, sizeof bytes, "%02x %02x %02x %02x", size > 0 ? p[0] : 0,
                size > 1 ? p[1] : 0, size > 2 ? p[2] : 0, size > 3 ? p[3] : 0);
  return std::string("is not an ELF file (it starts with bytes ") + bytes +
         "), so not an AMDGPU code object";
}

//===----------------------------------------------------------------------===//
// MessagePack, as much as the metadata note uses (LLVM's msgpack::Document
// writes maps, arrays, strings, integers, booleans; the rest is skipped).
//===----------------------------------------------------------------------===//

struct MsgNode {
  enum Kind { Nil, Bool, Int, UInt, Float, Str, Bin, Array, Map, Ext };
  Kind kind = Nil;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
  std::string s;
  // Array: the items; map: key, value, key, value, ...
  std::vector<MsgNode> items;
};

class MsgReader {
public:
  MsgReader(const unsigned char *p, size_t n) : p(p), end(p + n) {}

  bool read(MsgNode &out, std::string &error) { return node(out, 0, error); }

private:
  const unsigned char *p, *end;

  bool need(size_t n, std::string &error) {
    if (size_t(end - p) < n) {
      error = "the metadata note's MessagePack data is truncated";
      return false;
    }
    return true;
  }
  bool uint(size_t bytes, uint64_t &v, std::string &error) {
    if (!need(bytes, error))
      return false;
    v = 0;
    for (size_t k = 0; k < bytes; ++k) // big-endian
      v = v << 8 | p[k];
    p += bytes;
    return true;
  }
  bool bytes(size_t n, std::string &out, std::string &error) {
    if (!need(n, error))
      return false;
    out.assign(reinterpret_cast<const char *>(p), n);
    p += n;
    return true;
  }
  bool container(MsgNode &out, uint64_t count, bool map, int depth,
                 std::string &error) {
    out.kind = map ? MsgNode::Map : MsgNode::Array;
    uint64_t nodes = map ? count * 2 : count;
    // Each element takes at least one byte: a count beyond what is left is
    // corrupt, and must not become a huge allocation.
    if (nodes > uint64_t(end - p)) {
      error = "the metadata note's MessagePack data is truncated";
      return false;
    }
    out.items.resize(size_t(nodes));
    for (MsgNode &item : out.items)
      if (!node(item, depth + 1, error))
        return false;
    return true;
  }

  bool node(MsgNode &out, int depth, std::string &error) {
    if (depth > 32) {
      error = "the metadata note nests deeper than 32 levels";
      return false;
    }
    if (!need(1, error))
      return false;
    uint8_t t = *p++;
    uint64_t v = 0;
    if (t <= 0x7f) {
      out.kind = MsgNode::UInt;
      out.u = t;
      return true;
    }
    if (t >= 0xe0) {
      out.kind = MsgNode::Int;
      out.i = int8_t(t);
      return true;
    }
    if ((t & 0xf0) == 0x80)
      return container(out, t & 0x0f, true, depth, error);
    if ((t & 0xf0) == 0x90)
      return container(out, t & 0x0f, false, depth, error);
    if ((t & 0xe0) == 0xa0) {
      out.kind = MsgNode::Str;
      return bytes(t & 0x1f, out.s, error);
    }
    switch (t) {
    case 0xc0:
      out.kind = MsgNode::Nil;
      return true;
    case 0xc2:
    case 0xc3:
      out.kind = MsgNode::Bool;
      out.b = t == 0xc3;
      return true;
    case 0xc4:
    case 0xc5:
    case 0xc6: // bin 8/16/32
      out.kind = MsgNode::Bin;
      return uint(size_t(1) << (t - 0xc4), v, error) &&
             bytes(size_t(v), out.s, error);
    case 0xc7:
    case 0xc8:
    case 0xc9: // ext 8/16/32: length, type, data
      out.kind = MsgNode::Ext;
      return uint(size_t(1) << (t - 0xc7), v, error) && need(1, error) &&
             (++p, bytes(size_t(v), out.s, error));
    case 0xca: { // float 32
      if (!uint(4, v, error))
        return false;
      float x;
      uint32_t w = uint32_t(v);
      std::memcpy(&x, &w, 4);
      out.kind = MsgNode::Float;
      out.f = x;
      return true;
    }
    case 0xcb: { // float 64
      if (!uint(8, v, error))
        return false;
      std::memcpy(&out.f, &v, 8);
      out.kind = MsgNode::Float;
      return true;
    }
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: // uint 8/16/32/64
      out.kind = MsgNode::UInt;
      return uint(size_t(1) << (t - 0xcc), out.u, error);
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: { // int 8/16/32/64
      size_t n = size_t(1) << (t - 0xd0);
      if (!uint(n, v, error))
        return false;
      if (n < 8 && (v >> (n * 8 - 1)) & 1)
        v |= ~uint64_t(0) << (n * 8); // sign-extend
      out.kind = MsgNode::Int;
      out.i = int64_t(v);
      return true;
    }
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8: // fixext 1/2/4/8/16: type, data
      out.kind = MsgNode::Ext;
      return need(1, error) &&
             (++p, bytes(size_t(1) << (t - 0xd4), out.s, error));
    case 0xd9:
    case 0xda:
    case 0xdb: // str 8/16/32
      out.kind = MsgNode::Str;
      return uint(size_t(1) << (t - 0xd9), v, error) &&
             bytes(size_t(v), out.s, error);
    case 0xdc:
    case 0xdd: // array 16/32
      return uint(t == 0xdc ? 2 : 4, v, error) &&
             container(out, v, false, depth, error);
    case 0xde:
    case 0xdf: // map 16/32
      return uint(t == 0xde ? 2 : 4, v, error) &&
             container(out, v, true, depth, error);
    default: // 0xc1 is never used
      error = "the metadata note holds an invalid MessagePack byte";
      return false;
    }
  }
};

const MsgNode *lookup(const MsgNode &map, const char *key) {
  if (map.kind != MsgNode::Map)
    return nullptr;
  for (size_t k = 0; k + 1 < map.items.size(); k += 2)
    if (map.items[k].kind == MsgNode::Str && map.items[k].s == key)
      return &map.items[k + 1];
  return nullptr;
}

/// A non-negative integer that fits in 32 bits.
bool asU32(const MsgNode *n, uint32_t &out) {
  if (!n)
    return false;
  uint64_t v;
  if (n->kind == MsgNode::UInt)
    v = n->u;
  else if (n->kind == MsgNode::Int && n->i >= 0)
    v = uint64_t(n->i);
  else
    return false;
  if (v > std::numeric_limits<uint32_t>::max())
    return false;
  out = uint32_t(v);
  return true;
}

/// Reads one "amdhsa.kernels" entry; `index` names it in errors.
bool readKernel(const MsgNode &m, size_t index, KernelDescriptor &k,
                std::string &error) {
  std::string where = "kernel " + std::to_string(index);
  if (m.kind != MsgNode::Map) {
    error = "amdhsa.kernels entry " + std::to_string(index) + " is not a map";
    return false;
  }
  const MsgNode *name = lookup(m, ".name");
  if (!name || name->kind != MsgNode::Str || name->s.empty()) {
    error = where + " of amdhsa.kernels has no .name";
    return false;
  }
  k.name = name->s;
  where = "kernel '" + k.name + "'";
  if (const MsgNode *symbol = lookup(m, ".symbol");
      symbol && symbol->kind == MsgNode::Str)
    k.symbol = symbol->s;
  auto required = [&](const char *key, uint32_t &out) {
    if (asU32(lookup(m, key), out))
      return true;
    error = where + " has no valid " + key + " in its metadata";
    return false;
  };
  if (!required(".kernarg_segment_size", k.kernargSegmentSize) ||
      !required(".group_segment_fixed_size", k.groupSegmentFixedSize))
    return false;
  if (k.kernargSegmentSize > kMaxKernargBytes) {
    error = where + " declares a kernarg segment of " +
            std::to_string(k.kernargSegmentSize) + " bytes";
    return false;
  }
  asU32(lookup(m, ".kernarg_segment_align"), k.kernargSegmentAlign);
  asU32(lookup(m, ".private_segment_fixed_size"), k.privateSegmentFixedSize);
  asU32(lookup(m, ".max_flat_workgroup_size"), k.maxFlatWorkgroupSize);
  asU32(lookup(m, ".wavefront_size"), k.wavefrontSize);
  if (const MsgNode *reqd = lookup(m, ".reqd_workgroup_size")) {
    bool ok = reqd->kind == MsgNode::Array && reqd->items.size() == 3;
    for (size_t d = 0; ok && d < 3; ++d)
      ok = asU32(&reqd->items[d], k.reqdWorkgroupSize[d]) &&
           k.reqdWorkgroupSize[d] > 0;
    if (!ok) {
      error = where + " has an invalid .reqd_workgroup_size";
      return false;
    }
  }
  const MsgNode *args = lookup(m, ".args");
  if (args && args->kind != MsgNode::Array) {
    error = where + " has an invalid .args";
    return false;
  }
  for (size_t a = 0; args && a < args->items.size(); ++a) {
    const MsgNode &arg = args->items[a];
    std::string argWhere = where + " argument " + std::to_string(a);
    KernelArgument ka;
    const MsgNode *kind = lookup(arg, ".value_kind");
    if (!asU32(lookup(arg, ".offset"), ka.offset) ||
        !asU32(lookup(arg, ".size"), ka.size) || !kind ||
        kind->kind != MsgNode::Str) {
      error = argWhere + " lacks .offset, .size or .value_kind";
      return false;
    }
    ka.valueKind = kind->s;
    if (uint64_t(ka.offset) + ka.size > k.kernargSegmentSize) {
      error = argWhere + " (bytes " + std::to_string(ka.offset) + " to " +
              std::to_string(uint64_t(ka.offset) + ka.size) +
              ") lies outside its kernarg segment of " +
              std::to_string(k.kernargSegmentSize) + " bytes";
      return false;
    }
    k.args.push_back(std::move(ka));
  }
  return true;
}

bool readMetadata(const unsigned char *desc, size_t size, CodeObject &out,
                  std::string &error) {
  MsgNode root;
  MsgReader reader(desc, size);
  if (!reader.read(root, error))
    return false;
  if (root.kind != MsgNode::Map) {
    error = "the metadata note is not a MessagePack map";
    return false;
  }
  const MsgNode *target = lookup(root, "amdhsa.target");
  if (!target || target->kind != MsgNode::Str || target->s.empty()) {
    error = "the metadata note has no amdhsa.target";
    return false;
  }
  out.target = target->s;
  splitTargetId(out.target, out.chip, out.features);
  if (out.chip.rfind("gfx", 0) != 0) {
    error =
        "the metadata's amdhsa.target '" + out.target + "' names no gfx chip";
    return false;
  }
  const MsgNode *kernels = lookup(root, "amdhsa.kernels");
  if (!kernels || kernels->kind != MsgNode::Array) {
    error = "the metadata note has no amdhsa.kernels list";
    return false;
  }
  for (size_t i = 0; i < kernels->items.size(); ++i) {
    KernelDescriptor k;
    if (!readKernel(kernels->items[i], i, k, error))
      return false;
    out.kernels.push_back(std::move(k));
  }
  return true;
}

} // namespace

std::vector<KernelArgument> KernelDescriptor::explicitArgs() const {
  std::vector<KernelArgument> out;
  for (const KernelArgument &a : args)
    if (!a.hidden())
      out.push_back(a);
  return out;
}

const KernelDescriptor *CodeObject::find(const std::string &name) const {
  for (const KernelDescriptor &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

void splitTargetId(const std::string &targetId, std::string &chip,
                   std::vector<std::string> &features) {
  chip.clear();
  features.clear();
  // The processor follows the triple's "--" (amdgcn-amd-amdhsa--gfx942).
  size_t start = targetId.find("--");
  start = start == std::string::npos ? 0 : start + 2;
  size_t colon = targetId.find(':', start);
  chip = targetId.substr(start, colon == std::string::npos ? std::string::npos
                                                           : colon - start);
  while (colon != std::string::npos) {
    size_t next = targetId.find(':', colon + 1);
    std::string f = targetId.substr(colon + 1, next == std::string::npos
                                                   ? std::string::npos
                                                   : next - colon - 1);
    if (!f.empty())
      features.push_back(f);
    colon = next;
  }
}

std::string featureMismatch(const std::vector<std::string> &objectFeatures,
                            const std::vector<std::string> &deviceFeatures) {
  for (const std::string &want : objectFeatures) {
    if (want.size() < 2 || (want.back() != '+' && want.back() != '-'))
      continue;
    std::string base = want.substr(0, want.size() - 1);
    for (const std::string &have : deviceFeatures)
      if (have.size() == want.size() &&
          have.compare(0, base.size(), base) == 0 && have != want)
        return "built for " + want + ", the device has " + have;
  }
  return "";
}

bool readCodeObject(const void *image, size_t size, CodeObject &out,
                    std::string &error) {
  out = CodeObject();
  const auto *p = static_cast<const unsigned char *>(image);
  if (!p || size == 0) {
    error = "is empty";
    return false;
  }
  if (size < 4 || std::memcmp(p,
                              "\x7f"
                              "ELF",
                              4) != 0) {
    error = describeNonElf(p, size);
    return false;
  }
  if (size < kEhdrBytes) {
    error = "is truncated: " + std::to_string(size) +
            " bytes, less than an ELF64 header";
    return false;
  }
  if (p[4] != kElfClass64 || p[5] != kElfData2Lsb) {
    error = "is not a little-endian ELF64 file, so not an AMDGPU code object";
    return false;
  }
  uint16_t machine = rd16(p + 18);
  if (machine != kEmAmdgpu) {
    error = "is an ELF for machine " + std::to_string(machine) + " (" +
            machineName(machine) + "), not an AMDGPU code object (e_machine " +
            std::to_string(kEmAmdgpu) + ")";
    return false;
  }
  if (p[7] != kElfOsAbiAmdgpuHsa) {
    error = "is an AMDGPU ELF with OS/ABI " + std::to_string(p[7]) +
            ", not AMDGPU_HSA (" + std::to_string(kElfOsAbiAmdgpuHsa) +
            "): not a code object for the HIP runtime";
    return false;
  }
  out.abiVersion = p[8];
  if (out.abiVersion < 2 || out.abiVersion > 4) {
    error = "has ELF ABI version " + std::to_string(out.abiVersion) +
            "; the hip plugin loads code objects v4 to v6 (ABI versions 2 "
            "to 4)";
    return false;
  }
  out.codeObjectVersion = out.abiVersion + 2u;

  uint64_t phoff = rd64(p + 32), shoff = rd64(p + 40);
  uint16_t phentsize = rd16(p + 54), phnum = rd16(p + 56);
  uint16_t shentsize = rd16(p + 58), shnum = rd16(p + 60);
  if ((phnum && phentsize != kPhdrBytes) ||
      (shnum && shentsize != kShdrBytes)) {
    error = "has ELF header entry sizes that are not ELF64's";
    return false;
  }
  if (shnum == 0) {
    error = "has no section headers";
    return false;
  }
  uint64_t end = kEhdrBytes;
  auto within = [&](uint64_t last, const char *what) {
    if (last > size) {
      error = std::string("is truncated or corrupt: its ") + what +
              " end at byte " +
              (last == std::numeric_limits<uint64_t>::max()
                   ? std::string("2^64")
                   : std::to_string(last)) +
              " of " + std::to_string(size);
      return false;
    }
    end = last > end ? last : end;
    return true;
  };
  if (!within(extent(phoff, phnum, kPhdrBytes), "program headers") ||
      !within(extent(shoff, shnum, kShdrBytes), "section headers"))
    return false;
  for (uint16_t i = 0; i < phnum; ++i) {
    const unsigned char *ph = p + phoff + size_t(i) * kPhdrBytes;
    if (!within(extent(rd64(ph + 8), 1, rd64(ph + 32)), "segments"))
      return false;
  }
  bool found = false;
  for (uint16_t i = 0; i < shnum; ++i) {
    const unsigned char *sh = p + shoff + size_t(i) * kShdrBytes;
    uint32_t type = rd32(sh + 4);
    uint64_t offset = rd64(sh + 24), bytes = rd64(sh + 32);
    uint64_t align = rd64(sh + 48);
    if (type == kShtNobits)
      continue;
    if (!within(extent(offset, 1, bytes), "sections"))
      return false;
    if (type != kShtNote || found)
      continue;
    // Notes: namesz, descsz, type, then name and desc, each padded to the
    // section's alignment (4, or 8 in some writers).
    uint64_t pad = align == 8 ? 8 : 4;
    auto padded = [&](uint64_t n) { return (n + pad - 1) / pad * pad; };
    const unsigned char *note = p + offset, *stop = p + offset + bytes;
    while (size_t(stop - note) >= 12) {
      uint32_t namesz = rd32(note), descsz = rd32(note + 4);
      uint32_t ntype = rd32(note + 8);
      uint64_t nameBytes = padded(namesz), descBytes = padded(descsz);
      if (12 + nameBytes + descBytes > uint64_t(stop - note)) {
        error = "has a note that overruns its section";
        return false;
      }
      const unsigned char *name = note + 12, *desc = name + nameBytes;
      if (ntype == kNtAmdgpuMetadata && namesz == 7 &&
          std::memcmp(name, "AMDGPU", 7) == 0) {
        if (!readMetadata(desc, descsz, out, error))
          return false;
        found = true;
        break;
      }
      note = desc + descBytes;
    }
  }
  if (!found) {
    error = "has no AMDGPU metadata note (NT_AMDGPU_METADATA): not a code "
            "object v3 or later";
    return false;
  }
  out.elfBytes = size_t(end);
  return true;
}

} // namespace tessera::hip
