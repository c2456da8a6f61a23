#!/usr/bin/env bash
# The main job: build offlink, compile the bundled OpenMP example with
# clang-19, link it through offlink (clang-19 -B build/compat picks offlink
# up as clang-linker-wrapper), run it on libomptarget 19's host device, and
# list the device image inside the program.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
omp=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)

echo "== compile examples/saxpy.c (host code + x86_64 device code)"
clang-19 "${omp[@]}" -O2 -c examples/saxpy.c -o "$out/saxpy.o"
echo "== link through offlink"
clang-19 "${omp[@]}" -B build/compat "$out/saxpy.o" -o "$out/saxpy" -v 2>&1 | grep '^offlink'
echo "== run on libomptarget's host device"
LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY "$out/saxpy"
echo "== the registered device image, as offlink-binary lists it"
build/bin/offlink-binary --list "$out/saxpy"
