#!/usr/bin/env bash
# Issue 26, item 4: nothing is left after SIGKILL.  The watchdog removed
# the link's temporary directory only; a SIGKILL left the host linker's
# half-written output temporary beside the output (5 of 24 random trials)
# and a partial device-link cache temporary ".tmp.*" (4 of 24), which
# eviction removed an hour later.  Now everything offlink makes outside
# its temporary directory is told to the watchdog before it exists.
#
# First two kills at chosen moments (strace holds offlink at a system
# call, so the moment is certain): while the cache's temporary exists
# (its rename held), and while the host linker's output is beside the
# output; then SIGKILL at random moments of a whole link, 24 times.  After
# each, once the watchdog is done, nothing may be left beside the output,
# in the cache directory or in TMPDIR, and an output, if there is one, is
# the whole program.
# ctest-cost: 28
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need strace ld
ulimit -c 0
mkdir -p out

cat >k.c <<'C'
#include <stdio.h>
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = 42;
  printf("r=%d\n", r);
  return 0;
}
C
cc -c k.c -o k.o
# 32 MiB of data in the device image: the cache store and the host link
# take long enough for random kills to land in them.
head -c $((32 << 20)) /dev/urandom >blob
check "blob.o" ld -r -b binary blob -o blob.o
# offlink's command line, as clang-19 runs it, the runtime stub's
# libomptarget first in the search: it has the real one's soname, so the
# program runs on the real one, and GNU ld does not read libLLVM (the real
# one's dependency) in each of the 27 links, which kept them long.
. "$OFFLINK_SRC/tests/lib/stub.sh"
line=$(clang-19 "${OMP[@]}" -B "$COMPAT" k.o -Xoffload-linker "$T/blob.o" -L"$STUBDIR" -o out/prog -### 2>&1 |
	grep -F '/clang-linker-wrapper"') || fail "no wrapper command in clang's -###"
eval "WRAP=($line)"
WRAP[0]=$BIN/offlink

# settled CACHE WHAT: wait for the watchdog (it retries while the tools
# are being stopped), then nothing may be left.
settled() {
	local left=
	for _ in $(seq 1 100); do
		left=$(find out -maxdepth 1 -name '.*offlink*' 2>/dev/null
		       find "$1" -name '.tmp.*' 2>/dev/null
		       find "$TMPDIR" -mindepth 1 -maxdepth 1 2>/dev/null)
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ -z "$left" ] || fail "$2: left behind: $left"
	if [ -e out/prog ]; then
		cmp -s out/prog whole || fail "$2: out/prog is not the whole program"
		rm -f out/prog
	fi
}

# A whole link first: the program to compare with, and how long a link
# takes (to spread the random kills over it).
t0=$(date +%s%N)
OFFLINK_CACHE_DIR=$T/cache.whole "${WRAP[@]}" 2>whole.err || fail "the link failed: $(cat whole.err)"
t1=$(date +%s%N)
mv out/prog whole
LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY ./whole >whole.out ||
	fail "the program does not run"
contains whole.out "r=42"
ms=$(((t1 - t0) / 1000000))
echo "a whole link: $ms ms"

# held CALL WHAT PATTERN: run the link under strace, which holds every
# CALL for 5 s; SIGKILL offlink once PATTERN exists.
held() {
	local cache=$T/cache.$1 spid pid
	rm -f pid
	OFFLINK_CACHE_DIR=$cache strace -f -qq -o /dev/null -e trace="$1" \
		-e inject="$1":delay_enter=5000000 \
		sh -c 'echo $$ >pid; exec "$@"' sh "${WRAP[@]}" 2>held.err &
	spid=$!
	for _ in $(seq 1 600); do
		[ -s pid ] && compgen -G "$3" >/dev/null && break
		sleep 0.05
	done
	compgen -G "$3" >/dev/null || fail "$2: never saw $3 ($(cat held.err))"
	pid=$(cat pid)
	kill -KILL "$pid"
	wait "$spid"
	settled "$cache" "$2"
	echo "ok: SIGKILL $2"
}
held renameat "while the cache's temporary is written" "$T/cache.renameat/*/.tmp.*"
held rename "while the host linker's output is beside the output" "out/.*offlink*/prog"

# 24 random moments.
seed=${SEED:-$RANDOM}
RANDOM=$seed
echo "random kills, seed $seed"
killed=0
for i in $(seq 1 24); do
	delay=$((RANDOM * (ms + ms / 10) / 32768))
	OFFLINK_CACHE_DIR=$T/cache.$i "${WRAP[@]}" 2>/dev/null &
	pid=$!
	sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
	kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
	wait "$pid"
	settled "$T/cache.$i" "trial $i (SIGKILL after $delay ms)"
done
echo "ok: $killed of 24 links killed at random moments (the others had ended), nothing left"
echo "PASS: nothing left after SIGKILL"
