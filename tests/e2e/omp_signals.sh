#!/usr/bin/env bash
# Issue 9, item 3: device linkers die with offlink, however it is stopped.
# A fake device linker (OFFLINK_CLANG) starts a grandchild and both wait;
# offlink is then stopped
#   - by SIGTERM, SIGINT, SIGHUP or SIGQUIT sent to offlink alone: the
#     signal is forwarded to the whole tool tree, temporaries are removed,
#     offlink dies of that signal;
#   - by SIGQUIT or SIGKILL sent to its process group (Ctrl-\,
#     `timeout -s KILL`): the tools share the group and die with it;
#   - by SIGKILL sent to offlink alone (the OOM killer): the tool it
#     started gets its parent-death signal.
# Before the fix, each child led its own process group and only TERM, INT
# and HUP were forwarded.
# Issue 19, item 5: with HARD=1 the fake linker also starts a child that
# ignores SIGTERM and a daemon (setsid, its parent gone); after SIGTERM or
# SIGHUP to offlink, SIGKILL to offlink alone or to its process group,
# every one of them is gone (the tool's guard reaps the daemon and kills
# the tree after a grace), and after a SIGKILL the temporary directory is
# removed too (by the link's watchdog).
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need setsid timeout env

ulimit -c 0
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR" out
cat >k.c <<'C'
int kern(int x) { int r = 0;
#pragma omp target map(from: r)
  r = x + 1;
  return r; }
C
cc -c k.c -o k.o

# The fake device linker: a shell that starts a grandchild (sleep), or,
# with EXEC=1, becomes sleep itself.
# Each pid file appears whole (written, then renamed): the test must not
# read one that exists but is still empty.
cat >slow-clang <<'SH'
#!/bin/sh
echo $$ >"$MARK.tool.w" && mv "$MARK.tool.w" "$MARK.tool"
if [ "${EXEC:-0}" = 1 ]; then exec sleep 60; fi
if [ "${HARD:-0}" = 1 ]; then
	env --ignore-signal=TERM sleep 60 &
	echo $! >"$MARK.stubborn.w" && mv "$MARK.stubborn.w" "$MARK.stubborn"
	(setsid env --ignore-signal=TERM sleep 60 &
	 echo $! >"$MARK.daemon.w" && mv "$MARK.daemon.w" "$MARK.daemon")
fi
env --default-signal sleep 60 &  # (& alone would ignore SIGINT)
echo $! >"$MARK.grandchild.w" && mv "$MARK.grandchild.w" "$MARK.grandchild"
wait
SH
chmod +x slow-clang

# alive PID: the process exists and is not a zombie.
alive() {
	local st
	# (read once: the process may end between two looks)
	[ -n "$1" ] && st=$(cat "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] &&
		! [[ $st =~ ^[0-9]+\ \(.*\)\ Z ]]
}

# start [setsid]: offlink in the background; $pid is offlink, and the
# tool's pids are in $MARK.*
start() {
	export MARK=$T/mark.$RANDOM
	# (a background job of a script starts with SIGINT and SIGQUIT
	# ignored, which offlink respects: give it the defaults)
	OFFLINK_CLANG=$T/slow-clang $1 env --default-signal "$BIN/offlink" --host-triple=x86_64-pc-linux-gnu \
		--linker-path=/usr/bin/ld -o out/prog k.o &
	pid=$!
	for _ in $(seq 1 100); do
		[ -e "$MARK.tool" ] && { [ "${EXEC:-0}" = 1 ] || [ -e "$MARK.grandchild" ]; } &&
			{ [ "${HARD:-0}" = 0 ] || [ -e "$MARK.daemon" ]; } && break
		sleep 0.1
	done
	[ -e "$MARK.tool" ] || fail "the device link never started"
}

# gone WHAT: every process of the tool tree is gone (within 5 s: the
# guard's grace is 1 s).
gone() {
	local p
	for f in "$MARK.tool" "$MARK.grandchild" "$MARK.stubborn" "$MARK.daemon"; do
		[ -e "$f" ] || continue
		p=$(cat "$f")
		for _ in $(seq 1 50); do alive "$p" || break; sleep 0.1; done
		alive "$p" && { kill -9 "$p"; fail "$1: process $p ($(basename "$f" | sed 's/.*\.//')) survived"; }
	done
	return 0
}

clean() {
	[ ! -e out/prog ] || fail "$1: output written"
	no_leftovers out
	[ -z "$(ls -A "$TMPDIR")" ] || fail "$1: temporaries left in TMPDIR: $(ls -A "$TMPDIR")"
}

# Signals sent to offlink alone.
for sig in TERM INT HUP QUIT; do
	start ""
	kill -s $sig $pid
	wait $pid
	status=$?
	want=$((128 + $(kill -l $sig)))
	[ $status -eq $want ] || fail "SIG$sig to offlink: exit $status, want $want"
	gone "SIG$sig to offlink"
	clean "SIG$sig to offlink"
	echo "ok: SIG$sig to offlink alone"
done

# Signals sent to the link's process group (offlink leads it under setsid,
# as a shell job would).
for sig in QUIT KILL; do
	start setsid
	kill -s $sig -- -$pid
	wait $pid
	gone "SIG$sig to the process group"
	[ $sig = KILL ] || clean "SIG$sig to the process group"
	rm -rf "${TMPDIR:?}"/* out/.*offlink* 2>/dev/null
	echo "ok: SIG$sig to the process group"
done

# timeout -s KILL, as the hostile tester ran it.
export MARK=$T/mark.timeout
OFFLINK_CLANG=$T/slow-clang timeout -s KILL 2 "$BIN/offlink" --host-triple=x86_64-pc-linux-gnu \
	--linker-path=/usr/bin/ld -o out/prog k.o
status=$?
[ $status -eq 137 ] || fail "timeout -s KILL: exit $status, want 137"
gone "timeout -s KILL"
rm -rf "${TMPDIR:?}"/*
echo "ok: timeout -s KILL"

# SIGKILL to offlink alone: the tool it started dies of its parent-death
# signal (a tool's own children are the tool's; see docs/security.md).
EXEC=1 start ""
kill -s KILL $pid
wait $pid
gone "SIGKILL to offlink alone"
rm -rf "${TMPDIR:?}"/*
echo "ok: SIGKILL to offlink alone"
# Tools that leave a stubborn child and a daemon behind.
export HARD=1
for sig in TERM HUP; do
	start ""
	kill -s $sig $pid
	wait $pid
	gone "SIG$sig to offlink, a child ignoring SIGTERM and a daemon"
	clean "SIG$sig to offlink, a child ignoring SIGTERM and a daemon"
	echo "ok: SIG$sig to offlink alone: the stubborn child and the daemon are gone"
done
# no_temporaries WHAT: the watchdog removed the temporary directory
no_temporaries() {
	for _ in $(seq 1 50); do [ -z "$(ls -A "$TMPDIR")" ] && return; sleep 0.1; done
	fail "$1: temporaries left in TMPDIR: $(ls -A "$TMPDIR")"
}
start ""
kill -s KILL $pid
wait $pid
gone "SIGKILL to offlink alone, a child ignoring SIGTERM and a daemon"
no_temporaries "SIGKILL to offlink alone"
echo "ok: SIGKILL to offlink alone: the tool's tree and the temporaries are gone"
start setsid
kill -s KILL -- -$pid
wait $pid
gone "SIGKILL to the process group, a child ignoring SIGTERM and a daemon"
no_temporaries "SIGKILL to the process group"
rm -rf out/.*offlink* 2>/dev/null
echo "ok: SIGKILL to the process group: the daemon and the temporaries are gone"
unset HARD
echo "PASS: no device linker outlives offlink"
