/* What the test programs need of hip_runtime.h (no ROCm here: the tests
 * compile with -nogpuinc and declare the runtime calls they make). */
#ifndef HIP_DECLS_H
#define HIP_DECLS_H

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __constant__ __attribute__((constant))
#define __host__ __attribute__((host))
#define __managed__ __attribute__((managed))

struct dim3 {
	unsigned x, y, z;
	__host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct ihipStream_t *hipStream_t;

extern "C" {
int __hipPushCallConfiguration(dim3 grid, dim3 block, unsigned long shared = 0,
			       hipStream_t stream = 0);
int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, unsigned long shared,
		    hipStream_t stream);
int hipGetLastError(void);
int hipGetDeviceCount(int *count);
int printf(const char *, ...);
}

#endif
