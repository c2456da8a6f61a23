#!/usr/bin/env bash
# Issue 33: CUDA from nvcc and clang in one program, with no nvcc -dlink.
#   1. A clang -fgpu-rdc kernel calls a __device__ function of an nvcc
#      -rdc=true object, whose kernel calls one of clang's (and reads an
#      nvcc __device__ variable): linked by offlink for clang 19 and 22,
#      the nvcc code given as an object and as a static library (and a
#      device-only member the host code never names), run on the stub's
#      libcudart: exit 0, both kernels registered against one linked
#      image, both launched.
#   2. A program nvcc builds and links itself (-rdc=true -cudart shared)
#      runs on the stub's libcudart; the same objects linked by offlink
#      register the same kernels, with the same kernels in the cubin.
#   3. -r: clang --offload-link -r pre-links both; g++ links the program.
#   4. An nvcc module without code for the program's SM (an sm_80 cubin,
#      no PTX) is an error naming the object (and archive member) and the
#      field; one with more SMs takes part in the program's; damaged
#      relocatable device code is an error naming the file and the field.
#      (PTX for newer GPUs: e2e.nvcc_vendor.newer.)
# ctest-parts: 19 22 nvcc
# ctest-cost: 20
# ctest-heavy: nvcc
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need_cuda nvcc nvlink fatbinary ptxas
need g++ ar
unset LIBRARY_PATH
NVCC=$CUDA/bin/nvcc

cat >nv.cu <<'EOF'
/* nvcc's side: a kernel calling clang's device function, a device
 * function clang's kernel calls, a device variable. */
extern __device__ int cl_plus(int x);
__device__ int nv_twice(int x) { return 2 * x; }
__device__ int nv_var = 5;
__global__ void nv_kernel(int *p) { *p = cl_plus(*p) + nv_var; }
void nv_launch(int *p) { nv_kernel<<<1, 1>>>(p); }
EOF
cat >nvonly.cu <<'EOF'
/* device code only: no host symbol of it is named by the program */
__device__ int nv_thrice(int x) { return 3 * x; }
EOF
cat >cl.cu <<'EOF'
/* clang's side */
#include "cuda_decls.h"
extern __device__ int nv_twice(int x);
extern __device__ int nv_thrice(int x);
__device__ int cl_plus(int x) { return x + 1; }
__global__ void cl_kernel(int *p) { *p = nv_twice(*p) + nv_thrice(*p); }
void cl_launch(int *p) { cl_kernel<<<1, 1>>>(p); }
EOF
cat >main.cpp <<'EOF'
#include <cstdio>
void nv_launch(int *);
void cl_launch(int *);
int main() { nv_launch(0); cl_launch(0); std::puts("ran"); return 0; }
EOF
check "nvcc -rdc" "$NVCC" -rdc=true -arch=sm_90 -c nv.cu -o nv.o
check "nvcc -rdc, device code only" "$NVCC" -rdc=true -arch=sm_90 -c nvonly.cu -o nvonly.o
check "nvcc library" ar rcs libnv.a nv.o nvonly.o
check "host main" g++ -c main.cpp -o main.o

# kernels LOG: the registered kernels; images LOG: "arch kernels..." per image.
kernels() { jq -r 'select(.images) | .entries[] | select(.kind == "kernel") | .name' "$1" | sort; }
image_kernels() { jq -r 'select(.images) | .images[] | select(.kernels) | "\(.arch) \(.kernels | join(" "))"' "$1"; }
launches() { jq -r 'select(.launch) | .launch' "$1" | sort; }
runs() { # PROG LOG
	rm -f "$2"
	OFFSTUB_LOG=$2 LD_LIBRARY_PATH=$STUBDIR "./$1" >"$1.out" 2>"$1.err" ||
		fail "$1 exited with $?: $(head -c 400 "$1.err")"
	contains "$1.out" "ran"
}

clang_object() { # N: cl<N>.o, clang N's side
	local cu=(-x cuda --offload-new-driver -fgpu-rdc --offload-arch=sm_90 --cuda-path="$CUDA" -nocudainc
		  -Wno-unknown-cuda-version -Xclang -target-sdk-version=12.5 -I"$GPU_SRC")
	[ -e cl$1.o ] || check "clang $1 -fgpu-rdc" clang-$1 "${cu[@]}" -c cl.cu -o cl$1.o
}

mixed() { # N: clang N's object, nvcc's as an object and as a library
	local n=$1
	clang_object $n
	for how in object library; do
		local nv=(nv.o nvonly.o) name=mixed$n-$how
		[ $how = library ] && nv=(-L. -lnv)
		clang++-$n --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" main.o cl$n.o "${nv[@]}" \
			-L"$STUBDIR" -lcudart -B "$COMPAT" -o $name 2>$name.link ||
			fail "clang $n, nvcc's code as $how: the link fails: $(grep -v '^offlink:  ' $name.link | tail -5)"
		grep -q 'warning' $name.link && fail "clang $n, $how: a warning: $(cat $name.link)"
		runs $name $name.log
		printf '_Z9cl_kernelPi\n_Z9nv_kernelPi\n' >want.kernels
		kernels $name.log | diff -u want.kernels - || fail "clang $n, $how: the registered kernels"
		launches $name.log | diff -u want.kernels - || fail "clang $n, $how: the launches"
		[ "$(image_kernels $name.log)" = "sm_90 _Z9cl_kernelPi _Z9nv_kernelPi" ] ||
			fail "clang $n, $how: not one sm_90 image with both kernels: $(image_kernels $name.log)"
		[ "$(jq -r 'select(.images) | .prelinked' $name.log)" = 2 ] ||
			fail "clang $n, $how: the linked fat binary does not list nvcc's two modules"
		jq -se '[.[] | select(.images) | .entries[]] | any(.name == "nv_var" and .kind == "variable")' \
			$name.log >/dev/null || fail "clang $n, $how: nvcc's device variable is not registered"
		echo "ok: clang $n, nvcc's code as $how: one link, both kernels registered and launched"
	done
}

part() { [[ " ${OFFLINK_PART:-19 22 nvcc} " = *" $1 "* ]]; }

for n in 19 22; do
	part $n || continue
	if ! command -v clang-$n >/dev/null; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang-$n is missing"
		echo "SKIP (part): clang-$n"
		continue
	fi
	mixed $n
	if [ $n = 19 ]; then
		# -r: pre-linked by clang, the program linked by g++
		check "-r pre-link" clang-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" --offload-link -r \
			cl19.o nv.o nvonly.o -B "$COMPAT" -o pre.o
		check "g++ link" g++ main.o pre.o -L"$STUBDIR" -lcudart -o prelinked
		runs prelinked prelinked.log
		kernels prelinked.log | diff -u want.kernels - || fail "-r: the registered kernels"
		echo "ok: -r pre-link of nvcc's and clang's code, g++ links the program"
	fi
done

if part nvcc; then
	# nvcc's own link, and offlink's of the same objects
	cat >nvmain.cu <<'EOF'
#include <cstdio>
void nv_launch(int *);
void own_launch(int *);
int main() { nv_launch(0); own_launch(0); std::puts("ran"); return 0; }
EOF
	cat >own.cu <<'EOF'
extern __device__ int nv_twice(int x);
__device__ int cl_plus(int x) { return x - 1; }
__global__ void own_kernel(int *p) { *p = nv_twice(*p); }
void own_launch(int *p) { own_kernel<<<1, 1>>>(p); }
EOF
	check "nvcc own.cu" "$NVCC" -rdc=true -arch=sm_90 -c own.cu -o own.o
	check "nvcc main" "$NVCC" -rdc=true -arch=sm_90 -c nvmain.cu -o nvmain.o
	check "nvcc's link" "$NVCC" -rdc=true -arch=sm_90 -cudart shared nv.o own.o nvmain.o -o bynvcc
	runs bynvcc bynvcc.log
	check "offlink's link" clang++-19 --offload-link nv.o own.o nvmain.o -L"$STUBDIR" -lcudart \
		-B "$COMPAT" -o byofflink
	runs byofflink byofflink.log
	kernels bynvcc.log >nvcc.kernels
	[ "$(wc -l <nvcc.kernels)" = 2 ] || fail "nvcc's program registers $(cat nvcc.kernels)"
	kernels byofflink.log | diff -u nvcc.kernels - || fail "offlink registers other kernels than nvcc"
	diff -u <(image_kernels bynvcc.log) <(image_kernels byofflink.log) ||
		fail "the linked cubins' kernels differ from nvcc's"
	diff -u <(launches bynvcc.log) <(launches byofflink.log) || fail "the launches differ"
	echo "ok: nvcc's own link and offlink's register the same kernels, the same cubin kernels"

	# errors
	need clang-19
	clang_object 19
	check "nvcc sm_80" "$NVCC" -rdc=true -gencode arch=compute_80,code=sm_80 -c nv.cu -o nv80.o
	ar rcs libnv80.a nv80.o
	expect_status 1 clang++-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" main.o cl19.o -L. -lnv80 \
		nvonly.o -L"$STUBDIR" -lcudart -B "$COMPAT" -o wrongsm
	contains "$T/stderr" "libnv80.a(nv80.o)"
	contains "$T/stderr" "field __nv_relfatbin"
	contains "$T/stderr" "for sm_80 has none for sm_90"
	[ ! -e wrongsm ] || fail "an output was written"
	check "nvcc sm_80 and sm_90" "$NVCC" -rdc=true -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -c nv.cu -o nvfat.o
	check "two SMs, the program's taken" clang++-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" \
		main.o cl19.o nvfat.o nvonly.o -L"$STUBDIR" -lcudart -B "$COMPAT" -o fat
	runs fat fat.log
	[ "$(image_kernels fat.log)" = "sm_90 _Z9cl_kernelPi _Z9nv_kernelPi" ] || fail "fat: $(image_kernels fat.log)"
	# damaged relocatable device code
	objcopy -O binary --only-section=__nv_relfatbin nv.o rel.bin
	head -c 40 rel.bin >cut.bin
	check "damage" objcopy --update-section __nv_relfatbin=cut.bin nv.o nvbad.o
	expect_status 1 clang++-19 --offload-new-driver -fgpu-rdc --cuda-path="$CUDA" main.o cl19.o nvbad.o \
		nvonly.o -L"$STUBDIR" -lcudart -B "$COMPAT" -o bad
	contains "$T/stderr" "nvbad.o"
	contains "$T/stderr" "__nv_relfatbin"
	echo "ok: an nvcc module without the program's SM, and damaged device code, are errors naming them"
fi
echo "PASS: nvcc's and clang's CUDA in one program"
