#!/usr/bin/env bash
# Issue 11 item 2: -fopenmp-target-jit (the wrapper's --embed-bitcode)
# embeds each target's LTO-merged LLVM IR, which the runtime compiles just
# in time -- for GPU targets too, where offlink used to link a cubin or a
# code object and label it "llvm ir".  For clang 16, 19 and 22 and for
# x86_64, nvptx64 sm_90 and amdgcn gfx90a, the program is linked by the
# release's own wrapper and by offlink; in offlink's program every image
# must be declared bitcode ("llvm ir") and be bitcode: it disassembles with
# the release's llvm-dis, is for the image's triple, and defines the same
# offload entry points as the image of LLVM's link.  (No GPU here, and
# Debian's host plugins have no JIT targets: LLVM's programs and
# offlink's fail alike at the first target region, so nothing is run.)
#
# JIT_RELEASES (default "16 19 22") narrows the run.
# ctest-cost: 11
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
unset LIBRARY_PATH

DEPS=$OFFLINK_SRC/deps
ran=0
llvm_fails=()

cat >k.c <<'EOF'
#include <stdio.h>
int scale = 3;
#pragma omp declare target(scale)
int main(void) {
  int r = 0, a[8];
#pragma omp target map(from: r)
  r = 14 * scale;
#pragma omp target teams distribute parallel for map(from: a)
  for (int i = 0; i < 8; i++) a[i] = i;
  printf("r=%d a7=%d\n", r, a[7]);
  return 0;
}
EOF

# image EXE TRIPLE ARCH OUT: extract that image of EXE into OUT.
image() {
	"$BIN/offlink-binary" "$1" --image=file="$4",triple="$2",arch="$3" >/dev/null 2>&1 && [ -s "$4" ]
}

# entries BC: the offload entry points and globals the bitcode defines.
entries() {
	"llvm-nm-$N" --defined-only "$1" | awk '{ print $NF }' |
		grep -E '^(__omp_offloading_|scale$)' | sed -E 's/_[0-9a-f]+_[0-9a-f]+_main_/_ID_main_/' | sort
}

# check_images NAME TRIPLE:ARCH...: both programs' images, compared.
check_images() {
	local name=$1 t triple arch
	shift
	"llvm-objdump-$N" --offloading "$name.ours" >"$name.ours.objdump"
	[ "$(grep -c '^kind' "$name.ours.objdump")" = $# ] ||
		fail "clang $N, $name: offlink's program has $(grep -c '^kind' "$name.ours.objdump") images, not $#"
	grep '^kind' "$name.ours.objdump" | grep -v 'llvm ir' &&
		fail "clang $N, $name: an image is not declared bitcode"
	for t in "$@"; do
		triple=${t%%:*} arch=${t#*:}
		image "$name.ours" "$triple" "$arch" "$name.$arch.ours.bc" ||
			fail "clang $N, $name: no $triple $arch image in offlink's program"
		[ "$(head -c 4 "$name.$arch.ours.bc" | od -An -tx1 | tr -d ' ')" = 4243c0de ] ||
			fail "clang $N, $name: the $triple $arch image is not bitcode: $(head -c 4 "$name.$arch.ours.bc" | od -An -c)"
		"llvm-dis-$N" "$name.$arch.ours.bc" -o "$name.$arch.ours.ll" ||
			fail "clang $N, $name: llvm-dis-$N cannot read the $triple $arch image"
		grep -q "^target triple = \"$triple\"" "$name.$arch.ours.ll" ||
			fail "clang $N, $name: the $arch image is for $(grep '^target triple' "$name.$arch.ours.ll")"
		entries "$name.$arch.ours.bc" >"$name.$arch.ours.entries"
		[ -s "$name.$arch.ours.entries" ] || fail "clang $N, $name: the $arch image defines no entry"
		if [ -e "$name.llvm" ]; then
			image "$name.llvm" "$triple" "$arch" "$name.$arch.llvm.bc" ||
				fail "clang $N, $name: no $triple $arch image in LLVM's program"
			entries "$name.$arch.llvm.bc" >"$name.$arch.llvm.entries"
			diff -u "$name.$arch.llvm.entries" "$name.$arch.ours.entries" >&2 ||
				fail "clang $N, $name: the $arch image defines other entries than LLVM's"
		fi
	done
	if [ -e "$name.llvm" ]; then
		"llvm-objdump-$N" --offloading "$name.llvm" | grep -E '^(kind|arch|triple)' >"$name.llvm.list"
		grep -E '^(kind|arch|triple)' "$name.ours.objdump" | diff -u "$name.llvm.list" - >&2 ||
			fail "clang $N, $name: the images differ from LLVM's (kind, arch, triple, order)"
	fi
	echo "clang $N, $name: $* embedded as bitcode$([ -e "$name.llvm" ] && echo ", as LLVM $N's")"
}

# jit_case NAME COMPILE-ARGS -- LINK-ARGS: build, link both ways.
jit_case() {
	local name=$1 cargs=() largs=()
	shift
	while [ "$1" != -- ]; do cargs+=("$1"); shift; done
	shift
	largs=("$@")
	"clang-$N" -fopenmp -fopenmp-target-jit "${cargs[@]}" -Wno-unknown-cuda-version \
		-I"$OMPLIB/clang/$N/include" -c ../k.c -o "$name.o" 2>>build.log ||
		fail "clang $N, $name: compile: $(grep error build.log | tail -2)"
	if ! "clang-$N" -fopenmp -fopenmp-target-jit "${largs[@]}" "$name.o" -L"$OMPLIB" \
		-o "$name.llvm" 2>"$name.llvm.err"; then
		llvm_fails+=("clang $N, $name: $(grep -m1 -iE 'error|unrecognized' "$name.llvm.err" | cut -c1-120)")
		rm -f "$name.llvm"
	fi
	"clang-$N" -B "$COMPAT" -fopenmp -fopenmp-target-jit "${largs[@]}" "$name.o" -L"$OMPLIB" \
		-Xlinker --wrapper-verbose -o "$name.ours" 2>"$name.ours.v" ||
		fail "clang $N, $name: offlink fails: $(grep -i error "$name.ours.v" | head -3)"
	grep -qE '^/.*/(nvlink|ptxas|llc) ' "$name.ours.v" &&
		fail "clang $N, $name: code was generated for an image that must stay bitcode"
	return 0
}

X=x86_64-pc-linux-gnu NV=nvptx64-nvidia-cuda AMD=amdgcn-amd-amdhsa
for N in ${JIT_RELEASES:-16 19 22}; do
	case $N in
	16) OMPLIB=$DEPS/llvm16-omp/usr/lib/llvm-16/lib ;;
	19) OMPLIB=/usr/lib/llvm-19/lib ;;
	*) OMPLIB=$DEPS/llvm$N-omp/usr/lib/llvm-$N/lib ;;
	esac
	if ! command -v "clang-$N" >/dev/null || ! command -v "llvm-dis-$N" >/dev/null ||
	   ! command -v "clang-linker-wrapper-$N" >/dev/null || [ ! -e "$OMPLIB/libomp.so" ]; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang $N, its LLVM tools or its OpenMP runtime are missing"
		echo "SKIP: clang $N (clang-$N, llvm-dis-$N, clang-linker-wrapper-$N or $OMPLIB missing)" >&2
		continue
	fi
	mkdir -p "r$N" && cd "r$N" || exit 1
	# Device runtime bitcode at compile time where the release ships it
	# (16 and 19 link it at compile time); 22 has none for NVPTX.
	if [ -e "$OMPLIB/libomptarget-nvptx-sm_90.bc" ]; then
		nvrt=(--libomptarget-nvptx-bc-path="$OMPLIB") nvlink=()
	else
		nvrt=(-nogpulib) nvlink=(-nogpulib)
	fi
	if [ -x "$CUDA/bin/ptxas" ] || [ "$N" != 16 ]; then
		nv=(-fopenmp-targets=$NV -Xopenmp-target=$NV -march=sm_90 --cuda-path="$CUDA")
		if [ "$N" = 22 ]; then
			# LLVM 22's wrapper cannot JIT-link a CPU target (it gives
			# --lto-emit-llvm to GNU ld): NVPTX alone is compared, and
			# offlink's x86_64 + NVPTX link is checked on its own.
			jit_case nvptx "${nv[@]}" "${nvrt[@]}" -- "${nv[@]}" "${nvlink[@]}"
			check_images nvptx $NV:sm_90
			both=(-fopenmp-targets=$X,$NV -Xopenmp-target=$NV -march=sm_90 --cuda-path="$CUDA")
			jit_case x86nvptx "${both[@]}" "${nvrt[@]}" -- "${both[@]}" "${nvlink[@]}"
			check_images x86nvptx $X: $NV:sm_90
		else
			both=(-fopenmp-targets=$X,$NV -Xopenmp-target=$NV -march=sm_90 --cuda-path="$CUDA")
			jit_case x86nvptx "${both[@]}" "${nvrt[@]}" -- "${both[@]}" "${nvlink[@]}"
			check_images x86nvptx $X: $NV:sm_90
		fi
	else
		echo "SKIP: clang $N NVPTX cases: no CUDA in $CUDA" >&2
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "CUDA is missing"
	fi
	amd=(--offload-arch=gfx90a -nogpulib)
	jit_case amdgpu "${amd[@]}" -- "${amd[@]}"
	check_images amdgpu $AMD:gfx90a
	cd .. || exit 1
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no clang release with its tools"
for f in "${llvm_fails[@]}"; do echo "LLVM's own link fails: $f"; done
echo "PASS: JIT images are bitcode for $ran release(s)"
