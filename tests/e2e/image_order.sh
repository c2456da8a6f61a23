#!/usr/bin/env bash
# Issue 11 item 1: images are registered in the order the release that
# compiled them registers them.  libomptarget numbers devices in that
# order, so it decides which device is device 0.  For clang 16, 19 and 22,
# objects with an x86_64 image and an nvptx64 image (sm_90, sm_80, sm_86)
# are linked in several orders -- two, three and four targets -- by the
# release's own clang-linker-wrapper and by offlink; the images in the two
# executables (llvm-objdump --offloading, in section order, which is the
# registration order) must come in the same order.  offlink's plan must
# list that order too.
#
# ORDER_RELEASES (default "15 16 19 22") narrows the run; CTest runs one
# test per release (OFFLINK_PART).
# ctest-parts: 15 16 19 22
# ctest-cost: 12
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need_cuda ptxas nvlink
unset LIBRARY_PATH

M=$OFFLINK_SRC/tests/e2e/matrix
DEPS=$OFFLINK_SRC/deps
ran=0

cat >a.c <<'EOF'
#include <stdio.h>
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 21;
  printf("r=%d\n", r);
  return 0;
}
EOF
cat >b.c <<'EOF'
int twice(int v) {
  int r = 0;
#pragma omp target map(from: r)
  r = 2 * v;
  return r;
}
EOF
cat >c.c <<'EOF'
int thrice(int v) {
  int r = 0;
#pragma omp target map(from: r)
  r = 3 * v;
  return r;
}
EOF

# order EXE: one line per image, "triple arch", in section order.
order() {
	"llvm-objdump-$N" --offloading "$1" |
		awk '/^arch/ { a = $2 } /^triple/ { print $2, a; a = "" }'
}

# plan_order V: the numbered registration list of offlink's plan.
plan_order() {
	sed -n 's/^offlink:     [0-9]*\. //p' "$1"
}

compile() {
	local out=$1 src=$2 arch=$3 targets=${4:-x86_64-pc-linux-gnu,nvptx64-nvidia-cuda}
	"clang-$N" -fopenmp -fopenmp-targets="$targets" \
		-Xopenmp-target=nvptx64-nvidia-cuda -march="$arch" --cuda-path="$CUDA" \
		-Wno-unknown-cuda-version "${devrt[@]}" -I"$OMPLIB/clang/$N/include" \
		-c "$src" -o "$out" 2>>build.log || fail "clang-$N: compile $src: $(tail -3 build.log)"
}

link_case() {
	local name=$1
	shift
	"clang-$N" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda \
		--cuda-path="$CUDA" "${linkrt[@]}" "$@" "${extra[@]}" -L"$OMPLIB" -o "$name.llvm" 2>"$name.llvm.err" ||
		fail "clang-$N's own wrapper fails $name: $(grep -i error "$name.llvm.err" | head -2)"
	"clang-$N" -B "$COMPAT" -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda \
		--cuda-path="$CUDA" "${linkrt[@]}" "$@" "${extra[@]}" -L"$OMPLIB" -Xlinker --wrapper-verbose \
		-o "$name.ours" 2>"$name.ours.v" ||
		fail "offlink fails $name (clang $N): $(grep -i error "$name.ours.v" | head -3)"
	order "$name.llvm" >"$name.llvm.order"
	order "$name.ours" >"$name.ours.order"
	[ "$(wc -l <"$name.llvm.order")" -ge 2 ] || fail "$name: LLVM $N's program has $(wc -l <"$name.llvm.order") images"
	diff -u "$name.llvm.order" "$name.ours.order" >&2 ||
		fail "clang $N, $name ($*): offlink registers the images in another order than LLVM $N"
	plan_order "$name.ours.v" >"$name.plan.order"
	diff -u "$name.llvm.order" <(sed 's/^\([^ ]*\)$/\1 /' "$name.plan.order") >&2 ||
		fail "clang $N, $name: the plan lists another order than the program has"
	echo "clang $N, $name: $(tr '\n' ',' <"$name.llvm.order" | sed 's/ ,/,/g; s/,$//')"
}

for N in ${ORDER_RELEASES:-${OFFLINK_PART:-15 16 19 22}}; do
	case $N in
	19) OMPLIB=/usr/lib/llvm-19/lib ;;
	*) OMPLIB=$DEPS/llvm$N-omp/usr/lib/llvm-$N/lib ;;
	esac
	first=sm_90
	[ "$N" = 15 ] && first=sm_75
	if ! command -v "clang-$N" >/dev/null || ! command -v "clang-linker-wrapper-$N" >/dev/null ||
	   [ ! -e "$OMPLIB/libomptarget.so" ]; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang $N, its wrapper or its OpenMP runtime is missing"
		echo "SKIP: clang $N (clang-$N, clang-linker-wrapper-$N or $OMPLIB missing)" >&2
		continue
	fi
	mkdir -p "r$N" && cd "r$N" || exit 1
	devrt=() extra=() linkrt=()
	if [ -e "$OMPLIB/libomptarget-nvptx-$first.bc" ]; then
		devrt=(--libomptarget-nvptx-bc-path="$OMPLIB")
	else
		# No NVPTX device runtime (Debian's LLVM 22): stand-ins for its
		# entry points, one image per architecture, in a library both
		# links read; each takes only the images its targets need.
		devrt=(-nogpulib) linkrt=(-nogpulib)
		pk=()
		for sm in sm_80 sm_86 $first; do
			"clang-$N" --target=nvptx64-nvidia-cuda -march=$sm --cuda-path="$CUDA" \
				-Wno-unknown-cuda-version -c "$M/devrt_stub.c" -o devrt_$sm.o 2>>build.log ||
				fail "compile devrt_stub.c: $(tail -2 build.log)"
			pk+=(--image=file=devrt_$sm.o,triple=nvptx64-nvidia-cuda,arch=$sm,kind=openmp)
		done
		"$BIN/offlink-binary" --llvm="$N" -o devrt.bin "${pk[@]}" || fail "pack the stand-ins"
		echo 'int offlink_devrt_stand_in;' >devrt_host.c
		"clang-$N" -c devrt_host.c -Xclang -fembed-offload-object=devrt.bin -o devrt_host.o ||
			fail "embed the stand-ins"
		ar rcs libdevrt_stand_in.a devrt_host.o
		extra=(-L"$PWD" -ldevrt_stand_in)
	fi
	compile a.o ../a.c $first
	compile b.o ../b.c sm_80
	compile c.o ../c.c sm_86
	# The same object with its images embedded the other way round
	# (clang 16 embeds them in -fopenmp-targets order).
	compile arev.o ../a.c $first nvptx64-nvidia-cuda,x86_64-pc-linux-gnu
	link_case two a.o
	link_case tworev arev.o
	link_case three a.o b.o
	link_case three-swapped b.o a.o
	link_case four b.o a.o c.o
	link_case four-b c.o b.o a.o
	cd .. || exit 1
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || skip "no clang release with its wrapper and OpenMP runtime"
echo "image order matches LLVM's own wrapper for $ran release(s)"
