#!/usr/bin/env bash
# offlink-binary packages exactly as clang-offload-packager-19 does: for
# every combination below both tools package the same images, and the
# outputs are byte-identical (the string entries in LLVM 19's hash-table
# order too; tests/cli/packager_releases.sh does 16 and 22).
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-offload-packager-19 head

printf 'HELLO' >a.o
printf 'WORLD-WIDE' >b.o
: >empty.o
head -c 3000000 /dev/urandom >large.o
printf 'BC\xc0\xde-not-really-bitcode' >magic.img
printf 'CUBIN' >k.cubin
printf 'FATBIN!!' >k.fatbin
printf '.version 8.0' >k.s
printf 'noext' >noext

cases=(
  "one-image|--image=file=a.o,triple=x86_64-unknown-linux-gnu,arch=,kind=openmp"
  "nvptx-cuda|--image=file=b.o,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda"
  "three-images|--image=file=a.o,triple=x86_64-pc-linux-gnu,kind=openmp --image=file=b.o,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp --image=file=k.cubin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda"
  "extra-keys|--image=file=a.o,triple=t,arch=a,kind=openmp,feature=f,zeta=z,alpha=al"
  "empty-image|--image=file=empty.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"
  "large-image|--image=file=large.o,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp"
  "bitcode-magic|--image=file=magic.img,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=hip"
  "cuda-kinds|--image=file=k.cubin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda --image=file=k.fatbin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda --image=file=k.s,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda"
  "unknown-kind|--image=file=noext,triple=x86_64-pc-linux-gnu,kind=HIP"
  "two-files-one-image|--image=file=a.o,file=b.o,triple=x86_64-pc-linux-gnu,arch=znver3,kind=openmp"
  "repeated-key|--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_90,feature=+ptx80,feature=+sm_90,kind=openmp"
  "value-with-equals|--image=file=b.o,triple=x86_64-pc-linux-gnu,opts=-O2=fast,bare,kind=openmp"
  "tail-merge|--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=cuda,x=nvidia-cuda,y=a,kind=cuda"
)

n=0
for c in "${cases[@]}"; do
	name=${c%%|*}
	# shellcheck disable=SC2206
	args=(${c#*|})
	check "$name: clang-offload-packager-19" clang-offload-packager-19 -o "llvm-$name.bin" "${args[@]}"
	check "$name: offlink-binary" "$BIN/offlink-binary" --llvm=19 -o "ours-$name.bin" "${args[@]}"
	same_bytes "llvm-$name.bin" "ours-$name.bin"
	n=$((n + 1))
done

# stdin as an image (file=-)
printf 'FROM-STDIN' | clang-offload-packager-19 -o llvm-stdin.bin --image=file=-,triple=x86_64-pc-linux-gnu,kind=openmp
printf 'FROM-STDIN' | "$BIN/offlink-binary" --llvm=19 -o ours-stdin.bin --image=file=-,triple=x86_64-pc-linux-gnu,kind=openmp
same_bytes llvm-stdin.bin ours-stdin.bin
n=$((n + 1))
echo "PASS: $n combinations byte-identical"
