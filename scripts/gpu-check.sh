#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: link an OpenMP program (nvptx) and a
# CUDA program (-fgpu-rdc) with offlink and run them on the GPU, under
# libomptarget 19 and NVIDIA's CUDA runtime; print a line for
# docs/gpu-runs.md.  Needs a build (scripts/test.sh or cmake) in
# $OFFLINK_BUILD (default build/), clang-19, libomp-19-dev and CUDA in
# $CUDA_PATH (default /usr/local/cuda).
#
#   scripts/gpu-check.sh               run on the GPU (exit 77: no GPU)
#   scripts/gpu-check.sh --build-only  build both, check them under the
#                                      runtime stub (any machine)
set -euo pipefail
cd "$(dirname "$0")/.."
B=$(realpath "${OFFLINK_BUILD:-build}")
CUDA=${CUDA_PATH:-/usr/local/cuda}
out=$(mktemp -d "${TMPDIR:-/tmp}/offlink-gpu.XXXXXX")
trap 'rm -rf "$out"' EXIT

if [ "${1:-}" = --build-only ]; then
	sm=${SM:-sm_90}
else
	command -v nvidia-smi >/dev/null || { echo "SKIP: no nvidia-smi, so no NVIDIA GPU here" >&2; exit 77; }
	cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)
	sm=sm_${cap/./}
fi
echo "gpu-check: $sm, CUDA in $CUDA, offlink in $B" >&2

cuda=(--cuda-path="$CUDA" -Wno-unknown-cuda-version)
clang-19 -fopenmp --offload-arch="$sm" -nogpulib "${cuda[@]}" -c tests/e2e/gpu/omp_gpu.c -o "$out/omp.o"
clang-19 -fopenmp --offload-arch="$sm" "${cuda[@]}" -B "$B/compat" "$out/omp.o" -o "$out/omp"
clang-19 -x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib "${cuda[@]}" \
	-Xclang -target-sdk-version=12.5 --offload-arch="$sm" -c examples/gpu/cuda_saxpy.cu -o "$out/saxpy.o"
clang++-19 --offload-new-driver -fgpu-rdc -B "$B/compat" "$out/saxpy.o" -o "$out/saxpy" \
	-L"$CUDA/lib64" -lcudart -Wl,-rpath,"$CUDA/lib64"

if [ "${1:-}" = --build-only ]; then
	OFFSTUB_LOG="$out/log" LD_PRELOAD="$B/lib/liboffstub.so" LD_LIBRARY_PATH=/usr/lib/llvm-19/lib \
		"$out/omp" >/dev/null
	OFFSTUB_LOG="$out/log" LD_PRELOAD="$B/lib/liboffstub.so" "$out/saxpy" >/dev/null || true
	grep -q "\"arch\": \"$sm\"" "$out/log" || { echo "gpu-check: no $sm image registered" >&2; exit 1; }
	echo "gpu-check: both programs built and register $sm images (not run on a GPU)" >&2
	exit 0
fi

omp=$(OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH=/usr/lib/llvm-19/lib "$out/omp" 2>&1) || true
cu=$("$out/saxpy" 2>&1) || true
ok() { case "$1" in *"$2"*) echo pass ;; *) echo "FAIL ($1)" ;; esac; }
r_omp=$(ok "$omp" "initial=0 sum=36 n=4950")
r_cuda=$(ok "$cu" "0 wrong of")
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
echo "| $(date -u +%F) | $(hostname) | $gpu | $sm | OpenMP: $r_omp | CUDA: $r_cuda |"
[ "$r_omp$r_cuda" = passpass ]
