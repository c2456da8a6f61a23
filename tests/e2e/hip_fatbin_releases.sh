#!/usr/bin/env bash
# Issue 32, item 4: HIP -fgpu-rdc with each release as that release links
# it.  Each release's wrapper names the bundle's host entry with a
# constant, whatever the host (16 and 19 "host-x86_64-unknown-linux", 22
# "host-x86_64-unknown-linux-gnu"), 16 calls the device entries hipv4, and
# the bundler of 16 writes IDs as given, 19 and 22 in standard form.  For
# clang 16, 19 and 22, two TUs calling each other's device code, for
# gfx90a and gfx908, are
# linked by the release's own wrapper and by offlink, with --rocm-path as
# a HIP user gives it:
#   - offlink's link prints no warning (clang 22 passes --rocm-path to the
#     device link as --device-compiler, where it changes nothing);
#   - the .hip_fatbin sections hold the same entry IDs, in the same order
#     and places; for 22 the whole section is LLVM 22's, byte for byte
#     (16 and 19 link the code objects another way: item 5).
# Issue 43: 23 names the host entry with the link's host triple
# ("host-x86_64-pc-linux-gnu-"), and 24, whose triples name each AMD
# processor (amdgpu9.0a-amd-amdhsa), still names the device entries
# amdgcn: both byte for byte too (in the sid root; from 23 clang names the
# HIP runtime by its ROCm path, so the stub is named instead).
# ctest-parts: 16 19 22 23 24
# ctest-sid: 23 24
# ctest-cost: 15
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need objcopy

# ids FILE: the entry IDs of a bundle, in order, with each offset (the
# sizes are the code objects': compared whole for 22).
ids() {
	local f=$1 n off=32
	n=$(od -An -tu8 -j24 -N8 "$f" | tr -d ' ')
	for ((i = 0; i < n; i++)); do
		local o s l
		o=$(od -An -tu8 -j$off -N8 "$f" | tr -d ' ')
		s=$(od -An -tu8 -j$((off + 8)) -N8 "$f" | tr -d ' ')
		l=$(od -An -tu8 -j$((off + 16)) -N8 "$f" | tr -d ' ')
		echo "$(dd if="$f" bs=1 skip=$((off + 24)) count="$l" 2>/dev/null) at $o$([ "$s" = 0 ] && echo ", empty")"
		off=$((off + 24 + l))
	done
}

cat >k1.hip <<'EOF'
#include "hip_decls.h"
__device__ int twice(int x);
__global__ void k1(int *p) { *p = twice(*p); }
void launch1(int *p) { k1<<<1, 1>>>(p); }
EOF
cat >k2.hip <<'EOF'
#include "hip_decls.h"
__device__ int twice(int x) { return 2 * x; }
__global__ void k2(int *p) { *p = twice(3); }
void launch1(int *p);
int main() { launch1(0); k2<<<1, 1>>>(0); return 0; }
EOF

ran=0
for N in ${OFFLINK_PART:-16 19 22}; do
	if ! command -v clang-$N >/dev/null || ! command -v clang-linker-wrapper-$N >/dev/null; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang $N or its wrapper is missing"
		echo "SKIP (part): clang $N"
		continue
	fi
	mkdir r$N && cd r$N || exit 1
	for f in k1 k2; do
		check "compile $f ($N)" clang-$N -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib \
			--offload-arch=gfx90a,gfx908 -I"$GPU_SRC" -c ../$f.hip -o $f.o
	done
	link=(--offload-new-driver -fgpu-rdc --hip-link --rocm-path=/usr k1.o k2.o -L"$STUBDIR")
	[ "$N" -ge 23 ] && link+=(-no-hip-rt "$STUBDIR/libamdhip64.so")
	check "LLVM $N's link" clang-$N "${link[@]}" -o prog.llvm
	clang-$N "${link[@]}" -B "$COMPAT" -o prog.ours 2>ours.err || fail "clang $N: offlink's link: $(cat ours.err)"
	[ -s ours.err ] && fail "clang $N: offlink's link printed: $(cat ours.err)"
	for p in llvm ours; do
		objcopy -O binary --only-section=.hip_fatbin prog.$p fatbin.$p || fail "no .hip_fatbin in prog.$p"
		[ "$(head -c 24 fatbin.$p)" = __CLANG_OFFLOAD_BUNDLE__ ] || fail "prog.$p: .hip_fatbin is no bundle"
		ids fatbin.$p >ids.$p
	done
	diff -u ids.llvm ids.ours >&2 || fail "clang $N: the bundle's entries differ from LLVM $N's"
	if [ $N -ge 22 ]; then
		same_bytes fatbin.llvm fatbin.ours
		[ $N -lt 23 ] || grep -q '^host-x86_64-pc-linux-gnu- at' ids.ours ||
			fail "clang $N: the host entry is not the link's host triple: $(cat ids.ours)"
		echo "ok: clang $N: .hip_fatbin byte for byte LLVM $N's, no warning"
	else
		echo "ok: clang $N: the bundle's entries are LLVM $N's ($(cut -d' ' -f1 ids.ours | tr '\n' ' ')), no warning"
	fi
	OFFSTUB_LOG=stub.log LD_LIBRARY_PATH=$STUBDIR ./prog.ours >/dev/null 2>run.err ||
		fail "clang $N: offlink's program exited with $?: $(head -c 300 run.err)"
	[ "$(stub_images stub.log | wc -l)" = 2 ] || fail "clang $N: not two images registered: $(stub_images stub.log)"
	cd .. || exit 1
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no clang release with its wrapper"
echo "PASS: HIP bundles as each release writes them"
