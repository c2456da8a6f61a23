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
# Parts 23 and 24 (issue 43, in the sid root): as those releases' tools,
# run by hand with no --llvm (the newest LLVM installed decides): offload
# binaries of versions 2 and 3 (one and two images: the first is
# registered), --relocatable, and --kind=sycl (clang-sycl-linker's
# binary, registered as it is: 23 at priority 1 with a destructor, 24 at
# 101 with atexit).
# ctest-parts: main 23 24
# ctest-sid: 23 24
. "$OFFLINK_SRC/tests/lib/testlib.sh"
HARNESS=$OFFLINK_SRC/tests/lib/reg_harness.c

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

if [ "${OFFLINK_PART:-main}" != main ]; then
N=$OFFLINK_PART
need clang-$N llvm-offload-binary-$N llvm-offload-wrapper-$N readelf llvm-objcopy-$N
HARNESS=$OFFLINK_SRC/tests/lib/reg_harness.c
registration() {
	"clang-$N" -DENTRIES=56 "$HARNESS" "$2" -o "$1.exe" || fail "$1: the harness does not link"
	"./$1.exe" >"$1.out" || fail "$1: the harness failed"
}
echo 'int dev(int x) { return x + 1; }' >dev.c
check "device image" "clang-$N" -fPIC -shared dev.c -o img.so
printf 'SECOND-IMAGE-BYTES' >img2.bin
check "one image" llvm-offload-binary-$N -o one.bin --image=file=img.so,triple=x86_64-pc-linux-gnu,kind=openmp
check "two images" llvm-offload-binary-$N -o two.bin --image=file=img.so,triple=x86_64-pc-linux-gnu,kind=openmp \
	--image=file=img2.bin,triple=nvptx64-nvidia-cuda,arch=sm_90,kind=openmp
check "a SYCL image" llvm-offload-binary-$N -o sycl.bin --image=file=img2.bin,triple=spirv64-unknown-unknown,kind=sycl
[ "$(od -An -tu4 -j4 -N4 one.bin | tr -d ' ')" = $((N - 21)) ] || fail "LLVM $N's binary is not version $((N - 21))"
for k in raw one two reloc sycl; do
	case $k in
	raw) args=(--kind=openmp img.so img2.bin) ;;
	one) args=(--kind=openmp one.bin) ;;
	two) args=(--kind=openmp two.bin) ;;
	reloc) args=(--kind=openmp --relocatable one.bin) ;;
	sycl) args=(--kind=sycl sycl.bin) ;;
	esac
	check "LLVM $N, $k" llvm-offload-wrapper-$N --triple=x86_64-pc-linux-gnu "${args[@]}" -o "llvm.$k.bc"
	# (run by hand: the release is the newest installed, $N's own is 24)
	check "offlink, $k" "$COMPAT/llvm-offload-wrapper" --llvm=$N --triple=x86_64-pc-linux-gnu \
		"${args[@]}" -o "ours.$k.bc"
	for who in llvm ours; do
		check "clang-$N -c ($who, $k)" "clang-$N" -c "$who.$k.bc" -o "$who.$k.o"
		registration "$who.$k" "$who.$k.o"
		readelf -SW "$who.$k.o" | grep -oE '\.(init|fini)_array\.[0-9]+|\.llvm\.offloading[.a-z]*' |
			sort >"$who.$k.arrays"
	done
	same $k
	diff -u llvm.$k.arrays ours.$k.arrays || fail "$k: other sections than LLVM $N's"
	sec=.llvm.offloading
	[ $k = reloc ] && sec=.llvm.offloading.relocatable
	if [ $k != raw ]; then
		for who in llvm ours; do
			llvm-objcopy-$N --dump-section "$sec=$who.$k.sec" "$who.$k.o" /dev/null
		done
		same_bytes llvm.$k.sec ours.$k.sec
	fi
done
grep -q "image 0: $(stat -c %s img.so) bytes" ours.two.out || fail "the first image of two is not the one registered"
contains ours.sycl.out "sycl_register_lib: $(stat -c %s sycl.bin) bytes"
# Run by hand the tool follows the newest LLVM installed (24 here), not
# the newest offlink knew of before.
check "offlink, no --llvm" "$COMPAT/llvm-offload-wrapper" --kind=sycl sycl.bin -o nollvm.bc
check "clang-$N -c (no --llvm)" "clang-$N" -c nollvm.bc -o nollvm.o
readelf -SW nollvm.o | grep -q '\.init_array\.101' || fail "without --llvm, not LLVM 24's constructor"
expect_status 2 "$COMPAT/llvm-offload-wrapper" --kind=sycl --relocatable sycl.bin -o x.bc
contains "$T/stderr" "--relocatable is for OpenMP images"
echo "PASS: offlink-wrapper registers as LLVM $N's llvm-offload-wrapper"
exit 0
fi

need clang-14 clang-22 clang-19 clang-offload-wrapper-14 llvm-offload-binary-22 readelf llvm-objcopy-19
W22=/usr/lib/llvm-22/bin/llvm-offload-wrapper
[ -x "$W22" ] || need llvm-offload-wrapper-22

# images: a real x86_64 device image, and some bytes
echo 'int dev(int x) { return x + 1; }' >dev.c
check "device image" clang-19 -fPIC -shared dev.c -o img.so
printf 'SECOND-IMAGE-BYTES' >img2.bin
printf 'FATBINARY-OR-BUNDLE-BYTES' >fat.bin
check "packed image" llvm-offload-binary-22 -o packed.bin --image=file=img.so,triple=x86_64-pc-linux-gnu,kind=openmp

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
contains "$T/stderr" "--kind=openmp|cuda|hip|sycl is required"
expect_status 2 "$COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu img.so
contains "$T/stderr" "-o <file> is required"
expect_status 1 "$COMPAT/llvm-offload-wrapper" --kind=openmp missing.img -o x.bc
contains "$T/stderr" "missing.img"
[ ! -e x.bc ] || fail "an output was written after an error"
echo "PASS: offlink-wrapper registers as LLVM 14's and LLVM 22's tools"
