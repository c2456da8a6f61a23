#!/usr/bin/env bash
# Issue 13: the device-link cache.
#  - a relink with nothing changed, or after editing a host-only TU, runs
#    no device linker (-v) and gives a byte-identical program;
#  - a change to device code, to a tool (its file), or to an argument
#    misses;
#  - a damaged or truncated entry is noticed, removed and relinked: the
#    program is still right;
#  - the cap holds the cache's size, least recently used entries going;
#  - 8 links at a time sharing one cache for CACHE_ROUNDS rounds (default
#    100), alternating between two programs: every output is byte for byte
#    the program linked without a cache.
# Two CTest tests (OFFLINK_PART): the cases, and the shared rounds; by
# hand without OFFLINK_PART, both.
# ctest-parts: cases rounds
# ctest-cost: 30
# ctest-heavy: rounds
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need cmp truncate
C=$T/cache
export OFFLINK_CACHE_DIR=$C

cat >k.c <<'EOF'
int scale(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = 3 * x;
  return r;
}
EOF
cat >main.c <<'EOF'
#include <stdio.h>
int scale(int);
int main(void) { printf("r=%d\n", scale(14)); return 0; }
EOF
cc -c k.c -o k.o
cc -c main.c -o main.o

# link OUT ARGS...: through offlink, -v into OUT.v
link() {
	local out=$1
	shift
	clang-19 "${OMP[@]}" -B "$COMPAT" "$@" "${STUBLINK[@]}" -o "$out" -Wl,--wrapper-verbose 2>"$out.v" ||
		fail "link of $out: $(grep -v '^offlink:  ' "$out.v" | tail -3)"
}
# (the cache's own probe, clang ... -###, runs on a hit too: it is not a link)
device_linked() { grep -v -- "'-###'$" "$1.v" | grep -q -- "--target=x86_64-pc-linux-gnu .*-shared"; }
hit() {
	grep -q "device-link cache hit" "$1.v" || fail "$1: no cache hit: $(grep cache "$1.v")"
	device_linked "$1" && fail "$1: a device linker ran on a cache hit"
	return 0
}
miss() {
	grep -q "device-link cache miss" "$1.v" || fail "$1: no cache miss: $(grep cache "$1.v")"
	device_linked "$1" || fail "$1: no device link ran on a miss"
}

# (an entry: a file named by its 64-digit key in one of the 16 shards;
# beside them each shard's stats and the remembered digests)
entries() { find "$C" -path "$C/[0-9a-f]/*" -type f -regextype posix-extended -regex '.*/[0-9a-f]{64}' | sort; }

parts=${OFFLINK_PART:-cases rounds}
if [[ " $parts " = *" cases "* ]]; then
OFFLINK_CACHE_DIR=off link ref main.o k.o
grep -q "device-link cache" ref.v && fail "OFFLINK_CACHE_DIR=off still used a cache"
link cold main.o k.o
miss cold
link warm main.o k.o
hit warm
same_bytes ref cold
same_bytes ref warm
run warm
contains warm.out "r=42"
contains warm.v "(device-link cache: local hit)" # the plan says it too

# A host-only edit: main.c's device image does not change.
sed -i 's/r=%d/result=%d/' main.c
cc -c main.c -o main.o
link host_edit main.o k.o
hit host_edit
run host_edit
contains host_edit.out "result=42"

# Device code changed: a miss, and the new code runs.
sed -i 's/3 \* x/5 * x/' k.c
cc -c k.c -o k.o
link device_edit main.o k.o
miss device_edit
run device_edit
contains device_edit.out "result=70"

# A tool changed: the same clang behind a wrapper script.  A tool is its
# content: a new file time is the same tool, new bytes are a new one.
printf '#!/bin/sh\nexec clang-19 "$@"\n' >myclang
chmod +x myclang
OFFLINK_CLANG=$T/myclang link tool1 main.o k.o
miss tool1
OFFLINK_CLANG=$T/myclang link tool2 main.o k.o
hit tool2
touch -d '2001-01-01' myclang
OFFLINK_CLANG=$T/myclang link tool3 main.o k.o
hit tool3
printf '#!/bin/sh\n# another tool\nexec clang-19 "$@"\n' >myclang
OFFLINK_CLANG=$T/myclang link tool4 main.o k.o
miss tool4

# An argument changed.
link arg main.o k.o -Xoffload-linker --build-id=sha1
miss arg
link arg2 main.o k.o -Xoffload-linker --build-id=sha1
hit arg2

# Damaged entries are found, removed, and relinked.
key=$(grep -o 'device-link cache hit.*, entry [0-9a-f]*' arg2.v | grep -o '[0-9a-f]\{64\}')
entry=$(entries | grep "/$key")
[ -f "$entry" ] || fail "no cache entry for $key"
printf 'X' | dd of="$entry" bs=1 seek=200 conv=notrunc 2>/dev/null
link damaged main.o k.o -Xoffload-linker --build-id=sha1
grep -q "device-link cache miss: an entry failed its check" damaged.v || fail "a damaged entry was not noticed: $(grep cache damaged.v)"
device_linked damaged || fail "the damaged entry was used"
same_bytes arg damaged
link repaired main.o k.o -Xoffload-linker --build-id=sha1
hit repaired
truncate -s 100 "$entry"
link truncated main.o k.o -Xoffload-linker --build-id=sha1
grep -q "device-link cache miss: an entry failed its check" truncated.v || fail "a truncated entry was not noticed"
same_bytes arg truncated
run truncated
contains truncated.out "result=70"

# The cap: 48 KiB holds the two or three newest images of about 16 KiB.
rm -rf "$C"
for i in 1 2 3 4 5 6; do
	OFFLINK_CACHE_SIZE=48K link cap$i main.o k.o -Xoffload-linker --defsym=offlink_cap_$i=$i
done
total=$(entries | xargs stat -c %s | awk '{ s += $1 } END { print s + 0 }')
[ "$total" -le $((48 * 1024)) ] || fail "the cache holds $total bytes, over its 48 KiB cap"
OFFLINK_CACHE_SIZE=48K link cap6again main.o k.o -Xoffload-linker --defsym=offlink_cap_6=6
hit cap6again # the newest entry stays
OFFLINK_CACHE_SIZE=48K link cap1again main.o k.o -Xoffload-linker --defsym=offlink_cap_1=1
miss cap1again # the oldest went

fi

[[ " $parts " = *" rounds "* ]] || { echo "PASS: device-link cache ($parts)"; exit 0; }
# Many links at once sharing one cache, two programs alternating.
rm -rf "$C"
sed 's/[0-9] \* x/7 * x/' k.c >k2.c
cmp -s k.c k2.c && fail "k2.c is k.c"
cc -c k2.c -o k2.o
# (offlink run directly, with the command line clang would give it, and
# the stub's libomptarget first in the search, as in every link here: the
# rounds test offlink and its cache, not the clang driver's start-up)
OFFLINK_CACHE_DIR=off link refA main.o k.o
OFFLINK_CACHE_DIR=off link refB main.o k2.o
for j in 0 1 2 3 4 5 6 7; do
	for p in A B; do
		objs=(main.o k.o)
		[ $p = B ] && objs=(main.o k2.o)
		line=$(clang-19 "${OMP[@]}" -B "$COMPAT" "${objs[@]}" "${STUBLINK[@]}" -o par$j -### 2>&1 |
			grep -F '/clang-linker-wrapper"') || fail "no wrapper command from clang -###"
		echo "$line" >line$p$j
	done
done
rounds=${CACHE_ROUNDS:-100}
for ((r = 0; r < rounds; r++)); do
	pids=()
	for j in 0 1 2 3 4 5 6 7; do
		if (((r + j) % 2)); then p=A; else p=B; fi
		eval "argv=($(cat line$p$j))"
		("${argv[@]}" 2>par$j.err && cmp -s par$j ref$p) &
		pids+=($!)
	done
	for j in 0 1 2 3 4 5 6 7; do
		wait "${pids[$j]}" || fail "round $r, link $j: wrong output or failure: $(head -3 par$j.err)"
	done
done
# two images, their two manifests, and clang's answer (one: the two
# programs' device links run the same clang command)
[ "$(entries | wc -l)" = 5 ] || fail "after the shared rounds the cache holds $(entries | wc -l) entries, not 5"
[ -z "$(find "$C" -name '.*' -type f)" ] || fail "temporaries left in the cache: $(find "$C" -name '.*' -type f)"
echo "PASS: device-link cache ($rounds rounds of 8 links)"
