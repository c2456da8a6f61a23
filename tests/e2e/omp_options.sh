#!/usr/bin/env bash
# Less common wrapper options, end to end: --bitcode-library (device bitcode
# always linked), --override-image (a ready image, nothing linked),
# --embed-bitcode (the image is LTO-merged bitcode), --print-wrapped-module,
# --wrapper-time-trace, and a response file carrying wrapper options.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need ld.lld-19 llvm-objdump-19

cat >main.c <<'C'
#include <stdio.h>
#include <omp.h>
/* On the device, cube() is cube_dev(), which only the bitcode library
 * defines; the host keeps its own cube(). */
int cube_dev(int x);
#pragma omp declare target to(cube_dev) device_type(nohost)
#pragma omp declare variant(cube_dev) match(device = {kind(nohost)})
int cube(int x) { return x * x * x; }
#pragma omp declare target to(cube)
int main(void) {
  int initial = 1, r = 0;
#pragma omp target map(from: initial, r)
  { initial = omp_is_initial_device(); r = cube(3); }
  printf("initial=%d r=%d\n", initial, r);
  return 0;
}
C
cat >cubelib.c <<'C'
int cube_dev(int x) { return x * x * x + 1000; }
#pragma omp declare target to(cube_dev) device_type(nohost)
C
cc -foffload-lto -c main.c -o main.o
cc -foffload-lto -c cubelib.c -o cubelib.o
"$BIN/offlink-binary" cubelib.o --image=file=cube.bc,kind=openmp || fail "extract bitcode"
file cube.bc | grep -q 'LLVM IR bitcode' || fail "cube.bc is not bitcode"

# --bitcode-library, given through -Xlinker as a user would, and through a
# response file with --print-wrapped-module and --wrapper-time-trace.
link_ours lib -foffload-lto main.o \
	"-Xlinker" "--bitcode-library=openmp-x86_64-pc-linux-gnu-=$T/cube.bc"
run lib
contains lib.out "initial=0 r=1027"
printf '%s\n' "--bitcode-library=openmp-x86_64-pc-linux-gnu-=$T/cube.bc" \
	--print-wrapped-module "--wrapper-time-trace=$T/trace.json" >opts.rsp
clang++-19 "${OMP[@]}" -B "$COMPAT" -foffload-lto main.o -Wl,@"$T/opts.rsp" -o lib2 \
	2>wrapped.txt || fail "link with a response file: $(tail -3 wrapped.txt)"
run lib2
contains lib2.out "r=1027"
# (the registration as written: assembly for this x86_64 host)
contains wrapped.txt "__offlink_omp_descriptor:"
contains wrapped.txt "call __tgt_register_lib@PLT"
contains trace.json '"name":"ol_run_device_links"'
contains trace.json '"ph":"X"'

# --embed-bitcode: the registered image is the merged bitcode.
link_ours jit -foffload-lto main.o "-Xlinker" "--bitcode-library=openmp-x86_64-pc-linux-gnu-=$T/cube.bc" \
	-Xlinker --embed-bitcode
llvm-objdump-19 --offloading jit | grep -q 'kind            llvm ir' || fail "expected a bitcode image"
"$BIN/offlink-binary" jit --image=file=jit.bc >/dev/null || fail "extract"
llvm-nm-19 jit.bc | grep -q cube_dev || fail "the bitcode library is not in the merged image"

# --override-image: reuse the image linked above (kept by --save-temps).
mkdir keep
(cd keep && clang++-19 "${OMP[@]}" -B "$COMPAT" -foffload-lto ../main.o \
	-Xlinker "--bitcode-library=openmp-x86_64-pc-linux-gnu-=$T/cube.bc" -Xlinker --save-temps -o prog) ||
	fail "save-temps link"
img=$(echo keep/prog.offlink-temps.*/0.openmp.x86_64-pc-linux-gnu.img)
[ -f "$img" ] || fail "no linked image kept"
clang++-19 "${OMP[@]}" -B "$COMPAT" -foffload-lto main.o -Xlinker "--override-image=openmp=$T/$img" \
	-o over -v 2>over.txt || fail "override link: $(tail -3 over.txt)"
grep -q 'clang-19 --no-default-config --target=x86_64-pc-linux-gnu -O2' over.txt &&
	fail "--override-image must not run a device link"
run over
contains over.out "initial=0 r=1027"
echo "PASS: wrapper options"
