# lit configuration for tessera. Loaded through the generated
# lit.site.cfg.py in the build tree, which says where the tools are.
import glob
import os
import subprocess
import sys

import lit.formats
import lit.util

config.name = "tessera"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)

if not hasattr(config, "tessera_tools_dir"):
    lit_config.fatal("run lit on the build tree (<build>/tests/lit), which "
                     "holds the generated lit.site.cfg.py")

# FileCheck, not and count come from LLVM; tessera's tools from the build.
config.environment["PATH"] = os.pathsep.join(
    [config.tessera_tools_dir, config.llvm_tools_dir,
     config.environment.get("PATH", os.environ.get("PATH", ""))])
# Plugins built in this tree, before any installed ones.
plugin_dir = os.path.join(config.tessera_lib_dir, "tessera", "plugins")
config.environment["TESSERA_PLUGIN_PATH"] = plugin_dir
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]


def tool(name):
    return os.path.join(config.tessera_tools_dir, name)


# Longer names first: lit applies substitutions in order, and '%tessera'
# is a prefix of '%tessera-opt' and '%tessera_src'; it comes last.
config.substitutions.append(("%tessera-opt", tool("tessera-opt")))
config.substitutions.append(
    ("%examples", os.path.join(config.tessera_src_root, "examples")))
config.substitutions.append(("%tessera_src", config.tessera_src_root))
for name in ["FileCheck", "not", "count"]:
    path = os.path.join(config.llvm_tools_dir, name)
    if not os.path.exists(path):
        lit_config.fatal("missing LLVM tool %s" % path)

# Features tests can REQUIRES: on.
if os.path.exists(tool("tessera")):
    config.available_features.add("tessera")
    config.substitutions.append(("%tessera", tool("tessera")))
# One feature per plugin manifest in the build tree, e.g. 'plugin-cpu'.
for manifest in glob.glob(os.path.join(plugin_dir, "*.toml")):
    name = os.path.splitext(os.path.basename(manifest))[0]
    config.available_features.add("plugin-" + name)
# SPIR-V tools (Debian's spirv-tools): spirv-val and spirv-dis.
import shutil
if shutil.which("spirv-val") and shutil.which("spirv-dis"):
    config.available_features.add("spirv-tools")
# A Python for helper scripts: the first of lit's own and the `python3` on
# PATH that has numpy (feature 'numpy'), else lit's own.
def has_numpy(python):
    return python and subprocess.call(
        [python, "-c", "import numpy"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL) == 0


python = sys.executable
for candidate in [sys.executable, lit.util.which("python3")]:
    if has_numpy(candidate):
        python = candidate
        config.available_features.add("numpy")
        break
config.substitutions.append(("%python", python))
# Sanitized builds: tests that limit the address space cannot run there.
if getattr(config, "tessera_sanitizers", "OFF").upper() in ("ON", "1", "TRUE"):
    config.available_features.add("asan")
if lit.util.which("nvidia-smi"):
    config.available_features.add("nvidia-gpu")
# A Vulkan device the spirv plugin can run on (lavapipe here and in CI).
if os.path.exists(tool("tessera")):
    try:
        listing = subprocess.run([tool("tessera"), "plugins"],
                                 capture_output=True, text=True,
                                 timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        listing = ""
    if any(l.lstrip().startswith("spirv") and "ready" in l
           for l in listing.splitlines()):
        config.available_features.add("vulkan-device")
