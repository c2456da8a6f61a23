#!/usr/bin/env bash
# C++ with a device-side global constructor: it runs when the image is
# loaded, before the first target region reads the object.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"

cat >ctor.cpp <<'C'
#include <cstdio>
#include <omp.h>
struct Counter {
  int v;
  Counter() : v(41) { v++; }
};
#pragma omp declare target
Counter dev_counter;
int twice(int x) { return 2 * x; }
#pragma omp end declare target
int main() {
  int got = 0, initial = 1;
#pragma omp target map(from: got, initial)
  { got = twice(dev_counter.v); initial = omp_is_initial_device(); }
  std::printf("initial=%d counter=%d\n", initial, got);
}
C
cxx -c ctor.cpp -o ctor.o
same_as_llvm ctor ctor.o
contains ctor.out "counter=84"
echo "PASS: device-side constructor"
