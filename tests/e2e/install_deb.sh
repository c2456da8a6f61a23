#!/usr/bin/env bash
# Issue 12: the Debian package.  `cpack -G DEB` of the build tree makes
# offlink_<version>_<arch>.deb whose Depends dpkg-shlibdeps computed, with
# the layout under /usr.  Then it is installed, used and removed, twice:
#  1. into a fresh root with dpkg (--root, an empty package database; the
#     libraries the package depends on are the host's) -- always, touching
#     nothing outside the test directory;
#  2. on this machine with `apt-get install ./offlink_*.deb` -- when root,
#     offlink is not installed already, and the run may change the system
#     (OFFLINK_NO_SKIP=1, as in CI, or OFFLINK_TEST_SYSTEM_INSTALL=1);
#     `apt-get remove` must then leave none of the package's files.
# Each time the bundled example is linked through <root>/usr/lib/offlink/
# compat and run on libomptarget's host device.
# ctest-cost: 19
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need cpack dpkg dpkg-deb dpkg-shlibdeps clang-19
[ -e /usr/lib/llvm-19/lib/libomptarget.so ] || need libomptarget-19-is-missing

check "cpack" cpack --config "$OFFLINK_BUILD/CPackConfig.cmake" -G DEB -B "$T/pkg" >cpack.log
deb=$(ls "$T"/pkg/offlink_*_*.deb 2>/dev/null)
[ -n "$deb" ] && [ "$(echo "$deb" | wc -l)" = 1 ] || fail "cpack made no single offlink_*.deb: $(ls "$T/pkg")"
dpkg-deb -f "$deb" Package Version Architecture Depends >control.txt
for lib in libelf1 libarchive13 libzstd1 zlib1g libmd0; do
	grep -q "^Depends:.*\b$lib\b" control.txt || fail "Depends lacks $lib: $(cat control.txt)"
done
dpkg-deb -c "$deb" >contents.txt
contains contents.txt "./usr/lib/offlink/compat/clang-linker-wrapper -> ../../../bin/offlink"
contains contents.txt "./usr/lib/offlink/offstub/libcudart.so.13 -> libcudart.so"
contains contents.txt "./usr/share/man/man1/offlink.1"
contains contents.txt "./usr/lib/cmake/offlink/offlinkConfig.cmake"
# The package's own paths (files and links), for "nothing left behind".
awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' contents.txt >owned.txt

# example ROOT NAME: link the example through ROOT's installed offlink.
example() {
	local root=$1 name=$2 compat
	compat=$("$root/usr/bin/offlink" --print-compat-dir) || fail "$name: --print-compat-dir"
	[ "$compat" = "$root/usr/lib/offlink/compat" ] || fail "$name: compat directory $compat"
	clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -B "$compat" \
		"$OFFLINK_SRC/examples/saxpy.c" -o "$name" -Wl,--wrapper-verbose 2>"$name.v" ||
		fail "$name: link: $(tail -3 "$name.v")"
	grep -q "^offlink: plan for $name" "$name.v" || fail "$name: not linked by the installed offlink"
	LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY "./$name" >"$name.out" ||
		fail "$name exited with $?"
	grep -q "ran on the offload device" "$name.out" || fail "$name: $(cat "$name.out")"
}

# 1. A fresh root.
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
touch "$R/var/lib/dpkg/status" "$R/var/lib/dpkg/available"
# (its maintainer scripts only run ldconfig: run outside the root)
dpkg_root() { dpkg --root="$R" --force-depends --force-script-chrootless --force-not-root "$@"; }
dpkg_root -i "$deb" >dpkg.log 2>&1 || fail "dpkg -i into a fresh root: $(tail -5 dpkg.log)"
dpkg_root -s offlink | grep -q "^Status: install ok installed" || fail "not installed in the fresh root"
example "$R" fresh_root
dpkg_root -r offlink >>dpkg.log 2>&1 || fail "dpkg -r: $(tail -5 dpkg.log)"
while read -r f; do
	[ ! -e "$R$f" ] && [ ! -L "$R$f" ] || fail "left after removal from the fresh root: $f"
done <owned.txt
[ -z "$(find "$R/usr" -mindepth 1 2>/dev/null)" ] || fail "left in the fresh root: $(find "$R/usr" | head)"

# 2. This machine, with apt-get.
system_ok=0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null &&
   { [ "${OFFLINK_NO_SKIP:-0}" = 1 ] || [ "${OFFLINK_TEST_SYSTEM_INSTALL:-0}" = 1 ]; }; then
	if dpkg-query -W -f='${Status}' offlink 2>/dev/null | grep -q 'install ok installed'; then
		echo "SKIP: apt-get install: an offlink package is installed here already; not replaced" >&2
	else
		system_ok=1
	fi
else
	echo "SKIP: apt-get install on this machine (needs root and OFFLINK_NO_SKIP=1 or OFFLINK_TEST_SYSTEM_INSTALL=1)" >&2
fi
if [ $system_ok = 1 ]; then
	trap 'apt-get purge -y -qq offlink >/dev/null 2>&1; [ "${KEEP_T:-0}" = 1 ] || rm -rf "$T"' EXIT
	apt-get install -y -qq "$deb" >apt.log 2>&1 || fail "apt-get install $deb: $(tail -5 apt.log)"
	example "" system
	man -w offlink >/dev/null 2>&1 || [ -e /usr/share/man/man1/offlink.1 ] || fail "man page not installed"
	apt-get remove -y -qq offlink >>apt.log 2>&1 || fail "apt-get remove: $(tail -5 apt.log)"
	while read -r f; do
		[ ! -e "$f" ] && [ ! -L "$f" ] || fail "left behind by apt-get remove: $f"
	done <owned.txt
	for d in /usr/lib/offlink /usr/share/doc/offlink /usr/lib/cmake/offlink; do
		[ ! -e "$d" ] || fail "left behind by apt-get remove: $d"
	done
	# (dpkg keeps a removed package's record, as for any package whose
	# postrm runs ldconfig, until it is purged)
	apt-get purge -y -qq offlink >>apt.log 2>&1 || fail "apt-get purge: $(tail -5 apt.log)"
	dpkg-query -W offlink >/dev/null 2>&1 && fail "dpkg still knows offlink after purge"
	echo "apt-get install, use, remove and purge on this machine: done"
fi
echo "PASS: the Debian package installs, works and goes"
