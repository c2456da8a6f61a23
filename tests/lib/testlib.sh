# Sourced by every CLI and end-to-end test (bash).  CTest passes
#   OFFLINK_BUILD  the build tree (tools in bin/, compat links in compat/,
#                  test helpers in test-bin/)
#   OFFLINK_SRC    the source tree
# A test that needs a missing tool prints "SKIP: ..." and exits 77, which
# CTest reports as skipped.  With OFFLINK_NO_SKIP=1 (CI) a missing tool that
# the install script provides is a failure instead.
set -u
set -o pipefail

: "${OFFLINK_BUILD:?OFFLINK_BUILD must name the build tree}"
: "${OFFLINK_SRC:?OFFLINK_SRC must name the source tree}"
BIN=$OFFLINK_BUILD/bin
COMPAT=$OFFLINK_BUILD/compat
HELP=$OFFLINK_BUILD/test-bin
export LD_LIBRARY_PATH=/usr/lib/llvm-19/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

T=$(mktemp -d "${TMPDIR:-/tmp}/offlink-test.XXXXXX")
# Every tool's temporaries inside the test's directory: LLVM's wrapper and
# clang's CUDA jobs leave files behind, and /tmp is not the tests' to fill
# (libomptarget's host plugin still writes /tmp/tmpfile_*: its path is
# fixed).  A test that checks for left-over temporaries looks here.
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp
# Each test starts with an empty device-link cache of its own.
export OFFLINK_CACHE_DIR=$T/device-cache
trap '[ "${KEEP_T:-0}" = 1 ] || rm -rf "$T"' EXIT
cd "$T" || exit 1

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# need TOOL...: skip (or, under OFFLINK_NO_SKIP=1, fail) unless installed.
need() {
	for t in "$@"; do
		if ! command -v "$t" >/dev/null 2>&1; then
			[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "required tool $t is missing"
			skip "$t is not installed"
		fi
	done
}

# CUDA is not a Debian package: it is on the machine image or it is not.
CUDA=${CUDA_PATH:-/usr/local/cuda}
need_cuda() {
	for t in "$@"; do
		[ -x "$CUDA/bin/$t" ] || skip "CUDA tool $t not found in $CUDA/bin (CUDA is not installable with apt; this check needs the machine image's CUDA)"
	done
}

# check DESCRIPTION COMMAND...: run, fail with the description if non-zero.
check() {
	local what=$1
	shift
	"$@" || fail "$what (exit $?): $*"
}

# expect_status N COMMAND...: the command must exit with status N; its
# stderr is kept in $T/stderr.
expect_status() {
	local want=$1 got
	shift
	"$@" 2>"$T/stderr" >"$T/stdout"
	got=$?
	[ "$got" -eq "$want" ] || fail "expected exit $want, got $got: $* ($(head -c 600 "$T/stderr"))"
}

# contains FILE TEXT: FILE must contain TEXT (fixed string).
contains() {
	grep -qF -- "$2" "$1" || fail "$1 does not contain '$2': $(head -c 800 "$1")"
}

same_bytes() {
	cmp -s "$1" "$2" || fail "$1 and $2 differ"
}

# no_leftovers DIR: no offlink temporaries in DIR.
no_leftovers() {
	local left
	left=$(find "$1" -maxdepth 1 -name '.*offlink-*' -print -quit)
	[ -z "$left" ] || fail "temporary left behind: $left"
}

echo "test dir: $T"
