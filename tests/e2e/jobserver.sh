#!/usr/bin/env bash
# Issue 13: under make -j, offlink's device links take make's job slots
# instead of starting one per CPU on top of make's own jobs.  A link of
# three device groups (x86_64 code under three triple spellings: two from
# clang, one repackaged as a raw offload binary) runs through
# a clang that logs when each device link starts and ends and takes a
# second; from the log, the most device links running at once:
#  - make -j4, the link alone: 3 (more than this machine's CPUs: the slots
#    are make's to give);
#  - make -j2 with a second recipe busy for the whole link: 1 (the link
#    holds one slot, the other recipe the other);
#  - the same with --wrapper-jobs=2: 2 (a number given wins);
#  - make -j2, the link alone, --wrapper-jobs=jobserver (LLVM 22's
#    spelling): 2.
# make must end without complaining about lost tokens.
# MAKEFLAGS naming a jobserver that is not one (issue 19, item 3): a
# regular file as the FIFO (its bytes were read as tokens and written
# back reordered), descriptors on a file and a log (the log was appended
# to), a FIFO the user may write but not read (the open hung): each link
# warns once, runs with its own parallelism, and leaves the files as they
# were.
# ctest-cost: 17
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need make awk
export OFFLINK_CACHE_DIR=off

T2=(-fopenmp-targets=x86_64-pc-linux-gnu,x86_64-unknown-linux-gnu)
clang-19 -fopenmp "${T2[@]}" -c "$OFFLINK_SRC/tests/e2e/matrix/one.c" -o one.o ||
	fail "compile one.c"
check "extract" "$BIN/offlink-binary" one.o --image=file=dev.o,triple=x86_64-pc-linux-gnu
check "repackage" "$BIN/offlink-binary" -o third.bin \
	--image=file=dev.o,triple=x86_64-suse-linux-gnu,kind=openmp
cat >slowclang <<EOF
#!/bin/sh
# a device link (-shared) is logged and takes a second; the rest is clang
case " \$* " in
*" -shared "*)
	echo "start \$(date +%s.%N)" >>"$T/log"
	sleep 1
	clang-19 "\$@"; s=\$?
	echo "end \$(date +%s.%N)" >>"$T/log"
	exit \$s ;;
esac
exec clang-19 "\$@"
EOF
chmod +x slowclang
line=$(clang-19 -fopenmp "${T2[@]}" -B "$COMPAT" one.o third.bin -o prog -### 2>&1 |
	grep -F '/clang-linker-wrapper"') || fail "no wrapper command"
printf 'OFFLINK = %s\n' "$line" >Makefile
cat >>Makefile <<'EOF'
link:
	+OFFLINK_CLANG=$(CURDIR)/slowclang $(OFFLINK) $(EXTRA)
busy:
	sleep 5
EOF

# most_at_once: the largest number of device links running together.
most_at_once() {
	sort -k2 -g log | awk '$1 == "start" { n++; if (n > m) m = n } $1 == "end" { n-- } END { print m + 0 }'
}

# run_make LABEL WANT MAKE-ARGS...
run_make() {
	local label=$1 want=$2 got
	shift 2
	rm -f log prog
	make "$@" >make.out 2>&1 || fail "$label: make failed: $(tail -5 make.out)"
	[ -x prog ] || fail "$label: no program"
	grep -qi "jobserver tokens\|INTERNAL" make.out && fail "$label: make lost tokens: $(cat make.out)"
	got=$(most_at_once)
	[ "$got" = "$want" ] || fail "$label: $got device links at once, want $want"
	echo "$label: $got device links at once"
}

run_make "make -j4, the link alone" 3 -j4 link
run_make "make -j2, beside a busy recipe" 1 -j2 busy link
run_make "make -j2, beside a busy recipe, --wrapper-jobs=2" 2 -j2 busy link EXTRA=--wrapper-jobs=2
run_make "make -j2, --wrapper-jobs=jobserver" 2 -j2 link EXTRA=--wrapper-jobs=jobserver

# run_flags LABEL MAKEFLAGS [USER]: the link run directly with MAKEFLAGS.
run_flags() {
	local label=$1 flags=$2
	shift 2
	rm -f prog
	eval "argv=($line)"
	MAKEFLAGS=$flags timeout 120 "$@" "${argv[@]}" 2>flags.err ||
		fail "$label: the link failed or hung (exit $?): $(tail -3 flags.err)"
	[ -x prog ] || fail "$label: no program"
	[ "$(grep -c 'jobserver that offlink does not use' flags.err)" = 1 ] ||
		fail "$label: expected one warning: $(cat flags.err)"
}
printf 'ABCDEFGH' >tokens
run_flags "fifo: a regular file" "-j4 --jobserver-auth=fifo:$T/tokens"
[ "$(cat tokens)" = ABCDEFGH ] || fail "the regular file named as the jobserver changed: $(cat tokens)"
: >log.txt
exec 3<tokens 4>>log.txt
run_flags "descriptors on a file and a log" "-j4 --jobserver-auth=3,4"
exec 3<&- 4>&-
[ ! -s log.txt ] || fail "the log named as the jobserver was written: $(od -c log.txt | head -2)"
[ "$(cat tokens)" = ABCDEFGH ] || fail "the file named as the jobserver changed"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# (as nobody: root may read any FIFO)
	mkfifo -m 622 wonly
	chmod 777 "$T" "$T/tmp"
	run_flags "a FIFO that can be written, not read" "-j4 --jobserver-auth=fifo:$T/wonly" \
		setpriv --reuid=65534 --regid=65534 --clear-groups
	chmod 700 "$T" "$T/tmp"
else
	[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "the unreadable-FIFO case needs root (setpriv)"
	echo "SKIP: the unreadable-FIFO case needs root to act as another user"
fi
echo "PASS: device links share make's job slots"
