/* First TU: two kernels and the device, constant and managed globals. */
#include "hip_decls.h"

__device__ int dev_counter;
__device__ double dev_table[16];
__constant__ float coeffs[4];
__managed__ int managed_value = 7;
__managed__ double managed_pair[2] = { 1.5, 2.5 };

__device__ int helper(int x); /* in hip_k2.hip: relocatable device code */

__global__ void scale(int *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = helper(p[i]) + dev_counter + managed_value + (int)dev_table[i % 16];
}

__global__ void fill(float *p)
{
	p[0] = coeffs[0] + (float)managed_pair[1];
}

void launch_k1(void)
{
	scale<<<2, 64>>>(0, 0);
	printf("scale: %d\n", hipGetLastError());
	fill<<<dim3(3, 2), 32>>>(0);
	printf("fill: %d\n", hipGetLastError());
}
