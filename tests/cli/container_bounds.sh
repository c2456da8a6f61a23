#!/usr/bin/env bash
# Issue 39: the inspector and the bundler are bounded by what a file holds.
#  2. A 4 KiB bundle nested 8 deep, each level's 8 entries pointing at the
#     same inner bundle (16 million images): offlink-binary --list and
#     --json passed 1 GiB in 4.5 s, --extract wrote 150,000 files in 30 s.
#     Refused now, naming the file and the entry: the entries of one
#     container take at most its bytes (and so do 1000 entries at the
#     same 1 MiB, which --extract wrote 1000 times).
#  3. 66 KB of back-to-back zstd bundles declaring 512 MiB each (RLE
#     blocks, 32,000:1): offlink-bundler -list needed over 2 GiB.  A
#     bundle may inflate to 2048 times its compressed size (plus 64 KiB),
#     refused from its header; and bundles within that bound, 8 of 32 MiB,
#     are read one at a time (they took 270 MB at once).
#  8. --extract left the images it had written when a later one failed.
#  9. --list refused a static archive of bundles (bundled bitcode, the
#     device archives -type=a reads).
# Memory is bounded with ulimit -v (256 MiB, but under ASan, which
# reserves terabytes of shadow at start); the timeouts only catch a hang
# (each run takes well under a second).
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-offload-bundler-19 jq ar
OB=$BIN/offlink-binary
BU=$BIN/offlink-bundler

# capped COMMAND...: run under a 256 MiB address-space cap, and 60 s.
capped() {
	case "$(ldd "$OB")" in
	*libasan*) timeout 60 "$@" ;;
	*) (ulimit -v 262144 && timeout 60 "$@") ;;
	esac
}
# nothing_in DIR: an extraction that failed left no file there.
nothing_in() {
	[ -z "$(ls -A "$1")" ] || fail "a failed --extract left files in $1: $(ls -A "$1" | head -5)"
}

# ---- 2. the nested bundle ----
"$HELP/make_bombs" nest 8 8 nest.bin || fail "make_bombs nest"
[ "$(stat -c %s nest.bin)" -lt 5000 ] || fail "the nested bundle is not a few KiB"
for mode in --list "--list --json"; do
	# shellcheck disable=SC2086
	expect_status 1 capped "$OB" $mode nest.bin
	contains "$T/stderr" "nest.bin"
	contains "$T/stderr" "entry openmp-x86_64-unknown-linux-gnu-l7e0 > entry"
	contains "$T/stderr" "entries that share their bytes are not read again and again"
	[ ! -s "$T/stdout" ] || fail "$mode nest.bin listed something: $(head -3 "$T/stdout")"
done
mkdir nest.out
expect_status 1 capped "$OB" --extract=nest.out nest.bin
contains "$T/stderr" "entries that share their bytes"
nothing_in nest.out
# one deep: 1000 entries at the same 1 MiB, which --extract wrote 1000 times
"$HELP/make_bombs" nest 1 1000 flat.bin 1048576 || fail "make_bombs nest (flat)"
mkdir flat.out
expect_status 1 capped "$OB" --extract=flat.out flat.bin
contains "$T/stderr" "flat.bin"
contains "$T/stderr" "file > entry openmp-x86_64-unknown-linux-gnu-l0e1: an entry of 1048576 bytes"
nothing_in flat.out
echo "ok: a bundle nested 8 deep, 8 entries at one inner bundle each level, refused; entries sharing 1 MiB too"

# ---- 3. bundle sequences ----
"$HELP/make_bombs" seq 4 536870912 0 seq.bin || fail "make_bombs seq"
[ "$(stat -c %s seq.bin)" -lt 70000 ] || fail "seq.bin is not some 66 KB"
expect_status 1 capped "$BU" -list -type=o -input=seq.bin
contains "$T/stderr" "seq.bin"
contains "$T/stderr" "UncompressedSize"
contains "$T/stderr" "536870912 bytes from 16532 compressed: more than 2048 times as much"
expect_status 1 capped "$BU" -unbundle -type=o -input=seq.bin \
	-targets=hip-amdgcn-amd-amdhsa--gfx90a -output=seq.out
contains "$T/stderr" "more than 2048 times as much"
[ ! -e seq.out ] || fail "a refused unbundling wrote its output"
expect_status 1 capped "$OB" --list seq.bin
contains "$T/stderr" "more than 2048 times as much"
# within the bound: 8 bundles of 32 MiB, each from 16 KiB, read one at a time
"$HELP/make_bombs" seq 8 33554432 16384 fit.bin || fail "make_bombs seq (fit)"
capped "$BU" -list -type=o -input=fit.bin >fit.ids 2>fit.err || fail "-list fit.bin: $(cat fit.err)"
printf 'host-x86_64-unknown-linux-gnu-\nhip-amdgcn-amd-amdhsa--gfx90a\n' | diff - fit.ids >&2 ||
	fail "-list fit.bin: not the two IDs"
capped "$BU" -list -each-bundle -type=o -input=fit.bin >fit.each 2>fit.err ||
	fail "-list -each-bundle fit.bin: $(cat fit.err)"
[ "$(grep -c ' hip-amdgcn-amd-amdhsa--gfx90a$' fit.each)" = 8 ] || fail "fit.bin: $(cat fit.each)"
capped "$BU" -unbundle -type=o -input=fit.bin -targets=hip-amdgcn-amd-amdhsa--gfx90a \
	-output=fit.gfx90a 2>fit.err || fail "-unbundle fit.bin: $(cat fit.err)"
[ "$(stat -c %s fit.gfx90a)" = $((33554432 - 139)) ] || fail "fit.gfx90a: $(stat -c %s fit.gfx90a) bytes"
capped "$OB" --list --json fit.bin >fit.json 2>fit.err || fail "--list --json fit.bin: $(cat fit.err)"
[ "$(jq '[.[] | select(.arch == "gfx90a")] | length' fit.json)" = 8 ] || fail "fit.json: $(head -c 600 fit.json)"
echo "ok: bundles declaring more than 2048:1 refused from their headers; 8 of 32 MiB read one at a time"

# ---- 8. a failed --extract leaves nothing ----
# Two fat binaries back to back: a PTX entry, then one whose zstd stream
# is damaged.  The first was written, then left, when the second failed.
"$HELP/make_many" fatbin 1 good.fatbin || fail "make_many fatbin"
cp good.fatbin bad.fatbin
printf '\000\200' | dd of=bad.fatbin bs=1 seek=$((16 + 40)) conv=notrunc 2>/dev/null # flags: zstd
printf '\033' | dd of=bad.fatbin bs=1 seek=$((16 + 16)) conv=notrunc 2>/dev/null     # 27 bytes stored
printf '\100' | dd of=bad.fatbin bs=1 seek=$((16 + 56)) conv=notrunc 2>/dev/null     # 64 declared
cat good.fatbin bad.fatbin >partial.fatbin
mkdir partial.out
expect_status 1 "$OB" --extract=partial.out partial.fatbin
contains "$T/stderr" "partial.fatbin"
contains "$T/stderr" "fat binary 1 > entry 0"
nothing_in partial.out
[ ! -s "$T/stdout" ] || fail "a failed --extract printed names: $(cat "$T/stdout")"
ar rcs partial.a good.fatbin bad.fatbin
expect_status 1 "$OB" --extract=partial.out partial.a
contains "$T/stderr" "partial.a(bad.fatbin)"
nothing_in partial.out
"$OB" --extract=partial.out good.fatbin >good.list || fail "--extract good.fatbin"
[ "$(wc -l <good.list)" = 1 ] && [ -s "$(cat good.list)" ] || fail "good.fatbin: $(cat good.list)"
echo "ok: a failed --extract leaves no file and prints no name"

# ---- 9. an archive of bundles ----
printf 'host code' >h.bin
printf 'gfx90a code' >a.bin
H=host-x86_64-unknown-linux-gnu A=hip-amdgcn-amd-amdhsa--gfx90a
check "bundled bitcode" clang-offload-bundler-19 -type=bc -targets=$H,$A -input=h.bin -input=a.bin -output=b.bc
check "compressed bundled bitcode" clang-offload-bundler-19 -type=bc -compress -targets=$H,$A \
	-input=h.bin -input=a.bin -output=c.bc
check "archive of bundles" ar rcs libdev.a b.bc c.bc
"$OB" --list libdev.a >libdev.list 2>libdev.err || fail "--list libdev.a: $(cat libdev.err)"
grep -q "hip .*gfx90a .*libdev.a(b.bc) \[file > entry $A\]" libdev.list &&
	grep -q "hip .*gfx90a .*libdev.a(c.bc) \[file > entry $A, ccob v2 zstd" libdev.list ||
	fail "libdev.a: $(cat libdev.list)"
"$OB" --list --json libdev.a | jq -e '[.[] | select(.arch == "gfx90a") | .member] == ["b.bc", "c.bc"]' \
	>/dev/null || fail "--json libdev.a: $("$OB" --list --json libdev.a)"
mkdir dev.out
"$OB" --extract=dev.out libdev.a >dev.list || fail "--extract libdev.a"
same_bytes "$(grep 'b.bc.*gfx90a' dev.list)" a.bin
same_bytes "$(grep 'c.bc.*gfx90a' dev.list)" a.bin
echo "ok: an archive of bundles listed and extracted"
echo "PASS: the inspector and the bundler bounded by what a file holds"
