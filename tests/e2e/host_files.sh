#!/usr/bin/env bash
# The files the host linker writes that name the output -- the dependency
# file, the map, lld's --reproduce, --time-trace -- name the user's output
# as LLVM's link does, not the temporary offlink links to.  A Makefile
# that includes the dependency file relinks the program when a library it
# links changes, and only then.
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need make ld.lld-19

cat >main.c <<'C'
#include <stdio.h>
int val(void);
int main(void) {
  int r = -1;
#pragma omp target map(from: r)
  r = 40;
  printf("r=%d val=%d\n", r, val());
  return 0;
}
C
lib() {
	echo "int val(void) { return $1; }" >val.c
	check "compile val.c" gcc -c val.c -o val.o
	rm -f libval.a
	check "archive" ar rcs libval.a val.o
}
cat >Makefile <<EOF
OMP = ${OMP[*]}
prog: main.o
	clang-19 \$(OMP) -B$COMPAT main.o -L. -lval -o \$@ -Wl,--dependency-file=prog.d
main.o: main.c
	clang-19 \$(OMP) -c main.c -o main.o
-include prog.d
EOF

# 1. make builds; the dependency file's rule is for prog.
lib 1
check "first make" make >make1.log 2>&1
run prog
contains prog.out "r=40 val=1"
[ "$(head -1 prog.d)" = "prog: \\" ] || fail "prog.d names $(head -1 prog.d), not prog"
grep -q 'offlink' prog.d && fail "prog.d names an offlink temporary: $(grep offlink prog.d)"
grep -q "^  ./libval.a \\\\\$" prog.d || fail "prog.d does not list ./libval.a: $(cat prog.d)"

# 2. nothing changed: nothing to do (LLVM's file names its registration
# object, deleted after the link, so there make relinks every time).
make >make2.log 2>&1 || fail "second make failed: $(cat make2.log)"
contains make2.log "'prog' is up to date"

# 3. the library changes: make relinks, and the program has the new code.
lib 2
touch -d "@$(($(stat -c %Y prog) + 5))" libval.a
make >make3.log 2>&1 || fail "third make failed: $(cat make3.log)"
grep -q "up to date" make3.log && fail "make did not relink after libval.a changed: $(cat make3.log)"
run prog
contains prog.out "r=40 val=2"

# 4. beside LLVM's own wrapper: the same rule, the same files but LLVM's
# temporary registration object.
mkdir llvm
(cd llvm && cp ../main.o ../libval.a . &&
	clang-19 "${OMP[@]}" main.o -L. -lval -o prog -Wl,--dependency-file=prog.d \
		-Wl,-Map=prog.map) || fail "LLVM's link"
check "offlink link with a map" clang-19 "${OMP[@]}" -B "$COMPAT" main.o -L. -lval -o prog \
	-Wl,--dependency-file=prog.d -Wl,-Map=prog.map
grep -v "^ *$TMPDIR/" llvm/prog.d | grep -v "^$TMPDIR/.*:$" | cat -s >llvm.d
cat -s prog.d >ours.d
diff -u llvm.d ours.d || fail "the dependency file differs from LLVM's"
contains llvm/prog.map "OUTPUT(prog elf64-x86-64)"
contains prog.map "OUTPUT(prog elf64-x86-64)"
grep -q "\.offlink-" prog.map && fail "the map names an offlink temporary"

# 5. GNU ld's maps named after the output: in a directory, with '%', and
# printed (-M).
mkdir -p maps sub
check "-Map=DIR" clang-19 "${OMP[@]}" -B "$COMPAT" main.o -L. -lval -o sub/p1 -Wl,-Map=maps
contains maps/p1.map "OUTPUT(sub/p1 elf64-x86-64)"
check "-Map=%" clang-19 "${OMP[@]}" -B "$COMPAT" main.o -L. -lval -o sub/p2 -Wl,-Map=%.txt
contains sub/p2.txt "OUTPUT(sub/p2 elf64-x86-64)"
clang-19 "${OMP[@]}" -B "$COMPAT" main.o -L. -lval -o sub/p3 -Wl,-M >m.out ||
	fail "-M link failed"
contains m.out "OUTPUT(sub/p3 elf64-x86-64)"
grep -q "\.offlink-" m.out && fail "-M printed an offlink temporary"

# 6. lld: its dependency file (which escapes names) in a directory with
# a space, '#' and '$'; --reproduce names the output; --time-trace is
# written beside it; --why-extract names inputs only.
d='sp ace#$x'
mkdir -p "$d"
check "lld link" clang-19 "${OMP[@]}" -B "$COMPAT" -fuse-ld=lld main.o -L. -lval -o "$d/prog" \
	"-Wl,--dependency-file=$d/prog.d" -Wl,--reproduce=repro.tar -Wl,--time-trace \
	-Wl,--why-extract=why.txt
[ "$(head -1 "$d/prog.d")" = "$d/prog: \\" ] || fail "lld's prog.d names $(head -1 "$d/prog.d")"
grep -q offlink "$d/prog.d" && fail "lld's prog.d names an offlink temporary"
[ -f "$d/prog.time-trace" ] || fail "--time-trace was not written beside the output: $(ls -A "$d")"
tar xOf repro.tar repro/response.txt >response.txt || fail "no response.txt in the reproduce tar"
contains response.txt "-o prog"
grep -q "\.offlink-" why.txt && fail "--why-extract names an offlink temporary"
"./$d/prog" >/dev/null || fail "the lld-linked program does not run"

# 7. a failed link writes no dependency file and leaves nothing.
rm -f bad.d
echo 'int nothing;' >other.c
check "compile other.c" gcc -c other.c -o other.o
expect_status 1 clang-19 "${OMP[@]}" -B "$COMPAT" main.o other.o -o bad -Wl,--dependency-file=bad.d
[ -e bad.d ] && fail "a failed link wrote its dependency file"
[ -e bad ] && fail "a failed link wrote its output"

for dir in . sub maps "$d"; do
	no_leftovers "$dir"
done
echo "PASS: host files name the output"
