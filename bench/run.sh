#!/usr/bin/env bash
# offlink beside the LLVM 19 tools it replaces, on the same inputs in the
# same run: each case runs REPS times per tool (alternating), and the
# table gives the median wall time of each and the ratio LLVM / offlink
# (above 1: offlink is faster).  Outputs of both are checked to work, so
# a fast wrong answer cannot win.
#
#   bench/run.sh [REPS]      (default 5; needs a build in $OFFLINK_BUILD,
#                             default build/, and the LLVM 19 tools)
set -euo pipefail
cd "$(dirname "$0")/.."
B=$(realpath "${OFFLINK_BUILD:-build}")
REPS=${1:-5}
W=$(mktemp -d "${TMPDIR:-/tmp}/offlink-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
export LD_LIBRARY_PATH=/usr/lib/llvm-19/lib
OMP=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# bench NAME CHECK -- OFFLINK_CMD... -- LLVM_CMD...
# CHECK is a command run after each (it sees $OUT_TOOL = ours|llvm).
bench() {
	local name=$1 check=$2 ours=() llvm=() t0 i
	shift 3
	while [ "$1" != -- ]; do ours+=("$1"); shift; done
	shift
	llvm=("$@")
	: >"$W/t.ours"; : >"$W/t.llvm"
	for ((i = 0; i < REPS; i++)); do
		t0=$(now); "${ours[@]}" >/dev/null 2>&1 || { echo "$name: offlink failed: ${ours[*]}" >&2; exit 1; }
		awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }' >>"$W/t.ours"
		OUT_TOOL=ours $check || { echo "$name: offlink's output is wrong" >&2; exit 1; }
		t0=$(now); "${llvm[@]}" >/dev/null 2>&1 || { echo "$name: LLVM failed: ${llvm[*]}" >&2; exit 1; }
		awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }' >>"$W/t.llvm"
		OUT_TOOL=llvm $check || { echo "$name: LLVM's output is wrong" >&2; exit 1; }
	done
	local o l
	o=$(median <"$W/t.ours"); l=$(median <"$W/t.llvm")
	awk -v n="$name" -v o="$o" -v l="$l" 'BEGIN { printf "| %s | %.3f | %.3f | %.2f |\n", n, o, l, l / o }'
}

echo "offlink bench: $(date -u +%F), $(nproc) CPUs, $(uname -m), median of $REPS runs each" >&2

# ---- inputs ----
# 40 TUs, each with two target regions and a declare-target function.
mkdir -p "$W/src"
for i in $(seq 1 40); do
	cat >"$W/src/k$i.c" <<C
int dev_$i(int x) { return x * $i + 1; }
#pragma omp declare target to(dev_$i)
int run_$i(int *a, int n) {
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int j = 0; j < n; j++) a[j] = dev_$i(a[j]);
  int s = 0;
#pragma omp target map(tofrom: s) map(to: a[0:n])
  for (int j = 0; j < n; j++) s += a[j];
  return s;
}
C
done
{
	echo '#include <stdio.h>'
	for i in $(seq 1 40); do echo "int run_$i(int *, int);"; done
	echo 'int main(void) { int a[64] = {0}; long s = 0;'
	for i in $(seq 1 40); do echo "  s += run_$i(a, 64);"; done
	echo '  printf("%ld\n", s); return 0; }'
} >"$W/src/main.c"
for f in "$W"/src/*.c; do clang-19 "${OMP[@]}" -O2 -c "$f" -o "${f%.c}.o"; done
objs=("$W"/src/k*.o)
ar rcs "$W/libk.a" "${objs[@]}"
clang-19 "${OMP[@]}" -B "$B/compat" "$W/src/main.o" "${objs[@]}" -o "$W/ref" && "$W/ref" >"$W/ref.out"

run_ok() { [ "$("$W/prog.$OUT_TOOL")" = "$(cat "$W/ref.out")" ]; }

# HIP relocatable device code, two archs (LLVM 19 cannot link CUDA with
# CUDA 13, so HIP stands for the GPU registration path).
for f in hip_k1 hip_k2 hip_main; do
	clang-19 -x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a,gfx908 \
		-c tests/e2e/gpu/$f.hip -o "$W/$f.o"
done
HIPLINK=(--offload-new-driver -fgpu-rdc --hip-link "$W/hip_k1.o" "$W/hip_k2.o" "$W/hip_main.o" -L"$B/lib/offstub")
# LLVM 19's program crashes reading its unregistered managed variables
# (docs/compat.md); its registration is logged before that.
hip_ok() {
	# (|| exit: the subshell must not exec the program, or this shell
	# reports the crash.)
	(OFFSTUB_LOG="$W/hip.$OUT_TOOL.log" LD_LIBRARY_PATH="$B/lib/offstub" "$W/hip.$OUT_TOOL" || exit 1) \
		>/dev/null 2>&1 || [ $OUT_TOOL = llvm ]
	grep -q gfx908 "$W/hip.$OUT_TOOL.log"
}

# A 64 MiB image for the format tools.
head -c $((64 << 20)) /dev/urandom >"$W/big.img"
head -c $((32 << 20)) /dev/urandom >"$W/dev1.img"
head -c $((32 << 20)) /dev/urandom >"$W/dev2.img"
head -c 4096 /dev/urandom >"$W/host.img"
bundle_ok() { [ -s "$W/b.$OUT_TOOL" ]; }
unbundle_ok() { cmp -s "$W/dev2.img" "$W/u.$OUT_TOOL"; }
true_ok() { true; }

echo "| case | offlink s | LLVM 19 s | LLVM / offlink |"
echo "|---|---:|---:|---:|"
bench "OpenMP link, 41 objects (x86_64 device)" run_ok -- \
	clang-19 "${OMP[@]}" -B "$B/compat" "$W/src/main.o" "${objs[@]}" -o "$W/prog.ours" -- \
	clang-19 "${OMP[@]}" "$W/src/main.o" "${objs[@]}" -o "$W/prog.llvm"
bench "OpenMP link, same, one device-link job each" run_ok -- \
	clang-19 "${OMP[@]}" -B "$B/compat" -Wl,--wrapper-jobs=1 "$W/src/main.o" "${objs[@]}" -o "$W/prog.ours" -- \
	clang-19 "${OMP[@]}" -Wl,--wrapper-jobs=1 "$W/src/main.o" "${objs[@]}" -o "$W/prog.llvm"
bench "OpenMP link, main + static library of 40" run_ok -- \
	clang-19 "${OMP[@]}" -B "$B/compat" "$W/src/main.o" "$W/libk.a" -o "$W/prog.ours" -- \
	clang-19 "${OMP[@]}" "$W/src/main.o" "$W/libk.a" -o "$W/prog.llvm"
bench "HIP -fgpu-rdc link, 3 objects, gfx90a + gfx908" hip_ok -- \
	clang-19 "${HIPLINK[@]}" -B "$B/compat" -o "$W/hip.ours" -- \
	clang-19 "${HIPLINK[@]}" -o "$W/hip.llvm"
bench "package a 64 MiB image" true_ok -- \
	"$B/bin/offlink-binary" -o "$W/pack.ours" --image=file="$W/big.img",triple=x86_64-pc-linux-gnu,kind=openmp -- \
	clang-offload-packager-19 -o "$W/pack.llvm" --image=file="$W/big.img",triple=x86_64-pc-linux-gnu,kind=openmp
cmp -s "$W/pack.ours" "$W/pack.llvm" || { echo "packaged files differ" >&2; exit 1; }
bench "extract it again" true_ok -- \
	"$B/bin/offlink-binary" "$W/pack.ours" --image=file="$W/x.ours",triple=x86_64-pc-linux-gnu -- \
	clang-offload-packager-19 "$W/pack.llvm" --image=file="$W/x.llvm",triple=x86_64-pc-linux-gnu
cmp -s "$W/x.ours" "$W/big.img" && cmp -s "$W/x.llvm" "$W/big.img" || { echo "extracted images differ" >&2; exit 1; }
T=-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a,hip-amdgcn-amd-amdhsa--gfx908
bench "bundle 3 files, 64 MiB" bundle_ok -- \
	"$B/bin/offlink-bundler" -type=o -bundle-align=4096 $T -input="$W/host.img" -input="$W/dev1.img" -input="$W/dev2.img" -output="$W/b.ours" -- \
	clang-offload-bundler-19 -type=o -bundle-align=4096 $T -input="$W/host.img" -input="$W/dev1.img" -input="$W/dev2.img" -output="$W/b.llvm"
cmp -s "$W/b.ours" "$W/b.llvm" || { echo "bundles differ" >&2; exit 1; }
bench "unbundle one 32 MiB entry" unbundle_ok -- \
	"$B/bin/offlink-bundler" -type=o -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx908 -input="$W/b.ours" -output="$W/u.ours" -- \
	clang-offload-bundler-19 -type=o -unbundle -targets=hip-amdgcn-amd-amdhsa--gfx908 -input="$W/b.llvm" -output="$W/u.llvm"
