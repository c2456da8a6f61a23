#!/usr/bin/env bash
# Archive unbundling (-type=a) of an archive of clang-19 HIP objects made
# with the old driver (so each member is a host object carrying a bundle):
# offlink-bundler writes the same members, under the same names, with the
# same bytes as clang-offload-bundler-19, for targets that take code from
# one or several members.  Errors and -allow-missing-bundles agree too.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 clang-offload-bundler-19 llvm-ar-19 llvm-nm-19
LLVM=clang-offload-bundler-19
OURS=$BIN/offlink-bundler

cat >fat_a.hip <<'C'
__attribute__((device)) int dev_a(int x) { return x + 1; }
__attribute__((device)) int var_a = 5;
int host_a(void) { return 2; }
C
cat >fat_b.hip <<'C'
__attribute__((device)) int dev_b(int x) { return x * 2; }
C
hipc() { check "compile $*" clang-19 -x hip -nogpuinc -nogpulib -fgpu-rdc "$@"; }
hipc --offload-arch=gfx90a --offload-arch=gfx908 -c fat_a.hip -o fat_a.o
hipc --offload-arch=gfx90a:xnack+ -c fat_b.hip -o fat_b.o
readelf -SW fat_a.o | grep -q '__CLANG_OFFLOAD_BUNDLE__hip-amdgcn-amd-amdhsa--gfx90a' ||
	fail "expected a bundled HIP object"
check "archive" llvm-ar-19 rc libfat.a fat_a.o fat_b.o

for t in gfx90a gfx90a:xnack+ gfx908; do
	safe=${t//:/_}
	check "LLVM $t" "$LLVM" -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa-$t -input=libfat.a -output=llvm_$safe.a
	check "ours $t" "$OURS" -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa-$t -input=libfat.a -output=ours_$safe.a
	llvm-ar-19 t llvm_$safe.a >llvm_names
	llvm-ar-19 t ours_$safe.a >ours_names
	diff -u llvm_names ours_names || fail "$t: member names differ"
	[ -s ours_names ] || fail "$t: no members"
	mkdir "l_$safe" "o_$safe"
	(cd "l_$safe" && llvm-ar-19 x "../llvm_$safe.a") && (cd "o_$safe" && llvm-ar-19 x "../ours_$safe.a")
	diff -r "l_$safe" "o_$safe" || fail "$t: member bytes differ"
	# The symbol index (of the bitcode members) is the same set too.
	diff <(llvm-nm-19 --print-armap "llvm_$safe.a" | sed -n '/Archive map/,/^$/p' | sort) \
	     <(llvm-nm-19 --print-armap "ours_$safe.a" | sed -n '/Archive map/,/^$/p' | sort) ||
		fail "$t: archive index differs"
done
[ "$(wc -l <ours_names)" -ge 1 ]
grep -c . <(llvm-ar-19 t ours_gfx90a_xnack+.a) | grep -qx 2 || fail "xnack+ takes code from both members"

# Several targets in one call, with hip-openmp compatibility.
check "two targets" "$OURS" -unbundle -type=a -hip-openmp-compatible \
	-targets=openmp-amdgcn-amd-amdhsa-gfx908,hipv4-amdgcn-amd-amdhsa-gfx90a \
	-input=libfat.a -output=om.a -output=h4.a
check "two targets (LLVM)" "$LLVM" -unbundle -type=a -hip-openmp-compatible \
	-targets=openmp-amdgcn-amd-amdhsa-gfx908,hipv4-amdgcn-amd-amdhsa-gfx90a \
	-input=libfat.a -output=om_l.a -output=h4_l.a
diff <(llvm-ar-19 t om.a) <(llvm-ar-19 t om_l.a) || fail "openmp-compatible names"
diff <(llvm-ar-19 t h4.a) <(llvm-ar-19 t h4_l.a) || fail "hipv4 names"

# No compatible code object: an error, or with -allow-missing-bundles an
# empty archive (8 bytes), as LLVM does.
expect_status 1 "$OURS" -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa-gfx1030 -input=libfat.a -output=none.a
contains "$T/stderr" "no compatible code object found for the target 'hip-amdgcn-amd-amdhsa--gfx1030' in heterogeneous archive library: libfat.a"
[ ! -e none.a ] || fail "no output on error"
check "allow-missing" "$OURS" -unbundle -type=a -allow-missing-bundles -targets=hip-amdgcn-amd-amdhsa-gfx1030 \
	-input=libfat.a -output=none.a
"$LLVM" -unbundle -type=a -allow-missing-bundles -targets=hip-amdgcn-amd-amdhsa-gfx1030 -input=libfat.a -output=none_l.a
same_bytes none.a none_l.a

# Conflicting requests are refused up front; a member mixing "any" and a
# fixed feature is refused under -check-input-archive.
expect_status 1 "$OURS" -unbundle -type=a -targets=hip-amdgcn-amd-amdhsa-gfx90a,hip-amdgcn-amd-amdhsa-gfx90a:xnack+ \
	-input=libfat.a -output=x1.a -output=x2.a
contains "$T/stderr" "Cannot bundle inputs with conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx90a' and 'hip-amdgcn-amd-amdhsa--gfx90a:xnack+'"
printf 'A' >a.bin
printf 'B' >b.bin
"$OURS" -type=bc -targets=hip-amdgcn-amd-amdhsa-gfx90a,hip-amdgcn-amd-amdhsa-gfx90a:xnack- \
	-input=a.bin -input=b.bin -output=conflict.o 2>/dev/null && fail "conflicting bundle accepted"
"$LLVM" -type=bc -targets=hip-amdgcn-amd-amdhsa-gfx908,hip-amdgcn-amd-amdhsa-gfx90a \
	-input=a.bin -input=b.bin -output=ok.o || fail "bundle"
llvm-ar-19 rc libok.a ok.o
check "check-input-archive, no conflict" "$OURS" -unbundle -type=a -check-input-archive \
	-targets=hip-amdgcn-amd-amdhsa-gfx908 -input=libok.a -output=ok_out.a
echo "PASS: archive unbundling matches clang-offload-bundler-19"
