#!/usr/bin/env bash
# Issue 26, item 6, on NVIDIA targets (link only: CUDA's ptxas and nvlink,
# no GPU).  A static library whose device code was built for sm_80 only,
# linked into a program built for sm_90: LLVM's wrapper links it silently
# and registers an sm_90 image without the library's kernels; offlink
# links it with exactly one warning naming the kernel, sm_90 and the
# archive member.  A library built for both archs: no warning.  The same
# for OpenMP and for CUDA relocatable device code.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need clang-19 clang-linker-wrapper-19
need_cuda ptxas nvlink fatbinary
export PATH=$CUDA/bin:$PATH
unset LIBRARY_PATH

warnings() { grep -c 'is not in the image the runtime loads' "$1"; }

# OpenMP
cat >lib.c <<'C'
int lib_region(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = x * 2;
  return r;
}
C
cat >main.c <<'C'
#include <stdio.h>
int lib_region(int);
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 42;
  printf("r=%d lib=%d\n", r, lib_region(21));
  return 0;
}
C
OMP=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path="$CUDA" -Wno-unknown-cuda-version)
check "lib.c for sm_80" clang-19 "${OMP[@]}" -nogpulib --offload-arch=sm_80 -c lib.c -o lib80.o
check "archive" ar rcs lib80.a lib80.o
check "lib.c for both" clang-19 "${OMP[@]}" -nogpulib --offload-arch=sm_80,sm_90 -c lib.c -o libboth.o
check "archive" ar rcs libboth.a libboth.o
check "main.c for sm_90" clang-19 "${OMP[@]}" -nogpulib --offload-arch=sm_90 -c main.c -o main.o
LINK=("${OMP[@]}" --offload-arch=sm_90 main.o)

clang-19 "${LINK[@]}" -L. -l80 -B "$COMPAT" -o prog 2>omp.err || fail "offlink link: $(cat omp.err)"
[ "$(warnings omp.err)" = 1 ] || fail "not exactly one warning: $(cat omp.err)"
grep -E "target region __omp_offloading_[0-9a-f_]+lib_region_l[0-9]+ \(from \./lib80\.a\(lib80\.o\)\) is not in the image the runtime loads on sm_90 \(openmp nvptx64-nvidia-cuda sm_90\)" omp.err >/dev/null ||
	fail "the warning does not name the region, sm_90 and the member: $(cat omp.err)"
contains omp.err "only the openmp nvptx64-nvidia-cuda sm_80 image has it"
clang-19 "${LINK[@]}" -L. -l80 -o prog.llvm 2>llvm.err || fail "LLVM's link: $(cat llvm.err)"
grep -q 'lib_region' llvm.err && fail "LLVM's wrapper said something: $(cat llvm.err)"
clang-19 "${LINK[@]}" -L. -lboth -B "$COMPAT" -o both 2>both.err || fail "covered link: $(cat both.err)"
[ "$(warnings both.err)" = 0 ] || fail "a covered program warned: $(cat both.err)"
echo "ok: OpenMP: the sm_80-only library in an sm_90 program: one warning; built for both: none"

# CUDA -fgpu-rdc
cat >libk.cu <<'C'
#include "cuda_decls.h"
__global__ void lib_kernel(int *p) { *p = 7; }
void launch_lib(int *p) { lib_kernel<<<1, 1>>>(p); }
C
cat >maink.cu <<'C'
#include "cuda_decls.h"
__global__ void main_kernel(int *p) { *p = 1; }
void launch_lib(int *p);
int main() {
  main_kernel<<<1, 1>>>(0);
  launch_lib(0);
  return 0;
}
C
CU=(-x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --cuda-path="$CUDA"
    -Wno-unknown-cuda-version -Xclang -target-sdk-version=12.5 -I"$GPU_SRC")
check "libk.cu for sm_80" clang-19 "${CU[@]}" --offload-arch=sm_80 -c libk.cu -o libk80.o
check "archive" ar rcs libk80.a libk80.o
check "libk.cu for both" clang-19 "${CU[@]}" --offload-arch=sm_80,sm_90 -c libk.cu -o libkboth.o
check "archive" ar rcs libkboth.a libkboth.o
check "maink.cu for sm_90" clang-19 "${CU[@]}" --offload-arch=sm_90 -c maink.cu -o maink.o
CLINK=(--offload-new-driver -fgpu-rdc --cuda-path="$CUDA" maink.o -L"$STUBDIR" -Wl,-rpath,"$STUBDIR")
clang-19 "${CLINK[@]}" -L. -lk80 -lcudart -B "$COMPAT" -o cprog 2>cuda.err || fail "CUDA link: $(cat cuda.err)"
[ "$(warnings cuda.err)" = 1 ] || fail "CUDA: not exactly one warning: $(cat cuda.err)"
contains cuda.err "kernel _Z10lib_kernelPi (from ./libk80.a(libk80.o)) is not in the image the runtime loads on sm_90 (cuda nvptx64-nvidia-cuda sm_90)"
contains cuda.err "only the cuda nvptx64-nvidia-cuda sm_80 image has it"
clang-19 "${CLINK[@]}" -L. -lkboth -lcudart -B "$COMPAT" -o cprog2 2>cuda2.err || fail "CUDA link (both): $(cat cuda2.err)"
[ "$(warnings cuda2.err)" = 0 ] || fail "CUDA, covered: warned: $(cat cuda2.err)"
echo "ok: CUDA -fgpu-rdc: one warning for the sm_80-only library, none when it has sm_90 too"
echo "PASS: offload entries on NVIDIA targets"
