#!/usr/bin/env bash
# Issue 25, items 4, 7, 8 and 9: a cache store nobody else can jam or
# subvert.  Another user (nobody) attacks; each case relinked stale device
# code, hung the link, or evicted the victim's entries before.
#  4. The digest memo never lives in a cache directory that was refused
#     (others may write it): a record another user planted there, claiming
#     a rebuilt library still has its old content, made a remote hit link
#     the old image.
#  7. A secret file others may write (0662: "others may read" was the only
#     check), or one in a directory others may write, is refused with the
#     exact fix, and the link goes on without it; the fix makes it usable.
#  8. Another user holding the lock of every shard's statistics does not
#     hang a link or --cache-stats: one warning, statistics skipped.
#  9. A victim who is not root: a sparse 2 GiB entry-named file another
#     user put where the victim cannot remove it made every store evict
#     everything; now what cannot be removed is not counted (and space is
#     counted by blocks), said once.  A shard the victim cannot write is
#     said, not silently failed into.
# ctest-cost: 14
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
. "$OFFLINK_SRC/tests/lib/servers.sh"
need setpriv flock truncate timeout gcc ar
[ "$(id -u)" = 0 ] || skip "needs root to act as other users (setpriv); CI runs as root"

chmod 755 "$T"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
VICTIM=4242
as_victim() { setpriv --reuid=$VICTIM --regid=$VICTIM --clear-groups "$@"; }

dev_caller
devlib() { # DIR FACTOR
	mkdir -p "$1"
	printf 'int dev(int x) { return %s * x; }\n' "$2" >"$1/dev.c"
	check "build $1" gcc -O2 -fPIC -c "$1/dev.c" -o "$1/dev.o"
	rm -f "$1/libdev.a"
	check "archive $1" ar rcs "$1/libdev.a" "$1/dev.o"
}
head -c 32 /dev/urandom >secret
chmod 600 secret

# ---- 4. the digest memo and a refused directory ----
start_redis
REDIS=redis://127.0.0.1:$REDIS_PORT
R=$T/open
mkdir -m 1777 "$R"
as_nobody mkdir -m 777 "$R/digests"   # the attacker's, made first
mkdir -p -m 700 home/.cache
devlib lib 3
cp lib/libdev.a old.a
export HOME=$T/home
M4=(-Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev -Wl,--cache-remote="$REDIS")
OFFLINK_CACHE_DIR=$R OFFLINK_CACHE_SECRET_FILE=$T/secret dev_link m1 "${M4[@]}"
contains m1.v "device-link cache not used: $R is writable by everyone"
contains m1.v "device-link cache stored"
[ "$(dev_value m1)" = 42 ] || fail "memo: first link printed dev=$(dev_value m1)"
[ -z "$(ls -A "$R/digests")" ] || fail "digests were remembered in a refused directory: $(ls "$R/digests" | head -3)"
devlib lib 5
# The attacker claims the rebuilt library still has the old content.
as_nobody "$HELP/memo_forge" "$R/digests" "$T/lib/libdev.a" old.a >/dev/null || fail "memo_forge"
OFFLINK_CACHE_DIR=$R OFFLINK_CACHE_SECRET_FILE=$T/secret dev_link m2 "${M4[@]}"
[ "$(dev_value m2)" = 70 ] ||
	fail "a digest planted in a refused directory was believed: dev=$(dev_value m2) (stale: $(grep 'device-link cache' m2.v | head -1))"
# The user's own memo, beside a private store, is used as before.
OFFLINK_CACHE_DIR=$T/own OFFLINK_CACHE_SECRET_FILE=$T/secret dev_link m3 "${M4[@]}"
[ -d "$T/own/digests" ] || fail "no digest memo beside a private store"
echo "ok: 4. no digest memo in a refused directory"
stop_servers

# ---- 7. the secret's permissions ----
start_redis
REDIS=redis://127.0.0.1:$REDIS_PORT
S7=(-Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev -Wl,--cache-remote="$REDIS")
head -c 32 /dev/urandom >s7
# fix FILE: the chmod the warning of FILE.v gives, run.
fix() { local c; c=$(grep -o "chmod [^ ]* [^ ;]*" "$1.v" | head -1); [ -n "$c" ] || fail "$1: no fix given: $(cat "$1.v")"; $c; }
for mode in 0662 0620 0604; do
	chmod $mode s7
	OFFLINK_CACHE_SECRET_FILE=$T/s7 dev_link w$mode "${S7[@]}"
	contains w$mode.v "cache secret $T/s7:"
	contains w$mode.v "the secret is not used"
	contains w$mode.v "remotes need a secret"
	grep -q "device-link cache stored" w$mode.v && grep -q "remote" w$mode.v && rcli keys '*' | grep -q offlink &&
		fail "mode $mode: a remote was written with a secret others can change"
	fix w$mode
	[ $(( 0$(stat -c %a s7) & 026 )) = 0 ] || fail "mode $mode: the fix left mode $(stat -c %a s7)"
	OFFLINK_CACHE_SECRET_FILE=$T/s7 dev_link ok$mode "${S7[@]}"
	grep -q "cache secret" ok$mode.v && fail "mode $mode, fixed: still refused: $(grep 'cache secret' ok$mode.v)"
	rcli flushall >/dev/null
done
contains w0662.v "writable by everyone (mode 0662)"
contains w0620.v "writable by its group (mode 0620)"
contains w0604.v "readable by everyone (mode 0604)"
mkdir -m 777 wdir
cp secret wdir/secret
chmod 600 wdir/secret
OFFLINK_CACHE_SECRET_FILE=$T/wdir/secret dev_link wd "${S7[@]}"
contains wd.v "its directory $T/wdir is writable by everyone (mode 0777)"
fix wd
OFFLINK_CACHE_SECRET_FILE=$T/wdir/secret dev_link wdok "${S7[@]}"
grep -q "cache secret" wdok.v && fail "secret directory fixed: still refused: $(grep 'cache secret' wdok.v)"
chown 65534 wdir/secret
OFFLINK_CACHE_SECRET_FILE=$T/wdir/secret dev_link wo "${S7[@]}"
contains wo.v "owned by uid 65534, neither you nor root"
echo "ok: 7. secrets others can change are refused, with the fix"
stop_servers

# ---- 8. statistics locks held by another user ----
S=$T/shared8
mkdir -m 1777 "$S"
LOCKERS=()
stop_lockers() { for p in "${LOCKERS[@]}"; do kill -- -"$p" 2>/dev/null; done; LOCKERS=(); }
trap 'stop_lockers; stop_servers; [ "${KEEP_T:-0}" = 1 ] || rm -rf "$T"' EXIT
for d in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
	as_nobody mkdir -m 777 "$S/$d"
	as_nobody sh -c "umask 0; : >'$S/$d/stats'"
	# each holder in its own process group, output not on the test's
	# (a sleep left behind would keep ctest waiting for the pipe)
	setsid setpriv --reuid=65534 --regid=65534 --clear-groups \
		flock "$S/$d/stats" sleep 300 </dev/null >/dev/null 2>&1 &
	LOCKERS+=($!)
done
sleep 0.5
export OFFLINK_CACHE_DIR=$S OFFLINK_CACHE_SHARED=1 OFFLINK_CACHE_SECRET_FILE=$T/secret
DEV=(-Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev "${STUBLINK[@]}")
timeout 60 clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o "${DEV[@]}" -o l8 -Wl,--wrapper-verbose 2>l8.v ||
	fail "a link with every statistics lock held by another user did not finish (exit $?)"
[ "$(grep -c "locked by another process" l8.v)" = 1 ] || fail "expected one warning about the locks: $(grep -c 'locked by' l8.v)"
timeout 60 clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o "${DEV[@]}" -o l8b -Wl,--wrapper-verbose 2>l8b.v ||
	fail "the relink did not finish"
contains l8b.v "device-link cache hit"
timeout 30 "$BIN/offlink" --cache-stats >stats8.txt 2>&1 || fail "--cache-stats did not finish: $(cat stats8.txt)"
contains stats8.txt "entries:"
stop_lockers
unset OFFLINK_CACHE_DIR OFFLINK_CACHE_SHARED OFFLINK_CACHE_SECRET_FILE
echo "ok: 8. statistics never wait for another user's lock"

# ---- 9. a victim who is not root ----
V=$T/v
mkdir -p "$V/tmp" "$V/home/.cache"
cp k.o hostdev.o "$V/"
head -c 32 /dev/urandom >"$V/secret"
chmod 600 "$V/secret"
chown -R $VICTIM:$VICTIM "$V"
chmod 700 "$V/home"
vlink() { # STORE NAME: link as the victim, in $V, through the shared STORE
	(cd "$V" && as_victim env HOME="$V/home" TMPDIR="$V/tmp" OFFLINK_CACHE_DIR="$1" OFFLINK_CACHE_SHARED=1 \
		OFFLINK_CACHE_SECRET_FILE="$V/secret" clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o "${DEV[@]}" -o "$2" \
		-Wl,--wrapper-verbose 2>"$2.v") || fail "victim's link $2: $(tail -3 "$V/$2.v")"
}
S9=$T/shared9
mkdir -m 1777 "$S9"
for d in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
	as_nobody mkdir -m 1777 "$S9/$d"
	as_nobody truncate -s 2G "$S9/$d/$(printf "$d%.0s" $(seq 64))"
done
vlink "$S9" e1
contains "$V/e1.v" "device-link cache stored"
vlink "$S9" e2
contains "$V/e2.v" "device-link cache hit"
[ "$(grep -c "are another user's and cannot be removed by you" "$V/e1.v")" = 1 ] ||
	fail "expected one word about the entries the victim cannot remove: $(grep 'cannot be removed' "$V/e1.v")"
# A cap of 1 MiB: the victim's own entries are still kept in it by blocks.
S9b=$T/shared9b
mkdir -m 1777 "$S9b"
as_nobody mkdir -m 1777 "$S9b/0"
as_nobody dd if=/dev/zero of="$S9b/0/$(printf '0%.0s' $(seq 64))" bs=1M count=4 status=none
(cd "$V" && as_victim env HOME="$V/home" TMPDIR="$V/tmp" OFFLINK_CACHE_DIR="$S9b" OFFLINK_CACHE_SHARED=1 \
	OFFLINK_CACHE_SECRET_FILE="$V/secret" OFFLINK_CACHE_SIZE=2M clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o \
	"${DEV[@]}" -o e3 -Wl,--wrapper-verbose 2>e3.v) || fail "victim's capped link"
(cd "$V" && as_victim env HOME="$V/home" TMPDIR="$V/tmp" OFFLINK_CACHE_DIR="$S9b" OFFLINK_CACHE_SHARED=1 \
	OFFLINK_CACHE_SECRET_FILE="$V/secret" OFFLINK_CACHE_SIZE=2M clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o \
	"${DEV[@]}" -o e4 -Wl,--wrapper-verbose 2>e4.v) || fail "victim's capped relink"
contains "$V/e4.v" "device-link cache hit"
# Shards another user owns and the victim cannot write: said once.
S9c=$T/shared9c
mkdir -m 1777 "$S9c"
for d in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do as_nobody mkdir -m 755 "$S9c/$d"; done
vlink "$S9c" e5
[ "$(grep -c "you cannot write it (owned by uid 65534" "$V/e5.v")" = 1 ] ||
	fail "a shard the victim cannot write was not said once: $(grep 'device-link cache' "$V/e5.v")"
echo "ok: 9. eviction counts only what the user can remove, by blocks"
