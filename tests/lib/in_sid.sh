#!/usr/bin/env bash
# Run a test, or offlink's build, inside the Debian sid root that holds
# clang 23 and 24 (scripts/install-sid.sh makes it, as deps/sid).
#
#   in_sid.sh --build DIR    configure and build offlink into DIR there
#                            (gcc 16, -Werror), for the tests below
#   in_sid.sh SCRIPT         run a test script there; OFFLINK_BUILD names
#                            that build
#
# The source tree, the build tree and CUDA are mounted at their own paths
# inside the root, so every path means the same on both sides; /tmp is a
# fresh tmpfs (OFFLINK_SID_TMP=DIR mounts DIR there instead, to keep what
# a test leaves); /proc and /dev are the host's.  Everything happens in a
# mount namespace of its own: nothing stays mounted when it ends.  Only
# OFFLINK_*, MATRIX_*, KEEP_T and CUDA_PATH pass into the root.  Needs
# root.  Without the root: SKIP (exit 77), or a failure under
# OFFLINK_NO_SKIP=1.
set -euo pipefail
: "${OFFLINK_SRC:?OFFLINK_SRC must name the source tree}"
root=${OFFLINK_SID_ROOT:-$OFFLINK_SRC/deps/sid}

missing() {
	if [ "${OFFLINK_NO_SKIP:-0}" = 1 ]; then
		echo "FAIL: $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}
[ -x "$root/usr/bin/clang-23" ] && [ -x "$root/usr/bin/clang-24" ] ||
	missing "no Debian sid root with clang 23 and 24 at $root (scripts/install-sid.sh makes it)"
[ "$(id -u)" -eq 0 ] || missing "the sid root needs root (chroot, mount)"

cuda=${CUDA_PATH:-/usr/local/cuda}
binds=("$OFFLINK_SRC")
if [ "${1:-}" = --build ]; then
	build=${2:?--build needs a directory}
	mkdir -p "$build"
	build=$(cd "$build" && pwd)
	binds+=("$build")
	set -- /bin/sh -c 'cmake -S "$OFFLINK_SRC" -B "$0" -DOFFLINK_WERROR=ON >/dev/null &&
		cmake --build "$0" -j"$(nproc)"' "$build"
else
	: "${OFFLINK_BUILD:?OFFLINK_BUILD must name the sid build tree}"
	[ -x "$OFFLINK_BUILD/bin/offlink" ] || missing "offlink is not built for the sid root in $OFFLINK_BUILD (test sid.build)"
	binds+=("$OFFLINK_BUILD")
	set -- /bin/bash "$@"
fi
[ -d "$cuda" ] && binds+=("$cuda")

# The environment inside: a plain PATH and what the tests read.
env=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8)
while IFS= read -r var; do
	case $var in
	OFFLINK_* | MATRIX_* | KEEP_T | CUDA_PATH) env+=("$var=${!var}") ;;
	esac
done < <(compgen -e)

exec unshare --mount --propagation private -- /bin/bash -c '
	set -e
	root=$1 tmp=$2 nbinds=$3
	shift 3
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	if [ -n "$tmp" ]; then mount --bind "$tmp" "$root/tmp"; else mount -t tmpfs tmpfs "$root/tmp"; fi
	for ((i = 0; i < nbinds; i++)); do
		mkdir -p "$root$1"
		mount --bind "$1" "$root$1"
		shift
	done
	exec chroot "$root" /usr/bin/env -i "$@"' \
	in_sid "$root" "${OFFLINK_SID_TMP:-}" "${#binds[@]}" "${binds[@]}" "${env[@]}" "$@"
