#!/usr/bin/env bash
# Issue 21: SPIR-V device links (OpenMP for Intel GPUs), beside LLVM's own
# wrapper, for clang 22, 23 and 24 (one part each; 23 and 24 in the sid
# root).  A program with two target regions, a declare-target global and
# function, and device code in a static library, compiled by clang N for
# spirv64-intel (-nogpulib: Debian ships no SPIR-V device runtime, hence
# partial linkage, which 22 must be told and 23 asks itself):
#   - offlink links it; the image it registers is byte-identical to
#     LLVM N's, with the same kind, triple and arch (llvm-objdump-N
#     --offloading) and the same offload entries (the runtime stub's log):
#     for 22 the ELF container around the module spirv-link made, from 23
#     an offload binary of the release's version holding the module as a
#     SPIR-V image (issue 43);
#   - both programs run under libomptarget N (no Intel GPU plugin: the
#     regions fall back to the host);
#   - a second link is a device-link cache hit with the same image, and
#     the key holds spirv-link by content;
#   - a -r pre-link of the same objects, linked by plain gcc, registers
#     the same image;
#   - offlink-binary --list and the stub recognise the container;
#   - 23 and 24: the flag 22 needed, still passed, is not given twice
#     (LLVM's own link stops there);
#   - device code for spirv64 under LLVM 19 is an error naming the release
#     and the target; a machine without spirv-link is told so.
# ctest-parts: 22 23 24
# ctest-heavy: all
# ctest-sid: 23 24
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
N=${OFFLINK_PART:-22}
case $N in
22) LN=$OFFLINK_SRC/deps/llvm22-omp/usr/lib/llvm-22/lib ;;
23) LN=/usr/lib/llvm-23/lib ;;
24) LN=/opt/llvm24-omp/usr/lib/llvm-24/lib ;;
*) fail "no release $N for SPIR-V" ;;
esac
need clang-$N clang-linker-wrapper-$N spirv-link llvm-offload-binary-$N llvm-objdump-$N gcc
if [ ! -e "$LN/libomptarget.so" ]; then
	[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "libomptarget $N is not in $LN"
	skip "libomptarget $N is not in $LN (scripts/install-deps.sh)"
fi
# (22 has the registered module in an ELF container, 23 on in an offload
# binary; 22 must be told to link partially, 23 on do so themselves)
nested=false
partial=(-Xoffload-linker --allow-partial-linkage)
if [ "$N" -ge 23 ]; then
	nested=true
	partial=()
fi

cat >main.c <<'C'
int printf(const char *, ...); /* (sid's stdio.h does not compile for spirv64) */
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
check "compile main.c" clang-$N "${OMP[@]}" -c main.c -o main.o
check "compile lib.c" clang-$N "${OMP[@]}" -c lib.c -o lib.o
check "archive" ar rcs libdev.a lib.o
LINK=("${OMP[@]}" main.o -L. -ldev -L"$LN" "${partial[@]}")

check "LLVM $N's link" clang-$N "${LINK[@]}" -o llvm
clang-$N "${LINK[@]}" -B "$COMPAT" -Wl,--wrapper-verbose -o ours 2>ours.err ||
	fail "offlink's link: $(tail -5 ours.err)"
contains ours.err "--target=spirv64-intel"
contains ours.err "-Xlinker --allow-partial-linkage"
contains ours.err "device-link cache miss"
if $nested; then
	contains ours.err "-Xlinker --create-library"
	# 22's flag, still given: offlink gives it once (LLVM's spirv-link
	# refuses it twice)
	clang-$N "${LINK[@]}" -Xoffload-linker --allow-partial-linkage -B "$COMPAT" -Wl,--wrapper-verbose -Wl,--no-cache \
		-o ours22flag 2>ours22flag.err || fail "offlink with 22's flag: $(tail -5 ours22flag.err)"
	[ "$(grep -- '--target=spirv64-intel' ours22flag.err | grep -o -- '--allow-partial-linkage' | wc -l)" = 1 ] ||
		fail "--allow-partial-linkage is not given once: $(grep -- '--target=spirv64-intel' ours22flag.err)"
fi

clang-$N "${LINK[@]}" -B "$COMPAT" -Wl,--dry-run -o dry 2>dry.err || fail "--dry-run: $(tail -3 dry.err)"
if $nested; then
	contains dry.err "then wrapped by offlink in an offload binary as a SPIR-V image"
else
	contains dry.err "then wrapped by offlink in the SPIR-V container for Intel's runtime"
fi
[ -e dry ] && fail "--dry-run wrote dry"
# SPIR-V is already what the runtime compiles: no bitcode to embed.
clang-$N "${LINK[@]}" -B "$COMPAT" -Wl,--embed-bitcode -o embed 2>embed.err &&
	fail "--embed-bitcode linked SPIR-V"
contains embed.err "device link openmp spirv64-intel"
contains embed.err "--embed-bitcode does not apply to SPIR-V"
[ -e embed ] && fail "the refused link wrote embed"

# The registered images, byte for byte, and as llvm-objdump reads them.
for p in llvm ours; do
	check "extract $p's image" llvm-offload-binary-$N $p --image=file=$p.img,triple=spirv64-intel
	llvm-objdump-$N --offloading $p | tail -n +3 >$p.objdump
done
same_bytes llvm.img ours.img
diff -u llvm.objdump ours.objdump || fail "llvm-objdump-$N --offloading reads the programs differently"
contains ours.objdump "kind            elf"
contains ours.objdump "triple          spirv64-intel"
if $nested; then
	contains ours.objdump "nested images   1"
	contains ours.objdump "kind            spir-v"
	[ "$(od -An -tu4 -j4 -N4 ours.img | tr -d ' ')" = $((N - 21)) ] ||
		fail "the nested binary is version $(od -An -tu4 -j4 -N4 ours.img), not $((N - 21))"
else
	readelf -h ours.img | grep -q 'Machine:.*<unknown>: 0xcd\|Machine:.*Intel Graphics' ||
		fail "the registered image is not for machine 205: $(readelf -h ours.img | grep Machine)"
	readelf -n ours.img | grep -q INTELONEOMPOFFLOAD || fail "the registered image has no oneAPI notes"
fi

# Both run under libomptarget N, and the stub sees the same registration.
for p in llvm ours; do
	LD_LIBRARY_PATH=$LN ./$p >$p.out 2>$p.err || fail "$p exited with $?: $(head -c 300 $p.err)"
	contains $p.out "a=6 b=7"
	OFFSTUB_LOG=$p.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$LN ./$p >/dev/null 2>$p.stub.err ||
		fail "$p under the stub exited with $?: $(head -c 300 $p.stub.err)"
done
stub_images ours.log >images.txt
if $nested; then
	echo "openmp spirv64-intel  null offload-binary" | expect_text images.txt
else
	echo "openmp spirv64-intel  205 elf" | expect_text images.txt
fi
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
if $nested; then
	grep -qE '^spirv +openmp +spirv64-intel .*offload binary 0 > image 0\] \[linked\]$' list.txt ||
		fail "--list shows no SPIR-V module in the registered binary: $(cat list.txt)"
	"$BIN/offlink-binary" --list --json ours | jq -e '[.[] | select(.kind == "spirv")] | length == 1' \
		>/dev/null || fail "--list --json: $("$BIN/offlink-binary" --list --json ours)"
else
	contains list.txt "[linked] [SPIR-V 1."
	contains list.txt "module in an Intel container]"
	"$BIN/offlink-binary" --list --json ours | jq -e '.[0].content.format == "spirv-container" and
		.[0].content.notes_version == "1.0"' >/dev/null || fail "--list --json: $("$BIN/offlink-binary" --list --json ours)"
fi

# A second link: a cache hit (spirv-link is in its key), the same image.
OFFLINK_CACHE_EXPLAIN=1 clang-$N "${LINK[@]}" -B "$COMPAT" -Wl,--wrapper-verbose -o ours2 2>ours2.err ||
	fail "second link: $(tail -5 ours2.err)"
contains ours2.err "device-link cache hit"
grep -q "spirv-link" ours2.err && grep -A1 'linker: .*spirv-link' ours2.err | grep -q 'program content: build-id' ||
	fail "the key does not hold spirv-link by content: $(grep -A1 linker: ours2.err)"
grep "^/usr/lib/llvm-$N/bin/clang .*--target=spirv64-intel" ours2.err | grep -qv -- "'-###'" && fail "the second link ran the device link"
check "extract the second image" llvm-offload-binary-$N ours2 --image=file=ours2.img,triple=spirv64-intel
same_bytes ours.img ours2.img

# -r: the same objects pre-linked, then plain gcc; the same image.
clang-$N "${OMP[@]}" --offload-link -r -B "$COMPAT" main.o -L. -ldev \
	"${partial[@]}" -o pre.o 2>pre.err || fail "-r link: $(tail -5 pre.err)"
check "gcc link" gcc pre.o -L"$LN" -lomptarget -lomp -o gprog
OFFSTUB_LOG=gprog.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$LN ./gprog >gprog.out 2>gprog.err ||
	fail "gprog exited with $?: $(head -c 300 gprog.err)"
contains gprog.out "a=6 b=7"
[ "$(spv gprog.log)" = "$(spv ours.log)" ] || fail "the pre-linked library registers $(spv gprog.log), the final link $(spv ours.log)"
stub_entries gprog.log | ids | diff -u - entries.txt || fail "the pre-linked library registers other entries"
check "extract gprog's image" llvm-offload-binary-$N gprog --image=file=gprog.img,triple=spirv64-intel
same_bytes ours.img gprog.img

# SPIR-V beside an x86_64 device in one link (the two link in parallel):
# registered in LLVM N's order, the SPIR-V image the same as alone; the
# regions run on the x86_64 device.
TWO=(-fopenmp -fopenmp-targets=spirv64-intel,x86_64-pc-linux-gnu -nogpulib)
check "compile main.c for two targets" clang-$N "${TWO[@]}" -c main.c -o main2.o
check "compile lib.c for two targets" clang-$N "${TWO[@]}" -c lib.c -o lib2.o
check "archive" ar rcs libdev2.a lib2.o
partial2=(-Xoffload-linker=spirv64-intel --allow-partial-linkage)
$nested && partial2=()
LINK2=("${TWO[@]}" main2.o -L. -ldev2 -L"$LN" "${partial2[@]}")
check "LLVM $N's link, two targets" clang-$N "${LINK2[@]}" -o llvm2
check "offlink's link, two targets" clang-$N "${LINK2[@]}" -B "$COMPAT" -o ours2t
for p in llvm2 ours2t; do
	OFFSTUB_LOG=$p.log LD_PRELOAD=$STUB LD_LIBRARY_PATH=$LN OMP_TARGET_OFFLOAD=MANDATORY ./$p >$p.out 2>$p.err ||
		fail "$p exited with $?: $(head -c 300 $p.err)"
	contains $p.out "a=6 b=7"
	jq -r '.images[] | .triple + " " + (if .spirv then .digest else "-" end)' $p.log >$p.order
done
diff -u llvm2.order ours2t.order || fail "two targets: registered otherwise than LLVM $N's"
[ "$(sed -n 2p ours2t.order)" = "spirv64-intel $(spv ours.log | cut -d' ' -f1)" ] ||
	fail "two targets: the SPIR-V image is not the one linked alone: $(cat ours2t.order)"

# LLVM 19 has no SPIR-V device link: device code for spirv64 in an object
# clang 19 links is an error naming both (22's part: no clang 19 in the
# sid root).
if [ "$N" = 22 ]; then
need clang-19
check "device-only compile" clang-22 "${OMP[@]}" --offload-device-only -c main.c -o dev.o
check "package" "$BIN/offlink-binary" -o dev.bin --image=file=dev.o,triple=spirv64-intel,kind=openmp
check "clang 19 host compile" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only \
	-Xclang -fembed-offload-object=dev.bin -c main.c -o fat19.o
expect_status 1 clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu fat19.o -B "$COMPAT" -o p19
contains "$T/stderr" "device link openmp spirv64-intel: LLVM 19 has no SPIR-V device link; device code for spirv64-intel needs clang 22 or later (device code from fat19.o)"
[ -e p19 ] && fail "a failed link left p19"
fi

# No spirv-link: said before anything runs.
mkdir nospirv
for f in /usr/bin/*; do
	case ${f##*/} in spirv-link) ;; *) ln -s "$f" nospirv/ ;; esac
done
expect_status 1 env PATH="$T/nospirv" clang-$N "${LINK[@]}" -B "$COMPAT" -o nolink
contains "$T/stderr" "clang links SPIR-V with spirv-link, found neither in /usr/lib/llvm-$N/bin nor in PATH"
[ -e nolink ] && fail "a failed link left nolink"
no_leftovers .
echo "PASS: SPIR-V device links as LLVM $N's, registered image byte for byte"
