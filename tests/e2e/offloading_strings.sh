#!/usr/bin/env bash
# Issue 22, item 6: the offload binaries a linked program registers (its
# .llvm.offloading section) carry their string entries in the order each
# release's own wrapper writes them: triple, then arch (offlink wrote arch
# first).  For clang 16, 19 and 22, a program with an x86_64 target region
# for two triples (two images) is linked by the release's wrapper and by
# offlink; the sections' keys must agree image by image.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need llvm-objcopy-19
DEPS=$OFFLINK_SRC/deps

cat >k.c <<'C'
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 1;
  return r - 1;
}
C
keys() { # PROGRAM: the keys of each image in its .llvm.offloading
	llvm-objcopy-19 --dump-section .llvm.offloading="$1.sec" "$1" /dev/null ||
		fail "$1 has no .llvm.offloading section"
	"$HELP/ob_keys" "$1.sec" || fail "$1: its .llvm.offloading does not decode"
}
for n in 16 19 22; do
	need clang-$n
	case $n in
	16) lib=$DEPS/llvm16-omp/usr/lib/llvm-16/lib ;;
	*) lib=/usr/lib/llvm-19/lib ;;
	esac
	targets=(-fopenmp-targets=x86_64-pc-linux-gnu,x86_64-unknown-linux-gnu)
	check "clang-$n compile" clang-$n -fopenmp "${targets[@]}" -c k.c -o k$n.o
	# (linked, not run: the bytes are the point)
	clang-$n -fopenmp "${targets[@]}" k$n.o -L"$lib" -o llvm$n 2>llvm$n.err ||
		fail "LLVM $n's link: $(tail -3 llvm$n.err)"
	clang-$n -fopenmp "${targets[@]}" k$n.o -L"$lib" -B "$COMPAT" -o ours$n 2>ours$n.err ||
		fail "offlink's link (clang $n): $(tail -3 ours$n.err)"
	keys llvm$n | sort >llvm$n.keys
	keys ours$n | sort >ours$n.keys
	[ -s llvm$n.keys ] || fail "LLVM $n's program registers no image"
	diff -u llvm$n.keys ours$n.keys || fail "clang $n: the string entries differ from LLVM's"
	grep -qv '^triple arch$' ours$n.keys && fail "clang $n: keys other than 'triple arch': $(cat ours$n.keys)"
	echo "clang $n: $(wc -l <ours$n.keys) image(s), keys as LLVM's: $(head -1 ours$n.keys)"
done
echo "PASS: the registered offload binaries' strings in each release's order"
