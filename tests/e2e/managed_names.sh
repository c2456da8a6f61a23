#!/usr/bin/env bash
# Issue 19, items 1 and 2: managed-variable names the assembler could
# misread, and many managed variables.
#  - HIP managed variables named ".", "$", "$$" (asm labels) and one whose
#    pointer is ".Lcuda_next" (clang keeps no such symbol: a warning, not
#    registered), linked with the registration assembled by GNU as, by
#    llvm-mc and as C: each program registers ".", "$" and "$$" and reads
#    their initial values through the pointers the runtime stub filled in
#    (before: "." was the location counter, a SIGSEGV at start-up; llvm-mc
#    refused "$");
#  - 20,000 managed variables and one named outside [A-Za-z0-9_.$] (which
#    sent the whole registration to C, and clang's time grew
#    superlinearly: 808 s) link in both forms under a generous timeout,
#    register 20,001 managed variables, and read one back.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need clang-19 llvm-mc-19 timeout

HIP=(-x hip --offload-new-driver -fgpu-rdc -nogpuinc -nogpulib --offload-arch=gfx90a)
cat >names.hip <<EOF
#include "$GPU_SRC/hip_decls.h"
__managed__ int dot __asm__(".") = 11;
__managed__ int label __asm__(".Lcuda_next") = 12;
__managed__ int dollar __asm__("\$") = 13;
__managed__ int dollars __asm__("\$\$") = 14;
__global__ void k(int *p) { p[0] = dot + label + dollar + dollars; }
int main() { printf("values: %d %d %d\n", dot, dollar, dollars); return 0; }
EOF
check "compile names.hip" clang-19 "${HIP[@]}" -c names.hip -o names.o

for form in gnu-as llvm-mc c; do
	env=()
	args=()
	case $form in
	llvm-mc) env=(OFFLINK_AS=$(command -v llvm-mc-19)) ;;
	c) args=(-Wl,--registration=c) ;;
	esac
	env "${env[@]}" clang-19 --offload-new-driver -fgpu-rdc --hip-link names.o -B "$COMPAT" -o names.$form \
		-L"$STUBDIR" -Wl,-rpath,"$STUBDIR" "${args[@]}" -Wl,--wrapper-verbose 2>names.$form.v ||
		fail "$form: link failed: $(grep -v '^offlink:  ' names.$form.v | tail -3)"
	case $form in
	gnu-as) grep -q -- '-linux-gnu-as \|/as ' names.$form.v || fail "$form: GNU as did not run" ;;
	llvm-mc) grep -q 'llvm-mc' names.$form.v || fail "$form: llvm-mc did not run" ;;
	c) grep -q 'image.wrapper.c' names.$form.v || fail "$form: the registration was not C" ;;
	esac
	contains names.$form.v "managed variable .Lcuda_next.managed cannot be registered"
	OFFSTUB_LOG=names.$form.log ./names.$form >names.$form.out 2>names.$form.err ||
		fail "$form: the program exited with $?: $(head -c 300 names.$form.err)"
	contains names.$form.out "values: 11 13 14"
	stub_entries names.$form.log >names.$form.entries
	expect_text names.$form.entries <<'TXT'
hip kernel _Z1kPi 0
hip managed $ 4 0 0
hip managed $$ 4 0 0
hip managed . 4 0 0
TXT
done

# 20,000 managed variables and an odd name.
{
	echo "#include \"$GPU_SRC/hip_decls.h\""
	for ((i = 0; i < 20000; i++)); do echo "__managed__ int m$i = $i;"; done
	echo '__managed__ int odd __asm__("odd name") = 5;'
	echo '__global__ void k(int *p) { p[0] = m0 + odd; }'
	echo 'int main() { printf("m19999=%d odd=%d\n", m19999, odd); return 0; }'
} >many.hip
check "compile many.hip" clang-19 "${HIP[@]}" -c many.hip -o many.o
for form in asm c; do
	started=$SECONDS
	timeout 300 clang-19 --offload-new-driver -fgpu-rdc --hip-link many.o -B "$COMPAT" -o many.$form \
		-L"$STUBDIR" -Wl,-rpath,"$STUBDIR" -Wl,--registration=$form,--no-cache 2>many.$form.err ||
		fail "$form: the link of 20,001 managed variables failed or ran past 300 s (exit $?): $(tail -3 many.$form.err)"
	echo "registration as $form: 20,001 managed variables linked in $((SECONDS - started)) s"
	OFFSTUB_LOG=many.$form.log ./many.$form >many.$form.out || fail "$form: the program failed"
	contains many.$form.out "m19999=19999 odd=5"
	[ "$(stub_entries many.$form.log | grep -c '^hip managed ')" = 20001 ] ||
		fail "$form: $(stub_entries many.$form.log | grep -c '^hip managed ') managed variables registered, not 20001"
done
echo "PASS: managed-variable names and counts"
