#!/usr/bin/env python3
"""Compiles every kernel under examples/ (recursively) for the Vulkan targets
named and validates each SPIR-V module with spirv-val (Vulkan 1.3 rules).
Prints one line per failure and a summary. A chip written `budget:<chip>`
tolerates register-budget errors (reported as SKIP lines): the generic
description's one-thread "warps" replicate 1-D fragments in every thread.
Usage: check_spirv.py <tessera> <examples dir> <work dir> <chip>..."""
import os
import subprocess
import sys

tessera, examples, work = sys.argv[1:4]
chips = sys.argv[4:]
bad, skipped, checked = [], [], 0
for root, _, files in sorted(os.walk(examples)):
    for name in sorted(files):
        if not name.endswith(".mlir"):
            continue
        path = os.path.join(root, name)
        for spec in chips:
            tolerate = spec.startswith("budget:")
            chip = spec[len("budget:"):] if tolerate else spec
            out = os.path.join(work, f"{name}.{chip}")
            os.makedirs(out, exist_ok=True)
            r = subprocess.run([tessera, "compile", path, "--target",
                                f"spirv64-unknown-vulkan1.3:{chip}", "--no-cache",
                                "--dump-dir", out, "-o", os.path.join(out, "k.tsb")],
                               capture_output=True, text=True)
            checked += 1
            if r.returncode != 0 and tolerate and "registers per thread, more than" in r.stderr:
                skipped.append(f"{path} ({chip}): register budget")
                continue
            if r.returncode != 0:
                bad.append(f"{path} ({chip}): does not compile: {r.stderr.strip()[-300:]}")
                continue
            spv = os.path.join(out, f"kernels.{chip}.spv")
            v = subprocess.run(["spirv-val", "--target-env", "vulkan1.3", spv],
                               capture_output=True, text=True)
            if v.returncode != 0:
                bad.append(f"{path} ({chip}): spirv-val: {(v.stdout + v.stderr).strip()[-300:]}")
for s_ in skipped:
    print("SKIP", s_)
for b in bad:
    print("FAIL", b)
print(f"spirv: {checked} compiles checked, {len(bad)} failed, {len(skipped)} over the register budget")
sys.exit(1 if bad else 0)
