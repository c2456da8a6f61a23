#!/usr/bin/env bash
# The hostile-input suite (issue 9): mutants of real clang-19 objects, of
# static archives holding them, of offload bundles and of compressed
# bundles (v2 as LLVM 19 writes them, v3 as LLVM 22 does), at least 300
# per format, each broken in a way a correct reader must reject
# (tests/lib/make_mutants.c says how; MANIFEST names each mutation).
# Every mutant goes through each tool that reads its format, and every
# run must: exit 1 or 2, name the file, print no sanitizer report (this
# script runs in the ASan+UBSan build too), leave no temporary and write
# no output, not even in part.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 clang-offload-bundler-19

export TMPDIR=$T/tmp
mkdir -p "$TMPDIR" m out
cat >k.c <<'C'
int kern(int x) { int r = 0;
#pragma omp target map(from: r)
  r = x + 1;
  return r; }
C
check "seed object" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c k.c -o k.o
printf 'HOSTCODE' >h.bin; printf 'DEVICE-ONE-CODE' >d1.bin; printf 'DEVICE-TWO' >d2.bin
ids=host-x86_64-unknown-linux-gnu,openmp-nvptx64-nvidia-cuda-sm_90,hip-amdgcn-amd-amdhsa--gfx90a
check "seed bundle" clang-offload-bundler-19 -type=bc -targets=$ids -input=h.bin -input=d1.bin \
	-input=d2.bin -output=seed.bc
check "seed ccob v2" clang-offload-bundler-19 -type=bc -compress -targets=$ids -input=h.bin \
	-input=d1.bin -input=d2.bin -output=seed2.ccob
check "seed ccob v3" env COMPRESSED_BUNDLE_FORMAT_VERSION=3 "$BIN/offlink-bundler" -type=bc -compress \
	-targets=$ids -input=h.bin -input=d1.bin -input=d2.bin -output=seed3.ccob

"$HELP/make_mutants" object k.o m 320 || fail "make_mutants object"
"$HELP/make_mutants" archive k.o m 320 || fail "make_mutants archive"
"$HELP/make_mutants" bundle seed.bc m 320 || fail "make_mutants bundle"
"$HELP/make_mutants" ccob2 seed2.ccob m 160 || fail "make_mutants ccob v2"
"$HELP/make_mutants" ccob3 seed3.ccob m 160 0x5eed3 || fail "make_mutants ccob v3"

runs=0
# rejected FILE TOOL ARGS...: the run must fail cleanly, naming FILE.
rejected() {
	local f=$1 status why
	shift
	(cd out && "$@") >/dev/null 2>"$T/stderr"
	status=$?
	why=$(grep -F "$(basename "$f")|" m/MANIFEST | cut -d'|' -f2)
	[ $status -eq 1 ] || [ $status -eq 2 ] || fail "$f ($why): $* exited with $status: $(head -c 400 "$T/stderr")"
	grep -qF "$(basename "$f")" "$T/stderr" || fail "$f ($why): the message does not name the file: $(head -c 400 "$T/stderr")"
	grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' "$T/stderr" && fail "$f ($why): sanitizer report"
	[ -z "$(ls -A out)" ] || fail "$f ($why): $* left $(ls -A out)"
	[ -z "$(ls -A "$TMPDIR")" ] || fail "$f ($why): $* left $(ls -A "$TMPDIR")"
	runs=$((runs + 1))
}

for f in m/object-*.o m/archive-*.a; do
	in=$T/$f
	rejected "$f" "$BIN/offlink" --linker-path=/usr/bin/ld -o prog --whole-archive "$in"
	rejected "$f" "$BIN/offlink-binary" --list "$in"
	rejected "$f" "$BIN/offlink-binary" "$in" --image=kind=openmp,file=image.o
done
for f in m/bundle-*.bc m/ccob*-*.ccob; do
	in=$T/$f
	rejected "$f" "$BIN/offlink-bundler" -list -type=bc -input="$in"
	rejected "$f" "$BIN/offlink-bundler" -unbundle -type=bc -input="$in" \
		-targets=openmp-nvptx64-nvidia-cuda-sm_90 -output=device.bin
done
for kind in object archive bundle ccob; do
	n=$(grep -c "^$kind" m/MANIFEST)
	[ "$n" -ge 300 ] || fail "only $n $kind mutants"
	echo "$kind: $n mutants rejected cleanly"
done
echo "PASS: $runs runs over hostile inputs, each rejected cleanly"
