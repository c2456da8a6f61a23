#!/usr/bin/env bash
# Issue 26, item 5: switches from the environment mean what they say.
# OFFLINK_DRY_RUN=no turned dry-run on (the link exited 0 and wrote
# nothing, leaving an old program in place), OFFLINK_VERBOSE=false turned
# verbose on, OFFLINK_LLVM=99999999999999999999 was "LLVM 4294967295" and
# 19abc "LLVM 0".  Booleans are 1/0, true/false, yes/no, on/off in any
# case; anything else, and a number that is not only digits in range, is
# a usage error (exit 2) naming the variable, with no output written.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 gcc

printf 'DEV' >dev.o
echo 'int f(void) { return 0; }' >h.c
"$BIN/offlink-binary" -o x86.bin --image=file=dev.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp
clang-19 -c h.c -o x86.o -Xclang -fembed-offload-object=x86.bin || fail "embed"
echo 'int main(void) { return 0; }' >m.c
check "compile m.c" gcc -c m.c -o m.o
# A link with no device code: the host linker (gcc) runs, nothing else.
link() { "$BIN/offlink" --linker-path="$(command -v gcc)" m.o -o prog "$@"; }

for v in 0 no No false FALSE off Off ""; do
	rm -f prog
	OFFLINK_DRY_RUN=$v expect_status 0 link
	[ -x prog ] || fail "OFFLINK_DRY_RUN='$v' did not link"
done
for v in 1 yes YES true True on ON; do
	rm -f prog
	OFFLINK_DRY_RUN=$v expect_status 0 link
	[ -e prog ] && fail "OFFLINK_DRY_RUN='$v' linked"
	contains "$T/stderr" "offlink: plan for"
done

for v in 0 no false off OFF; do
	OFFLINK_VERBOSE=$v expect_status 0 link
	grep -q "offlink: plan for" "$T/stderr" && fail "OFFLINK_VERBOSE='$v' printed the plan"
done
OFFLINK_VERBOSE=yes expect_status 0 link
contains "$T/stderr" "offlink: plan for"

# Neither yes nor no: an error naming the variable; no output.
for var in OFFLINK_DRY_RUN OFFLINK_VERBOSE OFFLINK_CACHE_SHARED OFFLINK_CACHE_EXPLAIN; do
	for v in 2 maybe "yes " enabled -1; do
		rm -f prog
		env "$var=$v" "$BIN/offlink" --linker-path="$(command -v gcc)" m.o -o prog \
			2>"$T/stderr" >/dev/null
		got=$?
		[ "$got" = 2 ] || fail "$var='$v': exit $got, not 2: $(cat "$T/stderr")"
		contains "$T/stderr" "$var=$v: expected 1, 0, true, false, yes, no, on or off"
		[ -e prog ] && fail "$var='$v' wrote the output"
	done
done
# Two bad switches: both reported.
OFFLINK_DRY_RUN=nope OFFLINK_VERBOSE=sure expect_status 2 link
contains "$T/stderr" "OFFLINK_DRY_RUN=nope"
contains "$T/stderr" "OFFLINK_VERBOSE=sure"
# The value is the user's text: escaped on the terminal.
OFFLINK_DRY_RUN=$'\033]0;x\007' expect_status 2 link
grep -q $'\033' "$T/stderr" && fail "a control byte from the environment reached the terminal"
contains "$T/stderr" 'OFFLINK_DRY_RUN=\033'

# Release numbers: digits only, in range; else an existing directory.
for v in 19abc 99999999999999999999 4294967315 0 -19 " 19" 1e2 nonexistent/bin; do
	rm -f out.so
	OFFLINK_LLVM=$v expect_status 2 "$BIN/offlink" --linker-path=/usr/bin/ld -shared -o out.so x86.o
	contains "$T/stderr" "OFFLINK_LLVM=$v: expected an LLVM release number"
	[ -e out.so ] && fail "OFFLINK_LLVM='$v' linked"
	expect_status 2 "$BIN/offlink" --llvm="$v" --linker-path=/usr/bin/ld -shared -o out.so x86.o
	contains "$T/stderr" "--llvm=$v: expected an LLVM release number"
	OFFLINK_LLVM=$v expect_status 2 "$BIN/offlink-binary" -o o.bin \
		--image=file=dev.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp
	contains "$T/stderr" "expected an LLVM release number"
done
OFFLINK_LLVM=19 expect_status 0 "$BIN/offlink" --linker-path=/usr/bin/ld --dry-run -shared -o out.so x86.o
contains "$T/stderr" "LLVM 19"
OFFLINK_LLVM=/usr/lib/llvm-19/bin expect_status 0 "$BIN/offlink" --linker-path=/usr/bin/ld \
	--dry-run -shared -o out.so x86.o
contains "$T/stderr" "LLVM 19"
no_leftovers .
echo "PASS: environment switches"
