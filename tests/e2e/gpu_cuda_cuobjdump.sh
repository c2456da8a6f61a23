#!/usr/bin/env bash
# NVIDIA's own readers accept what offlink embeds for CUDA: cuobjdump
# finds both cubins of the program's fatbinary and their kernels, and
# nvdisasm disassembles every kernel of each extracted cubin.  The CUDA
# installs here (and in CI) lack cuobjdump and nvdisasm, so this test
# says SKIP there; gpu_cuda_rdc.sh checks the same cubins with readelf and
# against nvlink's and fatbinary's own outputs.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19
need_cuda ptxas nvlink fatbinary cuobjdump nvdisasm
GPU_SRC=$OFFLINK_SRC/tests/e2e/gpu

CU=(-x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --cuda-path="$CUDA"
    -Wno-unknown-cuda-version -Xclang -target-sdk-version=12.5 --offload-arch=sm_80,sm_90)
for f in cuda_k1 cuda_k2 cuda_main; do
	check "compile $f" clang-19 "${CU[@]}" -c "$GPU_SRC/$f.cu" -o $f.o
done
check "compile cuda_managed.c" clang-19 -c "$GPU_SRC/cuda_managed.c" -o cuda_managed.o
check "offlink link" clang-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" -B "$COMPAT" \
	cuda_k1.o cuda_k2.o cuda_main.o cuda_managed.o -o prog -L"$OFFLINK_BUILD/lib" -loffstub

KERNELS=(_Z5scalePii _Z4fillPf _Z5resetPl)
"$CUDA/bin/cuobjdump" --list-elf prog >elfs.txt || fail "cuobjdump cannot list the program's cubins"
contains elfs.txt sm_80
contains elfs.txt sm_90
"$CUDA/bin/cuobjdump" --dump-elf-symbols prog >symbols.txt || fail "cuobjdump cannot read the cubins' symbols"
for k in "${KERNELS[@]}"; do contains symbols.txt "$k"; done
mkdir x && (cd x && "$CUDA/bin/cuobjdump" --extract-elf all ../prog >/dev/null) ||
	fail "cuobjdump cannot extract the cubins"
n=0
for cubin in x/*.cubin; do
	"$CUDA/bin/nvdisasm" "$cubin" >"$cubin.sass" || fail "nvdisasm rejects $cubin"
	for k in "${KERNELS[@]}"; do contains "$cubin.sass" "$k"; done
	n=$((n + 1))
done
[ $n = 2 ] || fail "cuobjdump extracted $n cubins, want 2"
echo "PASS: cuobjdump and nvdisasm read offlink's fatbinary"
