#!/usr/bin/env bash
# The main job: build offlink, then package two device images with
# offlink-binary and list them (the linker-wrapper demo replaces this once
# the wrapper exists).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'x86_64 device code' >"$work/host-dev.o"
printf 'sm_90 device code' >"$work/gpu-dev.cubin"
build/bin/offlink-binary -o "$work/images.bin" \
	--image=file="$work/host-dev.o",triple=x86_64-pc-linux-gnu,arch=,kind=openmp \
	--image=file="$work/gpu-dev.cubin",triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp
build/bin/offlink-binary --list "$work/images.bin"
