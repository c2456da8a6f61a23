# Helpers for OpenMP end-to-end tests (sourced after testlib.sh): build
# with clang-19, link through offlink (clang-19 -B <build>/compat) and
# through LLVM's own clang-linker-wrapper-19, run under libomptarget 19's
# host device with offloading mandatory.
need clang-19 clang++-19 clang-linker-wrapper-19
[ -e /usr/lib/llvm-19/lib/libomptarget.so ] || need libomptarget-19-is-missing

OMP=(-fopenmp -fopenmp-targets=x86_64-pc-linux-gnu)
# STUBLINK: link against the runtime stub's libomptarget (first in the
# search), for tests whose subject is not the runtime (the cache's): it has
# the real one's soname, so the programs still run on the real one (run),
# and GNU ld does not read libLLVM, the real one's dependency, in each
# host and device link (0.55 s a link against 0.15).
STUBLINK=(-L"$OFFLINK_BUILD/lib/offstub")

# cc ARGS...: compile with clang-19 (C or C++ by extension).
cc() { check "compile $*" clang-19 "${OMP[@]}" "$@"; }
cxx() { check "compile $*" clang++-19 "${OMP[@]}" "$@"; }

# link_ours OUT ARGS... / link_llvm OUT ARGS...: link with each wrapper.
link_ours() {
	local out=$1
	shift
	check "offlink link of $out" clang++-19 "${OMP[@]}" -B "$COMPAT" "$@" -o "$out"
}
link_llvm() {
	local out=$1
	shift
	check "LLVM link of $out" clang++-19 "${OMP[@]}" "$@" -o "$out"
}

# run PROG: run with the target mandatory; output in PROG.out.
run() {
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY "./$1" >"$1.out" 2>"$1.err" ||
		fail "$1 exited with $?: $(head -c 500 "$1.err")"
}

# same_as_llvm NAME ARGS...: link both ways, run both, outputs must be
# equal, and the target regions must have run off the host.
same_as_llvm() {
	local name=$1
	shift
	link_ours "$name" "$@"
	link_llvm "$name.llvm" "$@"
	run "$name"
	run "$name.llvm"
	diff -u "$name.llvm.out" "$name.out" || fail "$name: output differs from LLVM's link"
	contains "$name.out" "initial=0"
	grep -q "initial=1" "$name.out" && fail "$name: a target region ran on the host"
	return 0
}

# dev_caller: k.o, whose target region calls an external device function
# dev(14) and prints "dev=<result>", and hostdev.o, the host fallback's
# dev (-x), an object on the host line (never given to the CPU device
# link, which gets the host line's libraries only): the program the
# device-link cache tests relink while dev's library changes under them.
# dev_caller COMPILER...: k.o compiled by that command instead (-c k.c -o
# k.o added), for another device.
dev_caller() {
	cat >k.c <<'EOF'
#include <stdio.h>
#pragma omp declare target
int dev(int);
#pragma omp end declare target
int main(void) {
  int r = -1;
#pragma omp target map(from: r)
  r = dev(14);
  printf("dev=%d\n", r);
  return 0;
}
EOF
	echo 'int dev(int x) { return -x; }' >hostdev.c
	if [ $# = 0 ]; then
		cc -c k.c -o k.o
	else
		check "compile" "$@" -c k.c -o k.o
	fi
	check "host dev" gcc -c hostdev.c -o hostdev.o
}

# dev_link NAME ARGS...: dev_caller's objects linked through offlink with
# ARGS and -v (NAME.v), then run (NAME.out); dev_value NAME: what dev
# returned in that run.
dev_link() {
	local name=$1
	shift
	clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o "$@" -o "$name" -Wl,--wrapper-verbose 2>"$name.v" ||
		fail "link of $name: $(grep -v '^offlink:  ' "$name.v" | tail -3)"
	run "$name"
}
dev_value() { sed -n 's/^dev=//p' "$1.out"; }
