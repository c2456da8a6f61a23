#!/usr/bin/env bash
# Issue 38: a vendor's nvcc library (three objects; -gencode for sm_80 and
# sm_90 and compute_90 PTX; __constant__, __managed__, a template kernel)
# in a clang program, as a CUDA user meets it, against nvcc's own link of
# the same objects on the runtime stub.  One part per item:
#   newer    PTX for a GPU the library has no cubin for: sm_80/sm_90 cubins
#            and compute_90 PTX in an sm_100 program (clang 22); a
#            PTX-only compute_80 library in an sm_90 program; a library with
#            nothing for the program's SM is an error listing what it holds,
#            PTX included.
#   cdp      dynamic parallelism: an nvcc library whose kernels launch
#            kernels links with no library named, registers what nvcc's
#            link registers (CUDA's device runtime included), and the same
#            when the user names -lcudadevrt on the device link.
#   dlink    the user's own nvcc -dlink object on the line (CMake's
#            cmake_device_link.o): its modules are not linked or registered
#            again, each kernel registered once.
#   openmp   an OpenMP target region (clang 19, sm_90) calls an nvcc
#            __device__ function: linked and run on the stub; a combination
#            that cannot work is an error saying why.
#   arch     an SM with a suffix: the library built for sm_90a alone links
#            into an sm_90a program, its cubin in nvlink -arch=sm_90a, with
#            the kernels of nvcc's own sm_90a link (the suffix was dropped:
#            "has none for sm_90a"), and so does one of compute_90a PTX; an OpenMP program for sm_90 with an
#            nvcc library built for sm_80 only: the entry check warns, naming
#            the kernel and sm_90 (the CUDA image was sm_80's, silently), and
#            with sm_90 code in the library it does not.
#   stub     the stub reading nvcc's programs: a __managed__ int initialised
#            to 7 reads 7, template kernels are in the image's kernel list,
#            two copies of the stub log each record once, liboffstub.so in
#            front of CUDA's own libcudart lets the program run.
# ctest-parts: newer cdp dlink openmp arch stub
# ctest-cost: 20
# ctest-heavy: newer openmp
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need_cuda nvcc nvlink fatbinary ptxas
need g++ ar
unset LIBRARY_PATH
NVCC=$CUDA/bin/nvcc
GENCODE=(-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
	 -gencode arch=compute_90,code=compute_90)
CU=(-x cuda --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" -nocudainc -Wno-unknown-cuda-version
    -Xclang -target-sdk-version=12.5 -I"$GPU_SRC")

part() { [ "${OFFLINK_PART:-}" = "$1" ] || [ -z "${OFFLINK_PART:-}" ]; }

# kernels LOG: the registered kernels; image_kernels LOG: "arch kernels..."
# per image; entries LOG: every registered entry, "kind name size".
kernels() { jq -r 'select(.images) | .entries[] | select(.kind == "kernel") | .name' "$1" | sort; }
image_kernels() { jq -r 'select(.images) | .images[] | select(.kernels) | "\(.arch) \(.kernels | join(" "))"' "$1"; }
entries() { jq -r 'select(.images) | .entries[] | "\(.kind) \(.name) \(.size)"' "$1" | sort; }
# runs PROG LOG [ENV...]: run on the stub's libcudart; exit 0, "ran" printed.
runs() {
	local prog=$1 log=$2
	shift 2
	rm -f "$log"
	env OFFSTUB_LOG="$log" LD_LIBRARY_PATH="$STUBDIR" "$@" "./$prog" >"$prog.out" 2>"$prog.err" ||
		fail "$prog exited with $?: $(head -c 400 "$prog.err")"
	contains "$prog.out" "ran"
}
# offlink_link CLANG OUT [--offload-link] ARGS...: a link through offlink
# (of nvcc's objects only with --offload-link); no warning.
offlink_link() {
	local clang=$1 out=$2 how=(--offload-new-driver -fgpu-rdc)
	shift 2
	[ "$1" = --offload-link ] && how=()
	$clang "${how[@]}" --cuda-path="$CUDA" "$@" -L"$STUBDIR" -lcudart -B "$COMPAT" \
		-o "$out" 2>"$out.link" || fail "$out: the link fails: $(grep -v '^offlink:  ' "$out.link" | tail -5)"
	grep -q 'warning' "$out.link" && fail "$out: a warning: $(cat "$out.link")"
	true
}

# The vendor's library: v1 a __constant__ table, a __managed__ counter, a
# device function and a template kernel; v2 calls v1's device function;
# v3 calls v2's.
vendor_sources() {
	cat >v1.cu <<'EOF'
__constant__ float vendor_coef[4] = {1, 2, 3, 4};
__managed__ int vendor_count = 7;
__device__ float vendor_scale(float x) { return vendor_coef[1] * x; }
template <typename T> __global__ void vendor_fill(T *p, T v) { p[threadIdx.x] = v + (T)vendor_count; }
void vendor_fill_f(float *p) { vendor_fill<float><<<1, 4>>>(p, 1.0f); }
void vendor_fill_i(int *p) { vendor_fill<int><<<1, 4>>>(p, 1); }
int vendor_count_host() { return vendor_count; }
EOF
	cat >v2.cu <<'EOF'
extern __device__ float vendor_scale(float x);
__device__ float vendor_twice(float x) { return 2.0f * vendor_scale(x); }
__global__ void vendor_kernel2(float *p) { p[0] = vendor_twice(p[0]); }
void vendor_run2(float *p) { vendor_kernel2<<<1, 1>>>(p); }
EOF
	cat >v3.cu <<'EOF'
extern __device__ float vendor_twice(float x);
__device__ int vendor_table[16];
__global__ void vendor_kernel3(float *p) { p[0] = vendor_twice(p[0]) + vendor_table[0]; }
void vendor_run3(float *p) { vendor_kernel3<<<1, 1>>>(p); }
EOF
	cat >vmain.cpp <<'EOF'
#include <cstdio>
void vendor_fill_f(float *);
void vendor_fill_i(int *);
void vendor_run2(float *);
void vendor_run3(float *);
int vendor_count_host();
int main() {
  vendor_fill_f(0); vendor_fill_i(0); vendor_run2(0); vendor_run3(0);
  std::printf("count=%d\nran\n", vendor_count_host());
  return 0;
}
EOF
}

# vendor_library FLAGS...: v1.o v2.o v3.o and libvendor.a, nvcc -rdc with FLAGS.
vendor_library() {
	vendor_sources
	for f in v1 v2 v3; do
		check "nvcc $f.cu" "$NVCC" -rdc=true "$@" -c $f.cu -o $f.o
	done
	check "ar" ar rcs libvendor.a v1.o v2.o v3.o
}

# The clang program: a kernel calling the vendor's device function, and
# the vendor's host entry points.
app_source() {
	cat >app.cu <<'EOF'
#include "cuda_decls.h"
extern __device__ float vendor_twice(float x);
__global__ void app_kernel(float *p) { p[0] = vendor_twice(p[0]); }
void vendor_fill_f(float *p);
void vendor_run3(float *p);
int vendor_count_host();
int main() {
  app_kernel<<<1, 1>>>(0);
  vendor_fill_f(0);
  vendor_run3(0);
  printf("count=%d\nran\n", vendor_count_host());
  return 0;
}
EOF
}
APP_KERNEL=_Z10app_kernelPf

if part newer; then
	vendor_library "${GENCODE[@]}"
	app_source
	check "host main" g++ -c vmain.cpp -o vmain.o
	# sm_80/sm_90 cubins and compute_90 PTX in an sm_100 program: the PTX
	# through ptxas for sm_100, as nvcc's link does
	if command -v clang++-22 >/dev/null; then
		check "clang 22 sm_100" clang++-22 "${CU[@]}" --offload-arch=sm_100 -c app.cu -o app100.o
		offlink_link clang++-22 app100 app100.o -L. -lvendor -Wl,--wrapper-verbose
		grep -q -- "ptx  *[0-9]*  ./libvendor.a(v1.o) \[compute_90\]" app100.link &&
			grep -q -- "ptxas .*--gpu-name sm_100 " app100.link ||
			fail "sm_100: the compute_90 PTX is not compiled for sm_100: $(grep -e ptxas -e ptx app100.link)"
		runs app100 app100.log
		contains app100.out "count=7"
		check "nvcc's sm_100 link" "$NVCC" -rdc=true -arch=sm_100 -cudart shared vmain.o v1.o v2.o v3.o \
			-o nv100
		runs nv100 nv100.log
		[ "$(image_kernels nv100.log)" = "$(image_kernels app100.log | sed "s/ $APP_KERNEL//")" ] ||
			fail "sm_100: $(image_kernels app100.log), nvcc's $(image_kernels nv100.log)"
		diff -u <(entries nv100.log) <(entries app100.log | grep -v "$APP_KERNEL") ||
			fail "sm_100: offlink registers other vendor entries than nvcc's link"
		echo "ok: sm_80/sm_90 cubins and compute_90 PTX link into an sm_100 program, as nvcc's link"
	elif [ "${OFFLINK_NO_SKIP:-0}" = 1 ]; then
		fail "clang++-22 is missing"
	else
		echo "SKIP (sm_100): clang++-22"
	fi
	# a PTX-only compute_80 library in an sm_90 program
	mkdir ptx80 && (cd ptx80 && vendor_library -gencode arch=compute_80,code=compute_80) ||
		fail "the PTX-only library"
	check "clang 19 sm_90" clang++-19 "${CU[@]}" --offload-arch=sm_90 -c app.cu -o app90.o
	offlink_link clang++-19 app90 app90.o -Lptx80 -lvendor
	runs app90 app90.log
	contains app90.out "count=7"
	[ "$(image_kernels app90.log)" = "sm_90 $APP_KERNEL _Z11vendor_fillIfEvPT_S0_ _Z11vendor_fillIiEvPT_S0_ _Z14vendor_kernel2Pf _Z14vendor_kernel3Pf" ] ||
		fail "PTX-only in sm_90: $(image_kernels app90.log)"
	echo "ok: a PTX-only compute_80 library links into an sm_90 program"
	# nothing for the program's SM: what the file holds, PTX included
	mkdir only90 && (cd only90 && vendor_library -gencode arch=compute_90,code=sm_90 \
		-gencode arch=compute_90,code=compute_90) || fail "the sm_90 library"
	check "clang 19 sm_80" clang++-19 "${CU[@]}" --offload-arch=sm_80 -c app.cu -o app80.o
	expect_status 1 clang++-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" app80.o -Lonly90 -lvendor \
		-L"$STUBDIR" -lcudart -B "$COMPAT" -o app80
	contains "$T/stderr" "only90/libvendor.a(v2.o): field __nv_relfatbin: nvcc relocatable device code for compute_90, sm_90 has none for sm_80, which the program's CUDA code is built for"
	[ ! -e app80 ] || fail "an output was written"
	echo "ok: a library with nothing for the program's SM is an error listing its cubins and PTX"
fi

if part cdp; then
	need clang++-19
	cat >vcdp.cu <<'EOF'
/* kernels that launch kernels: CUDA's device runtime (__cudaCDP2*) */
__device__ int vendor_depth;
__global__ void vendor_child(int *p) { if (p) p[threadIdx.x] = threadIdx.x; }
__global__ void vendor_parent(int *p) { vendor_child<<<1, 4>>>(p); vendor_depth = 1; }
__device__ void vendor_spawn(int *p) { vendor_child<<<1, 2>>>(p); }
void vendor_cdp(int *p) { vendor_parent<<<1, 1>>>(p); }
EOF
	cat >cdpmain.cpp <<'EOF'
#include <cstdio>
void vendor_cdp(int *p);
int main() { vendor_cdp(0); std::printf("ran\n"); return 0; }
EOF
	cat >cdpapp.cu <<'EOF'
#include "cuda_decls.h"
extern __device__ void vendor_spawn(int *p);
__global__ void app_kernel(int *p) { vendor_spawn(p); }
void vendor_cdp(int *p);
int main() { app_kernel<<<1, 1>>>(0); vendor_cdp(0); printf("ran\n"); return 0; }
EOF
	check "nvcc vcdp.cu" "$NVCC" -rdc=true "${GENCODE[@]}" -c vcdp.cu -o vcdp.o
	check "ar" ar rcs libvcdp.a vcdp.o
	check "host main" g++ -c cdpmain.cpp -o cdpmain.o
	check "nvcc's link" "$NVCC" -rdc=true "${GENCODE[@]}" -cudart shared cdpmain.o vcdp.o -o cdpnvcc
	runs cdpnvcc cdpnvcc.log
	# what nvcc's link registers: the library's and the device runtime's
	entries cdpnvcc.log >nvcc.entries
	grep -q "kernel .*cuda_device_runtime" nvcc.entries || fail "nvcc's link registers no device runtime kernel"
	# the same objects, no library named; then named on the device link,
	# and on the host link
	offlink_link clang++-19 cdpoff --offload-link cdpmain.o vcdp.o -Wl,--wrapper-verbose
	grep -q 'libcudadevrt.a(cuda_device_runtime.o)  (defines __cudaCDP2' cdpoff.link ||
		fail "the device runtime is not in the plan: $(grep -A5 'device link' cdpoff.link)"
	offlink_link clang++-19 cdpdev --offload-link cdpmain.o vcdp.o -Xoffload-linker -L"$CUDA/lib64" \
		-Xoffload-linker -lcudadevrt -Wl,--wrapper-verbose
	grep 'nvlink ' cdpdev.link | grep -q -- -lcudadevrt && fail "-lcudadevrt still goes to nvlink"
	offlink_link clang++-19 cdphost --offload-link cdpmain.o vcdp.o -L"$CUDA/lib64" -lcudadevrt
	for prog in cdpoff cdpdev cdphost; do
		runs $prog $prog.log
		diff -u nvcc.entries <(entries $prog.log) || fail "$prog: not what nvcc's link registers"
		diff -u <(image_kernels cdpnvcc.log | sort) <(image_kernels $prog.log | sort) ||
			fail "$prog: other kernels in the images than nvcc's"
	done
	echo "ok: dynamic parallelism, CUDA's device runtime registered as nvcc's link, however named"
	# a clang program calling into the library, no library named
	check "clang 19 cdpapp.cu" clang++-19 "${CU[@]}" --offload-arch=sm_90 -c cdpapp.cu -o cdpapp.o
	offlink_link clang++-19 cdpapp cdpapp.o -L. -lvcdp
	runs cdpapp cdpapp.log
	diff -u <( (cat nvcc.entries; echo "kernel _Z10app_kernelPi 0") | sort) <(entries cdpapp.log) ||
		fail "cdpapp: not nvcc's link's entries and the app's kernel"
	echo "ok: an nvcc library launching kernels from the device links into a clang program"
fi

if part dlink; then
	need clang++-19
	vendor_library "${GENCODE[@]}"
	# the user's own nvcc -dlink of the vendor's objects, as CMake's
	# separable compilation makes it
	check "nvcc -dlink" "$NVCC" -dlink "${GENCODE[@]}" v1.o v2.o v3.o -o cmake_device_link.o
	cat >own.cu <<'EOF'
#include "cuda_decls.h"
__global__ void own_kernel(float *p) { p[0] = 1.0f; }
void vendor_fill_f(float *p);
void vendor_run3(float *p);
int main() { own_kernel<<<1, 1>>>(0); vendor_fill_f(0); vendor_run3(0); printf("ran\n"); return 0; }
EOF
	check "clang 19 own.cu" clang++-19 "${CU[@]}" --offload-arch=sm_90 -c own.cu -o own.o
	offlink_link clang++-19 dlinked own.o v1.o v2.o v3.o cmake_device_link.o
	runs dlinked dlinked.log
	kernels dlinked.log >dlinked.kernels
	expect_text dlinked.kernels <<'TXT'
_Z10own_kernelPf
_Z11vendor_fillIfEvPT_S0_
_Z11vendor_fillIiEvPT_S0_
_Z14vendor_kernel2Pf
_Z14vendor_kernel3Pf
TXT
	[ "$(jq -s 'map(select(.images)) | length' dlinked.log)" = 2 ] ||
		fail "not two registrations (the -dlink object's, offlink's): $(jq -c 'select(.images) | .entries' dlinked.log)"
	# LLVM 22's own link of the same objects registers the same
	if command -v clang++-22 >/dev/null; then
		check "clang 22 own.cu" clang++-22 "${CU[@]}" --offload-arch=sm_90 -c own.cu -o own22.o
		offlink_link clang++-22 dlinked22 own22.o v1.o v2.o v3.o cmake_device_link.o
		check "LLVM 22's link" clang++-22 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" own22.o v1.o v2.o \
			v3.o cmake_device_link.o -L"$STUBDIR" -lcudart -o llvm22
		runs dlinked22 dlinked22.log
		runs llvm22 llvm22.log
		diff -u <(entries llvm22.log) <(entries dlinked22.log) || fail "LLVM 22's link registers other entries"
	fi
	echo "ok: the user's nvcc -dlink object on the line: its modules are linked and registered once"
	# clang's device code using a module the -dlink object linked
	app_source
	check "clang 19 app.cu" clang++-19 "${CU[@]}" --offload-arch=sm_90 -c app.cu -o app.o
	expect_status 1 clang++-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" app.o v1.o v2.o v3.o \
		cmake_device_link.o -L"$STUBDIR" -lcudart -B "$COMPAT" -o app
	contains "$T/stderr" "app.o: device code refers to _Z12vendor_twicef, which v2.o defines; cmake_device_link.o (nvcc -dlink) has linked and registers that module"
	[ ! -e app ] || fail "an output was written"
	# an -r output of offlink's registers its modules too: linked again
	check "-r" clang++-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" --offload-link -r app.o v1.o v2.o \
		v3.o -B "$COMPAT" -o pre.o
	offlink_link clang++-19 relinked pre.o
	runs relinked relinked.log
	[ "$(kernels relinked.log | tr '\n' ' ')" = "$APP_KERNEL _Z11vendor_fillIfEvPT_S0_ _Z11vendor_fillIiEvPT_S0_ _Z14vendor_kernel2Pf _Z14vendor_kernel3Pf " ] ||
		fail "the -r output relinked registers $(kernels relinked.log)"
	echo "ok: device code using what the -dlink object linked is an error; an -r output relinks"
fi

if part openmp; then
	need clang-19
	cat >nvsq.cu <<'EOF'
/* nvcc's: a function for host and device, a kernel using it */
extern "C" __host__ __device__ int nv_square(int x) { return x * x; }
__global__ void nv_kernel(int *p) { *p = nv_square(*p); }
extern "C" void nv_launch(int *p) { nv_kernel<<<1, 1>>>(p); }
EOF
	cat >omp.c <<'EOF'
#include <stdio.h>
#pragma omp declare target
int nv_square(int x);
#pragma omp end declare target
void nv_launch(int *p);
int main(void) {
  int a[4] = {1, 2, 3, 4};
#pragma omp target teams distribute parallel for map(tofrom: a)
  for (int i = 0; i < 4; i++)
    a[i] = nv_square(a[i]);
  nv_launch(0);
  printf("a=%d,%d,%d,%d\nran\n", a[0], a[1], a[2], a[3]);
  return 0;
}
EOF
	OMP=(-fopenmp --offload-arch=sm_90 --cuda-path="$CUDA" -Wno-unknown-cuda-version)
	check "nvcc nvsq.cu" "$NVCC" -rdc=true "${GENCODE[@]}" -c nvsq.cu -o nvsq.o
	check "clang 19 OpenMP" clang-19 "${OMP[@]}" -nogpulib -c omp.c -o omp.o
	clang-19 "${OMP[@]}" omp.o nvsq.o -L"$STUBDIR" -lcudart -lstdc++ -B "$COMPAT" -o omp \
		-Wl,--wrapper-verbose 2>omp.link || fail "OpenMP calling nvcc: $(grep -v '^offlink:  ' omp.link | tail -5)"
	# nvcc's sm_90 cubin in OpenMP's sm_90 link, and in CUDA's
	[ "$(grep -A3 'openmp nvptx64-nvidia-cuda sm_90:' omp.link | grep -c 'cubin .* nvsq.o')" = 1 ] ||
		fail "nvcc's cubin is not in OpenMP's link: $(grep -A4 'openmp nvptx' omp.link)"
	runs omp omp.log LD_PRELOAD="$STUB"
	contains omp.out "a=1,4,9,16"
	[ "$(jq -r 'select(.runtime == "openmp" and .images) | .images[].kernels | map(select(startswith("__omp_offloading") | not)) | join(" ")' omp.log)" = _Z9nv_kernelPi ] ||
		fail "the OpenMP image: $(jq -c 'select(.images) | .images' omp.log)"
	[ "$(jq -r 'select(.runtime == "cuda" and .images) | .entries[].name' omp.log)" = _Z9nv_kernelPi ] ||
		fail "CUDA registers $(kernels omp.log)"
	echo "ok: an OpenMP target region (clang 19, sm_90) calls an nvcc __device__ function"
	# what cannot work says why: nvcc's code without anything for the
	# OpenMP code's SM; a JIT image
	check "nvcc sm_80 cubin" "$NVCC" -rdc=true -gencode arch=compute_80,code=sm_80 -c nvsq.cu -o nvsq80.o
	expect_status 1 clang-19 "${OMP[@]}" omp.o nvsq80.o -L"$STUBDIR" -lcudart -lstdc++ -B "$COMPAT" -o omp80
	contains "$T/stderr" "nvsq80.o: field __nv_relfatbin: nvcc relocatable device code for sm_80 has none for sm_90, which the OpenMP target code calling nv_square (omp.o) is built for"
	check "clang 19 OpenMP JIT" clang-19 "${OMP[@]}" -fopenmp-target-jit -foffload-lto -nogpulib -c omp.c -o ompjit.o
	expect_status 1 clang-19 "${OMP[@]}" -fopenmp-target-jit ompjit.o nvsq.o -L"$STUBDIR" -lcudart -lstdc++ \
		-B "$COMPAT" -o ompjit
	contains "$T/stderr" "ompjit.o: OpenMP target code calls nv_square, which nvcc's code in nvsq.o defines: with --embed-bitcode (-fopenmp-target-jit)"
	[ ! -e omp80 ] && [ ! -e ompjit ] || fail "an output was written"
	echo "ok: OpenMP code calling nvcc code that cannot join its link is an error saying why"
fi

if part arch; then
	need clang-19
	mkdir a90 && (cd a90 && vendor_library -gencode arch=compute_90a,code=sm_90a) ||
		fail "the sm_90a library"
	app_source
	check "host main" g++ -c a90/vmain.cpp -o vmain.o
	check "clang 19 sm_90a" clang++-19 "${CU[@]}" --offload-arch=sm_90a -c app.cu -o app90a.o
	offlink_link clang++-19 app90a app90a.o -La90 -lvendor -Wl,--wrapper-verbose
	grep -q -- "nvlink -arch=sm_90a .*\.cubin" app90a.link ||
		fail "sm_90a: no nvlink of the library's sm_90a cubin: $(grep nvlink app90a.link)"
	contains app90a.link "cuda nvptx64-nvidia-cuda sm_90a: 4 images"
	runs app90a app90a.log
	contains app90a.out "count=7"
	check "nvcc's sm_90a link" "$NVCC" -rdc=true -arch=sm_90a -cudart shared vmain.o a90/v1.o a90/v2.o \
		a90/v3.o -o nv90a
	runs nv90a nv90a.log
	[ "$(image_kernels nv90a.log)" = "$(image_kernels app90a.log | sed "s/ $APP_KERNEL//")" ] ||
		fail "sm_90a: $(image_kernels app90a.log), nvcc's $(image_kernels nv90a.log)"
	echo "ok: an nvcc library's sm_90a cubin links into an sm_90a program"
	# PTX of exactly the program's virtual architecture, compute_90a: its
	# members are found for the device symbols the program needs
	mkdir p90a && (cd p90a && vendor_library -gencode arch=compute_90a,code=compute_90a) ||
		fail "the compute_90a library"
	offlink_link clang++-19 app90ap app90a.o -Lp90a -lvendor -Wl,--wrapper-verbose
	contains app90ap.link "p90a/libvendor.a(v2.o) [compute_90a]  (defines _Z12vendor_twicef, needed by app90a.o)"
	[ "$(grep -c -- "ptxas .*--gpu-name sm_90a " app90ap.link)" = 3 ] ||
		fail "compute_90a: not three ptxas runs for sm_90a: $(grep ptxas app90ap.link)"
	runs app90ap app90ap.log
	[ "$(image_kernels app90ap.log)" = "$(image_kernels app90a.log)" ] ||
		fail "compute_90a: $(image_kernels app90ap.log), from cubins $(image_kernels app90a.log)"
	echo "ok: an nvcc library's compute_90a PTX links into an sm_90a program"

	cat >nvk.cu <<'EOF'
__global__ void nv_kernel(int *p) { *p = 42; }
extern "C" void nv_launch(int *p) { nv_kernel<<<1, 1>>>(p); }
EOF
	cat >ompk.c <<'EOF'
#include <stdio.h>
void nv_launch(int *p);
int main(void) {
  int a = 1;
#pragma omp target map(tofrom: a)
  a += 1;
  nv_launch(0);
  printf("a=%d\nran\n", a);
  return 0;
}
EOF
	OMP=(-fopenmp --offload-arch=sm_90 --cuda-path="$CUDA" -Wno-unknown-cuda-version)
	check "clang 19 OpenMP" clang-19 "${OMP[@]}" -nogpulib -c ompk.c -o ompk.o
	mkdir nv80 nv8090
	check "nvcc sm_80" "$NVCC" -rdc=true -gencode arch=compute_80,code=sm_80 -c nvk.cu -o nv80/nvk.o
	check "nvcc sm_80, sm_90" "$NVCC" -rdc=true -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -c nvk.cu -o nv8090/nvk.o
	for d in nv80 nv8090; do
		check "ar $d" ar rcs $d/libnvk.a $d/nvk.o
		clang-19 "${OMP[@]}" ompk.o -L$d -lnvk -L"$STUBDIR" -lcudart -lstdc++ -B "$COMPAT" -o omp$d \
			2>omp$d.link || fail "$d: $(tail -5 omp$d.link)"
		runs omp$d omp$d.log LD_PRELOAD="$STUB"
		contains omp$d.out "a=2"
	done
	contains ompnv80.link "warning: kernel _Z9nv_kernelPi (from nv80/libnvk.a(nvk.o)) has no image the runtime can load on sm_90, which the program's own device code is built for: only the cuda nvptx64-nvidia-cuda sm_80 image has it"
	[ "$(grep -c warning ompnv80.link)" = 1 ] || fail "not one warning: $(cat ompnv80.link)"
	grep -q warning ompnv8090.link && fail "a library with sm_90 code: $(cat ompnv8090.link)"
	echo "ok: an sm_80-only nvcc library in an sm_90 OpenMP program draws the entry check's warning"
fi

if part stub; then
	vendor_library "${GENCODE[@]}"
	check "host main" g++ -c vmain.cpp -o vmain.o
	# nvcc's own link and offlink's of the same objects
	check "nvcc's link" "$NVCC" -rdc=true "${GENCODE[@]}" -cudart shared vmain.o v1.o v2.o v3.o -o bynvcc
	check "offlink's link" clang++-19 --offload-link vmain.o v1.o v2.o v3.o -L"$STUBDIR" -lcudart \
		-B "$COMPAT" -o byofflink
	for prog in bynvcc byofflink; do
		runs $prog $prog.log
		contains $prog.out "count=7"
		image_kernels $prog.log | sort >$prog.images
		expect_text $prog.images <<'TXT'
sm_80 _Z11vendor_fillIfEvPT_S0_ _Z11vendor_fillIiEvPT_S0_ _Z14vendor_kernel2Pf _Z14vendor_kernel3Pf
sm_90 _Z11vendor_fillIfEvPT_S0_ _Z11vendor_fillIiEvPT_S0_ _Z14vendor_kernel2Pf _Z14vendor_kernel3Pf
TXT
	done
	diff -u <(entries bynvcc.log) <(entries byofflink.log) || fail "offlink registers other entries than nvcc"
	echo "ok: an nvcc __managed__ int reads 7 on the stub, template kernels are in the kernel lists"

	# nvcc's modules registered by the assembly form (the default) and by
	# the C form: the same registration; -v shows the assembler
	for form in asm c; do
		check "offlink's link ($form)" clang++-19 --offload-link vmain.o v1.o v2.o v3.o -L"$STUBDIR" \
			-lcudart -B "$COMPAT" -o by$form -Wl,--registration=$form -Wl,--wrapper-verbose 2>by$form.v
		runs by$form by$form.log
		diff -u <(jq -c 'select(.images) | del(.pid)' byofflink.log) \
			<(jq -c 'select(.images) | del(.pid)' by$form.log) || fail "--registration=$form registers otherwise"
	done
	grep -q -- "-as -o .*cuda.image.wrapper.o .*cuda.image.wrapper.s" byasm.v ||
		fail "nvcc's modules: the registration was not assembled: $(grep wrapper byasm.v)"
	grep -q -- "clang.* -c .*cuda.image.wrapper.c" byc.v || fail "nvcc's modules: the C form was not compiled"
	echo "ok: nvcc's modules registered by the assembly form and the C form alike"

	# two copies of the stub: liboffstub.so preloaded, the program linked
	# with the stub's libcudart; each record once
	runs bynvcc twice.log LD_PRELOAD="$STUB"
	contains bynvcc.out "count=7"
	[ "$(jq -s 'map(select(.images)) | length' twice.log)" = 1 ] ||
		fail "two copies of the stub: $(jq -s 'map(select(.images)) | length' twice.log) registrations logged"
	[ "$(jq -s 'map(select(.launch)) | length' twice.log)" = 4 ] ||
		fail "two copies of the stub: $(jq -s 'map(select(.launch)) | length' twice.log) launches logged"
	echo "ok: two copies of the stub log each record once"

	# liboffstub.so in front of CUDA's own libcudart (no GPU: its calls
	# fail, and the program goes on)
	if [ -e "$CUDA/lib64/libcudart.so" ]; then
		cat >real.cu <<'EOF'
#include <cstdio>
template <typename T> __global__ void k(T *p) { *p = 1; }
int main() { k<int><<<1, 1>>>(0); k<float><<<1, 1>>>(0); std::puts("ran"); return 0; }
EOF
		check "nvcc real.cu" "$NVCC" -arch=sm_90 -cudart shared real.cu -o real
		rm -f real.log
		OFFSTUB_LOG=real.log LD_PRELOAD="$STUB" LD_LIBRARY_PATH="$CUDA/lib64" ./real >real.out 2>real.err ||
			fail "liboffstub.so before CUDA's libcudart: exit $?: $(head -c 300 real.err)"
		contains real.out ran
		[ "$(kernels real.log | tr '\n' ' ')" = "_Z1kIfEvPT_ _Z1kIiEvPT_ " ] ||
			fail "liboffstub.so before CUDA's libcudart: $(kernels real.log)"
		echo "ok: liboffstub.so in front of CUDA's libcudart, the program runs"
	fi
fi

echo "PASS: ${OFFLINK_PART:-every part}"
