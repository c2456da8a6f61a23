#!/usr/bin/env bash
# Issue 43: SYCL with clang 23 and 24 (one part each, in the sid root).
# clang -fsycl compiles kernels for spirv64-unknown-unknown (kind sycl);
# the link runs `clang --sycl-link` (clang-sycl-linker) on them, and the
# offload binary it writes is registered as it is, by
# __sycl_register_lib(image, size).  Debian ships no SYCL runtime: the
# runtime stub stands for it (its libLLVMSYCL.so copy, -nolibsycl).  The
# kernels' host side is a stand-in for the runtime's headers
# (sycl_kernel_launch), the entry points clang's [[sycl_kernel_entry_point]]
# attribute: what upstream SYCL's headers build on.
#   - LLVM's link and offlink's register the same binary, byte for byte
#     (the .llvm.offloading sections are equal), with the same kernels, at
#     the release's priority (23: constructor and destructor at 1; 24: 101
#     and atexit), in the assembly and in the C form;
#   - kernels from a static library are linked in;
#   - a second link is a device-link cache hit (clang-sycl-linker's command
#     keyed), and makes the same program;
#   - -r: the registration pre-linked, then a plain g++ link;
#   - offlink-binary --list reads the registered binary.
# ctest-parts: 23 24
# ctest-sid: 23 24
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
N=${OFFLINK_PART:-23}
need clang++-$N readelf objcopy g++
SY=(-fsycl)
[ "$N" -ge 24 ] && SY+=(--no-offloadlib) # (24 wants compiler-rt for SPIR-V, which Debian lacks)
RT=(-nolibsycl -L"$STUBDIR" -lLLVMSYCL -Wl,-rpath,"$STUBDIR")

cat >launch.h <<'H'
#include <cstdio>
// What a SYCL runtime's headers provide: the host side of a launch.
template <typename KernelName, typename... Ts>
void sycl_kernel_launch(const char *name, Ts &&...) { std::printf("launch %s\n", name); }
template <typename KernelName, typename KernelType>
[[clang::sycl_kernel_entry_point(KernelName)]] void single_task(KernelType kernel) { kernel(); }
H
cat >main.cpp <<'C'
#include "launch.h"
struct First;
struct Second;
int lib_kernels();
int main() {
  int x = 41;
  single_task<First>([=]() { (void)(x + 1); });
  single_task<Second>([=]() { (void)(x * 2); });
  return lib_kernels();
}
C
cat >lib.cpp <<'C'
#include "launch.h"
struct FromLibrary;
int lib_kernels() {
  int y = 7;
  single_task<FromLibrary>([=]() { (void)(y - 1); });
  return 0;
}
C
check "compile main.cpp" clang++-$N "${SY[@]}" -I. -c main.cpp -o main.o
check "compile lib.cpp" clang++-$N "${SY[@]}" -I. -c lib.cpp -o lib.o
check "archive" ar rcs libk.a lib.o
"$BIN/offlink-binary" --list main.o | grep -qE '^bitcode +sycl +spirv64-unknown-unknown' ||
	fail "main.o holds no SYCL device code: $("$BIN/offlink-binary" --list main.o)"

LINK=("${SY[@]}" main.o -L. -lk "${RT[@]}")
check "LLVM $N's link" clang++-$N "${LINK[@]}" -o llvm
clang++-$N "${LINK[@]}" -B "$COMPAT" -Wl,--wrapper-verbose -o ours 2>ours.err ||
	fail "offlink's link: $(tail -5 ours.err)"
contains ours.err "--target=spirv64-unknown-unknown"
contains ours.err "--sycl-link"
clang++-$N "${LINK[@]}" -B "$COMPAT" -Wl,--embed-bitcode -o embed 2>embed.err &&
	fail "--embed-bitcode linked SYCL's device code"
contains embed.err "--embed-bitcode does not apply to SYCL"
[ -e embed ] && fail "the refused link wrote embed"
if [ "$N" = 23 ]; then
	contains ours.err "-Xlinker -triple=spirv64-unknown-unknown -Xlinker -arch="
else
	grep -- '--sycl-link' ours.err | grep -q -- '-triple=' && fail "24 gives the linker no -triple"
fi

# Both programs run, launch the three kernels, and register the same.
for p in llvm ours; do
	OFFSTUB_LOG=$p.log ./$p >$p.out 2>$p.err || fail "$p exited with $?: $(head -c 300 $p.err)"
	stub_images $p.log >$p.images
	stub_entries $p.log >$p.entries
	objcopy --dump-section=.llvm.offloading=$p.sec $p $p.copy
done
sort ours.out >ours.sorted
expect_text ours.sorted <<'TXT'
launch _ZTS11FromLibrary
launch _ZTS5First
launch _ZTS6Second
TXT
echo "sycl spirv64-unknown-unknown  null spirv" | expect_text ours.images
expect_text ours.entries <<'TXT'
sycl kernel _ZTS11FromLibrary 0
sycl kernel _ZTS5First 0
sycl kernel _ZTS6Second 0
TXT
diff -u llvm.images ours.images || fail "LLVM's link registers other images"
diff -u llvm.entries ours.entries || fail "LLVM's link registers other kernels"
same_bytes llvm.sec ours.sec
[ "$(od -An -tu4 -j4 -N4 ours.sec | tr -d ' ')" = $((N - 21)) ] || fail "the registered binary is not version $((N - 21))"
"$BIN/offlink-binary" --list ours >list.txt || fail "--list ours"
grep -qE '^spirv +sycl +spirv64-unknown-unknown .*\[linked\]' list.txt || fail "--list: $(cat list.txt)"

# The registration object's constructor, at the release's priority.
clang++-$N "${LINK[@]}" -B "$COMPAT" -Wl,--save-temps -Wl,--no-cache -o saved 2>/dev/null ||
	fail "--save-temps link"
prio=1
[ "$N" -ge 24 ] && prio=101
obj=$(ls "$TMPDIR"/offlink-*/sycl.image.wrapper.o 2>/dev/null | head -1)
[ -n "$obj" ] || obj=$(find . "$TMPDIR" -name 'sycl.image.wrapper.o' | head -1)
[ -n "$obj" ] || fail "--save-temps kept no sycl.image.wrapper.o"
readelf -SW "$obj" | grep -q "\.init_array\.$prio " || fail "the constructor is not at priority $prio: $(readelf -SW "$obj" | grep array)"
if [ "$N" = 23 ]; then
	readelf -SW "$obj" | grep -q '\.fini_array\.1 ' || fail "23: no destructor at priority 1"
else
	readelf -sW "$obj" | grep -q ' atexit$' || fail "24: the registration does not unregister with atexit"
fi

# The C form registers the same.
check "the C form" env OFFLINK_REGISTRATION=c clang++-$N "${LINK[@]}" -B "$COMPAT" -o cform
OFFSTUB_LOG=cform.log ./cform >/dev/null || fail "cform exited with $?"
stub_entries cform.log | diff -u ours.entries - || fail "the C form registers other kernels"
objcopy --dump-section=.llvm.offloading=cform.sec cform cform.copy
same_bytes ours.sec cform.sec

# A second link: the device link comes from the cache, the same program.
clang++-$N "${LINK[@]}" -B "$COMPAT" -Wl,--wrapper-verbose -o ours2 2>ours2.err ||
	fail "second link: $(tail -5 ours2.err)"
contains ours2.err "device-link cache hit"
grep -q -- '--sycl-link' ours2.err && grep -- '--sycl-link' ours2.err | grep -qv -- '-###' &&
	fail "the second link ran the device link"
same_bytes ours ours2

# -r: the kernels pre-linked and registered; g++ makes the program.
check "-r" clang++-$N "${SY[@]}" --offload-link -r -B "$COMPAT" main.o -L. -lk -o pre.o
check "g++ link" g++ pre.o "${RT[@]:1}" -o gprog
OFFSTUB_LOG=gprog.log ./gprog >/dev/null 2>gprog.err || fail "gprog exited with $?: $(head -c 300 gprog.err)"
stub_entries gprog.log | diff -u ours.entries - || fail "the pre-linked program registers other kernels"
readelf -SW pre.o | grep -q '\.llvm\.offloading\.relocatable' || fail "-r: the image is not in .llvm.offloading.relocatable"
no_leftovers .
echo "PASS: SYCL with clang $N, registered as LLVM $N's link registers it"
