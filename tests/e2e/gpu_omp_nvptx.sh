#!/usr/bin/env bash
# OpenMP for nvptx64 sm_80 and sm_90 plus the x86_64 host device in one
# link: the NVPTX groups go through LTO of the device runtime, ptxas and
# nvlink, the x86_64 group through the host toolchain, all in parallel.
# Under libomptarget 19 the regions run on the x86_64 device, and the
# runtime stub, preloaded, logs the registration: two cubins whose ELF
# flags say sm_80 and sm_90, and the x86_64 image, with the entries the
# source declares.  LLVM's link of the same object registers the same.
# A library pre-linked with -r for sm_90 links with plain gcc and
# registers its cubin.
# ctest-cost: 18
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need_cuda ptxas nvlink

TARGETS=nvptx64-nvidia-cuda,x86_64-pc-linux-gnu
CUDA_FLAGS=(--cuda-path="$CUDA" -Wno-unknown-cuda-version)
# clang 19 gives --offload-arch to every OpenMP target, so one fat object
# for two NVPTX archs and x86_64 is made as the driver would if it could:
# device-only compiles, packaged, embedded by a host-only compile.
for sm in sm_80 sm_90; do
	check "device compile $sm" clang-19 -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda \
		--offload-arch=$sm -nogpulib "${CUDA_FLAGS[@]}" --offload-device-only -c "$GPU_SRC/omp_gpu.c" -o dev_$sm.o
done
check "device compile x86_64" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu \
	--offload-device-only -c "$GPU_SRC/omp_gpu.c" -o dev_x86.o
check "package" "$BIN/offlink-binary" -o devices.bin \
	--image=file=dev_sm_80.o,triple=nvptx64-nvidia-cuda,arch=sm_80,kind=openmp \
	--image=file=dev_sm_90.o,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp \
	--image=file=dev_x86.o,triple=x86_64-pc-linux-gnu,kind=openmp
check "host compile" clang-19 -fopenmp -fopenmp-targets=$TARGETS "${CUDA_FLAGS[@]}" --offload-host-only \
	-Xclang -fembed-offload-object=devices.bin -c "$GPU_SRC/omp_gpu.c" -o fat.o

LINK=(-fopenmp -fopenmp-targets=$TARGETS "${CUDA_FLAGS[@]}" fat.o)
clang-19 "${LINK[@]}" -B "$COMPAT" -Wl,--wrapper-verbose -o prog 2>verbose.txt ||
	fail "offlink link: $(tail -5 verbose.txt)"
contains verbose.txt "nvlink -arch=sm_80"
contains verbose.txt "nvlink -arch=sm_90"
contains verbose.txt "devicertl-nvptx-sm_90.o"
check "LLVM link" clang-19 "${LINK[@]}" -o prog.llvm

for p in prog prog.llvm; do
	OFFSTUB_LOG=$p.log LD_PRELOAD=$STUB OMP_TARGET_OFFLOAD=MANDATORY ./$p >$p.out 2>$p.err ||
		fail "$p exited with $? under the stub: $(head -c 500 $p.err)"
	contains $p.out "initial=0 sum=36 n=4950"
done

# Kernel names carry the file's device and inode; the rest is the source's.
ids() { sed -E 's/__omp_offloading_[0-9a-f]+_[0-9a-f]+_/__omp_offloading_ID_/'; }
stub_images prog.log >images.txt
expect_text images.txt <<'TXT'
openmp nvptx64-nvidia-cuda sm_80 190 elf
openmp nvptx64-nvidia-cuda sm_90 190 elf
openmp x86_64-pc-linux-gnu  62 elf
TXT
stub_entries prog.log | ids >entries.txt
expect_text entries.txt <<'TXT'
openmp kernel __omp_offloading_ID_main_l13 0
openmp kernel __omp_offloading_ID_main_l19 0
openmp variable table 32
TXT
stub_images prog.llvm.log | diff -u - images.txt || fail "LLVM's link registers other images"
stub_entries prog.llvm.log | ids | diff -u - entries.txt || fail "LLVM's link registers other entries"

# A build machine without libomptarget: link against the stub under
# libomptarget's name; the program runs its regions on the host and logs
# the same registration.
check "link against the stub" clang-19 "${LINK[@]}" -B "$COMPAT" -L"$STUBDIR" -o prog.stub
readelf -d prog.stub | grep -q 'NEEDED.*libomptarget.so.19.1' || fail "prog.stub does not ask for libomptarget.so.19.1"
OFFSTUB_LOG=stub.log LD_LIBRARY_PATH=$STUBDIR ./prog.stub >stub.out 2>stub.err ||
	fail "prog.stub exited with $?: $(head -c 500 stub.err)"
contains stub.out "initial=1 sum=36 n=4950"
stub_images stub.log | diff -u images.txt - || fail "the stub-linked program registers other images"
need gcc
prelink_and_gcc sm_90 "${CUDA_FLAGS[@]}"
echo "PASS: OpenMP nvptx64 sm_80 + sm_90 + x86_64, -r"
