#!/usr/bin/env bash
# Issue 21: SPIR-V device links (OpenMP for Intel GPUs), beside LLVM 22's
# own wrapper.  A program with two target regions, a declare-target
# global and function, and device code in a static library, compiled by
# clang 22 for spirv64-intel (-nogpulib: Debian ships no SPIR-V device
# runtime, hence partial linkage):
#   - offlink links it; the image it registers (the ELF container around
#     the module spirv-link made) is byte-identical to LLVM 22's, with the
#     same kind, triple and arch (llvm-objdump-22 --offloading) and the
#     same offload entries (the runtime stub's log);
#   - both programs run under libomptarget 22 (no Intel GPU plugin: the
#     regions fall back to the host);
#   - a second link is a device-link cache hit with the same image, and
#     the key holds spirv-link by content;
#   - a -r pre-link of the same objects, linked by plain gcc, registers
#     the same image;
#   - offlink-binary --list and the stub recognise the container;
#   - device code for spirv64 under LLVM 19 is an error naming the release
#     and the target; a machine without spirv-link is told so.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need clang-22 clang-linker-wrapper-22 spirv-link llvm-offload-binary-22 llvm-objdump-22 clang-19 gcc
L22=$OFFLINK_SRC/deps/llvm22-omp/usr/lib/llvm-22/lib
if [ ! -e "$L22/libomptarget.so" ]; then
	[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "libomptarget 22 is not unpacked in $L22"
	skip "libomptarget 22 is not unpacked in $L22 (scripts/install-deps.sh)"
fi

cat >main.c <<'C'
#include <stdio.h>
#pragma omp declare target
int scale = 3;
int twice(int x) { return 2 * x; }
int lib_add(int a, int b);
#pragma omp end declare target
int main(void) {
  int a = 0, b = 0;
#pragma omp target map(from: a)
  a = twice(scale);
#pragma omp target map(from: b)
  b = lib_add(scale, 4);
  printf("a=%d b=%d\n", a, b);
  return !(a == 6 && b == 7);
}
C
cat >lib.c <<'C'
#pragma omp declare target
int lib_bias = 0;
int lib_add(int a, int b) { return a + b + lib_bias; }
#pragma omp end declare target
C
OMP=(-fopenmp -fopenmp-targets=spirv64-intel -nogpulib)
check "compile main.c" clang-22 "${OMP[@]}" -c main.c -o main.o
check "compile lib.c" clang-22 "${OMP[@]}" -c lib.c -o lib.o
check "archive" ar rcs libdev.a lib.o
LINK=("${OMP[@]}" main.o -L. -ldev -L"$L22" -Xoffload-linker --allow-partial-linkage)

check "LLVM 22's link" clang-22 "${LINK[@]}" -o llvm
clang-22 "${LINK[@]}" -B "$COMPAT" -Wl,--wrapper-verbose -o ours 2>ours.err ||
	fail "offlink's link: $(tail -5 ours.err)"
contains ours.err "--target=spirv64-intel"
contains ours.err "-Xlinker --allow-partial-linkage"
contains ours.err "device-link cache miss"

clang-22 "${LINK[@]}" -B "$COMPAT" -Wl,--dry-run -o dry 2>dry.err || fail "--dry-run: $(tail -3 dry.err)"
contains dry.err "then wrapped by offlink in the SPIR-V container for Intel's runtime"
[ -e dry ] && fail "--dry-run wrote dry"

# The registered images, byte for byte, and as llvm-objdump reads them.
for p in llvm ours; do
	check "extract $p's image" llvm-offload-binary-22 $p --image=file=$p.img,triple=spirv64-intel
	llvm-objdump-22 --offloading $p | tail -n +3 >$p.objdump
done
same_bytes llvm.img ours.img
diff -u llvm.objdump ours.objdump || fail "llvm-objdump-22 --offloading reads the programs differently"
contains ours.objdump "kind            elf"
contains ours.objdump "triple          spirv64-intel"
readelf -h ours.img | grep -q 'Machine:.*<unknown>: 0xcd\|Machine:.*Intel Graphics' ||
	fail "the registered image is not for machine 205: $(readelf -h ours.img | grep Machine)"
readelf -n ours.img | grep -q INTELONEOMPOFFLOAD || fail "the registered image has no oneAPI notes"

# Both run under libomptarget 22, and the stub sees the same registration.
for p in llvm ours; do
	LD_LIBRARY_PATH=$L22 ./$p >$p.out 2>$p.err || fail "$p exited with $?: $(head -c 300 $p.err)"
	contains $p.out "a=6 b=7"
	OFFSTUB_LOG=$p.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$L22 ./$p >/dev/null 2>$p.stub.err ||
		fail "$p under the stub exited with $?: $(head -c 300 $p.stub.err)"
done
stub_images ours.log >images.txt
expect_text images.txt <<'TXT'
openmp spirv64-intel  205 elf
TXT
ids() { sed -E 's/__omp_offloading_[0-9a-f]+_[0-9a-f]+_/__omp_offloading_ID_/'; }
stub_entries ours.log | ids >entries.txt
expect_text entries.txt <<'TXT'
openmp kernel __omp_offloading_ID_main_l11 0
openmp kernel __omp_offloading_ID_main_l9 0
openmp variable lib_bias 4
openmp variable scale 4
TXT
stub_images llvm.log | diff -u - images.txt || fail "LLVM's link registers other images"
stub_entries llvm.log | ids | diff -u - entries.txt || fail "LLVM's link registers other entries"
spv() { jq -r 'select(.images) | .images[] | "\(.digest) \(.spirv.notes_version) \(.spirv.images) \(.spirv.version)"' "$1"; }
[ "$(spv ours.log)" = "$(spv llvm.log)" ] || fail "the stub reads the images differently: $(spv ours.log) / $(spv llvm.log)"
spv ours.log | grep -qE '^[0-9a-f]{16} 1\.0 1 1\.[0-9]+$' || fail "the stub did not read the container: $(spv ours.log)"

# offlink-binary --list says what the image is.
check "offlink-binary --list" "$BIN/offlink-binary" --list ours main.o >list.txt
contains list.txt "[linked] [SPIR-V 1."
contains list.txt "module in an Intel container]"
"$BIN/offlink-binary" --list --json ours | jq -e '.[0].content.format == "spirv-container" and
	.[0].content.notes_version == "1.0"' >/dev/null || fail "--list --json: $("$BIN/offlink-binary" --list --json ours)"

# A second link: a cache hit (spirv-link is in its key), the same image.
OFFLINK_CACHE_EXPLAIN=1 clang-22 "${LINK[@]}" -B "$COMPAT" -Wl,--wrapper-verbose -o ours2 2>ours2.err ||
	fail "second link: $(tail -5 ours2.err)"
contains ours2.err "device-link cache hit"
grep -q "spirv-link" ours2.err && grep -A1 'linker: .*spirv-link' ours2.err | grep -q 'program content: build-id' ||
	fail "the key does not hold spirv-link by content: $(grep -A1 linker: ours2.err)"
grep "^/usr/lib/llvm-22/bin/clang .*--target=spirv64-intel" ours2.err | grep -qv -- "'-###'" && fail "the second link ran the device link"
check "extract the second image" llvm-offload-binary-22 ours2 --image=file=ours2.img,triple=spirv64-intel
same_bytes ours.img ours2.img

# -r: the same objects pre-linked, then plain gcc; the same image.
clang-22 "${OMP[@]}" --offload-link -r -B "$COMPAT" main.o -L. -ldev \
	-Xoffload-linker --allow-partial-linkage -o pre.o 2>pre.err || fail "-r link: $(tail -5 pre.err)"
check "gcc link" gcc pre.o -L"$L22" -lomptarget -lomp -o gprog
OFFSTUB_LOG=gprog.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$L22 ./gprog >gprog.out 2>gprog.err ||
	fail "gprog exited with $?: $(head -c 300 gprog.err)"
contains gprog.out "a=6 b=7"
[ "$(spv gprog.log)" = "$(spv ours.log)" ] || fail "the pre-linked library registers $(spv gprog.log), the final link $(spv ours.log)"
stub_entries gprog.log | ids | diff -u - entries.txt || fail "the pre-linked library registers other entries"
check "extract gprog's image" llvm-offload-binary-22 gprog --image=file=gprog.img,triple=spirv64-intel
same_bytes ours.img gprog.img

# SPIR-V beside an x86_64 device in one link (the two link in parallel):
# registered in LLVM 22's order, the SPIR-V image the same as alone; the
# regions run on the x86_64 device.
TWO=(-fopenmp -fopenmp-targets=spirv64-intel,x86_64-pc-linux-gnu -nogpulib)
check "compile main.c for two targets" clang-22 "${TWO[@]}" -c main.c -o main2.o
check "compile lib.c for two targets" clang-22 "${TWO[@]}" -c lib.c -o lib2.o
check "archive" ar rcs libdev2.a lib2.o
LINK2=("${TWO[@]}" main2.o -L. -ldev2 -L"$L22" -Xoffload-linker=spirv64-intel --allow-partial-linkage)
check "LLVM 22's link, two targets" clang-22 "${LINK2[@]}" -o llvm2
check "offlink's link, two targets" clang-22 "${LINK2[@]}" -B "$COMPAT" -o ours2t
for p in llvm2 ours2t; do
	OFFSTUB_LOG=$p.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$L22 OMP_TARGET_OFFLOAD=MANDATORY ./$p >$p.out 2>$p.err ||
		fail "$p exited with $?: $(head -c 300 $p.err)"
	contains $p.out "a=6 b=7"
	jq -r '.images[] | .triple + " " + (if .spirv then .digest else "-" end)' $p.log >$p.order
done
diff -u llvm2.order ours2t.order || fail "two targets: registered otherwise than LLVM 22's"
[ "$(sed -n 2p ours2t.order)" = "spirv64-intel $(spv ours.log | cut -d' ' -f1)" ] ||
	fail "two targets: the SPIR-V image is not the one linked alone: $(cat ours2t.order)"

# LLVM 19 has no SPIR-V device link: device code for spirv64 in an object
# clang 19 links is an error naming both.
check "device-only compile" clang-22 "${OMP[@]}" --offload-device-only -c main.c -o dev.o
check "package" "$BIN/offlink-binary" -o dev.bin --image=file=dev.o,triple=spirv64-intel,kind=openmp
check "clang 19 host compile" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only \
	-Xclang -fembed-offload-object=dev.bin -c main.c -o fat19.o
expect_status 1 clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu fat19.o -B "$COMPAT" -o p19
contains "$T/stderr" "device link openmp spirv64-intel: LLVM 19 has no SPIR-V device link; device code for spirv64-intel needs clang 22 or later (device code from fat19.o)"
[ -e p19 ] && fail "a failed link left p19"

# No spirv-link: said before anything runs.
mkdir nospirv
for f in /usr/bin/*; do
	case ${f##*/} in spirv-link) ;; *) ln -s "$f" nospirv/ ;; esac
done
expect_status 1 env PATH="$T/nospirv" clang-22 "${LINK[@]}" -B "$COMPAT" -o nolink
contains "$T/stderr" "clang links SPIR-V with spirv-link, found neither in /usr/lib/llvm-22/bin nor in PATH"
[ -e nolink ] && fail "a failed link left nolink"
no_leftovers .
echo "PASS: SPIR-V device links as LLVM 22's, registered image byte for byte"
