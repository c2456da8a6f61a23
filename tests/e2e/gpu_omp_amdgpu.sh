#!/usr/bin/env bash
# OpenMP for amdgcn gfx90a, both ways clang 19 hands over device code:
#  - LTO: the fat object carries bitcode; ld.lld links it with the device
#    runtime through its LTO plugin for gfx90a;
#  - object: the fat object carries an AMDGPU ELF relocatable, and
#    ld.lld links it as it is, with no LTO.  clang 19's OpenMP compile
#    always emits bitcode for AMDGPU, so the object is compiled from the
#    device-only bitcode and embedded as the driver would.  It has the
#    device runtime built in (-mlink-builtin-bitcode, -O2): an object that
#    left the runtime to libomptarget.devicertl.a fails in LLVM 19's link
#    as in offlink's, because the runtime compiled on its own keeps its
#    printf path, which needs the GPU libc Debian does not ship.
# Each program registers, under the stub, one gfx90a code object with the
# source's entries, as LLVM's link of the same object does.  A library
# pre-linked with -r for gfx90a (which LLVM 19 cannot do: the -r line
# lacks the device runtime) links with plain gcc and registers.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need ld.lld-19 llvm-nm-19

AMD=(-fopenmp --offload-arch=gfx90a)
# No ROCm here: compiles use -nogpulib; links take the device runtime
# from libomptarget.devicertl.a, which needs no ROCm.
check "LTO compile" clang-19 "${AMD[@]}" -nogpulib -c "$GPU_SRC/omp_gpu.c" -o lto.o
check "device bitcode" clang-19 -O2 "${AMD[@]}" -nogpulib --offload-device-only -c \
	"$GPU_SRC/omp_gpu.c" -o dev.bc \
	-Xclang -mlink-builtin-bitcode -Xclang /usr/lib/llvm-19/lib/libomptarget-amdgpu-gfx90a.bc
check "device object" clang-19 -O2 --target=amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib -c dev.bc -o dev.o
llvm-nm-19 --undefined-only dev.o | grep -q . && fail "dev.o leaves symbols undefined: $(llvm-nm-19 -u dev.o)"
file dev.o | grep -q 'ELF 64-bit LSB relocatable' || fail "dev.o is not an ELF object: $(file dev.o)"
check "package" "$BIN/offlink-binary" -o dev.bin \
	--image=file=dev.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=openmp
check "host compile" clang-19 "${AMD[@]}" -nogpulib --offload-host-only \
	-Xclang -fembed-offload-object=dev.bin -c "$GPU_SRC/omp_gpu.c" -o object.o
"$BIN/offlink-binary" --list lto.o | grep -q '^bitcode .*gfx90a' || fail "lto.o does not carry bitcode"
"$BIN/offlink-binary" --list object.o | grep -q '^elf .*gfx90a' || fail "object.o does not carry an object"

ids() { sed -E 's/__omp_offloading_[0-9a-f]+_[0-9a-f]+_/__omp_offloading_ID_/'; }
for kind in lto object; do
	clang-19 "${AMD[@]}" -B "$COMPAT" $kind.o -o $kind -Wl,--wrapper-verbose 2>$kind.verbose ||
		fail "offlink link ($kind): $(grep -v warning $kind.verbose | tail -5)"
	contains $kind.verbose "ld.lld -shared --no-undefined -plugin-opt=mcpu=gfx90a"
	check "LLVM link ($kind)" clang-19 "${AMD[@]}" $kind.o -o $kind.llvm
	for p in $kind $kind.llvm; do
		# No AMD GPU: libomptarget falls back to the host.
		OFFSTUB_LOG=$p.log LD_PRELOAD=$STUB ./$p >$p.out 2>$p.err ||
			fail "$p exited with $? under the stub: $(head -c 500 $p.err)"
		contains $p.out "sum=36 n=4950"
	done
	stub_images $kind.log >$kind.images
	expect_text $kind.images <<'TXT'
openmp amdgcn-amd-amdhsa gfx90a 224 elf
TXT
	stub_entries $kind.log | ids >$kind.entries
	expect_text $kind.entries <<'TXT'
openmp kernel __omp_offloading_ID_main_l13 0
openmp kernel __omp_offloading_ID_main_l19 0
openmp variable table 32
TXT
	stub_images $kind.llvm.log | diff -u - $kind.images || fail "LLVM's $kind link registers other images"
	stub_entries $kind.llvm.log | ids | diff -u - $kind.entries ||
		fail "LLVM's $kind link registers other entries"
done
# The object link hands ld.lld the object as it is (in the group's
# archive of inputs, read whole).
grep 'ld.lld' object.verbose | grep -qE -- '--whole-archive [^ ]*gfx90a\.inputs\.a --no-whole-archive( --dependency-file=[^ ]*)?$' ||
	fail "the object was not linked alone, as an object"
grep -q '^offlink:     bitcode .* lto\.o  (input)' lto.verbose || fail "lto.o's device code is not bitcode"
grep 'ld.lld' lto.verbose | grep -q -- '-plugin-opt=O2 .*--whole-archive [^ ]*gfx90a\.inputs\.a' ||
	fail "the bitcode was not linked through LTO"
need gcc
prelink_and_gcc gfx90a
echo "PASS: OpenMP amdgcn gfx90a, object and LTO, -r"
