#!/usr/bin/env bash
# Kernels in a static library, linked by a program whose own objects have
# no device code.  LLVM 19 links this without any device image (the
# program then crashes at its first target region); offlink takes the
# member's device code because the host link pulls the member in, plus a
# device-only helper from another member, and leaves unused members out.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"

cat >kern.c <<'C'
#include <omp.h>
int g_scale = 3;
#pragma omp declare target(g_scale)
/* On the device, dev_helper is replaced by dev_helper_impl, which exists
 * only as device code (helper.c): no host object refers to it. */
int dev_helper_impl(int v);
#pragma omp declare target to(dev_helper_impl) device_type(nohost)
#pragma omp declare variant(dev_helper_impl) match(device = {kind(nohost)})
int dev_helper(int v) { return 2 * v; }
#pragma omp declare target to(dev_helper)
int scale(int *a, int n) {
  int initial = 1;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) map(from: initial)
  for (int i = 0; i < n; i++) {
    a[i] = dev_helper(a[i]) * g_scale;
    if (i == 0) initial = omp_is_initial_device();
  }
  return initial;
}
C
cat >helper.c <<'C'
int dev_helper_impl(int v) { return 2 * v; }
#pragma omp declare target to(dev_helper_impl) device_type(nohost)
C
cat >unused.c <<'C'
int unused_kernel(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = x + 1;
  return r;
}
C
cat >main.c <<'C'
#include <stdio.h>
int scale(int *a, int n);
int main(void) {
  int a[4] = {1, 2, 3, 4};
  int initial = scale(a, 4);
  printf("initial=%d a=%d,%d,%d,%d\n", initial, a[0], a[1], a[2], a[3]);
  return 0;
}
C
cc -c kern.c -o kern.o
cc -c helper.c -o helper.o
cc -c unused.c -o unused.o
check "host-only main" clang-19 -c main.c -o main.o
[ -z "$(nm helper.o)" ] || fail "helper.o should have no host symbols"
llvm-objdump-19 --offloading main.o | grep -q OFFLOADING && fail "main.o should carry no device code"
ar rcs libk.a kern.o helper.o unused.o

clang++-19 "${OMP[@]}" -B "$COMPAT" main.o -L. -lk -o prog -v 2>plan.txt || fail "offlink link: $(tail -5 plan.txt)"
run prog
contains prog.out "initial=0 a=6,12,18,24"
contains plan.txt "libk.a(kern.o)  (pulled in by the host link)"
contains plan.txt "libk.a(helper.o)  (defines dev_helper_impl, needed by ./libk.a(kern.o))"
grep -A3 'not linked' plan.txt | grep -q 'libk.a(unused.o)' || fail "unused.o should be left out"

# The same through --whole-archive takes every member.
clang++-19 "${OMP[@]}" -B "$COMPAT" main.o -Wl,--whole-archive libk.a -Wl,--no-whole-archive \
	-o prog_whole -v 2>plan2.txt || fail "whole-archive link"
contains plan2.txt "libk.a(unused.o)  (--whole-archive)"
run prog_whole

# LLVM 19's tool, for the record: it links no device image at all.
clang++-19 "${OMP[@]}" main.o -L. -lk -o prog_llvm || fail "LLVM link"
if LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY ./prog_llvm >llvm.out 2>&1; then
	echo "note: LLVM's program ran: $(cat llvm.out)"
else
	echo "as expected, LLVM 19's program fails (exit $?)"
fi
echo "PASS: kernels in a static library"
