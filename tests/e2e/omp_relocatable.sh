#!/usr/bin/env bash
# Relocatable device pre-linking (-r) for libraries shipped to users of
# plain gcc/g++: pre-link with `clang-19 --offload-link -r -B <compat>`,
# archive with ar, link with gcc or g++ and -lomptarget -lomp, run on
# libomptarget's host device.  Two pre-linked libraries in one program
# both register; a pre-linked library mixes with fat objects in a clang
# link without its device code being linked twice; the pre-linked object
# is byte-identical across runs and --wrapper-jobs values; GNU objcopy and
# llvm-objcopy both do the job.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc g++ ar objcopy llvm-objcopy-19 readelf

# Library 1: two TUs, a device function used across them.
cat >vec_kernels.c <<'C'
#include <omp.h>
int vec_twice(int v);
#pragma omp declare target to(vec_twice)
int vec_run(int *a, int n) {
  int initial = 1;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) map(from: initial)
  for (int i = 0; i < n; i++) {
    a[i] = vec_twice(a[i]);
    if (i == 0) initial = omp_is_initial_device();
  }
  return initial;
}
C
cat >vec_helpers.c <<'C'
int vec_twice(int v) { return 2 * v; }
#pragma omp declare target to(vec_twice)
C
# Library 2: a reduction.
cat >stat_kernels.c <<'C'
#include <omp.h>
long stat_sum(const int *a, int n, int *initial) {
  long s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(to: a[0:n]) map(from: initial[0:1])
  for (int i = 0; i < n; i++) {
    s += a[i];
    if (i == 0) initial[0] = omp_is_initial_device();
  }
  return s;
}
C
for f in vec_kernels vec_helpers stat_kernels; do cc -c $f.c -o $f.o; done

prelink() { # OUT OBJS... [extra flags via PRELINK_FLAGS]
	local out=$1
	shift
	check "pre-link $out" clang++-19 "${OMP[@]}" --offload-link -r -B "$COMPAT" \
		${PRELINK_FLAGS:-} "$@" -o "$out"
}
prelink vec_pre.o vec_kernels.o vec_helpers.o
prelink stat_pre.o stat_kernels.o
ar rcs libvec.a vec_pre.o
ar rcs libstat.a stat_pre.o

# The pre-linked object: images final and registered, inputs' device code
# gone, a private entries section.
readelf -SW vec_pre.o >sections.txt
contains sections.txt ".llvm.offloading.relocatable"
grep -qE '\] \.llvm\.offloading ' sections.txt && fail "input .llvm.offloading left in the -r output"
grep -qE 'omp_offloading_entries_[0-9a-f]+ ' sections.txt || fail "entries section not made private"
grep -qE '\] omp_offloading_entries ' sections.txt && fail "public entries section left"
"$BIN/offlink-binary" --list vec_pre.o >list.txt || fail "list"
contains list.txt "[linked]"

LIBS=(-L/usr/lib/llvm-19/lib -lomptarget -lomp)
cat >main.c <<'C'
#include <stdio.h>
int vec_run(int *a, int n);
int main(void) {
  int a[5] = {1, 2, 3, 4, 5};
  int initial = vec_run(a, 5);
  printf("initial=%d a=%d,%d,%d,%d,%d\n", initial, a[0], a[1], a[2], a[3], a[4]);
  return 0;
}
C
check "gcc link" gcc main.c -L. -lvec "${LIBS[@]}" -o gcc_prog
run gcc_prog
contains gcc_prog.out "initial=0 a=2,4,6,8,10"

cat >main.cpp <<'C'
#include <cstdio>
#include <vector>
extern "C" int vec_run(int *a, int n);
extern "C" long stat_sum(const int *a, int n, int *initial);
int main() {
  std::vector<int> a{1, 2, 3, 4, 5, 6};
  int i1 = vec_run(a.data(), (int)a.size()), i2 = 1;
  long s = stat_sum(a.data(), (int)a.size(), &i2);
  std::printf("initial=%d initial=%d sum=%ld\n", i1, i2, s);
}
C
# Two separately pre-linked libraries in one g++ program.
check "g++ link" g++ main.cpp -L. -lvec -lstat "${LIBS[@]}" -o gxx_prog
run gxx_prog
contains gxx_prog.out "initial=0 initial=0 sum=42"

# A pre-linked library together with ordinary fat objects in one clang link.
cat >app.c <<'C'
#include <stdio.h>
#include <omp.h>
int vec_run(int *a, int n);
int main(void) {
  int a[3] = {5, 6, 7}, own = 1;
#pragma omp target map(from: own)
  own = omp_is_initial_device();
  int lib = vec_run(a, 3);
  printf("initial=%d initial=%d a=%d,%d,%d\n", own, lib, a[0], a[1], a[2]);
  return 0;
}
C
cc -c app.c -o app.o
clang++-19 "${OMP[@]}" -B "$COMPAT" app.o -L. -lvec -o mixed -v 2>mixed.plan || fail "mixed link"
run mixed
contains mixed.out "initial=0 initial=0 a=10,12,14"
contains mixed.plan "1 image"
grep -q 'vec_pre.o' mixed.plan && fail "the pre-linked device code was linked again"

# Deterministic: the same bytes twice, and whatever --wrapper-jobs is.
PRELINK_FLAGS="-Xlinker --wrapper-jobs=1" prelink again1.o vec_kernels.o vec_helpers.o
PRELINK_FLAGS="-Xlinker --wrapper-jobs=4" prelink again4.o vec_kernels.o vec_helpers.o
same_bytes vec_pre.o again1.o
same_bytes vec_pre.o again4.o

# GNU objcopy gives a working object too (a vendor may have only binutils).
OFFLINK_OBJCOPY=objcopy prelink gnu_pre.o vec_kernels.o vec_helpers.o
ar rcs libvecgnu.a gnu_pre.o
check "gcc link (GNU objcopy)" gcc main.c -L. -lvecgnu "${LIBS[@]}" -o gnu_prog
run gnu_prog
contains gnu_prog.out "initial=0 a=2,4,6,8,10"

# Device code calling libm (RSBench's atan, cos, sqrt): the -r line has no
# -lm (ld -r would copy libm.a's members into the object, which then fail
# the final link), yet the CPU device link gets libm as a final link's
# would; the gcc-linked program runs it on the device.
cat >math_kernels.c <<'C'
#include <math.h>
#include <omp.h>
double math_run(double x, int *initial) {
  double r = 0;
#pragma omp target map(from: r) map(from: initial[0:1])
  {
    r = atan(x) + sqrt(x) + cos(x) + sin(x);
    initial[0] = omp_is_initial_device();
  }
  return r;
}
C
cat >math_main.c <<'C'
#include <stdio.h>
double math_run(double x, int *initial);
int main(void) {
  int initial = 1;
  double r = math_run(2.0, &initial);
  printf("initial=%d r=%.6f\n", initial, r);
  return 0;
}
C
cc -c math_kernels.c -o math_kernels.o
prelink math_pre.o math_kernels.o
nm math_pre.o | grep -qE ' T (__)?atan' && fail "libm was copied into the relocatable output"
check "gcc link (libm)" gcc math_main.c math_pre.o "${LIBS[@]}" -lm -o math_prog
run math_prog
contains math_prog.out "initial=0 r=3.014513"
# -lm on the -r line: offlink says what ld -r does with it.
clang-19 "${OMP[@]}" --offload-link -r -B "$COMPAT" math_kernels.o -lm -o math_lm.o 2>math_lm.err ||
	fail "-r with -lm: $(cat math_lm.err)"
contains math_lm.err "-r with -lm: the host linker copies libm.a's members into math_lm.o"

# C++ device code (issue 19, item 6): std::vector (operator new and
# delete) and a try/catch (__cxa_begin_catch, __gxx_personality_v0) in a
# declare-target function; a final link gets them from clang++'s
# -lstdc++, the -r pre-link from offlink, as libm; g++ links the object.
cat >cxx_lib.cpp <<'CXX'
#include <stdexcept>
#include <vector>
#include <omp.h>
#pragma omp declare target
static int work(int n) {
  std::vector<int> v(n);
  int s = 0;
  for (int i = 0; i < n; i++) { v[i] = i; s += v[i]; }
  if (s < 0) throw std::runtime_error("negative");
  return s;
}
#pragma omp end declare target
extern "C" int cxx_sum(int n, int *initial) {
  int r = 0;
#pragma omp target map(from: r) map(from: initial[0:1])
  {
    try { r = work(n); } catch (...) { r = -1; }
    initial[0] = omp_is_initial_device();
  }
  return r;
}
CXX
cat >cxx_main.cpp <<'CXX'
#include <cstdio>
extern "C" int cxx_sum(int, int *);
int main() {
  int initial = 1;
  int r = cxx_sum(100, &initial);
  std::printf("initial=%d sum=%d\n", initial, r);
  return 0;
}
CXX
cxx -c cxx_lib.cpp -o cxx_lib.o
prelink cxx_pre.o cxx_lib.o
nm cxx_pre.o | grep -qE ' T (_Znwm|__cxa_begin_catch|__gxx_personality_v0)$' &&
	fail "libstdc++ was copied into the relocatable output"
check "g++ link (C++ device code)" g++ cxx_main.cpp cxx_pre.o "${LIBS[@]}" -o cxx_prog
run cxx_prog
contains cxx_prog.out "initial=0 sum=4950"
echo "PASS: relocatable pre-linking"
