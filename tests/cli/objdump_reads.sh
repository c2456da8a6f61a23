#!/usr/bin/env bash
# llvm-objdump-19 --offloading reads objects carrying offlink-binary's
# output (embedded the way clang embeds device code), and offlink-binary
# reads them back.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 llvm-objdump-19

printf 'DEVICE-CODE-1' >dev1.o
printf 'DEVICE-CODE-22' >dev2.cubin
check "package" "$BIN/offlink-binary" -o dev.bin \
	--image=file=dev1.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp \
	--image=file=dev2.cubin,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=cuda
echo 'int host_side(void) { return 42; }' >host.c
check "embed" clang-19 -c host.c -o host.o -Xclang -fembed-offload-object=dev.bin
llvm-objdump-19 --offloading host.o >dump.txt || fail "objdump rejected our binary: $(cat dump.txt)"
contains dump.txt "OFFLOADING IMAGE [0]"
contains dump.txt "OFFLOADING IMAGE [1]"
contains dump.txt "cubin"
contains dump.txt "sm_80"
contains dump.txt "producer        cuda"
"$BIN/offlink-binary" --list host.o >list.txt || fail "list"
contains list.txt "cubin"
contains list.txt "nvptx64-nvidia-cuda"

# Version 2 and 3 are newer LLVM's: offlink writes and reads them.
for v in 2 3; do
	check "v$v" "$BIN/offlink-binary" -o dev$v.bin --format-version=$v \
		--image=file=dev1.o,triple=x86_64-pc-linux-gnu,kind=openmp \
		--image=file=dev2.cubin,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=cuda
	"$BIN/offlink-binary" --list dev$v.bin >v$v.txt || fail "list v$v"
	[ "$(wc -l <v$v.txt)" = 3 ] || fail "v$v: want 2 images"
	(mkdir x$v && cd x$v && "$BIN/offlink-binary" ../dev$v.bin --image=file=got,arch=sm_80) || fail "extract v$v"
	same_bytes x$v/got dev2.cubin
done
for fmt in zstd zlib; do
	check "compress $fmt" "$BIN/offlink-binary" -o c-$fmt.bin --compress --compression-format=$fmt \
		--image=file=dev2.cubin,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=cuda
	(mkdir y$fmt && cd y$fmt && "$BIN/offlink-binary" ../c-$fmt.bin --image=file=got) || fail "extract $fmt"
	same_bytes y$fmt/got dev2.cubin
	"$BIN/offlink-binary" --list --json c-$fmt.bin | grep -q '"kind": "cubin"' || fail "list $fmt"
done
# LLVM 19 reads version 1 only, and says so for the others.
expect_status 1 llvm-objdump-19 --offloading dev2.bin
echo "PASS: objdump reads offlink's binaries"
