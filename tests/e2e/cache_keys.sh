#!/usr/bin/env bash
# Issue 17, item 2: every ingredient of a device-link key changes it, and
# nothing machine-specific does.  Each check links through offlink with
# -v and compares the group key it prints ("key <16 hex>"):
#   changes the key: a device library on -L changed in place (size and
#   time kept), an -Xoffload-linker argument, the clang offlink runs
#   replaced at the same path, the ld clang runs replaced at the same path,
#   an environment variable the linker reads (LD_RUN_PATH), @file content,
#   the device code;
#   keeps the key: a relink with nothing changed, a tool touched (same
#   bytes, new time), another working directory, another checkout of the
#   same objects under --cache-base-dir (both hit the one local cache).
# ctest-cost: 14
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc ar

mkdir -p lib bin other
dev_caller
devlib() {
	printf 'int dev(int x) { return %s * x; }\n' "$1" >lib/dev.c
	check "libdev" gcc -O2 -fPIC -c lib/dev.c -o lib/dev.o
	rm -f lib/libdev.a
	ar rcs lib/libdev.a lib/dev.o
}
devlib 3
printf '#!/bin/sh\nexec clang-19 "$@"\n' >bin/clang
printf '#!/bin/sh\nexec /usr/bin/ld "$@"\n' >bin/ld
chmod +x bin/clang bin/ld
echo "-ldev" >dev.rsp
export OFFLINK_CLANG=$T/bin/clang PATH=$T/bin:$PATH

# key NAME [ARGS...]: link, print the group key
key() {
	local name=$1
	shift
	clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o -Xoffload-linker -L"$T/lib" "${STUBLINK[@]}" \
		-Wl,--device-linker=@"$T/dev.rsp" "$@" -o "$name" -Wl,--wrapper-verbose 2>"$name.v" ||
		fail "link of $name: $(grep -v '^offlink:  ' "$name.v" | tail -3)"
	grep -o 'device-link cache [a-z]*.*(key [0-9a-f]\{16\}' "$name.v" | head -1 | grep -o '[0-9a-f]\{16\}$' ||
		fail "$name: no key in $(grep 'device-link cache' "$name.v")"
}
changes() { [ "$1" != "$2" ] || fail "$3 did not change the key"; }
keeps() { [ "$1" = "$2" ] || fail "$3 changed the key ($1, $2)"; }

# (the first link learns what clang runs, beside the link; from then on
# the key printed is the one that holds the linker command clang runs)
key first >/dev/null
k0=$(key base)
keeps "$k0" "$(key again)" "nothing"
contains again.v "device-link cache hit"

# a library changed in place, its size and time kept
cp -p lib/libdev.a lib/old.a
sleep 3 # (old enough for its digest to be remembered)
k0=$(key remembered)
printf 'int dev(int x) { return %s * x; }\n' 5 >lib/dev.c
gcc -O2 -fPIC -c lib/dev.c -o lib/dev.o && ar rcs lib/new.a lib/dev.o
[ "$(stat -c %s lib/new.a)" = "$(stat -c %s lib/libdev.a)" ] || fail "the libraries differ in size"
cat lib/new.a >lib/libdev.a
touch -r lib/old.a lib/libdev.a
changes "$k0" "$(key inplace)" "a library on -L changed in place"
devlib 3
k0=$(key base2)

changes "$k0" "$(key arg -Xoffload-linker --defsym=offlink_key_test=1)" "an -Xoffload-linker argument"

cp bin/clang clang.saved
touch -d '2001-01-01' bin/clang
keeps "$k0" "$(key touched)" "a tool touched (same bytes)"
printf '#!/bin/sh\n# rebuilt\nexec clang-19 "$@"\n' >bin/clang
changes "$k0" "$(key clang2)" "the clang offlink runs, replaced at the same path"
cp clang.saved bin/clang
keeps "$k0" "$(key clang1)" "the first clang back"

printf '#!/bin/sh\n# another ld\nexec /usr/bin/ld "$@"\n' >bin/ld
changes "$k0" "$(key ld2)" "the ld clang runs, replaced at the same path"
printf '#!/bin/sh\nexec /usr/bin/ld "$@"\n' >bin/ld

changes "$k0" "$(LD_RUN_PATH=/opt/elsewhere key runpath)" "LD_RUN_PATH"

echo "-ldev -z now" >dev.rsp
changes "$k0" "$(key rsp)" "@file content"
echo "-ldev" >dev.rsp

sed 's/dev(14)/dev(15)/' k.c >k2.c
cp k.o k.saved
cc -c k2.c -o k.o
changes "$k0" "$(key device)" "the device code"
cp k.saved k.o

# another working directory (the paths given absolute): the same key
cp k.o hostdev.o other/
keeps "$k0" "$(cd other && clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o -Xoffload-linker -L"$T/lib" "${STUBLINK[@]}" \
	-Wl,--device-linker=@"$T/dev.rsp" -o cwd -Wl,--wrapper-verbose 2>cwd.v &&
	grep -o '(key [0-9a-f]\{16\}' cwd.v | head -1 | grep -o '[0-9a-f]\{16\}$')" "another working directory"

# two checkouts of the same objects, each naming its own library by an
# absolute path, one local cache: a hit under --cache-base-dir
for c in one two; do
	mkdir -p co/$c/lib
	cp k.o hostdev.o co/$c/
	cp lib/libdev.a co/$c/lib/
done
checkout() { # DIR NAME
	(cd "co/$1" && OFFLINK_CACHE_BASE_DIR=$T/co clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o \
		-Xoffload-linker -L"$T/co/$1/lib" -Xoffload-linker -ldev "${STUBLINK[@]}" -o "$2" -Wl,--wrapper-verbose 2>"$2.v") ||
		fail "checkout $1: link failed"
}
checkout one first
checkout two second
contains co/two/second.v "device-link cache hit (local)"
echo "PASS: each key ingredient changes the key; nothing machine-specific does"
