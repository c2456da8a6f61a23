#!/usr/bin/env bash
# Failures: each gives a clear message naming what failed, a non-zero exit,
# no output file and no temporary left behind -- including when offlink is
# interrupted in the middle of a device link.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"

export TMPDIR=$T/tmp
mkdir -p "$TMPDIR" out

cat >k.c <<'C'
int kern(int x) { int r = 0;
#pragma omp target map(from: r)
  r = x + 1;
  return r; }
C
echo 'int kern(int); int main(void) { return kern(1) != 2; }' >main.c
cc -c k.c -o k.o
check "main" clang-19 -c main.c -o main.o

# offlink invoked as clang invokes it, minus the C runtime: enough to fail.
wrap() {
	"$BIN/offlink" --host-triple=x86_64-pc-linux-gnu --linker-path=/usr/bin/ld "$@"
}
clean() {
	[ ! -e out/prog ] || fail "output written: $*"
	no_leftovers out
	[ -z "$(ls -A "$TMPDIR")" ] || fail "temporaries left in TMPDIR: $(ls -A "$TMPDIR")"
}

# 1. A missing input.
expect_status 1 wrap -o out/prog main.o nothere.o
contains "$T/stderr" "offlink: error: nothere.o"
contains "$T/stderr" "No such file or directory"
clean missing input

# 2. A missing library: every missing one is reported, then it stops.
expect_status 1 wrap -o out/prog main.o k.o -L. -lnothere -lalsomissing
contains "$T/stderr" "unable to find library -lnothere"
contains "$T/stderr" "unable to find library -lalsomissing"
clean missing library

# 3. A corrupt offload section in an archive member: file and member named.
printf 'DEV' >d.o
"$BIN/offlink-binary" -o bad.bin --image=file=d.o,triple=x86_64-pc-linux-gnu,kind=openmp
printf '\xff\xff\xff\x7f' | dd of=bad.bin bs=1 seek=48 conv=notrunc status=none
echo 'int helper(void) { return 0; }' >h.c
check "embed" clang-19 -c h.c -o h.o -Xclang -fembed-offload-object=bad.bin
ar rcs libbad.a h.o
expect_status 1 wrap -o out/prog main.o k.o -L. -lbad
contains "$T/stderr" "libbad.a(h.o)"
contains "$T/stderr" "field 'NumStrings'"
clean corrupt member

# 4. A device linker that fails: an x86_64 device object calling a function
# nothing defines, embedded as clang embeds device code.  The group and the
# tool are named, and the device linker's own message comes through.
echo 'extern int missing_on_device(int); int use(int x) { return missing_on_device(x); }' >dev.c
check "device object" clang-19 -fPIC -c dev.c -o dev.o
"$BIN/offlink-binary" -o dev.bin --image=file=dev.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp
check "embed" clang-19 -c h.c -o withdev.o -Xclang -fembed-offload-object=dev.bin
expect_status 1 clang++-19 "${OMP[@]}" -B "$COMPAT" main.o k.o withdev.o -o out/prog
contains "$T/stderr" "undefined reference to \`missing_on_device'"
contains "$T/stderr" "device link openmp x86_64-pc-linux-gnu: clang exited with status 1"
contains "$T/stderr" "(device code from k.o, withdev.o)"
clean device link failure

# A raw offload binary on the command line is device code for offlink,
# not an input for the host linker.
expect_status 1 clang++-19 "${OMP[@]}" -B "$COMPAT" main.o k.o dev.bin -o out/prog
contains "$T/stderr" "missing_on_device"
grep -q "dev.bin: file format not recognized" "$T/stderr" && fail "dev.bin reached the host linker"
clean raw binary input

# 5. The host linker's exit status passes through.
printf '#!/bin/sh\nexit 3\n' >failing-ld
chmod +x failing-ld
expect_status 3 "$BIN/offlink" --linker-path="$T/failing-ld" -o out/prog main.o k.o
contains "$T/stderr" "host link: failing-ld exited with status 3"
clean host link failure

# 6. No --linker-path: a usage error, not LLVM's "'' failed".
expect_status 2 "$BIN/offlink" -o out/prog main.o k.o
contains "$T/stderr" "no host linker: pass --linker-path"

# 7. SIGTERM in the middle of a device link: children stopped, every
# temporary removed, no output.
cat >slow-clang <<'SH'
#!/bin/sh
touch "$SLOW_MARK"
sleep 30
SH
chmod +x slow-clang
export SLOW_MARK=$T/started
# (offlink itself in the background: $! of a shell function is a subshell)
OFFLINK_CLANG=$T/slow-clang "$BIN/offlink" --host-triple=x86_64-pc-linux-gnu \
	--linker-path=/usr/bin/ld -o out/prog main.o k.o &
pid=$!
for _ in $(seq 1 100); do [ -e "$SLOW_MARK" ] && break; sleep 0.1; done
[ -e "$SLOW_MARK" ] || fail "the device link never started"
[ -n "$(ls -A "$TMPDIR")" ] || fail "expected a temporary directory during the link"
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 143 ] || fail "expected death by SIGTERM (143), got $status"
sleep 0.2
clean interrupted link
pgrep -f "$T/slow-clang" >/dev/null && fail "the device link is still running"
echo "PASS: failures are reported and leave nothing behind"
