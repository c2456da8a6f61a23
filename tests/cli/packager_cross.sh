#!/usr/bin/env bash
# Each tool extracts what the other packaged, with LLVM's matching rules
# and file naming, and gets the original bytes back.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-offload-packager-19

printf 'IMAGE-A' >a.o
printf 'IMAGE-B-LONGER' >b.cubin
printf 'BC\xc0\xde' >c.bc
imgs=(--image=file=a.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp
      --image=file=b.cubin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=cuda
      --image=file=c.bc,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip)
clang-offload-packager-19 -o llvm.bin "${imgs[@]}" || fail "packager"
"$BIN/offlink-binary" -o ours.bin "${imgs[@]}" || fail "offlink-binary"

# file= given: the matching image goes there.
for pkg in llvm ours; do
	for tool in clang-offload-packager-19 "$BIN/offlink-binary"; do
		tag=$pkg-$(basename "$tool")
		rm -f out-*
		check "$tag extract" "$tool" "$pkg.bin" \
			--image=file=out-cuda,kind=cuda \
			--image=file=out-gfx,arch=gfx90a \
			--image=file=out-x86,triple=x86_64-pc-linux-gnu
		same_bytes out-cuda b.cubin
		same_bytes out-gfx c.bc
		same_bytes out-x86 a.o
	done
done

# No file=: generated names <stem>-<triple>-<arch>.<n>.<ext>, identical
# between the tools (including the empty arch and the per-image counter).
mkdir llvm-names ours-names
(cd llvm-names && clang-offload-packager-19 ../ours.bin --image=kind=openmp --image=triple=nvptx64-nvidia-cuda --image=foo=) || fail "llvm names"
(cd ours-names && "$BIN/offlink-binary" ../llvm.bin --image=kind=openmp --image=triple=nvptx64-nvidia-cuda --image=foo=) || fail "our names"
# The stems differ (ours.bin vs llvm.bin); compare with the stem replaced.
(cd llvm-names && ls | sed 's/^ours-//' | sort) >llvm.list
(cd ours-names && ls | sed 's/^llvm-//' | sort) >ours.list
diff -u llvm.list ours.list || fail "generated names differ"
contains ours.list "x86_64-pc-linux-gnu-.0.o"
contains ours.list "nvptx64-nvidia-cuda-sm_90.0.cubin"
contains ours.list "amdgcn-amd-amdhsa-gfx90a.2.bc"
for f in $(cat ours.list); do
	same_bytes "llvm-names/ours-$f" "ours-names/llvm-$f"
done

# Several matches for one file=: the last wins, with LLVM's warning.
expect_status 0 "$BIN/offlink-binary" ours.bin --image=file=many,foo=
contains "$T/stderr" "Multiple inputs match to a single file, 'many'"
same_bytes many c.bc
echo "PASS: cross extraction"
