#!/usr/bin/env bash
# Several TUs sharing declare-target globals (to and link clauses) and
# device functions across files.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"

cat >globals.c <<'C'
int shared_to = 7;
#pragma omp declare target to(shared_to)
int shared_link[4] = {1, 2, 3, 4};
#pragma omp declare target link(shared_link)
int dev_add(int a, int b) { return a + b + shared_to; }
#pragma omp declare target to(dev_add)
C
cat >compute.c <<'C'
#include <omp.h>
extern int shared_to;
#pragma omp declare target to(shared_to)
extern int shared_link[4];
#pragma omp declare target link(shared_link)
int dev_add(int a, int b);
#pragma omp declare target to(dev_add)
int compute(int *initial) {
  int sum = 0;
#pragma omp target map(tofrom: sum) map(to: shared_link[0:4]) map(from: initial[0:1])
  {
    for (int i = 0; i < 4; i++) sum = dev_add(sum, shared_link[i]);
    initial[0] = omp_is_initial_device();
  }
  return sum;
}
C
cat >main.c <<'C'
#include <stdio.h>
extern int shared_to;
#pragma omp declare target to(shared_to)
int compute(int *initial);
int main(void) {
  int initial = 1;
  shared_to = 100;
#pragma omp target update to(shared_to)
  int s = compute(&initial);
  printf("initial=%d sum=%d\n", initial, s);
  return 0;
}
C
for f in globals compute main; do cc -c $f.c -o $f.o; done
same_as_llvm multi main.o compute.o globals.o
contains multi.out "sum=410"
echo "PASS: several TUs"
