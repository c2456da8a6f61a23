#!/usr/bin/env bash
# Issue 18, items 2 and 3: offlink-wrapper beside LLVM's own wrappers.
#  - as LLVM 22's llvm-offload-wrapper: --kind=openmp (two raw images, and
#    an offload binary, whose image is what is registered), cuda and hip
#    (a container); both outputs compiled by clang-22 and linked with a
#    harness that stands in for the runtimes (tests/lib/reg_harness.c):
#    the same registration, image by image and entry by entry, and the
#    same .llvm.offloading bytes;
#  - as LLVM 14's clang-offload-wrapper: two images, compiled as clang 14
#    compiles it (-x ir): the same registration, at priority 1, with the
#    constructor and destructor arrays LLVM 14 uses;
#  - with --llvm=19: the entry tables of LLVM 19 and older (32 bytes, a
#    section per kind), for images from any release offlink serves.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-14 clang-22 clang-19 clang-offload-wrapper-14 llvm-offload-binary-22 readelf llvm-objcopy-19
W22=/usr/lib/llvm-22/bin/llvm-offload-wrapper
[ -x "$W22" ] || need llvm-offload-wrapper-22
HARNESS=$OFFLINK_SRC/tests/lib/reg_harness.c

# images: a real x86_64 device image, and some bytes
echo 'int dev(int x) { return x + 1; }' >dev.c
check "device image" clang-19 -fPIC -shared dev.c -o img.so
printf 'SECOND-IMAGE-BYTES' >img2.bin
printf 'FATBINARY-OR-BUNDLE-BYTES' >fat.bin
check "packed image" llvm-offload-binary-22 -o packed.bin --image=file=img.so,triple=x86_64-pc-linux-gnu,kind=openmp

# registration NAME CLANG ENTRIES OBJ: link OBJ with the harness, run it.
registration() {
	"$2" -DENTRIES="$3" "$HARNESS" "$4" -o "$1.exe" || fail "$1: the harness does not link"
	"./$1.exe" >"$1.out" || fail "$1: the harness failed"
}
# same NAME: LLVM's and ours register the same.
same() {
	diff -u "llvm.$1.out" "ours.$1.out" || fail "$1: offlink-wrapper registers otherwise than LLVM's tool"
	echo "ok: $1 ($(grep -c '' "ours.$1.out") lines of registration, as LLVM's)"
}

# LLVM 22
for k in openmp packed cuda hip; do
	case $k in
	openmp) args=(--kind=openmp img.so img2.bin) ;;
	packed) args=(--kind=openmp packed.bin) ;;
	*) args=(--kind=$k fat.bin) ;;
	esac
	check "LLVM 22, $k" "$W22" --triple=x86_64-pc-linux-gnu "${args[@]}" -o "llvm.$k.bc"
	check "offlink, $k" "$COMPAT/llvm-offload-wrapper" --triple=x86_64-pc-linux-gnu "${args[@]}" \
		-o "ours.$k.bc"
	for who in llvm ours; do
		check "clang-22 -c ($who, $k)" clang-22 -c "$who.$k.bc" -o "$who.$k.o"
		registration "$who.$k" clang-22 56 "$who.$k.o"
	done
	same $k
	if [ $k = openmp ] || [ $k = packed ]; then
		for who in llvm ours; do
			llvm-objcopy-19 --dump-section .llvm.offloading="$who.$k.sec" "$who.$k.o" /dev/null
		done
		same_bytes llvm.$k.sec ours.$k.sec
	fi
done
# Names from the command line reach the module's header comment (the
# output, each image's path, the triple): escaped, so a name holding a
# comment end, a newline, a quote or a backslash changes nothing but the
# comment's text.
odd=$'odd "q" \\ \n#error x *'  # a directory: its path then holds "*/"
mkdir -p "$odd"
cp img.so "$odd/$odd.1"
cp img2.bin "$odd/$odd.2"
check "offlink, odd names" "$COMPAT/llvm-offload-wrapper" --triple=x86_64-pc-linux-gnu --kind=openmp \
	"$odd/$odd.1" "$odd/$odd.2" -o "$odd/$odd.bc"
check "clang-22 -c (odd names)" clang-22 -c "$odd/$odd.bc" -o odd.o
registration ours.odd clang-22 56 odd.o
diff -u ours.openmp.out ours.odd.out || fail "odd names register otherwise than plain ones"
grep -q '\\5C052/odd' "$odd/$odd.bc" || fail "the comment does not hold the escaped name: $(head -c 400 "$odd/$odd.bc")"
grep -q "image 0: $(stat -c %s img.so) bytes" ours.packed.out || fail "the packed binary's image is not the one registered"

# LLVM 14
check "LLVM 14" clang-offload-wrapper-14 -target x86_64-pc-linux-gnu -o llvm.14.bc img.so img2.bin
check "offlink, 14" "$COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu -o ours.14.bc img.so img2.bin
for who in llvm ours; do
	check "clang-14 -x ir ($who)" clang-14 -c -x ir "$who.14.bc" -o "$who.14.o"
	registration "$who.14" clang-14 32 "$who.14.o"
	readelf -SW "$who.14.o" | grep -oE '\.(init|fini)_array\.[0-9]+|\.llvm\.offloading' | sort >"$who.14.arrays"
done
same 14
diff -u llvm.14.arrays ours.14.arrays || fail "LLVM 14: other constructor or destructor sections"

# Entry tables of LLVM 19 and older
check "offlink, --llvm=19" "$COMPAT/llvm-offload-wrapper" --llvm=19 --kind=openmp img.so -o ours.19.bc
check "clang-19 -c" clang-19 -c ours.19.bc -o ours.19.o
registration ours.19 clang-19 32 ours.19.o
contains ours.19.out "register_lib: 1 image(s), entries 32 bytes"

# usage errors
expect_status 2 "$COMPAT/llvm-offload-wrapper" img.so -o x.bc
contains "$T/stderr" "--kind=openmp|cuda|hip is required"
expect_status 2 "$COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu img.so
contains "$T/stderr" "-o <file> is required"
expect_status 1 "$COMPAT/llvm-offload-wrapper" --kind=openmp missing.img -o x.bc
contains "$T/stderr" "missing.img"
[ ! -e x.bc ] || fail "an output was written after an error"
echo "PASS: offlink-wrapper registers as LLVM 14's and LLVM 22's tools"
