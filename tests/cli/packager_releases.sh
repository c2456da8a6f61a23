#!/usr/bin/env bash
# Issue 10: offlink-binary writes what each release's packager writes,
# byte for byte: clang-offload-packager-15, -16, -19 and
# llvm-offload-binary-22, -23, -24 (15 stores the strings in the order of a
# StringMap filled from a StringMap of every --image key, 16 in its
# StringMap's order filled from a DenseMap, 19 on in the order of the
# DenseMap, whose string hash is xxh3 from 23; 22 on number HIP 4 and SYCL
# 8; 23 writes one version 2 binary for all images, 24 version 3).  The
# release comes from --llvm=, $OFFLINK_LLVM, or the clang that runs the
# tool.  Random key sets (a fixed seed) exercise both hash tables' probing
# and growth: up to 60 keys, keys up to 100 bytes, repeated keys; and
# several images in one package.
# One CTest test per release (OFFLINK_PART; by hand without it, all four
# of Debian 12); 23 and 24 run in the sid root (tests/lib/in_sid.sh).
# ctest-parts: 15 16 19 22 23 24
# ctest-sid: 23 24
. "$OFFLINK_SRC/tests/lib/testlib.sh"

printf 'DEVICE-IMAGE' >img.o
# (no subshell draws from RANDOM: bash reseeds it in each one, and the key
# sets would differ from run to run)
RANDOM=4242
letters=abcdefghijklmnopqrstuvwxyz
key() { # a random key of 1 to 100 letters, in $k
	local n=$((1 + RANDOM % (RANDOM % 3 == 0 ? 100 : 12)))
	k=""
	while [ ${#k} -lt $n ]; do k+=${letters:RANDOM % 26:1}; done
}
specs=("triple=t,k1=v,k2=v" "feature=+ptx80,arch=sm_90,triple=nvptx64-nvidia-cuda"
	"triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=hip" "kind=sycl,triple=spirv64"
	"arch=a,triple=t,arch=b,kind=cuda")
for ((i = 1; i <= 40; i++)); do
	n=$((1 + RANDOM % (i % 4 == 0 ? 60 : 14)))
	s="triple=x86_64-pc-linux-gnu"
	for ((j = 0; j < n; j++)); do key; s+=",$k=$RANDOM"; done
	[ $((i % 3)) = 0 ] && s="kind=hip,$s"
	specs+=("$s")
done

# Several images in one package (one binary each up to 22, one binary
# for all from 23), a SYCL image among them.
printf 'SECOND IMAGE, ODD LENGTH' >img2.o
printf 'c' >img3.spv
multi=("--image=file=img.o,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp --image=file=img2.o,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp"
	"--image=file=img.o,triple=x86_64-pc-linux-gnu,kind=openmp --image=file=img2.o,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=hip,feature=+xnack --image=file=img3.spv,triple=spirv64-unknown-unknown,arch=,kind=sycl,compile-opts=-O3,link-opts=-g"
	"--image=file=img.o,file=img2.o,triple=spirv64-intel,kind=openmp")

# repeats_key SPEC: whether a key appears twice in SPEC.
repeats_key() {
	[ -n "$(tr ',' '\n' <<<"$1" | cut -d= -f1 | sort | uniq -d)" ]
}

compared=0
releases=${OFFLINK_PART:-15 16 19 22}
for r in $releases; do
	tool=clang-offload-packager-$r
	[ "$r" -ge 22 ] && tool=llvm-offload-binary-$r
	if ! command -v $tool >/dev/null; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "$tool is missing"
		echo "SKIP (part): $tool is not installed"
		continue
	fi
	for s in "${specs[@]}"; do
		# (llvm-offload-binary 23 writes freed memory for a key given
		# twice -- the joined value lives in an allocator the image
		# outlives --, bytes that change from run to run: docs/compat.md)
		[ "$r" = 23 ] && repeats_key "$s" && continue
		rm -f llvm.bin ours.bin env.bin
		$tool -o llvm.bin "--image=file=img.o,$s" || fail "$tool rejects $s"
		check "offlink-binary --llvm=$r" "$BIN/offlink-binary" --llvm=$r -o ours.bin "--image=file=img.o,$s"
		cmp -s llvm.bin ours.bin || fail "release $r, --image=file=img.o,$s: not $tool's bytes"
		OFFLINK_LLVM=$r "$BIN/offlink-binary" -o env.bin "--image=file=img.o,$s" || fail "OFFLINK_LLVM=$r"
		same_bytes llvm.bin env.bin
		compared=$((compared + 1))
	done
	for m in "${multi[@]}"; do
		# (file=a,file=b in one --image: 17 on)
		[ "$r" -le 16 ] && [[ $m = *file=img.o,file=* ]] && continue
		rm -f llvm.bin ours.bin
		# shellcheck disable=SC2086
		$tool -o llvm.bin $m || fail "$tool rejects $m"
		# shellcheck disable=SC2086
		check "offlink-binary --llvm=$r" "$BIN/offlink-binary" --llvm=$r -o ours.bin $m
		cmp -s llvm.bin ours.bin || fail "release $r, $m: not $tool's bytes"
		compared=$((compared + 1))
	done
	echo "ok: release $r, ${#specs[@]} key sets and ${#multi[@]} packages of several images byte-identical"
done
[ $compared -gt 0 ] || skip "no release's packager to compare with"

# Run by clang 22 (as `clang -B <compat>` runs llvm-offload-binary), the
# release is 22's without being told: HIP is 4.
if [[ " $releases " = *" 22 "* ]] && command -v clang-22 >/dev/null; then
	hip=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a
	     -I"$OFFLINK_SRC/tests/e2e/gpu" -c "$OFFLINK_SRC/tests/e2e/matrix/hip_whole.hip" -B "$COMPAT")
	clang-22 -### "${hip[@]}" >drive.txt 2>&1
	contains drive.txt "$COMPAT/llvm-offload-binary"
	check "clang 22 HIP compile through offlink-binary" clang-22 "${hip[@]}" -o drive.o
	"$BIN/offlink-binary" --list --json drive.o >list.json || fail "list"
	grep -q '"producer": *"hip"' list.json || fail "not read back as HIP: $(cat list.json)"
	objcopy --dump-section=.llvm.offloading=sect.bin drive.o drive.copy.o
	[ "$(od -An -tu2 -j34 -N2 sect.bin | tr -d ' ')" = 4 ] ||
		fail "clang 22's HIP image has OffloadKind $(od -An -tu2 -j34 -N2 sect.bin), not 4"
	echo "ok: run by clang 22, HIP is 4"
fi
# Run by clang 23 and 24 (clang -B <compat> runs llvm-offload-binary at
# every offloading compile): an object with two GPU architectures holds
# one binary of two entries, and offlink's object is the release's own,
# byte for byte (the binary is embedded as it is written).
for r in 23 24; do
	[[ " $releases " = *" $r "* ]] || continue
	printf 'int f(int x) { int y = 0;\n#pragma omp target map(from: y)\ny = x + 1;\nreturn y; }\n' >two.c
	omp=(-fopenmp --offload-arch=sm_80,sm_90 -nogpulib --cuda-path="$CUDA" -c two.c)
	check "clang $r, LLVM's packager" clang-$r "${omp[@]}" -o two.llvm.o
	check "clang $r, offlink's" clang-$r -B "$COMPAT" "${omp[@]}" -o two.ours.o
	clang-$r -### -B "$COMPAT" "${omp[@]}" -o two.ours.o >drive.txt 2>&1
	contains drive.txt "$COMPAT/llvm-offload-binary"
	cmp -s two.llvm.o two.ours.o || fail "clang $r: offlink-binary's object differs from LLVM's"
	objcopy --dump-section=.llvm.offloading=two.bin two.ours.o two.copy.o
	[ "$(od -An -tu4 -j4 -N4 two.bin | tr -d ' ')" = $((r - 21)) ] ||
		fail "clang $r's binary is version $(od -An -tu4 -j4 -N4 two.bin), not $((r - 21))"
	"$BIN/offlink-binary" --list two.ours.o >list.txt || fail "list"
	[ "$(grep -c 'nvptx64-nvidia-cuda' list.txt)" = 2 ] || fail "not two NVPTX images: $(cat list.txt)"
	echo "ok: run by clang $r, one version $((r - 21)) binary of two entries, LLVM's bytes"
done
echo "PASS: $compared packages byte-identical with their release's packager"
