#!/usr/bin/env bash
# scripts/gpu-check.sh, which runs the GPU checks where a GPU is, keeps
# building: its OpenMP and CUDA programs link through offlink and register
# their sm_90 images under the stub.
# ctest-cost: 12
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 clang++-19
need_cuda ptxas nvlink fatbinary
[ -e "$CUDA/lib64/libcudart.so" ] || skip "NVIDIA's libcudart.so not found in $CUDA/lib64"
OFFLINK_BUILD=$OFFLINK_BUILD CUDA_PATH=$CUDA "$OFFLINK_SRC/scripts/gpu-check.sh" --build-only 2>err ||
	fail "gpu-check.sh --build-only: $(tail -5 err)"
contains err "both programs built and register sm_90 images"
echo "PASS: gpu-check builds"
