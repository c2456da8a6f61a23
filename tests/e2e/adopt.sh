#!/usr/bin/env bash
# Issue 22: offlink in builds the user does not edit.  tests/e2e/adopt/ is
# a CMake (and Make) project: an offloading C++ program with device code
# in itself, in a static library and in a shared library, and a C helper
# built by gcc.  It is built
#   1. with flags only: CMAKE_EXE_LINKER_FLAGS and CMAKE_SHARED_LINKER_FLAGS
#      = -B<compat>, OFFLINK_VERBOSE=1 in the environment (no flag that
#      gcc's compiler check would choke on);
#   2. with LDFLAGS=-B<compat> at the first configure;
#   3. with find_package(offlink) + offlink_link from the build tree
#      (CMAKE_PREFIX_PATH=<build>), and 4. from an install tree;
#   5. with make and LDFLAGS.
# Each build shows offlink's plan for the program and for the shared
# library, configures without a warning (C is gcc's, the program is linked
# by clang++), and its program runs every target region on the offload
# device (OMP_TARGET_OFFLOAD=MANDATORY).
# ctest-cost: 15
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need cmake make gcc clang++-19
[ -e /usr/lib/llvm-19/lib/libomptarget.so ] || need libomptarget-19-is-missing
SRC=$OFFLINK_SRC/tests/e2e/adopt
CONF=(-DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=clang++-19)

# runs DIR: the program runs on the device, and the build log DIR.log
# shows offlink's plan for the program and the shared library.
runs() {
	local dir=$1
	grep -q "offlink: plan for app " "$dir.log" || fail "$dir: no offlink plan for the program: $(tail -5 "$dir.log")"
	grep -q "offlink: plan for libdevshared.so " "$dir.log" ||
		fail "$dir: no offlink plan for the shared library"
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY "$dir/app" >"$dir.out" 2>&1 ||
		fail "$dir: the program failed: $(head -5 "$dir.out")"
	contains "$dir.out" "adopt: static=20 shared=49 main=42 on_device=111"
}
# quiet DIR: no warning at configure time
quiet() {
	grep -qi "warning" "$1.configure" && fail "$1: configure warned: $(grep -i -A3 warning "$1.configure")"
	return 0
}

# 1. flags only, the plan from OFFLINK_VERBOSE
cmake -S "$SRC" -B flags "${CONF[@]}" -DCMAKE_EXE_LINKER_FLAGS="-B$COMPAT" \
	-DCMAKE_SHARED_LINKER_FLAGS="-B$COMPAT" >flags.configure 2>&1 || fail "flags: configure: $(tail -5 flags.configure)"
quiet flags
OFFLINK_VERBOSE=1 cmake --build flags >flags.log 2>&1 || fail "flags: build: $(tail -5 flags.log)"
runs flags
echo "ok: CMake, flags only"

# 2. LDFLAGS at the first configure
LDFLAGS="-B$COMPAT" cmake -S "$SRC" -B ldflags "${CONF[@]}" >ldflags.configure 2>&1 ||
	fail "ldflags: configure: $(tail -5 ldflags.configure)"
quiet ldflags
OFFLINK_VERBOSE=1 cmake --build ldflags >ldflags.log 2>&1 || fail "ldflags: build: $(tail -5 ldflags.log)"
runs ldflags
echo "ok: CMake, LDFLAGS"

# 3. the build tree's package
cmake -S "$SRC" -B pkgbuild "${CONF[@]}" -DADOPT_PACKAGE=ON -DCMAKE_PREFIX_PATH="$OFFLINK_BUILD" \
	>pkgbuild.configure 2>&1 || fail "package (build tree): configure: $(tail -5 pkgbuild.configure)"
quiet pkgbuild
OFFLINK_VERBOSE=1 cmake --build pkgbuild >pkgbuild.log 2>&1 || fail "package (build tree): build: $(tail -5 pkgbuild.log)"
runs pkgbuild
echo "ok: CMake, find_package(offlink) from the build tree"

# 4. an install tree's package
cmake --install "$OFFLINK_BUILD" --prefix "$T/prefix" >install.log 2>&1 || fail "install: $(tail -3 install.log)"
cmake -S "$SRC" -B pkginst "${CONF[@]}" -DADOPT_PACKAGE=ON -DCMAKE_PREFIX_PATH="$T/prefix" \
	>pkginst.configure 2>&1 || fail "package (install): configure: $(tail -5 pkginst.configure)"
quiet pkginst
grep -q "$T/prefix/lib/offlink/compat" pkginst/CMakeFiles/app.dir/link.txt ||
	fail "package (install): the link does not use the installed offlink"
OFFLINK_VERBOSE=1 cmake --build pkginst >pkginst.log 2>&1 || fail "package (install): build: $(tail -5 pkginst.log)"
runs pkginst
echo "ok: CMake, find_package(offlink) from an install tree"

# offlink_link still warns where the linking compiler is not clang
cat >warnproj.txt <<EOF
cmake_minimum_required(VERSION 3.25)
project(w C)
find_package(offlink REQUIRED)
add_executable(p $SRC/helper.c)
offlink_link(p)
EOF
mkdir -p warnproj
cp warnproj.txt warnproj/CMakeLists.txt
cmake -S warnproj -B warnproj/b -DCMAKE_C_COMPILER=gcc -DCMAKE_PREFIX_PATH="$OFFLINK_BUILD" >warn.configure 2>&1 ||
	fail "warnproj: configure: $(tail -5 warn.configure)"
contains warn.configure "offlink_link: p is linked by the C compiler, GNU"

# 5. make and LDFLAGS
mkdir -p mk
OFFLINK_VERBOSE=1 make -C mk -f "$SRC/Makefile" SRC="$SRC" CXX=clang++-19 CC=gcc LDFLAGS="-B$COMPAT" \
	>mk.log 2>&1 || fail "make: $(tail -5 mk.log)"
runs mk
echo "ok: make, LDFLAGS"
echo "PASS: offlink adopted by flags, by the CMake package (build and install trees) and by make"
