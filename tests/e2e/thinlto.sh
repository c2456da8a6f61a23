#!/usr/bin/env bash
# Device ThinLTO (-foffload-lto=thin), each module a job of its own
# (docs/design.md, "ThinLTO device links"):
#   cpu    a CPU-device program of three TUs, one of them only a declare
#          target function the others call, compiled thin and full:
#          offlink's thin link, offlink's full link and LLVM 19's thin
#          link print the same under libomptarget 19; lld's own ThinLTO
#          cache, in the device-link cache's directory, keeps one object
#          per module, and a relink after one TU changed adds one; a JIT
#          image (--embed-bitcode) of thin modules is refused;
#   nvptx  OpenMP for sm_90 with clang 19: offlink's thin link and LLVM
#          19's register the same kernels on the stub, and each module's
#          PTX (and the device runtime's partition) is the one LLVM 19's
#          in-process backend writes, but for the numbers of its
#          "callseq" comments (LLVM counts them across its threads); a
#          relink after a one-constant change to one TU runs one backend
#          and one ptxas, takes the rest from the cache, and makes the
#          program an uncached link makes; the dry run names every step;
#   remote a farm: a first worker's thin link stores each module's result
#          in Redis (on loopback); a second worker, another checkout with
#          an empty cache of its own, relinks after one TU changed: one
#          backend and one ptxas run, the rest are remote hits;
#   cuda   CUDA -fgpu-rdc -foffload-lto=thin with clang 19 and 22, a TU
#          of device functions only: the program links, and both kernels
#          are registered and launched on the stub's libcudart; HIP
#          -fgpu-rdc thin for gfx90a: lld links it, keeping one object a
#          module in its cache, and the program registers what the
#          sources declare.
# ctest-parts: cpu nvptx remote cuda
# ctest-cost: 25
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need clang-19 clang-linker-wrapper-19

part() { [[ " ${OFFLINK_PART:-cpu nvptx remote cuda} " = *" $1 "* ]]; }

if part cpu; then
	X=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
	cat >dev.c <<'EOF'
int twice(int x) { return 2 * x + 1; }
#pragma omp declare target to(twice)
EOF
	cat >k1.c <<'EOF'
int twice(int x);
#pragma omp declare target to(twice)
int run_k1(int n) {
  int s = 0;
#pragma omp target map(tofrom: s)
  for (int i = 0; i < n; i++) s += twice(i) * 3;
  return s;
}
EOF
	cat >main.c <<'EOF'
#include <stdio.h>
#include <omp.h>
int twice(int x);
#pragma omp declare target to(twice)
int run_k1(int n);
int main(void) {
  int s = 0, host = 1;
#pragma omp target map(tofrom: s, host)
  { s = twice(20); host = omp_is_initial_device(); }
  printf("main=%d k1=%d host=%d\n", s, run_k1(10), host);
  return 0;
}
EOF
	for f in dev k1 main; do
		check "compile $f.c thin" clang-19 "${X[@]}" -O2 -foffload-lto=thin -c $f.c -o $f.thin.o
		check "compile $f.c full" clang-19 "${X[@]}" -O2 -foffload-lto -c $f.c -o $f.full.o
	done
	THIN=(dev.thin.o k1.thin.o main.thin.o)
	check "offlink thin link" clang-19 "${X[@]}" -foffload-lto=thin -B "$COMPAT" "${THIN[@]}" -o thin
	check "offlink full link" clang-19 "${X[@]}" -foffload-lto -B "$COMPAT" dev.full.o k1.full.o \
		main.full.o -o full
	check "LLVM 19 thin link" clang-19 "${X[@]}" -foffload-lto=thin "${THIN[@]}" -o llvm
	for p in thin full llvm; do
		LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY ./$p >$p.out 2>$p.err ||
			fail "$p exited with $?: $(head -c 400 $p.err)"
	done
	contains thin.out "main=41 k1=300 host=0"
	# a JIT image is one module: ThinLTO's are refused, by name
	expect_status 1 clang-19 "${X[@]}" -foffload-lto=thin -B "$COMPAT" "${THIN[@]}" -o jit \
		-Wl,--embed-bitcode
	contains "$T/stderr" "--embed-bitcode needs bitcode of regular LTO (-foffload-lto), not ThinLTO modules"
	[ ! -e jit ] || fail "a refused link wrote its output"
	same_bytes thin.out full.out
	same_bytes thin.out llvm.out
	lld_cache=$OFFLINK_CACHE_DIR/lld-thinlto
	cold=$(find "$lld_cache" -name 'llvmcache-*' | wc -l)
	[ "$cold" = 3 ] || fail "lld's ThinLTO cache holds $cold objects after the first link, not one per module (3)"
	# one constant in k1.c: its module alone is compiled again
	sed -i 's/\* 3;/* 5;/' k1.c
	check "recompile k1.c" clang-19 "${X[@]}" -O2 -foffload-lto=thin -c k1.c -o k1.thin.o
	check "offlink thin relink" clang-19 "${X[@]}" -foffload-lto=thin -B "$COMPAT" "${THIN[@]}" -o thin2
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY ./thin2 >thin2.out 2>&1 ||
		fail "thin2 exited with $?: $(head -c 400 thin2.out)"
	contains thin2.out "main=41 k1=500 host=0"
	warm=$(find "$lld_cache" -name 'llvmcache-*' | wc -l)
	[ "$warm" = 4 ] || fail "after one TU changed, lld's ThinLTO cache holds $warm objects, not 4"
	check "--cache-clear" "$BIN/offlink" --cache-clear
	[ ! -e "$lld_cache" ] || fail "--cache-clear left lld's ThinLTO cache: $(ls -la "$lld_cache")"
	echo "ok: cpu: thin = full = LLVM's; one changed TU, one module compiled again"
fi

. "$OFFLINK_SRC/tests/lib/thin.sh"

if part nvptx; then
	need_cuda ptxas nvlink
	nvptx_sources
	OBJS=(a.o b.o main.o)
	# the plan: every step, and what will be looked up
	check "dry run" clang-19 "${NV[@]}" -foffload-lto=thin -B "$COMPAT" "${OBJS[@]}" -o dry \
		-Wl,--dry-run 2>dry.txt
	contains dry.txt "ThinLTO: 3 modules compiled apart, the regular-LTO code (the device runtime) as one more"
	[ "$(grep -c 'llvm-lto2 run -thinlto-distributed-indexes' dry.txt)" = 1 ] || fail "the dry run has no thin link"
	[ "$(grep -c 'clang -cc1 -triple nvptx64-nvidia-cuda' dry.txt)" = 3 ] || fail "the dry run has not 3 backends"
	[ "$(grep -c '/ptxas ' dry.txt)" = 4 ] || fail "the dry run has not 4 ptxas runs"
	[ "$(grep -c '/nvlink ' dry.txt)" = 1 ] || fail "the dry run has not one nvlink"

	thin_links -Wl,--wrapper-verbose
	contains ours.err "ThinLTO: 3 backends ran, 0 from the cache; 4 assembler runs, 0 from the cache"
	[ "$(stub_images prog.log)" = "openmp nvptx64-nvidia-cuda sm_90 190 elf" ] ||
		fail "not one sm_90 cubin: $(stub_images prog.log)"
	# Each PTX file LLVM's backend wrote (task 0: the device runtime's
	# partition) is one of ours.
	ours=(prog.offlink-temps.*/*.thin/out.0 prog.offlink-temps.*/*.thin/*.bc.s)
	[ ${#ours[@]} = 4 ] || fail "offlink wrote ${#ours[@]} PTX files, not 4: ${ours[*]}"
	ptx_is_llvms 4 '*' "${ours[@]}"
	rm -rf prog.offlink-temps.*

	# one constant in b.c: one backend and one ptxas run again
	sed -i 's/+ 100;/+ 200;/' b.c
	check "recompile b.c" clang-19 "${NV[@]}" -O2 -foffload-lto=thin -c b.c -o b.o
	clang-19 "${NV[@]}" -foffload-lto=thin -B "$COMPAT" "${OBJS[@]}" -o relinked -Wl,--wrapper-verbose \
		2>relink.err || fail "relink: $(grep -v '^offlink:  ' relink.err | tail -5)"
	contains relink.err "ThinLTO: 1 backend ran, 2 from the cache; 1 assembler run, 3 from the cache"
	check "uncached link" clang-19 "${NV[@]}" -foffload-lto=thin -B "$COMPAT" "${OBJS[@]}" -o uncached \
		-Wl,--no-cache
	same_bytes relinked uncached
	OFFSTUB_LOG=relinked.log LD_PRELOAD=$STUB ./relinked >relinked.out 2>&1 || fail "relinked exited with $?"
	contains relinked.out "a=9 b=216 main=5"
	echo "ok: nvptx: LLVM 19's kernels and PTX; a relink recompiles one module"
fi

if part remote; then
	need_cuda ptxas nvlink
	. "$OFFLINK_SRC/tests/lib/servers.sh"
	start_redis
	head -c 32 /dev/urandom >secret
	chmod 600 secret
	export OFFLINK_CACHE_SECRET_FILE=$T/secret OFFLINK_CACHE_BASE_DIR=$T
	nvptx_sources
	# worker N: its checkout's copy of the objects, a cache of its own
	worker() {
		mkdir -p $1 && cp a.o b.o main.o $1/ &&
			(cd $1 && OFFLINK_CACHE_DIR=$T/$1.cache clang-19 "${NV[@]}" -foffload-lto=thin -B "$COMPAT" \
				a.o b.o main.o -o prog -Wl,--cache-remote=redis://127.0.0.1:$REDIS_PORT \
				-Wl,--wrapper-verbose 2>link.v) || fail "$1: $(grep -v '^offlink:  ' $1/link.v | tail -5)"
	}
	worker w1
	contains w1/link.v "ThinLTO: 3 backends ran, 0 from the cache; 4 assembler runs, 0 from the cache"
	sed -i 's/+ 100;/+ 300;/' b.c
	check "recompile b.c" clang-19 "${NV[@]}" -O2 -foffload-lto=thin -c b.c -o b.o
	worker w2
	contains w2/link.v "ThinLTO: 1 backend ran, 2 from the cache; 1 assembler run, 3 from the cache"
	[ "$(grep -c ': remote hit (key' w2/link.v)" = 5 ] ||
		fail "the second worker's module results are not remote hits: $(grep -E 'hit|miss' w2/link.v)"
	OFFSTUB_LOG=w2.log LD_PRELOAD=$STUB ./w2/prog >w2.out 2>&1 || fail "w2's program exited with $?"
	contains w2.out "a=9 b=316 main=5"
	echo "ok: remote: a second worker takes the modules the first compiled from Redis"
fi

if part cuda; then
	need_cuda ptxas nvlink fatbinary
	cat >dev.cu <<'EOF'
/* device functions only */
#include "cuda_decls.h"
__device__ int sq(int x) { return x * x; }
__device__ int cube(int x) { return x * x * x; }
EOF
	cat >k1.cu <<'EOF'
#include "cuda_decls.h"
extern __device__ int sq(int x);
__global__ void k_sq(int *p) { *p = sq(*p); }
void launch_sq(int *p) { k_sq<<<1, 1>>>(p); }
EOF
	cat >k2.cu <<'EOF'
#include "cuda_decls.h"
extern __device__ int cube(int x);
__global__ void k_cube(int *p) { *p = cube(*p) + 1; }
void launch_cube(int *p) { k_cube<<<1, 1>>>(p); }
EOF
	cat >main.cpp <<'EOF'
#include <cstdio>
void launch_sq(int *);
void launch_cube(int *);
int main() { launch_sq(0); launch_cube(0); std::puts("ran"); return 0; }
EOF
	check "host main" g++ -c main.cpp -o main.o
	printf '_Z4k_sqPi\n_Z6k_cubePi\n' | sort >want.kernels
	for n in 19 22; do
		if ! command -v clang-$n >/dev/null; then
			[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang-$n is missing"
			echo "SKIP (part): clang-$n"
			continue
		fi
		cu=(-x cuda --offload-new-driver -fgpu-rdc -foffload-lto=thin --offload-arch=sm_90
		    --cuda-path="$CUDA" -nocudainc -Wno-unknown-cuda-version -Xclang -target-sdk-version=12.5
		    -I"$GPU_SRC")
		for f in dev k1 k2; do
			check "clang $n: compile $f.cu" clang-$n "${cu[@]}" -c $f.cu -o $f$n.o
		done
		clang++-$n --offload-new-driver -fgpu-rdc -foffload-lto=thin --cuda-path="$CUDA" main.o dev$n.o \
			k1$n.o k2$n.o -L"$STUBDIR" -lcudart -B "$COMPAT" -o cuda$n -Wl,--wrapper-verbose \
			2>cuda$n.link || fail "clang $n: the thin link fails: $(grep -v '^offlink:  ' cuda$n.link | tail -5)"
		contains cuda$n.link "ThinLTO: 3 backends ran"
		OFFSTUB_LOG=cuda$n.log LD_LIBRARY_PATH=$STUBDIR ./cuda$n >cuda$n.out 2>cuda$n.err ||
			fail "clang $n: the program exited with $?: $(head -c 400 cuda$n.err)"
		contains cuda$n.out ran
		jq -r 'select(.images) | .entries[] | select(.kind == "kernel") | .name' cuda$n.log | sort |
			diff -u want.kernels - || fail "clang $n: the registered kernels"
		jq -r 'select(.launch) | .launch' cuda$n.log | sort | diff -u want.kernels - ||
			fail "clang $n: the launches"
		echo "ok: cuda: clang $n, a TU of device functions only, thin: both kernels registered and launched"
	done
	HIP=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a -foffload-lto=thin)
	for f in hip_k1 hip_k2 hip_main; do
		check "compile $f.hip thin" clang-19 "${HIP[@]}" -c "$GPU_SRC/$f.hip" -o $f.o
	done
	check "HIP thin link" clang-19 --offload-new-driver -fgpu-rdc --hip-link -foffload-lto=thin hip_k1.o \
		hip_k2.o hip_main.o -L"$STUBDIR" -B "$COMPAT" -o hip
	n=$(find "$OFFLINK_CACHE_DIR/lld-thinlto" -name 'llvmcache-*' | wc -l)
	[ "$n" = 3 ] || fail "HIP: lld's ThinLTO cache holds $n objects, not one per module (3)"
	OFFSTUB_LOG=hip.log LD_LIBRARY_PATH=$STUBDIR ./hip >hip.out 2>&1 || fail "the HIP program exited with $?"
	contains hip.out "managed_value: 7"
	stub_entries hip.log | awk '$2 == "kernel" { print $3 }' >hip.kernels
	printf '_Z4fillPf\n_Z5resetPl\n_Z5scalePii\n' | diff -u - hip.kernels || fail "HIP: the registered kernels"
	echo "ok: hip: thin through lld, its cache one object a module"
fi
