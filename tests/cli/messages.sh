#!/usr/bin/env bash
# Issue 9, item 10: the smaller failures.  An unwritable
# --wrapper-time-trace is an error before anything is linked (it was
# ignored); an @file that is a directory or includes itself is an error
# (it read as empty, or stopped at 20 levels); a temporary directory that
# cannot be made says why; errors about a device link name the input the
# code came from, and bytes from inputs reach the terminal escaped.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19

printf 'DEV' >dev.o
echo 'int f(void) { return 0; }' >h.c
wrap() { "$BIN/offlink" --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld "$@"; }
"$BIN/offlink-binary" -o x86.bin --image=file=dev.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp
clang-19 -c h.c -o x86.o -Xclang -fembed-offload-object=x86.bin || fail "embed"

# --wrapper-time-trace into a directory that does not exist.
expect_status 1 wrap --wrapper-time-trace="$T/none/trace.json" -shared -o out.so x86.o
contains "$T/stderr" "none/trace.json"
contains "$T/stderr" "No such file or directory"
[ ! -e out.so ] || fail "linked despite the unwritable time trace"

# @file: a directory, a file that includes itself.
mkdir rspdir
expect_status 1 wrap @rspdir -o out.so
contains "$T/stderr" "rspdir"
contains "$T/stderr" "Is a directory"
echo "-shared @self.rsp" >self.rsp
expect_status 2 wrap @self.rsp -o out.so
contains "$T/stderr" "recursive expansion of the response file self.rsp"

# No temporary directory: the reason is given.
TMPDIR=$T/none expect_status 1 wrap -shared -o out.so x86.o
contains "$T/stderr" "cannot create a temporary directory in $T/none: No such file or directory"

# An unsupported triple with terminal control bytes: the file is named,
# the bytes are escaped, none reaches the terminal raw.
"$BIN/offlink-binary" -o evil.bin \
	--image=file=dev.o,"$(printf 'triple=riscv32-\033]0;pwned\007-elf')",arch=,kind=openmp
clang-19 -c h.c -o evil.o -Xclang -fembed-offload-object=evil.bin || fail "embed"
expect_status 1 wrap -shared -o out.so evil.o
contains "$T/stderr" "is not supported (device code from evil.o)"
contains "$T/stderr" 'riscv32-\033]0;pwned\007-elf'
LC_ALL=C grep -q "$(printf '\033')" "$T/stderr" && fail "a raw escape byte reached the terminal"
expect_status 1 wrap -v -shared -o out.so evil.o
LC_ALL=C grep -q "$(printf '\033')" "$T/stderr" && fail "a raw escape byte reached the terminal (-v)"
echo "PASS: small failures reported, input bytes escaped"
