#!/usr/bin/env bash
# Issue 44, item 11: a status line while the device links run, as ninja
# draws one.  A ThinLTO link for sm_90 (a thin link, three backends, four
# ptxas runs, nvlink):
#   - under a pseudo-terminal (script -qc) the line is drawn, rewritten
#     in place ("\r...\e[K"): commands ended of all, what runs and for how
#     long; it is erased before the link ends;
#   - with stderr a file, nothing new: the same bytes as --progress=never;
#   - --progress=never, OFFLINK_PROGRESS=never and -v draw nothing on a
#     terminal; --progress=always draws into a file; a value that is none
#     of auto, always and never is a usage error naming it.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 script
need_cuda ptxas nvlink
NV=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90
    --cuda-path="$CUDA" -Wno-unknown-cuda-version --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib
    -Wno-unused-command-line-argument)
for f in a b main; do
	cat >$f.c <<EOF
int twice_$f(int x);
#pragma omp declare target to(twice_$f)
int twice_$f(int x) { return 2 * x; }
int run_$f(int v) {
  int r = 0;
#pragma omp target map(from: r)
  r = twice_$f(v);
  return r;
}
EOF
done
echo 'int run_a(int), run_b(int); int main(void) { return run_a(1) + run_b(2) - 6; }' >>main.c
for f in a b main; do
	check "compile $f.c" clang-19 "${NV[@]}" -O2 -foffload-lto=thin -c $f.c -o $f.o
done
# link OUT [ARGS...]: the thin link, uncached (every step runs)
LINK=(clang-19 "${NV[@]}" -foffload-lto=thin -B "$COMPAT" a.o b.o main.o -Wl,--no-cache)
q() { printf '%q ' "$@"; }
# on_tty OUT [ARGS...]: the link under a pseudo-terminal; what the terminal got in OUT.tty
on_tty() {
	local out=$1
	shift
	script -qec "$(q "${LINK[@]}" -o "$out" "$@")" /dev/null >"$out.tty" </dev/null ||
		fail "$out: the link under a terminal: $(cat -v "$out.tty" | tail -5)"
}

on_tty drawn
# [done/total], the step running, rewritten in place, erased at the end
grep -aq $'\r\\[[0-9]*/9\\] [0-9]*s device link openmp nvptx64-nvidia-cuda sm_90 (' drawn.tty ||
	fail "no status line on the terminal: $(cat -v drawn.tty | head -c 600)"
grep -aq $'\033\\[K' drawn.tty || fail "the line is not rewritten in place: $(cat -v drawn.tty | head -c 600)"
[ "$(tail -c 4 drawn.tty | od -An -c | tr -d ' ')" = '\r033[K' ] ||
	fail "the line is not erased at the end: $(tail -c 80 drawn.tty | cat -v)"
echo "ok: a ThinLTO link on a terminal shows its status line"

"${LINK[@]}" -o file 2>file.err || fail "the link with stderr a file: $(cat file.err)"
"${LINK[@]}" -o never -Wl,--progress=never 2>never.err || fail "--progress=never: $(cat never.err)"
same_bytes file.err never.err
[ ! -s file.err ] || fail "the link wrote to a file: $(cat -v file.err)"
echo "ok: stderr a file: nothing new"

on_tty off1 -Wl,--progress=never
OFFLINK_PROGRESS=never on_tty off2
on_tty off3 -Wl,--wrapper-verbose
for o in off1 off2 off3; do
	grep -aq $'\r\\[[0-9]*/' $o.tty && fail "$o: a status line was drawn: $(cat -v $o.tty | head -c 400)"
done
OFFLINK_PROGRESS=always "${LINK[@]}" -o always 2>always.err || fail "--progress=always: $(cat always.err)"
grep -aq $'\r\\[[0-9]*/9\\]' always.err || fail "OFFLINK_PROGRESS=always drew nothing into the file"
expect_status 2 env OFFLINK_PROGRESS=sometimes "${LINK[@]}" -o bad
contains "$T/stderr" "OFFLINK_PROGRESS=sometimes: expected auto, always or never"
[ ! -e bad ] || fail "a refused link wrote its output"
echo "ok: never, OFFLINK_PROGRESS, -v and always; a bad value is refused"
echo PASS
