"""Copies the plugin folder of $TESSERA_PLUGIN_PATH to argv[1] with the
target file argv[2] (default lavapipe.toml) setting
max_fragment_words_per_thread = 64 (no shipped target sets it: the split
measured slower on NVIDIA's Vulkan driver)."""
import os
import re
import shutil
import sys

src = os.environ["TESSERA_PLUGIN_PATH"].split(os.pathsep)[0]
dst = sys.argv[1]
shutil.copytree(src, dst)
name = sys.argv[2] if len(sys.argv) > 2 else "lavapipe.toml"
toml = os.path.join(dst, "targets", name)
with open(toml) as f:
    text = f.read()
assert not re.search(r"^max_fragment_words_per_thread", text, re.M)
text = text.replace("\n[shared_memory]",
                    "\nmax_fragment_words_per_thread = 64\n\n[shared_memory]", 1)
assert re.search(r"^max_fragment_words_per_thread = 64$", text, re.M)
with open(toml, "w") as f:
    f.write(text)
