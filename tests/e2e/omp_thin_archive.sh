#!/usr/bin/env bash
# Issue 9, item 8: thin archives (`ar rcT`: headers and index only, each
# member a file beside the archive) anywhere on the link line failed the
# whole link ("thin archives are not supported"), even a host library
# without device code; LLVM links them.  Now read with the same checks as
# regular archives: kernels from a thin archive are linked and run, a host
# thin library works in the device link too, the format tools read them,
# and a member file that is missing is an error naming archive and member.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need ar

mkdir -p lib/sub
cat >lib/sub/kern.c <<'C'
#include <omp.h>
#include <stdio.h>
int host_twice(int v);
int scale(int x) { int r = 0, initial = 1;
#pragma omp target map(from: r, initial)
  { r = 3 * x; initial = omp_is_initial_device(); }
  printf("initial=%d\n", initial);
  return host_twice(r); }
C
echo 'int host_twice(int v) { return 2 * v; }' >lib/twice.c
cat >main.c <<'C'
#include <stdio.h>
int scale(int);
int main(void) { printf("%d\n", scale(7)); return 0; }
C
cc -c lib/sub/kern.c -o lib/sub/kern.o
check "host object" clang-19 -c lib/twice.c -o lib/twice.o
cc -c main.c -o main.o
# The kernel's library is thin, with a member in a subdirectory (a long
# name); the host helper's library is thin too.
(cd lib && ar rcT libk.a sub/kern.o && ar rcT libtwice.a twice.o) || fail "ar rcT"
head -c 8 lib/libk.a | grep -q '!<thin>' || fail "libk.a is not a thin archive"

same_as_llvm prog main.o -Llib -lk -ltwice
contains prog.out 42
"$BIN/offlink-binary" --list lib/libk.a >list.txt || fail "offlink-binary --list of a thin archive"
contains list.txt "libk.a(sub/kern.o)"
echo "ok: kernels and a host library from thin archives"

# A member file that is gone.
mv lib/sub/kern.o lib/sub/kern.o.away
expect_status 1 clang++-19 "${OMP[@]}" -B "$COMPAT" main.o -Llib -lk -ltwice -o bad
contains "$T/stderr" "libk.a(sub/kern.o)"
contains "$T/stderr" "No such file or directory"
[ ! -e bad ] || fail "output written"
mv lib/sub/kern.o.away lib/sub/kern.o

# A truncated header.
head -c 70 lib/libk.a >lib/libcut.a
expect_status 1 "$BIN/offlink" --dry-run --linker-path=/usr/bin/ld main.o lib/libcut.a -o bad
contains "$T/stderr" "libcut.a"
contains "$T/stderr" "thin archive"
echo "PASS: thin archives"
