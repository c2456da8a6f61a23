#!/usr/bin/env bash
# Issue 17, item 0: the device-link cache never links stale device code.
# Each case links, changes one thing the device link reads, relinks
# through the cache and runs the program, which must print the new device
# code's value (each of these relinked the old code before the fix):
#   1. a device library given as -Xoffload-linker -L<dir> -ldev, rebuilt;
#   2. a linker script given to the device link, rewritten; then an object
#      it names (INPUT) rebuilt, the script unchanged;
#   3. a response file given to the device link (--device-linker=@file),
#      rewritten;
#   4. the ld that clang runs for the device link, found through PATH,
#      replaced at the same path;
#   5. the library rewritten in place with its size and time restored;
#   6. LD_RUN_PATH (the device image's RUNPATH picks the library it loads).
# Then CACHE_FUZZ_ROUNDS (default 16) rounds change one input at random
# (seed printed; CACHE_FUZZ_SEED repeats a run) and check that the cached
# relink is byte for byte the program an uncached link gives.
# ctest-cost: 45
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc ar cmp

mkdir -p lib libA libB bin
dev_caller

# devlib DIR FACTOR [NAME]: DIR/lib<NAME>.a whose dev(x) is FACTOR * x
# (and dev_alt, 100 * x), built as the device link wants it (PIC).
devlib() {
	local dir=$1 f=$2 name=${3:-dev}
	printf 'int dev(int x) { return %s * x; }\nint dev_alt(int x) { return 100 * x; }\n' "$f" >"$dir/$name.c"
	check "build $dir/$name" gcc -O2 -fPIC -c "$dir/$name.c" -o "$dir/$name.o"
	rm -f "$dir/lib$name.a"
	check "archive $dir/$name" ar rcs "$dir/lib$name.a" "$dir/$name.o"
}

expect() { # NAME VALUE WHAT
	[ "$(dev_value "$1")" = "$2" ] || fail "$3: the program printed dev=$(dev_value "$1"), not dev=$2 (stale device code)"
}
hit() { grep -q "device-link cache hit" "$1.v" || fail "$1: expected a cache hit: $(grep 'device-link cache' "$1.v")"; }
miss() { grep -q "device-link cache miss" "$1.v" || fail "$1: expected a cache miss: $(grep 'device-link cache' "$1.v")"; }

# 1. -Xoffload-linker -ldev, the library rebuilt.
# (paths relative to the working directory, as a build writes them)
devlib lib 3
dev_link l1 -Xoffload-linker -Llib -Xoffload-linker -ldev
expect l1 42 "first link"
dev_link l1again -Xoffload-linker -Llib -Xoffload-linker -ldev
hit l1again
devlib lib 5
dev_link l2 -Xoffload-linker -Llib -Xoffload-linker -ldev
expect l2 70 "-ldev rebuilt"
miss l2

# 2. A linker script (an input of the device link naming an object).
devlib libA 2
devlib libB 4
echo "INPUT(libA/dev.o)" >dev.lds
dev_link s1 -Xoffload-linker dev.lds
expect s1 28 "script naming libA"
echo "INPUT(libB/dev.o)" >dev.lds
dev_link s2 -Xoffload-linker dev.lds
expect s2 56 "script rewritten"
# the script unchanged, the object it names rebuilt: only the linker's
# dependency file knows it was read
devlib libB 6
dev_link s3 -Xoffload-linker dev.lds
expect s3 84 "object named by an unchanged script, rebuilt"

# 3. A response file given to the device link.
devlib libA 2
devlib libB 4
echo "-LlibA -ldev" >dev.rsp
dev_link r1 -Wl,--device-linker=@dev.rsp
expect r1 28 "response file naming libA"
echo "-LlibB -ldev" >dev.rsp
dev_link r2 -Wl,--device-linker=@dev.rsp
expect r2 56 "response file rewritten"

# 4. The ld clang runs, found through PATH, replaced at the same path:
# the second one links the device image with dev bound to dev_alt.
devlib lib 3
printf '#!/bin/sh\nexec /usr/bin/ld "$@"\n' >bin/ld
chmod +x bin/ld
PATH=$T/bin:$PATH dev_link p1 -Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev
grep -q "^$T/bin/ld " p1.v || grep -q "$T/bin/ld" p1.v || fail "clang did not run the ld on PATH"
expect p1 42 "ld on PATH"
cat >bin/ld <<'EOF'
#!/bin/sh
case " $* " in *" -shared "*) exec /usr/bin/ld --defsym=dev=dev_alt "$@" ;; esac
exec /usr/bin/ld "$@"
EOF
PATH=$T/bin:$PATH dev_link p2 -Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev
expect p2 1400 "ld on PATH replaced"

# 5. The library rewritten in place, same size, its time restored.  (The
# sleep lets the first link remember the library's digest: a file younger
# than two seconds is digested again every time.)
devlib lib 3
cp -p lib/libdev.a old.a
sleep 3
dev_link i1 -Xoffload-linker -Llib -Xoffload-linker -ldev
expect i1 42 "before the rewrite"
devlib lib 5
mv lib/libdev.a new.a
cp -p old.a lib/libdev.a
[ "$(stat -c %s new.a)" = "$(stat -c %s lib/libdev.a)" ] || fail "the two libraries differ in size (the case needs one size)"
sleep 3
dev_link i1again -Xoffload-linker -Llib -Xoffload-linker -ldev
expect i1again 42 "the same library copied back"
ino=$(stat -c %i lib/libdev.a)
cat new.a >lib/libdev.a
touch -r old.a lib/libdev.a
[ "$(stat -c %i.%s.%Y lib/libdev.a)" = "$ino.$(stat -c %s old.a).$(stat -c %Y old.a)" ] ||
	fail "the rewrite did not keep the inode, size and time"
dev_link i2 -Xoffload-linker -Llib -Xoffload-linker -ldev
expect i2 70 "library rewritten in place, time restored"

# 6. LD_RUN_PATH: the device image loads dir/libdev.so by its RUNPATH.
for d in libA libB; do
	f=2
	[ $d = libB ] && f=4
	printf 'int dev(int x) { return %s * x; }\n' $f >$d/so.c
	check "libdev.so in $d" gcc -shared -fPIC -o $d/libdev.so $d/so.c
done
cp libA/libdev.so lib/libdev.so
LD_RUN_PATH=$T/libA dev_link e1 -Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev
expect e1 28 "LD_RUN_PATH=libA"
LD_RUN_PATH=$T/libB dev_link e2 -Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev
expect e2 56 "LD_RUN_PATH=libB"
rm lib/libdev.so

# Random rounds: change one input, relink through the cache and without
# it; the two programs must be the same bytes.  (Nothing runs them: both
# links take the runtime stub's libomptarget, which spares GNU ld reading
# libLLVM, the real one's dependency, twice a link.)
. "$OFFLINK_SRC/tests/lib/stub.sh"
seed=${CACHE_FUZZ_SEED:-$(( $(date +%s) % 100000 ))}
rounds=${CACHE_FUZZ_ROUNDS:-16}
echo "random rounds: CACHE_FUZZ_SEED=$seed CACHE_FUZZ_ROUNDS=$rounds"
RANDOM=$seed
devlib lib 3
devlib libA 2
echo "INPUT($T/libA/dev.o)" >dev.lds
echo "-L$T/lib -ldev" >dev.rsp
printf '#!/bin/sh\nexec /usr/bin/ld "$@"\n' >bin/ld
runpath=$T/libA
uses=(-Xoffload-linker "$T/dev.lds")
for ((r = 0; r < rounds; r++)); do
	case $((RANDOM % 6)) in
	0) devlib lib $((RANDOM % 9 + 1)); what="libdev.a rebuilt"
	   uses=(-Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev) ;;
	1) devlib libA $((RANDOM % 9 + 1)); what="the object the script names rebuilt"
	   uses=(-Xoffload-linker "$T/dev.lds") ;;
	2) if ((RANDOM % 2)); then echo "INPUT($T/libA/dev.o)" >dev.lds; else echo "INPUT($T/lib/dev.o)" >dev.lds; fi
	   what="the script rewritten"; uses=(-Xoffload-linker "$T/dev.lds") ;;
	3) if ((RANDOM % 2)); then echo "-L$T/lib -ldev" >dev.rsp; else echo "-L$T/libA -ldev -z now" >dev.rsp; fi
	   what="the response file rewritten"; uses=(-Wl,--device-linker=@"$T/dev.rsp") ;;
	4) if ((RANDOM % 2)); then printf '#!/bin/sh\nexec /usr/bin/ld "$@"\n' >bin/ld
	   else printf '#!/bin/sh\nexec /usr/bin/ld --build-id=sha1 "$@"\n' >bin/ld; fi
	   what="the ld on PATH replaced" ;;
	5) runpath=$T/lib$((RANDOM % 3)); what="LD_RUN_PATH=$runpath" ;;
	esac
	LD_RUN_PATH=$runpath PATH=$T/bin:$PATH clang-19 "${OMP[@]}" -B "$COMPAT" k.o hostdev.o "${uses[@]}" \
		-L"$STUBDIR" -o cached 2>cached.err || fail "round $r ($what): cached link: $(tail -3 cached.err)"
	OFFLINK_CACHE_DIR=off LD_RUN_PATH=$runpath PATH=$T/bin:$PATH clang-19 "${OMP[@]}" -B "$COMPAT" k.o \
		hostdev.o "${uses[@]}" -L"$STUBDIR" -o uncached 2>uncached.err ||
		fail "round $r ($what): uncached link: $(tail -3 uncached.err)"
	cmp -s cached uncached || fail "round $r (seed $seed, $what): the cached relink differs from an uncached link"
done
echo "PASS: no stale device code (6 cases, $rounds random rounds)"
