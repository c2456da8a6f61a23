/* HIP without relocatable device code: one TU, its device code linked
 * when it is compiled (clang 22 runs the wrapper then, with
 * --emit-fatbin-only; 16 and 19 run the bundler). */
#include "hip_decls.h"

__device__ int dev_total;
__constant__ int dev_bias[2];

__global__ void accumulate(int *p, int n)
{
	for (int i = 0; i < n; i++)
		dev_total += p[i] + dev_bias[i % 2];
}

int main()
{
	accumulate<<<4, 32>>>(0, 0);
	printf("accumulate: %d\n", hipGetLastError());
	return 0;
}
