#!/usr/bin/env bash
# Issue 9, items 4 and 5: temporary names are unique by construction.
#  4. Two groups whose triples read alike once made safe for a file name
#     (x86_64-pc_x-linux-gnu, x86_64-pc:x-linux-gnu) shared one .img: the
#     program embedded one image twice and lost the other.  Each group's
#     files now start with its index.
#  5. --save-temps used the fixed directory <output>.offlink-temps: two
#     concurrent links to one output shared its files (a corrupt program,
#     exit 0), and a symlink planted there was followed.  Each link now
#     makes a fresh directory of its own (mkdtemp), named under -v.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need nm

# ---- 4: two triples, one safe name ----
echo 'int only_in_a(void) { return 1; }' >a-dev.c
echo 'int only_in_b(void) { return 2; }' >b-dev.c
for x in a b; do
	check "device $x" clang-19 -fPIC -c $x-dev.c -o $x-dev.o
done
"$BIN/offlink-binary" -o a.bin --image=file=a-dev.o,triple=x86_64-pc_x-linux-gnu,arch=,kind=openmp
"$BIN/offlink-binary" -o b.bin --image=file=b-dev.o,triple=x86_64-pc:x-linux-gnu,arch=,kind=openmp
echo 'int host_a(void) { return 0; }' >a.c
echo 'int host_b(void) { return 0; }' >b.c
check "host a" clang-19 -fPIC -c a.c -o a.o -Xclang -fembed-offload-object=a.bin
check "host b" clang-19 -fPIC -c b.c -o b.o -Xclang -fembed-offload-object=b.bin
check "link" "$BIN/offlink" --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld \
	-shared -o libp.so a.o b.o
check "extract a" "$BIN/offlink-binary" libp.so --image=triple=x86_64-pc_x-linux-gnu,file=img-a.so
check "extract b" "$BIN/offlink-binary" libp.so --image=triple=x86_64-pc:x-linux-gnu,file=img-b.so
nm -D img-a.so | grep -q ' T only_in_a$' || fail "the image for x86_64-pc_x-linux-gnu lacks its code"
nm -D img-b.so | grep -q ' T only_in_b$' || fail "the image for x86_64-pc:x-linux-gnu lacks its code"
nm -D img-a.so | grep -q only_in_b && fail "the image for x86_64-pc_x-linux-gnu holds the other group's code"
echo "ok: two groups with alike names keep their own images"

# ---- 5: private --save-temps directories ----
cat >main.c <<'C'
#include <stdio.h>
int main(void) { int r = 0;
#pragma omp target map(from: r)
  r = VALUE;
  printf("%d\n", r); return 0; }
C
cc -DVALUE=1 -c main.c -o one.o
cc -DVALUE=2 -c main.c -o two.o
mkdir victim out
ln -s "$T/victim" out/prog.offlink-temps   # the old fixed name, planted
for round in $(seq 1 12); do
	rm -rf out/prog out/prog.offlink-temps.*
	clang++-19 "${OMP[@]}" -B "$COMPAT" one.o "${STUBLINK[@]}" -Xlinker --save-temps -o out/prog 2>one.err &
	p1=$!
	clang++-19 "${OMP[@]}" -B "$COMPAT" two.o "${STUBLINK[@]}" -Xlinker --save-temps -o out/prog 2>two.err &
	p2=$!
	wait $p1 || fail "round $round: link one failed: $(cat one.err)"
	wait $p2 || fail "round $round: link two failed: $(cat two.err)"
	run out/prog
	case "$(cat out/prog.out)" in
	1|2) ;;
	*) fail "round $round: the program printed '$(cat out/prog.out)'" ;;
	esac
	[ "$(ls -d out/prog.offlink-temps.* | wc -l)" = 2 ] ||
		fail "round $round: expected two private temporary directories: $(ls out)"
done
[ -z "$(ls -A victim)" ] || fail "a link wrote through the planted symlink: $(ls victim)"
no_leftovers out
echo "ok: 12 rounds of two concurrent --save-temps links"

# -v names the directory.
rm -rf out/prog.offlink-temps.*
clang++-19 "${OMP[@]}" -B "$COMPAT" one.o -Xlinker --save-temps -Xlinker -v -o out/prog 2>v.err ||
	fail "verbose link: $(cat v.err)"
dir=$(ls -d out/prog.offlink-temps.*)
contains v.err "temporary files kept in $dir"
echo "PASS: temporary names are unique by construction"
