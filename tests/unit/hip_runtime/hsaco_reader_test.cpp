//===- hsaco_reader_test.cpp - the hip plugin's code object reader --------===//
//
// The reader is linked in directly. It must agree with LLVM (llvm-readelf's
// notes of real hsacos built by the hip compiler) and refuse everything
// else with a reason, without reading outside the image: synthetic code
// objects cover what the compiler does not emit (hidden arguments, other
// machines, broken notes), and every truncation and many corruptions of a
// real hsaco are read under the sanitizers in CI.
//
//===----------------------------------------------------------------------===//

#include "HipTestSupport.h"
#include "hsaco_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using namespace tessera::hip;
using namespace tessera::test::hip;

//===----------------------------------------------------------------------===//
// Building synthetic code objects
//===----------------------------------------------------------------------===//

/// A MessagePack writer for the few types the metadata uses.
class Msg {
public:
  Msg &map(uint32_t n) { return head(0x80, 0xde, 0xdf, n); }
  Msg &array(uint32_t n) { return head(0x90, 0xdc, 0xdd, n); }
  Msg &str(const std::string &s) {
    if (s.size() < 32)
      out += char(0xa0 | s.size());
    else {
      out += char(0xd9);
      out += char(s.size());
    }
    out += s;
    return *this;
  }
  Msg &uint(uint64_t v) {
    if (v < 128) {
      out += char(v);
    } else if (v < 65536) {
      out += char(0xcd);
      be(v, 2);
    } else {
      out += char(0xcf);
      be(v, 8);
    }
    return *this;
  }
  Msg &raw(const std::string &bytes) {
    out += bytes;
    return *this;
  }
  std::string out;

private:
  Msg &head(unsigned fix, unsigned b16, unsigned b32, uint32_t n) {
    if (n < 16) {
      out += char(fix | n);
    } else if (n < 65536) {
      out += char(b16);
      be(n, 2);
    } else {
      out += char(b32);
      be(n, 4);
    }
    return *this;
  }
  void be(uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i)
      out += char(v >> (8 * i));
  }
};

struct ArgSpec {
  uint32_t offset, size;
  std::string kind;
};

/// The metadata of one kernel in an amdhsa map.
std::string metadata(const std::string &name, uint32_t kernargSize,
                     const std::vector<ArgSpec> &args,
                     const std::string &target = "amdgcn-amd-amdhsa--gfx942",
                     bool reqd = true) {
  Msg m;
  m.map(2).str("amdhsa.kernels").array(1);
  m.map(reqd ? 7 : 6);
  m.str(".name").str(name);
  m.str(".symbol").str(name + ".kd");
  m.str(".kernarg_segment_size").uint(kernargSize);
  m.str(".group_segment_fixed_size").uint(512);
  m.str(".max_flat_workgroup_size").uint(256);
  if (reqd)
    m.str(".reqd_workgroup_size").array(3).uint(256).uint(1).uint(1);
  m.str(".args").array(uint32_t(args.size()));
  for (const ArgSpec &a : args)
    m.map(3)
        .str(".offset")
        .uint(a.offset)
        .str(".size")
        .uint(a.size)
        .str(".value_kind")
        .str(a.kind);
  m.str("amdhsa.target").str(target);
  return m.out;
}

void put16(std::string &s, size_t at, uint16_t v) {
  s[at] = char(v);
  s[at + 1] = char(v >> 8);
}
void put32(std::string &s, size_t at, uint32_t v) {
  put16(s, at, uint16_t(v));
  put16(s, at + 2, uint16_t(v >> 16));
}
void put64(std::string &s, size_t at, uint64_t v) {
  put32(s, at, uint32_t(v));
  put32(s, at + 4, uint32_t(v >> 32));
}

struct ElfSpec {
  uint16_t machine = 224;
  uint8_t osabi = 64, abiVersion = 3;
  bool withNote = true;
  uint32_t noteType = 32;
};

/// An ELF64 with a null section, a .note holding `desc` as an
/// NT_AMDGPU_METADATA note, and .shstrtab; section headers at the end.
std::string makeElf(const std::string &desc, const ElfSpec &spec = {}) {
  std::string note;
  if (spec.withNote) {
    note.resize(12);
    put32(note, 0, 7);
    put32(note, 4, uint32_t(desc.size()));
    put32(note, 8, spec.noteType);
    note += std::string("AMDGPU\0\0", 8);
    note += desc;
    note.resize((note.size() + 3) / 4 * 4, '\0');
  }
  std::string shstr("\0.note\0.shstrtab\0", 17);
  std::string elf(64, '\0');
  elf[0] = 0x7f;
  elf[1] = 'E';
  elf[2] = 'L';
  elf[3] = 'F';
  elf[4] = 2; // ELFCLASS64
  elf[5] = 1; // little-endian
  elf[6] = 1; // EV_CURRENT
  elf[7] = char(spec.osabi);
  elf[8] = char(spec.abiVersion);
  put16(elf, 16, 3); // ET_DYN
  put16(elf, 18, spec.machine);
  put32(elf, 20, 1);
  put16(elf, 52, 64);
  size_t noteAt = elf.size();
  elf += note;
  size_t strAt = elf.size();
  elf += shstr;
  elf.resize((elf.size() + 7) / 8 * 8, '\0');
  size_t shoff = elf.size();
  put64(elf, 40, shoff);
  put16(elf, 58, 64);
  put16(elf, 60, 3);
  put16(elf, 62, 2);
  std::string sh(3 * 64, '\0');
  put32(sh, 64 + 0, 1);              // name ".note"
  put32(sh, 64 + 4, 7);              // SHT_NOTE
  put64(sh, 64 + 24, noteAt);        // offset
  put64(sh, 64 + 32, note.size());   // size
  put64(sh, 64 + 48, 4);             // align
  put32(sh, 128 + 0, 7);             // name ".shstrtab"
  put32(sh, 128 + 4, 3);             // SHT_STRTAB
  put64(sh, 128 + 24, strAt);        // offset
  put64(sh, 128 + 32, shstr.size()); // size
  elf += sh;
  return elf;
}

bool read(const std::string &image, CodeObject &out, std::string &error) {
  return readCodeObject(image.data(), image.size(), out, error);
}

std::string readError(const std::string &image) {
  CodeObject out;
  std::string error;
  EXPECT_FALSE(read(image, out, error));
  return error;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

//===----------------------------------------------------------------------===//
// Synthetic code objects
//===----------------------------------------------------------------------===//

TEST(HsacoReader, KernelWithHiddenArguments) {
  std::string image =
      makeElf(metadata("k", 288,
                       {{0, 8, "global_buffer"},
                        {8, 4, "by_value"},
                        {16, 4, "hidden_block_count_x"},
                        {24, 8, "hidden_dynamic_lds_size"},
                        {12, 2, "by_value"}},
                       "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"));
  CodeObject co;
  std::string error;
  ASSERT_TRUE(read(image, co, error)) << error;
  EXPECT_EQ(co.codeObjectVersion, 5u);
  EXPECT_EQ(co.chip, "gfx942");
  EXPECT_EQ(co.features, (std::vector<std::string>{"sramecc+", "xnack-"}));
  EXPECT_EQ(co.elfBytes, image.size());
  ASSERT_EQ(co.kernels.size(), 1u);
  const KernelDescriptor &k = co.kernels[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.symbol, "k.kd");
  EXPECT_EQ(k.kernargSegmentSize, 288u);
  EXPECT_EQ(k.groupSegmentFixedSize, 512u);
  EXPECT_EQ(k.maxFlatWorkgroupSize, 256u);
  EXPECT_EQ(k.reqdWorkgroupSize[0], 256u);
  EXPECT_EQ(k.reqdWorkgroupSize[2], 1u);
  ASSERT_EQ(k.args.size(), 5u);
  std::vector<KernelArgument> explicitArgs = k.explicitArgs();
  ASSERT_EQ(explicitArgs.size(), 3u); // hidden ones are HIP's
  EXPECT_EQ(explicitArgs[2].offset, 12u);
  EXPECT_EQ(explicitArgs[2].size, 2u);
  EXPECT_EQ(co.find("k"), &co.kernels[0]);
  EXPECT_EQ(co.find("other"), nullptr);
}

TEST(HsacoReader, CodeObjectVersions) {
  for (uint8_t abi : {2, 3, 4}) {
    ElfSpec spec;
    spec.abiVersion = abi;
    CodeObject co;
    std::string error;
    ASSERT_TRUE(
        read(makeElf(metadata("k", 8, {{0, 8, "by_value"}}), spec), co, error))
        << error;
    EXPECT_EQ(co.codeObjectVersion, abi + 2u);
  }
  ElfSpec v3;
  v3.abiVersion = 1;
  EXPECT_TRUE(contains(readError(makeElf(metadata("k", 0, {}), v3)),
                       "code objects v4 to v6"));
}

TEST(HsacoReader, RefusesOtherImageKinds) {
  EXPECT_EQ(readError(""), "is empty");
  ElfSpec x86;
  x86.machine = 62;
  EXPECT_TRUE(contains(readError(makeElf(metadata("k", 0, {}), x86)),
                       "is an ELF for machine 62 (x86-64), not an AMDGPU "
                       "code object (e_machine 224)"));
  ElfSpec cuda;
  cuda.machine = 190;
  EXPECT_TRUE(contains(readError(makeElf(metadata("k", 0, {}), cuda)),
                       "NVIDIA CUDA: a cubin"));
  ElfSpec mesa;
  mesa.osabi = 0;
  EXPECT_TRUE(contains(readError(makeElf(metadata("k", 0, {}), mesa)),
                       "OS/ABI 0, not AMDGPU_HSA"));
  std::string spirv("\x03\x02\x23\x07\0\0\x01\0", 8);
  EXPECT_TRUE(contains(readError(spirv), "is SPIR-V"));
  EXPECT_TRUE(contains(readError(".version 8.0\n.target sm_90a\n"), "PTX"));
  EXPECT_TRUE(contains(readError("__CLANG_OFFLOAD_BUNDLE____hipv4-amdgcn"),
                       "clang offload bundle"));
  EXPECT_TRUE(contains(readError("hello"), "not an ELF file (it starts with "
                                           "bytes 68 65 6c 6c)"));
  EXPECT_TRUE(contains(readError(std::string("\x7f"
                                             "ELF\x01\x01",
                                             6)),
                       "truncated"));
  std::string elf32 = makeElf(metadata("k", 0, {}));
  elf32[4] = 1;
  EXPECT_TRUE(contains(readError(elf32), "not a little-endian ELF64"));
}

TEST(HsacoReader, RefusesBrokenStructure) {
  std::string good = makeElf(metadata("k", 8, {{0, 8, "by_value"}}));
  // Cut anywhere: never read past the end, always a reason.
  for (size_t n = 1; n < good.size(); ++n) {
    std::vector<char> cut(good.begin(), good.begin() + long(n));
    CodeObject co;
    std::string error;
    EXPECT_FALSE(readCodeObject(cut.data(), n, co, error)) << n;
    EXPECT_FALSE(error.empty());
  }
  EXPECT_TRUE(contains(readError(good.substr(0, good.size() - 1)),
                       "section headers end at byte"));
  ElfSpec noNote;
  noNote.withNote = false;
  EXPECT_TRUE(
      contains(readError(makeElf("", noNote)), "no AMDGPU metadata note"));
  ElfSpec otherNote;
  otherNote.noteType = 1;
  EXPECT_TRUE(contains(readError(makeElf(metadata("k", 0, {}), otherNote)),
                       "no AMDGPU metadata note"));
  // A section whose offset runs past the end, and one whose size wraps.
  std::string far = good;
  size_t shoff = size_t(good.size() - 3 * 64);
  put64(far, shoff + 64 + 24, 1u << 30);
  EXPECT_TRUE(contains(readError(far), "sections end at byte"));
  std::string wrap = good;
  put64(wrap, shoff + 64 + 32, ~uint64_t(0) - 8);
  EXPECT_TRUE(contains(readError(wrap), "2^64"));
  // A note whose descsz overruns its section.
  std::string overrun = good;
  size_t noteAt = 64;
  put32(overrun, noteAt + 4, 1u << 20);
  EXPECT_TRUE(contains(readError(overrun), "note that overruns"));
  // No section headers at all.
  std::string none = good;
  put16(none, 60, 0);
  EXPECT_TRUE(contains(readError(none), "no section headers"));
  std::string entsize = good;
  put16(entsize, 58, 40);
  EXPECT_TRUE(contains(readError(entsize), "entry sizes"));
}

TEST(HsacoReader, RefusesBrokenMetadata) {
  auto withDesc = [](const std::string &desc) {
    return readError(makeElf(desc));
  };
  EXPECT_TRUE(contains(withDesc(""), "truncated"));
  EXPECT_TRUE(contains(withDesc(Msg().array(0).out), "not a MessagePack map"));
  EXPECT_TRUE(contains(withDesc(Msg().map(1).str("x").raw("\xc1").out),
                       "invalid MessagePack byte"));
  // A count far beyond the bytes left is corrupt, not an allocation.
  EXPECT_TRUE(contains(withDesc(Msg()
                                    .map(1)
                                    .str("amdhsa.kernels")
                                    .raw(std::string("\xdd\x7f\xff\xff\xff", 5))
                                    .out),
                       "truncated"));
  std::string deep;
  for (int i = 0; i < 40; ++i)
    deep += char(0x91);
  deep += char(0x01);
  EXPECT_TRUE(contains(withDesc(deep), "deeper than 32"));
  EXPECT_TRUE(
      contains(withDesc(Msg().map(1).str("amdhsa.kernels").array(0).out),
               "no amdhsa.target"));
  EXPECT_TRUE(contains(
      withDesc(metadata("k", 0, {}, "amdgcn-amd-amdhsa--sm_90")), "no gfx"));
  EXPECT_TRUE(contains(withDesc(metadata("", 0, {})), "has no .name"));
  EXPECT_TRUE(contains(withDesc(metadata("k", 8, {{4, 8, "by_value"}})),
                       "kernel 'k' argument 0 (bytes 4 to 12) lies outside "
                       "its kernarg segment of 8 bytes"));
  EXPECT_TRUE(contains(withDesc(metadata("k", 1u << 24, {})),
                       "kernarg segment of 16777216 bytes"));
  Msg noSize;
  noSize.map(2).str("amdhsa.kernels").array(1).map(1).str(".name").str("k");
  noSize.str("amdhsa.target").str("amdgcn-amd-amdhsa--gfx942");
  EXPECT_TRUE(contains(withDesc(noSize.out), "no valid .kernarg_segment_size"));
  Msg badReqd;
  badReqd.map(2).str("amdhsa.kernels").array(1).map(4);
  badReqd.str(".name").str("k").str(".kernarg_segment_size").uint(0);
  badReqd.str(".group_segment_fixed_size").uint(0);
  badReqd.str(".reqd_workgroup_size").array(2).uint(1).uint(1);
  badReqd.str("amdhsa.target").str("amdgcn-amd-amdhsa--gfx942");
  EXPECT_TRUE(contains(withDesc(badReqd.out), "invalid .reqd_workgroup_size"));
}

TEST(HsacoReader, TargetIds) {
  std::string chip;
  std::vector<std::string> features;
  splitTargetId("gfx942:sramecc+:xnack-", chip, features);
  EXPECT_EQ(chip, "gfx942");
  EXPECT_EQ(features, (std::vector<std::string>{"sramecc+", "xnack-"}));
  splitTargetId("amdgcn-amd-amdhsa--gfx1100", chip, features);
  EXPECT_EQ(chip, "gfx1100");
  EXPECT_TRUE(features.empty());
  EXPECT_EQ(featureMismatch({}, {"sramecc+", "xnack-"}), "");
  EXPECT_EQ(featureMismatch({"xnack-"}, {"sramecc+", "xnack-"}), "");
  EXPECT_EQ(featureMismatch({"xnack+"}, {"sramecc+", "xnack-"}),
            "built for xnack+, the device has xnack-");
  EXPECT_EQ(featureMismatch({"xnack+"}, {}), "");
}

//===----------------------------------------------------------------------===//
// Real code objects from the hip compiler
//===----------------------------------------------------------------------===//

#if TESSERA_TEST_HAVE_KERNELS
const char *const kCompiled[] = {
    "elementwise_add",     "gemm",   "gemm_fp8", "rmsnorm",
    "flash_attention_fwd", "scalars"};

std::string hsaco(const char *name, const char *chip = "gfx942") {
  return readText(kernelFile(name, chip, "hsaco"));
}

TEST(HsacoReader, AgreesWithLlvmReadelf) {
  for (const char *name : kCompiled) {
    SCOPED_TRACE(name);
    std::string image = hsaco(name);
    ASSERT_FALSE(image.empty()) << kernelFile(name, "gfx942", "hsaco");
    CodeObject co;
    std::string error;
    ASSERT_TRUE(read(image, co, error)) << error;
    EXPECT_EQ(co.codeObjectVersion, 5u); // what the compiler writes
    EXPECT_EQ(co.chip, "gfx942");
    EXPECT_EQ(co.elfBytes, image.size());
    std::vector<NoteKernel> notes =
        parseNotes(readText(kernelFile(name, "gfx942", "notes")));
    ASSERT_FALSE(notes.empty());
    ASSERT_EQ(co.kernels.size(), notes.size());
    for (const NoteKernel &n : notes) {
      const KernelDescriptor *k = co.find(n.name);
      ASSERT_NE(k, nullptr) << n.name;
      EXPECT_EQ(k->kernargSegmentSize, n.kernargSegmentSize);
      EXPECT_EQ(k->groupSegmentFixedSize, n.groupSegmentFixedSize);
      EXPECT_EQ(k->maxFlatWorkgroupSize, n.maxFlatWorkgroupSize);
      EXPECT_EQ(k->wavefrontSize, n.wavefrontSize);
      ASSERT_EQ(n.reqdWorkgroupSize.size(), 3u);
      for (int d = 0; d < 3; ++d)
        EXPECT_EQ(k->reqdWorkgroupSize[d], n.reqdWorkgroupSize[d]);
      ASSERT_EQ(k->args.size(), n.args.size());
      for (size_t a = 0; a < n.args.size(); ++a) {
        EXPECT_EQ(k->args[a].offset, n.args[a].offset);
        EXPECT_EQ(k->args[a].size, n.args[a].size);
        EXPECT_EQ(k->args[a].valueKind, n.args[a].valueKind);
      }
    }
  }
  CodeObject rdna;
  std::string error;
  ASSERT_TRUE(read(hsaco("elementwise_add", "gfx1100"), rdna, error)) << error;
  EXPECT_EQ(rdna.chip, "gfx1100");
  EXPECT_EQ(rdna.kernels.at(0).wavefrontSize, 32u);
}

TEST(HsacoReader, EveryTruncationOfARealHsacoIsRefused) {
  std::string image = hsaco("scalars");
  ASSERT_FALSE(image.empty());
  // Exact-size copies, so that AddressSanitizer sees any read past the end.
  for (size_t n = 0; n < image.size(); ++n) {
    std::vector<char> cut(image.begin(), image.begin() + long(n));
    CodeObject co;
    std::string error;
    EXPECT_FALSE(readCodeObject(cut.data(), cut.size(), co, error)) << n;
  }
}

TEST(HsacoReader, CorruptedHsacosNeverReadOutside) {
  std::string image = hsaco("gemm_fp8");
  ASSERT_FALSE(image.empty());
  std::mt19937 rng(42);
  int refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<char> bad(image.begin(), image.end());
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      // Mostly in the headers and the note, where the reader looks.
      size_t at = rng() % 2 ? rng() % std::min<size_t>(bad.size(), 4096)
                            : rng() % bad.size();
      bad[at] = char(rng());
    }
    CodeObject co;
    std::string error;
    if (!readCodeObject(bad.data(), bad.size(), co, error)) {
      ++refused;
      EXPECT_FALSE(error.empty());
      continue;
    }
    // What is accepted is consistent.
    EXPECT_LE(co.elfBytes, bad.size());
    for (const KernelDescriptor &k : co.kernels)
      for (const KernelArgument &a : k.args)
        EXPECT_LE(uint64_t(a.offset) + a.size, k.kernargSegmentSize);
  }
  EXPECT_GT(refused, 0);
}
#endif

} // namespace
