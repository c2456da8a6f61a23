#!/usr/bin/env bash
# The bitcode symbol-table reader sees the same global symbols as
# llvm-nm-19, on device bitcode from clang-19 (-foffload-lto) and on every
# member of OpenMP's device runtime library.  Parts 23 and 24 (issue 43,
# in the sid root): those releases write symbol tables of version 4, whose
# Uncommon records are 4 bytes longer; each symbol's section name, read
# from them after a common symbol's, is the one the source gives (19's
# version 3 too), and the symbols are llvm-nm's.
# ctest-parts: main 23 24
# ctest-sid: 23 24
. "$OFFLINK_SRC/tests/lib/testlib.sh"
part=${OFFLINK_PART:-main}
cat >sec.c <<'C'
int common_a;
int common_b;
__attribute__((section("first_sec"))) int in_first = 1;
int common_c;
__attribute__((section("second_sec"))) int in_second(void) { return common_a + common_b + common_c; }
C
# sections CLANG NM: the sections bc_nm reads from CLANG's table
sections() {
	check "sections module ($1)" "$1" -fcommon -flto -c sec.c -o sec.bc
	"$HELP/bc_nm" -s sec.bc | sort >sec.txt || fail "bc_nm -s sec.bc"
	expect_text_file sec.txt <<'TXT'
C common_a
C common_b
C common_c
T in_first [first_sec]
T in_second [second_sec]
TXT
	"$2" --extern-only sec.bc | awk '{print $NF}' | sort >nm.txt
	awk '{print $2}' sec.txt | diff -u nm.txt - || fail "$1: other symbols than $2's"
}
expect_text_file() {
	cat >"$1.want"
	diff -u "$1.want" "$1" || fail "$1 is not what the source declares"
}
if [ "$part" != main ]; then
	need clang-$part llvm-nm-$part
	sections clang-$part llvm-nm-$part
	[ "$(od -An -tu1 -N1 sec.bc | tr -d ' ')" = 66 ] || fail "not raw bitcode"
	echo "PASS: LLVM $part's symbol tables (version 4), sections and all"
	exit 0
fi
need clang-19 llvm-nm-19 clang-offload-packager-19
sections clang-19 llvm-nm-19

cat >k.c <<'C'
#include <omp.h>
int counter;
#pragma omp declare target(counter)
extern int helper(int);
#pragma omp declare target(helper)
int run(void) {
  int v = 0;
#pragma omp target map(from: v)
  v = helper(counter) + omp_is_initial_device();
  return v;
}
C
check "lto object" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -foffload-lto -c k.c -o k.o
check "extract" clang-offload-packager-19 k.o --image=file=k.bc,kind=openmp
files=(k.bc)
rtl=/usr/lib/llvm-19/lib/libomptarget.devicertl.a
if [ -f "$rtl" ]; then
	check "runtime" clang-offload-packager-19 "$rtl" --image=file=rtl-sm90.bc,arch=sm_90 \
		--image=file=rtl-gfx90a.bc,arch=gfx90a
	files+=(rtl-sm90.bc rtl-gfx90a.bc)
fi
for f in "${files[@]}"; do
	"$HELP/bc_nm" "$f" | sort >ours.txt || fail "bc_nm $f"
	llvm-nm-19 --extern-only "$f" | awk '{k=(NF==3?$2:$1); n=$NF;
		if (k=="U"||k=="w") print k, n; else if (k=="W"||k=="V"||k=="v") print "W", n;
		else if (k=="C") print "C", n; else print "T", n}' | sort >llvm.txt
	diff -u llvm.txt ours.txt || fail "$f: symbols differ from llvm-nm-19"
	[ -s ours.txt ] || fail "$f: no symbols"
	echo "$f: $(wc -l <ours.txt) symbols agree"
done
contains ours.txt "T __kmpc_target_init"
echo "PASS: bitcode symbol tables"
