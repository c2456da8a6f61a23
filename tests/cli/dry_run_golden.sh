#!/usr/bin/env bash
# --dry-run prints the plan (each device link, its images, where each came
# from and why it was taken) and every command, and runs nothing.  Compared
# with tests/golden/dry_run_*.txt after replacing the test directory by
# <T>, the temporary directory by <TMP>, clang's path by <CLANG> and the
# assembler's by <AS>.
# UPDATE_GOLDEN=1 rewrites the expected files.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19

golden=$OFFLINK_SRC/tests/golden
export TMPDIR=$T/tmp OFFLINK_CLANG=/usr/bin/clang-19
mkdir -p "$TMPDIR"

# Host objects carrying fixed device bytes, so sizes never change.
embed() { # OBJ SOURCE IMAGE-SPEC...
	local obj=$1 src=$2
	shift 2
	"$BIN/offlink-binary" -o "$obj.bin" "$@" || fail "package $obj"
	echo "$src" >"$obj.c"
	clang-19 -c "$obj.c" -o "$obj" -Xclang -fembed-offload-object="$obj.bin" || fail "embed $obj"
}
printf 'A-X86-DEVICE' >a-x86.o; printf 'A-ARM' >a-arm.o
printf 'K-X86-DEVICE-CODE' >k-x86.o; printf 'K-ARM-CODE' >k-arm.o
printf 'U-X86' >u-x86.o; printf 'RAW-IMAGE' >raw-x86.o
printf 'BC\xc0\xdeLTO-BITCODE' >l-x86.bc
X=triple=x86_64-pc-linux-gnu,arch=,kind=openmp
A=triple=aarch64-unknown-linux-gnu,arch=,kind=openmp
embed a.o 'int kern(int); int main(void) { return kern(1); }' \
	--image=file=a-x86.o,$X --image=file=a-arm.o,$A
embed k.o 'int kern(int x) { return x; }' --image=file=k-x86.o,$X --image=file=k-arm.o,$A
embed u.o 'int unused(int x) { return x; }' --image=file=u-x86.o,$X
embed l.o 'int lto_part(void) { return 0; }' --image=file=l-x86.bc,$X
"$BIN/offlink-binary" -o raw.bin --image=file=raw-x86.o,$X
ar rcs libk.a k.o u.o

run_case() { # NAME OFFLINK-ARGS...
	local name=$1
	shift
	"$BIN/offlink" --dry-run --host-triple=x86_64-pc-linux-gnu \
		--linker-path=/usr/bin/ld "$@" 2>"$name.raw" >/dev/null ||
		fail "$name: exit $? ($(cat "$name.raw"))"
	sed -e "s|$TMPDIR/offlink-XXXXXX|<TMP>|g" -e "s|$T|<T>|g" \
		-e "s|/usr/bin/clang-19|<CLANG>|g" -e "s|^/[^ ]*-as |<AS> |" "$name.raw" >"$name.txt"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$name.txt" "$golden/dry_run_$name.txt"
	fi
	diff -u "$golden/dry_run_$name.txt" "$name.txt" || fail "$name: plan differs from the golden file"
	[ -z "$(ls -A "$TMPDIR")" ] || fail "$name: --dry-run created files"
	[ ! -e prog ] || fail "$name: --dry-run wrote the output"
}

# Two CPU targets; a library whose used member is taken and unused member
# is not; a raw offload binary consumed (not passed to ld); -lm kept for
# the device links.
run_case basic -pie -o prog a.o -L. -lk -lm raw.bin

# Options: scoped and unscoped device-linker arguments (one with '=' in
# it), a device-compiler argument, -O3, -compress (clang 19's spelling)
# accepted, --whole-archive making every member count, -Bstatic.
run_case options -o prog --opt-level=O3 --wrapper-jobs=3 \
	--device-linker=--defsym=offlink_marker=1 \
	--device-linker=aarch64-unknown-linux-gnu=-zmax-page-size=65536 \
	--device-compiler=x86_64-pc-linux-gnu=-fno-exceptions -compress \
	a.o -Bstatic --whole-archive libk.a --no-whole-archive -Bdynamic -lm

# A bitcode device image: LTO through ld.lld; --save-temps names the
# files after the output, beside it.
run_case lto --save-temps -o prog a.o l.o -L. -lk

# A library named twice (clang's -lomptarget.devicertl and the user's):
# the member the first copy gives is linked, and is not listed as left out
# because of the second copy; u.o is listed as left out once.
run_case twice -o prog a.o -L. -lk -lk

# The registration as assembly, assembled by as, where the default
# (above) is the object offlink writes itself.
run_case asm --registration=asm -pie -o prog a.o -L. -lk -lm raw.bin
echo "PASS: dry-run plans match"
