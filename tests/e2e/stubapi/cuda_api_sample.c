/* A host program that calls a wide sample of the CUDA runtime API --
 * memory, streams, events, device properties, graphs, occupancy, errors,
 * versions -- through CUDA's own header, as an application would.  On a
 * machine without a GPU every call must say "no device"; the program
 * prints the name of each call it made, in order, so that a test can
 * compare them with the runtime stub's log.  Exit 0 when every call
 * answered as a runtime without devices does; 1 otherwise. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

static int calls, wrong;

/* CALL(name, args...): call, print the name, expect cudaErrorNoDevice. */
#define CALL(name, ...)                                                       \
	do {                                                                  \
		cudaError_t e_ = name(__VA_ARGS__);                           \
		printf("%s\n", #name);                                        \
		calls++;                                                      \
		if (e_ != cudaErrorNoDevice) {                                \
			fprintf(stderr, "%s returned %d, not cudaErrorNoDevice\n", \
				#name, (int)e_);                              \
			wrong++;                                              \
		}                                                             \
	} while (0)

static const char no_kernel; /* stands for a kernel's host stub */

int main(void)
{
	int n = -1, value = 0, blocks = 0, driver = 0, runtime = 0, device = 0;
	size_t free_mem = 0, total = 0, pitch = 0, limit = 0;
	void *p = NULL, *host = NULL;
	float ms = 0;
	struct cudaDeviceProp prop;
	struct cudaPointerAttributes attr;
	struct cudaFuncAttributes fattr;
	cudaStream_t s = NULL;
	cudaEvent_t a = NULL, b = NULL;
	cudaGraph_t g = NULL;
	cudaGraphExec_t ge = NULL;
	cudaGraphNode_t node = NULL;
	cudaMemPool_t pool = NULL;
	struct cudaChannelFormatDesc desc;
	cudaArray_t array = NULL;
	const char *text;

	/* devices and properties */
	CALL(cudaGetDeviceCount, &n);
	if (n != 0)
		wrong++, fprintf(stderr, "cudaGetDeviceCount: %d devices\n", n);
	CALL(cudaSetDevice, 0);
	CALL(cudaGetDevice, &device);
	CALL(cudaGetDeviceProperties, &prop, 0);
	CALL(cudaDeviceGetAttribute, &value, cudaDevAttrMultiProcessorCount, 0);
	CALL(cudaDeviceGetLimit, &limit, cudaLimitStackSize);
	CALL(cudaDeviceSetLimit, cudaLimitStackSize, 4096);
	CALL(cudaDeviceSetCacheConfig, cudaFuncCachePreferL1);
	CALL(cudaDeviceSynchronize);
	CALL(cudaDeviceReset);
	CALL(cudaSetDeviceFlags, cudaDeviceScheduleAuto);
	CALL(cudaDriverGetVersion, &driver);
	CALL(cudaRuntimeGetVersion, &runtime);
	CALL(cudaDeviceCanAccessPeer, &value, 0, 1);
	/* memory */
	CALL(cudaMalloc, &p, 1024);
	CALL(cudaMallocManaged, &p, 1024, cudaMemAttachGlobal);
	CALL(cudaMallocHost, &host, 1024);
	CALL(cudaMallocPitch, &p, &pitch, 64, 64);
	CALL(cudaMemset, p, 0, 1024);
	CALL(cudaMemcpy, p, host, 1024, cudaMemcpyHostToDevice);
	CALL(cudaMemcpy2D, p, 64, host, 64, 64, 4, cudaMemcpyHostToDevice);
	CALL(cudaMemGetInfo, &free_mem, &total);
	CALL(cudaPointerGetAttributes, &attr, host);
	CALL(cudaHostRegister, host, 1024, cudaHostRegisterDefault);
	CALL(cudaHostUnregister, host);
	CALL(cudaFreeHost, host);
	CALL(cudaFree, (void *)1);
	CALL(cudaMemPrefetchAsync, p, 1024, (struct cudaMemLocation){ cudaMemLocationTypeDevice, 0 }, 0, s);
	CALL(cudaMemAdvise, p, 1024, cudaMemAdviseSetReadMostly, (struct cudaMemLocation){ cudaMemLocationTypeDevice, 0 });
	desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	printf("cudaCreateChannelDesc\n");
	calls++;
	if (desc.x != 32 || desc.f != cudaChannelFormatKindFloat)
		wrong++, fprintf(stderr, "cudaCreateChannelDesc: x=%d f=%d\n", desc.x, (int)desc.f);
	CALL(cudaMallocArray, &array, &desc, 16, 16, 0);
	CALL(cudaFreeArray, array);
	CALL(cudaDeviceGetDefaultMemPool, &pool, 0);
	CALL(cudaMallocAsync, &p, 1024, s);
	CALL(cudaFreeAsync, p, s);
	/* streams and events */
	CALL(cudaStreamCreate, &s);
	CALL(cudaStreamCreateWithFlags, &s, cudaStreamNonBlocking);
	CALL(cudaStreamCreateWithPriority, &s, cudaStreamDefault, 0);
	CALL(cudaMemcpyAsync, p, host, 1024, cudaMemcpyHostToDevice, s);
	CALL(cudaMemsetAsync, p, 0, 1024, s);
	CALL(cudaStreamQuery, s);
	CALL(cudaStreamSynchronize, s);
	CALL(cudaEventCreate, &a);
	CALL(cudaEventCreateWithFlags, &b, cudaEventDisableTiming);
	CALL(cudaEventRecord, a, s);
	CALL(cudaStreamWaitEvent, s, a, 0);
	CALL(cudaEventSynchronize, a);
	CALL(cudaEventQuery, a);
	CALL(cudaEventElapsedTime, &ms, a, b);
	CALL(cudaEventDestroy, a);
	CALL(cudaStreamDestroy, s);
	/* graphs */
	CALL(cudaStreamBeginCapture, s, cudaStreamCaptureModeGlobal);
	CALL(cudaStreamEndCapture, s, &g);
	CALL(cudaGraphCreate, &g, 0);
	CALL(cudaGraphAddEmptyNode, &node, g, NULL, 0);
	CALL(cudaGraphInstantiate, &ge, g, 0);
	CALL(cudaGraphLaunch, ge, s);
	CALL(cudaGraphExecDestroy, ge);
	CALL(cudaGraphDestroy, g);
	/* occupancy and functions */
	CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, &no_kernel, 128, 0);
	CALL(cudaFuncGetAttributes, &fattr, &no_kernel);
	CALL(cudaFuncSetCacheConfig, &no_kernel, cudaFuncCachePreferShared);
	/* errors */
	CALL(cudaPeekAtLastError);
	CALL(cudaGetLastError);
	text = cudaGetErrorString(cudaErrorNoDevice);
	printf("cudaGetErrorString\n");
	calls++;
	text = cudaGetErrorName(cudaErrorNoDevice);
	printf("cudaGetErrorName\n");
	calls++;
	if (!text || !*text)
		wrong++, fprintf(stderr, "cudaGetErrorName: empty\n");
	fprintf(stderr, "%d calls, %d answered wrong\n", calls, wrong);
	return wrong != 0;
}
