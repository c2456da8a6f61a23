#!/usr/bin/env bash
# Issue 25, items 5 and 6: nvlink's own library search, and its @files.
#  5. nvlink searches LIBRARY_PATH for -l after its -L directories (and
#     lib<name>.so in every directory before any lib<name>.a): the key held
#     only the -L search, so a device library appearing in, or rebuilt in,
#     a LIBRARY_PATH directory gave the old image.  Each cached relink is
#     compared byte for byte with an uncached link.
#  6. --device-linker=@file (-Wl,--device-linker=@rsp) holding
#     "-L dir -ldev": nvlink reads no @file ("Could not open input file");
#     offlink reads it, as LLVM's clang-nvlink-wrapper does, and keys what
#     it holds.  (clang itself expands "-Xoffload-linker @rsp" before the
#     link, so only the first argument reaches the device linker, under
#     LLVM's wrapper too: compat.md.)
# Link-only: no GPU needed.
# ctest-cost: 14
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need_cuda ptxas nvlink fatbinary nvcc

CUDA_FLAGS=(--cuda-path="$CUDA" -Wno-unknown-cuda-version)
for f in 3 5 7; do
	printf 'extern "C" __device__ int dev(int x) { return %s * x; }\n' $f >d$f.cu
	check "device library $f" "$CUDA/bin/nvcc" -lib -rdc=true -gencode arch=compute_90,code=sm_90 \
		d$f.cu -o libdev$f.a
done
dev_caller clang-19 -fopenmp --offload-arch=sm_90 -nogpulib "${CUDA_FLAGS[@]}"
LINK=(-fopenmp --offload-arch=sm_90 "${CUDA_FLAGS[@]}" -B "$COMPAT" k.o hostdev.o)
link() { # NAME ARGS...
	local name=$1
	shift
	clang-19 "${LINK[@]}" "$@" -o "$name" -Wl,--wrapper-verbose 2>"$name.v" ||
		fail "link of $name: $(grep -v '^offlink:  ' "$name.v" | tail -3)"
}
# same NAME ARGS...: a cached link equals an uncached one, byte for byte.
same() {
	local name=$1
	shift
	link "$name" "$@"
	link "$name.nc" "$@" -Wl,--no-cache
	cmp -s "$name" "$name.nc" ||
		fail "$name: the cached link differs from an uncached one (stale device code: $(grep 'device-link cache' "$name.v" | head -1))"
}

# 5. LIBRARY_PATH.
mkdir -p L1 L2
cp libdev3.a L2/libdev.a
export LIBRARY_PATH=$T/L1:$T/L2
same p1 -Xoffload-linker -ldev
same p2 -Xoffload-linker -ldev
contains p2.v "device-link cache hit"
cp libdev5.a L1/libdev.a
same p3 -Xoffload-linker -ldev
contains p3.v "device-link cache miss"
rm L1/libdev.a
cp libdev7.a L2/libdev.a
same p4 -Xoffload-linker -ldev
contains p4.v "device-link cache miss"
rm -f L1/libdev.a
unset LIBRARY_PATH
echo "ok: 5. nvlink's LIBRARY_PATH search is in the key"

# 6. -Wl,--device-linker=@file.
cp libdev3.a L2/libdev.a
printf -- '-L %s -ldev\n' "$T/L2" >nv.rsp
same r1 -Wl,--device-linker=@nv.rsp
grep -q "nvlink.*@nv.rsp" r1.v && fail "nvlink was given the @file it cannot read"
same r2 -Wl,--device-linker=@nv.rsp
contains r2.v "device-link cache hit"
printf -- '-L %s -ldev\n' "$T/L1" >nv.rsp
cp libdev5.a L1/libdev.a
same r3 -Wl,--device-linker=@nv.rsp
contains r3.v "device-link cache miss"
# A @file that cannot be read is an error naming it.
mkdir dir.rsp
clang-19 "${LINK[@]}" -Wl,--device-linker=@dir.rsp -o bad 2>bad.err && fail "a @file that is a directory was taken"
contains bad.err "dir.rsp"
[ -e bad ] && fail "a failed link left its output"
echo "ok: 6. nvlink's @files are read as LLVM's tools read them"
