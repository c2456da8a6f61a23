#!/usr/bin/env bash
# Issue 25, item 13: the farm recipe of docs/farm.md, with the real ccache
# and a real redis-server on loopback, nothing mocked.  Two workers build
# the same project in checkouts at different paths ($T/ws1/proj and
# $T/ws2/proj), each with empty local caches (ccache's directory,
# offlink's store, offlink's remembered digests), sharing one Redis: ccache
# for the compiles (its remote storage, base_dir), offlink for the device
# links (its remote, the shared secret, --cache-base-dir).  The project:
# OpenMP for the x86_64 host device (and nvptx64 sm_90, link only, where
# CUDA's tools are), three objects and a static library of device code.
# The second worker must compile nothing (every compile a ccache remote
# hit), run no device linker and no clang to learn what clang runs (every
# group a remote hit), and its program must be the first's, byte for byte,
# and run.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/omp.sh"
. "$OFFLINK_SRC/tests/lib/servers.sh"
need ccache ar cmp
need_cuda ptxas nvlink

start_redis
head -c 32 /dev/urandom >secret
chmod 600 secret

TARGETS=x86_64-pc-linux-gnu,nvptx64-nvidia-cuda
FLAGS=(-O2 -fopenmp -fopenmp-targets=$TARGETS -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90
	--cuda-path="$CUDA" --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib -Wno-unknown-cuda-version)

mkdir -p src
cat >src/main.c <<'EOF'
#include <stdio.h>
int scale(int);
int shift(int);
#pragma omp declare target
int twice(int);
#pragma omp end declare target
int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = twice(21);
  printf("main=%d scale=%d shift=%d\n", r, scale(3), shift(4));
  return 0;
}
EOF
cat >src/k1.c <<'EOF'
int scale(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = 7 * x;
  return r;
}
EOF
cat >src/k2.c <<'EOF'
int shift(int x) {
  int r = 0;
#pragma omp target map(from: r)
  r = x + 100;
  return r;
}
EOF
cat >src/lib.c <<'EOF'
#pragma omp declare target
int twice(int x) { return 2 * x; }
#pragma omp end declare target
EOF

# build N: worker N's whole build in its own checkout, its own empty
# local caches, the shared Redis.
build() {
	local w=$T/ws$1
	mkdir -p "$w/home/.cache"
	cp -r src "$w/proj"
	(
		cd "$w/proj" || exit 1
		export HOME=$w/home
		export CCACHE_DIR=$w/ccache CCACHE_BASEDIR=$w CCACHE_NOHASHDIR=1
		export CCACHE_REMOTE_STORAGE="redis://127.0.0.1:$REDIS_PORT"
		export OFFLINK_CACHE_DIR=$w/offlink OFFLINK_CACHE_BASE_DIR=$w
		export OFFLINK_CACHE_REMOTE="redis://127.0.0.1:$REDIS_PORT"
		export OFFLINK_CACHE_SECRET_FILE=$T/secret
		for f in main k1 k2 lib; do
			ccache clang-19 "${FLAGS[@]}" -c $f.c -o $f.o || exit 1
		done
		ar rcs libtwice.a lib.o || exit 1
		clang-19 "${FLAGS[@]}" -B "$COMPAT" main.o k1.o k2.o -L. -ltwice -o prog \
			-Wl,--wrapper-verbose 2>link.v || exit 1
		ccache --print-stats >ccache.stats
	) || fail "worker $1's build failed: $(tail -3 "$w/proj/link.v" 2>/dev/null)"
}
stat_of() { sed -n "s/^$2\t//p" "$T/ws$1/proj/ccache.stats"; }

build 1
contains ws1/proj/link.v "device-link cache stored"
[ "$(stat_of 1 cache_miss)" = 4 ] || fail "worker 1: expected 4 compiles, ccache says $(stat_of 1 cache_miss) misses"
build 2
# compiled nothing
[ "$(stat_of 2 cache_miss)" = 0 ] || fail "worker 2 compiled $(stat_of 2 cache_miss) files"
[ "$(stat_of 2 remote_storage_hit)" = 4 ] ||
	fail "worker 2: expected 4 ccache remote hits, got $(stat_of 2 remote_storage_hit)"
# linked nothing on the device side, asked clang nothing
groups=$(grep -c "device-link cache hit (remote" ws2/proj/link.v)
[ "$groups" = 2 ] || fail "worker 2: expected 2 remote hits (x86_64, sm_90): $(grep 'device-link cache' ws2/proj/link.v)"
grep -q "device-link cache miss" ws2/proj/link.v && fail "worker 2 missed: $(grep 'cache miss' ws2/proj/link.v)"
for tool in "'-###'" "nvlink -arch" "ptxas " "clang-nvlink-wrapper " " -shared "; do
	grep -v '^offlink:' ws2/proj/link.v | grep -qF -- "$tool" &&
		fail "worker 2 ran a device tool ($tool): $(grep -F -- "$tool" ws2/proj/link.v | head -1)"
done
cmp ws1/proj/prog ws2/proj/prog || fail "the two workers' programs differ"
(cd ws2/proj && run prog)
contains ws2/proj/prog.out "main=42 scale=21 shift=104"
echo "ok: the second worker compiled nothing, linked no device code, and made the same program"
