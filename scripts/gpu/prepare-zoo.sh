#!/usr/bin/env bash
# Cross-compiles every examples/zoo kernel for <chip> plus the host (the CPU
# image checks the GPU's results) into .devcarry/zoo/, with list.txt naming
# each bundle and the odd shapes tests/lit/run/zoo-cpu.test runs it on.
#   scripts/gpu/prepare-zoo.sh [chip]   (after scripts/gpu/prepare.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
chip="${1:-sm_90a}"; host="$(uname -m)-unknown-linux-gnu"
rm -rf .devcarry/zoo && mkdir -p .devcarry/zoo
for f in examples/zoo/*.mlir; do
  TESSERA_NO_CACHE=1 build/default/bin/tessera compile "$f" --target "nvptx64-nvidia-cuda:$chip" \
    --target "$host" -o ".devcarry/zoo/$(basename "$f" .mlir).tsb"
done
python3 - <<'PY'
import re
pairs, cur = [], None
for l in open("tests/lit/run/zoo-cpu.test"):
    m = re.search(r"compile %examples/zoo/(\S+)\.mlir", l)
    if m:
        cur = m.group(1)
        continue
    m = re.search(r"run %t/a.tsb (.*?) --iters", l)
    if m and cur:
        pairs.append((cur, m.group(1)))
with open(".devcarry/zoo/list.txt", "w") as f:
    for k, a in pairs:
        f.write(f".devcarry/zoo/{k}.tsb {a}\n")
PY
