# Helpers for tests that check links through the runtime stub (sourced
# after testlib.sh).  The stub's log is JSON lines; jq turns each kind of
# record into sorted text lines that a test compares with what its
# sources declare.
need jq
export LC_ALL=C # sort order
STUB=$OFFLINK_BUILD/lib/liboffstub.so
STUBDIR=$OFFLINK_BUILD/lib/offstub # libomptarget.so, libcudart.so, libamdhip64.so
[ -e "$STUB" ] || fail "$STUB is not built"
GPU_SRC=$OFFLINK_SRC/tests/e2e/gpu

# stub_images LOG: "runtime triple arch elf_machine container", sorted.
stub_images() {
	jq -r 'select(.images) | .runtime as $r | .images[] |
		"\($r) \(.triple) \(.arch) \(.elf_machine) \(.container)"' "$1" | sort
}

# stub_entries LOG: "runtime kind name size [extern constant]", sorted.
stub_entries() {
	jq -r 'select(.images) | .runtime as $r | .entries[] |
		"\($r) \(.kind) \(.name) \(.size)" +
		(if has("extern") then " \(.extern) \(.constant)" else "" end)' "$1" | sort
}

# stub_launches LOG: "runtime name grid block", in launch order.
stub_launches() {
	jq -r 'select(.launch) | "\(.runtime) \(.launch) \(.grid | join("x")) \(.block | join("x"))"' "$1"
}

# expect_text FILE: FILE must equal stdin (shown as a diff otherwise).
expect_text() {
	cat >"$1.want"
	diff -u "$1.want" "$1" >&2 || fail "$1 is not what the sources declare"
}

# prelink_and_gcc ARCH [CLANG FLAGS...]: pre-link omp_lib.c for ARCH with
# -r (no -lomptarget.devicertl on that line: offlink finds the device
# runtime), link it into omp_lib_main.c with plain gcc, run it under the
# preloaded stub; the log must show one ARCH image and the kernel.
prelink_and_gcc() {
	local arch=$1
	shift
	check "compile omp_lib.c ($arch)" clang-19 -fopenmp --offload-arch="$arch" -nogpulib "$@" \
		-c "$GPU_SRC/omp_lib.c" -o lib_$arch.o
	clang-19 -fopenmp --offload-arch="$arch" "$@" --offload-link -r -B "$COMPAT" lib_$arch.o \
		-o pre_$arch.o 2>pre_$arch.err || fail "-r link for $arch: $(grep -v warning pre_$arch.err | tail -5)"
	check "gcc link ($arch)" gcc "$GPU_SRC/omp_lib_main.c" pre_$arch.o -o lib_$arch \
		-L/usr/lib/llvm-19/lib -lomptarget -lomp
	OFFSTUB_LOG=lib_$arch.log LD_PRELOAD=$STUB ./lib_$arch >lib_$arch.out 2>lib_$arch.err ||
		fail "lib_$arch exited with $?: $(head -c 300 lib_$arch.err)"
	contains lib_$arch.out "a=3,6,9,12"
	[ "$(stub_images lib_$arch.log | awk '{print $3}')" = "$arch" ] ||
		fail "pre-linked $arch library registers: $(stub_images lib_$arch.log)"
	stub_entries lib_$arch.log | grep -qE '^openmp kernel __omp_offloading_[0-9a-f_]+lib_scale_l[0-9]+ 0$' ||
		fail "pre-linked $arch library registers no lib_scale kernel: $(stub_entries lib_$arch.log)"
}

# compile_cuda_program: the CUDA test program (cuda_k1.cu, cuda_k2.cu,
# cuda_main.cu for sm_80 and sm_90, and cuda_managed.c) into
# ${CUDA_OBJS[@]}.  clang 19 cannot parse CUDA 13's headers (-nocudainc,
# see cuda_decls.h) and calls it a newer version than it knows;
# -target-sdk-version makes it use the launch API of CUDA >= 9.2.
compile_cuda_program() {
	local cu=(-x cuda --offload-new-driver -fgpu-rdc -nocudainc -nocudalib --cuda-path="$CUDA"
		  -Wno-unknown-cuda-version -Xclang -target-sdk-version=12.5 --offload-arch=sm_80,sm_90)
	for f in cuda_k1 cuda_k2 cuda_main; do
		check "compile $f" clang-19 "${cu[@]}" -c "$GPU_SRC/$f.cu" -o $f.o
	done
	check "compile cuda_managed.c" clang-19 -c "$GPU_SRC/cuda_managed.c" -o cuda_managed.o
	CUDA_OBJS=(cuda_k1.o cuda_k2.o cuda_main.o cuda_managed.o)
}
