#!/usr/bin/env bash
# Issue 9, item 6: offlink-binary names the files it extracts (without
# file=) after the input's triple and arch, as LLVM does.  Those come from
# the file: a triple like x86_64/../../ESCAPED wrote outside the working
# directory.  Such names now never contain '/' and never start with '.';
# ordinary triples and target IDs keep LLVM's exact names.
. "$OFFLINK_SRC/tests/lib/testlib.sh"

mkdir -p work/deep/er
printf 'DEV' >dev.o
pack() { "$BIN/offlink-binary" -o "$1" --image=file=dev.o,"$2",kind=openmp || fail "package $1"; }
pack work/deep/er/evil.bin 'triple=x86_64/../../ESCAPED,arch=.hidden'
pack work/deep/er/dots.bin 'triple=..,arch=../..'
pack work/deep/er/ctl.bin "$(printf 'triple=x86\n64\033[2J,arch=/')"
cd work/deep/er
mkdir evil-x86_64   # so that "evil-x86_64/../../ESCAPED..." resolves
for b in evil dots ctl; do
	check "extract $b" "$BIN/offlink-binary" $b.bin --image=kind=openmp
done
cd "$T"
[ -z "$(find . -name '*ESCAPED*' -not -path './work/deep/er/*')" ] ||
	fail "a file was written outside the working directory: $(find . -name '*ESCAPED*')"
[ "$(find work -type f | wc -l)" = 6 ] || fail "unexpected files: $(find work -type f)"
for f in work/deep/er/*.o; do
	n=$(basename "$f")
	case "$n" in .*) fail "hidden file written: $n" ;; esac
	printf '%s' "$n" | LC_ALL=C grep -q '[^A-Za-z0-9._+:-]' && fail "odd byte in the name '$n'"
done
ls work/deep/er/evil-x86_64_.._.._ESCAPED-_hidden.0.o >/dev/null || fail "unexpected name: $(ls work/deep/er)"

# Ordinary names are LLVM's own.
need clang-offload-packager-19
"$BIN/offlink-binary" -o n.bin --image=file=dev.o,triple=x86_64-pc-linux-gnu,arch=,kind=openmp \
	--image=file=dev.o,triple=amdgcn-amd-amdhsa,arch=gfx90a:xnack+,kind=openmp
mkdir ours llvm
(cd ours && "$BIN/offlink-binary" ../n.bin --image=kind=openmp) || fail "extract ours"
(cd llvm && clang-offload-packager-19 ../n.bin --image=kind=openmp) || fail "extract llvm"
[ "$(ls ours)" = "$(ls llvm)" ] || fail "names differ from LLVM's: $(ls ours) vs $(ls llvm)"
echo "PASS: extracted names stay in the working directory"
