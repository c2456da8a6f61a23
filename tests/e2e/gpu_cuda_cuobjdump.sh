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
. "$OFFLINK_SRC/tests/lib/stub.sh"

compile_cuda_program
check "offlink link" clang-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" -B "$COMPAT" \
	"${CUDA_OBJS[@]}" -o prog -L"$OFFLINK_BUILD/lib" -loffstub

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
