#!/usr/bin/env bash
# One translation unit: offlink's program runs its target region on
# libomptarget's host device and prints what LLVM's link prints; the
# linked executable carries an offload binary both tools can read.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"

cat >one.c <<'C'
#include <stdio.h>
#include <omp.h>
int g = 5;
#pragma omp declare target(g)
int main(void) {
  int initial = 1, v = 0;
#pragma omp target map(from: initial, v)
  { initial = omp_is_initial_device(); v = g * 2; }
  printf("initial=%d v=%d\n", initial, v);
  return 0;
}
C
cc -c one.c -o one.o
same_as_llvm one one.o
contains one.out "v=10"
llvm-objdump-19 --offloading one >dump.txt || fail "objdump cannot read the program"
contains dump.txt "triple          x86_64-pc-linux-gnu"
"$BIN/offlink-binary" --list one >list.txt || fail "offlink-binary cannot read the program"
contains list.txt "[linked]"
ls -d "${TMPDIR:-/tmp}"/offlink-?????? 2>/dev/null | while read -r d; do
	[ "$d" -nt one.o ] && fail "temporary directory left: $d"
done
echo "PASS: one TU"
