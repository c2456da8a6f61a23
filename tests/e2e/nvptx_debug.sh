#!/usr/bin/env bash
# Issue 32, item 1: debug information with NVPTX device code, each
# release's way.  For clang 19 and 22, OpenMP (sm_90) and CUDA
# (-fgpu-rdc), with and without -foffload-lto, with -g,
# -gline-tables-only, -O0 -g and -O2 -g: the program is linked by the
# release's own clang-linker-wrapper (-v: the ptxas and nvlink it runs)
# and by offlink (its plan), and
#   - ptxas gets the same debug flags (-g, -lineinfo,
#     --dont-merge-basicblocks, --return-at-end, and -O0 where the rule
#     turns optimisation off) and nvlink the same -g;
#   - wherever LLVM's ptxas and nvlink succeed, offlink's link succeeds
#     (before: offlink ran ptxas -O2 -g for -O2 -g with LTO, and ptxas
#     stopped: "Optimized debugging not supported").
# (LLVM 19's CUDA links end at CUDA 13's fatbinary, after ptxas and
# nvlink; Debian's LLVM 22 has no NVPTX device runtime: both links get a
# stand-in, tests/e2e/matrix/devrt_stub.c.)  One CTest test per release.
# ctest-parts: 19 22
# ctest-cost: 30
# ctest-heavy: 19 22
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need_cuda ptxas nvlink fatbinary
unset LIBRARY_PATH

cat >x.c <<'EOF'
#include <stdio.h>
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 42;
  printf("r=%d\n", r);
  return 0;
}
EOF
cat >k.cu <<'EOF'
#include "cuda_decls.h"
__device__ int twice(int x) { return 2 * x; }
__global__ void kern(int *p) { *p = twice(*p); }
int main(void) { return 0; }
EOF

# flags LOG TOOL: the debug flags of each TOOL command in LOG, sorted, one
# command a line ("-" for none).
flags() {
	grep -E "^ *\"?[^ ]*/$2\"? " "$1" | while read -r line; do
		out=$(tr ' ' '\n' <<<"$line" | tr -d '"' |
			grep -xE -- '-g|-lineinfo|--dont-merge-basicblocks|--return-at-end|-O0' | sort | tr '\n' ' ')
		echo "${out:--}"
	done
}

compared=0
for N in ${OFFLINK_PART:-19 22}; do
	command -v clang-$N >/dev/null && command -v clang-linker-wrapper-$N >/dev/null ||
		{ [ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang $N or its wrapper is missing"; echo "SKIP (part): clang $N"; continue; }
	mkdir -p r$N && cd r$N || exit 1
	omp=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90
	     --cuda-path="$CUDA" -Wno-unknown-cuda-version -Wno-unused-command-line-argument)
	dev=() llvm_v=()
	if [ $N = 22 ]; then
		# (22's wrapper gives its device clang no -v of its own: the
		# nested ptxas and nvlink are shown with --device-compiler=-v)
		llvm_v=(-Wl,--device-compiler=-v)
		omp+=(-nogpulib -L"$OFFLINK_SRC/deps/llvm22-omp/usr/lib/llvm-22/lib")
		check "devrt stand-in" clang-22 --target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path="$CUDA" \
			-Wno-unknown-cuda-version -c "$OFFLINK_SRC/tests/e2e/matrix/devrt_stub.c" -o devrt.o
		dev=(-Xoffload-linker-nvptx64-nvidia-cuda "$PWD/devrt.o")
	else
		omp+=(--libomptarget-nvptx-bc-path=/usr/lib/llvm-$N/lib)
	fi
	cu=(-x cuda --offload-new-driver -fgpu-rdc --offload-arch=sm_90 --cuda-path="$CUDA" -nocudainc
	    -Wno-unknown-cuda-version -Xclang -target-sdk-version=12.5 -I"$OFFLINK_SRC/tests/e2e/gpu")
	for lang in omp cuda; do
		for lto in nolto lto; do
			for dbg in "-g" "-gline-tables-only" "-O0 -g" "-O2 -g"; do
				# shellcheck disable=SC2206
				d=($dbg)
				name=$lang-$lto-$(tr -d ' ' <<<"$dbg")
				l=()
				[ $lto = lto ] && l=(-foffload-lto)
				if [ $lang = omp ]; then
					check "compile $name" clang-$N "${omp[@]}" "${d[@]}" "${l[@]}" -c ../x.c -o $name.o
					link=("${omp[@]}" "${d[@]}" "${l[@]}" $name.o "${dev[@]}")
				else
					check "compile $name" clang-$N "${cu[@]}" "${d[@]}" "${l[@]}" -c ../k.cu -o $name.o
					link=(--offload-new-driver -fgpu-rdc --cuda-path="$CUDA" "${d[@]}" "${l[@]}" $name.o
					      -L"$STUBDIR" -lcudart)
				fi
				clang-$N "${link[@]}" -o $name.llvm -v -Wl,--wrapper-verbose "${llvm_v[@]}" >$name.llvm.log 2>&1
				clang-$N "${link[@]}" -B "$COMPAT" -o $name.ours -Wl,--wrapper-verbose >$name.ours.log 2>&1
				ours=$?
				for tool in ptxas nvlink; do
					flags $name.llvm.log $tool >$name.llvm.$tool
					flags $name.ours.log $tool >$name.ours.$tool
					diff -u $name.llvm.$tool $name.ours.$tool >&2 ||
						fail "clang $N $name: $tool's debug flags differ from LLVM $N's"
				done
				llvm_ok=yes
				grep -qE 'ptxas fatal|nvlink (error|fatal)' $name.llvm.log && llvm_ok=no
				[ -s $name.llvm.nvlink ] || llvm_ok=no
				if [ $llvm_ok = yes ] && [ $ours != 0 ]; then
					fail "clang $N $name: LLVM's ptxas and nvlink succeed, offlink's link fails: $(grep -iE 'error|fatal' $name.ours.log | head -3)"
				fi
				echo "clang $N $name: ptxas [$(tr '\n' '|' <$name.ours.ptxas)] nvlink [$(tr '\n' '|' <$name.ours.nvlink)]" \
					"LLVM's device link $([ $llvm_ok = yes ] && echo succeeds || echo fails), offlink's link $([ $ours = 0 ] && echo succeeds || echo fails)"
				compared=$((compared + 1))
			done
		done
	done
	cd .. || exit 1
done
[ $compared -gt 0 ] || skip "no clang release to compare with"
echo "PASS: $compared debug links with the release's ptxas and nvlink flags"
