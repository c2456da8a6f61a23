#!/usr/bin/env bash
# Install everything offlink needs to build and test, from Debian 12 packages.
# Idempotent: packages already present are left alone, so re-running is cheap.
# Needs root (or sudo) because it calls apt-get.
set -euo pipefail

build_pkgs=(
  cmake pkg-config gcc make
  libelf-dev libarchive-dev libcmocka-dev zlib1g-dev libzstd-dev libmd-dev nettle-dev
  libhiredis-dev libcurl4-openssl-dev libxxhash-dev
)
# (qemu-user and the arm64 cross C library run the aarch64 registration
# code in tests/e2e/registration_forms.sh.)
# offlink serves clang 14 (Debian's default clang, the old offload
# driver), 15, 16, 19 and 22; each release's own tools are the oracles for
# its links.  libomptarget 19 runs the linked programs on its
# host device (and libomp-19-dev must stay: the libomp-N-dev packages
# conflict, so 16's and 22's runtimes are unpacked privately, below).
# spirv-tools gives spirv-link, which clang 22 runs for SPIR-V device links
# (OpenMP for Intel GPUs, tests/e2e/omp_spirv.sh).
# redis-server and nginx (WebDAV) serve the remote device-link cache in
# tests/e2e/cache_remote.sh, on loopback ports of the test's own.
# strace holds offlink at a chosen system call (its fault injection), so
# that tests/e2e/sigkill_leftovers.sh kills it there.  ccache is the
# compiler cache of the farm recipe in tests/e2e/cache_farm.sh.
test_pkgs=(
  clang-19 clang-tools-19 llvm-19 lld-19 libomp-19-dev libclang-rt-19-dev
  clang-14 clang-tools-14 llvm-14 lld-14
  clang-15 clang-tools-15 llvm-15 lld-15
  clang-16 clang-tools-16 llvm-16 lld-16
  clang-22 clang-tools-22 llvm-22 lld-22 spirv-tools
  binutils file xxd jq dpkg-dev strace ccache
  redis-server redis-tools nginx-light curl
  qemu-user binutils-aarch64-linux-gnu libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
)
# The OpenMP runtimes of LLVM 14, 15, 16 and 22, unpacked under deps/
# (never installed: installing libomp-N-dev removes libomp-19-dev).  14's
# libomptarget is in libomp-14-dev, 15's in libomp5-15, 22's in
# liboffload-22.
private_runtimes=(
  "llvm14-omp:libomp-14-dev libomp5-14"
  "llvm15-omp:libomp-15-dev libomp5-15"
  "llvm16-omp:libomp-16-dev libomp5-16"
  "llvm22-omp:libomp-22-dev liboffload-22 liboffload-22-dev"
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

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=0
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#want[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  updated=1
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# unpack DIR PACKAGE...: download the packages' .debs and unpack them into
# deps/DIR (once: a stamp names what is there).
unpack() {
  local dir=deps/$1 stamp
  shift
  stamp="$dir/.unpacked-$(echo "$*" | tr ' ' '+')"
  [ -e "$stamp" ] && return 0
  [ $updated = 1 ] || { $sudo apt-get update -qq; updated=1; }
  rm -rf "$dir" "$dir.debs"
  mkdir -p "$dir.debs"
  chmod 777 "$dir.debs"   # apt downloads as _apt
  (cd "$dir.debs" && apt-get download -qq "$@")
  for deb in "$dir.debs"/*.deb; do
    dpkg-deb -x "$deb" "$dir"
  done
  rm -rf "$dir.debs"
  touch "$stamp"
  echo "install-deps: unpacked $* into $dir"
}
if [ "${1:-}" != "--build-only" ]; then
  cd "$(dirname "$0")/.."
  for r in "${private_runtimes[@]}"; do
    unpack "${r%%:*}" ${r#*:}
  done
  # LLVM 22's libomp.so.5 is LLVM 19's (libomp5-19, installed): its link
  # in the unpacked tree points to a system path, relative to the tree.
  ln -sfn /usr/lib/x86_64-linux-gnu/libomp.so.5 deps/llvm22-omp/usr/lib/x86_64-linux-gnu/libomp.so.5
  # clang 23 and 24 come from Debian sid and experimental, in a root of
  # their own (deps/sid), where their tests run.
  ./scripts/install-sid.sh
fi
