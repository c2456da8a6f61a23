#!/usr/bin/env bash
# Issue 17, items 2, 3 and 5: keys that travel, and remote storage on real
# servers (redis-server; nginx with WebDAV PUT), on loopback.
#  - two checkouts at different paths, each with a local cache of its own,
#    sharing one remote: the second build is a remote hit, runs no device
#    linker, fills its local cache, and its program is the first's; the
#    device library is named by an absolute path inside each checkout,
#    which --cache-base-dir (OFFLINK_CACHE_BASE_DIR) makes the same;
#  - the same through HTTP;
#  - a server stopped, and one that accepts but never answers (SIGSTOP):
#    the link goes on, with one warning, within the timeout;
#  - junk and forged values on the server are misses, never link inputs;
#  - a read-only remote is never written; a remote without the shared
#    secret is not used; a password never appears in a message;
#  - offlink --cache-stats counts local and remote hits;
#  - libcurl is loaded only once a remote is named (cache/curl_lazy.c):
#    a link without one does not pay for its libraries' start.
# (The objects are compiled once and copied into both checkouts, as a farm
# sharing a compiler cache gets them: clang names OpenMP target regions
# after the source file's inode, so two compiles of one source at two
# places give different device code.)
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
. "$OFFLINK_SRC/tests/lib/servers.sh"
need gcc ar cmp

# no remote named: libcurl is not in the process (LD_DEBUG lists every
# library the loader opens); named: it is, and it works (below)
LD_DEBUG=libs "$OFFLINK_BUILD/bin/offlink" --version >/dev/null 2>ldlibs.txt
grep -q 'calling init: .*libc\.so' ldlibs.txt || fail "LD_DEBUG=libs said nothing: $(head -c 300 ldlibs.txt)"
! grep -q 'libcurl' ldlibs.txt || fail "offlink loads libcurl with no remote named"
LD_DEBUG=libs OFFLINK_CACHE_DIR=$T/probe-cache OFFLINK_CACHE_REMOTE=redis://127.0.0.1:1/ \
	"$OFFLINK_BUILD/bin/offlink" --cache-stats >/dev/null 2>ldlibs.txt
grep -q 'libcurl' ldlibs.txt || fail "a remote is named, but libcurl was not loaded to read its URL"

start_redis
start_nginx
head -c 32 /dev/urandom >secret
chmod 600 secret
export OFFLINK_CACHE_SECRET_FILE=$T/secret OFFLINK_CACHE_BASE_DIR=$T

dev_caller
echo 'int dev(int x) { return 3 * x; }' >dev.c
for c in a b c d; do
	mkdir -p $c/proj/lib
	cp k.o hostdev.o $c/proj/
	check "libdev" gcc -O2 -fPIC -c dev.c -o $c/proj/lib/dev.o
	ar rcs $c/proj/lib/libdev.a $c/proj/lib/dev.o
done

# build CHECKOUT NAME REMOTE [ARGS...]: link in CHECKOUT/proj with its own
# local cache; NAME.v, NAME.out in that directory.
build() {
	local c=$1 name=$2 remote=$3
	shift 3
	(cd "$T/$c/proj" &&
		OFFLINK_CACHE_DIR=$T/$c/cache clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o \
			-Xoffload-linker -L"$T/$c/proj/lib" -Xoffload-linker -ldev "${STUBLINK[@]}" -o "$name" \
			-Wl,--cache-remote="$remote" -Wl,--wrapper-verbose "$@" 2>"$name.v") ||
		fail "$c: link of $name: $(grep -v '^offlink:  ' "$T/$c/proj/$name.v" | tail -3)"
	(cd "$T/$c/proj" && run "$name")
}
V() { echo "$T/$1/proj/$2.v"; }
device_linked() { grep -v -- "'-###'$" "$1" | grep -q -- "--target=x86_64-pc-linux-gnu .*-shared"; }

REDIS=redis://127.0.0.1:$REDIS_PORT
HTTP=http://127.0.0.1:$NGINX_PORT/cache/
for remote in "$REDIS" "$HTTP"; do
	if [ "$remote" = "$REDIS" ]; then one=a two=b; else one=c two=d; fi
	build $one p1 "$remote"
	contains "$(V $one p1)" "device-link cache miss"
	device_linked "$(V $one p1)" || fail "no device link on a miss"
	build $two p2 "$remote"
	contains "$(V $two p2)" "device-link cache hit (remote $remote)"
	contains "$(V $two p2)" "(device-link cache: remote hit, $remote)"
	device_linked "$(V $two p2)" && fail "a device linker ran on a remote hit"
	cmp -s $one/proj/p1 $two/proj/p2 || fail "$remote: the remote hit gave another program"
	contains $two/proj/p2.out "dev=42"
	build $two p3 "$remote"
	contains "$(V $two p3)" "device-link cache hit (local)"
done
[ "$(rcli dbsize)" -ge 2 ] || fail "redis holds $(rcli dbsize) keys"
[ -n "$(find www/cache -type f)" ] || fail "nothing was stored over HTTP"

# Statistics.
OFFLINK_CACHE_DIR=$T/b/cache "$BIN/offlink" --cache-stats >stats.txt || fail "--cache-stats failed"
contains stats.txt "remote hits"
grep -Eq "remote hits +1$" stats.txt || fail "stats: $(cat stats.txt)"
grep -Eq "local hits +1$" stats.txt || fail "stats: $(cat stats.txt)"

# Junk and forged values: misses, and the program is still right.
key=$(grep -o 'entry [0-9a-f]\{64\}' "$(V b p2)" | head -1 | cut -d' ' -f2)
[ -n "$key" ] || fail "no entry key in the remote hit's messages"
good=$(mktemp -p "$T")
rcli --raw get "offlink:$key" | head -c -1 >"$good"
rcli set "offlink:$key" "junk" >/dev/null
rm -rf b/cache
build b junk "$REDIS"
contains "$(V b junk)" "device-link cache miss"
contains b/proj/junk.out "dev=42"
# a forged value: a valid entry with its value changed (the HMAC fails)
sed 's/\x7fELF/\x7fELG/' "$good" >forged
rcli -x set "offlink:$key" <forged >/dev/null
rm -rf b/cache
build b forged "$REDIS"
contains "$(V b forged)" "device-link cache miss: an entry failed its check"
contains b/proj/forged.out "dev=42"
echo "junk" >"www/cache/$key"
rm -rf d/cache
build d junkhttp "$HTTP"
contains "$(V d junkhttp)" "device-link cache miss"
contains d/proj/junkhttp.out "dev=42"

# Read-only: never written.
rcli flushall >/dev/null
rm -rf a/cache
build a ro "$REDIS|read-only"
[ "$(rcli dbsize)" = 0 ] || fail "a read-only remote was written"

# A remote without the shared secret is not used.
OFFLINK_CACHE_SECRET_FILE= build a nosecret "$REDIS"
contains "$(V a nosecret)" "remotes need a secret shared by their users"

# A server that accepts and never answers, then one that is gone: the link
# goes on, one warning each, and no password shown.
kill -STOP "$REDIS_PID"
rm -rf a/cache
(build a stopped "$REDIS|operation-timeout=300") &
link_pid=$!
if ! timeout 120 tail --pid="$link_pid" -f /dev/null; then
	kill "$link_pid"
	fail "a link against a server that never answers hung"
fi
wait "$link_pid" || fail "a link against a server that never answers failed"
[ "$(grep -c 'device-link cache remote' "$(V a stopped)")" = 1 ] ||
	fail "expected one warning about the stopped remote: $(grep 'cache remote' "$(V a stopped)")"
contains a/proj/stopped.out "dev=42"
kill -CONT "$REDIS_PID"
kill "$REDIS_PID"
wait "$REDIS_PID" 2>/dev/null
rm -rf a/cache
build a down "redis://:s3cret-word@127.0.0.1:$REDIS_PORT"
[ "$(grep -c 'device-link cache remote' "$(V a down)")" = 1 ] || fail "expected one warning about the remote that is gone"
contains "$(V a down)" "redis://127.0.0.1:$REDIS_PORT"
grep -q "s3cret-word" "$(V a down)" && fail "a password was shown"
contains a/proj/down.out "dev=42"
echo "PASS: remote device-link cache (Redis, HTTP)"
