#!/usr/bin/env bash
# Install everything offlink needs to build and test, from Debian 12 packages.
# Idempotent: packages already present are left alone, so re-running is cheap.
# Needs root (or sudo) because it calls apt-get.
set -euo pipefail

build_pkgs=(
  cmake pkg-config gcc make
  libelf-dev libarchive-dev libcmocka-dev zlib1g-dev libzstd-dev libmd-dev
)
# The real LLVM 19 tools are the oracles the tests compare against, and
# libomptarget 19 runs the linked programs on its host device.
test_pkgs=(
  clang-19 clang-tools-19 llvm-19 lld-19 libomp-19-dev libclang-rt-19-dev
  binutils file xxd jq
)

want=("${build_pkgs[@]}")
if [ "${1:-}" != "--build-only" ]; then
  want+=("${test_pkgs[@]}")
fi

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#want[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
