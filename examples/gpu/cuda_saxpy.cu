/* CUDA check for a machine with an NVIDIA GPU (scripts/gpu-check.sh):
 * y = a*x + y over N floats, with `a` in a __device__ variable set through
 * cudaMemcpyToSymbol and a __device__ counter read back with
 * cudaMemcpyFromSymbol, so kernel and variable registration both matter.
 * clang 19 cannot read CUDA 13's headers: the runtime API used is
 * declared here. */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))

struct dim3 {
	unsigned x, y, z;
	__host__ __device__ dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef struct CUstream_st *cudaStream_t;
enum { H2D = 1, D2H = 2 }; /* cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost */

extern "C" {
unsigned __cudaPushCallConfiguration(dim3, dim3, unsigned long = 0, cudaStream_t = 0);
int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, cudaStream_t);
int cudaMalloc(void **, unsigned long);
int cudaFree(void *);
int cudaMemcpy(void *, const void *, unsigned long, int);
int cudaMemcpyToSymbol(const void *, const void *, unsigned long, unsigned long, int);
int cudaMemcpyFromSymbol(void *, const void *, unsigned long, unsigned long, int);
int cudaDeviceSynchronize(void);
int cudaGetLastError(void);
const char *cudaGetErrorString(int);
int printf(const char *, ...);
}

__device__ float factor;
__device__ unsigned grid_seen;

__global__ void saxpy(int n, const float *x, float *y)
{
	int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
		__nvvm_read_ptx_sreg_tid_x();

	if (i < n)
		y[i] = factor * x[i] + y[i];
	if (i == 0)
		grid_seen = __nvvm_read_ptx_sreg_nctaid_x();
}

#define CHECK(call)                                                             \
	do {                                                                    \
		int e_ = (call);                                                \
		if (e_) {                                                       \
			printf("%s: %s\n", #call, cudaGetErrorString(e_));      \
			return 1;                                               \
		}                                                               \
	} while (0)

int main()
{
	enum { N = 1 << 20 };
	static float x[N], y[N];
	float a = 2.0f, *dx, *dy;
	unsigned grid = 0, bad = 0;

	for (int i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 1.0f;
	}
	CHECK(cudaMalloc((void **)&dx, sizeof(x)));
	CHECK(cudaMalloc((void **)&dy, sizeof(y)));
	CHECK(cudaMemcpy(dx, x, sizeof(x), H2D));
	CHECK(cudaMemcpy(dy, y, sizeof(y), H2D));
	CHECK(cudaMemcpyToSymbol(&factor, &a, sizeof(a), 0, H2D));
	saxpy<<<(N + 255) / 256, 256>>>(N, dx, dy);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(y, dy, sizeof(y), D2H));
	CHECK(cudaMemcpyFromSymbol(&grid, &grid_seen, sizeof(grid), 0, D2H));
	for (int i = 0; i < N; i++)
		bad += y[i] != 2.0f * (float)i + 1.0f;
	printf("cuda saxpy: %u wrong of %d, grid %u\n", bad, N, grid);
	cudaFree(dx);
	cudaFree(dy);
	return bad != 0 || grid != (N + 255) / 256;
}
