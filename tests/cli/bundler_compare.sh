#!/usr/bin/env bash
# offlink-bundler -llvm=19 writes what clang-offload-bundler-19 writes,
# byte for byte (bundler_releases.sh does 16 and 22): binary bundles of 1 to 4 targets for several types and
# -bundle-align values, text bundles of every text type, and compressed
# bundles (same zstd library and level give the same bytes).  Compressed
# ones also decompress identically through either tool.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-offload-bundler-19
LLVM=clang-offload-bundler-19
OURS=("$BIN/offlink-bundler" -llvm=19)

printf 'HOST-PART' >host.bin
printf 'NVPTX-SM90-CODE' >dev1.bin
head -c 5000 /dev/urandom >dev2.bin
printf 'gfx908' >dev3.bin
: >empty.bin
H=host-x86_64-unknown-linux-gnu
T1=openmp-nvptx64-nvidia-cuda-sm_90
T2=hip-amdgcn-amd-amdhsa-gfx90a:xnack+
T3=hipv4-amdgcn-amd-amdhsa-gfx908
T4=openmp-x86_64-pc-linux-gnu

both() { # NAME ARGS...: run both tools, outputs NAME.llvm and NAME.ours
	local name=$1
	shift
	check "$name (LLVM)" "$LLVM" "$@" -output="$name.llvm"
	check "$name (ours)" "${OURS[@]}" "$@" -output="$name.ours"
	same_bytes "$name.llvm" "$name.ours"
}

n=0
for type in bc gch ast o; do
	for align in 1 8 64 4096; do
		both "b1-$type-$align" -type=$type -bundle-align=$align -targets=$H -input=host.bin
		both "b2-$type-$align" -type=$type -bundle-align=$align -targets=$H,$T1 -input=host.bin -input=dev1.bin
		both "b3-$type-$align" -type=$type -bundle-align=$align -targets=$T2,$H,$T1 \
			-input=dev2.bin -input=host.bin -input=dev1.bin
		both "b4-$type-$align" -type=$type -bundle-align=$align -targets=$H,$T1,$T2,$T3 \
			-input=empty.bin -input=dev1.bin -input=dev2.bin -input=dev3.bin
		n=$((n + 4))
	done
done
# Images of several MiB are written from the input file, not the
# mapping: in 1 MiB blocks off a block boundary, and at -bundle-align=4096
# through a reflink where the file system has one (else the same blocks).
head -c 3500000 /dev/urandom >big.bin
for align in 1 4096; do
	both "big-$align" -type=o -bundle-align=$align -targets=$H,$T2,$T1 \
		-input=host.bin -input=big.bin -input=dev2.bin
	n=$((n + 1))
done
check "unbundle big (ours)" "${OURS[@]}" -type=o -unbundle -targets=$T2 -input=big-4096.ours -output=big.back
same_bytes big.bin big.back

# HIP-only bundles need no host entry; 3-field triples are padded.
both hip-only -type=bc -targets=hip-amdgcn-amd-amdhsa-gfx90a,$T3 -input=dev1.bin -input=dev2.bin
both three-field -type=bc -targets=host-x86_64-unknown-linux,$T4 -input=host.bin -input=dev1.bin
n=$((n + 2))

# Text bundles, every text type, with and without a final newline.
printf 'int host_side;\n' >h.txt
printf 'int device_side;' >d.txt
for type in i ii cui hipi d ll s; do
	both "text-$type" -type=$type -targets=$H,$T1,$T2 -input=h.txt -input=d.txt -input=empty.bin
	n=$((n + 1))
done

# Compressed: zstd at LLVM's default level and others.
for level in "" 1 9 19; do
	lv=${level:+-compression-level=$level}
	both "ccob$level" -type=bc -compress $lv -targets=$H,$T1,$T2 -input=host.bin -input=dev1.bin -input=dev2.bin
	n=$((n + 1))
done
OFFLOAD_BUNDLER_COMPRESS=1 both ccob-env -type=bc -targets=$H,$T1 -input=host.bin -input=dev1.bin
n=$((n + 1))

# Each tool decompresses both tools' compressed bundles to the same entries.
for src in ccob.llvm ccob.ours ccob19.llvm ccob19.ours; do
	for tool in "$LLVM" "${OURS[*]}"; do
		rm -f x1 x2 x3
		# shellcheck disable=SC2086
		check "unbundle $src with $tool" $tool -unbundle -type=bc -targets=$H,$T1,$T2 \
			-input="$src" -output=x1 -output=x2 -output=x3
		same_bytes x1 host.bin
		same_bytes x2 dev1.bin
		same_bytes x3 dev2.bin
	done
done
echo "PASS: $n bundles byte-identical to clang-offload-bundler-19"
