/* Second TU: the device function the first calls, and one more kernel and
 * global. */
#include "cuda_decls.h"

__device__ int helper(int x)
{
	return 2 * x;
}

__device__ long other_global;

__global__ void reset(long *p)
{
	*p = other_global;
}

void launch_k2(void)
{
	reset<<<1, 1>>>(0);
	printf("reset: %d\n", cudaGetLastError());
}
