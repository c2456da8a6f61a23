#!/usr/bin/env bash
# Issue 25, item 2: a race between the key and the link.  Every group's
# key is computed before any device link starts; a device library rebuilt
# while the links run (here by the first nvlink of the link, as a build
# that rebuilds it in parallel would) is read by the links that come
# after, under keys computed from its old content.  Nothing may be stored
# then: a later link with the old library must not get an image linked
# against the new one.  Two NVPTX groups (sm_80, sm_90), one device link
# at a time (--wrapper-jobs=1, as make with no free job slot), each
# linking a device library with nvlink -ldev.  Link-only: no GPU needed.
# The same for one group whose library changes between its key and its
# own link (the key is computed up front; a step that runs first changes
# it).
# ctest-cost: 12
# ctest-heavy: all
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
need_cuda ptxas nvlink fatbinary nvcc

CUDA_FLAGS=(--cuda-path="$T/cuda" -Wno-unknown-cuda-version)
for f in 3 5; do
	printf 'extern "C" __device__ int dev(int x) { return %s * x; }\n' $f >d$f.cu
	check "device library $f" "$CUDA/bin/nvcc" -lib -rdc=true -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 d$f.cu -o libdev$f.a
done
mkdir -p lib cuda/bin
cp libdev3.a lib/libdev.a
# A CUDA installation whose nvlink, the first time it runs while
# $T/race exists, replaces the device library (as a parallel rebuild
# would) before it links.
for t in ptxas fatbinary; do ln -s "$CUDA/bin/$t" cuda/bin/$t; done
cat >cuda/bin/nvlink <<EOF
#!/bin/sh
if rmdir "$T/race" 2>/dev/null; then cp "$T/libdev5.a" "$T/lib/libdev.a.new" && mv "$T/lib/libdev.a.new" "$T/lib/libdev.a"; fi
exec "$CUDA/bin/nvlink" "\$@"
EOF
chmod +x cuda/bin/nvlink
dev_caller clang-19 -fopenmp --offload-arch=sm_80,sm_90 -nogpulib "${CUDA_FLAGS[@]}"

LINK=(-fopenmp --offload-arch=sm_80,sm_90 "${CUDA_FLAGS[@]}" -B "$COMPAT" k.o hostdev.o
	-Xoffload-linker -L"$T/lib" -Xoffload-linker -ldev -Wl,--wrapper-jobs=1 -Wl,--cuda-path="$T/cuda")
link() { # NAME ARGS...
	local name=$1
	shift
	clang-19 "${LINK[@]}" "$@" -o "$name" -Wl,--wrapper-verbose 2>"$name.v" ||
		fail "link of $name: $(grep -v '^offlink:  ' "$name.v" | tail -3)"
}

for round in 1 2 3; do
	rm -rf "$OFFLINK_CACHE_DIR"
	cp libdev3.a lib/libdev.a
	mkdir race
	link racing
	[ -e race ] && fail "round $round: the racing nvlink did not run"
	cmp -s lib/libdev.a libdev5.a || fail "round $round: the library was not replaced"
	grep -q "device-link cache stored" racing.v &&
		fail "round $round: an image linked against the replaced library was stored: $(grep 'cache stored' racing.v)"
	contains racing.v "not stored: '$T/lib/libdev.a' changed during the link"
	# The old library back: a relink must link it, as an uncached link does.
	cp libdev3.a lib/libdev.a
	link cached
	link uncached -Wl,--no-cache
	cmp -s cached uncached ||
		fail "round $round: the relink with the old library differs from an uncached link (stale device code: $(grep 'device-link cache' cached.v | head -2))"
	echo "ok: round $round"
done

# Nothing raced: the entries are stored and hit.
rm -rf "$OFFLINK_CACHE_DIR"
link first
contains first.v "device-link cache stored"
link second
contains second.v "device-link cache hit"
cmp -s second uncached || fail "a hit differs from an uncached link"
echo "ok: a library replaced during the link is never stored under its old content's key"
