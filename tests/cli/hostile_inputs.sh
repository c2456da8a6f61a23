#!/usr/bin/env bash
# The hostile-input suite (issue 9): mutants of real clang-19 objects, of
# static archives holding them, of offload bundles and of compressed
# bundles (v2 as LLVM 19 writes them, v3 as LLVM 22 does), at least 300
# per format, each broken in a way a correct reader must reject
# (tests/lib/make_mutants.c says how; MANIFEST names each mutation).
# Every mutant goes through each tool that reads its format, and every
# run must: exit 1 or 2, name the file, print no sanitizer report (this
# script runs in the ASan+UBSan build too), leave no temporary and write
# no output, not even in part (tests/lib/rejects.c checks each run).
#
# One CTest test per format (OFFLINK_PART), so that ctest -j spreads them;
# run by hand without OFFLINK_PART, the script does all four.
# ctest-parts: object archive bundle ccob
# ctest-cost: 15
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 clang-offload-bundler-19

export TMPDIR=$T/tmp
mkdir -p "$TMPDIR" m out
parts=${OFFLINK_PART:-object archive bundle ccob}
ids=host-x86_64-unknown-linux-gnu,openmp-nvptx64-nvidia-cuda-sm_90,hip-amdgcn-amd-amdhsa--gfx90a
printf 'HOSTCODE' >h.bin; printf 'DEVICE-ONE-CODE' >d1.bin; printf 'DEVICE-TWO' >d2.bin

seed_object() {
	[ -e k.o ] && return 0
	cat >k.c <<'C'
int kern(int x) { int r = 0;
#pragma omp target map(from: r)
  r = x + 1;
  return r; }
C
	check "seed object" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c k.c -o k.o
}

# rejects KIND TOOL ARGS...: every KIND mutant through the tool ({} is the
# mutant), each run rejected cleanly.
rejects() {
	local kind=$1 files
	shift
	files=("$T"/m/$kind*-*)
	"$HELP/rejects" m/MANIFEST out "$TMPDIR" "$T/stderr" "${files[@]}" -- "$@" >"$T/runs" ||
		fail "$kind mutants: $*"
	runs=$((runs + $(cut -d' ' -f1 "$T/runs")))
}

runs=0
for part in $parts; do
	case $part in
	object | archive)
		seed_object
		"$HELP/make_mutants" $part k.o m 320 || fail "make_mutants $part"
		rejects $part "$BIN/offlink" --linker-path=/usr/bin/ld -o prog --whole-archive {}
		rejects $part "$BIN/offlink-binary" --list {}
		rejects $part "$BIN/offlink-binary" {} --image=kind=openmp,file=image.o
		;;
	bundle | ccob)
		if [ $part = bundle ]; then
			check "seed bundle" clang-offload-bundler-19 -type=bc -targets=$ids -input=h.bin \
				-input=d1.bin -input=d2.bin -output=seed.bc
			"$HELP/make_mutants" bundle seed.bc m 320 || fail "make_mutants bundle"
		else
			check "seed ccob v2" clang-offload-bundler-19 -type=bc -compress -targets=$ids -input=h.bin \
				-input=d1.bin -input=d2.bin -output=seed2.ccob
			check "seed ccob v3" env COMPRESSED_BUNDLE_FORMAT_VERSION=3 "$BIN/offlink-bundler" -type=bc \
				-compress -targets=$ids -input=h.bin -input=d1.bin -input=d2.bin -output=seed3.ccob
			"$HELP/make_mutants" ccob2 seed2.ccob m 160 || fail "make_mutants ccob v2"
			"$HELP/make_mutants" ccob3 seed3.ccob m 160 0x5eed3 || fail "make_mutants ccob v3"
		fi
		rejects $part "$BIN/offlink-bundler" -list -type=bc -input={}
		rejects $part "$BIN/offlink-bundler" -unbundle -type=bc -input={} \
			-targets=openmp-nvptx64-nvidia-cuda-sm_90 -output=device.bin
		;;
	*) fail "no part $part" ;;
	esac
	n=$(grep -c "^$part" m/MANIFEST)
	[ "$n" -ge 300 ] || fail "only $n $part mutants"
	echo "$part: $n mutants rejected cleanly"
done
echo "PASS: $runs runs over hostile inputs, each rejected cleanly"
