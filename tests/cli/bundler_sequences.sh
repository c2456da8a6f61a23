#!/usr/bin/env bash
# Issue 32, item 3: several bundles back to back, as a HIP library's
# .hip_fatbin holds them (one per translation unit, each section aligned
# to 4096, so zero padding between them).  clang-offload-bundler 19 and 22
# stop at two compressed ones ("Src size is incorrect").  offlink-bundler:
#   -list        every target of every bundle, each ID once;
#   -unbundle    a target's code object from the first bundle holding it,
#                byte for byte what LLVM 22's bundler extracts from that
#                bundle alone;
#   -each-bundle with -unbundle, the code object of every bundle, to
#                <output>.<n>; with -list, "<n> <id>" per entry;
# for two and three compressed bundles (v2 as LLVM 19 writes them, v3 as
# LLVM 22 does), uncompressed ones and mixtures, back to back and padded;
# and a byte that is neither padding nor a bundle is an error at its
# offset.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-offload-bundler-19 clang-offload-bundler-22 xxd

OURS=$BIN/offlink-bundler
H=host-x86_64-unknown-linux-gnu
A=hip-amdgcn-amd-amdhsa--gfx90a
B=hip-amdgcn-amd-amdhsa--gfx908

# make_bundle NAME KIND TAG: a bundle of host, gfx90a and gfx908 code
# objects whose bytes name TAG; KIND: plain, v2 (LLVM 19), v3 (LLVM 22).
make_bundle() {
	local name=$1 kind=$2 tag=$3
	printf '' >h.$tag
	printf 'gfx90a code of %s ' "$tag" >a.$tag
	head -c $((1000 + ${#tag} * 37)) /dev/urandom >>a.$tag
	printf 'gfx908 code of %s' "$tag" >b.$tag
	case $kind in
	plain) clang-offload-bundler-19 -type=o -bundle-align=4096 -targets=$H,$A,$B -input=h.$tag \
		-input=a.$tag -input=b.$tag -output=$name ;;
	v2) clang-offload-bundler-19 -type=o -bundle-align=4096 -compress -targets=$H,$A,$B -input=h.$tag \
		-input=a.$tag -input=b.$tag -output=$name ;;
	v3) clang-offload-bundler-22 -type=o -bundle-align=4096 -compress -targets=$H,$A,$B -input=h.$tag \
		-input=a.$tag -input=b.$tag -output=$name ;;
	esac || fail "make $name ($kind)"
}

# section OUT PARTS...: the parts back to back, each padded to 4096 as the
# linker places 4096-aligned sections (the last padded or not: PAD_LAST).
section() {
	local out=$1 size
	shift
	: >"$out"
	for p in "$@"; do
		cat "$p" >>"$out"
		size=$(stat -c %s "$out")
		if [ "$p" != "${!#}" ] || [ "${PAD_LAST:-1}" = 1 ]; then
			head -c $(((4096 - size % 4096) % 4096)) /dev/zero >>"$out"
		fi
	done
}

cases=0
for combo in "v2 v2" "v3 v3" "v2 v2 v2" "v3 v3 v3" "plain plain" "v2 plain v3" "plain v3 v2"; do
	set -- $combo
	n=$#
	parts=()
	for ((i = 0; i < n; i++)); do
		kind=$(echo "$combo" | cut -d' ' -f$((i + 1)))
		make_bundle part$i "$kind" "t$i-$kind"
		parts+=(part$i)
	done
	for pad in 1 0; do
		name=$(echo "$combo" | tr ' ' '-')-pad$pad
		PAD_LAST=$pad section $name.fb "${parts[@]}"
		# (LLVM's own bundler: the first compressed bundle of several is
		# refused; that is what this item is for)
		# -list: every ID once, in the first bundle's order
		"$OURS" -list -type=o -input=$name.fb >$name.list 2>$name.err || fail "$name: -list: $(cat $name.err)"
		printf '%s\n' $H- $A $B >want.list
		diff -u want.list $name.list || fail "$name: -list"
		"$OURS" -list -each-bundle -type=o -input=$name.fb >$name.each.list || fail "$name: -list -each-bundle"
		[ "$(wc -l <$name.each.list)" = $((3 * n)) ] || fail "$name: -list -each-bundle: $(cat $name.each.list)"
		grep -qx "$((n - 1)) $B" $name.each.list || fail "$name: the last bundle is not listed"
		# -unbundle: the first bundle's, as LLVM's bundler extracts it
		check "$name: -unbundle" "$OURS" -unbundle -type=o -input=$name.fb -targets=$A,$B \
			-output=$name.a -output=$name.b
		clang-offload-bundler-22 -unbundle -type=o -input=part0 -targets=$A,$B -output=llvm.a -output=llvm.b ||
			fail "LLVM 22 cannot unbundle part0"
		same_bytes $name.a llvm.a
		same_bytes $name.b llvm.b
		# -each-bundle: every bundle's
		check "$name: -unbundle -each-bundle" "$OURS" -unbundle -each-bundle -type=o -input=$name.fb \
			-targets=$A -output=$name.each
		for ((i = 0; i < n; i++)); do
			clang-offload-bundler-22 -unbundle -type=o -input=part$i -targets=$A -output=llvm.$i ||
				fail "LLVM 22 cannot unbundle part$i"
			same_bytes $name.each.$i llvm.$i
			grep -q "gfx90a code of t$i-" $name.each.$i || fail "$name.each.$i is not bundle $i's"
		done
		[ ! -e $name.each.$n ] || fail "$name: more outputs than bundles"
		cases=$((cases + 1))
	done
	echo "ok: $combo: listed, unbundled (first and each)"
done

# Where LLVM's bundler stops: two compressed bundles.
make_bundle c0 v2 c0
make_bundle c1 v2 c1
section two.fb c0 c1
clang-offload-bundler-19 -list -type=o -input=two.fb >/dev/null 2>llvm.err &&
	echo "note: LLVM 19's bundler lists two compressed bundles now" ||
	echo "LLVM 19 on two compressed bundles: $(head -1 llvm.err)"

# A byte that is neither padding nor a bundle, after the first.
cp two.fb junk.fb
off=$(($(stat -c %s c0) + 5))
printf 'X' | dd of=junk.fb bs=1 seek=$off conv=notrunc 2>/dev/null
expect_status 1 "$OURS" -list -type=o -input=junk.fb
contains "$T/stderr" "junk.fb"
contains "$T/stderr" "offset $(printf 0x%x $off)"
contains "$T/stderr" "neither padding nor the start of a bundle"
# A second bundle cut short.
head -c $((4096 + $(stat -c %s c1) - 10)) two.fb >cut.fb
expect_status 1 "$OURS" -unbundle -type=o -input=cut.fb -targets=$A -output=cut.a
contains "$T/stderr" "cut.fb"
contains "$T/stderr" "bundle 1 (at offset 4096)"
[ ! -e cut.a ] || fail "a partial output was left"
echo "PASS: $cases sections of several bundles listed and unbundled"
