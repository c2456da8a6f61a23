#!/usr/bin/env bash
# One TU with dozens of target regions (and as many offload entries).
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"

{
	echo '#include <stdio.h>'
	echo '#include <omp.h>'
	for i in $(seq 1 48); do
		echo "static int region$i(int x) { int r = 0;"
		echo "#pragma omp target map(from: r)"
		echo "  r = x * $i + omp_is_initial_device() * 1000000;"
		echo "  return r; }"
	done
	echo 'int main(void) { long sum = 0; int initial = 1;'
	echo '#pragma omp target map(from: initial)'
	echo '  initial = omp_is_initial_device();'
	for i in $(seq 1 48); do echo "  sum += region$i(2);"; done
	echo '  printf("initial=%d sum=%ld\n", initial, sum); return 0; }'
} >many.c
cc -c many.c -o many.o
[ "$(llvm-readelf-19 -r many.o | grep -c '__omp_offloading_')" -ge 49 ] || fail "expected 49 entries"
same_as_llvm many many.o
contains many.out "sum=2352"
echo "PASS: 49 target regions"
