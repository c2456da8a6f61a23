#!/usr/bin/env bash
# Device LTO (-foffload-lto): bitcode device images, linked with LTO by
# ld.lld, across two TUs.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need ld.lld-19

cat >lib.c <<'C'
#pragma omp declare target
int cube(int x) { return x * x * x; }
#pragma omp end declare target
C
cat >main.c <<'C'
#include <stdio.h>
#include <omp.h>
#pragma omp declare target
int cube(int x);
#pragma omp end declare target
int main(void) {
  int initial = 1, r = 0;
#pragma omp target map(from: initial, r)
  { initial = omp_is_initial_device(); r = cube(3); }
  printf("initial=%d r=%d\n", initial, r);
  return 0;
}
C
cc -foffload-lto -c lib.c -o lib.o
cc -foffload-lto -c main.c -o main.o
llvm-objdump-19 --offloading main.o | grep -q 'llvm ir' || fail "expected bitcode device images"
same_as_llvm lto -foffload-lto main.o lib.o
contains lto.out "r=27"
echo "PASS: device LTO"
