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
