# Sourced by the scripts/gpu/*.sh that run on the GPU machine over
# .devcarry/ (scripts/gpu/prepare.sh): the repository root as the working
# folder, $out for results ($OUT of the device tool), $bin for the carried
# tools, and the carried libraries and plugins in place of the build tree's
# that their RUNPATHs name.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; cd "$root"
out="${OUT:-/tmp/tessera-gpu}"; mkdir -p "$out"
bin="$root/.devcarry/build/bin"
export LD_LIBRARY_PATH="$root/.devcarry/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TESSERA_PLUGIN_PATH="$root/.devcarry/build/lib/tessera/plugins"

# check BUNDLE ARGS...: runs BUNDLE on the GPU against its host image
# (appending the tool's output to $log) and prints "ok" or "FAIL" and the
# arguments.
check() {
  if timeout 60 "$bin/tessera" run "$1" --device cuda --iters 2 --warmup 1 "${@:2}" >>"$log" 2>&1; then
    echo "ok   $*"; else echo "FAIL $*"; fi
}

# sanitize "BUNDLE ARGS..." ...: compute-sanitizer's memcheck, racecheck and
# synccheck on each run, one summary line per tool and run.
sanitize() {
  local tool run rc
  for tool in memcheck racecheck synccheck; do
    for run in "$@"; do
      timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$bin/tessera" run $run \
        --device cuda --iters 1 --warmup 0 > /tmp/san.txt 2>&1; rc=$?
      echo "$tool rc=$rc ${run%% *}: $(grep -E 'check:|SUMMARY|Error' /tmp/san.txt | head -3 | tr '\n' ' ')"
    done
  done
}

# timed DIR BUILD KERNEL SHAPE [ARGS...]: times DIR/BUILD/KERNEL.tsb (30
# iterations, normal inputs) and appends {"round", "build", "kernel",
# "shape", "ms"} to $ab ($r is the round).
timed() {
  local j; j=$(timeout 60 "$bin/tessera" run "$1/$2/$3.tsb" --device cuda --shape "$4" --iters 30 \
    --warmup 5 --no-check --json --fill normal "${@:5}" 2>&1 | grep '^{' | tail -1)
  echo "{\"round\": $r, \"build\": \"$2\", \"kernel\": \"$3\", \"shape\": \"$4 ${*:5}\", \"ms\": $(echo "$j" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' 2>/dev/null || echo null)}" >> "$ab"
}

# ab_table FILE BUILD...: per kernel and shape in FILE (timed's lines), the
# best time of each build and each build's time over the first's.
ab_table() {
  python3 - "$@" <<'PY'
import json, sys, collections
ms = collections.defaultdict(list)
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["ms"]: ms[(d["kernel"], d["shape"], d["build"])].append(d["ms"])
builds = sys.argv[2:]
for k, s in sorted({(k, s) for k, s, _ in ms}):
    row = [min(ms.get((k, s, b), [0])) for b in builds]
    print(f"{k:30s} {s:60s} " + "  ".join(f"{b} {v:.4f}" for b, v in zip(builds, row))
          + "".join(f"  {b}/{builds[0]} {v / row[0]:.3f}" for b, v in zip(builds[1:], row[1:]) if row[0]))
PY
}
