#!/usr/bin/env bash
# Real clang-19 fat objects (OpenMP x86_64 and nvptx64 sm_90) and an
# archive of them: offlink-binary lists what llvm-objdump-19 --offloading
# sees, and extracts the same bytes as clang-offload-packager-19.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
need clang-19 llvm-objdump-19 clang-offload-packager-19 llvm-ar-19

cat >k.c <<'C'
int g_scale = 3;
#pragma omp declare target(g_scale)
void scale(int *a, int n) {
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] *= g_scale;
}
C
check "x86_64 fat object" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c k.c -o omp_x86.o
objs=(omp_x86.o)
if [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" ]; then
	check "sm_90 fat object" clang-19 -fopenmp --offload-arch=sm_90 -nogpulib -c k.c -o omp_sm90.o
	check "x86_64+sm_90 fat object" clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda \
		-Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90 -nogpulib -c k.c -o omp_both.o
	objs+=(omp_sm90.o omp_both.o)
else
	echo "SKIP (part): no ptxas in ${CUDA_PATH:-/usr/local/cuda}/bin, nvptx fat objects not built" >&2
	[ "${OFFLINK_NO_SKIP:-0}" = 1 ] && echo "WARNING: CUDA missing on a no-skip run" >&2
fi
check "archive" llvm-ar-19 rcs libk.a "${objs[@]}"

# objdump's view, as "kind arch triple producer" lines.
objdump_rows() {
	llvm-objdump-19 --offloading "$1" | awk '
		/^kind/ {k=$2} /^arch/ {a=(NF>1?$2:"-")} /^triple/ {t=$2}
		/^producer/ {print k, a, t, $2}'
}
ours_rows() {
	"$BIN/offlink-binary" --list "$1" | awk 'NR>1 {print $1, $4, $3, $2}'
}
for o in "${objs[@]}"; do
	objdump_rows "$o" >"$o.llvm"
	ours_rows "$o" >"$o.ours"
	[ -s "$o.ours" ] || fail "$o: no images listed"
	diff -u "$o.llvm" "$o.ours" || fail "$o: listing differs from llvm-objdump-19"
done

# The archive lists every member's images, with lib.a(member) origins.
"$BIN/offlink-binary" --list libk.a >lib.list || fail "list archive"
for o in "${objs[@]}"; do
	contains lib.list "libk.a($o)"
done
[ "$(($(wc -l <lib.list) - 1))" = "$(cat "${objs[@]/%/.ours}" | wc -l)" ] || fail "archive row count"

# JSON carries the same images.
"$BIN/offlink-binary" --list --json libk.a >lib.json || fail "json"
contains lib.json '"member": "omp_x86.o"'
contains lib.json '"producer": "openmp"'
[ "$(grep -c '"kind"' lib.json)" = "$(($(wc -l <lib.list) - 1))" ] || fail "json count"

# Extraction from objects and from the archive matches LLVM's bytes.
for src in "${objs[@]}" libk.a; do
	mkdir -p "l-$src" "o-$src"
	(cd "l-$src" && clang-offload-packager-19 "../$src" --image=kind=openmp) || fail "llvm extract $src"
	(cd "o-$src" && "$BIN/offlink-binary" "../$src" --image=kind=openmp) || fail "our extract $src"
	diff -r "l-$src" "o-$src" || fail "$src: extracted files differ"
	[ -n "$(ls "o-$src")" ] || fail "$src: nothing extracted"
done

# --archive gathers the device objects into a linkable static archive
# whose symbol index is the one llvm-ar would write.
check "--archive" "$BIN/offlink-binary" libk.a --image=triple=x86_64-pc-linux-gnu --archive -o libdev.a
clang-offload-packager-19 libk.a --image=file=libdev-llvm.a,triple=x86_64-pc-linux-gnu --archive || fail "llvm --archive"
diff <(llvm-nm-19 --print-armap libdev.a) <(llvm-nm-19 --print-armap libdev-llvm.a) || fail "archive index differs"
diff <(llvm-ar-19 t libdev.a) <(llvm-ar-19 t libdev-llvm.a) || fail "archive members differ"
echo "PASS: fat objects"
