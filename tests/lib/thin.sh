# Sourced by the ThinLTO tests (tests/e2e/thinlto*.sh): OpenMP for sm_90
# with clang 19, and three thin TUs of it.
NV=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90
    --cuda-path="$CUDA" -Wno-unknown-cuda-version --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib
    -Wno-unused-command-line-argument)

# nvptx_sources [FLAGS...]: a.c, b.c, main.c, compiled -O2 thin (and with
# FLAGS) to a.o, b.o, main.o; b.c and main.c call a.c's declare-target
# function; the program prints "a=9 b=116 main=5".
nvptx_sources() {
	cat >a.c <<'EOF'
int scale(int x) { return x * 7 + 2; }
#pragma omp declare target to(scale)
int run_a(int v) {
  int r = 0;
#pragma omp target map(from: r)
  r = scale(v);
  return r;
}
EOF
	cat >b.c <<'EOF'
int scale(int x);
#pragma omp declare target to(scale)
int run_b(int v) {
  int r = 0;
#pragma omp target map(from: r)
  r = scale(v) + 100;
  return r;
}
EOF
	cat >main.c <<'EOF'
#include <stdio.h>
int run_a(int), run_b(int);
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 5;
  printf("a=%d b=%d main=%d\n", run_a(1), run_b(2), r);
  return 0;
}
EOF
	for f in a b main; do
		check "compile $f.c" clang-19 "${NV[@]}" -O2 -foffload-lto=thin "$@" -c $f.c -o $f.o
	done
}

# thin_links [ARGS...]: LLVM 19's thin link of a.o b.o main.o
# (llvm/prog.llvm) and offlink's (prog, with ARGS; its stderr in
# ours.err), both --save-temps; both print "a=9 b=116 main=5" on the
# runtime stub and register the same entries, three kernels among them.
thin_links() {
	mkdir -p llvm
	(cd llvm && clang-19 "${NV[@]}" -foffload-lto=thin ../a.o ../b.o ../main.o -o prog.llvm \
		-Wl,--save-temps) >llvm.err 2>&1 || fail "LLVM 19's thin link: $(tail -5 llvm.err)"
	clang-19 "${NV[@]}" -foffload-lto=thin -B "$COMPAT" a.o b.o main.o -o prog -Wl,--save-temps "$@" \
		2>ours.err || fail "offlink's thin link: $(grep -v '^offlink:  ' ours.err | tail -5)"
	for p in prog llvm/prog.llvm; do
		OFFSTUB_LOG=$p.log LD_PRELOAD=$STUB ./$p >$p.out 2>$p.err || fail "$p exited with $?: $(head -c 400 $p.err)"
		contains $p.out "a=9 b=116 main=5"
	done
	stub_entries prog.log >entries.ours
	stub_entries llvm/prog.llvm.log >entries.llvm
	[ "$(grep -c ' kernel ' entries.ours)" = 3 ] || fail "offlink's program registers $(grep -c ' kernel ' entries.ours) kernels, not 3"
	same_bytes entries.ours entries.llvm
}

# ptx_is_llvms N GLOB OURS...: each PTX file LLVM 19's link wrote
# (llvm/prog.llvm.nvptx64-nvidia-cuda.sm_90GLOB.s), N of them, is one of
# OURS but for the numbers of its "callseq" comments, which LLVM counts
# across its threads.
ptx_is_llvms() {
	local want=$1 glob=$2 n=0 f o found
	shift 2
	norm() { sed -E 's/callseq [0-9]+/callseq N/g' "$1"; }
	for f in llvm/prog.llvm.nvptx64-nvidia-cuda.sm_90$glob.s; do
		found=0
		for o in "$@"; do
			cmp -s <(norm "$f") <(norm "$o") && found=1 && break
		done
		[ $found = 1 ] || fail "LLVM 19's $f is none of offlink's PTX files"
		n=$((n + 1))
	done
	[ $n = "$want" ] || fail "LLVM 19 wrote $n PTX files, not $want"
}
