#!/usr/bin/env bash
# The malformed-input corpus: every case must give exit status 1, one
# error line naming the file (and archive member) and the fault, no output
# file and no temporary left behind, and no crash (this script also runs
# in the ASan+UBSan build).
. "$OFFLINK_SRC/tests/lib/testlib.sh"

mkdir corpus
"$HELP/make_malformed" corpus || fail "make_malformed"

cases=0
# run_case FILE EXPECT [MEMBER]
run_case() {
	local f=$1 expect=$2 member=${3:-}
	mkdir -p out
	# Listing, extraction to a named file, and extraction to an archive.
	for mode in list extract archive; do
		case $mode in
		list) expect_status 1 "$BIN/offlink-binary" --list "$f" ;;
		extract) (cd out && expect_status 1 "$BIN/offlink-binary" "../$f" --image=file=got) ;;
		archive) (cd out && expect_status 1 "$BIN/offlink-binary" "../$f" --archive -o got.a) ;;
		esac
		[ "$(wc -l <"$T/stderr")" -ge 1 ] || fail "$f ($mode): no message"
		contains "$T/stderr" "$(basename "$f")"
		contains "$T/stderr" "$expect"
		[ -z "$member" ] || contains "$T/stderr" "($member)"
		grep -q 'AddressSanitizer\|runtime error' "$T/stderr" && fail "$f: sanitizer report"
		[ ! -e out/got ] && [ ! -e out/got.a ] || fail "$f ($mode): output file written"
		no_leftovers out
	done
	cases=$((cases + 1))
}

while IFS='|' read -r f expect; do
	run_case "corpus/$f" "$expect"
done <corpus/MANIFEST

if command -v clang-19 >/dev/null && command -v ar >/dev/null; then
	echo 'int f(void) { return 1; }' >host.c
	# Bad binaries inside the offload section of real objects.
	embed() {
		clang-19 -c host.c -o "$2" -Xclang -fembed-offload-object="corpus/$1" ||
			fail "embed $1"
	}
	embed num_strings_huge.bin obj_num_strings.o
	run_case obj_num_strings.o "section .llvm.offloading"
	run_case obj_num_strings.o "field 'NumStrings'"
	embed value_unterminated.bin obj_unterminated.o
	run_case obj_unterminated.o "not NUL-terminated"
	embed trailing_junk.bin obj_trailing.o
	run_case obj_trailing.o "trailing bytes"
	printf 'NOT-AN-OFFLOAD-BINARY-AT-ALL!!!!' >notob.bin
	clang-19 -c host.c -o obj_badmagic.o -Xclang -fembed-offload-object=notob.bin || fail embed
	run_case obj_badmagic.o "field 'Magic': bad magic bytes"

	# Objects broken as ELF.
	embed valid.bin.ok good.o
	head -c 200 good.o >obj_truncated.o
	run_case obj_truncated.o "malformed ELF file"
	# Section header table pointing past the end of the file.
	cp good.o obj_shoff.o
	printf '\xff\xff\xff\x00' | dd of=obj_shoff.o bs=1 seek=40 conv=notrunc status=none
	run_case obj_shoff.o "malformed ELF file"

	# Archives: a bad member is named; garbage members; broken headers.
	cp obj_num_strings.o member_bad.o
	ar rcs lib_badmember.a good.o member_bad.o
	run_case lib_badmember.a "field 'NumStrings'" member_bad.o
	printf 'random garbage, not an object' >garbage.o
	ar rcs lib_garbage.a good.o garbage.o
	run_case lib_garbage.a "not an offload binary, ELF object or static archive" garbage.o
	ar rcs lib_ok.a good.o
	head -c $(($(stat -c %s lib_ok.a) - 100)) lib_ok.a >lib_truncated.a
	run_case lib_truncated.a "malformed static archive"
	cp lib_ok.a lib_badheader.a
	# The first member header starts after the 8-byte magic and the symbol
	# index; break the size field of the last header instead: find it.
	off=$(grep -abo 'good.o/' lib_badheader.a | tail -1 | cut -d: -f1)
	printf '9999999999' | dd of=lib_badheader.a bs=1 seek=$((off + 48)) conv=notrunc status=none
	run_case lib_badheader.a "malformed static archive"
	# Thin archives: a corrupt member file, a missing one, a cut header.
	ar rcsT lib_thin.a good.o obj_num_strings.o || fail "ar rcsT"
	run_case lib_thin.a "field 'NumStrings'" obj_num_strings.o
	cp good.o gone.o
	ar rcsT lib_thin_gone.a gone.o || fail "ar rcsT"
	rm gone.o
	run_case lib_thin_gone.a "No such file or directory" gone.o
	head -c 75 lib_thin.a >lib_thin_cut.a
	run_case lib_thin_cut.a "thin archive"
else
	echo "SKIP (part): clang-19 or ar missing, ELF and archive wrappers not tested" >&2
	[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang-19 and ar are required"
fi

[ "$cases" -ge 40 ] || fail "only $cases cases"
echo "PASS: $cases malformed inputs rejected cleanly"
