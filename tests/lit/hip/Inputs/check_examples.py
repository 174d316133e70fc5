#!/usr/bin/env python3
"""Compiles every kernel under examples/ (recursively: the examples and the
zoo) for the AMD chips given and checks each hsaco:

- it compiles, except for the (kernel, chip) pairs in EXPECTED_FAILURES,
  which must still fail with the error given there (so the list stays
  current when the core learns to fit them);
- `llvm-readelf --notes` shows the kernel metadata the runtime needs:
  amdhsa.kernels with the kernel's .name, .group_segment_fixed_size,
  .vgpr_count and the chip's .wavefront_size (64 on CDNA, 32 on RDNA);
- every kernel with a tile.gemm whose operands have a matrix-core atom on
  the chip reaches it: v_mfma_* on gfx942/gfx950, v_wmma_* on
  gfx1100/gfx1201 in `llvm-objdump -d --mcpu=<chip>`. Gemms without an atom
  take vector FMA and are listed: f32 x f32 everywhere (no xf32 atom is
  used), fp8 on gfx942 (CDNA3's fp8 MFMA reads the FNUZ encodings, not the
  tile dialect's OCP E4M3/E5M2) and on RDNA, i8 on RDNA.

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
# Operand types with a matrix-core atom, by chip.
ATOMS = {
    "gfx942": {"f16", "bf16", "i8", "f32"},
    "gfx950": {"f16", "bf16", "i8", "f8E4M3FN", "f8E5M2", "f32"},
    "gfx1100": {"f16", "bf16"},
    "gfx1201": {"f16", "bf16"},
}
# The zoo's attention tiles were sized for NVIDIA's 228 KiB of shared
# memory; they fit 64 KiB of LDS (gfx942, gfx1100, gfx1201) because the
# pipeline falls back to one stage, conversions stage in their element type
# and tessera-plan-shared puts conversion/reduction scratch into tiles that
# are dead there (K's buffer). A pair listed here must fail with its reason.
LDS = "bytes of shared memory"
EXPECTED_FAILURES = {}

readelf, objdump = shutil.which("llvm-readelf"), shutil.which("llvm-objdump")
if not readelf or not objdump:
    sys.exit("llvm-readelf and llvm-objdump must be on PATH")
bad, compiled, expected, matrix, fma = [], 0, 0, 0, []
for root, _, files in sorted(os.walk(examples)):
    for name in sorted(files):
        if not name.endswith(".mlir"):
            continue
        path = os.path.join(root, name)
        kernel = name[:-len(".mlir")]
        text = open(path).read()
        operands = set(re.findall(
            r"tile\.gemm[^\n]*:\s*!tile\.tile<[0-9x]+x(\w+),", text))
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
            if not operands:
                continue
            if not operands <= ATOMS[chip]:
                fma.append(f"{kernel} ({chip}): {'/'.join(sorted(operands))}")
                continue
            dis = subprocess.run(
                [objdump, "-d", f"--mcpu={chip}",
                 hsaco], capture_output=True, text=True).stdout
            insn = "v_mfma_" if chip in CDNA else "v_wmma_"
            if insn not in dis:
                bad.append(f"{kernel} ({chip}): no {insn}* instruction")
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
