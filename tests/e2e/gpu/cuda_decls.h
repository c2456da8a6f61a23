/* What the test programs need of cuda_runtime.h.  clang 19 cannot parse
 * CUDA 13's headers, so the tests compile with -nocudainc and declare the
 * few runtime calls they make themselves. */
#ifndef CUDA_DECLS_H
#define CUDA_DECLS_H

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
#define __host__ __attribute__((host))

struct dim3 {
	unsigned x, y, z;
	__host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct CUstream_st *cudaStream_t;

extern "C" {
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, unsigned long shared = 0,
				     cudaStream_t stream = 0);
int cudaLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, unsigned long shared,
		     cudaStream_t stream);
int cudaGetLastError(void);
int cudaGetDeviceCount(int *count);
int printf(const char *, ...);
}

#endif
