/* First TU: two kernels and the device, constant and managed globals. */
#include "cuda_decls.h"

__device__ int dev_counter;
__device__ double dev_table[16];
__constant__ float coeffs[4];

/* clang 19 ignores __managed__ in CUDA (it is HIP-only), so the host side
 * of managed_value (pointer, initial value, entry) comes from
 * cuda_managed.c, laid out as clang lays out HIP's; here is only the
 * device side. */
#ifdef __CUDA_ARCH__
__device__ int managed_value = 7;
#endif

__device__ int helper(int x); /* in cuda_k2.cu: relocatable device code */

__global__ void scale(int *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = helper(p[i]) + dev_counter + (int)dev_table[i % 16];
}

__global__ void fill(float *p)
{
	p[0] = coeffs[0];
}

/* The launches live beside the kernels: clang 19 lists kernels that a TU
 * launches but does not define in __clang_gpu_used_external as plain
 * .extern .func, which nvlink rejects ("not declared __global__ in all
 * source files"). */
void launch_k1(void)
{
	scale<<<2, 64>>>(0, 0);
	printf("scale: %d\n", cudaGetLastError());
	fill<<<dim3(3, 2), 32>>>(0);
	printf("fill: %d\n", cudaGetLastError());
}
