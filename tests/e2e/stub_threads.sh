#!/usr/bin/env bash
# Issue 39, item 7: the stub under threads.  A correct nvcc program whose
# 256 threads each launch a kernel of their own, all at once: each
# launch asks __cudaGetKernel for its kernel's handle at that moment, from
# its own thread.  The stub's table of handles had no lock, so a handle
# was lost ("malformed __cudaLaunchKernel: a launch of kernel handle ...,
# which __cudaGetKernel did not give") in 2-7 of 30-40 runs.  The program
# is run 40 times (no GPU work happens: a run takes some 30 ms); every run
# must pass and log the one registration and the 256 launches, each
# kernel once.
. "$OFFLINK_SRC/tests/lib/testlib.sh"
. "$OFFLINK_SRC/tests/lib/stub.sh"
need_cuda nvcc
# ctest-cost: 15

cat >threads.cu <<'CU'
#include <cstdio>
#include <pthread.h>
#include <utility>

template <int N> __global__ void kern(int *p) { if (p) p[0] = N; }
template <int N> static void launch() { kern<N><<<1, 1>>>(nullptr); }

typedef void (*launcher)();
template <int... N> static void fill(launcher *v, std::integer_sequence<int, N...>)
{
	launcher all[] = { launch<N>... };
	for (unsigned i = 0; i < sizeof...(N); i++)
		v[i] = all[i];
}

enum { THREADS = 256 };
static launcher launchers[THREADS];
static pthread_barrier_t start;

static void *run(void *arg)
{
	pthread_barrier_wait(&start); // all at once: each thread's first launch races the others'
	launchers[(long)arg]();
	return nullptr;
}

int main()
{
	pthread_t t[THREADS];

	fill(launchers, std::make_integer_sequence<int, THREADS>());
	pthread_barrier_init(&start, nullptr, THREADS);
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], nullptr, run, (void *)i))
			return 2;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], nullptr);
	puts("256 launches");
	return 0;
}
CU
check "nvcc the threaded program" "$CUDA/bin/nvcc" -arch=sm_90 -cudart shared threads.cu -o threads
for i in $(seq 40); do
	OFFSTUB_LOG=run$i.log LD_LIBRARY_PATH=$STUBDIR ./threads >run.out 2>run.err ||
		fail "run $i of 40 exited with $?: $(cat run.err)"
	[ "$(jq -r 'select(.launch) | .launch' run$i.log | sort -u | wc -l)" = 256 ] &&
		[ "$(jq -r 'select(.launch) | .launch' run$i.log | wc -l)" = 256 ] &&
		[ "$(jq -r 'select(.images) | .runtime' run$i.log)" = cuda ] ||
		fail "run $i: not one registration and 256 launches of 256 kernels: $(head -c 600 run$i.log)"
done
echo "PASS: 40 runs of 256 threads, each launching its own kernel"
