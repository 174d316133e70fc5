#!/usr/bin/env bash
# Side-by-side ncu accounts (speed of light, tensor pipes, occupancy, warp
# stall reasons) and SASS of GEMM kernels at 4096, for finding why one
# lowering is slower than another. Bundles from .devcarry (prepare.sh).
#   scripts/gpu/ncu-compare.sh name=bundle...
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"; cd "$root"
out="${OUT:-/tmp/tessera-gpu}"; mkdir -p "$out"
bin=.devcarry/build/bin
export LD_LIBRARY_PATH="$root/.devcarry/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TESSERA_PLUGIN_PATH="$root/.devcarry/build/lib/tessera/plugins"
for pair in "$@"; do
  name="${pair%%=*}"; bundle="${pair#*=}"
  "$bin/tessera" run "$bundle" --device cuda --shape M=4096,N=4096,K=4096 --flops 2*M*N*K \
    --iters 20 --warmup 5 --no-check --json 2>&1 | tail -1 | sed "s|^{|{\"name\": \"$name\", |" | tee -a "$out/times.jsonl"
  ncu --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section LaunchStats -k regex:tessera_kernel --launch-skip 1 --launch-count 1 \
    "$bin/tessera" run "$bundle" --device cuda --shape M=4096,N=4096,K=4096 --iters 1 --warmup 1 --no-check \
    > "$out/ncu-$name.txt" 2>&1
  python3 - "$bundle" "$out/$name.cubin" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read(); off = 0
while off + 24 <= len(data):
    size, eoff = struct.unpack_from("<QQ", data, off + 8)
    kind, _, _, soff, nstr, ioff, isize = struct.unpack_from("<HHIQQQQ", data, off + eoff)
    strs = {}
    for i in range(nstr):
        k, v = struct.unpack_from("<QQ", data, off + soff + 16 * i)
        strs[data[off + k:data.index(b"\0", off + k)].decode()] = data[off + v:data.index(b"\0", off + v)].decode(errors="replace")
    if strs.get("triple", "").startswith("nvptx"):
        open(sys.argv[2], "wb").write(data[off + ioff:off + ioff + isize])
    off += (size + 7) // 8 * 8
PY
  cuobjdump -sass "$out/$name.cubin" > "$out/sass-$name.txt" 2>&1; rm -f "$out/$name.cubin"
  echo "== $name"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Stall|Executed Ipc A" "$out/ncu-$name.txt" | head -20
done
