"""Copies the plugin folder of $TESSERA_PLUGIN_PATH to argv[1] with a
lavapipe.toml that sets max_fragment_words_per_thread = 64
(split_threads_run.mlir)."""
import os
import shutil
import sys

src = os.environ["TESSERA_PLUGIN_PATH"].split(os.pathsep)[0]
dst = sys.argv[1]
shutil.copytree(src, dst)
toml = os.path.join(dst, "targets", "lavapipe.toml")
with open(toml) as f:
    text = f.read()
assert "max_fragment_words_per_thread" not in text
text = text.replace("\n[shared_memory]",
                    "\nmax_fragment_words_per_thread = 64\n\n[shared_memory]", 1)
assert "max_fragment_words_per_thread" in text
with open(toml, "w") as f:
    f.write(text)
