#!/usr/bin/env bash
# Issue 9, item 9: the CPU device link repeats the host line's -L
# directories and libraries, so a link line longer than exec allows
# (here 25k -L directories, 3.3 MB) failed with "Argument list too long".
# Long argument lists now go to clang, ld.lld, objcopy and the host linker
# in a response file; the program links and runs.
# ctest-cost: 10
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"

cat >k.c <<'C'
#include <omp.h>
#include <stdio.h>
int main(void) { int r = 0, initial = 1;
#pragma omp target map(from: r, initial)
  { r = 5; initial = omp_is_initial_device(); }
  printf("initial=%d r=%d\n", initial, r); return 0; }
C
cc -c k.c -o k.o
pad=$(printf 'p%.0s' $(seq 1 100))
for i in $(seq 1 25000); do echo "-L$T/missing/$pad/dir$i"; done >long.rsp
[ "$(stat -c %s long.rsp)" -gt 3000000 ] || fail "the argument list is not long enough"
clang++-19 "${OMP[@]}" -B "$COMPAT" k.o @long.rsp -Xlinker -v -o prog 2>v.txt ||
	fail "long link: $(grep -v '^ *-L' v.txt | tail -5)"
contains v.txt "(arguments in the response file"
run prog
contains prog.out "initial=0 r=5"
echo "PASS: a 3.3 MB link line links through response files"
