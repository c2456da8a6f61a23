#!/usr/bin/env bash
# Issue 11 item 4: the stand-in libcudart and libamdhip64 export the whole
# CUDA and HIP runtime APIs, so that real programs link against them on
# machines without a GPU runtime, and every call says "no device" and is
# logged.
#  - the lists (runtime-stub/api_*.def) are what the public headers
#    declare: the CUDA one is regenerated from this machine's CUDA headers
#    and compared; every function NVIDIA's libcudart exports (but its
#    internal __cuda* entry points) is exported by the stand-in;
#  - every listed function is exported by its stand-in;
#  - a program calling 66 distinct CUDA runtime functions through CUDA's
#    own header (memory, streams, events, device properties, graphs,
#    occupancy, errors) links against the stand-in, runs, gets "no
#    device" from each, and each call is in OFFSTUB_LOG, in order; built
#    with per-thread default streams it calls the _ptds/_ptsz entry
#    points, which are logged too;
#  - a HIP program calling 33 functions likewise against libamdhip64.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need gcc nm
SRC=$OFFLINK_SRC/tests/e2e/stubapi

exported() { nm -D --defined-only "$1" | awk '$2 ~ /^[TW]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u; }
listed() { sed -n 's/^API_[A-Z]*(\(.*\))$/\1/p' "$OFFLINK_SRC/runtime-stub/api_$1.def" | sort -u; }

# Every listed function is exported by its stand-in.
exported "$STUBDIR/libcudart.so" >cudart.exports
exported "$STUBDIR/libamdhip64.so" >amdhip.exports
listed cuda >cuda.listed
listed hip >hip.listed
[ "$(wc -l <cuda.listed)" -ge 400 ] || fail "the CUDA list has only $(wc -l <cuda.listed) functions"
[ "$(wc -l <hip.listed)" -ge 400 ] || fail "the HIP list has only $(wc -l <hip.listed) functions"
missing=$(comm -23 cuda.listed cudart.exports)
[ -z "$missing" ] || fail "the stand-in libcudart does not export: $missing"
missing=$(comm -23 hip.listed amdhip.exports)
[ -z "$missing" ] || fail "the stand-in libamdhip64 does not export: $missing"

need_cuda nvcc
[ -r "$CUDA/include/cuda_runtime_api.h" ] || skip "no CUDA headers in $CUDA/include"
# The CUDA list is what this CUDA's headers declare.
check "the CUDA API list is current" sh "$OFFLINK_SRC/scripts/update-runtime-api.sh" --check cuda "$CUDA/include"
# ... and covers NVIDIA's runtime.
real=$(ls "$CUDA"/lib64/libcudart.so.[0-9]* 2>/dev/null | head -1)
if [ -n "$real" ]; then
	exported "$real" | grep -v '^__cuda' >real.exports
	missing=$(comm -23 real.exports cudart.exports)
	[ -z "$missing" ] || fail "$(basename "$real") exports what the stand-in does not: $missing"
	echo "the stand-in exports all $(wc -l <real.exports) public functions of $(basename "$real")"
fi

# calls_match LOG OUT RUNTIME: the log's calls are the program's, in order.
calls_match() {
	jq -r --arg rt "$3" 'select(.call and .runtime == $rt) | .call' "$1" >"$1.calls"
	diff -u "$2" "$1.calls" >&2 || fail "$1: the logged calls are not the program's"
	[ -z "$(jq -r 'select(.call) | select(.result != 100 and .result != 0 and .result != -1) | .call' "$1")" ] ||
		fail "$1: a call did not answer 'no device'"
}

check "build the CUDA sample" gcc -std=c17 -Wall -Wextra -Werror -I"$CUDA/include" \
	"$SRC/cuda_api_sample.c" -L"$STUBDIR" -lcudart -o cuda_sample
OFFSTUB_LOG=cuda.log LD_LIBRARY_PATH=$STUBDIR ./cuda_sample >cuda.out 2>cuda.err ||
	fail "cuda_sample exited with $?: $(cat cuda.err)"
calls_match cuda.log cuda.out cuda
n=$(sort -u cuda.out | wc -l)
[ "$n" -ge 40 ] || fail "the CUDA sample calls only $n distinct functions"
echo "CUDA: $n distinct runtime functions called, each logged"

# Per-thread default stream: the header maps calls to _ptds/_ptsz.
check "build the per-thread CUDA sample" gcc -std=c17 -Wall -Wextra -Werror \
	-DCUDA_API_PER_THREAD_DEFAULT_STREAM -I"$CUDA/include" \
	"$SRC/cuda_api_sample.c" -L"$STUBDIR" -lcudart -o cuda_sample_pt
OFFSTUB_LOG=pt.log LD_LIBRARY_PATH=$STUBDIR ./cuda_sample_pt >pt.out 2>pt.err ||
	fail "cuda_sample_pt exited with $?: $(cat pt.err)"
jq -r 'select(.call) | .call' pt.log >pt.calls
for f in cudaMemcpy_ptds cudaMemset_ptds cudaMemcpyAsync_ptsz cudaStreamSynchronize_ptsz \
	 cudaEventRecord_ptsz cudaGraphLaunch_ptsz; do
	grep -qx "$f" pt.calls || fail "per-thread build: $f was not called or not logged"
done
[ "$(wc -l <pt.calls)" = "$(wc -l <pt.out)" ] || fail "per-thread build: $(wc -l <pt.calls) calls logged, $(wc -l <pt.out) made"

check "build the HIP sample" gcc -std=c17 -Wall -Wextra -Werror "$SRC/hip_api_sample.c" \
	-L"$STUBDIR" -lamdhip64 -o hip_sample
OFFSTUB_LOG=hip.log LD_LIBRARY_PATH=$STUBDIR ./hip_sample >hip.out 2>hip.err ||
	fail "hip_sample exited with $?: $(cat hip.err)"
calls_match hip.log hip.out hip
echo "HIP: $(sort -u hip.out | wc -l) distinct runtime functions called, each logged"
echo "PASS: the stand-in runtimes export and log the whole API"
