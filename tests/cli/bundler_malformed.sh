#!/usr/bin/env bash
# Malformed bundles and compressed bundles: every case exits 1 with one
# message naming the file and the fault, writes no output, and does not
# crash (this script also runs under ASan+UBSan).  Cases are made here
# from valid bundles by cutting or patching one field each.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
OURS=$BIN/offlink-bundler
export OFFLINK_LLVM=19   # the bundles LLVM 19 writes and reads (v2 CCOBs)

printf 'HOST' >h.bin
printf 'DEVICE-CODE-123' >d.bin
H=host-x86_64-unknown-linux-gnu
TGT=openmp-nvptx64-nvidia-cuda-sm_90
"$OURS" -type=bc -targets=$H,$TGT -input=h.bin -input=d.bin -output=good.bc || fail "good"
"$OURS" -type=bc -compress -targets=$H,$TGT -input=h.bin -input=d.bin -output=good.ccob || fail "good ccob"
OFFLINK_LLVM=22 COMPRESSED_BUNDLE_FORMAT_VERSION=3 "$OURS" -type=bc -compress -targets=$H,$TGT -input=h.bin -input=d.bin \
	-output=good3.ccob || fail "good v3"

# patch FILE OFFSET BYTES...: overwrite bytes (given as \x.. escapes)
patch() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
le64() { # the 8-byte little-endian escape of $1
	local v=$1 out=""
	for _ in 1 2 3 4 5 6 7 8; do
		out+=$(printf '\\x%02x' $((v & 255)))
		v=$((v >> 8))
	done
	printf '%s' "$out"
}
mk() { # NAME SOURCE: copy to start a case
	cp "$2" "$1"
}

cases=0
# expect NAME TEXT [TYPE]: unbundling and listing NAME both fail cleanly.
expect() {
	local f=$1 text=$2 type=${3:-bc}
	for mode in list unbundle; do
		if [ $mode = list ]; then
			expect_status 1 "$OURS" -list -type=$type -input="$f"
		else
			expect_status 1 "$OURS" -unbundle -type=$type -targets=$TGT -input="$f" -output=out.bin
		fi
		contains "$T/stderr" "$f"
		contains "$T/stderr" "$text"
		grep -q 'AddressSanitizer\|runtime error' "$T/stderr" && fail "$f: sanitizer report"
		[ ! -e out.bin ] || fail "$f: output written"
		no_leftovers .
	done
	cases=$((cases + 1))
}

# Binary bundles (offsets: magic 0, count 24, entry 0 at 32: offset,
# size, ID length, then the ID).
head -c 28 good.bc >trunc_count.bc;            expect trunc_count.bc "field 'NumberOfBundles'"
head -c 40 good.bc >trunc_entry.bc;            expect trunc_entry.bc "field 'Size'"
head -c 60 good.bc >trunc_id.bc;               expect trunc_id.bc "field 'IDLength'"
head -c $(($(stat -c %s good.bc) - 3)) good.bc >trunc_data.bc; expect trunc_data.bc "field 'Offset'"
mk zero.bc good.bc;  patch zero.bc 24 "$(le64 0)";               expect zero.bc "declares no entries"
mk many.bc good.bc;  patch many.bc 24 "$(le64 4294967296)";      expect many.bc "field 'NumberOfBundles'"
mk off.bc good.bc;   patch off.bc 32 "$(le64 9999)";             expect off.bc "run past the end"
mk size.bc good.bc;  patch size.bc 40 "$(le64 18446744073709551000)"; expect size.bc "field 'Offset'"
mk idlen0.bc good.bc; patch idlen0.bc 48 "$(le64 0)";            expect idlen0.bc "field 'IDLength'"
mk idlong.bc good.bc; patch idlong.bc 48 "$(le64 100000)";       expect idlong.bc "field 'IDLength'"
mk kind.bc good.bc;  patch kind.bc 56 'zzzz';                    expect kind.bc "unknown offloading kind 'zzzz'"
mk triple.bc good.bc; patch triple.bc 61 'q';                    expect triple.bc "unknown target triple"
"$OURS" -type=bc -targets=$H,$TGT -input=h.bin -input=d.bin -output=dup.bc
# Make the second ID equal to the first: same length needed, so rename
# the first to the second's text is not possible; write a bundle by hand.
{
	printf '__CLANG_OFFLOAD_BUNDLE__'; printf "$(le64 2)"
	for i in 1 2; do printf "$(le64 200)"; printf "$(le64 1)"; printf "$(le64 30)"; printf 'host-x86_64-unknown-linux-gnu-'; done
	head -c 200 /dev/zero
} | head -c 201 >dup.bc
expect dup.bc "appears twice"

# Text bundles.
printf '\n; __CLANG_OFFLOAD_BUNDLE____START__ %s-\nint x;\n' $H >noend.ll
expect noend.ll "no end marker" ll
printf '\n; __CLANG_OFFLOAD_BUNDLE____START__ %s-' $H >noeol.ll
expect noeol.ll "start marker without an end of line" ll

# Compressed bundles (v2 header: magic, u16 version at 4, u16 method at
# 6, u32 total at 8, u32 uncompressed at 12, hash at 16, data at 24).
head -c 6 good.ccob >ccob_trunc6.bc;           expect ccob_trunc6.bc "field 'Version'"
head -c 20 good.ccob >ccob_trunc20.bc;         expect ccob_trunc20.bc "header"
mk ccob_v0.bc good.ccob;  patch ccob_v0.bc 4 '\x00\x00';        expect ccob_v0.bc "compressed bundle version 0"
mk ccob_v9.bc good.ccob;  patch ccob_v9.bc 4 '\x09\x00';        expect ccob_v9.bc "compressed bundle version 9"
mk ccob_meth.bc good.ccob; patch ccob_meth.bc 6 '\x07\x00';     expect ccob_meth.bc "unknown compression method 7"
mk ccob_total.bc good.ccob; patch ccob_total.bc 8 '\xff\x00\x00\x00'; expect ccob_total.bc "field 'TotalFileSize'"
mk ccob_small.bc good.ccob; patch ccob_small.bc 12 '\x05\x00\x00\x00'; expect ccob_small.bc "field 'compressed data'"
mk ccob_large.bc good.ccob; patch ccob_large.bc 12 '\xff\xff\x00\x00'; expect ccob_large.bc "field 'compressed data'"
mk ccob_hash.bc good.ccob; patch ccob_hash.bc 16 '\x00\x01\x02\x03'; expect ccob_hash.bc "field 'Hash'"
mk ccob_data.bc good.ccob; patch ccob_data.bc 30 '\xde\xad\xbe\xef\xde\xad'; expect ccob_data.bc "compressed data is corrupt"
head -c 24 good3.ccob >ccob3_trunc.bc;         expect ccob3_trunc.bc "header"
mk ccob3_total.bc good3.ccob; patch ccob3_total.bc 8 "$(le64 1)"; expect ccob3_total.bc "field 'TotalFileSize'"

# An archive with a member whose bundle is corrupt: the member is named.
cp idlong.bc member.o
ar rcs libbad.a member.o
expect_status 1 "$OURS" -unbundle -type=a -targets=$TGT -input=libbad.a -output=out.a
contains "$T/stderr" "libbad.a(member.o)"
contains "$T/stderr" "field 'IDLength'"
[ ! -e out.a ] || fail "archive output written"
cases=$((cases + 1))

[ "$cases" -ge 25 ] || fail "only $cases cases"
echo "PASS: $cases malformed bundles rejected cleanly"
