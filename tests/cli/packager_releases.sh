#!/usr/bin/env bash
# Issue 10: offlink-binary writes what each release's packager writes,
# byte for byte: clang-offload-packager-15, -16, -19 and
# llvm-offload-binary-22 (15 stores the strings in the order of a StringMap
# filled from a StringMap of every --image key, 16 in its StringMap's order
# filled from a DenseMap, 19 and 22 in the order of the DenseMap; 22
# numbers HIP 4 and SYCL 8).  The
# release comes from --llvm=, $OFFLINK_LLVM, or the clang that runs the
# tool.  Random key sets (a fixed seed) exercise both hash tables' probing
# and growth: up to 60 keys, keys up to 100 bytes, repeated keys.
# One CTest test per release (OFFLINK_PART; by hand without it, all four).
# ctest-parts: 15 16 19 22
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

compared=0
releases=${OFFLINK_PART:-15 16 19 22}
for r in $releases; do
	tool=clang-offload-packager-$r
	[ $r = 22 ] && tool=llvm-offload-binary-22
	if ! command -v $tool >/dev/null; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "$tool is missing"
		echo "SKIP (part): $tool is not installed"
		continue
	fi
	for s in "${specs[@]}"; do
		rm -f llvm.bin ours.bin env.bin
		$tool -o llvm.bin "--image=file=img.o,$s" || fail "$tool rejects $s"
		check "offlink-binary --llvm=$r" "$BIN/offlink-binary" --llvm=$r -o ours.bin "--image=file=img.o,$s"
		cmp -s llvm.bin ours.bin || fail "release $r, --image=file=img.o,$s: not $tool's bytes"
		OFFLINK_LLVM=$r "$BIN/offlink-binary" -o env.bin "--image=file=img.o,$s" || fail "OFFLINK_LLVM=$r"
		same_bytes llvm.bin env.bin
		compared=$((compared + 1))
	done
	echo "ok: release $r, ${#specs[@]} key sets byte-identical"
done
[ $compared -gt 0 ] || fail "no release's packager to compare with"

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
echo "PASS: $compared packages byte-identical with their release's packager"
