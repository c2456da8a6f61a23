#!/usr/bin/env bash
# CUDA relocatable device code over two kernel TUs and a host TU, for
# sm_80 and sm_90, linked by offlink with CUDA 13 (which LLVM 19's
# wrapper cannot do: it passes fatbinary the --image=profile= form CUDA 13
# rejects).  Checks:
#  - the program, linked against the runtime stub, registers every kernel
#    and variable of the sources with their sizes, the managed variable
#    with its pointer filled in, and its launches name the right kernels;
#  - the fatbinary in .nv_fatbin is what NVIDIA's fatbinary wrote, and the
#    cubins in it are nvlink's output, whose symbol tables list the
#    kernels as CUDA entry points;
#  - under NVIDIA's own libcudart.so.13 the program loads and registers
#    (no GPU here: launches fail), and the preloaded stub sees the same;
#  - linked against the stub under libcudart's name, it asks for
#    libcudart.so.13, as with CUDA's own stubs;
#  - links are byte-identical whatever --wrapper-jobs;
#  - the kernel TUs pre-linked with -r make an object that g++ links into
#    a program registering the same.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need clang-19 readelf objcopy od
need_cuda ptxas nvlink fatbinary
[ -e "$CUDA/lib64/libcudart.so.13" ] || skip "NVIDIA's libcudart.so.13 not found in $CUDA/lib64"

compile_cuda_program
OBJS=("${CUDA_OBJS[@]}")
LINK=(--offload-new-driver -fgpu-rdc --cuda-path="$CUDA" "${OBJS[@]}")

clang-19 "${LINK[@]}" -B "$COMPAT" -o prog -L"$OFFLINK_BUILD/lib" -loffstub \
	-Wl,-rpath,"$OFFLINK_BUILD/lib" -Wl,--save-temps -Wl,--wrapper-verbose 2>verbose.txt ||
	fail "offlink link: $(tail -5 verbose.txt)"
contains verbose.txt "--image3=kind=elf,sm=80,file="
contains verbose.txt "--image3=kind=elf,sm=90,file="

OFFSTUB_LOG=prog.log ./prog >prog.out 2>prog.err || fail "prog exited with $?: $(head -c 500 prog.err)"
expect_text prog.out <<'TXT'
devices: 100 (count 0)
scale: 100
fill: 100
reset: 100
managed_value: 7
TXT
stub_images prog.log >images.txt
expect_text images.txt <<'TXT'
cuda nvptx64-nvidia-cuda sm_80 190 fatbinary-elf
cuda nvptx64-nvidia-cuda sm_90 190 fatbinary-elf
TXT
# "kind name size extern constant", from the declarations in cuda_k*.cu.
stub_entries prog.log >entries.txt
expect_text entries.txt <<'TXT'
cuda kernel _Z4fillPf 0
cuda kernel _Z5resetPl 0
cuda kernel _Z5scalePii 0
cuda managed managed_value 4 0 0
cuda variable coeffs 16 0 1
cuda variable dev_counter 4 0 0
cuda variable dev_table 128 0 0
cuda variable other_global 8 0 0
TXT
stub_launches prog.log >launches.txt
expect_text launches.txt <<'TXT'
cuda _Z5scalePii 2x1x1 64x1x1
cuda _Z4fillPf 3x2x1 32x1x1
cuda _Z5resetPl 1x1x1 1x1x1
TXT

# --dry-run: the plan and every command, the version probe included, and
# nothing written.
check "dry run" clang-19 "${LINK[@]}" -B "$COMPAT" -o prog.dry -Wl,--dry-run 2>dry.txt
contains dry.txt "fatbinary --version"
contains dry.txt "cuda nvptx64-nvidia-cuda sm_90: 3 images"
contains dry.txt "nvlink -arch=sm_80 -o"
# (images in LLVM 19's order: its sort puts sm_90 before sm_80)
contains dry.txt "--create $TMPDIR/offlink-XXXXXX/cuda.fatbin --image3=kind=elf,sm=90"
[ ! -e prog.dry ] || fail "--dry-run wrote prog.dry"

# The wrapper struct: magic 0x466243b1, version 1.
objcopy -O binary --only-section=.nvFatBinSegment prog segment.bin
[ "$(od -An -tx4 -N8 segment.bin | tr -s ' ')" = " 466243b1 00000001" ] ||
	fail "bad .nvFatBinSegment wrapper: $(od -An -tx4 -N8 segment.bin)"
# The container: fatbinary's own output, byte for byte.
objcopy -O binary --only-section=.nv_fatbin prog fatbin.bin
temps=$(echo prog.offlink-temps.*)
[ -d "$temps" ] || fail "expected one --save-temps directory, got: $temps"
same_bytes fatbin.bin "$temps/cuda.fatbin"
# Walk its entries (16-byte header; entry: u16 kind, u32 header size at
# 4, u64 payload size at 8, u32 sm at 28): each ELF payload is nvlink's
# cubin for that sm, and lists the kernels as entries (st_other 0x10).
u() { od -An -t"u$2" -j "$1" -N "$2" fatbin.bin | tr -d ' '; }
off=$((16)); end=$((16 + $(u 8 8))); n=0
while [ $off -lt $end ]; do
	kind=$(u $off 2); hsize=$(u $((off + 4)) 4); size=$(u $((off + 8)) 8); sm=$(u $((off + 28)) 4)
	[ "$kind" = 2 ] || fail "fatbinary entry at $off has kind $kind, not ELF"
	cubin=$(echo "$temps"/*.cuda.nvptx64-nvidia-cuda.sm_$sm.img)
	cmp -s -n "$size" -i "$((off + hsize)):0" fatbin.bin "$cubin" &&
		[ "$(stat -c %s "$cubin")" = "$size" ] || fail "fatbinary entry sm_$sm is not nvlink's $cubin"
	readelf -sW "$cubin" 2>/dev/null >syms.$sm
	for k in _Z5scalePii _Z4fillPf _Z5resetPl; do
		grep -E "FUNC +GLOBAL .*\[<other>: 10\] .* $k\$" syms.$sm >/dev/null ||
			fail "sm_$sm cubin does not list kernel $k"
	done
	grep -E "FUNC .* _Z6helperi\$" syms.$sm | grep -q 'other' && fail "sm_$sm: helper marked as a kernel"
	off=$((off + hsize + size)); n=$((n + 1))
done
[ $n = 2 ] || fail "fatbinary has $n entries, want 2"

# LLVM 19's wrapper fails on CUDA 13's fatbinary.
clang-19 "${LINK[@]}" -o prog.llvm -L"$OFFLINK_BUILD/lib" -loffstub 2>llvm.err &&
	fail "LLVM 19 linked CUDA 13 code; offlink's notes on fatbinary options are stale"
contains llvm.err "fatbinary"

# Determinism: another link with one job is byte-identical.
check "second link" clang-19 "${LINK[@]}" -B "$COMPAT" -o prog2 -L"$OFFLINK_BUILD/lib" -loffstub \
	-Wl,-rpath,"$OFFLINK_BUILD/lib" -Wl,--wrapper-jobs=1
same_bytes prog prog2

# NVIDIA's runtime: the program loads and registers; without a driver
# every device call reports an error; the stub in front sees the same.
check "link with libcudart" clang-19 "${LINK[@]}" -B "$COMPAT" -o prog.rt -L"$CUDA/lib64" -lcudart
LD_LIBRARY_PATH=$CUDA/lib64 ./prog.rt >rt.out 2>rt.err || fail "prog.rt exited with $?: $(head -c 500 rt.err)"
contains rt.out "managed_value: -1"
grep -q '^scale: 0$' rt.out && fail "a launch succeeded without a GPU"
OFFSTUB_LOG=rt.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$CUDA/lib64 ./prog.rt >rt2.out 2>rt2.err ||
	fail "prog.rt under the preloaded stub exited with $?: $(head -c 500 rt2.err)"
diff -u rt.out rt2.out || fail "the preloaded stub changed what NVIDIA's runtime does"
stub_entries rt.log | diff -u entries.txt - || fail "the preloaded stub saw other entries"

# A build machine with no CUDA runtime links against the stub copy.
check "link with the stub libcudart" clang-19 "${LINK[@]}" -B "$COMPAT" -o prog.b -L"$STUBDIR" -lcudart
readelf -d prog.b | grep -q 'NEEDED.*\[libcudart.so.13\]' || fail "prog.b does not ask for libcudart.so.13"
LD_LIBRARY_PATH=$STUBDIR ./prog.b >b.out 2>b.err || fail "prog.b exited with $?"
diff -u prog.out b.out || fail "prog.b runs differently on the stub"
# Relocatable pre-link of the kernel TUs; plain g++ links the program.
need g++
check "pre-link (-r)" clang-19 --offload-new-driver -fgpu-rdc --offload-link -r -B "$COMPAT" \
	--cuda-path="$CUDA" cuda_k1.o cuda_k2.o cuda_managed.o -o kernels.o 2>/dev/null
check "g++ link" g++ -o prog.r kernels.o cuda_main.o -L"$OFFLINK_BUILD/lib" -loffstub \
	-Wl,-rpath,"$OFFLINK_BUILD/lib"
OFFSTUB_LOG=r.log ./prog.r >r.out 2>r.err || fail "prog.r exited with $?: $(head -c 500 r.err)"
diff -u prog.out r.out || fail "the g++-linked program runs differently"
stub_entries r.log | diff -u entries.txt - || fail "the g++-linked program registers other entries"
# --cuda-path (which clang 19 does not pass on: -Wl, does) comes first,
# and a device linker's failure passes through
# naming the step: no output, no temporaries left.
mkdir -p fake/bin
printf '#!/bin/sh\necho "fake nvlink: $*" >&2\nexit 7\n' >fake/bin/nvlink
chmod +x fake/bin/nvlink
expect_status 1 clang-19 --offload-new-driver -fgpu-rdc -Wl,--cuda-path="$T/fake" "${OBJS[@]}" \
	-B "$COMPAT" -o prog.fake -L"$OFFLINK_BUILD/lib" -loffstub
contains "$T/stderr" "fake nvlink: -arch=sm_80"
contains "$T/stderr" "device link cuda nvptx64-nvidia-cuda sm_80 (nvlink): nvlink exited with status 7"
[ ! -e prog.fake ] || fail "a failed link left prog.fake"
no_leftovers .

# fatbinary's release decides --image3 (CUDA 10 on) or LLVM 19's
# --image=profile=: asked with --version (a process, 3 ms of a link)
# unless the CUDA says it is 11 or later by its version.json
mkdir -p fake2/bin
printf '#!/bin/sh\ntouch "%s/asked"\necho "Cuda compilation tools, release 9.2, V9.2.148"\n' "$T" \
	>fake2/bin/fatbinary
chmod +x fake2/bin/fatbinary
for json in no yes; do
	rm -f asked
	[ $json = yes ] && echo '{"cuda": {"version": "13.0.0"}}' >fake2/version.json
	check "dry run ($json version.json)" clang-19 --offload-new-driver -fgpu-rdc -Wl,--cuda-path="$T/fake2" \
		"${OBJS[@]}" -B "$COMPAT" -o prog.dry -Wl,--dry-run 2>dry_$json.txt
	if [ $json = yes ]; then
		[ ! -e asked ] || fail "fatbinary was asked its version beside a version.json"
		contains dry_$json.txt "--image3=kind=elf,sm=80"
	else
		[ -e asked ] || fail "fatbinary was not asked its version"
		contains dry_$json.txt "--image=profile=sm_80"
	fi
done
echo "PASS: CUDA -fgpu-rdc, two kernel TUs, sm_80 + sm_90"
