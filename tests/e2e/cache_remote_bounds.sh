#!/usr/bin/env bash
# Issue 25, items 10 and 11: remotes bounded in time and memory, URLs read
# by libcurl.
#  10. One deadline per remote operation: a Redis server that dribbles a
#      byte every 0.5 s held the link past operation-timeout (hiredis's
#      timeout is per read).  A reply declaring 40 GiB was buffered until
#      memory ran out (Redis) or up to 2 GiB (HTTP): now it is refused from
#      its header.  (tests/lib/hostile_server.c plays the broken server:
#      no real Redis or nginx misbehaves so.)  Each link goes on, one
#      warning, and the program runs.
#  11. URLs through libcurl's URL parser: a password holding '/' or '@'
#      works and is never shown; a token given as the user name is not
#      shown by --cache-stats; http://[::1]:port/ works (it failed every
#      link); a URL that cannot be used is a warning, never a failed link.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
. "$OFFLINK_SRC/tests/lib/servers.sh"
need timeout

dev_caller
mkdir -p lib
printf 'int dev(int x) { return 3 * x; }\n' >lib/dev.c
check "dev.o" gcc -O2 -fPIC -c lib/dev.c -o lib/dev.o
check "libdev.a" ar rcs lib/libdev.a lib/dev.o
head -c 32 /dev/urandom >secret
chmod 600 secret
export OFFLINK_CACHE_SECRET_FILE=$T/secret

# link NAME REMOTE [ENV...]: a link through REMOTE with a fresh local
# cache, bounded at 60 s (a hang is a failure), run.
link() {
	local name=$1 remote=$2
	shift 2
	rm -rf "$T/lc"
	env OFFLINK_CACHE_DIR="$T/lc" "$@" timeout 60 clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o \
		-Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev "${STUBLINK[@]}" -Wl,--cache-remote="$remote" \
		-o "$name" -Wl,--wrapper-verbose 2>"$name.v"
	local st=$?
	[ $st = 124 ] && fail "$name: the link hung (still running after 60 s)"
	[ $st = 0 ] || fail "$name: the link failed: $(grep -v '^offlink:  ' "$name.v" | tail -3)"
	run "$name"
	contains "$name.out" "dev=42"
}
one_warning() { # NAME TEXT
	[ "$(grep -c 'device-link cache remote' "$1.v")" = 1 ] ||
		fail "$1: expected one warning about the remote: $(grep 'cache remote' "$1.v")"
	contains "$1.v" "$2"
}

# ---- 10. bounds ----
# cap: run under an address-space cap that a 40 GiB buffer would break,
# except in a sanitizer build (ASan reserves terabytes of shadow at start;
# there the warning alone shows the reply was refused from its header).
cap() {
	case "$(ldd "$BIN/offlink")" in
	*libasan*) "$@" ;;
	*) (ulimit -v 8000000 && "$@") ;;
	esac
}
hostile() { # MODE: HOSTILE_PORT
	rm -f "$T/port"
	"$HELP/hostile_server" "$1" "$T/port" &
	SERVER_PIDS+=($!)
	for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
	HOSTILE_PORT=$(cat "$T/port")
}
hostile redis-dribble
link dribble "redis://127.0.0.1:$HOSTILE_PORT|operation-timeout=1000"
one_warning dribble "no answer within 1000 ms"
hostile redis-huge
cap link huge "redis://127.0.0.1:$HOSTILE_PORT"
one_warning huge "announced a reply of 42949672960 bytes"
hostile http-huge
cap link httphuge "http://127.0.0.1:$HOSTILE_PORT/c/"
one_warning httphuge "announced a reply of 42949672960 bytes"
stop_servers
echo "ok: 10. one deadline per operation; replies judged by their header"

# ---- 11. URLs ----
REDIS_PASSWORD='s3cr/et@x'
start_redis --requirepass "$REDIS_PASSWORD"
URL="redis://:s3cr%2Fet%40x@127.0.0.1:$REDIS_PORT"
link p1 "$URL"
contains p1.v "device-link cache stored"
link p2 "$URL"
grep -q "device-link cache hit (remote redis://127.0.0.1:$REDIS_PORT)" p2.v ||
	fail "no remote hit with a password holding / and @: $(grep 'device-link cache' p2.v)"
OFFLINK_CACHE_DIR=$T/lc OFFLINK_CACHE_REMOTE="$URL" "$BIN/offlink" --cache-stats >stats.txt 2>&1 ||
	fail "--cache-stats: $(cat stats.txt)"
contains stats.txt "remote:           redis://127.0.0.1:$REDIS_PORT"
# A stopped server: the warning names the remote without its password.
kill -STOP "$REDIS_PID"
link p3 "$URL|operation-timeout=300"
kill -CONT "$REDIS_PID"
one_warning p3 "redis://127.0.0.1:$REDIS_PORT"
for f in p1.v p2.v p3.v stats.txt; do
	grep -qE 's3cr|et@x|%2F|%40' "$f" && fail "$f shows the password: $(grep -E 's3cr|et@x' "$f" | head -2)"
done
stop_servers
unset REDIS_PASSWORD

# A token as the user name, an IPv6 host.
if ip -6 addr show lo 2>/dev/null | grep -q '::1'; then
	NGINX_LISTEN='[::1]' start_nginx
	H="http://tok3n@[::1]:$NGINX_PORT/cache/"
	link h1 "$H"
	contains h1.v "device-link cache stored"
	link h2 "$H"
	grep -q "device-link cache hit (remote http://\[::1\]:$NGINX_PORT/cache/)" h2.v ||
		fail "no remote hit through http://[::1]: $(grep 'device-link cache' h2.v)"
	OFFLINK_CACHE_DIR=$T/lc OFFLINK_CACHE_REMOTE="$H" "$BIN/offlink" --cache-stats >stats6.txt 2>&1
	contains stats6.txt "remote:           http://[::1]:$NGINX_PORT/cache/"
	grep -q tok3n h1.v h2.v stats6.txt && fail "the user name (a token) was shown"
	stop_servers
else
	echo "NOTE: this machine has no IPv6 loopback; the http://[::1] case was not run" >&2
fi

# URLs that cannot be used: a warning each, the link goes on.
for bad in "redis://:pw@127.0.0.1:99999" "ftp://tok3n:pw@h/" "redis://127.0.0.1|sometimes" "not a url"; do
	link bad "$bad"
	one_warning bad "not used"
	grep -qE 'tok3n|:pw' bad.v && fail "'$bad': the warning shows a credential: $(grep 'cache remote' bad.v)"
done
echo "ok: 11. URLs are libcurl's, credentials never shown, a bad one never fails a link"
