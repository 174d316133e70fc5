#!/usr/bin/env python3
"""Compiles a kernel with the hip compiler plugin of this build for a copy
of a shipped target description whose budgets are overridden, through a
plugin folder of its own (a manifest naming the built plugin library by
absolute path). This exercises the budget check that reads the code object
after LLVM's codegen: the limits are set between what distribution counts
(fragments, planned LDS) and what the backend really uses.

Usage: tight_target.py <tessera> <work dir> <chip> <kernel.mlir>
                       <key>=<value>...   (keys: registers.per_thread, ...)
Prints tessera's output; exits with its status.
"""
import os
import re
import subprocess
import sys

tessera, work, chip, kernel = sys.argv[1:5]
overrides = dict(a.split("=", 1) for a in sys.argv[5:])
plugins = os.path.join(os.path.dirname(os.path.abspath(tessera)), "..",
                       "lib", "tessera", "plugins")
library = os.path.abspath(os.path.join(plugins, "libtessera_hip_compiler.so"))
text = open(os.path.join(plugins, "targets", chip + ".toml")).read()
section = ""
lines = []
for line in text.splitlines():
    m = re.match(r"\s*\[+([^\]]+)\]+", line)
    if m:
        section = m.group(1).strip()
    m = re.match(r"\s*(\w+)\s*=", line)
    if m:
        key = (section + "." if section else "") + m.group(1)
        if key in overrides:
            line = f"{m.group(1)} = {overrides[key]}"
    lines.append(line)
os.makedirs(os.path.join(work, "targets"), exist_ok=True)
with open(os.path.join(work, "targets", chip + ".toml"), "w") as f:
    f.write("\n".join(lines) + "\n")
with open(os.path.join(work, "hip.toml"), "w") as f:
    f.write(f"""name = "hip"
version = "0.1.0"
abi_version = "1.1"
runtime_library = "libtessera_hip_runtime.so"
compiler_library = "{library}"
triples = ["amdgcn-amd-amdhsa"]

[targets]
"{chip}" = "targets/{chip}.toml"
""")
env = dict(os.environ, TESSERA_PLUGIN_PATH=work)
r = subprocess.run([tessera, "compile", kernel, "--target",
                    f"amdgcn-amd-amdhsa:{chip}", "--no-cache", "-o",
                    os.path.join(work, "k.tsb")],
                   capture_output=True, text=True, env=env)
sys.stdout.write(r.stdout + r.stderr)
sys.exit(r.returncode)
