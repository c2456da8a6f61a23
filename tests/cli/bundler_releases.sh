#!/usr/bin/env bash
# Issue 10: offlink-bundler writes what each release's clang-offload-
# bundler writes: 14, 15 and 16 keep entry IDs as given (14 spells its
# files -inputs=a,b -outputs=x, 15 takes both spellings; neither
# compresses), 19 and 22 write their
# standard form (host-...-gnu-); 19 compresses to CCOB version 2, 22 to
# version 3 unless COMPRESSED_BUNDLE_FORMAT_VERSION=2; 22 refuses a triple
# without its environment.  The release is -llvm=, $OFFLINK_LLVM or the
# clang that runs the tool.  IDs are spelled as clang spells them (odd
# spellings that releases read differently are in docs/compat.md).
# Parts 23 and 24 (issue 43, in the sid root): the same for those
# releases' bundlers (both compress to version 3), and 24's AMD triples
# (hip-amdgpu9.0a-amd-amdhsa--gfx90a), which it takes for the amdgcn
# spelling when unbundling.
# ctest-parts: main 23 24
# ctest-sid: 23 24
. "$OFFLINK_SRC/tests/lib/testlib.sh"
part=${OFFLINK_PART:-main}
CC=clang-19
[ "$part" = main ] || CC=clang-$part
need $CC
OURS=$BIN/offlink-bundler

printf 'HOST-PART' >host.bin
printf 'AMDGPU-GFX90A-CODE' >dev1.bin
head -c 3000 /dev/urandom >dev2.bin
printf 'int host_side;\n' >h.s
printf 'int device_side;\n' >d.s
echo 'int f(void) { return 1; }' >host.c
$CC -c host.c -o host.o || fail "host object"
H=host-x86_64-unknown-linux-gnu
HIP1=hip-amdgcn-amd-amdhsa--gfx90a
HIP2=hip-amdgcn-amd-amdhsa--gfx1030
OMP=openmp-x86_64-unknown-linux-gnu

n=0
# both RELEASE NAME ARGS...: that release's bundler and ours, same bytes
# (for 14, the -input= arguments become its -inputs=a,b).
both() {
	local r=$1 name=$2 out=-output= args=() inputs=""
	shift 2
	for a in "$@"; do
		if [ "$r" = 14 ] && [ "${a#-input=}" != "$a" ]; then
			inputs+="${inputs:+,}${a#-input=}"
		else
			args+=("$a")
		fi
	done
	if [ -n "$inputs" ]; then
		args+=("-inputs=$inputs")
		out=-outputs=
	fi
	check "$name (LLVM $r)" clang-offload-bundler-$r "${args[@]}" "$out$name.$r.llvm"
	check "$name (ours, -llvm=$r)" "$OURS" -llvm=$r "${args[@]}" "$out$name.$r.ours"
	same_bytes "$name.$r.llvm" "$name.$r.ours"
	n=$((n + 1))
}

releases="14 15 16 19 22"
[ "$part" = main ] || releases=$part
for r in $releases; do
	if ! command -v clang-offload-bundler-$r >/dev/null; then
		[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && fail "clang-offload-bundler-$r is missing"
		echo "SKIP (part): clang-offload-bundler-$r is not installed"
		continue
	fi
	for align in 1 4096; do
		both $r bc$align -type=bc -bundle-align=$align -targets=$H,$HIP1,$HIP2 \
			-input=host.bin -input=dev1.bin -input=dev2.bin
	done
	both $r omp -type=bc -targets=$H,$OMP -input=host.bin -input=dev1.bin
	both $r text -type=s -targets=$H,$HIP1 -input=h.s -input=d.s
	both $r object -type=o -targets=$H,$HIP1 -input=host.o -input=dev1.bin
	if [ $r -ge 19 ]; then # 14, 15 and 16 have no compression
		both $r ccob -type=bc -compress -targets=$H,$HIP1,$HIP2 -input=host.bin -input=dev1.bin -input=dev2.bin
		head -c 6 ccob.$r.ours | tail -c 2 | od -An -tu2 >ver.txt
		want=$([ $r -ge 22 ] && echo 3 || echo 2)
		[ "$(tr -d ' \n' <ver.txt)" = $want ] || fail "LLVM $r: CCOB version $(cat ver.txt), want $want"
	fi
	echo "ok: LLVM $r"
done

if [ "$part" != main ]; then
	if [ "$part" -ge 24 ]; then
		# 24's triples for AMD's processors, in IDs: written as given,
		# unbundled by either spelling
		A=hip-amdgpu9.0a-amd-amdhsa--gfx90a
		both $part amdtriple -type=o -targets=$H-,$A -input=host.o -input=dev1.bin
		both $part amdtriple-bc -type=bc -targets=$H-,$A,hip-amdgpu10.30-amd-amdhsa--gfx1030 \
			-input=host.bin -input=dev1.bin -input=dev2.bin
		for id in $A hip-amdgcn-amd-amdhsa--gfx90a; do
			check "unbundle $id (LLVM)" clang-offload-bundler-$part -unbundle -type=o -targets=$id \
				-input=amdtriple.$part.llvm -output=u.llvm
			check "unbundle $id (ours)" "$OURS" -llvm=$part -unbundle -type=o -targets=$id \
				-input=amdtriple.$part.llvm -output=u.ours
			same_bytes u.llvm u.ours
			same_bytes dev1.bin u.ours
		done
	fi
	echo "PASS: $n bundles byte-identical with clang-offload-bundler-$part"
	exit 0
fi
if command -v clang-offload-bundler-22 >/dev/null; then
	for v in 2 3; do
		COMPRESSED_BUNDLE_FORMAT_VERSION=$v both 22 ccob-v$v -type=bc -compress -targets=$H,$HIP1 \
			-input=host.bin -input=dev1.bin
	done
	# 19 does not read the variable.
	COMPRESSED_BUNDLE_FORMAT_VERSION=3 both 19 ccob-19-ignores -type=bc -compress -targets=$H,$HIP1 \
		-input=host.bin -input=dev1.bin
	# A triple without its environment: 22 refuses, 19 completes it.
	expect_status 1 "$OURS" -llvm=22 -type=bc -targets=host-x86_64-unknown-linux,$HIP1 \
		-input=host.bin -input=dev1.bin -output=short.bc
	contains "$T/stderr" "Targets need to follow the format"
	both 19 short -type=bc -targets=host-x86_64-unknown-linux,$HIP1 -input=host.bin -input=dev1.bin
	# The release of the clang running the tool, and $OFFLINK_LLVM.
	OFFLINK_LLVM=16 "$OURS" -type=bc -targets=$H,$HIP1,$HIP2 -input=host.bin -input=dev1.bin \
		-input=dev2.bin -output=env16.bc || fail "OFFLINK_LLVM=16"
	same_bytes env16.bc bc1.16.llvm
fi
# A file bundled with 19's IDs (a trailing '-'), unbundled as clang 14 asks
# (IDs as written, -allow-missing-bundles): LLVM 14's bundler finds nothing
# and writes an empty device output; offlink's reads the IDs for what they
# mean, so no device code is lost.  A bundle without the device's entry:
# said, not silent.
check "bundle as 19" "$OURS" -llvm=19 -type=bc -targets=host-x86_64-pc-linux-gnu,openmp-x86_64-pc-linux-gnu \
	-input=host.bin -input=dev1.bin -output=b19.bc
check "unbundle as 14" "$OURS" -llvm=14 -type=bc -targets=host-x86_64-pc-linux-gnu,openmp-x86_64-pc-linux-gnu \
	-inputs=b19.bc -outputs=h14.bin,d14.bin -unbundle -allow-missing-bundles
same_bytes dev1.bin d14.bin
check "host only" "$OURS" -llvm=14 -type=bc -targets=host-x86_64-pc-linux-gnu -inputs=host.bin -outputs=hostonly.bc
"$OURS" -llvm=14 -type=bc -targets=host-x86_64-pc-linux-gnu,openmp-x86_64-pc-linux-gnu -inputs=hostonly.bc \
	-outputs=h.out,d.out -unbundle -allow-missing-bundles 2>missing.err || fail "unbundle of a host-only bundle"
contains missing.err "hostonly.bc holds no bundle for openmp-x86_64-pc-linux-gnu"
[ ! -s d.out ] || fail "a device output from nothing"
echo "PASS: $n bundles byte-identical with their release's bundler"
