#!/usr/bin/env python3
"""Compiles every kernel under examples/ (recursively: the examples and the
zoo) for the AMD chips given and checks each hsaco:

- it compiles, except for the (kernel, chip) pairs in EXPECTED_FAILURES,
  which must still fail with the error given there (so the list stays
  current when the core learns to fit them);
- `llvm-readelf --notes` shows the kernel metadata the runtime needs:
  amdhsa.kernels with the kernel's .name, .group_segment_fixed_size,
  .vgpr_count and the chip's .wavefront_size (64 on CDNA, 32 on RDNA);
- every tile.func with a tile.gemm reaches the matrix cores: its own part of
  `llvm-objdump -d --mcpu=<chip>` (from its `<tessera_kernel_NAME>:` label
  to the next) holds, for each operand type of its gemms, the instruction
  INSN names for that chip and type (v_mfma_* on gfx942/gfx950, v_wmma_* on
  gfx1100/gfx1201). The only (chip, type) pairs without one are listed in
  NO_ATOM with the reason; their gemms take vector FMA and are counted.

Usage: check_examples.py <tessera> <examples dir> <work dir> <chip>...
(llvm-readelf and llvm-objdump from PATH, as lit sets it.)
"""
import os
import re
import shutil
import subprocess
import sys

tessera, examples, work = sys.argv[1:4]
chips = sys.argv[4:]
CDNA = {"gfx942", "gfx950"}
WAVE = {"gfx942": 64, "gfx950": 64, "gfx1100": 32, "gfx1201": 32}
# The matrix instruction a gemm on operands of a type must reach, by chip.
INSN = {
    "gfx942": {
        "f16": "v_mfma_f32_32x32x8_f16|v_mfma_f32_16x16x16_f16",
        "bf16": "v_mfma_f32_32x32x8_bf16|v_mfma_f32_16x16x16_bf16",
        "i8": "v_mfma_i32_32x32x16_i8",
        # CDNA3 reads FNUZ fp8: the OCP bytes are rewritten in registers
        # (backends/hip/compiler/Fp8InRegisters.h) for the same instruction.
        "f8E4M3FN": "v_mfma_f32_32x32x16_fp8_fp8",
        "f8E5M2": "v_mfma_f32_32x32x16_bf8_bf8",
        "f32": "v_mfma_f32_32x32x2_f32",
    },
    "gfx1100": {
        "f16": "v_wmma_f32_16x16x16_f16",
        "bf16": "v_wmma_f32_16x16x16_bf16",
        "i8": "v_wmma_i32_16x16x16_iu8",
        # RDNA3 has no fp8 WMMA: fp8 is widened to f16 in registers (exact).
        "f8E4M3FN": "v_wmma_f32_16x16x16_f16",
        "f8E5M2": "v_wmma_f32_16x16x16_f16",
    },
    "gfx1201": {
        "f16": "v_wmma_f32_16x16x16_f16",
        "bf16": "v_wmma_f32_16x16x16_bf16",
        "i8": "v_wmma_i32_16x16x16_iu8",
        "f8E4M3FN": "v_wmma_f32_16x16x16_fp8_fp8",
        "f8E5M2": "v_wmma_f32_16x16x16_bf8_bf8",
    },
}
INSN["gfx950"] = INSN["gfx942"]  # CDNA4 reads OCP fp8 as written
# (chip, operand type) pairs with no matrix instruction at all, and why.
NO_ATOM = {
    ("gfx1100", "f32"): "RDNA3 has no f32 WMMA (f16/bf16/iu8/iu4 only)",
    ("gfx1201", "f32"): "RDNA4 has no f32 WMMA (v_wmma_f32_16x16x4_f32 "
                        "is gfx1250's)",
}
# The zoo's attention tiles were sized for NVIDIA's 228 KiB of shared
# memory; they fit 64 KiB of LDS (gfx942, gfx1100, gfx1201) because the
# pipeline falls back to one stage, conversions stage in their element type
# and tessera-plan-shared puts conversion/reduction scratch into tiles that
# are dead there (K's buffer). attn_fwd_d256_q128_f16 holds a 128x256 f16 Q
# tile (64 KiB) beside K and V (32 KiB each) for the whole kernel: 128 KiB,
# which only gfx950's 160 KiB of LDS holds; on the others
# tessera-place-operands keeps Q in registers (on gfx1100 compactly, its
# WMMA operand gathered by lane shuffles). A (kernel, chip) pair listed here
# must fail with its reason, e.g. "bytes of shared memory".
# flash_attention_fwd_q128's two stages of K and V take exactly gfx950's
# 160 KiB beside Q; tessera-pipeline-loops counts the 32 KiB its S -> P
# conversion stages through, so there it gets one stage (docs/passes.md).
EXPECTED_FAILURES = {}

readelf, objdump = shutil.which("llvm-readelf"), shutil.which("llvm-objdump")
if not readelf or not objdump:
    sys.exit("llvm-readelf and llvm-objdump must be on PATH")
def gemm_types(text):
    """{kernel name: set of operand element types of its tile.gemm ops}."""
    kernels = {}
    parts = re.split(r"^tile\.func @(\w+)\(", text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        types = set()
        for ops in re.findall(r"tile\.gemm[^\n]*?:\s*(!tile\.tile<[^>]*>),"
                              r"\s*(!tile\.tile<[^>]*>)", body):
            for o in ops:
                types.add(re.match(r"!tile\.tile<[0-9x]+x(\w+),", o)[1])
        if types:
            kernels[name] = types
    return kernels


def functions(dis):
    """{kernel name: its disassembly} from llvm-objdump -d."""
    out, name = {}, None
    for line in dis.splitlines():
        m = re.match(r"^[0-9a-f]+ <tessera_kernel_(\w+)>:", line)
        if m:
            name = m[1]
            out[name] = []
        elif name:
            out[name].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


bad, compiled, expected, matrix, fma = [], 0, 0, 0, []
for root, _, files in sorted(os.walk(examples)):
    for name in sorted(files):
        if not name.endswith(".mlir"):
            continue
        path = os.path.join(root, name)
        kernel = name[:-len(".mlir")]
        gemms = gemm_types(open(path).read())
        for chip in chips:
            out = os.path.join(work, f"{kernel}.{chip}")
            os.makedirs(out, exist_ok=True)
            r = subprocess.run(
                [tessera, "compile", path, "--target",
                 f"amdgcn-amd-amdhsa:{chip}", "--no-cache", "--dump-dir", out,
                 "-o", os.path.join(out, "k.tsb")],
                capture_output=True, text=True)
            want_error = EXPECTED_FAILURES.get((kernel, chip))
            if want_error:
                if r.returncode == 0:
                    bad.append(f"{kernel} ({chip}): compiles now; drop it "
                               "from EXPECTED_FAILURES")
                elif want_error not in r.stderr:
                    bad.append(f"{kernel} ({chip}): fails otherwise than "
                               f"expected: {r.stderr.strip()[-300:]}")
                else:
                    expected += 1
                continue
            if r.returncode != 0:
                bad.append(f"{kernel} ({chip}): does not compile: "
                           f"{r.stderr.strip()[-300:]}")
                continue
            compiled += 1
            hsaco = os.path.join(out, f"kernel.{chip}.hsaco")
            notes = subprocess.run(
                [readelf, "--notes", hsaco],
                capture_output=True, text=True).stdout
            for key in ["amdhsa.kernels", ".group_segment_fixed_size:",
                        ".vgpr_count:", ".name:           tessera_kernel_",
                        f".wavefront_size: {WAVE[chip]}"]:
                if key not in notes:
                    bad.append(f"{kernel} ({chip}): no '{key}' in the notes")
            if not gemms:
                continue
            dis = functions(subprocess.run(
                [objdump, "-d", f"--mcpu={chip}", hsaco],
                capture_output=True, text=True).stdout)
            for fn, types in sorted(gemms.items()):
                code = dis.get(fn)
                if code is None:
                    bad.append(f"{fn} ({chip}): no tessera_kernel_{fn} in "
                               "the disassembly")
                    continue
                if any((chip, t) in NO_ATOM for t in types):
                    why = "; ".join(NO_ATOM[(chip, t)] for t in sorted(types)
                                    if (chip, t) in NO_ATOM)
                    fma.append(f"{fn} ({chip}): {'/'.join(sorted(types))}: "
                               f"{why}")
                    continue
                missing = [t for t in sorted(types)
                           if t not in INSN[chip] or
                           not re.search(INSN[chip][t], code)]
                if missing:
                    bad.append(f"{fn} ({chip}): no " + ", ".join(
                        INSN[chip].get(t, f"instruction for {t}")
                        for t in missing))
                else:
                    matrix += 1
for f in fma:
    print("vector FMA (no atom):", f)
for b in bad:
    print("FAIL", b)
print(f"hip examples: {compiled} compiled, {expected} expected budget "
      f"errors, {matrix} gemm kernels on matrix cores, {len(fma)} on vector "
      f"FMA, {len(bad)} failures")
sys.exit(1 if bad else 0)
