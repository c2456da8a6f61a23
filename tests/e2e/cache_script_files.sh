#!/usr/bin/env bash
# Issue 39, items 1 and 5: the files a wrapper script names, for the
# device-link cache.
#  1. The first ld in PATH is a Nix-style script that sources an absolute
#     flags.sh, which picks the directory of the device library (libA's
#     dev(x) is 2x, libB's 4x).  On a first link the key that holds the
#     script's named files is computed at the store, while the host linker
#     runs: flags.sh was checked only against the store's own read, so a
#     flags.sh changed after the device link read it was stored under the
#     new file's key, and the next link, nothing changed, ran the old
#     device code (18 of 37 trials).  Here the change always lands in that
#     window: the device link's own ld rewrites flags.sh after sourcing
#     it, the first time it runs.  Nothing may be stored; the next link
#     links libB.
#  5. A script that names its own path (a comment saying where it is
#     installed), or two scripts that name each other, turned the cache
#     off for good ("scripts that run scripts more than 4 deep"): each is
#     keyed once now, and a relink hits.
# ctest-cost: 15
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc ar

mkdir -p libA libB race-ld self mutual
dev_caller
for d in libA libB; do
	f=2
	[ $d = libB ] && f=4
	printf 'int dev(int x) { return %s * x; }\n' $f >$d/dev.c
	check "$d/dev.o" gcc -O2 -fPIC -c $d/dev.c -o $d/dev.o
	check "$d/libdev.a" ar rcs $d/libdev.a $d/dev.o
done
hit() { grep -q "device-link cache hit" "$1.v" || fail "$1: expected a cache hit: $(grep 'device-link cache' "$1.v")"; }
expect() { [ "$(dev_value "$1")" = "$2" ] || fail "$1: dev=$(dev_value "$1"), not dev=$2 (stale device code)"; }

# ---- 1. flags.sh changed between the device link and the store ----
printf 'EXTRA="-L%s/libA"\n' "$T" >flags.sh
cat >race-ld/ld <<EOF
#!/bin/sh
# ld-wrapper: the flags of the file it sources, then the real linker.  The
# first time it runs while $T/race exists, it rewrites that file after
# reading it, as an edit during a build would.
. $T/flags.sh
if rmdir $T/race 2>/dev/null; then
	printf 'EXTRA="-L%s/libB"\\n' "$T" >$T/flags.sh.new && mv $T/flags.sh.new $T/flags.sh
fi
exec /usr/bin/ld "\$@" \$EXTRA
EOF
chmod +x race-ld/ld
mkdir race
PATH=$T/race-ld:$PATH dev_link racing -Xoffload-linker -ldev
[ ! -e race ] || fail "the racing ld did not run"
grep -q "libB" flags.sh || fail "flags.sh was not rewritten"
expect racing 28 # (linked with the flags.sh it read)
grep -q "device-link cache stored" racing.v &&
	fail "an image linked under the old flags.sh was stored: $(grep 'cache stored' racing.v)"
contains racing.v "not stored: '$T/flags.sh' changed during the link"
PATH=$T/race-ld:$PATH dev_link after -Xoffload-linker -ldev
expect after 56
PATH=$T/race-ld:$PATH dev_link again -Xoffload-linker -ldev
expect again 56
hit again
echo "ok: flags.sh changed during a first link: nothing stored, the next link links the new flags"

# ---- 5. scripts that name themselves, or each other ----
cat >self/ld <<EOF
#!/bin/sh
# ld-wrapper, installed as $T/self/ld: the real linker, with libA.
exec /usr/bin/ld "\$@" -L$T/libA
EOF
cat >mutual/ld <<EOF
#!/bin/sh
# ld-wrapper: $T/mutual/ld-real does the work.
exec $T/mutual/ld-real "\$@"
EOF
cat >mutual/ld-real <<EOF
#!/bin/sh
# the real linker with libA; run through $T/mutual/ld.
exec /usr/bin/ld "\$@" -L$T/libA
EOF
chmod +x self/ld mutual/ld mutual/ld-real
for s in self mutual; do
	PATH=$T/$s:$PATH dev_link $s.1 -Xoffload-linker -ldev
	expect $s.1 28
	grep -q "scripts that run scripts" $s.1.v && fail "$s: $(grep 'device-link cache' $s.1.v)"
	contains $s.1.v "device-link cache stored"
	PATH=$T/$s:$PATH dev_link $s.2 -Xoffload-linker -ldev
	expect $s.2 28
	hit $s.2
	# and the script is still keyed: changed, it relinks
	sed -i "s|$T/libA|$T/libB|" $s/ld mutual/ld-real
	PATH=$T/$s:$PATH dev_link $s.3 -Xoffload-linker -ldev
	expect $s.3 56
	sed -i "s|$T/libB|$T/libA|" $s/ld mutual/ld-real
done
echo "ok: a script naming itself, and two naming each other, are cached"
echo "PASS: the files wrapper scripts name: held from the key to the store, each keyed once"
