#!/usr/bin/env bash
# HIP relocatable device code over two kernel TUs and a host TU, for
# gfx90a and gfx908, linked by offlink.  Checks:
#  - the program, linked against the stub under libamdhip64's name,
#    registers every kernel, variable and managed variable of the sources
#    with their sizes (the managed ones once each, though the host TU
#    declares them extern too), sees the initial values through the
#    pointers registration filled in, and its launches name the kernels;
#  - .hip_fatbin holds an offload bundle that clang-offload-bundler-19
#    lists and unbundles into the very code objects ld.lld made; the
#    wrapper in .hipFatBinSegment has the HIP magic;
#  - LLVM 19's link of the same objects registers the same, except the
#    managed variables, which LLVM 19 drops (so its program reads them
#    through null pointers, which the test sees it do);
#  - the kernel TUs pre-linked with -r make an object that g++ links into
#    a program registering the same.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need clang-19 clang-offload-bundler-19 ld.lld-19 readelf objcopy od

HIP=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a,gfx908)
for f in hip_k1 hip_k2 hip_main; do
	check "compile $f" clang-19 "${HIP[@]}" -c "$GPU_SRC/$f.hip" -o $f.o
done
LINK=(--offload-new-driver -fgpu-rdc --hip-link hip_k1.o hip_k2.o hip_main.o)

clang-19 "${LINK[@]}" -B "$COMPAT" -o prog -L"$STUBDIR" -Wl,-rpath,"$STUBDIR" \
	-Wl,--save-temps -Wl,--wrapper-verbose 2>verbose.txt || fail "offlink link: $(tail -5 verbose.txt)"
grep -q 'warning' verbose.txt && fail "the link warned: $(grep warning verbose.txt)"
contains verbose.txt "hip registration: 2 images in an offload bundle (written by offlink)"
readelf -d prog | grep -q 'NEEDED.*\[libamdhip64.so.6\]' || fail "prog does not ask for libamdhip64.so.6"

OFFSTUB_LOG=prog.log ./prog >prog.out 2>prog.err || fail "prog exited with $?: $(head -c 500 prog.err)"
expect_text prog.out <<'TXT'
devices: 100 (count 0)
scale: 100
fill: 100
reset: 100
managed_value: 7
managed_pair: 1.5 2.5
TXT
stub_images prog.log >images.txt
expect_text images.txt <<'TXT'
hip amdgcn-amd-amdhsa gfx908 224 bundle
hip amdgcn-amd-amdhsa gfx90a 224 bundle
TXT
stub_entries prog.log >entries.txt
expect_text entries.txt <<'TXT'
hip kernel _Z4fillPf 0
hip kernel _Z5resetPl 0
hip kernel _Z5scalePii 0
hip managed managed_pair 16 0 0
hip managed managed_value 4 0 0
hip variable coeffs 16 0 1
hip variable dev_counter 4 0 0
hip variable dev_table 128 0 0
hip variable other_global 8 0 0
TXT
stub_launches prog.log >launches.txt
expect_text launches.txt <<'TXT'
hip _Z5scalePii 2x1x1 64x1x1
hip _Z4fillPf 3x2x1 32x1x1
hip _Z5resetPl 1x1x1 1x1x1
TXT

objcopy -O binary --only-section=.hipFatBinSegment prog segment.bin
[ "$(od -An -tx4 -N8 segment.bin | tr -s ' ')" = " 48495046 00000001" ] ||
	fail "bad .hipFatBinSegment wrapper: $(od -An -tx4 -N8 segment.bin)"
readelf -SW prog | grep -E ' \.hip_fatbin ' | grep -qE ' 4096$' || fail ".hip_fatbin is not 4096-aligned"
objcopy -O binary --only-section=.hip_fatbin prog fatbin.bin
temps=$(echo prog.offlink-temps.*)
[ -d "$temps" ] || fail "expected one --save-temps directory, got: $temps"
same_bytes fatbin.bin "$temps/hip.hipfb"
clang-offload-bundler-19 --list --type=o --input=fatbin.bin >ids.txt || fail "the bundler cannot list .hip_fatbin"
# LLVM 19 names the host part host-x86_64-unknown-linux whatever the
# host, and so does offlink for LLVM 19 (tests/e2e/hip_fatbin_releases.sh).
expect_text ids.txt <<'TXT'
hip-amdgcn-amd-amdhsa--gfx908
hip-amdgcn-amd-amdhsa--gfx90a
host-x86_64-unknown-linux--
TXT
for a in gfx908 gfx90a; do
	check "unbundle $a" clang-offload-bundler-19 --unbundle --type=o --input=fatbin.bin \
		--targets=hip-amdgcn-amd-amdhsa--$a --output=$a.co
	same_bytes $a.co "$temps"/*.hip.amdgcn-amd-amdhsa.$a.img
done

# LLVM 19's link: the same kernels and variables, no managed ones.
check "LLVM link" clang-19 "${LINK[@]}" -o prog.llvm -L"$STUBDIR"
OFFSTUB_LOG=llvm.log LD_LIBRARY_PATH=$STUBDIR ./prog.llvm >/dev/null 2>llvm.err &&
	fail "LLVM 19's program read its managed variables (LLVM 19 registers none)"
grep -v ' managed ' entries.txt >entries.nomanaged.txt
stub_entries llvm.log | diff -u entries.nomanaged.txt - || fail "LLVM's link registers other entries"
stub_images llvm.log | diff -u images.txt - || fail "LLVM's link registers other images"
# Relocatable pre-link of the kernel TUs; plain g++ links the program.
need g++
check "pre-link (-r)" clang-19 --offload-new-driver -fgpu-rdc --offload-link -r -B "$COMPAT" \
	hip_k1.o hip_k2.o -o kernels.o 2>/dev/null
check "g++ link" g++ -o prog.r kernels.o hip_main.o -L"$STUBDIR" -lamdhip64 -Wl,-rpath,"$STUBDIR"
OFFSTUB_LOG=r.log ./prog.r >r.out 2>r.err || fail "prog.r exited with $?: $(head -c 500 r.err)"
diff -u prog.out r.out || fail "the g++-linked program runs differently"
stub_entries r.log | diff -u entries.txt - || fail "the g++-linked program registers other entries"
echo "PASS: HIP -fgpu-rdc, two kernel TUs, gfx90a + gfx908"
