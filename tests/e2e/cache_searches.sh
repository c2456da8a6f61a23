#!/usr/bin/env bash
# Issue 25, item 1: searches that a linker script causes.  A device
# library that is a script (INPUT(-ldevimpl), GROUP(-lx)), a script that
# INCLUDEs another by a relative name, a SEARCH_DIR: when a file appears
# earlier in such a search, an uncached link takes it, so a cached relink
# must not return the image linked without it.
#  - GNU ld (the CPU device link of object code): it says where it looked
#    (--verbose); the cache keeps the paths it tried and did not find, and
#    hits only while they are still absent: a relink with nothing changed
#    is a hit, one after the file appeared is a miss with the new code.
#  - lld (-foffload-lto: the CPU device link is lld's): it says nothing of
#    where it looked, so a link whose script searches is not stored, and
#    the plan says why; a script naming absolute paths only stays cached.
# Each relink's program is compared with what it must print.
# ctest-cost: 14
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc ar

dev_caller

# impl DIR NAME FACTOR: DIR/lib<NAME>.a whose dev(x) is FACTOR * x (PIC).
impl() {
	local dir=$1 name=$2 f=$3
	mkdir -p "$dir"
	printf 'int dev(int x) { return %s * x; }\n' "$f" >"$dir/$name.c"
	check "build $dir/$name" gcc -O2 -fPIC -c "$dir/$name.c" -o "$dir/$name.o"
	rm -f "$dir/lib$name.a"
	check "archive $dir/$name" ar rcs "$dir/lib$name.a" "$dir/$name.o"
}

# relink NAME OBJ ARGS...: link OBJ (k.o or k_lto.o) through offlink
# with -v (NAME.v) and run it (NAME.out).
relink() {
	local name=$1 obj=$2
	shift 2
	clang-19 "${OMP[@]}" -B "$COMPAT" "$obj" hostdev.o "$@" -o "$name" -Wl,--wrapper-verbose 2>"$name.v" ||
		fail "link of $name: $(grep -v '^offlink:  ' "$name.v" | tail -3)"
	run "$name"
}
expect() { # NAME VALUE WHAT
	local got
	got=$(sed -n 's/^dev=//p' "$1.out")
	[ "$got" = "$2" ] || fail "$3: the program printed dev=$got, not dev=$2 (stale device code)"
}
hit() { grep -q "device-link cache hit" "$1.v" || fail "$1: expected a cache hit: $(grep 'device-link cache' "$1.v")"; }
miss() { grep -q "device-link cache miss" "$1.v" || fail "$1: expected a cache miss: $(grep 'device-link cache' "$1.v")"; }
stored() { grep -q "device-link cache stored" "$1.v" || fail "$1: expected the image stored: $(grep 'device-link cache' "$1.v")"; }

L=(-Xoffload-linker -Llib1 -Xoffload-linker -Llib2)

# 1. A library that is a script, INPUT(-ldevimpl): libdevimpl.a appears
# in lib1, searched before lib2.
impl lib2 devimpl 3
echo 'INPUT(-ldevimpl)' >lib2/libdevscript.so
relink a1 k.o "${L[@]}" -Xoffload-linker -ldevscript
expect a1 42 "INPUT(-ldevimpl) from lib2"
stored a1
relink a2 k.o "${L[@]}" -Xoffload-linker -ldevscript
hit a2
expect a2 42 "the same link again"
impl lib1 devimpl 5
relink a3 k.o "${L[@]}" -Xoffload-linker -ldevscript
miss a3
expect a3 70 "libdevimpl.a added in lib1, before lib2"
rm -rf lib1 lib2

# 2. GROUP(-lx): the same, through a group.
impl lib2 gx 3
echo 'GROUP ( -lgx )' >lib2/libgs.so
relink g1 k.o "${L[@]}" -Xoffload-linker -lgs
expect g1 42 "GROUP(-lgx) from lib2"
relink g2 k.o "${L[@]}" -Xoffload-linker -lgs
hit g2
impl lib1 gx 6
relink g3 k.o "${L[@]}" -Xoffload-linker -lgs
expect g3 84 "libgx.a added in lib1"
rm -rf lib1 lib2

# 3. INCLUDE by a relative name: found in the -L directory, until the
# working directory (searched first) has one.
impl libA dev 2
impl libB dev 4
mkdir -p lib2
echo "INPUT($T/libA/dev.o)" >lib2/inc.ld
echo 'INCLUDE inc.ld' >dev.lds
relink i1 k.o "${L[@]}" -Xoffload-linker dev.lds
expect i1 28 "INCLUDE inc.ld from lib2"
relink i2 k.o "${L[@]}" -Xoffload-linker dev.lds
hit i2
echo "INPUT($T/libB/dev.o)" >inc.ld
relink i3 k.o "${L[@]}" -Xoffload-linker dev.lds
expect i3 56 "inc.ld added in the working directory"
rm -f inc.ld dev.lds
rm -rf lib2

# 4. SEARCH_DIR: the script's directory is searched after the -L
# directories; a library appearing in one of those wins.
impl lib3 sd 3
mkdir -p lib1 lib2
echo "SEARCH_DIR($T/lib3) INPUT(-lsd)" >lib2/libsds.so
relink d1 k.o "${L[@]}" -Xoffload-linker -lsds
expect d1 42 "SEARCH_DIR(lib3)"
relink d2 k.o "${L[@]}" -Xoffload-linker -lsds
hit d2
impl lib1 sd 7
relink d3 k.o "${L[@]}" -Xoffload-linker -lsds
expect d3 98 "libsd.a added in a -L directory"
rm -rf lib1 lib2 lib3

# 5. lld (bitcode device code: the CPU device link is lld's LTO).  lld
# keeps no record of where it looked; the cache lists the places its
# search of a script can look (cache/ldtrace.h), found or not.
cc -foffload-lto -c k.c -o k_lto.o
impl lib2 devimpl 3
echo 'INPUT(-ldevimpl)' >lib2/libdevscript.so
relink b1 k_lto.o "${L[@]}" -Xoffload-linker -ldevscript
expect b1 42 "lld: INPUT(-ldevimpl) from lib2"
stored b1
relink b2 k_lto.o "${L[@]}" -Xoffload-linker -ldevscript
hit b2
impl lib1 devimpl 5
relink b3 k_lto.o "${L[@]}" -Xoffload-linker -ldevscript
miss b3
expect b3 70 "lld: libdevimpl.a added in lib1"
rm -rf lib1 lib2
# A relative name in a script: the script's directory, then the working
# directory, then each -L directory.
impl libA dev 2
impl libB dev 4
mkdir -p lib1 lib2
cp libA/dev.o lib2/rel.o
echo 'INPUT(rel.o)' >lib1/librel.so
relink r1 k_lto.o "${L[@]}" -Xoffload-linker -lrel
expect r1 28 "lld: INPUT(rel.o) found in lib2"
relink r2 k_lto.o "${L[@]}" -Xoffload-linker -lrel
hit r2
cp libB/dev.o rel.o
relink r3 k_lto.o "${L[@]}" -Xoffload-linker -lrel
expect r3 56 "lld: rel.o added in the working directory"
cp libA/dev.o lib1/rel.o
relink r4 k_lto.o "${L[@]}" -Xoffload-linker -lrel
expect r4 28 "lld: rel.o added beside the script"
rm -rf lib1 lib2 rel.o
# SEARCH_DIR changes lld's search for what follows: not stored, and the
# plan says why.
impl lib3 sd 3
mkdir -p lib1 lib2
echo "SEARCH_DIR($T/lib3) INPUT(-lsd)" >lib2/libsds.so
relink e1 k_lto.o "${L[@]}" -Xoffload-linker -lsds
expect e1 42 "lld: SEARCH_DIR(lib3)"
contains e1.v "not stored: lld read the linker script"
contains e1.v "SEARCH_DIR"
rm -rf lib1 lib2 lib3
# A script naming absolute paths only searches nothing: cached.
impl libA dev 2
mkdir -p lib2
echo "GROUP ( $T/libA/libdev.a )" >lib2/libabs.so
relink c1 k_lto.o "${L[@]}" -Xoffload-linker -labs
expect c1 28 "lld: a script of absolute paths"
stored c1
relink c2 k_lto.o "${L[@]}" -Xoffload-linker -labs
hit c2
expect c2 28 "lld: the same link again"
echo "ok: every script-driven search relinked the new device code"
