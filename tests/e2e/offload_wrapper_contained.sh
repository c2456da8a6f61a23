#!/usr/bin/env bash
# Issue 26, item 3: offlink-wrapper's output is self-contained.  Its module
# named each image by path (.incbin), so `offlink-wrapper -o X X`
# registered the module's own text as the device image (both steps exited
# 0), and an image changed or deleted between the wrapper and the compile
# was silently what got embedded.  Now the module holds the images' bytes,
# as LLVM's tools' outputs do: wrap, change and delete the inputs, compile,
# and the registration is LLVM's, byte for byte; an output that is an
# input is an error naming both; a large image is streamed, never held in
# memory whole.
# ctest-cost: 16
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-14 clang-22 clang-offload-wrapper-14 llvm-offload-binary-22 llvm-objcopy-19
W22=/usr/lib/llvm-22/bin/llvm-offload-wrapper
[ -x "$W22" ] || need llvm-offload-wrapper-22
HARNESS=$OFFLINK_SRC/tests/lib/reg_harness.c

registration() {
	"$2" -DENTRIES="$3" "$HARNESS" "$4" -o "$1.exe" || fail "$1: the harness does not link"
	"./$1.exe" >"$1.out" || fail "$1: the harness failed"
}

# Images of every shape: a real device image, bytes whose length is no
# multiple of 8, one byte, and 3 MiB with runs of zeros, every byte value
# and a tail.
mkinputs() {
	echo 'int dev(int x) { return x + 1; }' >dev.c
	check "device image" clang-19 -fPIC -shared dev.c -o img.so
	printf 'SECOND-IMAGE-BYTES' >img2.bin
	printf 'Z' >img3.bin
	{ head -c 100000 /dev/zero; head -c 1000000 /dev/urandom; head -c 70000 /dev/zero
	  for _ in $(seq 1 256); do printf '%s' "$(seq -s' ' 0 40)"; done
	  head -c 2000000 /dev/urandom; printf 'tail7'; } >img4.bin
	printf 'FATBINARY-OR-BUNDLE-BYTES' >fat.bin
	check "packed image" llvm-offload-binary-22 -o packed.bin \
		--image=file=img.so,triple=x86_64-pc-linux-gnu,kind=openmp
}
# spoil: every input changed in place, or deleted.
spoil() {
	printf 'CHANGED' >img.so
	rm -f img2.bin img4.bin packed.bin
	printf 'X' >img3.bin
	printf 'CHANGED-CONTAINER' >fat.bin
}

# LLVM 14: wrap (LLVM's and ours), spoil, compile as clang 14 does.
mkinputs
imgs14=(img.so img2.bin img3.bin img4.bin)
check "LLVM 14" clang-offload-wrapper-14 -target x86_64-pc-linux-gnu -o llvm.14.bc "${imgs14[@]}"
check "offlink, 14" "$COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu -o ours.14.bc "${imgs14[@]}"
grep -q incbin ours.14.bc && fail "the module still names a file: $(grep incbin ours.14.bc | head -2)"
spoil
for who in llvm ours; do
	check "clang-14 -x ir ($who)" clang-14 -c -x ir "$who.14.bc" -o "$who.14.o"
	registration "$who.14" clang-14 32 "$who.14.o"
done
diff -u llvm.14.out ours.14.out || fail "LLVM 14: the registration differs after the inputs changed"
grep -c 'fnv' ours.14.out | grep -qx 4 || fail "LLVM 14: not 4 images: $(cat ours.14.out)"

# LLVM 22: each kind.
for k in openmp packed cuda hip; do
	mkinputs
	case $k in
	openmp) args=(--kind=openmp img.so img2.bin img4.bin) ;;
	packed) args=(--kind=openmp packed.bin) ;;
	*) args=(--kind=$k fat.bin) ;;
	esac
	check "LLVM 22, $k" "$W22" --triple=x86_64-pc-linux-gnu "${args[@]}" -o "llvm.$k.bc"
	check "offlink, $k" "$COMPAT/llvm-offload-wrapper" --triple=x86_64-pc-linux-gnu "${args[@]}" \
		-o "ours.$k.bc"
	spoil
	for who in llvm ours; do
		check "clang-22 -c ($who, $k)" clang-22 -c "$who.$k.bc" -o "$who.$k.o"
		registration "$who.$k" clang-22 56 "$who.$k.o"
	done
	diff -u "llvm.$k.out" "ours.$k.out" || fail "LLVM 22, $k: the registration differs after the inputs changed"
	if [ $k = openmp ] || [ $k = packed ]; then
		for who in llvm ours; do
			llvm-objcopy-19 --dump-section .llvm.offloading="$who.$k.sec" "$who.$k.o" /dev/null
		done
		same_bytes "llvm.$k.sec" "ours.$k.sec"
	fi
	echo "ok: LLVM 22, $k: self-contained"
done

# An output that is one of the inputs: an error naming both, the file
# untouched -- by its own name, another spelling, or a hard link.
mkinputs
cp img.so X
cp X X.before
expect_status 2 "$COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu -o X X
contains "$T/stderr" "the output X is the input X"
same_bytes X X.before
expect_status 2 "$COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu -o ./X img2.bin X
contains "$T/stderr" "the output ./X is the input X"
ln X Xlink
expect_status 2 "$COMPAT/llvm-offload-wrapper" --kind=openmp -o Xlink img.so X
contains "$T/stderr" "the output Xlink is the input X"
cp fat.bin F
expect_status 2 "$COMPAT/llvm-offload-wrapper" --kind=cuda -o F F
contains "$T/stderr" "the output F is the input F"
same_bytes X X.before
no_leftovers .

# Memory: a 48 MiB image is streamed (1 MiB at a time), not held whole.
head -c $((48 << 20)) /dev/urandom >big.bin
/usr/bin/time -f %M -o rss "$COMPAT/clang-offload-wrapper" -target x86_64-pc-linux-gnu \
	-o big.bc big.bin 2>time.err || fail "the large image: $(cat time.err)"
rss=$(tail -1 rss)
echo "48 MiB image: peak resident $rss KiB"
[ "$rss" -lt $((32 << 10)) ] || fail "wrapping a 48 MiB image took $rss KiB: held in memory"
check "clang-14 -x ir (large)" clang-14 -c -x ir big.bc -o big.o
registration big clang-14 32 big.o
contains big.out "image 0: $((48 << 20)) bytes"
echo "PASS: offlink-wrapper's output holds the images"
