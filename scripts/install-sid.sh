#!/usr/bin/env bash
# The LLVM releases Debian 12 does not carry: clang 23 (the current
# release, in Debian's sid suite) and clang 24 (main, a snapshot in
# experimental).  They need sid's C library and gcc, so they live in a
# Debian sid root of their own, deps/sid, made with debootstrap from the
# mirror this machine's apt uses; the tests run there with an offlink
# built there (tests/lib/in_sid.sh).  Nothing here touches the host's
# packages.  Idempotent: a stamp names what is installed; run again, it
# only adds what is missing.  Needs root (debootstrap, chroot, mount).
#
# sid's and experimental's Release files may be past their Valid-Until
# date on a mirror snapshot: apt inside the root is told not to check it.
# LLVM 24's runtime packages (libomp5, liboffload-24) would replace 23's,
# so libomp5 is held at 23 and 24's OpenMP runtime is unpacked privately
# under /opt/llvm24-omp inside the root.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${OFFLINK_SID_ROOT:-$PWD/deps/sid}
mirror=${OFFLINK_SID_MIRROR:-http://deb.debian.org/debian}

# What the tests use inside the root: the two releases, 23's OpenMP
# runtime, gcc and offlink's build dependencies (offlink is built there),
# and the tools the test scripts run.
sid_pkgs=(
	clang-23 clang-tools-23 llvm-23 lld-23 libomp-23-dev liboffload-23 liboffload-23-dev
	gcc g++ make cmake pkg-config
	libelf-dev libarchive-dev libcmocka-dev zlib1g-dev libzstd-dev libmd-dev nettle-dev
	libhiredis-dev libcurl4-openssl-dev libxxhash-dev
	binutils file xxd jq spirv-tools procps
)
exp_pkgs=(clang-24 clang-tools-24 llvm-24 lld-24)
omp24_pkgs=(libomp-24-dev liboffload-24 liboffload-24-dev libomp5)

stamp=$root/.offlink-installed
want="${sid_pkgs[*]} | ${exp_pkgs[*]} | ${omp24_pkgs[*]}"
if [ -e "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "install-sid: $root holds clang 23 and 24 already"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "install-sid: must run as root (debootstrap, chroot)" >&2; exit 1; }

if ! command -v debootstrap >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi
if [ ! -x "$root/usr/bin/apt-get" ]; then
	rm -rf "$root"
	mkdir -p "$(dirname "$root")"
	# (checked with the host's Debian keyring, which holds the key sid is
	# signed with; apt inside the root then uses sid's own keyring)
	debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
		sid "$root" "$mirror"
fi
printf 'deb %s sid main\ndeb %s experimental main\n' "$mirror" "$mirror" >"$root/etc/apt/sources.list"
echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99offlink-snapshot"
# (no recommends, no docs: a smaller root)
echo 'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/99offlink-norecommends"

# in_root CMD...: run in the root with /proc mounted, in a mount
# namespace of its own so that nothing stays mounted afterwards.
in_root() {
	unshare --mount --propagation private -- sh -c '
		mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" \
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

in_root apt-get update -qq
in_root apt-get install -y -qq "${sid_pkgs[@]}"
in_root apt-mark hold libomp5 >/dev/null
in_root apt-get install -y -qq -t experimental "${exp_pkgs[@]}"
in_root apt-get clean

# LLVM 24's OpenMP runtime, unpacked (never installed) under /opt.
omp24=$root/opt/llvm24-omp
rm -rf "$omp24" "$omp24.debs"
mkdir -p "$omp24.debs"
chmod 777 "$omp24.debs" # apt downloads as _apt
in_root sh -c 'cd /opt/llvm24-omp.debs && apt-get download -qq -t experimental "$@"' sh "${omp24_pkgs[@]}"
for deb in "$omp24.debs"/*.deb; do
	dpkg-deb -x "$deb" "$omp24"
done
rm -rf "$omp24.debs"

echo "$want" >"$stamp"
echo "install-sid: $root: clang $(in_root clang-23 -dumpversion), clang $(in_root clang-24 -dumpversion)"
