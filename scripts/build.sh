#!/usr/bin/env bash
# Configures and builds one CMake preset (default: "default"), with ccache
# shared across clones of the repository.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
preset="${1:-default}"
shift || true
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cd "$root"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -- "$@"
