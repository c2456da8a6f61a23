/* A host program calling a sample of the HIP runtime API, as a HIP
 * application does, declared here by hand (no ROCm on this machine; the
 * prototypes are those of hip_runtime_api.h with the types reduced to
 * what the calls need).  Prints each call's name; every call must say
 * "no device" (hipErrorNoDevice, 100).  Exit 1 otherwise. */
#include <stdio.h>
#include <stddef.h>

typedef int hipError_t;
typedef void *hipStream_t, *hipEvent_t, *hipGraph_t, *hipGraphExec_t;
enum { hipErrorNoDevice = 100 };

hipError_t hipGetDeviceCount(int *count);
hipError_t hipSetDevice(int device);
hipError_t hipGetDevice(int *device);
hipError_t hipGetDevicePropertiesR0600(void *prop, int device); /* hipGetDeviceProperties */
hipError_t hipDeviceGetAttribute(int *value, int attr, int device);
hipError_t hipDeviceSynchronize(void);
hipError_t hipDriverGetVersion(int *v);
hipError_t hipRuntimeGetVersion(int *v);
hipError_t hipMalloc(void **p, size_t n);
hipError_t hipHostMalloc(void **p, size_t n, unsigned flags);
hipError_t hipMallocManaged(void **p, size_t n, unsigned flags);
hipError_t hipMemset(void *p, int v, size_t n);
hipError_t hipMemcpy(void *d, const void *s, size_t n, int kind);
hipError_t hipMemcpyAsync(void *d, const void *s, size_t n, int kind, hipStream_t st);
hipError_t hipMemGetInfo(size_t *f, size_t *t);
hipError_t hipFree(void *p);
hipError_t hipHostFree(void *p);
hipError_t hipStreamCreate(hipStream_t *s);
hipError_t hipStreamSynchronize(hipStream_t s);
hipError_t hipStreamDestroy(hipStream_t s);
hipError_t hipEventCreate(hipEvent_t *e);
hipError_t hipEventRecord(hipEvent_t e, hipStream_t s);
hipError_t hipEventSynchronize(hipEvent_t e);
hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b);
hipError_t hipEventDestroy(hipEvent_t e);
hipError_t hipGraphCreate(hipGraph_t *g, unsigned flags);
hipError_t hipGraphInstantiate(hipGraphExec_t *ge, hipGraph_t g, void *, char *, size_t);
hipError_t hipGraphLaunch(hipGraphExec_t ge, hipStream_t s);
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *f, int block, size_t shm);
hipError_t hipFuncGetAttributes(void *attr, const void *f);
hipError_t hipMemcpy_spt(void *d, const void *s, size_t n, int kind);
hipError_t hipGetLastError(void);
const char *hipGetErrorString(hipError_t e);

static int wrong;

#define CALL(name, ...)                                                              \
	do {                                                                         \
		hipError_t e_ = name(__VA_ARGS__);                                   \
		printf("%s\n", #name);                                               \
		if (e_ != hipErrorNoDevice)                                          \
			wrong++, fprintf(stderr, "%s returned %d\n", #name, e_);     \
	} while (0)

int main(void)
{
	int n = -1, v = 0;
	size_t f = 0, t = 0;
	float ms = 0;
	void *p = NULL, *h = NULL;
	char prop[4096], attr[256];
	hipStream_t s = NULL;
	hipEvent_t a = NULL;
	hipGraph_t g = NULL;
	hipGraphExec_t ge = NULL;
	static const char kernel = 0;

	CALL(hipGetDeviceCount, &n);
	if (n != 0)
		wrong++, fprintf(stderr, "hipGetDeviceCount: %d devices\n", n);
	CALL(hipSetDevice, 0);
	CALL(hipGetDevice, &v);
	CALL(hipGetDevicePropertiesR0600, prop, 0);
	CALL(hipDeviceGetAttribute, &v, 0, 0);
	CALL(hipDeviceSynchronize);
	CALL(hipDriverGetVersion, &v);
	CALL(hipRuntimeGetVersion, &v);
	CALL(hipMalloc, &p, 64);
	CALL(hipHostMalloc, &h, 64, 0);
	CALL(hipMallocManaged, &p, 64, 1);
	CALL(hipMemset, p, 0, 64);
	CALL(hipMemcpy, p, h, 64, 1);
	CALL(hipMemcpy_spt, p, h, 64, 1);
	CALL(hipMemcpyAsync, p, h, 64, 1, s);
	CALL(hipMemGetInfo, &f, &t);
	CALL(hipFree, (void *)1);
	CALL(hipHostFree, h);
	CALL(hipStreamCreate, &s);
	CALL(hipStreamSynchronize, s);
	CALL(hipStreamDestroy, s);
	CALL(hipEventCreate, &a);
	CALL(hipEventRecord, a, s);
	CALL(hipEventSynchronize, a);
	CALL(hipEventElapsedTime, &ms, a, a);
	CALL(hipEventDestroy, a);
	CALL(hipGraphCreate, &g, 0);
	CALL(hipGraphInstantiate, &ge, g, NULL, NULL, 0);
	CALL(hipGraphLaunch, ge, s);
	CALL(hipOccupancyMaxActiveBlocksPerMultiprocessor, &v, &kernel, 64, 0);
	CALL(hipFuncGetAttributes, attr, &kernel);
	CALL(hipGetLastError);
	printf("hipGetErrorString\n");
	if (!*hipGetErrorString(hipErrorNoDevice))
		wrong++;
	return wrong != 0;
}
