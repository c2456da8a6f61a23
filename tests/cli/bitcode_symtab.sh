#!/usr/bin/env bash
# The bitcode symbol-table reader sees the same global symbols as
# llvm-nm-19, on device bitcode from clang-19 (-foffload-lto) and on every
# member of OpenMP's device runtime library.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 llvm-nm-19 clang-offload-packager-19

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
