#!/usr/bin/env bash
# Issue 17, item 1: a cache directory that others can write.
#  - private use of a directory anyone can write (mode 1777), or of one
#    whose subdirectory another user made, is refused with a warning and
#    the link goes on uncached;
#  - --cache-shared without a secret is refused the same way;
#  - shared, with OFFLINK_CACHE_SECRET_FILE, against another user (nobody)
#    who made the 16 subdirectories first:
#      a planted entry (a valid SHA-256 entry, as the old format took, and
#      one claiming an HMAC) holding another program's device image is
#      never linked;
#      a FIFO planted at an entry's path does not hang the link;
#      a symbolic link planted at an entry's path is not read or written
#      through;
#      symbolic links planted as the subdirectories, pointing at the
#      victim's home, make eviction delete nothing there.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need setpriv xxd sha256sum timeout
[ "$(id -u)" = 0 ] || skip "needs root to act as a second user (setpriv to nobody); CI runs as root"

chmod 755 "$T"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

cat >k.c <<'EOF'
int scale(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = 3 * x;
  return r;
}
EOF
sed 's/3 \* x/7 * x/' k.c >evil.c
cat >main.c <<'EOF'
#include <stdio.h>
int scale(int);
int main(void) { printf("r=%d\n", scale(14)); return 0; }
EOF
cc -c k.c -o k.o
cc -c evil.c -o evil.o
cc -c main.c -o main.o
head -c 32 /dev/urandom >secret
chmod 640 secret

S=$T/shared
mkdir -m 1777 "$S"
link() { # OUT OBJ ARGS...
	local out=$1 obj=$2
	shift 2
	clang-19 "${OMP[@]}" -B "$COMPAT" main.o "$obj" "$@" "${STUBLINK[@]}" -o "$out" -Wl,--wrapper-verbose 2>"$out.v" ||
		fail "link of $out: $(grep -v '^offlink:  ' "$out.v" | tail -3)"
	run "$out"
}
entries() { find "$S" -mindepth 2 -maxdepth 2 -regextype posix-extended -regex '.*/[0-9a-f]{64}' | sort; }

# Private use of a world-writable directory: refused, uncached, linked.
OFFLINK_CACHE_DIR=$S link priv k.o
contains priv.v "device-link cache not used: $S is writable by everyone (mode 1777)"
contains priv.out "r=42"
[ -z "$(entries)" ] || fail "a refused cache directory was written"
# Shared without a secret: refused.
OFFLINK_CACHE_DIR=$S OFFLINK_CACHE_SHARED=1 link nosecret k.o
contains nosecret.v "--cache-shared needs a secret"
# A private cache whose subdirectory another user made: refused.
mkdir -m 777 own
as_nobody mkdir -m 777 "$T/own/a"
chmod 700 own
OFFLINK_CACHE_DIR=$T/own link ownsub k.o
contains ownsub.v "device-link cache not used: $T/own/a is owned by uid 65534"

# The attacker makes the 16 subdirectories first.
for d in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do as_nobody mkdir -m 777 "$S/$d"; done
export OFFLINK_CACHE_DIR=$S OFFLINK_CACHE_SHARED=1 OFFLINK_CACHE_SECRET_FILE=$T/secret
link first k.o
contains first.v "device-link cache miss"
link second k.o
contains second.v "device-link cache hit"
contains second.out "r=42"
image=$(grep -o 'entry [0-9a-f]\{64\}' second.v | head -1 | cut -d' ' -f2)
entry=$S/${image:0:1}/$image
[ -f "$entry" ] || fail "no entry $entry"

# The other program's device image, as the attacker would have it.
OFFLINK_CACHE_DIR=$T/evilcache OFFLINK_CACHE_SHARED=0 OFFLINK_CACHE_SECRET_FILE= link evil evil.o
contains evil.out "r=98"
evil_entry=$(grep -o 'entry [0-9a-f]\{64\}' evil.v | head -1 | cut -d' ' -f2)
evil_value=$T/evil.value
tail -c +97 "$(find "$T/evilcache" -name "$evil_entry")" >"$evil_value"

# forge FILE AUTH: an entry for the victim's key holding the evil image,
# with a valid SHA-256 check (AUTH 0) or claiming an HMAC (AUTH 1).
forge() {
	local out=$1 auth=$2 size
	size=$(stat -c %s "$evil_value")
	{
		head -c 16 "$entry"                      # magic
		printf '01%02x000000000000' "$auth" | xxd -r -p
		printf '%016x' "$size" | sed 's/../& /g' | tr ' ' '\n' | tac | tr -d '\n' | xxd -r -p
		tail -c +33 "$entry" | head -c 32        # the victim's key
	} >"$out.head"
	cat "$out.head" "$evil_value" | sha256sum | xxd -r -p >"$out.check"
	cat "$out.head" "$out.check" "$evil_value" >"$out"
}
for auth in 0 1; do
	forge forged$auth $auth
	as_nobody sh -c "cat '$T/forged$auth' >'$entry.new' && mv -f '$entry.new' '$entry'" ||
		fail "the attacker could not plant an entry"
	link planted$auth k.o
	contains planted$auth.out "r=42"
	contains planted$auth.v "device-link cache miss: an entry failed its check"
done

# A FIFO at the entry's path: no hang.
link refill k.o
as_nobody sh -c "rm -f '$entry' && mkfifo -m 666 '$entry'"
timeout 120 clang-19 "${OMP[@]}" -B "$COMPAT" main.o k.o -o fifo -Wl,--wrapper-verbose 2>fifo.v ||
	fail "the link with a FIFO planted in the cache failed or hung (exit $?)"
run fifo
contains fifo.out "r=42"

# A symbolic link at the entry's path, to a file of the victim's.
echo precious >victim_file
cp victim_file victim_file.orig
as_nobody sh -c "rm -f '$entry' && ln -s '$T/victim_file' '$entry'"
link symlinked k.o
contains symlinked.out "r=42"
cmp -s victim_file victim_file.orig || fail "the cache wrote through a planted symbolic link"

# Symbolic links as the subdirectories, to the victim's home, and a cap so
# small that every store evicts.
mkdir -p home
for f in .bashrc .gitconfig thesis.tex; do echo "$f" >home/$f; done
touch -d '3 hours ago' home/.bashrc home/.gitconfig
cp -a home home.orig
for d in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
	as_nobody sh -c "rm -rf '$S/$d' && ln -s '$T/home' '$S/$d'"
done
OFFLINK_CACHE_SIZE=1K link evicting1 k.o
contains evicting1.v "is not a directory"
OFFLINK_CACHE_SIZE=1K link evicting2 evil.o
contains evicting2.out "r=98"
diff -r home.orig home >/dev/null || fail "files in the victim's home changed: $(diff -r home.orig home)"
echo "PASS: shared cache attacks fail"
