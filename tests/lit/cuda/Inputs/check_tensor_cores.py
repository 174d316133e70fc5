#!/usr/bin/env python3
"""Compiles every kernel under examples/ (recursively) that has a tile.gemm
for sm_80 and sm_90a and fails if its PTX has no tensor-core instruction:
mma.sync on sm_80 (fp8 has none there: skipped), wgmma.mma_async or mma.sync
on sm_90a. f32 x f32 gemms take vector FMA (no tf32 atom is used) and are
skipped. Usage: check_tensor_cores.py <tessera> <examples dir> <work dir>"""
import os
import re
import subprocess
import sys

tessera, examples, work = sys.argv[1:4]
bad, checked = [], 0
for root, _, files in sorted(os.walk(examples)):
    for name in sorted(files):
        if not name.endswith(".mlir"):
            continue
        path = os.path.join(root, name)
        text = open(path).read()
        operands = set(re.findall(r"tile\.gemm[^\n]*:\s*!tile\.tile<[0-9x]+(\w+),", text))
        if not operands or operands == {"f32"}:
            continue
        chips = ["sm_90a"] if any(o.startswith("f8") for o in operands) else ["sm_80", "sm_90a"]
        for chip in chips:
            out = os.path.join(work, f"{name}.{chip}")
            os.makedirs(out, exist_ok=True)
            r = subprocess.run([tessera, "compile", path, "--target", f"nvptx64-nvidia-cuda:{chip}",
                                "--no-cache", "--dump-dir", out, "-o", os.path.join(out, "k.tsb")],
                               capture_output=True, text=True)
            checked += 1
            if r.returncode != 0:
                bad.append(f"{path} ({chip}): does not compile: {r.stderr.strip()[-300:]}")
                continue
            ptx = "".join(open(os.path.join(out, f)).read() for f in os.listdir(out) if f.endswith(".ptx"))
            ok = "mma.sync" in ptx if chip == "sm_80" else ("wgmma.mma_async" in ptx or "mma.sync" in ptx)
            if not ok:
                bad.append(f"{path} ({chip}): no tensor-core instruction")
for b in bad:
    print("FAIL", b)
print(f"tensor cores: {checked} compiles checked, {len(bad)} without tensor-core instructions")
sys.exit(1 if bad else 0)
