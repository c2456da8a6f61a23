#!/usr/bin/env bash
# Issue 25, item 3: paths that reach the image under --cache-base-dir.
# Two checkouts, $T/a and $T/b, share one cache with the base directory
# $T, so their keys hold paths relative to each working directory.  The
# device code calls a shared library without an SONAME that the link line
# names by its absolute path: GNU ld writes that path into the device
# image's DT_NEEDED.  Checkout b must get an image that loads b's library,
# not a's: the path enters the key as it is, and an image that names a
# path the key held relative is never stored.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need gcc readelf

dev_caller
printf 'int dev(int x) { return 3 * x; }\n' >so.c
check "libso.so" gcc -shared -fPIC -o libso.so so.c
for c in a b; do
	mkdir -p $c/lib
	cp k.o $c/
	cp libso.so $c/lib/
done

# build CHECKOUT NAME: link in the checkout, through the shared cache.
build() {
	(cd "$T/$1" && clang-19 "${OMP[@]}" -B "$COMPAT" k.o "$T/$1/lib/libso.so" -o "$2" \
		-Wl,--cache-base-dir="$T" -Wl,--wrapper-verbose 2>"$2.v") ||
		fail "link in $1: $(grep -v '^offlink:  ' "$T/$1/$2.v" | tail -3)"
}
# needed CHECKOUT NAME: the DT_NEEDED of the program's x86_64 device image.
needed() {
	(cd "$T/$1" && check "extract" "$BIN/offlink-binary" "$2" --image=triple=x86_64-pc-linux-gnu,file="$2.img" &&
		readelf -d "$2.img" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
}

build a prog
needed a prog | grep -qx "$T/a/lib/libso.so" || fail "a's device image does not load a's library: $(needed a prog)"
build a again
contains "$T/a/again.v" "device-link cache hit"
build b prog
needed b prog | grep -qx "$T/b/lib/libso.so" ||
	fail "b's device image loads $(needed b prog | grep libso), not b's library (a's image, from the cache: $(grep 'device-link cache' "$T/b/prog.v" | head -1))"
# With a gone, b's program still runs its target region on the device.
rm -rf "$T/a"
(cd "$T/b" && LD_LIBRARY_PATH=/usr/lib/llvm-19/lib OMP_TARGET_OFFLOAD=MANDATORY ./prog >prog.out 2>prog.err) ||
	fail "b's program does not run without checkout a: $(head -c 300 "$T/b/prog.err")"
contains "$T/b/prog.out" "dev=42"
# b's own relink is a hit, with its own image.
build b again
contains "$T/b/again.v" "device-link cache hit"
needed b again | grep -qx "$T/b/lib/libso.so" || fail "b's relink loads $(needed b again | grep libso)"
echo "ok: an input path that reaches the image enters the key as it is"
