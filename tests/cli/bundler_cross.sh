#!/usr/bin/env bash
# Each bundler reads what the other wrote: -list shows the same IDs (LLVM
# 19 lists binary bundles in hash order, offlink in file order, so the
# lists are compared sorted), -unbundle gives back the inputs, host
# objects with bundle sections (-type=o) go both ways, compressed bundles
# decompress, and the allow-missing and compatibility rules agree.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-offload-bundler-19 clang-19
LLVM=clang-offload-bundler-19
OURS=$BIN/offlink-bundler
export OFFLINK_LLVM=19   # the bundles LLVM 19 writes and reads (v2 CCOBs)

printf 'DEVICE-ONE' >d1.bin
printf 'DEVICE-TWO-LONGER' >d2.bin
printf 'int x;\n' >host.ll
printf 'int y;\n' >dev.ll
echo 'int host_function(void) { return 42; }' >host.c
check "host object" clang-19 -c host.c -o host.o
H=host-x86_64-unknown-linux-gnu
T1=openmp-nvptx64-nvidia-cuda-sm_90
T2=hip-amdgcn-amd-amdhsa-gfx90a

for writer in "$LLVM" "$OURS"; do
	for reader in "$LLVM" "$OURS"; do
		tag=$(basename "$writer")-to-$(basename "$reader")
		# binary, optionally compressed
		for c in "" -compress; do
			check "$tag bundle" "$writer" -type=bc $c -targets=$H,$T1,$T2 \
				-input=d1.bin -input=d1.bin -input=d2.bin -output=b.bc
			"$reader" -list -type=bc -input=b.bc | sort >ids.txt || fail "$tag list"
			printf '%s\n' "$H-" "openmp-nvptx64-nvidia-cuda--sm_90" "hip-amdgcn-amd-amdhsa--gfx90a" | sort >want.txt
			diff -u want.txt ids.txt || fail "$tag: listed IDs"
			rm -f o1 o2
			check "$tag unbundle" "$reader" -unbundle -type=bc -targets=$T2,$T1 -input=b.bc -output=o1 -output=o2
			same_bytes o1 d2.bin
			same_bytes o2 d1.bin
		done
		# text
		check "$tag text" "$writer" -type=ll -targets=$H,$T1 -input=host.ll -input=dev.ll -output=t.ll
		rm -f o1
		check "$tag text unbundle" "$reader" -unbundle -type=ll -targets=$T1 -input=t.ll -output=o1
		same_bytes o1 dev.ll
		# host object with bundle sections
		check "$tag object" "$writer" -type=o -targets=$H,$T1 -input=host.o -input=d1.bin -output=fat.o
		"$reader" -list -type=o -input=fat.o >ids.txt || fail "$tag object list"
		contains ids.txt "openmp-nvptx64-nvidia-cuda--sm_90"
		rm -f o1 o2
		check "$tag object unbundle" "$reader" -unbundle -type=o -targets=$H,$T1 -input=fat.o -output=o1 -output=o2
		same_bytes o2 d1.bin
		nm o1 | grep -q host_function || fail "$tag: host object lost its symbols"
		readelf -S o1 | grep -q __CLANG_OFFLOAD_BUNDLE__ && fail "$tag: bundle sections left in the host object"
		llvm-objdump-19 -d o1 >/dev/null || fail "$tag: host object unreadable"
	done
done

# Missing targets: both fail, or both write empty outputs.
"$BIN/offlink-bundler" -type=bc -targets=$H,$T1 -input=d1.bin -input=d2.bin -output=b.bc
for tool in "$LLVM" "$OURS"; do
	expect_status_nonzero() { "$@" 2>"$T/stderr" && fail "expected failure: $*"; return 0; }
	expect_status_nonzero "$tool" -unbundle -type=bc -targets=$T2,hip-amdgcn-amd-amdhsa-gfx1030 -input=b.bc -output=m1 -output=m2
	contains "$T/stderr" "Can't find bundles for hip-amdgcn-amd-amdhsa--gfx1030 and hip-amdgcn-amd-amdhsa--gfx90a"
	rm -f m1 m2
	check "allow-missing" "$tool" -unbundle -type=bc -allow-missing-bundles -targets=$T1,$T2 \
		-input=b.bc -output=m1 -output=m2
	same_bytes m1 d2.bin
	[ -f m2 ] && [ ! -s m2 ] || fail "$tool: missing target should give an empty file"
	# Nothing at all matches: the input is taken as host-only.
	check "host-only" "$tool" -unbundle -type=bc -allow-missing-bundles -targets=$H,$T2 \
		-input=d1.bin -output=m1 -output=m2
	same_bytes m1 d1.bin
done

# Compatibility: "any" code serves xnack+, not the reverse; hip~hipv4.
"$OURS" -type=bc -targets=hipv4-amdgcn-amd-amdhsa-gfx90a -input=d1.bin -output=any.bc
for tool in "$LLVM" "$OURS"; do
	rm -f c1
	check "any serves xnack+" "$tool" -unbundle -type=bc -targets=hip-amdgcn-amd-amdhsa-gfx90a:xnack+ \
		-input=any.bc -output=c1
	same_bytes c1 d1.bin
done
"$OURS" -type=bc -targets=hip-amdgcn-amd-amdhsa-gfx90a:xnack+ -input=d1.bin -output=plus.bc
for tool in "$LLVM" "$OURS"; do
	"$tool" -unbundle -type=bc -targets=hip-amdgcn-amd-amdhsa-gfx90a -input=plus.bc -output=c1 2>/dev/null &&
		fail "$tool: xnack+ code must not serve a plain gfx90a request"
done
echo "PASS: both bundlers read each other"
