#!/usr/bin/env bash
# Issue 26, item 6: a link that says which kernels a device will not find.
# Every offload entry of the host tables is checked against the image the
# runtime loads on each device the program is built for; a missing one is
# a warning naming the entry, the device and the object or archive member
# it came from (--offload-entries=error: an error, no output; =off: no
# check).  Here without CUDA: OpenMP on the CPU and HIP relocatable device
# code (tests/e2e/offload_entries_nvptx.sh has OpenMP NVPTX and CUDA).
#
# The CPU case is real: a static library whose device code was built for
# x86_64-unknown-linux-gnu, linked into a program built for
# x86_64-pc-linux-gnu.  Both images are x86_64 code; libomptarget's host
# device loads one of them (the last registered), which lacks the
# library's target region: the program aborts at run time, with LLVM's
# link as with offlink's.  LLVM's wrapper says nothing; offlink warns once.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need ld.lld-19 objdump

cat >lib.c <<'C'
int lib_region(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = x * 2;
  return r;
}
C
cat >main.c <<'C'
#include <stdio.h>
int lib_region(int);
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 42;
  printf("r=%d lib=%d\n", r, lib_region(21));
  return 0;
}
C
# warnings FILE: the number of offload-entry diagnostics in FILE.
warnings() { grep -c 'is not in the image the runtime loads' "$1"; }

check "compile lib.c" clang-19 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -c lib.c -o lib.o
check "archive" ar rcs libk.a lib.o
cc -c main.c -o main.o
LINK=("${OMP[@]}" main.o -L. -lk)

clang-19 "${LINK[@]}" -B "$COMPAT" -o prog 2>link.err || fail "offlink link: $(cat link.err)"
[ "$(warnings link.err)" = 1 ] || fail "not one warning: $(cat link.err)"
grep -E "target region __omp_offloading_[0-9a-f_]+lib_region_l[0-9]+ \(from \./libk\.a\(lib\.o\)\) is not in the image the runtime loads on x86_64 \(openmp x86_64-pc-linux-gnu\)" link.err >/dev/null ||
	fail "the warning does not name the region, x86_64 and the member: $(cat link.err)"
contains link.err "only the openmp x86_64-unknown-linux-gnu image has it"
# LLVM's link says nothing, and both programs fail where the warning says.
clang-19 "${LINK[@]}" -o prog.llvm 2>llvm.err || fail "LLVM's link: $(cat llvm.err)"
grep -qi warning llvm.err && fail "LLVM's wrapper warned: $(cat llvm.err)"
for p in prog prog.llvm; do
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY ./$p >$p.out 2>$p.rerr &&
		fail "$p ran: the runtime found the library's region after all"
	grep -q "lib_region" $p.rerr || fail "$p failed otherwise: $(head -c 400 $p.rerr)"
done
echo "ok: CPU, a library for another x86_64 triple: one warning, and the program fails as it says"

# --offload-entries=error: an error, exit 1, nothing written or left.
expect_status 1 clang-19 "${LINK[@]}" -B "$COMPAT" -Wl,--offload-entries=error -o prog.err
contains "$T/stderr" "offlink: error: target region __omp_offloading_"
[ -e prog.err ] && fail "--offload-entries=error wrote the output"
no_leftovers .
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporaries left: $(ls -A "$TMPDIR")"
# =off: no check; anything else: a usage error.
clang-19 "${LINK[@]}" -B "$COMPAT" -Wl,--offload-entries=off -o prog.off 2>off.err || fail "=off link"
[ "$(warnings off.err)" = 0 ] || fail "--offload-entries=off warned: $(cat off.err)"
expect_status 2 clang-19 "${LINK[@]}" -B "$COMPAT" -Wl,--offload-entries=maybe -o prog.bad
contains "$T/stderr" "'maybe': expected warn, error or off"

check "compile lib.c (pc)" clang-19 "${OMP[@]}" -c lib.c -o libpc.o
check "archive (pc)" ar rcs libpc.a libpc.o
# A hostile object: the name field of an entry relocated past the table's
# end, or to no string: an error naming the file and the table, exit 1,
# no output; never a crash.
size=$((0x$(objdump -h main.o | awk '$2 == "omp_offloading_entries" { print $3 }')))
cp main.o past.o
check "poke r_offset" "$HELP/elf_poke" past.o rela-offset omp_offloading_entries $((size + 8)) 1
cp main.o nostr.o
check "poke r_addend" "$HELP/elf_poke" nostr.o rela-addend omp_offloading_entries 0x7fffffff 1
for f in past.o nostr.o; do
	expect_status 1 clang-19 "${OMP[@]}" "$f" -L. -lpc -B "$COMPAT" -o "$f.prog"
	contains "$T/stderr" "$f: "
	contains "$T/stderr" "omp_offloading_entries"
	[ -e "$f.prog" ] && fail "$f: output written"
done
contains "$T/stderr" "is not a string inside a section"
no_leftovers .
echo "ok: hostile entry tables: an error naming the file"

# The library built for the program's target: no warning, and it runs.
clang-19 "${OMP[@]}" main.o -L. -lpc -B "$COMPAT" -o good 2>good.err || fail "good link: $(cat good.err)"
[ "$(warnings good.err)" = 0 ] || fail "a covered program warned: $(cat good.err)"
run good
contains good.out "r=42 lib=42"
echo "ok: CPU, every entry covered: no warning"

# HIP relocatable device code: a library for gfx908 in a gfx90a program.
cat >libh.hip <<'C'
#include "hip_decls.h"
__global__ void lib_kernel(int *p) { *p = 7; }
void launch_lib(int *p) { lib_kernel<<<1, 1>>>(p); }
C
cat >mainh.hip <<'C'
#include "hip_decls.h"
__global__ void main_kernel(int *p) { *p = 1; }
void launch_lib(int *p);
int main() {
  main_kernel<<<1, 1>>>(0);
  launch_lib(0);
  return 0;
}
C
HIP=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib -I"$GPU_SRC")
check "compile libh (gfx908)" clang-19 "${HIP[@]}" --offload-arch=gfx908 -c libh.hip -o libh.o
check "archive" ar rcs libh.a libh.o
check "compile libh (both)" clang-19 "${HIP[@]}" --offload-arch=gfx908,gfx90a -c libh.hip -o libh2.o
check "archive" ar rcs libh2.a libh2.o
check "compile mainh (gfx90a)" clang-19 "${HIP[@]}" --offload-arch=gfx90a -c mainh.hip -o mainh.o
HLINK=(--offload-new-driver -fgpu-rdc --hip-link mainh.o -L"$STUBDIR" -Wl,-rpath,"$STUBDIR")
clang-19 "${HLINK[@]}" -L. -lh -B "$COMPAT" -o hprog 2>hip.err || fail "HIP link: $(cat hip.err)"
[ "$(warnings hip.err)" = 1 ] || fail "HIP: not one warning: $(cat hip.err)"
contains hip.err "kernel _Z10lib_kernelPi (from ./libh.a(libh.o)) is not in the image the runtime loads on gfx90a"
contains hip.err "only the hip amdgcn-amd-amdhsa gfx908 image has it"
clang-19 "${HLINK[@]}" -L. -lh2 -B "$COMPAT" -o hprog2 2>hip2.err || fail "HIP link (both): $(cat hip2.err)"
[ "$(warnings hip2.err)" = 0 ] || fail "HIP, covered: warned: $(cat hip2.err)"
echo "ok: HIP -fgpu-rdc: one warning for the gfx908-only library, none when it has gfx90a too"
# Issue 32, item 6: entries that are no target region or variable are not
# checked.  `#pragma omp requires unified_shared_memory` makes 19 and 22
# emit a requires record among the entries (flags 0x10, no address; 22
# names it ".requires"), 15 and 16 a constructor instead: no release's
# program may warn, and each runs on its release's libomptarget.
cat >req.c <<'C'
#include <stdio.h>
#pragma omp requires unified_shared_memory
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 42;
  printf("r=%d\n", r);
  return 0;
}
C
for N in 15 16 19 22; do
	rt=$OFFLINK_SRC/deps/llvm$N-omp/usr/lib/llvm-$N/lib
	[ $N = 19 ] && rt=/usr/lib/llvm-19/lib
	if ! command -v clang-$N >/dev/null || [ ! -e "$rt/libomptarget.so" ]; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang $N or its OpenMP runtime is missing"
		echo "SKIP (part): clang $N"
		continue
	fi
	req=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -I"$(echo "$rt"/clang/$N*/include)")
	check "compile req.c ($N)" clang-$N "${req[@]}" -c req.c -o req$N.o
	clang-$N "${req[@]}" req$N.o -L"$rt" -B "$COMPAT" -o req$N 2>req$N.err ||
		fail "clang $N: the requires program does not link: $(cat req$N.err)"
	[ "$(warnings req$N.err)" = 0 ] || fail "clang $N: the requires record was checked: $(cat req$N.err)"
	grep -qi warning req$N.err && fail "clang $N: a warning: $(cat req$N.err)"
	LD_LIBRARY_PATH=$rt OMP_TARGET_OFFLOAD=MANDATORY ./req$N >req$N.out 2>req$N.rerr ||
		fail "clang $N: the requires program failed: $(head -c 300 req$N.rerr)"
	contains req$N.out "r=42"
	echo "ok: clang $N: requires unified_shared_memory, no warning, runs"
done
echo "PASS: offload entries checked against the images"
