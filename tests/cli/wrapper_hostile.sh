#!/usr/bin/env bash
# Issue 9, item 1: no string from an input reaches the generated
# registration source except escaped.  wrap_hostile feeds the strings a
# hostile input can carry (the tester's comment-closing triple, a BSD
# member name, an output path through "d*", every byte value, trigraphs,
# reserved names) through the OpenMP, SYCL, CUDA and HIP generators, compiles
# each result with -Wall -Wextra -Werror, and checks that the object has
# exactly the symbols of a harmless build and carries each string byte for
# byte (tests/lib/wrap_oracle.h).  Run with every clang release installed,
# one CTest test each (OFFLINK_PART; by hand without it, all three).
# ctest-parts: 16 19 22
# ctest-cost: 12
. "$OFFLINK_SRC/tests/lib/testlib.sh"

need clang-19
ran=0
for v in ${OFFLINK_PART:-16 19 22}; do
	if ! command -v clang-$v >/dev/null; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang-$v is missing"
		echo "SKIP (part): clang-$v is not installed"
		continue
	fi
	mkdir "$T/clang-$v"
	"$HELP/wrap_hostile" clang-$v "$T/clang-$v" >"$T/out-$v" 2>&1
	status=$?
	sed "s/^/clang-$v: /" "$T/out-$v"
	[ $status -eq 0 ] || fail "clang-$v: the generated registration source is not safe"
	ran=$((ran + 1))
done
echo "checked with $ran clang releases"
