#!/usr/bin/env bash
# Issue 19, item 4: an input that shrinks during the link.  offlink reads
# its inputs through mappings; a file truncated under one makes the next
# read of a vanished page fault (SIGBUS).  The link must end with an error
# naming the file, status 1, no output and no temporary left, instead of
# dying of the signal (status 135) with its temporary directory behind.
# The truncation happens in the middle of the link: the object carries
# device code for two x86_64 triples (two device links, run one at a
# time), and the clang offlink runs truncates it during the first device
# link, before offlink writes the second group's image from the mapping.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need truncate

cat >k.c <<'EOF2'
#include <stdio.h>
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 42;
  printf("r=%d\n", r);
  return 0;
}
EOF2
check "compile k.c" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,x86_64-unknown-linux-gnu -c k.c -o k.o
cp k.o keep.o
cat >shrinking-clang <<EOF2
#!/bin/sh
case " \$* " in *" -### "*) ;; *" -shared "*) truncate -s 0 "$T/k.o" ;; esac
exec clang-19 "\$@"
EOF2
chmod +x shrinking-clang
OFFLINK_CLANG=$T/shrinking-clang clang-19 -fopenmp \
	-fopenmp-targets=x86_64-pc-linux-gnu,x86_64-unknown-linux-gnu -B "$COMPAT" k.o -o prog \
	-Wl,--wrapper-jobs=1 2>err.txt
status=$?
[ $status = 1 ] || fail "the link ended with status $status, not 1: $(tail -3 err.txt)"
contains err.txt "k.o: the file shrank while offlink read it"
[ ! -e prog ] || fail "an output was written"
no_leftovers "$T"
[ -z "$(ls -A "$TMPDIR")" ] || fail "temporaries left: $(ls -A "$TMPDIR")"
# the same object, whole, links
cp keep.o k.o
clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,x86_64-unknown-linux-gnu -B "$COMPAT" k.o \
	-o prog || fail "the whole object does not link"
run prog
contains prog.out "r=42"
echo "PASS: an input that shrinks during the link is an error naming it"
